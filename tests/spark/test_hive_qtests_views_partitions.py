"""Hive's own q-tests for views, plain partitioned and insert-only tables, replayed statement by statement,
checked against the rows of their ``.q.out`` (apache/hive ``ql/src/test/queries/clientpositive/<name>.q`` and
``ql/src/test/results/clientpositive/[llap/]<name>.q.out``). ``dfs`` steps are done on the file system."""

from __future__ import annotations

import pytest


def _rows(acid, sql: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(sql).collect()]


def _lines(acid, sql: str) -> list[str]:
    """A statement's output as the q.out prints it: one tab-separated line per row."""
    return ["\t".join("NULL" if v is None else str(v).lower() if isinstance(v, bool) else str(v) for v in r)
            for r in acid.sql(sql).collect()]


def test_msck_repair_1(acid, warehouse):
    """msck_repair_1.q: a partition directory written by others (one level deeper than the keys) is reported,
    then registered by MSCK REPAIR; an up-to-date table reports nothing."""
    acid.sql("DROP TABLE IF EXISTS repairtable")
    acid.sql("CREATE TABLE repairtable(col STRING) PARTITIONED BY (p1 STRING, p2 STRING)")
    assert _lines(acid, "MSCK TABLE repairtable") == []
    nested = warehouse / "repairtable" / "p1=c" / "p2=a" / "p3=b"
    nested.mkdir(parents=True)  # dfs -mkdir
    (nested / "datafile").touch()  # dfs -touchz
    assert _lines(acid, "MSCK TABLE default.repairtable") == ["Partitions not in metastore:\trepairtable:p1=c/p2=a"]
    assert _lines(acid, "SHOW PARTITIONS default.repairtable") == []
    repaired = _lines(acid, "MSCK REPAIR TABLE default.repairtable")
    assert repaired[0] == "Partitions not in metastore:\trepairtable:p1=c/p2=a"  # the next line is masked in the q.out
    assert _lines(acid, "SHOW PARTITIONS default.repairtable") == ["p1=c/p2=a"]
    assert _lines(acid, "MSCK TABLE repairtable") == []
    assert _lines(acid, "SHOW PARTITIONS repairtable") == ["p1=c/p2=a"]
    acid.sql("DROP TABLE default.repairtable")
    assert not (warehouse / "repairtable").exists()


def test_acid_view_delete(acid):
    """llap/acid_view_delete.q: DELETE and UPDATE of an ACID table whose WHERE reads a view (with a column
    list) over a plain table."""
    acid.sql("drop table if exists mydim")
    acid.sql("drop table if exists updates_staging_table")
    acid.sql("drop view if exists updates_staging_view")
    acid.sql(
        "create table mydim (key int, name string, zip string, is_current boolean)\n"
        "clustered by(key) into 3 buckets\nstored as orc tblproperties ('transactional'='true')"
    )
    acid.sql("insert into mydim values\n  (1, 'bob',   '95136', true),\n  (2, 'joe',   '70068', true),\n  (3, 'steve', '22150', true)")
    acid.sql("create table updates_staging_table (ks int, newzip string)")
    acid.sql("insert into updates_staging_table values (1, 87102), (3, 45220)")
    acid.sql("create view updates_staging_view (kv, newzip) as select ks, newzip from updates_staging_table")
    acid.sql("delete from mydim\nwhere mydim.key in (select kv from updates_staging_view where kv >=3)")
    assert _lines(acid, "select * from mydim order by key") == ["1\tbob\t95136\ttrue", "2\tjoe\t70068\ttrue"]
    acid.sql("update mydim set is_current = false\nwhere mydim.key not in(select kv from updates_staging_view)")
    assert _lines(acid, "select * from mydim order by key") == ["1\tbob\t95136\ttrue", "2\tjoe\t70068\tfalse"]
    acid.sql("update mydim set name = 'Olaf'\nwhere mydim.key in(select kv from updates_staging_view)")
    assert _lines(acid, "select * from mydim order by key") == ["1\tOlaf\t95136\ttrue", "2\tjoe\t70068\tfalse"]


def _bucket_sample(table_dir, bucket: int) -> list[str]:
    """``TABLESAMPLE (BUCKET bucket+1 OUT OF n)`` of an insert-only text table as Hive answers it for a table
    bucketed on the sampled column: the rows of the files of that bucket id (``00000B_0``, ``_copy_K``) in
    every visible directory, as q.out lines."""
    out = []
    for path in table_dir.rglob(f"{bucket:06d}_0*"):
        out += [line.replace("\x01", "\t") for line in path.read_text().splitlines()]
    return sorted(out)


@pytest.mark.release  # 20+ statements, 11 dynamic partitions: tests/spark/test_hive_bucket_files.py is the default run's
def test_mm_buckets(acid, warehouse):
    """mm_buckets.q: bucketed insert-only (text) tables, partitioned and SORTED BY too; each TABLESAMPLE of a
    bucket is checked as the rows of that bucket's files (Hive's hash, bucketing_version 2). The q.out lists
    rows sorted as text; ``intermediate_n2`` holds the keys its INSERTs take from ``src``, as the q.out shows."""
    acid.sql("create table intermediate_n2(key int) partitioned by (p int) stored as orc")
    acid.sql("insert into table intermediate_n2 partition(p='455') values (98), (97)")
    acid.sql("insert into table intermediate_n2 partition(p='456') values (0), (10)")
    acid.sql("insert into table intermediate_n2 partition(p='457') values (100), (103)")
    mm = "tblproperties(\"transactional\"=\"true\", \"transactional_properties\"=\"insert_only\")"
    acid.sql(f"create table bucket0_mm(key int, id int)\nclustered by (key) into 2 buckets\n{mm}")
    acid.sql("insert into table bucket0_mm select key, key from intermediate_n2")
    assert sorted(_lines(acid, "select * from bucket0_mm order by key, id")) == [
        "0\t0", "10\t10", "100\t100", "103\t103", "97\t97", "98\t98"]
    assert _bucket_sample(warehouse / "bucket0_mm", 0) == ["10\t10", "97\t97", "98\t98"]
    assert _bucket_sample(warehouse / "bucket0_mm", 1) == ["0\t0", "100\t100", "103\t103"]
    acid.sql("insert into table bucket0_mm select key, key from intermediate_n2")
    assert len(_lines(acid, "select * from bucket0_mm order by key, id")) == 12
    assert _bucket_sample(warehouse / "bucket0_mm", 0) == ["10\t10", "10\t10", "97\t97", "97\t97", "98\t98", "98\t98"]
    assert _bucket_sample(warehouse / "bucket0_mm", 1) == [
        "0\t0", "0\t0", "100\t100", "100\t100", "103\t103", "103\t103"]
    acid.sql(
        "create table bucket1_mm(key int, id int) partitioned by (key2 int)\n"
        f"clustered by (key) sorted by (key) into 2 buckets\n{mm}"
    )
    acid.sql(
        "insert into table bucket1_mm partition (key2)\nselect key + 1, key, key - 1 from intermediate_n2\n"
        "union all \nselect key - 1, key, key + 1 from intermediate_n2"
    )
    assert sorted(_lines(acid, "select * from bucket1_mm order by key, id")) == [
        "-1\t0\t1", "1\t0\t-1", "101\t100\t99", "102\t103\t104", "104\t103\t102", "11\t10\t9", "9\t10\t11",
        "96\t97\t98", "97\t98\t99", "98\t97\t96", "99\t100\t101", "99\t98\t97"]
    # a partitioned table's files hold the data columns: key2 comes from each file's directory name
    sample = []
    for path in sorted((warehouse / "bucket1_mm").rglob("000000_0*")):
        key2 = path.parent.parent.name.split("=")[1]
        sample += [line.replace("\x01", "\t") + f"\t{key2}" for line in path.read_text().splitlines()]
    assert sorted(sample) == ["101\t100\t99", "96\t97\t98", "97\t98\t99", "98\t97\t96", "99\t100\t101", "99\t98\t97"]
    acid.sql(f"create table bucket2_mm(key int, id int)\nclustered by (key) into 10 buckets\n{mm}")
    acid.sql("insert into table bucket2_mm select key, key from intermediate_n2 where key == 0")
    assert _lines(acid, "select * from bucket2_mm order by key, id") == ["0\t0"]
    assert _bucket_sample(warehouse / "bucket2_mm", 0) == [] and _bucket_sample(warehouse / "bucket2_mm", 3) == []
    acid.sql("insert into table bucket2_mm select key, key from intermediate_n2 where key in (0, 103)")
    assert sorted(_lines(acid, "select * from bucket2_mm")) == ["0\t0", "0\t0", "103\t103"]
    assert _bucket_sample(warehouse / "bucket2_mm", 0) == [] and _bucket_sample(warehouse / "bucket2_mm", 3) == []
    for table in ("bucket0_mm", "bucket1_mm", "bucket2_mm", "intermediate_n2"):
        acid.sql(f"drop table {table}")
