"""Views, stored as Hive stores them and read at the statement's snapshot.

Hive's catalog row of a view (``TBLS.TBL_TYPE = 'VIRTUAL_VIEW'``, ``VIEW_ORIGINAL_TEXT`` as written,
``VIEW_EXPANDED_TEXT`` with names qualified; ``SDS`` without a location), its DESCRIBE FORMATTED (Hive 3.1's
"# View Information") and SHOW CREATE TABLE (``CREATE VIEW `v` AS <expanded text>``), and Hive's refusals
(``ErrorMsg.DML_AGAINST_VIEW`` 10090, ``VIEW_COL_MISMATCH`` 10089, ``ALTER_COMMAND_FOR_VIEWS`` 10131,
"Cannot drop a view with DROP TABLE").
"""

from __future__ import annotations

import sqlite3

import pytest

from hiveacid_sql.errors import HiveAcidError

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def _rows(acid, sql: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(sql).collect()]


@pytest.fixture()
def tables(acid):
    acid.sql(f"CREATE TABLE emp (id int, name string, dept int) {ACID}")
    acid.sql("INSERT INTO emp VALUES (1, 'Jerry', 10), (2, 'Tom', 20), (3, 'Kate', 10)")
    acid.sql("CREATE TABLE dept (id int, dname string) STORED AS PARQUET")
    acid.sql("INSERT INTO dept VALUES (10, 'eng'), (20, 'ops')")
    return acid


def test_view_is_stored_as_hive_stores_it(tables, warehouse):
    acid = tables
    acid.sql(
        "CREATE VIEW v_emp (eid COMMENT 'employee id', who) COMMENT 'staff' TBLPROPERTIES ('owner_team'='hr') "
        "AS SELECT id, upper(name) FROM emp WHERE dept = 10"
    )
    assert _rows(acid, "SELECT * FROM v_emp ORDER BY eid") == [(1, "JERRY"), (3, "KATE")]
    view = acid.store.catalog.get_table("default", "v_emp")
    assert view.table_type == "VIRTUAL_VIEW" and view.is_view
    assert view.view_original_text == "SELECT id, upper(name) FROM emp WHERE dept = 10"
    assert "`default`.`emp`" in view.view_expanded_text
    assert view.view_expanded_text.startswith("SELECT `id` AS `eid`, `upper(name)` AS `who` FROM (")
    with sqlite3.connect(warehouse / ".hiveacid" / "txn.db") as db:
        row = db.execute(
            'SELECT t."TBL_TYPE", s."LOCATION", s."INPUT_FORMAT", se."SLIB" FROM "TBLS" t JOIN "SDS" s ON s."SD_ID" = t."SD_ID" '
            'JOIN "SERDES" se ON se."SERDE_ID" = s."SERDE_ID" WHERE t."TBL_NAME" = ?',
            ("v_emp",),
        ).fetchone()
    assert row == ("VIRTUAL_VIEW", None, "org.apache.hadoop.mapred.SequenceFileInputFormat", None)
    assert _rows(acid, "DESCRIBE v_emp") == [("eid", "int", "employee id"), ("who", "string", "")]
    formatted = _rows(acid, "DESCRIBE FORMATTED v_emp")
    assert ("Table Type:", "VIRTUAL_VIEW", "") in formatted
    assert ("View Original Text:", view.view_original_text, "") in formatted
    assert ("View Expanded Text:", view.view_expanded_text, "") in formatted
    assert ("", "owner_team", "hr") in formatted and ("", "comment", "staff") in formatted
    assert not any(r[0] == "Location:" for r in formatted)
    assert _rows(acid, "SHOW CREATE TABLE v_emp") == [(f"CREATE VIEW `default`.`v_emp` AS {view.view_expanded_text}",)]
    assert _rows(acid, "SHOW VIEWS") == [("v_emp",)]
    assert _rows(acid, "SHOW VIEWS LIKE 'x*'") == []
    assert ("v_emp",) in _rows(acid, "SHOW TABLES")  # Hive 3's SHOW TABLES lists views too
    # The expanded text is what is read: a column added to the table later does not change the view.
    acid.sql("ALTER TABLE emp ADD COLUMNS (extra int)")
    assert [f.name for f in acid.sql("SELECT * FROM v_emp").schema.fields] == ["eid", "who"]


def test_views_in_joins_subqueries_insert_select_and_merge(tables):
    acid = tables
    acid.sql("CREATE VIEW staff AS SELECT e.id, e.name, d.dname FROM emp e JOIN dept d ON e.dept = d.id")
    acid.sql("CREATE VIEW eng AS SELECT id, name FROM staff WHERE dname = 'eng'")  # a view over a view
    assert _rows(acid, "SELECT s.name, e.id FROM staff s JOIN eng e ON s.id = e.id ORDER BY e.id") == [
        ("Jerry", 1), ("Kate", 3)
    ]
    assert _rows(acid, "SELECT name FROM emp WHERE id IN (SELECT id FROM eng) ORDER BY name") == [("Jerry",), ("Kate",)]
    assert _rows(acid, "SELECT count(*) FROM (SELECT * FROM default.staff) x") == [(3,)]
    acid.sql(f"CREATE TABLE out (id int, name string) {ACID}")
    acid.sql("INSERT INTO out SELECT id, name FROM eng")
    assert _rows(acid, "SELECT * FROM out ORDER BY id") == [(1, "Jerry"), (3, "Kate")]
    acid.sql("UPDATE emp SET name = 'Katie' WHERE id = 3")
    result = acid.sql(
        "MERGE INTO out t USING eng s ON t.id = s.id WHEN MATCHED THEN UPDATE SET name = s.name "
        "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.name)"
    )
    assert result.num_updated_rows == 2 and result.num_inserted_rows == 0
    assert _rows(acid, "SELECT * FROM out ORDER BY id") == [(1, "Jerry"), (3, "Katie")]
    acid.sql("DELETE FROM out WHERE id IN (SELECT id FROM eng WHERE name = 'Jerry')")
    assert _rows(acid, "SELECT * FROM out") == [(3, "Katie")]
    explain = [r[0] for r in acid.sql("EXPLAIN SELECT * FROM eng").collect()]
    assert any(line.startswith("Read default.emp at write ids") for line in explain)  # the table beneath, at the snapshot


def test_view_reads_the_transaction_snapshot(tables, spark, warehouse):
    import hiveacid_sql

    acid = tables
    acid.sql("CREATE VIEW v AS SELECT id FROM emp")
    other = hiveacid_sql.connect(spark=spark, warehouse=str(warehouse))
    try:
        acid.sql("BEGIN")
        before = _rows(acid, "SELECT count(*) FROM v")
        other.sql("INSERT INTO emp VALUES (9, 'Other', 30)")  # committed after BEGIN: invisible inside it
        acid.sql("INSERT INTO emp VALUES (4, 'Own', 30)")  # the transaction's own write: visible
        inside = sorted(r[0] for r in acid.sql("SELECT id FROM v").collect())
        acid.sql("COMMIT")
    finally:
        other.close()
    assert before == [(3,)]
    assert inside == [1, 2, 3, 4]
    assert sorted(r[0] for r in acid.sql("SELECT id FROM v").collect()) == [1, 2, 3, 4, 9]


def test_time_travel_beneath_a_view(tables):
    acid = tables
    acid.sql("UPDATE emp SET name = 'Tommy' WHERE id = 2")
    acid.sql("CREATE VIEW first_emp AS SELECT id, name FROM emp VERSION AS OF 1")
    assert _rows(acid, "SELECT name FROM first_emp WHERE id = 2") == [("Tom",)]
    with pytest.raises(HiveAcidError, match="Time travel needs a transactional table; default.first_emp is a view"):
        acid.sql("SELECT * FROM first_emp VERSION AS OF 1")


def test_replace_alter_and_drop_views(tables):
    acid = tables
    acid.sql("CREATE VIEW v AS SELECT id FROM emp")
    acid.sql("CREATE VIEW IF NOT EXISTS v AS SELECT name FROM emp")  # exists: unchanged
    assert [f.name for f in acid.sql("SELECT * FROM v").schema.fields] == ["id"]
    with pytest.raises(HiveAcidError, match="Table already exists: default.v"):
        acid.sql("CREATE VIEW v AS SELECT name FROM emp")
    acid.sql("CREATE OR REPLACE VIEW v AS SELECT name, dept * 2 FROM emp")
    assert [f.name for f in acid.sql("SELECT * FROM v").schema.fields] == ["name", "_c1"]
    acid.sql("ALTER VIEW v AS SELECT dname FROM dept")
    assert _rows(acid, "SELECT * FROM v ORDER BY dname") == [("eng",), ("ops",)]
    acid.sql("ALTER VIEW v SET TBLPROPERTIES ('k'='v1')")
    assert _rows(acid, "SHOW TBLPROPERTIES v ('k')") == [("k", "v1")]
    acid.sql("ALTER VIEW v RENAME TO w")
    assert _rows(acid, "SHOW VIEWS") == [("w",)]
    with pytest.raises(HiveAcidError, match="Cannot drop a view with DROP TABLE"):
        acid.sql("DROP TABLE w")
    with pytest.raises(HiveAcidError, match="Cannot drop a base table with DROP VIEW"):
        acid.sql("DROP VIEW emp")
    with pytest.raises(HiveAcidError, match="To alter a view you need to use the ALTER VIEW command"):
        acid.sql("ALTER TABLE w SET TBLPROPERTIES ('a'='b')")
    with pytest.raises(HiveAcidError, match="To alter a base table you need to use the ALTER TABLE command"):
        acid.sql("ALTER VIEW emp AS SELECT 1")
    acid.sql("DROP TABLE IF EXISTS w")  # Hive: IF EXISTS of the wrong kind does nothing
    acid.sql("DROP VIEW w")
    acid.sql("DROP VIEW IF EXISTS w")
    assert _rows(acid, "SHOW VIEWS") == [] and _rows(acid, "SELECT count(*) FROM emp") == [(3,)]
    acid.sql("CREATE DATABASE d")
    acid.sql("CREATE VIEW d.dv AS SELECT 1 AS one")
    acid.sql("DROP DATABASE d CASCADE")
    assert "d" not in [r[0] for r in acid.sql("SHOW DATABASES").collect()]


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("INSERT INTO v VALUES (1)", "A view cannot be used as target table for LOAD or INSERT"),
        ("INSERT OVERWRITE TABLE v SELECT id FROM emp", "A view cannot be used as target table for LOAD or INSERT"),
        ("UPDATE v SET id = 2", "You cannot update or delete records in a view"),
        ("DELETE FROM v WHERE id = 1", "You cannot update or delete records in a view"),
        ("MERGE INTO v t USING emp s ON t.id = s.id WHEN MATCHED THEN DELETE", "You cannot update or delete records in a view"),
        ("TRUNCATE TABLE v", "Cannot truncate non-managed table default.v"),
        ("CREATE VIEW bad (a, b) AS SELECT id FROM emp", "The number of columns produced by the SELECT clause does not match"),
        ("CREATE VIEW bad AS SELECT id, id FROM emp", "Duplicate column name: id"),
        ("CREATE VIEW bad AS SELECT * FROM nothing", "Table not found 'default.nothing'"),
        ("CREATE VIEW bad AS SELECT nope FROM emp", "nope"),
    ],
)
def test_bad_view_statements_fail_in_one_line_and_change_nothing(tables, statement, message):
    acid = tables
    acid.sql("CREATE VIEW v AS SELECT id FROM emp")
    before = (_rows(acid, "SELECT * FROM emp ORDER BY id"), _rows(acid, "SHOW TABLES"))
    with pytest.raises(HiveAcidError, match=message) as err:
        acid.sql(statement)
    assert "\n" not in str(err.value)
    assert (_rows(acid, "SELECT * FROM emp ORDER BY id"), _rows(acid, "SHOW TABLES")) == before


def test_view_over_a_dropped_table_fails_in_one_line_naming_it(tables):
    acid = tables
    acid.sql("CREATE VIEW names AS SELECT dname FROM dept")
    acid.sql("CREATE VIEW names2 AS SELECT * FROM names")
    acid.sql("DROP TABLE dept")
    for query in ("SELECT * FROM names", "SELECT * FROM names2"):
        with pytest.raises(HiveAcidError) as err:
            acid.sql(query)
        text = str(err.value)
        assert "Table not found 'default.dept'" in text and "in definition of VIEW default.names" in text
        assert "\n" not in text
