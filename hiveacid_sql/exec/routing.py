"""Where a new row goes: its partition directory and its bucket, as Spark columns computed in Python tasks.

Both follow Hive to the byte, which Spark's own functions cannot: the partition directory uses Hive's
rendering of typed values (``HiveDecimal.toString``, Java's ``Double.toString``, ...) and Hive's path
escaping; the bucket uses Hive's hash (Murmur3 with Hive's quirks for ``bucketing_version`` 2, Java
``hashCode`` style for 1). The functions run as vectorized Arrow UDFs over only the columns they need.
Partition values repeat, so each task keeps a small cache of the names it already built.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa
from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F
from sqlglot import exp

from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.plan.model import Plan
from hiveacid_sql.txn import TableDef


def partition_dir_column(columns: Sequence[tuple[str, HiveType]], values: Sequence[Column]) -> Column:
    """Hive's partition directory (``p=v/q=w``, escaped) of each row's partition column values."""
    keys = [name for name, _ in columns]
    types = [t for _, t in columns]
    cache: dict[tuple, str] = {}  # lives as long as the worker's copy of the function: across batches

    def partition_dirs(*arrays: pa.Array) -> pa.Array:
        from hiveacid_sql.acid.partitions import make_partition_name, partition_value_string

        out = []
        for row in zip(*[a.to_pylist() for a in arrays], strict=True):
            name = cache.get(row)
            if name is None:
                rendered = [partition_value_string(v, t) for v, t in zip(row, types, strict=True)]
                name = cache[row] = make_partition_name(keys, rendered)
            out.append(name)
        return pa.array(out, pa.string())

    return F.arrow_udf(partition_dirs, "string")(*values)  # type: ignore[call-overload]  # variadic UDF


def bucket_id_column(
    columns: Sequence[tuple[str, HiveType]], values: Sequence[Column], num_buckets: int, version: int
) -> Column:
    """Hive's bucket number ``(hash & 0x7fffffff) % num_buckets`` of each row's bucketing column values."""
    types = [t for _, t in columns]

    def bucket_ids(*arrays: pa.Array) -> pa.Array:
        from hiveacid_sql.acid.bucketing import bucket_numbers

        numbers = bucket_numbers(list(arrays), types, num_buckets, version)
        return pa.array(numbers, pa.int32())

    return F.arrow_udf(bucket_ids, "int")(*values)  # type: ignore[call-overload]  # variadic UDF


def static_partition_name(
    spark: SparkSession, columns: Sequence[tuple[str, HiveType]], values: Sequence[Column]
) -> str:
    """The partition directory of one row of constant partition values (``PARTITION (p='v')``), cast by Spark
    to the columns' types as an INSERT would, then named by Hive's rules on the driver."""
    from hiveacid_sql.acid.partitions import make_partition_name, partition_value_string
    from hiveacid_sql.exec.spark_types import to_spark_type

    row = spark.range(1).select(
        *[v.cast(to_spark_type(t)).alias(f"v{i}") for i, (v, (_n, t)) in enumerate(zip(values, columns, strict=True))]
    ).first()
    assert row is not None  # spark.range(1) has one row
    rendered = [partition_value_string(row[i], t) for i, (_n, t) in enumerate(columns)]
    return make_partition_name([n for n, _ in columns], rendered)


def partition_dir_of(spark: SparkSession, table: TableDef, values: Mapping[str, exp.Expr]) -> str:
    """The directory a full static spec names (``PARTITION (p='v', ..)``, every partition column): its
    constants cast to the column types as an INSERT casts them. INSERT, ADD PARTITION, SHOW LOCKS, EXPLAIN
    and dry runs all name a spec's directory here."""
    keys = [(k.name, parse_hive_type(k.type)) for k in table.partition_keys]
    return static_partition_name(spark, keys, [F.expr(values[k].sql(dialect="spark")) for k, _ in keys])


def new_part_dir(table: TableDef, static: str | None = None) -> Column:
    """The partition directory of a new row, from its partition column values ('' if un-partitioned);
    ``static``: the directory every row goes to (all partition values constant), no per-row work."""
    if not table.is_partitioned:
        return F.lit("")
    if static is not None:
        return F.lit(static)
    keys = [(k.name, parse_hive_type(k.type)) for k in table.partition_keys]
    return partition_dir_column(keys, [F.col(k) for k, _ in keys])


def new_bucket_id(table: TableDef) -> Column | None:
    """The bucket of a new row from its bucketing column values; None for an un-bucketed table."""
    if not table.is_bucketed:
        return None
    types = {c.name: parse_hive_type(c.type) for c in table.columns}
    cols = [(c, types[c]) for c in table.bucket_cols]
    return bucket_id_column(cols, [F.col(c) for c, _ in cols], table.num_buckets, table.bucketing_version)


def static_part_dir(spark: SparkSession, plan: Plan) -> str:
    """The one directory a statement whose spec gives every partition column a value writes
    (``plan.writes_one_partition``; the executor, EXPLAIN and dry runs name the same)."""
    assert plan.target is not None and plan.writes_one_partition
    return partition_dir_of(spark, plan.target, dict(plan.static_partitions))
