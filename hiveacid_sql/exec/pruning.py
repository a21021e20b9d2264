"""Apply a plan's partition filter and bucket values: which partition directories and bucket files to read.

The partition filter is evaluated by Spark on a small local frame of the catalog's partition values, typed
as the table declares them, so it means exactly what it means in the query (casts, NULLs, functions). A
local frame is folded by Spark's optimizer without running a job.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from sqlglot import exp

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.exec.spark_types import to_spark_type
from hiveacid_sql.txn import PartitionDef, TableDef

_NAME = "__partition_name"
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
    schema = ", ".join([f"`{_NAME}` string", *[f"`{k.name}` string" for k in keys]])
    frame = spark.createDataFrame(rows, schema).select(
        F.col(_NAME), *[F.col(k.name).cast(to_spark_type(k.type)).alias(k.name) for k in keys]
    )
    kept = frame.where(predicate.sql(dialect="spark")).select(_NAME).collect()
    return sorted(r[0] for r in kept)


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
