"""Small event files read on the driver and handed to Spark as local relations (:mod:`hiveacid_sql.exec.small_files`).

The driver read must give exactly what Spark's ORC reader gives: every case is read both ways (the Spark conf
``spark.hiveacid.read.small.file.max.rows=0`` turns the driver read off) and compared row by row, with the
frame's schema; and the structure it buys is asserted: after many small statements Spark opens only the large
files, and reads only their rows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

import pyarrow as pa
import pyarrow.orc as porc
import pytest

from hiveacid_sql.acid.small_events import EVENTS
from hiveacid_sql.errors import TxnAbortedError
from hiveacid_sql.exec.metrics import measure
from hiveacid_sql.exec.small_files import SMALL_FILE_MAX_ROWS_CONF

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


@contextmanager
def spark_reads_every_file(spark) -> Iterator[None]:
    spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")
    try:
        yield
    finally:
        spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)


def assert_both_ways_equal(spark, acid, query: str) -> list:
    """``query`` read with the driver read of small files and without it: the same schema, the same rows."""
    used = EVENTS.reads + EVENTS.hits
    df = acid.sql(query)
    rows, schema = sorted(df.collect(), key=repr), df.schema
    assert EVENTS.reads + EVENTS.hits > used, "the driver read was not used"
    with spark_reads_every_file(spark):
        used = EVENTS.reads + EVENTS.hits
        plain = acid.sql(query)
        plain_rows = sorted(plain.collect(), key=repr)
        assert EVENTS.reads + EVENTS.hits == used
    assert schema == plain.schema
    assert rows == plain_rows
    return rows


def test_small_deltas_read_on_the_driver_give_the_spark_scan_rows(spark, acid):
    """Partitions (one with a space in its value, the NULL one), a large file next to small ones, UPDATE and
    DELETE, a multi-statement transaction, ADD COLUMNS: the same rows and row ids both ways."""
    acid.sql(
        "CREATE TABLE t (id int, v varchar(10), amount decimal(10,2), ok boolean, day date) "
        f"PARTITIONED BY (p string) {ACID}"
    )
    acid.sql(
        "INSERT INTO t VALUES (1, 'a', 1.50, true, DATE '2024-01-01', 'x'), (2, 'b', NULL, false, NULL, 'x'), "
        "(3, 'c', 3.25, NULL, DATE '1999-12-31', 'a b'), (4, 'd', 4.00, true, DATE '2024-02-29', 'a b'), "
        "(5, NULL, 5.75, false, DATE '2000-01-01', NULL), (6, 'f', 6.00, true, DATE '2024-03-01', NULL)"
    )
    # a file above the driver bound (Spark reads it) whose rows the small delete deltas below hit
    acid.sql("INSERT INTO t SELECT id, concat('big', id), id / 100, id % 2 = 0, DATE '2024-01-01', 'big' "
             "FROM range(100, 12100)")
    acid.sql("UPDATE t SET v = 'u' WHERE id = 2")
    acid.sql("DELETE FROM t WHERE id = 3")
    acid.sql("UPDATE t SET v = 'bigu' WHERE id IN (150, 151)")
    acid.sql("DELETE FROM t WHERE id = 12000")
    acid.sql("START TRANSACTION")
    acid.sql("INSERT INTO t VALUES (7, 'g', 7.00, true, DATE '2024-04-01', 'x')")
    acid.sql("UPDATE t SET amount = amount + 1 WHERE id = 1")
    acid.sql("DELETE FROM t WHERE id = 4")
    acid.sql("COMMIT")
    acid.sql("ALTER TABLE t ADD COLUMNS (extra bigint)")
    acid.sql("INSERT INTO t VALUES (8, 'h', 2.25, false, DATE '2024-05-01', 42, 'x')")
    acid.sql("UPDATE t SET extra = 5 WHERE id = 5")
    rows = assert_both_ways_equal(spark, acid, "SELECT row__id, * FROM t")
    assert len(rows) == 6 + 12000 - 3 + 2  # three deleted (3, 4, 12000), two inserted (7, 8)
    small = {r.id: r for r in rows if r.id < 100}
    assert sorted(small) == [1, 2, 5, 6, 7, 8]
    assert (small[1].amount, small[2].v, small[5].extra, small[5].p, small[8].extra) == (Decimal("2.50"), "u", 5, None, 42)
    assert_both_ways_equal(spark, acid, "SELECT p, count(*), sum(amount), max(day) FROM t GROUP BY p")
    assert_both_ways_equal(spark, acid, "SELECT id, v FROM t WHERE id = 150 OR p = 'a b'")


def test_original_files_and_an_aborted_write_id_read_the_same_both_ways(spark, acid, tmp_path):
    """Original files (synthetic row ids, read by Spark tasks) with small deltas and delete deltas over them;
    a streaming delta holding several write ids, one of them aborted, and a timestamp column (its insert events
    stay with Spark's reader, its delete events do not)."""
    location = tmp_path / "legacy"
    location.mkdir()
    orig = pa.table({"id": pa.array([1, 2, 3], pa.int32()), "name": ["x", "y", "z"]})
    porc.write_table(orig, str(location / "000000_0"))
    porc.write_table(orig.slice(0, 2), str(location / "000001_0"))
    acid.sql(f"CREATE TABLE legacy (id int, name string) STORED AS ORC LOCATION '{location}' "
             "TBLPROPERTIES ('transactional'='true')")
    acid.sql("UPDATE legacy SET name = 'w' WHERE id = 2")
    acid.sql("DELETE FROM legacy WHERE id = 3")
    acid.sql("INSERT INTO legacy VALUES (9, 'n')")
    rows = assert_both_ways_equal(spark, acid, "SELECT row__id, * FROM legacy")
    assert sorted((r.id, r.name) for r in rows) == [(1, "x"), (1, "x"), (2, "w"), (2, "w"), (9, "n")]

    acid.sql(f"CREATE TABLE s (id int, ts timestamp) {ACID}")
    with acid.streaming_connection("s", transaction_batch_size=3) as conn:
        conn.begin_transaction()
        conn.write((1, dt.datetime(2024, 1, 1, 10)))
        conn.commit_transaction()
        txn = conn.begin_transaction()
        conn.write((2, dt.datetime(2024, 1, 2, 10)))
        acid.sql(f"ABORT TRANSACTIONS {txn}")
        with pytest.raises(TxnAbortedError, match="aborted"):
            conn.commit_transaction()
        conn.begin_transaction()
        conn.write((3, dt.datetime(2024, 1, 3, 10)))
        conn.commit_transaction()
    acid.sql("UPDATE s SET ts = TIMESTAMP '2000-01-01 00:00:00' WHERE id = 3")
    acid.sql("INSERT INTO s VALUES (4, TIMESTAMP '1999-01-01 12:34:56.789')")
    acid.sql("DELETE FROM s WHERE id = 1")
    rows = assert_both_ways_equal(spark, acid, "SELECT row__id, * FROM s")
    assert sorted(r.id for r in rows) == [3, 4]


def test_scan_after_many_small_statements_opens_only_the_large_files(spark, acid):
    """After 12 one-row UPDATEs (24 tiny files), Spark's ORC reader opens only the two large files of the
    first insert and reads only their rows; the same number of jobs or fewer than with every file in Spark."""
    acid.sql(f"CREATE TABLE m (id int, v string) {ACID}")
    acid.sql("INSERT INTO m SELECT id, concat('v', id) FROM range(0, 30000)")
    large = acid.sql("SELECT * FROM m").inputFiles()
    for k in range(12):
        acid.sql(f"UPDATE m SET v = 'x' WHERE id = {k * 997}")
    query = "SELECT count(*), count(DISTINCT v) FROM m"
    assert sorted(acid.sql("SELECT * FROM m").inputFiles()) == sorted(large)
    result, work = measure(spark, lambda: acid.sql(query).collect())
    with spark_reads_every_file(spark):
        assert len(acid.sql("SELECT * FROM m").inputFiles()) == len(large) + 24
        plain_result, plain_work = measure(spark, lambda: acid.sql(query).collect())
    assert result == plain_result and result[0][0] == 30000
    assert work.rows_read == 30000  # the large files' rows; the 24 tiny files were read on the driver
    assert plain_work.rows_read == 30000 + 12 + 12
    assert work.jobs <= plain_work.jobs
