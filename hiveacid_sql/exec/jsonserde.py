"""Tables of Hive's ``JsonSerDe`` (``ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.JsonSerDe'`` or hcatalog's):
one JSON object per line, read and written by Spark.

Lines are split into each column's text in a Python task by :mod:`hiveacid_sql.acid.jsonrow` (keys without
regard to case, as Hive's reader; Spark's JSON source matches them exactly and takes no number as a string);
a primitive column's text is cast as Hive casts a string, a complex column's JSON is parsed by Spark's
``from_json`` for the column's type. Rows are written by Spark's ``to_json`` with every column (``null``
included), dates and timestamps as Hive's text (``2024-01-02 03:04:05``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.exec.text_lines import read_split_lines

_TEMPORAL = frozenset({"date", "timestamp"})


def read_json_table(
    spark: SparkSession, location: str | list[str], columns: Sequence[tuple[str, HiveType]],
    serde: Mapping[str, str] | None = None,
) -> DataFrame:
    """The rows of a JsonSerDe table's files (an empty frame when its directory holds none); ``serde``: its
    SERDE_PARAMS (``timestamp.formats`` read as Hive 3.1 reads it)."""
    from hiveacid_sql.acid.jsonrow import json_fields
    from hiveacid_sql.acid.timestamp_formats import PROPERTY

    split = functools.partial(
        json_fields, names=[n for n, _ in columns], complex_columns=[not t.is_primitive for _, t in columns],
        timestamp_columns=[t.name == "timestamp" for _, t in columns], timestamp_formats=(serde or {}).get(PROPERTY),
    )
    return read_split_lines(spark, location, columns, split)


def write_json_table(
    df: DataFrame, location: str, columns: Sequence[tuple[str, HiveType]], *, overwrite: bool,
    partition_by: str | None = None,
) -> None:
    """Append (or overwrite) ``df``'s rows as JSON lines in ``location`` (in Spark's ``partitionBy``
    sub-directories of ``partition_by``'s values when it is set)."""
    values = [
        (F.col(name).cast("string") if htype.name in _TEMPORAL else F.col(name)).alias(name) for name, htype in columns
    ]
    options = {"ignoreNullFields": "false", "timestampNTZFormat": "yyyy-MM-dd HH:mm:ss.SSSSSS", "dateFormat": "yyyy-MM-dd"}
    keep = [F.col(partition_by)] if partition_by is not None else []
    lines = df.select(F.to_json(F.struct(*values), options).alias("value"), *keep)
    writer = lines.write.mode("overwrite" if overwrite else "append")
    if partition_by is not None:
        writer = writer.partitionBy(partition_by)
    writer.text(location)
