"""``spark.read.format("hiveacid")`` / ``df.write.format("hiveacid")`` (PySpark's Python Data Source API)
against the SQL path: the rows read are ``acid.sql("SELECT ...")``'s (versions too), a write is the
``INSERT [OVERWRITE] .. SELECT`` of the same rows (rows, directories, history), refusals change nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.errors import PySparkException

import hiveacid_sql
from tests.support.acid_files import listing

TABLE = (
    "CREATE TABLE emp (id int, name string, ts timestamp, amount decimal(10,2)) PARTITIONED BY (dept string) "
    "CLUSTERED BY (id) INTO 2 BUCKETS STORED AS ORC TBLPROPERTIES ('transactional'='true')"
)


def _sorted(rows) -> list[tuple]:
    return sorted((tuple(r) for r in rows), key=repr)


def test_read_is_the_select_snapshot_split_by_directory_and_bucket(acid, spark, warehouse: Path):
    acid.sql(TABLE)
    acid.sql(
        "INSERT INTO emp VALUES (1, 'Jerry', TIMESTAMP '2024-01-01 10:00:00', 1.50, 'a'), (2, 'Tom', NULL, 2, 'a'),"
        " (3, 'Kate', NULL, NULL, 'b')"
    )
    acid.sql("UPDATE emp SET amount = 9.99 WHERE id = 2")
    acid.sql("DELETE FROM emp WHERE id = 3")
    df = spark.read.format("hiveacid").load("emp")
    assert df.schema == acid.sql("SELECT * FROM emp").schema
    assert _sorted(df.collect()) == _sorted(acid.sql("SELECT * FROM emp").collect())
    assert len(_sorted(df.collect())) == 2
    # one Spark partition per directory and bucket: dept=a holds buckets 0 and 1, dept=b bucket 1 (id 3)
    assert df.rdd.getNumPartitions() == 3
    # the snapshot is fixed when the DataFrame is made, as a SELECT's
    acid.sql("INSERT INTO emp VALUES (4, 'Mary', NULL, 4, 'b')")
    assert df.count() == 2
    assert spark.read.format("hiveacid").load("default.emp").count() == 3
    old = spark.read.format("hiveacid").option("version", 1).load("emp")
    assert _sorted(old.collect()) == _sorted(acid.sql("SELECT * FROM emp VERSION AS OF 1").collect())
    assert old.count() == 3
    # another warehouse by option (the last connect() on a session gives the defaults)
    assert spark.read.format("hiveacid").option("warehouse", str(warehouse)).load("emp").count() == 3


def test_read_of_an_unknown_table_fails_naming_it_in_one_line(acid, spark, capfd):
    """Our error comes as its one line inside Spark's framing: no traceback of the Python worker, nothing
    on stderr."""
    capfd.readouterr()
    with pytest.raises(PySparkException) as caught:
        spark.read.format("hiveacid").load("nosuch").collect()
    assert str(caught.value) == (
        "[PYTHON_DATA_SOURCE_ERROR] Failed to create Python data source instance: Table not found: default.nosuch "
        "SQLSTATE: 38000"
    )
    with pytest.raises(PySparkException) as caught:
        spark.read.format("hiveacid").option("version", "x").load("nosuch")
    assert str(caught.value).splitlines() == [
        "[PYTHON_DATA_SOURCE_ERROR] Failed to create Python data source instance: version needs a write id "
        "(a non-negative integer), not 'x' SQLSTATE: 38000"
    ]
    assert capfd.readouterr().err == ""


def _pair(spark, tmp_path: Path):
    api = hiveacid_sql.connect(spark=spark, warehouse=tmp_path / "api")
    sql = hiveacid_sql.connect(spark=spark, warehouse=tmp_path / "sql")
    for acid in (api, sql):
        acid.sql(
            "CREATE TABLE t (id int, name string) PARTITIONED BY (p int) STORED AS ORC "
            "TBLPROPERTIES ('transactional'='true')"
        )
        acid.sql("INSERT INTO t VALUES (1, 'old', 1), (2, 'old', 2)")
    return api, sql


def _dirs(table_dir: Path) -> list[str]:
    return sorted({str(Path(f).parent) for f in listing(table_dir)})


def test_write_append_and_overwrite_are_the_insert_statements(spark, tmp_path: Path):
    api, sql = _pair(spark, tmp_path)
    try:
        df = spark.createDataFrame([(3, "x", 1), (4, "y", 3)], "id bigint, name string, p int").repartition(2)
        df.write.format("hiveacid").option("warehouse", str(tmp_path / "api")).mode("append").save("t")
        sql.sql("INSERT INTO t SELECT * FROM {df}", df=df)
        assert _sorted(api.sql("SELECT * FROM t").collect()) == _sorted(sql.sql("SELECT * FROM t").collect())
        assert _dirs(tmp_path / "api" / "t") == _dirs(
            tmp_path / "sql" / "t"
        )  # delta_0000002_0000002_0000 in p=1, p=3
        history = api.sql("DESCRIBE HISTORY t").collect()[0]
        assert (history.write_id, history.operation, history.num_inserted_rows) == (2, "INSERT", 2)
        assert api.sql("SHOW PARTITIONS t").collect() == sql.sql("SHOW PARTITIONS t").collect()

        new = spark.createDataFrame([(5, "z", 1)], "id int, name string, p int")
        new.write.format("hiveacid").option("warehouse", str(tmp_path / "api")).mode("overwrite").save("t")
        sql.sql("INSERT OVERWRITE TABLE t PARTITION (p) SELECT * FROM {df}", df=new)
        rows = _sorted(api.sql("SELECT * FROM t").collect())
        assert rows == _sorted(sql.sql("SELECT * FROM t").collect())
        assert rows == [(2, "old", 2), (4, "y", 3), (5, "z", 1)]  # p=1 replaced, the others kept
        assert _dirs(tmp_path / "api" / "t") == _dirs(tmp_path / "sql" / "t")  # base_0000003 in p=1
        assert api.sql("SHOW TRANSACTIONS").count() == 0  # committed
    finally:
        api.close()
        sql.close()


def test_write_refusals_and_task_failures_change_nothing(acid, spark, warehouse: Path):
    acid.sql(TABLE)
    acid.sql("CREATE TABLE t (id int, name string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    before = listing(warehouse / "t")
    good = spark.createDataFrame([(2, "b")], "id int, name string")
    with pytest.raises(PySparkException, match="bucketed tables are written by acid.write"):
        spark.createDataFrame(
            [(2, "b", None, None, "a")],
            "id int, name string, ts timestamp_ntz, amount decimal(10,2), dept string",
        ).write.format("hiveacid").mode("append").save("emp")
    with pytest.raises(
        PySparkException, match=r"the DataFrame's columns must be the table's \(id, name\): missing name"
    ) as caught:
        good.select("id").write.format("hiveacid").mode("append").save("t")
    assert len(str(caught.value).splitlines()) == 1 and "Traceback" not in str(caught.value)
    assert acid.sql("SHOW TRANSACTIONS").count() == 0  # refused before a transaction was opened
    too_big = spark.createDataFrame([(2**40, "b")], "id bigint, name string")
    with pytest.raises(PySparkException, match="cannot write int64 values as int32"):
        too_big.write.format("hiveacid").mode("append").save("t")
    assert listing(warehouse / "t") == before  # the failed task's files are gone
    assert [r["Transaction State"] for r in acid.sql("SHOW TRANSACTIONS").collect()] == ["ABORTED"]
    good.write.format("hiveacid").mode("append").save("t")
    assert _sorted(acid.sql("SELECT * FROM t").collect()) == [(1, "a"), (2, "b")]
