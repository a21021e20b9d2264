"""Hive types as Spark types, in one table and its few exceptions.

Two views of the same Hive type are needed: the *table* view users query (a Hive ``timestamp`` is a
wall-clock value, so Spark ``TIMESTAMP_NTZ``) and the *physical* view Spark's ORC reader accepts for
the bytes on disk (an ORC ``timestamp`` can only be read as Spark ``TIMESTAMP``; with ``dates_as_text``
ORC dates and timestamps are asked for as ``string``, the exact path of :mod:`hiveacid_sql.exec.columns`).
``varchar``/``char`` become ``string`` because Spark has no length-checked string type outside its own
catalog; lengths are enforced by the ORC writer.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import types as T

from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.txn import TableDef

_PRIMITIVES: dict[str, T.DataType] = {
    "tinyint": T.ByteType(),
    "smallint": T.ShortType(),
    "int": T.IntegerType(),
    "bigint": T.LongType(),
    "float": T.FloatType(),
    "double": T.DoubleType(),
    "string": T.StringType(),
    "varchar": T.StringType(),
    "char": T.StringType(),
    "boolean": T.BooleanType(),
    "date": T.DateType(),
    "binary": T.BinaryType(),
}


def to_spark_type(hive_type: HiveType | str, *, physical: bool = False, dates_as_text: bool = False) -> T.DataType:
    """Spark type for a Hive type; ``physical=True`` gives the type Spark's ORC reader must be asked for,
    ``dates_as_text`` (physical only) asks for dates and timestamps as their text."""
    t = parse_hive_type(hive_type) if isinstance(hive_type, str) else hive_type
    if physical and dates_as_text and t.name in ("date", "timestamp"):
        return T.StringType()
    if t.name in _PRIMITIVES:
        return _PRIMITIVES[t.name]
    if t.name == "timestamp":
        return T.TimestampType() if physical else T.TimestampNTZType()
    if t.name == "decimal":
        precision, scale = t.params
        return T.DecimalType(precision, scale)

    def child(c: HiveType) -> T.DataType:
        return to_spark_type(c, physical=physical, dates_as_text=dates_as_text)

    if t.name == "array":
        return T.ArrayType(child(t.children[0]), True)
    if t.name == "map":
        return T.MapType(child(t.children[0]), child(t.children[1]), True)
    if t.name == "struct":
        return T.StructType([T.StructField(name, child(c), True) for name, c in t.fields])
    raise TypeError(f"no Spark type for Hive type {t.to_string()}")


def spark_schema(
    columns: list[tuple[str, HiveType]], *, physical: bool = False, dates_as_text: bool = False
) -> T.StructType:
    """A Spark struct of the given (name, Hive type) columns."""
    return T.StructType(
        [T.StructField(n, to_spark_type(t, physical=physical, dates_as_text=dates_as_text), True) for n, t in columns]
    )


def data_types(table: TableDef) -> list[T.DataType]:
    """Spark types of a table's data columns (the event frame's data columns)."""
    return [to_spark_type(c.type) for c in table.columns]


_NESTED = (T.StructType, T.ArrayType, T.MapType, T.UserDefinedType)


def cast_to(col: Column, data_type: T.DataType) -> Column:
    """``col.cast(data_type)`` in one py4j call: PySpark sends a DataType object to the JVM as JSON to be
    parsed first (the active session looked up, then ``parseDataType``: five round trips a cast), a type's
    SQL name it passes as it is. Atomic types go by name (Spark parses it to the same type); nested ones,
    whose field names a name would have to quote, as objects."""
    if isinstance(data_type, _NESTED):
        return col.cast(data_type)
    return col.cast(data_type.simpleString())
