"""Hive 3.1's string -> timestamp / date casts as Spark SQL functions, for the casts the planner writes.

Why functions: Hive's parse is lenient where Spark's is strict (``'2014-09-01 09:44.23.23'`` is
``2014-09-01 00:00:00`` in Hive, NULL in Spark), and no Spark expression does what Hive's
``TimestampUtils.stringToTimestamp`` does. The parse itself is :mod:`hiveacid_sql.plan.hive_values` (pure
Python, unit-tested); here it runs on Arrow batches in the tasks, under the names
:data:`~hiveacid_sql.plan.types.STRING_TO_TIMESTAMP` / :data:`~hiveacid_sql.plan.types.STRING_TO_DATE` that
:func:`hiveacid_sql.plan.types.hive_cast` calls. String literals never get here: the planner folds them.
"""

from __future__ import annotations

import weakref

import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from hiveacid_sql.plan.types import STRING_TO_DATE, STRING_TO_TIMESTAMP


def _to_timestamp(texts: pa.Array) -> pa.Array:
    from hiveacid_sql.plan.hive_values import hive_timestamp

    return pa.array([hive_timestamp(t) for t in texts.to_pylist()], pa.timestamp("us"))


def _to_date(texts: pa.Array) -> pa.Array:
    from hiveacid_sql.plan.hive_values import hive_date

    return pa.array([hive_date(t) for t in texts.to_pylist()], pa.date32())


#: Sessions known to have the functions: every DML statement asks, and the catalog lookup behind
#: ``functionExists`` is a py4j round trip and tens of ms of JVM time under load (measured in a one-row UPDATE).
_REGISTERED: weakref.WeakSet[SparkSession] = weakref.WeakSet()


def register_hive_casts(spark: SparkSession) -> None:
    """Register the two functions in ``spark`` (once: a session that has them is left alone; a session this
    process saw with them is not asked again)."""
    if spark in _REGISTERED:
        return
    if not spark.catalog.functionExists(STRING_TO_TIMESTAMP):
        spark.udf.register(STRING_TO_TIMESTAMP, F.arrow_udf(_to_timestamp, "timestamp_ntz"))  # type: ignore[call-overload]
        spark.udf.register(STRING_TO_DATE, F.arrow_udf(_to_date, "date"))  # type: ignore[call-overload]
    _REGISTERED.add(spark)
