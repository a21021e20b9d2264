"""Tables whose lines a Python parser splits (OpenCSVSerde, JsonSerDe): read by Spark as text, each line cut into
its columns' texts by the serde's own parser in a Python task, each text cast to its column's type.

Why one reader: the serdes differ only in how a line becomes its fields; the empty-directory rule, the field
lookup and Hive's cast of a string (a value that does not parse is NULL; a complex column's JSON parsed by
``from_json``) are the same for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.exec.spark_types import spark_schema, to_spark_type

_STRINGS = frozenset({"string", "varchar", "char"})

#: one line's text -> each column's text (None: NULL; fewer fields than columns: the rest NULL)
LineSplitter = Callable[[str], Sequence[str | None]]


def read_split_lines(
    spark: SparkSession, location: str | list[str], columns: Sequence[tuple[str, HiveType]], split: LineSplitter
) -> DataFrame:
    """The rows of a table's text files, each line split by ``split`` (pickled to the tasks: a module-level
    function or a ``functools.partial`` of one); an empty frame when the directory holds no file."""
    try:
        lines = spark.read.text(location)
    except Exception:  # noqa: BLE001 - an empty or missing directory reads as an empty table
        return spark.createDataFrame([], spark_schema(list(columns)))

    def parse(texts: pa.Array) -> pa.Array:
        return pa.array([None if s is None else list(split(s)) for s in texts.to_pylist()], pa.list_(pa.string()))

    fields = lines.select(F.arrow_udf(parse, "array<string>")(F.col("value")).alias("f"))  # type: ignore[call-overload]
    out = []
    for i, (name, htype) in enumerate(columns):
        raw = F.get(F.col("f"), i)  # NULL past the last field
        target = to_spark_type(htype)
        if not htype.is_primitive:
            value = F.from_json(raw, target)  # type: ignore[arg-type]
        elif htype.name in _STRINGS:
            value = raw
        else:
            value = raw.try_cast(target)
        out.append(value.cast(target).alias(name))
    return fields.select(*out)
