"""Hive 3 column constraints: DEFAULT and NOT NULL used by every write, PRIMARY KEY / FOREIGN KEY / UNIQUE
``DISABLE NOVALIDATE`` stored in ``KEY_CONSTRAINTS`` as Hive 3.1's metastore stores them and shown as Hive's
DESCRIBE FORMATTED shows them.

Sources (apache/hive): ``ql/src/test/queries/clientpositive/default_constraint.q`` and its
``results/clientpositive/llap/default_constraint.q.out`` (rows and ``# Default Constraints``),
``create_with_constraints.q`` (PK/FK/UNIQUE syntax), ``BaseSemanticAnalyzer`` (the DEFAULT type rule and
the ENABLE/VALIDATE refusals), ``ObjectStore.addPrimaryKeys/addForeignKeys`` (the KEY_CONSTRAINTS rows),
``MetaDataFormatUtils.getConstraintsInformation`` (DESCRIBE FORMATTED), ``GenericUDFEnforceConstraint``
(the NOT NULL message).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hiveacid_sql.errors import HiveAcidError

NUMERIC = (
    "CREATE TABLE numericDataType_n1(a TINYINT CONSTRAINT tinyint_constraint DEFAULT 127Y ENABLE, b SMALLINT DEFAULT "
    "32767S, c INT DEFAULT 2147483647,\n    d BIGINT DEFAULT  9223372036854775807L, e DOUBLE DEFAULT 3.4E38, "
    "f DECIMAL(9,2) DEFAULT 1234567.89)\n    clustered by (a) into 2 buckets stored as orc "
    "TBLPROPERTIES ('transactional'='true')"
)


def _rows(acid, sql: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(sql).collect()]

def _violation_changes_nothing(
    acid, warehouse: Path, table: str, rows: list[tuple], statement: str, *fragments: str
) -> None:
    """``statement`` fails with one line holding every fragment; the table still holds ``rows`` (by its first
    column) and the files it had (the aborted write left nothing)."""
    before = sorted(p.name for p in (warehouse / table).iterdir())
    with pytest.raises(HiveAcidError) as err:
        acid.sql(statement)
    message = str(err.value)
    assert "\n" not in message
    assert all(f in message for f in fragments), message
    assert _rows(acid, f"SELECT * FROM {table} ORDER BY 1") == rows
    assert sorted(p.name for p in (warehouse / table).iterdir()) == before


def test_default_constraint_q_rows_describe_and_store(acid, warehouse: Path) -> None:
    """default_constraint.q's first table: INSERT with a column list fills the others with their DEFAULT;
    DESC FORMATTED lists them under '# Default Constraints' (q.out); KEY_CONSTRAINTS holds Hive's rows."""
    acid.sql(NUMERIC)
    acid.sql("INSERT INTO numericDataType_n1(a) values(3Y)")
    acid.sql("INSERT INTO numericDataType_n1(e,f) values(4.5, 678.4)")
    rows = sorted(_rows(acid, "SELECT * FROM numericDataType_n1"))
    assert [(a, b, c, d, e, str(f)) for a, b, c, d, e, f in rows] == [
        (3, 32767, 2147483647, 9223372036854775807, 3.4e38, "1234567.89"),
        (127, 32767, 2147483647, 9223372036854775807, 4.5, "678.40"),
    ]
    desc = _rows(acid, "DESC FORMATTED numericDataType_n1")
    part = desc[desc.index(("# Constraints", "", "")) :]
    assert part[:4] == [
        ("# Constraints", "", ""),
        ("", "", ""),
        ("# Default Constraints", "", ""),
        ("Table:", "default.numericdatatype_n1", ""),
    ]
    shown = [r for r in part if r[0].startswith("Column Name:")]
    assert sorted(shown) == sorted(
        [
            ("Column Name:a", "Default Value:127Y", ""),
            ("Column Name:b", "Default Value:32767S", ""),
            ("Column Name:c", "Default Value:2147483647", ""),
            ("Column Name:d", "Default Value:9223372036854775807L", ""),
            ("Column Name:e", "Default Value:3.4E38", ""),
            ("Column Name:f", "Default Value:1234567.89", ""),
        ]
    )
    assert ("Constraint Name:", "tinyint_constraint", "") in part
    with sqlite3.connect(warehouse / ".hiveacid" / "txn.db") as db:
        stored = db.execute(
            'SELECT k."CONSTRAINT_NAME", k."CONSTRAINT_TYPE", k."POSITION", k."ENABLE_VALIDATE_RELY", k."DEFAULT_VALUE", '
            'k."PARENT_INTEGER_IDX", k."PARENT_CD_ID" = s."CD_ID", k."CHILD_TBL_ID" FROM "KEY_CONSTRAINTS" k '
            'JOIN "TBLS" t ON t."TBL_ID" = k."PARENT_TBL_ID" JOIN "SDS" s ON s."SD_ID" = t."SD_ID" '
            'WHERE t."TBL_NAME" = \'numericdatatype_n1\' ORDER BY k."PARENT_INTEGER_IDX"'
        ).fetchall()
    # DEFAULT is type 4, enabled (4 = ENABLE, NOVALIDATE, NORELY), one row per column pointing at its index
    assert stored[0] == ("tinyint_constraint", 4, 1, 4, "127Y", 0, 1, None)
    assert [(r[1], r[4], r[5]) for r in stored[1:]] == [
        (4, "32767S", 1),
        (4, "2147483647", 2),
        (4, "9223372036854775807L", 3),
        (4, "3.4E38", 4),
        (4, "1234567.89", 5),
    ]
    assert all(r[0].startswith("dc_") for r in stored[1:])


def test_default_keyword_update_set_and_merge(acid) -> None:
    """DEFAULT in VALUES, UPDATE SET c = DEFAULT and a MERGE INSERT naming some columns use the column's
    default; an expression default (current_date()) is evaluated when written."""
    acid.sql(
        "CREATE TABLE d (id INT, s STRING DEFAULT 'none', n INT DEFAULT 7, day DATE DEFAULT current_date()) "
        "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
    )
    acid.sql("INSERT INTO d VALUES (1, DEFAULT, 1, DEFAULT), (2, 'x', DEFAULT, NULL)")
    acid.sql("UPDATE d SET s = DEFAULT, n = DEFAULT WHERE id = 2")
    acid.sql(
        "MERGE INTO d USING (SELECT 3 AS id) src ON d.id = src.id WHEN NOT MATCHED THEN INSERT (id) VALUES (src.id)"
    )
    rows = _rows(acid, "SELECT id, s, n, day = current_date() FROM d ORDER BY id")
    assert rows == [(1, "none", 1, True), (2, "none", 7, None), (3, "none", 7, True)]


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO nn (id) VALUES (3)",
        "INSERT INTO nn VALUES (3, NULL)",
        "INSERT INTO nn SELECT 3, CAST(NULL AS STRING)",
        "UPDATE nn SET v = NULL WHERE id = 1",
        "MERGE INTO nn USING (SELECT 1 AS id) s ON nn.id = s.id WHEN MATCHED THEN UPDATE SET v = NULL",
        "MERGE INTO nn USING (SELECT 9 AS id) s ON nn.id = s.id WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)",
    ],
)
def test_not_null_violation_fails_in_one_line_and_writes_nothing(
    acid, warehouse: Path, statement: str
) -> None:
    acid.sql(
        "CREATE TABLE nn (id INT, v STRING NOT NULL ENFORCED) STORED AS ORC TBLPROPERTIES ('transactional'='true')"
    )
    acid.sql("INSERT INTO nn VALUES (1, 'a')")
    _violation_changes_nothing(
        acid, warehouse, "nn", [(1, "a")], statement, "Either CHECK or NOT NULL constraint violated! (column default.nn.v is NOT NULL)"
    )
    states = _rows(acid, "SHOW TRANSACTIONS")
    assert any(r[1] == "ABORTED" for r in states)


def test_not_null_on_plain_and_insert_only_tables(acid) -> None:
    """Hive enforces NOT NULL on every managed table (default_constraint.q's partitioned text table)."""
    acid.sql(
        "CREATE TABLE p (a STRING NOT NULL ENFORCED, url STRING constraint bdc1 default 'http://localhost') "
        "PARTITIONED BY (p1 STRING, p2 INT)"
    )
    acid.sql("INSERT INTO p partition(p1='today', p2=10) (a) values('not')")
    assert _rows(acid, "SELECT * FROM p") == [("not", "http://localhost", "today", 10)]
    with pytest.raises(HiveAcidError, match="Either CHECK or NOT NULL constraint violated!"):
        acid.sql("INSERT INTO p partition(p1='today', p2=10) (url) values('x')")
    acid.sql(
        "CREATE TABLE mm (a INT NOT NULL, b INT DEFAULT 5) STORED AS PARQUET "
        "TBLPROPERTIES ('transactional'='true', 'transactional_properties'='insert_only')"
    )
    acid.sql("INSERT INTO mm (a) VALUES (1)")
    with pytest.raises(HiveAcidError, match="NOT NULL constraint violated"):
        acid.sql("INSERT INTO mm (b) VALUES (2)")
    assert _rows(acid, "SELECT * FROM mm") == [(1, 5)]


def test_keys_stored_and_shown_as_hive(acid, warehouse: Path) -> None:
    """create_with_constraints.q's forms: PRIMARY KEY / UNIQUE / FOREIGN KEY .. DISABLE NOVALIDATE [RELY]."""
    acid.sql(
        "CREATE TABLE table2 (a STRING, b STRING, constraint pk1 primary key (a) disable novalidate, "
        "constraint uk1 unique (b) disable novalidate rely)"
    )
    acid.sql(
        "CREATE TABLE table4 (x string, y string, PRIMARY KEY (x) disable novalidate, "
        "CONSTRAINT fk2 FOREIGN KEY (x) REFERENCES table2(b) DISABLE NOVALIDATE, "
        "CONSTRAINT fk3 FOREIGN KEY (y) REFERENCES table2(a) DISABLE NOVALIDATE)"
    )
    desc = _rows(acid, "DESC FORMATTED table2")
    part = desc[desc.index(("# Constraints", "", "")) :]
    assert part == [
        ("# Constraints", "", ""),
        ("", "", ""),
        ("# Primary Key", "", ""),
        ("Table:", "default.table2", ""),
        ("Constraint Name:", "pk1", ""),
        ("Column Names:", "a", ""),
        ("", "", ""),
        ("# Unique Constraints", "", ""),
        ("Table:", "default.table2", ""),
        ("Constraint Name:", "uk1", ""),
        ("Column Name:b", "Key Sequence:1", ""),
        ("", "", ""),
    ]
    desc4 = _rows(acid, "DESC FORMATTED table4")
    assert ("Parent Column Name:default.table2.b", "Column Name:x", "Key Sequence:1") in desc4
    assert ("Parent Column Name:default.table2.a", "Column Name:y", "Key Sequence:1") in desc4
    with sqlite3.connect(warehouse / ".hiveacid" / "txn.db") as db:
        rows = db.execute(
            'SELECT "CONSTRAINT_NAME", "CONSTRAINT_TYPE", "ENABLE_VALIDATE_RELY", "CHILD_TBL_ID" IS NOT NULL '
            "FROM \"KEY_CONSTRAINTS\" WHERE \"CONSTRAINT_NAME\" IN ('pk1', 'uk1', 'fk2') ORDER BY 1"
        ).fetchall()
    assert rows == [("fk2", 1, 0, 1), ("pk1", 0, 0, 0), ("uk1", 2, 1, 0)]
    text = _rows(acid, "SHOW CREATE TABLE table4")[0][0]
    assert "CONSTRAINT `fk2` FOREIGN KEY (`x`) REFERENCES `default`.`table2`(`b`) DISABLE NOVALIDATE" in text
    acid.sql("DROP TABLE table4")
    acid.sql(text.replace("`default`.`table4`", "table4b").split("\nLOCATION")[0])  # the DDL shown runs again
    assert any(r[0] == "# Foreign Keys" for r in _rows(acid, "DESC FORMATTED table4b"))


@pytest.mark.parametrize(
    ("ddl", "message"),
    [
        (
            "CREATE TABLE bad (i INT DEFAULT 'abc')",
            "Invalid Constraint syntax Invalid type: string for default value: 'abc'. Please make sure that the type is "
            "compatible with column type: int",
        ),
        ("CREATE TABLE bad (i SMALLINT DEFAULT 5)", "Invalid type: int for default value: 5."),
        ("CREATE TABLE bad (i INT DEFAULT i + 1)", "DEFAULT only allows constant or function expressions"),
        (
            "CREATE TABLE bad (i INT, PRIMARY KEY (i))",
            "ENABLE/ENFORCED feature not supported yet. Please use DISABLE/NOT ENFORCED instead.",
        ),
        (
            "CREATE TABLE bad (i INT NOT NULL VALIDATE)",
            "VALIDATE feature not supported yet. Please use NOVALIDATE",
        ),
        (
            "CREATE TABLE bad (i INT, CONSTRAINT f FOREIGN KEY (i) REFERENCES nokeys(i) DISABLE NOVALIDATE)",
            "no primary keys or unique keys for referenced table",
        ),
        ("CREATE EXTERNAL TABLE bad (i INT DEFAULT 1)", "Constraints are disallowed with External tables"),
        ("CREATE EXTERNAL TABLE bad (i INT CHECK (i > 0))", "Constraints are disallowed with External tables"),
        ("CREATE TABLE bad (i INT CHECK (i > (SELECT 1)))", "Invalid CHECK constraint expression"),
        ("CREATE TABLE bad (i INT, CONSTRAINT c CHECK (j > 0))", "Invalid column reference 'j' in a constraint of default.bad"),
    ],
)
def test_bad_constraints_refused_in_one_line(acid, ddl: str, message: str) -> None:
    acid.sql("CREATE TABLE IF NOT EXISTS nokeys (i INT)")
    with pytest.raises(HiveAcidError) as err:
        acid.sql(ddl)
    assert message in str(err.value)
    assert "\n" not in str(err.value)
    assert "bad" not in [r[0] for r in _rows(acid, "SHOW TABLES")]


def test_alter_table_drop_and_add_constraint(acid) -> None:
    """default_constraint.q's ALTER part: after DROP CONSTRAINT tinyint_constraint, `a` has no default any more
    (q.out: NULL 456 2147483647 ..); ADD CONSTRAINT uk1 UNIQUE(a,b) DISABLE NOVALIDATE is shown by DESC."""
    acid.sql(NUMERIC.replace("clustered by (a)", "clustered by (b)"))
    acid.sql("ALTER TABLE numericDataType_n1 DROP CONSTRAINT tinyint_constraint")
    acid.sql("INSERT INTO numericDataType_n1(b) values(456)")
    row = _rows(acid, "SELECT * from numericDataType_n1")
    assert [(a, b, c, d, e, str(f)) for a, b, c, d, e, f in row] == [
        (None, 456, 2147483647, 9223372036854775807, 3.4e38, "1234567.89")
    ]
    acid.sql("ALTER TABLE numericDataType_n1 ADD CONSTRAINT uk1 UNIQUE(a,b) DISABLE NOVALIDATE")
    desc = _rows(acid, "DESC FORMATTED numericDataType_n1")
    assert ("Column Name:a", "Key Sequence:1", "") in desc and ("Column Name:b", "Key Sequence:2", "") in desc
    with pytest.raises(HiveAcidError, match="The constraint: nope does not exist for the associated table"):
        acid.sql("ALTER TABLE numericDataType_n1 DROP CONSTRAINT nope")


CHECKED = (
    "CREATE TABLE ck (id INT CHECK (id > 0), lo INT, hi INT, CONSTRAINT lo_below_hi CHECK (lo < hi)) "
    "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
)


@pytest.mark.parametrize(
    ("statement", "constraint"),
    [
        ("INSERT INTO ck VALUES (0, 1, 2)", "CHECK constraint dc_"),  # Hive 3.1 names an unnamed CHECK dc_..
        ("INSERT INTO ck SELECT 5, 3, 2", "CHECK constraint lo_below_hi of default.ck: lo < hi"),
        ("UPDATE ck SET hi = 0 WHERE id = 1", "lo_below_hi"),
        ("MERGE INTO ck USING (SELECT 1 AS id) s ON ck.id = s.id WHEN MATCHED THEN UPDATE SET lo = 9", "lo_below_hi"),
        ("MERGE INTO ck USING (SELECT -4 AS id) s ON ck.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, 1, 2)", "dc_"),
    ],
)
def test_check_violation_fails_in_one_line_and_writes_nothing(acid, warehouse: Path, statement: str, constraint: str) -> None:
    """Hive 3 enforces CHECK on INSERT, UPDATE and MERGE: a row where it is FALSE fails the statement with
    Hive's words; NULL passes (SQL's rule, Hive's ``enforce_constraint(.. IS NOT FALSE)``)."""
    acid.sql(CHECKED)
    acid.sql("INSERT INTO ck VALUES (1, 1, 2), (2, NULL, 1)")
    _violation_changes_nothing(
        acid, warehouse, "ck", [(1, 1, 2), (2, None, 1)], statement, "Either CHECK or NOT NULL constraint violated! (",
        constraint,
    )


def test_check_constraints_stored_shown_and_disabled_ones_not_enforced(acid, warehouse: Path) -> None:
    acid.sql(CHECKED.replace("CHECK (id > 0)", "CONSTRAINT pos CHECK (id > 0) DISABLE"))
    acid.sql("INSERT INTO ck VALUES (-1, 1, 2)")  # DISABLE: stored, not enforced
    desc = _rows(acid, "DESC FORMATTED ck")
    assert ("# Check Constraints", "", "") in desc
    # a table-level CHECK names no column (Hive 3.1's DESCRIBE prints its null column)
    assert ("Column Name:null", "Check Value:lo < hi", "") in desc and ("Constraint Name:", "pos", "") in desc
    assert ("Column Name:id", "Check Value:id > 0", "") in desc
    text = _rows(acid, "SHOW CREATE TABLE ck")[0][0]
    assert "CONSTRAINT `pos` CHECK (id > 0) DISABLE" in text and "CONSTRAINT `lo_below_hi` CHECK (lo < hi)" in text
    with sqlite3.connect(warehouse / ".hiveacid" / "txn.db") as db:
        rows = db.execute(
            'SELECT "CONSTRAINT_NAME", "CONSTRAINT_TYPE", "DEFAULT_VALUE", "ENABLE_VALIDATE_RELY", "POSITION", '
            '"PARENT_CD_ID" IS NULL, "PARENT_INTEGER_IDX" FROM "KEY_CONSTRAINTS" ORDER BY 1'
        ).fetchall()
    # as Hive 3.1's ObjectStore.addConstraint stores them: a table-level CHECK with no column descriptor and
    # index -1 (its ConstraintInfo names no column), a column CHECK at its column
    assert rows == [("lo_below_hi", 5, "lo < hi", 4, 1, 1, -1), ("pos", 5, "id > 0", 0, 1, 0, 0)]
    assert [c.columns for c in acid.store.catalog.get_table("default", "ck").constraints] == [(), ("id",)]
    acid.sql("ALTER TABLE ck ADD CONSTRAINT hi_positive CHECK (hi > 0)")  # rows already there are not checked (Hive)
    with pytest.raises(HiveAcidError, match="CHECK constraint hi_positive of default.ck: hi > 0"):
        acid.sql("INSERT INTO ck VALUES (5, -9, -1)")
    acid.sql("ALTER TABLE ck DROP CONSTRAINT hi_positive")
    acid.sql("INSERT INTO ck VALUES (5, -9, -1)")
    acid.sql("CREATE TABLE plain_ck (a STRING CHECK (length(a) < 3))")  # plain tables too, as Hive
    acid.sql("INSERT INTO plain_ck VALUES ('ab'), (NULL)")
    with pytest.raises(HiveAcidError, match="Either CHECK or NOT NULL constraint violated!"):
        acid.sql("INSERT INTO plain_ck VALUES ('abc')")
    assert sorted(_rows(acid, "SELECT * FROM plain_ck"), key=str) == [("ab",), (None,)]


def test_update_checks_a_check_naming_a_partition_column(acid, warehouse: Path) -> None:
    """An UPDATE keeps each row in its partition: a CHECK naming the partition column is checked with the
    row's partition value (from its directory), as INSERT and MERGE check it."""
    acid.sql(
        "CREATE TABLE pk (id INT, v INT, CONSTRAINT v_below_p CHECK (v < p)) PARTITIONED BY (p INT) "
        "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
    )
    acid.sql("INSERT INTO pk PARTITION (p=10) VALUES (1, 5), (2, 6)")
    acid.sql("INSERT INTO pk PARTITION (p=20) VALUES (3, 15)")
    acid.sql("UPDATE pk SET v = 9 WHERE id = 1")  # 9 < 10: passes
    _violation_changes_nothing(
        acid, warehouse, "pk", [(1, 9, 10), (2, 6, 10), (3, 15, 20)], "UPDATE pk SET v = v + 5",
        "Either CHECK or NOT NULL constraint violated! (CHECK constraint v_below_p of default.pk: v < p)",
    )
    acid.sql("UPDATE pk SET v = v + 4 WHERE p = 20")  # 19 < 20
    assert _rows(acid, "SELECT * FROM pk ORDER BY id") == [(1, 9, 10), (2, 6, 10), (3, 19, 20)]
