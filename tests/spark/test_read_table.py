"""``hiveacid_sql.read_table`` (pyarrow, no JVM) against the Spark reader on tables the engine wrote.

Every comparison is row for row, ``row__id`` included, with ``acid.sql("SELECT row__id, * FROM t")``: after
INSERT, UPDATE, DELETE, MERGE, minor and major compaction, on partitioned and bucketed tables, over original
(pre-ACID) files, for every Hive type, and at earlier versions. The process test proves the "no JVM" part:
a fresh interpreter reads a table and has neither imported PySpark nor started a child process.
"""

from __future__ import annotations

import datetime as dt
import decimal
import doctest
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as porc
import pytest

import hiveacid_sql
from hiveacid_sql import read_table
from hiveacid_sql.errors import HiveAcidError, NoSuchTableError, PlanError, TimeTravelError

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def _plain(value):
    """A Spark or Arrow value as a comparable Python value (Rows/structs as dicts, bytes as bytes)."""
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict().items()}
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def _key(row: tuple) -> str:
    return repr(row)


def spark_rows(acid, sql: str) -> list[tuple]:
    return sorted((tuple(_plain(v) for v in r) for r in acid.sql(sql).collect()), key=_key)


def arrow_rows(table: pa.Table) -> list[tuple]:
    return sorted((tuple(_plain(v) for v in r.values()) for r in table.to_pylist(maps_as_pydicts="strict")), key=_key)


def assert_same(acid, warehouse: Path, name: str, **kwargs) -> pa.Table:
    """read_table(name) equals the Spark reader's ``SELECT row__id, *`` (or ``VERSION AS OF``), row ids included."""
    version = kwargs.get("version")
    source = f"{name} VERSION AS OF {version}" if version is not None else name
    got = read_table(name, warehouse=warehouse, row_id=True, **kwargs)
    expected = spark_rows(acid, f"SELECT row__id, * FROM {source}")
    assert arrow_rows(got) == expected
    assert got.schema.names == ["row__id", *acid.sql(f"SELECT * FROM {name}").columns]
    return got


def test_dml_and_compaction_read_like_spark(acid, warehouse):
    acid.sql(f"CREATE TABLE emp (id int, name string, salary int) {ACID}")
    acid.sql("INSERT INTO emp VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000)")
    acid.sql("INSERT INTO emp VALUES (4, 'Ann', 4000), (5, 'Bob', 3000)")
    assert_same(acid, warehouse, "emp")
    acid.sql("UPDATE emp SET salary = 7000 WHERE id = 2")
    acid.sql("DELETE FROM emp WHERE id = 3")
    acid.sql(f"CREATE TABLE src (id int, name string, salary int) {ACID}")
    acid.sql("INSERT INTO src VALUES (1, 'Jerry', 5500), (4, 'Ann', 0), (6, 'Eve', 9000)")
    acid.sql(
        "MERGE INTO emp t USING src s ON t.id = s.id WHEN MATCHED AND s.salary = 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET salary = s.salary WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.name, s.salary)"
    )
    t = assert_same(acid, warehouse, "emp")
    assert sorted(t.column("id").to_pylist()) == [1, 2, 5, 6]
    acid.sql("ALTER TABLE emp COMPACT 'minor' AND WAIT")
    assert_same(acid, warehouse, "emp")
    acid.sql("ALTER TABLE emp COMPACT 'major' AND WAIT")
    assert any(p.name.startswith("base_") for p in (warehouse / "emp").iterdir())
    assert_same(acid, warehouse, "emp")
    # Earlier versions read what VERSION AS OF reads, until the major compaction's base hides them.
    with pytest.raises(TimeTravelError, match="no longer available"):
        read_table("emp", warehouse=warehouse, version=1)


def test_versions_and_timestamps(acid, warehouse):
    acid.sql(f"CREATE TABLE v (id int, s string) {ACID}")
    acid.sql("INSERT INTO v VALUES (1, 'a'), (2, 'b')")
    acid.sql("UPDATE v SET s = 'c' WHERE id = 1")
    acid.sql("DELETE FROM v WHERE id = 2")
    for version in (1, 2, 3):
        assert_same(acid, warehouse, "v", version=version)
    history = acid.sql("DESCRIBE HISTORY v").collect()
    at2 = [r for r in history if r.write_id == 2][0].commit_time
    by_time = read_table("v", warehouse=warehouse, timestamp=at2, columns=["id", "s"])
    assert arrow_rows(by_time) == spark_rows(acid, "SELECT id, s FROM v VERSION AS OF 2")
    with pytest.raises(TimeTravelError, match="latest write id is 3"):
        read_table("v", warehouse=warehouse, version=4)


def test_every_type(acid, warehouse):
    acid.sql(
        "CREATE TABLE ty (ti tinyint, si smallint, i int, bi bigint, f float, d double, dec decimal(10,3), "
        "s string, vc varchar(5), c char(4), b boolean, dt date, ts timestamp, bin binary, "
        f"a array<int>, m map<string,timestamp>, st struct<x:int,y:char(3)>) {ACID}"
    )
    acid.sql(
        "INSERT INTO ty VALUES (1, 2, 3, 4, 1.5, 2.25, 3.125, 'str', 'abcdefg', 'ab', true, DATE '1900-02-28', "
        "TIMESTAMP '1969-12-31 23:59:58.123456', unhex('00FF'), array(1, NULL), map('k', TIMESTAMP '2024-01-02 03:04:05.5'), "
        "named_struct('x', 1, 'y', 'z')), "
        "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
    )
    t = assert_same(acid, warehouse, "ty")
    row = [r for r in t.to_pylist() if r["i"] == 3][0]
    assert row["vc"] == "abcde" and row["c"] == "ab  " and row["dec"] == decimal.Decimal("3.125")
    assert row["ts"] == dt.datetime(1969, 12, 31, 23, 59, 58, 123456)  # wall clock, no zone
    assert row["st"] == {"x": 1, "y": "z  "}
    assert t.schema.field("ts").type == pa.timestamp("us") and t.schema.field("vc").metadata == {b"hive.type": b"varchar(5)"}


def test_dates_before_1582_read_as_hive_3_1_reads_them(acid, warehouse):
    # Proleptic Gregorian, as Hive 3.1 and the Spark reader (see README, Types): pyarrow returns the day numbers
    # the file holds, which both ORC writers store in that calendar.
    acid.sql(f"CREATE TABLE old (d date, ts timestamp) {ACID}")
    acid.sql("INSERT INTO old VALUES (DATE '1000-01-01', TIMESTAMP '1500-03-01 10:00:00.5'), (DATE '1582-10-10', NULL)")
    t = assert_same(acid, warehouse, "old")
    assert sorted(r["d"] for r in t.to_pylist()) == [dt.date(1000, 1, 1), dt.date(1582, 10, 10)]
    assert dt.datetime(1500, 3, 1, 10, 0, 0, 500000) in t.column("ts").to_pylist()


def test_added_columns_read_as_null_in_older_files(acid, warehouse):
    acid.sql(f"CREATE TABLE ev (id int, s string) {ACID}")
    acid.sql("INSERT INTO ev VALUES (1, 'a')")
    acid.sql("ALTER TABLE ev ADD COLUMNS (extra decimal(5,1), more char(2))")
    acid.sql("INSERT INTO ev VALUES (2, 'b', 3.5, 'x')")
    t = assert_same(acid, warehouse, "ev")
    assert sorted(t.select(["id", "extra", "more"]).to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "extra": None, "more": None},
        {"id": 2, "extra": decimal.Decimal("3.5"), "more": "x "},
    ]


def test_partitioned_bucketed_and_pruning(acid, warehouse):
    acid.sql(f"CREATE TABLE p (id int, v string) PARTITIONED BY (y int, r string) CLUSTERED BY (id) INTO 2 BUCKETS {ACID}")
    acid.sql("INSERT INTO p VALUES (1, 'a', 2023, 'eu'), (2, 'b', 2024, 'eu'), (3, 'c', 2024, 'us'), (4, 'd', NULL, NULL)")
    acid.sql("UPDATE p SET v = 'B' WHERE id = 2")
    acid.sql("DELETE FROM p WHERE id = 3")
    assert_same(acid, warehouse, "p")
    # Partition pruning: a partition the filter excludes is never opened, so an unreadable file there is no
    # error, while a read that needs it fails naming it.
    bad = warehouse / "p" / "y=2023" / "r=eu" / "delta_0000001_0000001_0000" / "bucket_00009"
    bad.write_bytes(b"not orc")
    with pytest.raises(HiveAcidError, match="bucket_00009"):
        read_table("p", warehouse=warehouse)
    t = read_table("p", warehouse=warehouse, filter=[("y", "=", 2024)], columns=["id", "v"])
    assert t.to_pylist() == [{"id": 2, "v": "B"}]
    t = read_table("p", warehouse=warehouse, filter=(pc.field("y") >= 2024) | pc.field("y").is_null())
    assert sorted(t.column("id").to_pylist()) == [2, 4]
    # A filter on a data column reads every partition (and then filters rows).
    with pytest.raises(HiveAcidError, match="bucket_00009"):
        read_table("p", warehouse=warehouse, filter=[("id", "=", 2)])
    both = read_table("p", warehouse=warehouse, filter=[("y", "=", 2024), ("id", "=", 2)], columns=["v"])
    assert both.to_pylist() == [{"v": "B"}]


def test_original_files_and_adopted_location(acid, warehouse, tmp_path):
    location = tmp_path / "legacy"
    location.mkdir()
    orig = pa.table({"id": pa.array([1, 2, 3], pa.int32()), "name": ["x", "y", "z"]})
    porc.write_table(orig, str(location / "000000_0"))
    porc.write_table(orig.slice(0, 2), str(location / "000001_0"))
    acid.sql(f"CREATE TABLE legacy (id int, name string) STORED AS ORC LOCATION '{location}' TBLPROPERTIES ('transactional'='true')")
    assert_same(acid, warehouse, "legacy")
    acid.sql("UPDATE legacy SET name = 'w' WHERE id = 2")
    t = assert_same(acid, warehouse, "legacy")
    assert sorted(t.column("name").to_pylist()) == ["w", "w", "x", "x", "z"]
    # The same directory read bare, without the store: the same rows.
    bare = read_table(location, row_id=True)
    assert arrow_rows(bare) == arrow_rows(t)


def test_plain_tables(acid, warehouse):
    acid.sql("CREATE TABLE po (id int, ts timestamp) STORED AS ORC")
    acid.sql("INSERT INTO po VALUES (1, TIMESTAMP '2024-01-01 10:00:00'), (2, NULL)")
    acid.sql("CREATE TABLE pq (id int, s string) STORED AS PARQUET")
    acid.sql("INSERT INTO pq VALUES (1, 'a'), (2, 'b')")
    for name in ("po", "pq"):
        assert arrow_rows(read_table(name, warehouse=warehouse)) == spark_rows(acid, f"SELECT * FROM {name}")
    with pytest.raises(PlanError, match="transactional"):
        read_table("po", warehouse=warehouse, row_id=True)


def test_clear_errors(acid, warehouse, tmp_path):
    acid.sql(f"CREATE TABLE e (id int) {ACID}")
    with pytest.raises(NoSuchTableError):
        read_table("nosuch", warehouse=warehouse)
    with pytest.raises(PlanError, match="no column 'nosuch'"):
        read_table("e", warehouse=warehouse, columns=["nosuch"])
    with pytest.raises(HiveAcidError, match="No transaction store"):
        read_table("e", warehouse=tmp_path / "elsewhere")
    assert not (tmp_path / "elsewhere").exists()  # a reader never creates a store
    with pytest.raises(HiveAcidError, match="Not a table directory"):
        read_table(tmp_path / "missing")
    assert read_table("e", warehouse=warehouse).num_rows == 0


def test_read_lease_is_released(acid, warehouse):
    acid.sql(f"CREATE TABLE l (id int) {ACID}")
    acid.sql("INSERT INTO l VALUES (1)")
    from hiveacid_sql.txn.compactions import ReadLeases

    before = len(ReadLeases(acid.store.engine).live())
    assert read_table("default.l", warehouse=warehouse).num_rows == 1
    assert len(ReadLeases(acid.store.engine).live()) == before


def test_no_jvm_no_pyspark(acid, warehouse):
    acid.sql(f"CREATE TABLE nj (id int, s string) {ACID}")
    acid.sql("INSERT INTO nj VALUES (1, 'a'), (2, 'b')")
    acid.sql("DELETE FROM nj WHERE id = 1")
    script = textwrap.dedent(
        f"""
        import os, sys
        import hiveacid_sql
        t = hiveacid_sql.read_table("nj", warehouse={str(warehouse)!r})
        assert t.to_pylist() == [{{"id": 2, "s": "b"}}], t.to_pylist()
        assert t.to_pandas().s.tolist() == ["b"]
        assert "pyspark" not in sys.modules and "py4j" not in sys.modules, "PySpark was imported"
        me = str(os.getpid())
        def parent(p):
            try:
                return open(f"/proc/{{p}}/stat").read().rsplit(")", 1)[1].split()[1]
            except OSError:  # another process of the machine ended meanwhile
                return None
        children = [p for p in os.listdir("/proc") if p.isdigit() and parent(p) == me]
        assert not children, f"child processes started: {{children}}"
        print("ok")
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK", "SPARK"))}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok" and done.stderr == ""


def test_docstring_example(spark, warehouse):
    parser = doctest.DocTestParser()
    test = parser.get_doctest(hiveacid_sql.reader.read_table.__doc__, {"warehouse": warehouse}, "read_table", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 6
