"""Column conversions between what Spark's ORC reader/writer handles and Hive's table types.

One home for the two directions of the wall-clock rule (a Hive ``timestamp`` is a wall-clock value,
Spark's ORC reader yields a UTC instant and its writer stores instants as ORC ``timestamp``) and for
the physical-to-table conversion both the ACID scan and plain ORC tables use.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.exec.spark_types import to_spark_type

_EPOCH_NTZ = "1970-01-01 00:00:00"


def wall_clock(col: Column) -> Column:
    """ORC timestamp (read as a UTC instant) to the wall-clock TIMESTAMP_NTZ Hive meant, whatever the session zone."""
    epoch = F.lit(_EPOCH_NTZ).cast("timestamp_ntz")
    return F.timestamp_add("MICROSECOND", F.unix_micros(col), epoch)


def _needs_conversion(t: HiveType) -> bool:
    """Whether a cast is not enough: a timestamp (wall clock) or a char (re-padding) hides in the type."""
    if t.name in ("timestamp", "char"):
        return True
    return any(_needs_conversion(c[1] if isinstance(c, tuple) else c) for c in t.children)


def to_table_type(col: Column, physical: HiveType, table: HiveType) -> Column:
    """Cast a physical column to the table's type (schema evolution by position, Hive semantics).

    Timestamps, also inside arrays, maps and structs, become their wall-clock value; char(n) values,
    which Spark's ORC reader returns right-trimmed, are padded back to n as Hive returns them.
    """
    if table.name == "timestamp" and physical.name == "timestamp":
        return wall_clock(col)
    if table.name == "char":
        n = table.params[0]
        return F.rpad(col.cast("string"), n, " ")
    if _needs_conversion(table) and physical.name == table.name:
        if table.name == "array":
            return F.transform(col, lambda x: to_table_type(x, physical.children[0], table.children[0]))
        if table.name == "map":
            pk, pv = physical.children
            tk, tv = table.children
            converted = F.transform_keys(col, lambda k, _v: to_table_type(k, pk, tk))
            return F.transform_values(converted, lambda _k, v: to_table_type(v, pv, tv))
        if table.name == "struct" and len(physical.children) == len(table.children):
            fields = [
                to_table_type(col.getField(pn), pt, tt).alias(tn)
                for (pn, pt), (tn, tt) in zip(physical.children, table.children, strict=True)
            ]
            return F.when(col.isNull(), F.lit(None)).otherwise(F.struct(*fields)).cast(to_spark_type(table))
    return col.cast(to_spark_type(table))


def to_instant(col: Column) -> Column:
    """A wall-clock TIMESTAMP_NTZ as the UTC instant Spark writes as an ORC ``timestamp`` (inverse of :func:`wall_clock`)."""
    epoch = F.lit(_EPOCH_NTZ).cast("timestamp_ntz")
    return F.timestamp_micros(F.timestamp_diff("MICROSECOND", epoch, col))
