"""The SparkSession hiveacid-sql starts when the caller brings none.

Why these settings: Hive timestamps are wall-clock values, and Spark's ORC reader turns an ORC
``timestamp`` into an instant using the JVM's default zone, so the JVM and the session both run in
UTC; the UI and verbose logs are off because this is a library session, not a cluster console.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

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
}


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
