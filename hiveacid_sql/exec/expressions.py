"""PySpark values as SQL text, for the DataFrame API (``acid.table(..).update(set={"c": F.col("c") + 1})``).

Why: the table handle and the MERGE builder build SQL statements and run them through the same parser and
planner as ``acid.sql`` (one implementation). A PySpark ``Column`` is an unresolved expression whose own
text is not SQL (``*(salary, 2)``); resolved against frames with the columns it may name (the target table,
the MERGE source), Spark prints it as SQL (``(salary * 2)``, ``(t.id = s.id)``). Column objects need the JVM
(classic PySpark, not Spark Connect).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from pyspark.errors import PySparkException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import types as T

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.errors import PlanError
from hiveacid_sql.exec.binder import clean_spark_text, first_line
from hiveacid_sql.exec.spark_types import spark_schema
from hiveacid_sql.txn import TableDef

#: PySpark's loggers that print an error (with its whole Java stack) the moment it is raised, before the
#: caller could handle it; errors we turn into one-line HiveAcidErrors must not also be printed there.
SPARK_ERROR_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")


@contextmanager
def quiet_spark_errors() -> Iterator[None]:
    """Within the block, PySpark does not log the errors it raises (we report them, in one line).

    The loggers are PySpark's own (:class:`PySparkLogger`): a plain ``logging.getLogger(name)`` made first
    would be the one PySpark gets later, and Spark Connect's client logs with arguments only its class takes.
    """
    from pyspark.logger import PySparkLogger

    loggers = [PySparkLogger.getLogger(name) for name in SPARK_ERROR_LOGGERS]
    before = [lg.disabled for lg in loggers]
    for lg in loggers:
        lg.disabled = True
    try:
        yield
    finally:
        for lg, was in zip(loggers, before, strict=True):
            lg.disabled = was


_CALL_SITES_LOCK = threading.Lock()
_call_sites_off = 0  # how many threads are inside without_call_sites()
_call_sites_before: object = None  # PySpark's cached setting when the first of them entered


@contextmanager
def without_call_sites() -> Iterator[None]:
    """Within the block, PySpark does not record the Python call site of each Column function.

    Why: with ``spark.python.sql.dataFrameDebugging.enabled`` (on by default), every ``F.col``, ``F.lit``,
    ``.cast`` ... first asks the JVM for the active session and that setting, sets the call site on the
    JVM's ``PySparkCurrentOrigin`` and clears it after: about ten py4j round trips per Column. A one-row
    UPDATE builds about a hundred Columns (the scan's casts, the event structs), so 1,370 py4j calls in
    all, 760 of them for call sites that would point into this package, never at the caller's code (and
    our errors keep only their first line, which holds no call site). PySpark caches the setting in a
    module global (``is_debugging_enabled``); it is set off while any ``acid.sql`` runs and restored when
    the last one ends, so DataFrames the caller builds keep their call sites. A thread of the caller's
    building Columns while a statement runs gets none for those.
    """
    global _call_sites_off, _call_sites_before
    import pyspark.errors.utils as pyspark_errors

    if not hasattr(pyspark_errors, "_enable_debugging_cache"):  # a PySpark without the setting's cache
        yield
        return
    with _CALL_SITES_LOCK:
        if _call_sites_off == 0:
            _call_sites_before = pyspark_errors._enable_debugging_cache  # noqa: SLF001 - PySpark's own cache
            pyspark_errors._enable_debugging_cache = False  # type: ignore[assignment]  # noqa: SLF001
        _call_sites_off += 1
    try:
        yield
    finally:
        with _CALL_SITES_LOCK:
            _call_sites_off -= 1
            if _call_sites_off == 0:
                pyspark_errors._enable_debugging_cache = _call_sites_before  # type: ignore[assignment]  # noqa: SLF001


def is_column(value: object) -> bool:
    """Whether a value is a PySpark Column (the engine names Spark types in annotations only)."""
    return isinstance(value, Column)


def is_dataframe(value: object) -> bool:
    return isinstance(value, DataFrame)


def table_frame(spark: SparkSession, table: TableDef, alias: str | None = None) -> DataFrame:
    """An empty DataFrame with the table's columns (partition columns last), to resolve Columns against."""
    columns = [(c.name, parse_hive_type(c.type)) for c in table.all_columns]
    frame = spark.createDataFrame([], spark_schema(columns))
    return frame.alias(alias) if alias else frame


def column_sql(column: Column, frames: Sequence[DataFrame]) -> str:
    """SQL text of ``column`` resolved against ``frames`` (aliased as the statement names them).

    An unknown or ambiguous column is a one-line :class:`PlanError` (Spark's words).
    """
    if not hasattr(frames[0], "_jdf"):
        raise PlanError(
            "PySpark Columns in conditions and values need classic PySpark, not Spark Connect: "
            "write them as SQL text (where=\"id = 2\", set={\"salary\": \"salary * 2\"})"
        )
    joined = frames[0]
    for frame in frames[1:]:
        joined = joined.crossJoin(frame)
    with quiet_spark_errors():
        try:
            # The analysed projection is the resolved expression; there is no public API for its SQL text.
            jdf = joined.select(column)._jdf  # noqa: SLF001
            expression = jdf.queryExecution().analyzed().expressions().apply(0)
        except PySparkException as exc:
            raise PlanError(clean_spark_text(first_line(exc))) from exc
    if expression.getClass().getSimpleName() == "Alias":
        expression = expression.child()
    return str(expression.sql())


def hive_type_name(data_type: T.DataType) -> str:
    """The Hive type of a Spark type, for CREATE TABLE from a DataFrame's schema."""
    if isinstance(data_type, T.TimestampNTZType | T.TimestampType):
        return "timestamp"
    if isinstance(data_type, T.ArrayType):
        return f"array<{hive_type_name(data_type.elementType)}>"
    if isinstance(data_type, T.MapType):
        return f"map<{hive_type_name(data_type.keyType)},{hive_type_name(data_type.valueType)}>"
    if isinstance(data_type, T.StructType):
        return "struct<" + ",".join(f"{f.name}:{hive_type_name(f.dataType)}" for f in data_type.fields) + ">"
    if isinstance(data_type, T.CharType | T.VarcharType | T.DecimalType):
        return data_type.simpleString()
    if isinstance(data_type, T.StringType):
        return "string"
    name = data_type.simpleString()
    if name in {"tinyint", "smallint", "int", "bigint", "float", "double", "boolean", "date", "binary"}:
        return name
    raise PlanError(f"no Hive type for Spark type {name}")


def schema_columns(schema: Any) -> list[tuple[str, str]]:
    """(name, Hive type) of a Spark StructType's fields."""
    if not isinstance(schema, T.StructType):
        raise PlanError(f"schema must be a StructType or a DDL string, not {type(schema).__name__}")
    return [(f.name, hive_type_name(f.dataType)) for f in schema.fields]


def frame_columns(frame: DataFrame) -> list[str]:
    return list(frame.columns)


def frame_schema(frame: DataFrame) -> T.StructType:
    return frame.schema
