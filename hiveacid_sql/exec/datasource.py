"""``spark.read.format("hiveacid").load("db.t")``: Hive ACID tables through PySpark 4's Python Data Source API.

Why: code that never calls ``acid.sql`` (a job handed a SparkSession, a library reading "a table") must still
read ACID tables right. ``spark.read.orc(<table dir>)`` reads every event file, deleted and aborted rows
included, or fails on the event struct; this source reads the snapshot by the rules every other reader of the
package uses. It is :func:`hiveacid_sql.reader.plan_read` and :meth:`~hiveacid_sql.reader.ReadPlan.read`
(pyarrow, no JVM work): the snapshot, its read lease and its files are chosen once, when the DataFrame is made
(``load()``; :meth:`HiveAcidDataSource.schema` runs then and the instance, plan included, is pickled for the
planner), and every Spark action on that DataFrame reads the same snapshot. The read is split into one Spark
partition per ACID directory and bucket (:meth:`~hiveacid_sql.reader.ReadPlan.pieces`), read by the Python
workers as Arrow batches.

Options: ``version`` / ``timestamp`` (or Delta's ``versionAsOf`` / ``timestampAsOf``) for time travel,
``warehouse`` / ``store_url`` for the store (default: the ones of the :func:`hiveacid_sql.connect` that
registered the source, else ``./warehouse``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    InputPartition,
    WriterCommitMessage,
)

from hiveacid_sql.errors import HiveAcidError, PlanError
from hiveacid_sql.exec.spark_types import spark_schema
from hiveacid_sql.reader import ReadPlan, plan_read, store_url_for

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType

#: the format name: ``spark.read.format(FORMAT)``
FORMAT = "hiveacid"


class HiveAcidDataSource(DataSource):
    """A Hive ACID table of a hiveacid-sql (or Hive 3.1) store, by name: ``load("db.t")`` or ``load("t")``."""

    #: set by :func:`register_data_source` on the class it registers (the session's warehouse and store)
    default_warehouse: str | None = None
    default_store_url: str | None = None

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def _plan(self) -> ReadPlan:
        plan: ReadPlan | None = getattr(self, "_read_plan", None)
        if plan is None:
            plan = self._new_plan()
            self._read_plan = plan
        return plan

    def _new_plan(self) -> ReadPlan:
        options = {str(k).lower(): v for k, v in self.options.items()}
        table = options.get("path") or options.get("table")
        if not table:
            raise PlanError('spark.read.format("hiveacid") needs a table name: .load("db.t")')
        version = options.get("version", options.get("versionasof"))
        timestamp = options.get("timestamp", options.get("timestampasof"))
        if version is not None:
            try:
                version_id: int | None = int(version)
            except ValueError:
                raise PlanError(
                    f"version needs a write id (a non-negative integer), not {version!r}"
                ) from None
        else:
            version_id = None
        return plan_read(
            table,
            store_url=self._store_url(options),
            version=version_id,
            timestamp=timestamp,
        )

    def _store_url(self, options: dict[str, str]) -> str:
        """The ``store_url`` option, else the ``warehouse`` option's store, else the registering connection's."""
        if "store_url" in options or "warehouse" in options:
            return store_url_for(options.get("warehouse"), options.get("store_url"))
        return store_url_for(self.default_warehouse, self.default_store_url)

    def schema(self) -> StructType:
        """The table's columns, then its partition columns, as ``acid.sql("SELECT * ...")`` types them."""
        with one_line_errors():
            plan = self._plan()
            return spark_schema([*plan.columns, *plan.partition_columns])

    def reader(self, schema: StructType) -> DataSourceReader:
        with one_line_errors():
            return _Reader(self._plan(), schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceArrowWriter:
        """``df.write.format("hiveacid").mode("append" | "overwrite").save("db.t")``: one transaction (opened
        here, committed by :meth:`_Writer.commit` once every task wrote its files, aborted if one fails)."""
        from hiveacid_sql.exec.datasource_write import open_write

        options = {str(k).lower(): v for k, v in self.options.items()}
        table = options.get("path") or options.get("table")
        with one_line_errors():
            if not table:
                raise PlanError('df.write.format("hiveacid") needs a table name: .save("db.t")')
            return _Writer(
                open_write(self._store_url(options), table, [f.name for f in schema.fields], overwrite=overwrite)
            )


#: the modules of PySpark's Python worker processes (the planner's and the tasks'), which report an exception
#: through their module's ``handle_worker_exception`` and then exit (``worker_run`` / ``worker.main``)
_WORKER_MODULES = ("pyspark.sql.worker.utils", "pyspark.worker")


@contextmanager
def one_line_errors() -> Iterator[None]:
    """A :class:`HiveAcidError` raised in the block reaches the user as its one line.

    Why: Spark runs this source in Python worker processes and hands an error back as the worker's formatted
    traceback, so ``load("nosuch")`` raised ``[PYTHON_DATA_SOURCE_ERROR] ... Traceback (most recent call
    last): ...`` (a dozen lines of our frames) where ``acid.sql`` says ``Table not found: default.nosuch``.
    In a worker, the worker's report of this one exception becomes its message alone; Spark still frames it
    (``[PYTHON_DATA_SOURCE_ERROR] Failed to create Python data source instance: Table not found: default.nosuch
    SQLSTATE: 38000``). The worker exits after reporting, so nothing else is reported this way; outside a
    worker (a test calling the source directly) the error passes unchanged. Other exceptions keep their
    traceback: they are bugs, and the traceback is what finds them.
    """
    try:
        yield
    except HiveAcidError as exc:
        _report_alone(exc)
        raise


def _report_alone(error: HiveAcidError) -> None:
    modules = [sys.modules[name] for name in _WORKER_MODULES if name in sys.modules]
    if not modules:
        return
    from pyspark.serializers import SpecialLengths, write_int, write_with_length

    text = " ".join(str(error).split())

    def report(exc: BaseException, outfile: Any, hide_traceback: bool | None = None) -> None:
        if not _caused_by(exc, error):  # another exception after all: PySpark's own report
            original(exc, outfile, hide_traceback)
            return
        write_int(SpecialLengths.PYTHON_EXCEPTION_THROWN, outfile)
        write_with_length(text.encode("utf-8"), outfile)

    from pyspark.util import handle_worker_exception as original

    for module in modules:
        if getattr(module, "handle_worker_exception", None) is original:
            module.handle_worker_exception = report  # type: ignore[attr-defined]


def _caused_by(exc: BaseException | None, error: BaseException) -> bool:
    """Whether ``exc`` is ``error`` or PySpark's wrapping of it."""
    seen = 0
    while exc is not None and seen < 8:
        if exc is error:
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


class _Piece(InputPartition):
    """One Spark partition: a piece of the read plan (one directory and bucket)."""

    def __init__(self, piece: ReadPlan) -> None:
        super().__init__(piece)
        self.piece = piece


class _Reader(DataSourceReader):
    def __init__(self, plan: ReadPlan, schema: StructType) -> None:
        self.plan = plan
        self.names = [f.name for f in schema.fields]

    def partitions(self) -> list[InputPartition]:
        pieces = self.plan.pieces()
        return [_Piece(p) for p in pieces] if pieces else [_Piece(self.plan)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        piece: ReadPlan = partition.piece  # type: ignore[attr-defined]
        with one_line_errors():
            table = piece.read(self.names)
        yield from table.to_batches(max_chunksize=64 * 1024)


class _Written(WriterCommitMessage):
    def __init__(self, files: list[dict]) -> None:
        self.files = files


class _Writer(DataSourceArrowWriter):
    """Tasks write the rows as ACID event files of the transaction's write id; the driver's commit records them."""

    def __init__(self, job: Any) -> None:
        self.job = job  # a datasource_write.WriteJob: picklable, the transaction's ids and the table's layout

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
        with one_line_errors():
            return _Written(self.job.write_task(iterator))

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        with one_line_errors():
            self.job.commit([f for m in messages if isinstance(m, _Written) for f in m.files])

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        self.job.abort([f for m in messages if isinstance(m, _Written) for f in m.files])


def register_data_source(
    spark: SparkSession, *, warehouse: str | None = None, store_url: str | None = None
) -> None:
    """Register ``format("hiveacid")`` in ``spark`` (:func:`hiveacid_sql.connect` does it for its session).

    ``warehouse`` / ``store_url`` become the source's defaults (a ``.option(...)`` still wins), so that a read
    finds the connection's store whatever the Python workers' working directory.

    A Spark Connect session registers nothing here (a Python data source must be registered on the server):
    call this on the server's side.
    """
    # A class made here is pickled by value (cloudpickle), defaults included, for the Python workers.
    attrs: dict[str, Any] = {
        "default_warehouse": warehouse,
        "default_store_url": store_url,
        "__doc__": HiveAcidDataSource.__doc__,
    }
    spark.dataSource.register(type("RegisteredHiveAcidDataSource", (HiveAcidDataSource,), attrs))
