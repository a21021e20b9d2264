"""The SparkSession hiveacid-sql starts when the caller brings none, and Hive's value semantics for writes.

Why these settings: Hive timestamps are wall-clock values, and Spark's ORC reader turns an ORC
``timestamp`` into an instant using the JVM's default zone, so the JVM and the session both run in
UTC; the UI and verbose logs are off because this is a library session, not a cluster console.

Hive's casts never fail: a value that does not fit its column wraps (integers, ``(int) 3000000000L``) or
becomes NULL (decimals too wide, unparseable dates and numbers), and ``x / 0`` is NULL. That is Spark's
non-ANSI mode, so the session this module starts is non-ANSI, and every DML statement is analysed with
ANSI mode off whatever the caller's session says (:func:`hive_value_semantics`): the same INSERT stores
the same values as in Hive.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from pyspark.sql import SparkSession

DEFAULT_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.extraJavaOptions": "-Duser.timezone=UTC",
    "spark.executor.extraJavaOptions": "-Duser.timezone=UTC",
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.orc.filterPushdown": "true",
    "spark.sql.ansi.enabled": "false",  # Hive's value semantics (see the module docstring)
}

_ANSI = "spark.sql.ansi.enabled"


@contextmanager
def hive_value_semantics(spark: SparkSession, *, strict: bool = False) -> Iterator[None]:
    """Analyse (and run) what is built inside the block with Spark's ANSI mode off, as Hive evaluates.

    Spark fixes a cast's behaviour when the expression is analysed, so a plan built here keeps Hive's
    semantics even if it runs later; the caller's setting is restored on exit. ``strict``
    (``hiveacid.strict.casts``): ANSI mode on instead (``x / 0`` fails), and the casts to column types the
    executors write are strict ones (:func:`hiveacid_sql.plan.types.strict_casts`).
    """
    from hiveacid_sql.exec.hive_casts import register_hive_casts
    from hiveacid_sql.plan.types import strict_casts

    register_hive_casts(spark)  # the functions Hive's string -> timestamp / date casts call
    previous = spark.conf.get(_ANSI, None)
    spark.conf.set(_ANSI, "true" if strict else "false")
    try:
        with strict_casts(strict):
            yield
    finally:
        if previous is None:
            spark.conf.unset(_ANSI)
        else:
            spark.conf.set(_ANSI, previous)


def local_session(conf: Mapping[str, str] | None = None, *, master: str = "local[*]") -> SparkSession:
    """Start (or reuse) a quiet local SparkSession in UTC with ``conf`` on top of our defaults."""
    # Python workers must be this interpreter: they import pyarrow, pyorc and this package.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.master(master).appName("hiveacid-sql")
    defaults = {**DEFAULT_CONF, "spark.pyspark.python": os.environ["PYSPARK_PYTHON"]}
    for key, value in {**defaults, **dict(conf or {})}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def active_session() -> SparkSession | None:
    """The SparkSession already running in this process (a notebook kernel's), if any."""
    return SparkSession.getActiveSession()


def quiet_pyspark_error_logs(*, verbose: bool) -> None:
    """PySpark logs every SQL error with its JVM stack trace as JSON on stderr; the runner already reports
    the error on one line, so those logs only show with ``--verbose``."""
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).disabled = not verbose
