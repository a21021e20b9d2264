"""Hive's own q-tests for views and plain partitioned tables, replayed statement by statement, checked against
the rows of their ``.q.out`` (apache/hive ``ql/src/test/queries/clientpositive/<name>.q`` and
``ql/src/test/results/clientpositive/[llap/]<name>.q.out``). ``dfs`` steps are done on the file system."""

from __future__ import annotations


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
