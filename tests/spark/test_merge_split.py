"""MERGE with a small source (:mod:`hiveacid_sql.exec.merge_split`): the source is broadcast and the target
streamed once, never broadcast or shuffled; the rows, the clause chosen for each, the statement ids and the
files are those of the planned right outer join (DuckDB runs the same MERGE as the oracle)."""

from __future__ import annotations

import pytest

from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.exec import merge_split
from hiveacid_sql.exec.metrics import measure
from hiveacid_sql.exec.small_files import SMALL_FILE_MAX_ROWS_CONF
from tests.support.acid_files import listing
from tests.support.merge_oracle import (
    PARTITIONED_MERGE,
    PARTITIONED_MERGE_DIRS,
    PARTITIONED_MERGE_ROWS,
    merge_both_ways,
)

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


@pytest.fixture()
def splits(spark, acid, monkeypatch) -> list[int]:
    """The target read by Spark (not on the driver, where the split is not used); the rows each split numbered."""
    acid.sql("SET hiveacid.driver.scan.max.rows=0")
    spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")
    numbered: list[int] = []
    original = merge_split._numbered  # noqa: SLF001

    def counted(source):
        out = original(source)
        numbered.append(out[0].num_rows)  # (the rows in Arrow, their local relation)
        return out

    monkeypatch.setattr(merge_split, "_numbered", counted)
    yield numbered
    spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)


def _rows(acid, query: str) -> list[tuple]:
    """The rows in the query's order (any order when it has no ORDER BY: then compared sorted)."""
    rows = [tuple(r) for r in acid.sql(query).collect()]
    return rows if "ORDER BY" in query else sorted(rows, key=repr)


def test_a_small_source_is_broadcast_and_the_target_neither_broadcast_nor_shuffled(spark, acid, splits, monkeypatch):
    acid.sql(f"CREATE TABLE t (id int, v string) {ACID}")
    acid.sql("INSERT INTO t SELECT id, concat('v', id) FROM range(0, 600)")
    acid.sql("CREATE TABLE s (id int, v string)")
    acid.sql("INSERT INTO s SELECT id * 30, 'new' FROM range(0, 30)")  # 20 ids in the target, 10 past its end
    merge = (
        "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = {v} "
        "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)"
    )
    result, work = measure(spark, lambda: acid.sql(merge.format(v="s.v")))
    assert splits == [30]
    assert (result.num_source_rows, result.num_updated_rows, result.num_inserted_rows) == (30, 20, 10)
    assert work.rows_broadcast <= 30 + 20  # the source's rows and the matched ids, never the target's 600
    # the source's collect, its broadcast, the target's scan collecting the 20 matched rows (the only rows
    # shuffled: its limit), the events of local relations; checked, counted and written on the driver
    assert (work.jobs, work.rows_shuffled) == (4, 20), work
    assert work.rows_read <= 600 + 30 + 10  # the target once, the source once (and a cached block or two)
    # The planned right outer join, for comparison: Spark broadcasts the whole target
    monkeypatch.setattr(merge_split, "source_is_small", lambda source, target: False)
    result, work = measure(spark, lambda: acid.sql(merge.format(v="'again'")))
    assert splits == [30]
    assert (result.num_updated_rows, result.num_inserted_rows) == (30, 0)
    assert work.rows_broadcast >= 600
    assert acid.sql("SELECT count(*) FROM t WHERE v = 'again'").collect()[0][0] == 30
    assert acid.sql("SELECT count(*) FROM t").collect()[0][0] == 610


def test_a_small_source_merge_is_four_jobs_and_writes_on_the_driver(spark, acid, splits, monkeypatch):
    """The split's matched rows are collected (one job: the target's scan) and checked, counted and written on
    the driver: four jobs (the source's collect, its broadcast, the scan, the events; it was eight), and only
    the matched rows cross a shuffle (the collect's limit), no event. Over the driver write's bounds, by
    rows and by bytes (``hiveacid.driver.write.max.bytes``: 60 small events over a row limit of 10 are still
    the driver's), and with both bounds low, Spark tasks write from the kept rows, as before."""
    from hiveacid_sql.exec import merge as merge_module

    writers: list[str] = []
    for name, kind in (("write_events", "tasks"), ("write_events_local", "driver")):
        original = getattr(merge_module, name)
        monkeypatch.setattr(merge_module, name, lambda *a, _f=original, _k=kind, **k: writers.append(_k) or _f(*a, **k))
    acid.sql(f"CREATE TABLE t (id int, v string) {ACID}")
    acid.sql("INSERT INTO t SELECT id, concat('v', id) FROM range(0, 600)")
    acid.sql("CREATE TABLE s (id int, v string)")
    acid.sql("INSERT INTO s SELECT id * 30, 'new' FROM range(0, 30)")  # 20 ids in the target, 10 past its end
    merge = "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = {v} WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)"
    result, work = measure(spark, lambda: acid.sql(merge.format(v="s.v")))
    assert (result.num_source_rows, result.num_target_rows_matched, result.num_updated_rows, result.num_inserted_rows) == (30, 20, 20, 10)
    assert (work.jobs, work.rows_shuffled, writers) == (4, 20, ["driver"]), work
    acid.sql("SET hiveacid.driver.write.max.rows=10")  # 60 events, a few KB
    result = acid.sql(merge.format(v="'again'"))
    assert (result.num_updated_rows, writers) == (30, ["driver", "driver"])
    acid.sql("SET hiveacid.driver.write.max.bytes=0")
    result = acid.sql(merge.format(v="'third'"))
    assert (result.num_source_rows, result.num_target_rows_matched, result.num_updated_rows) == (30, 30, 30)
    assert writers == ["driver", "driver", "tasks"]
    assert _rows(acid, "SELECT count(*), count_if(v = 'third') FROM t") == [(610, 30)]


TARGET_ROWS = [(1, 10, "a"), (2, 20, None), (3, None, "c"), (None, 40, "d"), (5, 50, "e"), (6, 60, "f")]
SOURCE_ROWS = [(1, 11, "x"), (2, None, "y"), (None, 41, "z"), (7, 70, "w"), (6, 61, None), (8, 80, "v"), (8, 81, "u")]
SPLIT_MERGES = [
    # NULL keys never match: the source's NULL id is inserted, the target's kept
    """MERGE INTO t USING (SELECT * FROM s WHERE id IS NULL OR id < 8) AS s ON t.id = s.id
       WHEN MATCHED AND s.v IS NULL THEN DELETE
       WHEN MATCHED THEN UPDATE SET v = s.v, note = coalesce(s.note, t.note)
       WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, s.note)""",
    # ON FALSE: every source row unmatched, each clause its own statement (two inserts), duplicates kept
    """MERGE INTO t USING s ON FALSE
       WHEN NOT MATCHED AND s.v > 60 THEN INSERT VALUES (s.id, s.v * 2, s.note)
       WHEN NOT MATCHED THEN INSERT (id, note) VALUES (s.id, 'rest')""",
    # an aggregate source, a condition on both sides in ON
    """MERGE INTO t USING (SELECT id, max(v) AS v FROM s GROUP BY id) AS g ON t.id = g.id AND t.v < g.v
       WHEN MATCHED THEN UPDATE SET v = t.v + g.v
       WHEN NOT MATCHED THEN INSERT (id, v) VALUES (g.id, g.v)""",
]


@pytest.mark.parametrize("merge", SPLIT_MERGES, ids=["null-keys", "on-false", "aggregate-source"])
def test_same_result_as_duckdb(acid, splits, merge):
    ours, theirs = merge_both_ways(acid, merge, TARGET_ROWS, SOURCE_ROWS)
    assert len(splits) == 1
    assert ours == theirs


def test_cardinality_check_and_first_wins(acid, warehouse, splits):
    acid.sql(f"CREATE TABLE t (id int, v int) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 10), (2, 20)")
    acid.sql("CREATE TABLE s (id int, v int)")
    acid.sql("INSERT INTO s VALUES (1, 11), (1, 12), (3, 30)")
    merge = "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)"
    before = listing(warehouse / "t")
    with pytest.raises(HiveAcidError, match='Cardinality Violation .* target row {"writeid":1,"bucketid":536870912,"rowid":0}'):
        acid.sql(merge)
    assert listing(warehouse / "t") == before
    acid.sql("SET hive.merge.cardinality.check=false")
    result = acid.sql(merge)
    # the source rows counted after the first wins (the second match of id 1 dropped), as the planned join counts
    assert (result.num_source_rows, result.num_target_rows_matched, result.num_updated_rows, result.num_inserted_rows) == (2, 1, 1, 1)
    rows = _rows(acid, "SELECT id, v FROM t ORDER BY id")
    assert rows in ([(1, 11), (2, 20), (3, 30)], [(1, 12), (2, 20), (3, 30)])
    assert splits == [3, 3]


def test_partitioned_and_bucketed_targets(acid, warehouse, splits):
    """The walkthrough's statement ids and directories: partitions pruned, moved and created, buckets routed."""
    acid.sql(f"CREATE TABLE t (id int, v int) PARTITIONED BY (p string) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')")
    acid.sql("CREATE TABLE s (id int, v int, p string)")
    acid.sql("INSERT INTO s VALUES (1, 11, 'a'), (4, 44, 'd'), (2, 22, 'b')")
    result = acid.sql(PARTITIONED_MERGE)
    assert [(c.action, c.statement_id, c.num_rows) for c in result.clauses] == [("UPDATE", 1, 1), ("UPDATE", 2, 1), ("INSERT", 0, 1)]
    assert _rows(acid, "SELECT id, v, p FROM t ORDER BY id") == PARTITIONED_MERGE_ROWS
    assert {p.rsplit("/", 1)[0] for p in listing(warehouse / "t") if "0000002" in p} == PARTITIONED_MERGE_DIRS
    acid.sql(f"CREATE TABLE b (id int, v int) CLUSTERED BY (id) INTO 7 BUCKETS {ACID}")
    acid.sql("INSERT INTO b VALUES (300000, 1)")
    acid.sql("CREATE TABLE bs (id int, v int)")
    acid.sql("INSERT INTO bs VALUES (300000, 2), (2147483647, 3)")
    acid.sql("MERGE INTO b USING bs ON b.id = bs.id WHEN MATCHED THEN UPDATE SET v = bs.v WHEN NOT MATCHED THEN INSERT VALUES (bs.id, bs.v)")
    written = sorted(p for p in listing(warehouse / "b") if "_0000002_" in p and "bucket_" in p)
    assert written == [  # as tests/spark/test_merge.py's bucketed target
        "delete_delta_0000002_0000002_0001/bucket_00004",
        "delta_0000002_0000002_0000/bucket_00002",
        "delta_0000002_0000002_0001/bucket_00004",
    ]
    assert _rows(acid, "SELECT id, v FROM b ORDER BY id") == [(300000, 2), (2147483647, 3)]
    assert splits == [3, 2]
