"""The structure of a statement's Spark work, read from Spark's status store (:mod:`hiveacid_sql.exec.metrics`).

Timings are never asserted; these bounds are what a statement's plan looks like today, so a change that
adds jobs, or reads more rows than the snapshot holds, fails here.
"""

from __future__ import annotations

from hiveacid_sql.exec.metrics import SparkWork, measure


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
    assert work.rows_read == 500  # the snapshot's rows, read once (no stripe pruning yet)
    _, scan = measure(spark, lambda: acid.sql("SELECT count(*) FROM t").collect())
    # 500 rows of the first delta, the new version of row 7 and its delete event: each event file read once.
    assert scan.rows_read == 502
