"""Spark's ORC reader (the scan's ``spark.read.orc``) reads the files of both ACID event writers alike."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

from hiveacid_sql.acid.hive_types import acid_event_schema, parse_hive_type
from tests.support.event_file_cases import (
    ALL_ARROW_ROW,
    ALL_COLUMNS,
    ARROW_INPUT_ROWS,
    B0,
    TS_COLUMNS,
    TS_ROW,
    WRITERS,
    insert_events,
    write_file,
)


def read_events(spark, path: Path, columns):
    """Read an event file as the scan does: all six columns, by an explicit physical schema, and a filter
    on all six so Spark never prunes them (ORC Java reads a file with the ACID schema as ACID only when
    the requested schema is the whole event schema)."""
    from pyspark.sql import functions as F

    from hiveacid_sql.exec.spark_types import spark_schema

    root = parse_hive_type(acid_event_schema(columns))
    df = spark.read.schema(spark_schema(list(root.fields), physical=True)).orc(str(path))
    key = [F.col(name).isNotNull() for name, _ in root.fields[:5]]
    return df.where(key[0] & key[1] & key[2] & key[3] & key[4] | F.col("row").isNotNull())


def test_spark_reads_both_writers_alike(spark, tmp_path: Path) -> None:
    """What the scan does (``spark.read.orc``, session in UTC), for every type and timestamp edge."""
    ts_values = [
        dt.datetime(1, 1, 1),
        dt.datetime(1900, 3, 4, 5, 6, 7),
        dt.datetime(1969, 12, 31, 23, 59, 59),
        dt.datetime(1970, 1, 1, 0, 0, 0, 1),
        dt.datetime(2024, 2, 29, 12, 30, 45, 123456),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
    ]
    results = {}
    for kind in WRITERS:
        all_path = tmp_path / kind / "all" / "bucket_00000"
        ts_path = tmp_path / kind / "ts" / "bucket_00000"
        for p in (all_path, ts_path):
            p.parent.mkdir(parents=True)
        write_file(kind, all_path, ALL_COLUMNS, [insert_events(4, B0, ARROW_INPUT_ROWS, ALL_ARROW_ROW)])
        write_file(kind, ts_path, TS_COLUMNS, [insert_events(1, B0, [{"t": v} for v in ts_values], TS_ROW)])
        wall = "timestampadd(MICROSECOND, unix_micros({c}), TIMESTAMP_NTZ'1970-01-01 00:00:00')"
        all_rows = (
            read_events(spark, all_path, ALL_COLUMNS)
            .selectExpr("rowId", "row.*", wall.format(c="row.c_timestamp") + " AS wall")
            .orderBy("rowId")
            .collect()
        )
        ts_rows = (
            read_events(spark, ts_path, TS_COLUMNS)
            .orderBy("rowId")
            .selectExpr(wall.format(c="row.t") + " AS t")
        )
        ts_rows = ts_rows.collect()
        results[kind] = ([r.asDict(recursive=True) for r in all_rows], [r.t for r in ts_rows])
    assert results["fast"] == results["pyorc"]
    all_rows, ts_rows = results["fast"]
    # Both writers store proleptic Gregorian values and say so in the footer (calendar PROLEPTIC_GREGORIAN),
    # so even Spark's own reader, which assumes hybrid days, gets year 1 right (unmarked, it read 0001-01-03).
    assert ts_rows == ts_values
    assert [r["wall"] for r in all_rows] == [
        dt.datetime(1900, 3, 4, 5, 6, 7),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
        None,
        dt.datetime(1970, 1, 1),
    ]
    # ORC Java right-trims char(n) when it reads it (the scan pads it again); the file holds "ab  "
    assert (all_rows[0]["c_char"], all_rows[0]["c_varchar"], all_rows[0]["c_decimal"]) == (
        "ab",
        "abc",
        Decimal("12345678.13"),
    )
    assert all_rows[1]["c_struct"]["z"]["d"] is None and all_rows[3]["c_bigdec"] == Decimal("7.000000")
