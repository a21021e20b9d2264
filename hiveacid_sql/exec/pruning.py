"""Apply a plan's partition filter and bucket values: which partition directories and bucket files to read.

The partition filter is evaluated by Spark on a small local frame of the catalog's partition values, typed
as the table declares them, so it means exactly what it means in the query (casts, NULLs, functions). The
frame is an inline table (``VALUES`` with the names and values as parameters): Spark's optimizer folds a
deterministic filter over it on the driver without launching a job. (A frame made by ``createDataFrame`` from
Python rows is an RDD: every partition-filtered statement paid a Spark job for it, twice when it also
locked its partitions.) Past :data:`LOCAL_PARTITIONS_MAX` partitions the text would be long to parse, so
those go through ``createDataFrame`` and its job.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from sqlglot import exp

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.exec.spark_types import to_spark_type
from hiveacid_sql.txn import PartitionDef, TableDef

_NAME = "__partition_name"
#: Up to this many partitions the filter runs over an inline table (no Spark job); more go through an RDD.
LOCAL_PARTITIONS_MAX = 2000
_INTEGRAL = frozenset({"tinyint", "smallint", "int", "bigint"})
_STRINGS = frozenset({"string", "varchar"})


def prune_partitions(
    spark: SparkSession, table: TableDef, partitions: Sequence[PartitionDef], predicate: exp.Expr | None
) -> list[str]:
    """Names of the partitions whose values satisfy ``predicate`` (all of them when it is None)."""
    if predicate is None or not partitions:
        return [p.name for p in partitions]
    keys = table.partition_keys
    rows = [(p.name, *p.values) for p in partitions]
    if len(rows) <= LOCAL_PARTITIONS_MAX:
        frame = _inline_table(spark, rows, [_NAME, *[k.name for k in keys]])
    else:
        schema = ", ".join([f"`{_NAME}` string", *[f"`{k.name}` string" for k in keys]])
        frame = spark.createDataFrame(rows, schema)
    frame = frame.select(F.col(_NAME), *[F.col(k.name).cast(to_spark_type(k.type)).alias(k.name) for k in keys])
    kept = frame.where(predicate.sql(dialect="spark")).select(_NAME).collect()
    return sorted(r[0] for r in kept)


def _inline_table(spark: SparkSession, rows: Sequence[Sequence[str | None]], names: Sequence[str]) -> DataFrame:
    """``rows`` (strings or None) as a Spark local relation of string columns ``names``: an inline table whose
    values are query parameters, so no value is ever spliced into SQL text."""
    args: dict[str, object] = {}
    tuples = []
    for i, row in enumerate(rows):
        params = []
        for j, value in enumerate(row):
            args[f"v{i}_{j}"] = value
            params.append(f"CAST(:v{i}_{j} AS STRING)")
        tuples.append("(" + ", ".join(params) + ")")
    columns = ", ".join("`" + n.replace("`", "``") + "`" for n in names)
    return spark.sql(f"SELECT * FROM VALUES {', '.join(tuples)} AS __partitions({columns})", args=args)


def pruned_buckets(table: TableDef, values: Sequence[Sequence[object]] | None) -> frozenset[int] | None:
    """Bucket ids holding rows with these bucketing-column values (None: every bucket)."""
    if values is None or not table.is_bucketed:
        return None
    types_by_name = {c.name: parse_hive_type(c.type) for c in table.columns}
    types = [types_by_name[c] for c in table.bucket_cols]
    for row in values:
        for value, htype in zip(row, types, strict=True):
            # Only a literal of the column's own kind hashes like the stored value; anything else (a
            # string compared with an int column) is left to Spark's comparison: no pruning.
            if htype.name in _INTEGRAL and not isinstance(value, int):
                return None
            if htype.name in _STRINGS and not isinstance(value, str):
                return None
            if htype.name not in _INTEGRAL | _STRINGS:
                return None
    from hiveacid_sql.acid.bucketing import bucket_number

    try:
        return frozenset(bucket_number(list(v), types, table.num_buckets, table.bucketing_version) for v in values)
    except Exception:  # noqa: BLE001 - a literal the hash cannot take (e.g. a string for an int column)
        return None
