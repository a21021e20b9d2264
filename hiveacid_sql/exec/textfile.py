"""Plain TEXTFILE tables in Hive's LazySimpleSerDe layout, read and written line by line.

Hive's defaults (``LazySerDeParameters``; Hive's docs, "Row Formats & SerDe"): one row per line, fields
separated by Ctrl-A (``\\001``), ``NULL`` written as ``\\N`` (``serialization.null.format``), an empty
string written as nothing. A string column keeps ``''`` and ``NULL`` apart; a field of another type that
does not parse (an empty one included) reads as ``NULL``, a missing trailing field as ``NULL``, extra
fields are ignored. Binary values are base64 (``LazyUtils.writePrimitiveUTF8``; ``LazyBinary`` decodes
base64 and keeps bytes that are not). No escaping (``escape.delim`` is unset by default), so a value holding
the separator or a line break does not survive, in Hive as here.

Spark's CSV source cannot keep ``''`` and ``NULL`` apart on read (an empty field is always NULL), so
lines are split here. :class:`TextFormat` holds the layout; other delimiters, escaping and complex types
(Hive's collection and map-key delimiters) extend it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.errors import CatalogError
from hiveacid_sql.exec.spark_types import spark_schema, to_spark_type

_STRINGS = frozenset({"string", "varchar", "char"})


@dataclass(frozen=True)
class TextFormat:
    """A LazySimpleSerDe layout: field separator and the text of NULL (Hive's defaults)."""

    field_delim: str = "\u0001"
    null_format: str = "\\N"


HIVE_DEFAULT = TextFormat()


def _pattern(delim: str) -> str:
    """A Java regex matching ``delim`` literally (``split`` takes a regex)."""
    return "".join(c if c.isalnum() else f"\\x{{{ord(c):x}}}" for c in delim)


def decode(lines: DataFrame, columns: Sequence[tuple[str, HiveType]], fmt: TextFormat = HIVE_DEFAULT) -> DataFrame:
    """Lines (one ``value`` string column) to the table's columns, by Hive's rules (module docstring)."""
    fields = F.split(F.col("value"), _pattern(fmt.field_delim), -1)
    out = []
    for i, (name, htype) in enumerate(columns):
        raw = F.get(fields, i)  # NULL past the last field
        value = F.when(raw == F.lit(fmt.null_format), F.lit(None)).otherwise(raw)
        out.append(_parse(value, htype).alias(name))
    return lines.select(*out)


def _parse(text: Column, htype: HiveType) -> Column:
    if htype.name in _STRINGS:
        return text
    if htype.name == "binary":
        return F.coalesce(F.try_to_binary(text, F.lit("base64")), text.cast("binary"))
    if not htype.is_primitive:
        raise CatalogError(f"a TEXTFILE table cannot hold {htype.to_string()} columns yet")
    return text.try_cast(to_spark_type(htype))  # empty or unparseable -> NULL, never an error


def encode(
    df: DataFrame, columns: Sequence[tuple[str, HiveType]], fmt: TextFormat = HIVE_DEFAULT, *, keep: Sequence[str] = ()
) -> DataFrame:
    """The rows of ``df`` (the table's columns) as lines (one ``value`` string column), with the columns
    ``keep`` as they are (a partitioned write's partition directory)."""
    fields = []
    for name, htype in columns:
        if not htype.is_primitive:
            raise CatalogError(f"a TEXTFILE table cannot hold {htype.to_string()} columns yet")
        col = F.col(name)
        text = F.base64(col) if htype.name == "binary" else col.cast("string")
        fields.append(F.coalesce(text, F.lit(fmt.null_format)))
    return df.select(F.concat_ws(fmt.field_delim, *fields).alias("value"), *[F.col(k) for k in keep])


def read_text_table(
    spark: SparkSession, location: str, columns: Sequence[tuple[str, HiveType]], fmt: TextFormat = HIVE_DEFAULT
) -> DataFrame:
    """A text table's rows (an empty frame when its directory holds no data yet)."""
    try:
        lines = spark.read.text(location)
    except Exception:  # noqa: BLE001 - an empty or missing directory reads as an empty table
        return spark.createDataFrame([], spark_schema(list(columns)))
    return decode(lines, columns, fmt)


def write_text_table(
    df: DataFrame, location: str, columns: Sequence[tuple[str, HiveType]], *, overwrite: bool,
    fmt: TextFormat = HIVE_DEFAULT, partition_by: str | None = None,
) -> None:
    """Append (or overwrite) ``df``'s rows as text files in ``location`` (in Spark's ``partitionBy``
    sub-directories of ``partition_by``'s values when it is set)."""
    keep = [partition_by] if partition_by is not None else []
    writer = encode(df, columns, fmt, keep=keep).write.mode("overwrite" if overwrite else "append")
    if partition_by is not None:
        writer = writer.partitionBy(partition_by)
    writer.text(location)
