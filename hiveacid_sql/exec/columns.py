"""Column conversions between what Spark's ORC reader/writer handles and Hive's table types.

One home for the two directions of the wall-clock rule (a Hive ``timestamp`` is a wall-clock value,
Spark's ORC reader yields a UTC instant and its writer stores instants as ORC ``timestamp``), for the
calendar of dates and timestamps, and for the physical-to-table conversion both the ACID scan and plain
ORC tables use.

The calendar. Hive 3.1 stores dates and timestamps counted in the proleptic Gregorian calendar (its
``Date``/``Timestamp`` are ``java.time`` values) and ORC 1.5, its ORC, converts nothing; so do our writers
(ORC C++). Spark's ORC reader instead hands every value to ``RebaseDateTime.rebaseJulianToGregorian*``
(``OrcAtomicColumnVector.getInt``/``getLong``: it assumes the hybrid Julian/Gregorian days Spark and
Hive 2 wrote), which moves everything before 1582-10-15 by days (0001-01-01 reads 0001-01-03), and a
value that is read, changed and written back moves again. Spark has no setting to turn that off for
ORC (the ``datetimeRebaseMode`` settings are Parquet's and Avro's). So a file whose statistics reach
before 1583 (:attr:`~hiveacid_sql.acid.orc_footer.OrcFooter.pre_gregorian`) is read on the exact path:
its dates and timestamps are asked for as *text*, which ORC Java itself prints
(``ConvertTreeReaderFactory.StringGroupFromDateTreeReader``/``...FromTimestampTreeReader``) in the
calendar it is told, proleptic here (``orc.proleptic.gregorian``), from the calendar the file declares,
proleptic when it declares none (``orc.proleptic.gregorian.default``) as Hive 3.1 and Trino assume. Hive
2 era files (hybrid days, no calendar field) therefore read as Hive 3.1 reads them, and files of Hive 4 or
Spark (``JULIAN_GREGORIAN`` declared) are converted as their writer meant. The text (``uuuu-MM-dd
HH:mm:ss.fffffffff``, written in the zone it is read in, so independent of the JVM's) is then cast to
the table's type. Files that hold only later values skip the text (three times the CPU per value):
there every calendar agrees and Spark's reader is exact.
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from hiveacid_sql.acid.arrow_values import UNSTORABLE_MICROS
from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.exec.spark_types import cast_to, to_spark_type

_EPOCH_NTZ = "1970-01-01 00:00:00"

#: ORC reader settings of the exact path (see the module docstring).
EXACT_CALENDAR_READ = {"orc.proleptic.gregorian": "true", "orc.proleptic.gregorian.default": "true"}
#: ORC writer setting for the files Spark writes (plain ORC tables): proleptic days, declared as such,
#: which is what Hive 3.1 reads (Spark's default is hybrid days).
PROLEPTIC_WRITE = {"orc.proleptic.gregorian": "true"}


def read_orc(
    spark: SparkSession,
    physical: T.StructType,
    paths: list[str],
    *,
    dates_as_text: bool,
    options: dict[str, str] | None = None,
) -> DataFrame:
    """Spark's ORC reader over ``paths`` with the physical schema; ``dates_as_text``: the exact path
    (``physical`` must then ask for dates and timestamps as strings, ``spark_schema(..., dates_as_text=True)``);
    ``options``: more ORC reader settings (they reach the tasks' Hadoop configuration)."""
    settings = {**(EXACT_CALENDAR_READ if dates_as_text else {}), **(options or {})}
    reader = spark.read.options(**settings) if settings else spark.read
    return reader.schema(physical).orc(paths)


def wall_clock(col: Column) -> Column:
    """ORC timestamp (read as a UTC instant) to the wall-clock TIMESTAMP_NTZ Hive meant, whatever the session zone."""
    epoch = F.lit(_EPOCH_NTZ).cast("timestamp_ntz")
    return F.timestamp_add("MICROSECOND", F.unix_micros(col), epoch)


def _needs_conversion(t: HiveType, dates_as_text: bool) -> bool:
    """Whether a cast is not enough: a timestamp (wall clock) or a char (re-padding) hides in the type, or a
    date read as text."""
    if t.name in ("timestamp", "char") or (dates_as_text and t.name == "date"):
        return True
    return any(_needs_conversion(c[1] if isinstance(c, tuple) else c, dates_as_text) for c in t.children)


def to_table_type(col: Column, physical: HiveType, table: HiveType, *, dates_as_text: bool = False) -> Column:
    """Cast a physical column to the table's type (schema evolution by position, Hive semantics).

    Timestamps, also inside arrays, maps and structs, become their wall-clock value; char(n) values,
    which Spark's ORC reader returns right-trimmed, are padded back to n as Hive returns them. With
    ``dates_as_text`` (the exact path) dates and timestamps arrive as ORC's text and are parsed here.
    """
    if dates_as_text and physical.name in ("date", "timestamp"):
        return cast_to(col, to_spark_type(table))  # ORC's exact text: yyyy-MM-dd[ HH:mm:ss[.f]]
    if table.name == "timestamp" and physical.name == "timestamp":
        return wall_clock(col)
    if table.name == "char":
        n = table.params[0]
        return F.rpad(col.cast("string"), n, " ")
    if _needs_conversion(table, dates_as_text) and physical.name == table.name:

        def inner(c: Column, p: HiveType, t: HiveType) -> Column:
            return to_table_type(c, p, t, dates_as_text=dates_as_text)

        if table.name == "array":
            return F.transform(col, lambda x: inner(x, physical.children[0], table.children[0]))
        if table.name == "map":
            pk, pv = physical.children
            tk, tv = table.children
            converted = F.transform_keys(col, lambda k, _v: inner(k, pk, tk))
            return F.transform_values(converted, lambda _k, v: inner(v, pv, tv))
        if table.name == "struct" and len(physical.children) == len(table.children):
            fields = [
                inner(col.getField(pn), pt, tt).alias(tn)
                for (pn, pt), (tn, tt) in zip(physical.children, table.children, strict=True)
            ]
            return F.when(col.isNull(), F.lit(None)).otherwise(F.struct(*fields)).cast(to_spark_type(table))
    return cast_to(col, to_spark_type(table))


def to_instant(col: Column) -> Column:
    """A wall-clock TIMESTAMP_NTZ as the UTC instant Spark writes as an ORC ``timestamp`` (inverse of :func:`wall_clock`)."""
    epoch = F.lit(_EPOCH_NTZ).cast("timestamp_ntz")
    return F.timestamp_micros(F.timestamp_diff("MICROSECOND", epoch, col))


#: Dates Spark's ORC writer cannot store: it converts every date and timestamp to the hybrid calendar first
#: (``DaysWritable``, ``RebaseDateTime.rebaseGregorianToJulianDays``), which has no 1582-10-05 .. 1582-10-14,
#: and turns them into 1582-10-15 (``orc.proleptic.gregorian`` then converts the rest back exactly).
SPARK_ORC_GAP = ("1582-10-05", "1582-10-15")


def _unstorable(col: Column, data_type: T.DataType) -> Column | None:
    """True where ``col`` holds (at any depth) a value Spark's ORC writer would not store exactly; None if
    its type holds no date or timestamp."""
    if isinstance(data_type, T.TimestampNTZType | T.TimestampType | T.DateType):
        low, high = SPARK_ORC_GAP
        in_gap = (col >= F.lit(low).cast(data_type)) & (col < F.lit(high).cast(data_type))
        if isinstance(data_type, T.DateType):
            return in_gap
        first, last = UNSTORABLE_MICROS
        micros = F.unix_micros(col.cast("timestamp")) if isinstance(data_type, T.TimestampNTZType) else F.unix_micros(col)
        return in_gap | micros.between(first, last)
    if isinstance(data_type, T.ArrayType):
        if _unstorable(F.lit(None), data_type.elementType) is None:
            return None
        return F.exists(col, lambda x: _unstorable(x, data_type.elementType))  # type: ignore[arg-type,return-value]
    if isinstance(data_type, T.MapType):
        found = [
            F.exists(part, _unstorable_in(t))
            for part, t in ((F.map_keys(col), data_type.keyType), (F.map_values(col), data_type.valueType))
            if _unstorable(F.lit(None), t) is not None
        ]
        return _any(found)
    if isinstance(data_type, T.StructType):
        return _any([c for f in data_type.fields if (c := _unstorable(col.getField(f.name), f.dataType)) is not None])
    return None


def _unstorable_in(data_type: T.DataType) -> Callable[[Column], Column]:
    """A one-argument lambda for ``F.exists`` (PySpark reads a second parameter, even a defaulted one, as the
    element's index, so ``lambda x, t=t: ..`` got the index as ``t``: a map of dates failed to insert)."""

    def test(x: Column) -> Column:
        return _unstorable(x, data_type)  # type: ignore[return-value]  # only called for types that have one

    return test


def _any(conditions: list[Column]) -> Column | None:
    if not conditions:
        return None
    result = conditions[0]
    for c in conditions[1:]:
        result = result | c
    return result


def refuse_unstorable_values(df: DataFrame) -> DataFrame:
    """``df`` failing, when a row is computed, on a date or timestamp Spark's ORC writer (plain ORC tables)
    would not store exactly: a timestamp in 1969-12-31 23:59:59.001 .. 23:59:59.999999, which no ORC
    file can hold (:func:`hiveacid_sql.acid.arrow_values.refuse_unstorable_timestamps`, the same check in
    our event writers), or a day in 1582-10-05 .. 1582-10-14 (:data:`SPARK_ORC_GAP`)."""
    for field in df.schema.fields:
        bad = _unstorable(F.col(field.name), field.dataType)
        if bad is None:
            continue
        message = F.concat(
            F.lit(f"column {field.name}: a plain ORC table cannot store "),
            F.coalesce(F.col(field.name).cast("string"), F.lit("")),
            F.lit(
                " exactly (ORC readers, Hive's included, read a timestamp in 1969-12-31 23:59:59.001..23:59:59.999999 "
                "one second later; Spark's ORC writer turns 1582-10-05..14 into 1582-10-15); ACID and Parquet tables "
                "keep these dates"
            ),
        )
        guarded = F.when(F.coalesce(bad, F.lit(False)), F.raise_error(message)).otherwise(F.col(field.name))
        df = df.withColumn(field.name, guarded)
    return df
