"""Tables of Hive's ``OpenCSVSerde`` (``ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'``) read
and written by Spark: each line parsed or written in a Python task by :mod:`hiveacid_sql.acid.opencsv` (opencsv's
own rules, which Spark's CSV source does not follow), every field a string that becomes the column's type as
Hive casts a string (a value that does not parse is NULL).
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.acid.opencsv import CsvFormat
from hiveacid_sql.exec.spark_types import spark_schema, to_spark_type

_STRINGS = frozenset({"string", "varchar", "char"})


def _fields(fmt: CsvFormat) -> Column:
    def parse(lines: pa.Array) -> pa.Array:
        from hiveacid_sql.acid.opencsv import parse_line

        return pa.array([None if s is None else parse_line(s, fmt) for s in lines.to_pylist()], pa.list_(pa.string()))

    return F.arrow_udf(parse, "array<string>")(F.col("value"))  # type: ignore[call-overload]


def read_csv_table(
    spark: SparkSession, location: str | list[str], columns: Sequence[tuple[str, HiveType]], fmt: CsvFormat
) -> DataFrame:
    """The rows of an OpenCSVSerde table's files (an empty frame when its directory holds none)."""
    try:
        lines = spark.read.text(location)
    except Exception:  # noqa: BLE001 - an empty or missing directory reads as an empty table
        return spark.createDataFrame([], spark_schema(list(columns)))
    fields = lines.select(_fields(fmt).alias("f"))
    out = []
    for i, (name, htype) in enumerate(columns):
        raw = F.get(F.col("f"), i)  # NULL past the last field
        value = raw if htype.name in _STRINGS else raw.try_cast(to_spark_type(htype))
        out.append(value.cast(to_spark_type(htype)).alias(name))
    return fields.select(*out)


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
