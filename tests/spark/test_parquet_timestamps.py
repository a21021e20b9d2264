"""Parquet timestamps as Hive writes them: INT96.

Hive 3.1's ParquetHiveSerDe writes and reads timestamps only as INT96; Spark's default INT64
``TIMESTAMP_MICROS`` (and its TIMESTAMP_NTZ) fails there. So every Parquet file of a Hive table we write (plain,
partitioned, insert-only) stores its timestamps as INT96, the wall clock as its UTC instant, checked here in
the files' footers with pyarrow, not through our own reader. Files written before (Spark's INT64
TIMESTAMP_NTZ) still read, also beside INT96 files in one table. Hive's own serde reading them:
``tests/system/test_hive_client.py``.
"""

from __future__ import annotations

import datetime as dt
import shutil

import pyarrow.parquet as pq
import pytest

import hiveacid_sql

ROWS = [
    (1, dt.datetime(2024, 1, 2, 3, 4, 5), [dt.datetime(1999, 12, 31, 23, 59, 59, 500000)]),
    (2, None, None),
    (3, dt.datetime(1, 1, 1), [dt.datetime(9999, 12, 31, 23, 59, 59, 999999), None]),
]
VALUES = (
    "(1, TIMESTAMP '2024-01-02 03:04:05', array(TIMESTAMP '1999-12-31 23:59:59.5')), (2, NULL, NULL), "
    "(3, TIMESTAMP '0001-01-01 00:00:00', array(TIMESTAMP '9999-12-31 23:59:59.999999', NULL))"
)


def _data_files(path) -> list:
    return sorted(f for f in path.rglob("*") if f.is_file() and not f.name.startswith((".", "_")))


def _timestamp_types(path) -> set[str]:
    """The physical types of every timestamp leaf column in the Parquet files under ``path`` (from the footers)."""
    kinds = set()
    for f in _data_files(path):
        schema = pq.ParquetFile(f).metadata.schema
        for i in range(len(schema)):
            column = schema.column(i)
            if column.path.split(".")[0] in ("at", "ats"):
                kinds.add(column.physical_type)
    return kinds


def _rows(acid, sql: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(sql).collect()]


@pytest.mark.parametrize(
    "create",
    [
        "CREATE TABLE t (id int, at timestamp, ats array<timestamp>) STORED AS PARQUET",
        "CREATE TABLE t (id int, at timestamp, ats array<timestamp>) PARTITIONED BY (p int) STORED AS PARQUET",
        "CREATE TABLE t (id int, at timestamp, ats array<timestamp>) STORED AS PARQUET "
        "TBLPROPERTIES ('transactional'='true', 'transactional_properties'='insert_only')",
    ],
    ids=["plain", "partitioned", "insert_only"],
)
def test_parquet_timestamps_are_int96_wall_clock(acid, warehouse, spark, create):
    acid.sql(create)
    partitioned = "PARTITIONED" in create
    before = spark.conf.get("spark.sql.parquet.outputTimestampType")
    acid.sql(f"INSERT INTO t {'PARTITION (p=1) ' if partitioned else ''}VALUES {VALUES}")
    assert spark.conf.get("spark.sql.parquet.outputTimestampType") == before  # per statement, put back
    files = _data_files(warehouse / "t")
    assert files
    assert _timestamp_types(warehouse / "t") == {"INT96"}
    # the files hold the wall clock (as its UTC instant): what pyarrow reads from them, no reader of ours
    stored = sorted(
        (r["id"], r["at"], r["ats"])
        for f in files
        for r in pq.read_table(f, coerce_int96_timestamp_unit="us").to_pylist()
    )
    assert stored == ROWS
    assert sorted(_rows(acid, "SELECT id, at, ats FROM t"), key=lambda r: r[0]) == ROWS
    table = hiveacid_sql.read_table("t", warehouse=warehouse)
    assert sorted((r["id"], r["at"], r["ats"]) for r in table.to_pylist()) == ROWS


def test_older_int64_parquet_files_still_read_beside_int96_ones(acid, warehouse, spark, tmp_path):
    """Files our earlier releases wrote (Spark's INT64 TIMESTAMP_NTZ) and new INT96 ones, in one table."""
    acid.sql("CREATE TABLE t (id int, at timestamp, ats array<timestamp>) STORED AS PARQUET")
    acid.sql(f"INSERT INTO t VALUES {VALUES}")
    old = spark.createDataFrame(
        [(4, dt.datetime(2020, 5, 6, 7, 8, 9), [dt.datetime(2021, 1, 1)])],
        "id int, at timestamp_ntz, ats array<timestamp_ntz>",
    )
    old.coalesce(1).write.parquet(str(tmp_path / "old"))
    (source,) = _data_files(tmp_path / "old")
    shutil.copy(source, warehouse / "t" / "old-0000.parquet")
    assert _timestamp_types(warehouse / "t") == {"INT96", "INT64"}
    expected = [*ROWS, (4, dt.datetime(2020, 5, 6, 7, 8, 9), [dt.datetime(2021, 1, 1)])]
    assert sorted(_rows(acid, "SELECT id, at, ats FROM t"), key=lambda r: r[0]) == expected
