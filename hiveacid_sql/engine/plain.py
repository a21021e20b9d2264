"""Plain (non-transactional) tables: stored and read by Spark's own ORC, Parquet and text sources.

They exist because MERGE sources and staging tables are usually plain. Text tables use Hive's
LazySimpleSerDe defaults: fields separated by Ctrl-A and NULL written as ``\\N`` (no quoting, so values
holding Ctrl-A or newlines are not supported, and complex types cannot be stored as text).
"""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.exec.spark_types import spark_schema
from hiveacid_sql.txn import TableDef

_TEXT_OPTIONS = {"sep": "\u0001", "nullValue": "\\N", "quote": "\u0000", "escape": "\u0000", "emptyValue": ""}


def _format(table: TableDef) -> tuple[str, dict[str, str]]:
    fmt = table.storage_format.lower()
    if fmt == "textfile":
        return "csv", _TEXT_OPTIONS
    return fmt, {}


def read_plain(spark: SparkSession, table: TableDef) -> DataFrame:
    """The rows of a plain table (an empty frame if its directory holds no data yet)."""
    schema = spark_schema([(c.name, parse_hive_type(c.type)) for c in table.columns])
    fmt, options = _format(table)
    reader = spark.read.format(fmt).schema(schema).options(**options)
    try:
        return reader.load(table.location)
    except Exception:  # noqa: BLE001 - an empty or missing directory reads as an empty table
        return spark.createDataFrame([], schema)


def write_plain(df: DataFrame, table: TableDef, *, overwrite: bool) -> None:
    """Append (or overwrite) the rows of ``df`` to a plain table's directory."""
    fmt, options = _format(table)
    df.write.format(fmt).options(**options).mode("overwrite" if overwrite else "append").save(table.location)
