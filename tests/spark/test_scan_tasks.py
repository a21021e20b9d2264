"""How a snapshot's files fall into Spark's tasks (:func:`hiveacid_sql.exec.scan.by_size`)."""

from __future__ import annotations

from pyspark.sql import functions as F

from hiveacid_sql.exec import scan
from tests.spark.test_small_files import spark_reads_every_file

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def test_large_files_beside_many_small_deltas_are_read_by_tasks_of_their_own(spark, acid, warehouse, monkeypatch):
    """Two large writer files and ten small deltas of one schema: Spark, given them in one scan, padded each
    small file to its open cost (4 MiB) and put both large files in one task. Read apart, each large file is
    a task's, so no task reads more than about half the rows; the rows are the same either way."""
    monkeypatch.setattr(scan, "LARGE_FILE_BYTES", 8 * 1024)  # this test's writer files: ~40 KB each
    acid.sql("SET hiveacid.write.max.writers=2")
    acid.sql("SET hiveacid.write.bytes.per.writer=1")
    acid.sql(f"CREATE TABLE t (id int, v string) {ACID}")
    acid.sql("INSERT INTO t SELECT CAST(id AS int), sha2(CAST(id AS string), 256) FROM range(0, 40000, 1, 1)")
    delta = warehouse / "t" / "delta_0000001_0000001_0000"
    sizes = [(delta / f"bucket_0000{w}").stat().st_size for w in (0, 1)]
    assert min(sizes) >= scan.LARGE_FILE_BYTES
    for i in range(10):
        acid.sql(f"INSERT INTO t VALUES ({100000 + i}, 'small')")
    with spark_reads_every_file(spark):  # the small deltas in Spark's scan too (not read on the driver)
        df = acid.sql("SELECT id FROM t")
        per_task = [r[1] for r in df.groupBy(F.spark_partition_id()).count().collect()]
        assert sum(per_task) == 40010
        assert max(per_task) <= 20010, per_task  # before: one task read 40,004 rows
        monkeypatch.setattr(scan, "LARGE_FILE_BYTES", 1 << 40)  # one scan of every file: the same rows
        together = acid.sql("SELECT id FROM t")
        assert sorted(together.collect()) == sorted(df.collect())
        assert max(r[1] for r in together.groupBy(F.spark_partition_id()).count().collect()) > 20010
