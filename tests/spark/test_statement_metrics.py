"""The structure of a statement's Spark work, read from Spark's status store (:mod:`hiveacid_sql.exec.metrics`).

Timings are never asserted; these bounds are what a statement's plan looks like today, so a change that
adds jobs, or reads more rows than the snapshot holds, fails here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from hiveacid_sql.exec.metrics import SparkWork, measure
from hiveacid_sql.exec.small_files import SMALL_FILE_MAX_ROWS_CONF


@dataclass
class Py4jCalls:
    """py4j round trips made from the test's thread inside :func:`py4j_calls`, and the JVM methods they called."""

    count: int = 0
    methods: set[str] = field(default_factory=set)


@contextmanager
def py4j_calls() -> Iterator[Py4jCalls]:
    """Count the py4j round trips of the calling thread while the block runs (other threads, such as the
    store's heartbeat or py4j's own garbage collection of proxies, are not counted)."""
    import threading

    import py4j.clientserver

    calls = Py4jCalls()
    me = threading.get_ident()
    original = py4j.clientserver.ClientServerConnection.send_command

    def counted(self, command, *args, **kwargs):
        if threading.get_ident() == me:
            calls.count += 1
            calls.methods.add(command.split("\n")[2] if command.startswith("c\n") else "")
        return original(self, command, *args, **kwargs)

    py4j.clientserver.ClientServerConnection.send_command = counted
    try:
        yield calls
    finally:
        py4j.clientserver.ClientServerConnection.send_command = original

def test_counts_a_plain_spark_job(spark):
    _, work = measure(spark, lambda: spark.range(0, 1000, numPartitions=2).selectExpr("sum(id)").collect())
    assert work.jobs >= 1
    assert work.rows_read == 1000  # the range is the source: its rows are the stage input records
    nothing = SparkWork(spark).start().finish()
    assert (nothing.jobs, nothing.stages, nothing.rows_read) == (0, 0, 0)


def test_one_row_update_launches_few_jobs_and_reads_the_table_once(spark, acid):
    acid.sql("SET hiveacid.driver.write.max.rows=0")  # the Spark-task write path
    acid.sql("CREATE TABLE t (id int, v string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO t SELECT id, concat('v', id) FROM range(0, 500)")
    _, work = measure(spark, lambda: acid.sql("UPDATE t SET v = 'x' WHERE id = 7"))
    assert 1 <= work.jobs <= 2  # today: the changed rows' scan and the write of the delta/delete delta
    # at most the snapshot's rows, read once; the insert's two bucket files hold 0..249 and 250..499, and the
    # key filter id = 7 skips the second by its statistics (tests/spark/test_key_pruning.py)
    assert work.rows_read < 500
    _, scan = measure(spark, lambda: acid.sql("SELECT count(*) FROM t").collect())
    # Every file holds at most 1,000 rows: all are read on the driver (exec/small_files.py), none by Spark.
    assert scan.rows_read == 0
    spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")
    try:
        _, scan = measure(spark, lambda: acid.sql("SELECT count(*) FROM t").collect())
    finally:
        spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)
    # 500 rows of the first delta, the new version of row 7 and its delete event: each event file read once.
    assert scan.rows_read == 502


def test_a_scan_of_many_event_files_launches_no_listing_job(spark, acid, warehouse):
    """Spark lists more than ``parallelPartitionDiscovery.threshold`` (32 by default) paths with a Spark job
    of its own; a snapshot of many event files (many buckets, or many small deltas from streaming and small
    statements) must not pay a job per statement for that: the sessions we start list on the driver."""
    acid.sql("CREATE TABLE one (id int) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO one SELECT id FROM range(0, 200)")
    _, few = measure(spark, lambda: acid.sql("SELECT count(*) FROM one").collect())
    acid.sql(
        "CREATE TABLE t (id int) CLUSTERED BY (id) INTO 64 BUCKETS STORED AS ORC TBLPROPERTIES ('transactional'='true')"
    )
    acid.sql("INSERT INTO t SELECT id FROM range(0, 200)")
    assert len(list((warehouse / "t").glob("delta_*/bucket_*"))) > 32
    result, many = measure(spark, lambda: acid.sql("SELECT count(*) FROM t").collect())
    assert result[0][0] == 200
    assert many.jobs == few.jobs


def test_a_statement_reads_only_the_footers_of_new_files(acid):
    """The snapshot's ORC footers are cached by path, size and modification time: the next statement over the
    same deltas opens none of them again, only the files written since."""
    from hiveacid_sql.acid.orc_footer import FOOTERS

    acid.sql("CREATE TABLE t (id int, v string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    for i in range(3):
        acid.sql(f"INSERT INTO t VALUES ({i}, 'v{i}')")
    reads = FOOTERS.reads
    assert acid.sql("SELECT count(*) FROM t").collect()[0][0] == 3
    assert FOOTERS.reads - reads <= 3  # at most the three deltas' files (INSERT may have cached them already)
    reads = FOOTERS.reads
    assert acid.sql("SELECT count(*) FROM t WHERE id > 0").collect()[0][0] == 2
    assert FOOTERS.reads == reads
    acid.sql("UPDATE t SET v = 'x' WHERE id = 1")  # reads no footer: every file of its snapshot was read before
    assert FOOTERS.reads == reads
    assert sorted(acid.sql("SELECT v FROM t").collect()) == [("v0",), ("v2",), ("x",)]
    assert FOOTERS.reads == reads + 2  # the UPDATE's delta and delete delta


def test_a_small_update_is_one_job_and_its_partition_filter_none(spark, acid):
    """The driver-path write collects the changed rows in the job that finds them (no count first), and the
    partitions a filter keeps (to read and to lock) are chosen on the driver over an inline table: a one-row
    UPDATE or DELETE of a table without delete deltas, partitioned or not, is one Spark job. (Spark's scan:
    tables and files this small are otherwise read on the driver, with no job: tests/spark/test_local_scan.py.)"""
    acid.sql("SET hiveacid.driver.scan.max.rows=0")
    spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")
    try:
        _small_update_jobs(spark, acid)
    finally:
        spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)


def _small_update_jobs(spark, acid) -> None:
    acid.sql("CREATE TABLE t (id int, v string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO t SELECT id, concat('v', id) FROM range(0, 100)")
    _, work = measure(spark, lambda: acid.sql("UPDATE t SET v = 'x' WHERE id = 7"))
    assert work.jobs == 1
    # With a delete delta: its broadcast, then the collect; the events are not kept (a job of its own) since
    # the footers say 100 rows cannot make more events than the driver limit.
    _, work = measure(spark, lambda: acid.sql("UPDATE t SET v = 'y' WHERE id = 8"))
    assert work.jobs == 2
    acid.sql(
        "CREATE TABLE p (id int, v string) PARTITIONED BY (s string, d int) STORED AS ORC "
        "TBLPROPERTIES ('transactional'='true')"
    )
    # partition values that SQL text would have to escape, and the NULL (default) partition
    acid.sql("INSERT INTO p VALUES (1, 'a', 'it\\'s', 1), (2, 'b', 'back\\\\slash', 1), (3, 'c', NULL, 1), (4, 'd', 'x', 2)")
    result, work = measure(spark, lambda: acid.sql("UPDATE p SET v = 'y' WHERE s = 'it\\'s' AND d = 1"))
    assert (result.num_updated_rows, work.jobs) == (1, 1)
    result, work = measure(spark, lambda: acid.sql("DELETE FROM p WHERE s IS NULL AND id = 3"))
    assert (result.num_deleted_rows, work.jobs) == (1, 1)
    acid.sql("UPDATE p SET v = 'z' WHERE s = 'back\\\\slash'")
    assert sorted(acid.sql("SELECT id, v, s, d FROM p").collect()) == [
        (1, "y", "it's", 1), (2, "z", "back\\slash", 1), (4, "d", "x", 2),
    ]


def test_a_merge_checks_and_counts_in_one_aggregate(spark, acid):
    """MERGE: the join's rows kept, one aggregate (one shuffle) for the cardinality check, the report's counts
    and the number of events, which chooses the writer: five jobs for a small MERGE over fresh tables written
    on the driver (it was twelve, then six), six written by tasks (it was eight)."""
    acid.sql("CREATE TABLE t (id int, v string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO t SELECT id, concat('v', id) FROM range(0, 100)")
    acid.sql("CREATE TABLE s (id int, v string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO s SELECT id * 2, 'new' FROM range(45, 65)")
    def merge(new_v: str):
        return measure(
            spark,
            lambda: acid.sql(
                f"MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = {new_v} "
                "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)"
            ),
        )

    result, work = merge("s.v")
    assert (result.num_source_rows, result.num_target_rows_matched) == (20, 5)
    assert (result.num_updated_rows, result.num_inserted_rows) == (5, 15)
    assert work.jobs <= 5, work
    # More events than the driver write takes: the aggregate's per-clause counts choose the task write
    # (no trial collect of limit + 1 events first, which was a job of its own)
    acid.sql("SET hiveacid.driver.write.max.rows=10")
    acid.sql("SET hiveacid.driver.write.max.bytes=0")  # (not the driver for their few bytes either)
    result, work = merge("'again'")
    assert (result.num_updated_rows, result.num_inserted_rows) == (20, 0)
    assert work.jobs <= 6, work  # and the first MERGE's delete delta is broadcast; the write: a shuffle, its tasks


def test_a_one_row_update_has_a_bounded_fixed_cost(spark, acid):
    """The fixed cost of a statement, counted: a one-row UPDATE of a small table (read on the driver) makes five
    store transactions (the catalog read, open, locks, snapshot and write id together, commit; it made six) and
    a bounded number of py4j round trips from the statement's thread (1,370 before PySpark's per-Column
    call-site capture was turned off for our statements and casts went by type name; about 250 before the
    events were one SQL text or, for rows the driver holds, built in Arrow; 76 now), none of them making a
    temporary view. PySpark's call-site setting is the caller's again afterwards."""
    import pyspark.errors.utils as pyspark_errors
    import sqlalchemy as sa

    acid.sql("CREATE TABLE t (id int, v string, n bigint, d decimal(10,2)) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO t SELECT id, concat('v', id), id * 3, id / 4 FROM range(0, 1000)")
    acid.sql("UPDATE t SET v = 'w' WHERE id = 6")  # warm: the Hive cast functions registered, footers read
    setting = pyspark_errors._enable_debugging_cache  # noqa: SLF001 - PySpark's cached setting
    begun: list[object] = []

    def on_begin(conn: object) -> None:
        begun.append(conn)

    sa.event.listen(acid.store.engine, "begin", on_begin)
    try:
        with py4j_calls() as calls:
            result = acid.sql("UPDATE t SET v = 'x', n = n + 1 WHERE id = 7")
    finally:
        sa.event.remove(acid.store.engine, "begin", on_begin)
    assert result.num_updated_rows == 1
    assert len(begun) == 5
    assert 0 < calls.count <= 100
    # its rows are a filter and projection of the target's frame: no temporary view made for them; they are
    # the driver's (a local relation without a rename), collected as they are and their events built in Arrow:
    # no event projection, no cache
    assert not calls.methods & {"createOrReplaceTempView", "dropTempView", "toDF", "select", "persist"}, calls
    assert pyspark_errors._enable_debugging_cache == setting  # noqa: SLF001
    assert acid.sql("SELECT v, n FROM t WHERE id = 7").collect() == [("x", 22)]

    # Read by Spark (as a large table is): a point UPDATE's events are not cached, and Spark's optimizer is
    # not asked whether its rows are local (a frame that reads files never is)
    acid.sql("SET hiveacid.driver.scan.max.rows=0")
    spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")
    try:
        with py4j_calls() as calls:
            result = acid.sql("UPDATE t SET v = 'y' WHERE id = 8")
    finally:
        spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)
    assert result.num_updated_rows == 1
    assert not calls.methods & {"persist", "optimizedPlan", "createOrReplaceTempView"}, calls
    assert acid.sql("SELECT v FROM t WHERE id = 8").collect() == [("y",)]


def test_a_scan_of_small_deltas_hands_them_to_spark_in_few_round_trips(spark, acid):
    """A table's small insert and delete deltas are read on the driver and handed to Spark as local
    relations: each is one Arrow stream file and two JVM calls, not ``createDataFrame``'s 38 round trips
    (its conf reads among them): 99 round trips from the statement's thread before, 34 now. The rows are
    the same as Spark's own read of the files."""
    acid.sql("CREATE TABLE t (id int, v string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO t SELECT id, concat('v', id) FROM range(0, 100)")
    acid.sql("INSERT INTO t VALUES (100, 'new')")
    acid.sql("DELETE FROM t WHERE id IN (3, 100)")
    query = "SELECT count(*), sum(id), max(v) FROM t"
    expected = acid.sql(query).collect()
    with py4j_calls() as calls:
        df = acid.sql(query)
    assert "readArrowStreamFromFile" in calls.methods and "getConfs" not in calls.methods, calls
    assert 0 < calls.count <= 60, calls  # 99 through createDataFrame (34 measured here)
    assert df.collect() == expected == [(99, sum(range(100)) - 3, "v99")]
    spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")
    try:
        assert acid.sql(query).collect() == expected
    finally:
        spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)
