"""The results made without Spark (:class:`~hiveacid_sql.exec.frames.LocalFrame`) read as Spark's DataFrame of the
same rows would, and a connection's Spark starts at the first statement that needs it, once (issue 18).
``tests/unit/test_lazy_spark.py`` checks that ``connect()`` itself starts no JVM for those statements."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from pyspark.sql import functions as F

from hiveacid_sql.engine.session import Session
from hiveacid_sql.exec.frames import LocalFrame
from hiveacid_sql.exec.session import SparkHandle
from hiveacid_sql.txn import TxnStore


def _printed(show, *args) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        show(*args)
    return out.getvalue()


def test_local_frames_read_as_spark_reads_the_same_rows(acid) -> None:
    acid.sql("CREATE TABLE t (id int, note string) STORED AS ORC TBLPROPERTIES ('transactional'='true', "
             "'comment.long'='a value longer than twenty characters, with a\ttab')")
    acid.sql("ALTER TABLE t COMPACT 'major'")
    acid.sql("BEGIN")
    # NULLs and bigints, a tab and long values, more than 20 rows
    frames = [acid.sql(text) for text in ("SHOW COMPACTIONS", "DESCRIBE FORMATTED t", "SET")]
    props = acid.sql("SHOW TBLPROPERTIES t")
    acid.sql("ROLLBACK")
    for frame in frames:
        assert isinstance(frame, LocalFrame)
        spark_frame = frame.to_spark()
        assert frame.schema == spark_frame.schema and frame.columns == spark_frame.columns
        assert frame.collect() == spark_frame.collect()
        assert frame.toPandas().equals(spark_frame.toPandas())
        for n, truncate in ((20, True), (3, False), (2, 5)):  # Spark's table, NULLs, escapes, truncation
            assert _printed(frame.show, n, truncate) == _printed(spark_frame.show, n, truncate)
    # what a LocalFrame does not answer itself, the Spark DataFrame does
    assert props.filter(F.col("prpt_name") == "transactional").collect()[0].prpt_value == "true"


def test_spark_starts_at_the_first_statement_that_needs_it(spark, warehouse: Path) -> None:
    starts = []

    def start():
        starts.append(1)
        return spark

    store = TxnStore(f"sqlite:///{warehouse.parent / 'lazy.db'}", default_db_location=str(warehouse))
    session = Session(SparkHandle(start=start), str(warehouse), store)
    try:
        for text in ("SET hive.txn.timeout=300", "SHOW DATABASES", "SHOW TRANSACTIONS", "SHOW COMPACTIONS",
                     "BEGIN", "COMMIT"):
            session.sql(text)
        assert starts == [] and session.running_spark() is None
        assert str(session.sql("BEGIN")).startswith("BEGIN: OK")
        session.sql("ROLLBACK")
        assert session.sql("SELECT 1 AS one").collect()[0].one == 1  # a query needs Spark: it starts now
        assert session.sql("SELECT 2 AS two").collect()[0].two == 2
        assert starts == [1] and session.running_spark() is spark
    finally:
        session.close()  # does not own the shared session: it keeps running
    assert spark.range(1).count() == 1


def test_connect_takes_a_running_spark_when_needed_and_leaves_it_running(spark, tmp_path: Path) -> None:
    import hiveacid_sql

    acid = hiveacid_sql.connect(warehouse=tmp_path / "wh")  # no spark=: its own would start lazily
    assert [r[0] for r in acid.sql("SHOW DATABASES").collect()] == ["default"]
    assert acid.running_spark() is None
    assert acid.sql("SELECT 1 AS one").collect()[0].one == 1  # takes the SparkContext already running here
    assert acid.running_spark() is not None and acid.running_spark().sparkContext is spark.sparkContext
    acid.close()  # it did not start that SparkContext: it does not stop it
    assert spark.range(2).count() == 2
