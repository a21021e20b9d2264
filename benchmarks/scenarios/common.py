"""The three ways of changing the same table that the scenarios compare.

* :class:`AcidTable`: ours, ``acid.sql(...)`` on the table in ``work/acid``.
* :class:`DeltaTable`: delta-rs on the same rows in ``work/delta``.
* :func:`spark_rewrite`: plain Spark, what a user without a table format does: read the ORC files,
  apply the change as a DataFrame transformation, write every row to a new directory.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession

from benchmarks import contents
from benchmarks.data import TABLE, DataSet
from benchmarks.scenarios.base import OURS, Contender


class AcidTable:
    """A connection to the benchmark warehouse, reopened around every restore.

    Restoring replaces the SQLite store file, which an open connection would keep reading through its
    old file handle; so ``reopen`` closes the connection, restores, and opens a new one on the same
    (warm) SparkSession, and touches the store once so no timed run pays for opening it.
    """

    def __init__(self, spark: SparkSession, data: DataSet) -> None:
        self.spark = spark
        self.data = data
        self.session = None

    def reopen(self, restore: Callable[[], None] | None = None) -> None:
        import hiveacid_sql

        self.close()
        if restore is not None:
            restore()
        self.session = hiveacid_sql.connect(spark=self.spark, warehouse=self.data.acid_warehouse)
        self.session.catalog.get_table("default", TABLE)

    def sql(self, text: str):
        if self.session is None:
            self.reopen()
        return self.session.sql(text)

    def contents(self, *, exact: bool) -> dict:
        return contents.of_spark(self.sql(f"SELECT * FROM {TABLE}"), exact=exact)

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None


class DeltaTable:
    """The delta-rs table of the same rows (runs in this Python process: its memory is the driver's)."""

    def __init__(self, data: DataSet) -> None:
        self.path = str(data.delta_table)

    def table(self):
        from deltalake import DeltaTable as _Delta

        return _Delta(self.path)

    def update(self, predicate: str, updates: dict[str, str]) -> dict:
        return self.table().update(updates=updates, predicate=predicate)

    def delete(self, predicate: str) -> dict:
        return self.table().delete(predicate)

    def append(self, rows: pa.Table) -> None:
        from deltalake import write_deltalake

        write_deltalake(self.path, rows, mode="append")

    def contents(self, *, exact: bool) -> dict:
        return contents.of_arrow_batches(self.table().to_pyarrow_dataset().to_batches(), exact=exact)


def spark_rewrite(spark: SparkSession, source: Path, target: Path, change: Callable[[DataFrame], DataFrame]) -> None:
    """Read the plain ORC table, apply ``change``, write the whole result as a new ORC directory."""
    change(spark.read.orc(str(source))).write.mode("overwrite").orc(str(target))


def clear(path: Path) -> None:
    """Remove a peer's previous output (untimed, before each run)."""
    if path.exists():
        shutil.rmtree(path)


def ours(acid: AcidTable, data: DataSet, state: str, run: Callable[[], object], *, exact: bool) -> Contender:
    """Our contender: every run starts from table state ``state``, restored under a fresh connection."""
    return Contender(
        OURS,
        run=run,
        prepare=lambda: acid.reopen(lambda: data.restore(state, "acid")),
        contents=lambda: acid.contents(exact=exact),
    )


def delta_rs(delta: DeltaTable, data: DataSet, state: str, run: Callable[[], object], *, exact: bool) -> Contender:
    """The delta-rs contender: every run starts from the delta table of ``state``."""
    return Contender(
        "delta-rs",
        run=run,
        prepare=lambda: data.restore(state, "delta"),
        contents=lambda: delta.contents(exact=exact),
    )


def plain_rewrite(spark: SparkSession, data: DataSet, run: Callable[[], object], *, exact: bool) -> Contender:
    """The plain-Spark contender: ``run`` writes the whole changed table to ``data.plain_out``."""
    return Contender(
        "spark-rewrite",
        run=run,
        prepare=lambda: clear(data.plain_out),
        contents=lambda: contents.of_spark(spark.read.orc(str(data.plain_out)), exact=exact),
    )
