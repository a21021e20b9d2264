"""Catalog and DML statements end to end through acid.sql(): what the README's Statements table promises."""

from __future__ import annotations

import re

import pytest

from hiveacid_sql.errors import HiveAcidError
from tests.support.acid_files import listing

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def _rows(acid, query: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(query).collect()]


def _dirs(path) -> list[str]:
    return sorted(p.name for p in path.iterdir())


def _one_line_error(acid, statement: str) -> str:
    with pytest.raises(HiveAcidError) as info:
        acid.sql(statement)
    message = str(info.value)
    assert "\n" not in message, message
    return message


def test_databases_use_and_qualified_names(acid, warehouse):
    acid.sql("CREATE DATABASE sales COMMENT 'money'")
    acid.sql("CREATE DATABASE IF NOT EXISTS sales")
    acid.sql("CREATE DATABASE hr")
    assert (warehouse / "sales.db").is_dir()
    assert _rows(acid, "SHOW DATABASES") == [("default",), ("hr",), ("sales",)]
    assert _rows(acid, "SHOW DATABASES LIKE 'sal*'") == [("sales",)]
    assert _rows(acid, "SHOW DATABASES LIKE 'hr|def*'") == [("default",), ("hr",)]
    assert _rows(acid, "DESCRIBE DATABASE sales")[0][:3] == ("sales", "money", str(warehouse / "sales.db"))
    acid.sql(f"CREATE TABLE sales.orders (id int, amount decimal(10,2)) {ACID}")
    acid.sql("INSERT INTO sales.orders VALUES (1, 9.5)")
    assert (warehouse / "sales.db" / "orders" / "delta_0000001_0000001_0000").is_dir()
    acid.sql("USE sales")
    acid.sql(f"CREATE TABLE returns (id int) {ACID}")
    assert (warehouse / "sales.db" / "returns").is_dir()
    acid.sql("INSERT INTO orders VALUES (2, 1)")
    assert _rows(acid, "SELECT id, CAST(amount AS string) FROM orders ORDER BY id") == [(1, "9.50"), (2, "1.00")]
    assert _rows(acid, "SHOW TABLES") == [("orders",), ("returns",)]
    acid.sql("USE default")
    acid.sql("CREATE TABLE local_one (x int)")
    assert _rows(acid, "SHOW TABLES") == [("local_one",)]
    assert _rows(acid, "SHOW TABLES IN sales") == [("orders",), ("returns",)]
    assert _rows(acid, "SHOW TABLES IN sales LIKE 'ord*'") == [("orders",)]
    assert _rows(acid, "SHOW TABLES LIKE 'nothing*'") == []
    assert _rows(acid, "SELECT count(*) FROM sales.orders") == [(2,)]
    message = _one_line_error(acid, "USE nowhere")
    assert "nowhere" in message


def test_describe_variants_and_show_columns(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int COMMENT 'key', name varchar(10), tags array<string>) COMMENT 'tbl' {ACID}")
    assert _rows(acid, "DESCRIBE t") == [("id", "int", "key"), ("name", "varchar(10)", ""), ("tags", "array<string>", "")]
    for style in ("EXTENDED", "FORMATTED"):
        rows = _rows(acid, f"DESCRIBE {style} t")
        assert rows[:3] == _rows(acid, "DESCRIBE t")
        details = {r[0]: r[1] for r in rows if r[0]}
        assert details["Location:"] == str(warehouse / "t")
        assert details["Table Type:"] == "MANAGED_TABLE"
        assert details["Database:"] == "default" and details["Table:"] == "t"
        assert details["InputFormat:"] == "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"
        params = {r[1]: r[2] for r in rows if r[0] == "" and r[1]}
        assert params["transactional"] == "true" and params["comment"] == "tbl"
    assert _rows(acid, "SHOW COLUMNS IN t") == [("id",), ("name",), ("tags",)]


def test_show_create_table_is_rerunnable(acid):
    acid.sql("CREATE DATABASE other")
    acid.sql(
        "CREATE TABLE src (id int COMMENT 'the id', price decimal(12,3), note char(4), "
        "m map<string,array<struct<a:int,b:timestamp>>>) COMMENT 'it''s mine' "
        f"{ACID[:-1]}, 'owner_note'='x y')"
    )
    [(text,)] = _rows(acid, "SHOW CREATE TABLE src")
    assert text.startswith("CREATE TABLE `default`.`src`(")
    copy = text.replace("`default`.`src`", "`other`.`copy`").replace("/src'", "/other.db/copy'")
    assert copy != text
    acid.sql(copy)
    original = _rows(acid, "DESCRIBE src")
    assert _rows(acid, "DESCRIBE other.copy") == original
    assert original[0] == ("id", "int", "the id")
    props = dict(_rows(acid, "SHOW TBLPROPERTIES other.copy"))
    assert props["transactional"] == "true" and props["owner_note"] == "x y"
    acid.sql("INSERT INTO other.copy SELECT 1, 2.5, 'ab', NULL")
    assert _rows(acid, "SELECT id, CAST(price AS string) FROM other.copy") == [(1, "2.500")]
    assert _rows(acid, "SELECT count(*) FROM src") == [(0,)]


def test_show_tblproperties(acid):
    acid.sql(f"CREATE TABLE t (id int) {ACID[:-1]}, 'k1'='v1')")
    props = dict(_rows(acid, "SHOW TBLPROPERTIES t"))
    assert props["transactional"] == "true" and props["k1"] == "v1"
    assert _rows(acid, "SHOW TBLPROPERTIES t ('transactional')") == [("transactional", "true")]
    [(key, value)] = _rows(acid, "SHOW TBLPROPERTIES t ('nope')")
    assert key == "nope" and "does not have property" in value


def test_alter_add_columns(acid):
    acid.sql(f"CREATE TABLE t (id int) {ACID}")
    acid.sql("INSERT INTO t VALUES (1)")
    acid.sql("ALTER TABLE t ADD COLUMNS (name string COMMENT 'n', score decimal(5,2))")
    assert [r[0] for r in _rows(acid, "DESCRIBE t")] == ["id", "name", "score"]
    acid.sql("INSERT INTO t VALUES (2, 'b', 1.5)")
    assert _rows(acid, "SELECT id, name, CAST(score AS string) FROM t ORDER BY id") == [
        (1, None, None), (2, "b", "1.50")]
    acid.sql("UPDATE t SET name = 'a' WHERE id = 1")
    assert _rows(acid, "SELECT id, name FROM t ORDER BY id") == [(1, "a"), (2, "b")]
    _one_line_error(acid, "ALTER TABLE t ADD COLUMNS (name int)")


def test_alter_rename(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int) {ACID}")
    acid.sql("INSERT INTO t VALUES (1), (2)")
    acid.sql("ALTER TABLE t RENAME TO u")
    assert not (warehouse / "t").exists()
    assert _dirs(warehouse / "u") == ["delta_0000001_0000001_0000"]
    assert _rows(acid, "SELECT id FROM u ORDER BY id") == [(1,), (2,)]
    assert _rows(acid, "SHOW TABLES") == [("u",)]
    acid.sql("DELETE FROM u WHERE id = 1")
    assert _rows(acid, "SELECT id FROM u") == [(2,)]
    assert "Table not found" in _one_line_error(acid, "SELECT * FROM t")
    # an external table keeps its location
    ext = warehouse.parent / "ext_data"
    acid.sql(f"CREATE EXTERNAL TABLE e (x int) STORED AS ORC LOCATION '{ext}'")
    acid.sql("INSERT INTO e VALUES (5)")
    acid.sql("ALTER TABLE e RENAME TO e2")
    assert ext.is_dir() and not (warehouse / "e2").exists()
    assert _rows(acid, "SELECT x FROM e2") == [(5,)]


def test_location_in_hadoops_form_is_that_local_path(acid, warehouse, tmp_path, monkeypatch):
    """``file:/path`` (no authority) is how Hive's metastore and Hadoop write a local location: it is that
    absolute path, not a directory named ``file:`` under the working directory."""
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "elsewhere"
    acid.sql(f"CREATE TABLE t (id int) STORED AS ORC LOCATION 'file:{data}/t' TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO t VALUES (1)")
    acid.sql(f"CREATE EXTERNAL TABLE e (id int) STORED AS ORC LOCATION 'file:{data}/e'")
    acid.sql("INSERT INTO e VALUES (2)")
    assert _dirs(data / "t") == ["delta_0000001_0000001_0000"]
    assert any(p.suffix != ".crc" for p in (data / "e").iterdir())
    assert _rows(acid, "SELECT id FROM t") == [(1,)] and _rows(acid, "SELECT id FROM e") == [(2,)]
    assert not (tmp_path / "file:").exists()


def test_alter_set_tblproperties_and_transactional_false_refused(acid):
    acid.sql(f"CREATE TABLE t (id int) {ACID}")
    acid.sql("ALTER TABLE t SET TBLPROPERTIES ('note'='hello', 'k2'='v2')")
    assert _rows(acid, "SHOW TBLPROPERTIES t ('note')") == [("note", "hello")]
    acid.sql("ALTER TABLE t UNSET TBLPROPERTIES ('k2')")
    assert "k2" not in dict(_rows(acid, "SHOW TBLPROPERTIES t"))
    message = _one_line_error(acid, "ALTER TABLE t SET TBLPROPERTIES ('transactional'='false')")
    assert "transactional" in message
    assert _rows(acid, "SHOW TBLPROPERTIES t ('transactional')") == [("transactional", "true")]
    acid.sql("INSERT INTO t VALUES (1)")
    acid.sql("UPDATE t SET id = 2")
    assert _rows(acid, "SELECT id FROM t") == [(2,)]


def test_truncate_acid_table(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int) {ACID}")
    acid.sql("INSERT INTO t VALUES (1), (2)")
    result = acid.sql("TRUNCATE TABLE t")
    assert result.write_id == 2 and result.directories == ("base_0000002",)
    assert sorted(p.name for p in (warehouse / "t" / "base_0000002").iterdir()) == ["_orc_acid_version"]
    assert _rows(acid, "SELECT * FROM t") == []
    acid.sql("INSERT INTO t VALUES (3)")
    assert _rows(acid, "SELECT id FROM t") == [(3,)]
    assert _dirs(warehouse / "t") == ["base_0000002", "delta_0000001_0000001_0000", "delta_0000003_0000003_0000"]


def test_insert_overwrite_acid_table(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int, s string) {ACID}")
    acid.sql("CREATE TABLE src (id int, s string) STORED AS ORC")
    acid.sql("INSERT INTO src VALUES (10, 'x'), (20, 'y')")
    acid.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    acid.sql("DELETE FROM t WHERE id = 1")
    result = acid.sql("INSERT OVERWRITE TABLE t SELECT id, s FROM src WHERE id = 10")
    assert result.statement == "INSERT OVERWRITE" and result.num_inserted_rows == 1
    assert result.directories == ("base_0000003",)
    # An un-bucketed table gets one bucket_N file per writer task, N the task's partition (as Hive's writers):
    # which of src's two one-row files feeds the task that holds id 10 is Spark's choice.
    buckets = [f for f in _dirs(warehouse / "t" / "base_0000003") if f.startswith("bucket_")]
    assert len(buckets) == 1 and buckets[0] in ("bucket_00000", "bucket_00001")
    assert _rows(acid, "SELECT id, s FROM t") == [(10, "x")]
    acid.sql("INSERT INTO t VALUES (4, 'd')")
    assert _rows(acid, "SELECT id FROM t ORDER BY id") == [(4,), (10,)]


def test_insert_column_list_and_select_from_plain(acid):
    acid.sql(f"CREATE TABLE t (a int, b string, c double) {ACID}")
    result = acid.sql("INSERT INTO t (c, a) VALUES (1.5, 1), (2.5, 2)")
    assert result.num_inserted_rows == 2
    acid.sql("INSERT INTO TABLE t (b) VALUES ('only b')")
    assert _rows(acid, "SELECT a, b, c FROM t ORDER BY a NULLS FIRST") == [
        (None, "only b", None), (1, None, 1.5), (2, None, 2.5)]
    acid.sql("CREATE TABLE staging (x int, y string) STORED AS PARQUET")
    acid.sql("INSERT INTO staging VALUES (7, 'seven'), (8, 'eight')")
    result = acid.sql("INSERT INTO t SELECT x, y, x * 1.5 FROM staging WHERE x > 7")
    assert result.num_inserted_rows == 1
    assert _rows(acid, "SELECT a, b, c FROM t WHERE a = 8") == [(8, "eight", 12.0)]


def test_update_delete_with_subqueries_and_expressions(acid):
    acid.sql(f"CREATE TABLE emp (id int, name string, salary int, bonus int) {ACID}")
    acid.sql("INSERT INTO emp VALUES (1, 'a', 100, 10), (2, 'b', 200, 20), (3, 'c', 300, 30), (4, 'd', 400, 40)")
    acid.sql("CREATE TABLE raise_list (emp_id int) STORED AS ORC")
    acid.sql("INSERT INTO raise_list VALUES (2), (3)")
    result = acid.sql("UPDATE emp SET salary = salary + bonus * 2, name = upper(name) WHERE id IN (SELECT emp_id FROM raise_list)")
    assert result.num_updated_rows == 2
    assert _rows(acid, "SELECT id, name, salary FROM emp ORDER BY id") == [
        (1, "a", 100), (2, "B", 240), (3, "C", 360), (4, "d", 400)]
    result = acid.sql("DELETE FROM emp WHERE EXISTS (SELECT 1 FROM raise_list r WHERE r.emp_id = emp.id + 1)")
    assert result.num_deleted_rows == 2  # ids 1 and 2
    assert _rows(acid, "SELECT id FROM emp ORDER BY id") == [(3,), (4,)]
    result = acid.sql("UPDATE emp SET bonus = 0 WHERE NOT EXISTS (SELECT 1 FROM raise_list r WHERE r.emp_id = emp.id)")
    assert result.num_updated_rows == 1
    result = acid.sql("DELETE FROM emp WHERE id IN (SELECT emp_id FROM raise_list)")
    assert result.num_deleted_rows == 1
    assert _rows(acid, "SELECT id, bonus FROM emp") == [(4, 0)]


@pytest.mark.parametrize("fmt", ["ORC", "PARQUET", "TEXTFILE"])
def test_plain_tables(acid, warehouse, fmt):
    acid.sql(f"CREATE TABLE p (id int, s string, d decimal(6,2), dt date) STORED AS {fmt}")
    acid.sql("INSERT INTO p VALUES (1, 'one', 1.5, DATE '2020-01-02'), (2, NULL, NULL, NULL)")
    acid.sql("INSERT INTO p SELECT id + 10, s, d, dt FROM p")
    assert _rows(acid, "SELECT id, s, CAST(d AS string), CAST(dt AS string) FROM p ORDER BY id") == [
        (1, "one", "1.50", "2020-01-02"), (2, None, None, None),
        (11, "one", "1.50", "2020-01-02"), (12, None, None, None)]
    assert dict(_rows(acid, "SHOW TBLPROPERTIES p")).get("transactional") in (None, "false")
    assert any(f for f in listing(warehouse / "p") if not f.startswith((".", "_")))


def test_ctas_and_like(acid, warehouse):
    acid.sql(f"CREATE TABLE src (id int, s string, ts timestamp) {ACID}")
    acid.sql("INSERT INTO src VALUES (1, 'a', TIMESTAMP '2020-01-01 10:00:00'), (2, 'b', NULL)")
    acid.sql(f"CREATE TABLE ctas {ACID} AS SELECT id, s, ts, id * 2 AS twice FROM src")
    assert _rows(acid, "DESCRIBE ctas") == [("id", "int", ""), ("s", "string", ""), ("ts", "timestamp", ""), ("twice", "int", "")]
    assert _rows(acid, "SELECT id, twice FROM ctas ORDER BY id") == [(1, 2), (2, 4)]
    assert _dirs(warehouse / "ctas") == ["delta_0000001_0000001_0000"]
    acid.sql("UPDATE ctas SET twice = 0 WHERE id = 1")
    acid.sql("CREATE TABLE plain_ctas STORED AS PARQUET AS SELECT s FROM src WHERE id = 2")
    assert _rows(acid, "SELECT s FROM plain_ctas") == [("b",)]
    acid.sql("CREATE TABLE lk LIKE src")
    assert _rows(acid, "DESCRIBE lk") == _rows(acid, "DESCRIBE src")
    assert _rows(acid, "SHOW TBLPROPERTIES lk ('transactional')") == [("transactional", "true")]
    assert _rows(acid, "SELECT * FROM lk") == []
    acid.sql("INSERT INTO lk SELECT * FROM src")
    assert _rows(acid, "SELECT count(*) FROM lk") == [(2,)]


def test_drop_table_and_database(acid, warehouse):
    acid.sql(f"CREATE TABLE m (id int) {ACID}")
    acid.sql("INSERT INTO m VALUES (1)")
    ext = warehouse.parent / "external_e"
    acid.sql(f"CREATE EXTERNAL TABLE e (id int) STORED AS ORC LOCATION '{ext}'")
    acid.sql("INSERT INTO e VALUES (1)")
    acid.sql("DROP TABLE m")
    acid.sql("DROP TABLE e")
    assert not (warehouse / "m").exists()
    assert any(listing(ext))
    acid.sql("DROP TABLE IF EXISTS m")
    assert "m" in _one_line_error(acid, "DROP TABLE m")
    assert _rows(acid, "SHOW TABLES") == []
    acid.sql("CREATE DATABASE d")
    acid.sql(f"CREATE TABLE d.t (id int) {ACID}")
    acid.sql("INSERT INTO d.t VALUES (1)")
    with pytest.raises(HiveAcidError):
        acid.sql("DROP DATABASE d")
    assert (warehouse / "d.db" / "t").is_dir()
    acid.sql("DROP DATABASE d CASCADE")
    assert not (warehouse / "d.db").exists()
    assert _rows(acid, "SHOW DATABASES") == [("default",)]
    acid.sql("DROP DATABASE IF EXISTS d")


def test_hive_rules(acid, warehouse):
    message = _one_line_error(acid, "CREATE TABLE p (id int) STORED AS PARQUET TBLPROPERTIES ('transactional'='true')")
    assert "ORC" in message
    message = _one_line_error(
        acid, f"CREATE EXTERNAL TABLE e (id int) STORED AS ORC LOCATION '{warehouse.parent / 'x'}' "
        "TBLPROPERTIES ('transactional'='true')")
    assert "external" in message.lower()
    assert _rows(acid, "SHOW TABLES") == []
    acid.sql("CREATE TABLE plain (id int) STORED AS ORC")
    acid.sql("INSERT INTO plain VALUES (1)")
    before = listing(warehouse / "plain")
    assert "10297" in _one_line_error(acid, "UPDATE plain SET id = 2")
    assert "10297" in _one_line_error(acid, "DELETE FROM plain WHERE id = 1")
    assert listing(warehouse / "plain") == before
    assert _rows(acid, "SELECT id FROM plain") == [(1,)]


def test_set_and_multiple_statements(acid):
    assert acid.sql("SET hive.exec.dynamic.partition.mode=nonstrict") is not None
    assert _rows(acid, "SET hive.exec.dynamic.partition.mode") == [("hive.exec.dynamic.partition.mode=nonstrict",)]
    assert _rows(acid, "SET not.set.key") == [("not.set.key is undefined",)]
    assert ("hive.exec.dynamic.partition.mode=nonstrict",) in _rows(acid, "SET")
    result = acid.sql(
        f"CREATE TABLE t (id int) {ACID};\nINSERT INTO t VALUES (1), (2);\n"
        "UPDATE t SET id = id * 10 WHERE id = 2;\nSELECT id FROM t ORDER BY id"
    )
    assert [tuple(r) for r in result.collect()] == [(1,), (20,)]
    result = acid.sql("DELETE FROM t WHERE id = 1; INSERT INTO t VALUES (3);")
    assert result.statement == "INSERT" and result.num_inserted_rows == 1
    assert _rows(acid, "SELECT id FROM t ORDER BY id") == [(3,), (20,)]


def test_dml_result_fields(acid, spark):
    acid.sql(f"CREATE TABLE a (id int) {ACID}")
    acid.sql(f"CREATE TABLE b (id int) {ACID}")
    r1 = acid.sql("INSERT INTO a VALUES (1), (2), (3)")
    r2 = acid.sql("INSERT INTO b VALUES (1)")
    r3 = acid.sql("UPDATE a SET id = id + 10 WHERE id > 1")
    r4 = acid.sql("DELETE FROM a WHERE id = 1")
    assert (r1.statement, r1.table, r1.num_affected_rows, r1.num_inserted_rows) == ("INSERT", "default.a", 3, 3)
    assert r1.num_files_written == 1 and r1.directories == ("delta_0000001_0000001_0000",)
    assert (r2.table, r2.write_id) == ("default.b", 1)
    assert (r3.statement, r3.num_updated_rows, r3.num_affected_rows, r3.write_id) == ("UPDATE", 2, 2, 2)
    assert r3.num_inserted_rows == 0 and r3.num_deleted_rows == 0 and r3.num_files_written == 2
    assert (r4.statement, r4.num_deleted_rows, r4.num_affected_rows, r4.write_id) == ("DELETE", 1, 1, 3)
    assert r1.txn_id < r2.txn_id < r3.txn_id < r4.txn_id
    assert r4.execution_time_ms >= 0
    assert "UPDATE default.a: 2 row(s) affected" in str(r3)


def test_dml_result_to_dict_and_to_spark(acid):
    acid.sql(f"CREATE TABLE a (id int) {ACID}")
    acid.sql("INSERT INTO a VALUES (1), (2), (3)")
    r3 = acid.sql("UPDATE a SET id = id + 10 WHERE id > 1")
    d = r3.to_dict()
    assert d["statement"] == "UPDATE" and d["directories"] == list(r3.directories) and d["txn_id"] == r3.txn_id
    assert set(d) == {"statement", "table", "num_affected_rows", "num_inserted_rows", "num_updated_rows",
                      "num_deleted_rows", "num_files_written", "txn_id", "write_id", "directories",
                      "execution_time_ms", "num_source_rows", "num_target_rows_matched", "clauses"}
    assert (d["num_source_rows"], d["num_target_rows_matched"], d["clauses"]) == (None, None, [])
    [row] = r3.to_spark().collect()
    assert row.asDict() == d


def test_errors_are_one_line_and_change_nothing(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int, s string) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    before_files = listing(warehouse / "t")
    before_rows = _rows(acid, "SELECT id, s FROM t")

    message = _one_line_error(acid, "SELECT *\nFROM nope")
    assert "Table not found" in message and "line 2" in message and "col" in message
    message = _one_line_error(acid, "INSERT INTO missing VALUES (1)")
    assert "Table not found" in message and "line 1" in message
    message = _one_line_error(acid, "UPDATE t SET nocol = 1 WHERE id = 1")
    assert "nocol" in message
    message = _one_line_error(acid, "INSERT INTO t VALUES (1, 'a', 'extra')")
    assert "2" in message and "3" in message
    _one_line_error(acid, "INSERT INTO t VALUES (1)")
    _one_line_error(acid, "INSERT INTO t (id, nocol) VALUES (1, 2)")
    _one_line_error(acid, "DELETE FROM t WHERE nocol = 1")

    assert listing(warehouse / "t") == before_files
    assert _rows(acid, "SELECT id, s FROM t") == before_rows
    result = acid.sql("INSERT INTO t VALUES (2, 'b')")
    assert len(listing(warehouse / "t")) == len(before_files) + 2 and result.num_inserted_rows == 1


def test_an_update_looks_each_table_up_once(acid, monkeypatch):
    """Names are resolved once per statement, by the planner: an UPDATE (its target named twice, in the
    statement and in its row-finding query, and a table in its subquery) and a MERGE each ask the catalog
    for every table once, whatever runs after planning (locks, snapshot, binder, executor, commit)."""
    acid.sql(f"CREATE TABLE employee (id int, salary int) {ACID}")
    acid.sql(f"CREATE TABLE raises (id int, amount int) {ACID}")
    acid.sql("INSERT INTO employee VALUES (1, 10), (2, 20)")
    acid.sql("INSERT INTO raises VALUES (2, 5)")
    calls: list[tuple[str, str]] = []
    real = acid.catalog.get_table

    def counted(db: str, name: str):
        calls.append((db, name))
        return real(db, name)

    monkeypatch.setattr(acid.catalog, "get_table", counted)
    result = acid.sql("UPDATE employee SET salary = salary + 1 WHERE id IN (SELECT id FROM raises)")
    assert result.num_updated_rows == 1
    assert sorted(calls) == [("default", "employee"), ("default", "raises")]
    calls.clear()
    acid.sql(
        "MERGE INTO employee e USING raises r ON e.id = r.id "
        "WHEN MATCHED THEN UPDATE SET salary = e.salary + r.amount"
    )
    assert sorted(calls) == [("default", "employee"), ("default", "raises")]
    monkeypatch.undo()
    assert _rows(acid, "SELECT id, salary FROM employee ORDER BY id") == [(1, 10), (2, 26)]


def test_statements_without_rows_report_one_line(acid):
    """DDL, SET, USE and BEGIN / COMMIT return a StatementResult (kind, object, OK, time), not an empty
    DataFrame[result: string]; the CLI still prints Hive's 'OK (.. seconds)' for them."""
    from hiveacid_sql.results import StatementResult

    created = acid.sql("CREATE TABLE IF NOT EXISTS noted (id int) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    assert isinstance(created, StatementResult)
    assert (created.statement, created.target, created.message) == ("CREATE TABLE", "noted", "OK")
    assert re.fullmatch(r"CREATE TABLE noted: OK, \d+ ms", repr(created))
    assert str(acid.sql("SET hive.txn.timeout=600")).startswith("SET: OK, ")
    assert str(acid.sql("BEGIN")).startswith("BEGIN: OK") and str(acid.sql("COMMIT")).startswith("COMMIT: OK")
    dropped = acid.sql("DROP TABLE noted")
    assert [tuple(r)[:3] for r in dropped.to_spark().collect()] == [("DROP TABLE", "noted", "OK")]
