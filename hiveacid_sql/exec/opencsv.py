"""Tables of Hive's ``OpenCSVSerde`` (``ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'``) read
and written by Spark: each line parsed or written in a Python task by :mod:`hiveacid_sql.acid.opencsv` (opencsv's
own rules, which Spark's CSV source does not follow), every field a string that becomes the column's type as
Hive casts a string (a value that does not parse is NULL).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.acid.opencsv import CsvFormat
from hiveacid_sql.exec.text_lines import read_split_lines


def read_csv_table(
    spark: SparkSession, location: str | list[str], columns: Sequence[tuple[str, HiveType]], fmt: CsvFormat
) -> DataFrame:
    """The rows of an OpenCSVSerde table's files (an empty frame when its directory holds none)."""
    from hiveacid_sql.acid.opencsv import parse_line

    return read_split_lines(spark, location, columns, functools.partial(parse_line, fmt=fmt))


def encode_csv(df: DataFrame, columns: Sequence[tuple[str, HiveType]], fmt: CsvFormat, *, keep: Sequence[str] = ()) -> DataFrame:
    """``df``'s rows (the table's columns) as OpenCSVSerde lines (one ``value`` column), the columns
    ``keep`` as they are."""

    def write(*arrays: pa.Array) -> pa.Array:
        from hiveacid_sql.acid.opencsv import format_row

        rows = zip(*[a.to_pylist() for a in arrays], strict=True)
        return pa.array([format_row(r, fmt) for r in rows], pa.string())

    texts = [F.col(name).cast("string") for name, _ in columns]
    line = F.arrow_udf(write, "string")(*texts)  # type: ignore[call-overload]  # variadic UDF
    return df.select(line.alias("value"), *[F.col(k) for k in keep])


def write_csv_table(
    df: DataFrame, location: str, columns: Sequence[tuple[str, HiveType]], *, overwrite: bool, fmt: CsvFormat,
    partition_by: str | None = None,
) -> None:
    """Append (or overwrite) ``df``'s rows as OpenCSVSerde text files in ``location`` (in Spark's
    ``partitionBy`` sub-directories of ``partition_by``'s values when it is set)."""
    keep = [partition_by] if partition_by is not None else []
    writer = encode_csv(df, columns, fmt, keep=keep).write.mode("overwrite" if overwrite else "append")
    if partition_by is not None:
        writer = writer.partitionBy(partition_by)
    writer.text(location)
