"""Run INSERT / UPDATE / DELETE / TRUNCATE, each in its own transaction.

Order of work (Hive's protocol, section 9.2 of the format reference): open a transaction, take the
statement's snapshot, allocate the table's write id, write the files, record the components, commit.
Any failure aborts the transaction; an aborted write id is an exception in every later snapshot, so its
files are never read, and the directories it wrote are then removed as well (only after the abort is
recorded, never when the outcome is unknown).
"""

from __future__ import annotations

import contextlib
import getpass
import socket
import time
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.acid.names import base_dir_name, delete_delta_dir_name, delta_dir_name
from hiveacid_sql.engine.binder import bound, spark_error
from hiveacid_sql.engine.plain import write_plain
from hiveacid_sql.errors import HiveAcidError, PlanError
from hiveacid_sql.exec.spark_types import to_spark_type
from hiveacid_sql.exec.tasks import WriteTarget
from hiveacid_sql.exec.write import (
    FileWritten,
    finish_directories,
    write_inserts,
    write_inserts_local,
    write_split_update,
    write_split_update_local,
    write_version_file,
)
from hiveacid_sql.plan.model import DeletePlan, DmlPlan, InsertPlan, TruncatePlan, UpdatePlan
from hiveacid_sql.results import DmlResult
from hiveacid_sql.txn import TableDef

DRIVER_WRITE_MAX_ROWS = "hiveacid.driver.write.max.rows"
DEFAULT_DRIVER_WRITE_MAX_ROWS = 10_000
STATEMENT_ID = 0  # single-statement transactions: every leg is statement 0 (walkthrough sections 1-2)


@dataclass(frozen=True)
class _Outcome:
    files: list[FileWritten]
    directories: list[str]


def _target(table: TableDef, write_id: int, *, base: bool) -> WriteTarget:
    _fs, path = filesystem_for(table.location)
    return WriteTarget(
        fs_uri=table.location,
        location=path,
        columns=tuple((c.name, c.type) for c in table.columns),
        write_id=write_id,
        statement_id=STATEMENT_ID,
        insert_dir=base_dir_name(write_id) if base else delta_dir_name(write_id, write_id, STATEMENT_ID),
        delete_dir=delete_delta_dir_name(write_id, write_id, STATEMENT_ID),
    )


def shape_rows(df: DataFrame, table: TableDef, column_order: tuple[str, ...] | None) -> DataFrame:
    """Map the source's columns by position onto the table's columns, cast as Hive's INSERT does."""
    width = len(column_order) if column_order is not None else len(table.columns)
    if len(df.columns) != width:
        raise PlanError(
            "Cannot insert into target table because column number/types are different "
            f"'{table.name}': Table insclause-0 has {width} columns, but query has {len(df.columns)} columns."
        )
    source = df.toDF(*[f"__c{i}" for i in range(width)])
    position = {name: i for i, name in enumerate(column_order)} if column_order is not None else None
    out = []
    for i, column in enumerate(table.columns):
        spark_type = to_spark_type(column.type)
        idx = i if position is None else position.get(column.name)
        value = F.lit(None) if idx is None else F.col(f"__c{idx}")
        out.append(_hive_lengths(value.cast(spark_type), column.type).alias(column.name))
    return source.select(*out)


def _hive_lengths(value: Column, hive_type: str) -> Column:
    """Hive's INSERT rules for ``varchar(n)`` (truncate) and ``char(n)`` (truncate, pad), for every target."""
    parsed = parse_hive_type(hive_type)
    if parsed.name == "varchar":
        return F.substring(value, 1, parsed.length)
    if parsed.name == "char":
        return F.rpad(F.substring(value, 1, parsed.length), parsed.length, " ")
    return value


class DmlRunner:
    """Executes DML plans against one Session's Spark, store and current database."""

    def __init__(self, session) -> None:  # session: hiveacid_sql.engine.session.Session
        self.session = session

    # -- entry -------------------------------------------------------------------------------------
    def run(self, plan: DmlPlan) -> DmlResult:
        kind = plan.statement
        started = time.monotonic()
        target = plan.target
        if isinstance(plan, InsertPlan) and not target.is_transactional:
            return self._insert_plain(plan, kind, started)
        if isinstance(plan, TruncatePlan) and not target.is_transactional:
            return self._truncate_plain(plan, started)
        store = self.session.store
        txn_id = store.open_txn(getpass.getuser(), socket.gethostname())
        write_id: int | None = None
        target_spec: WriteTarget | None = None
        try:
            reads = getattr(plan, "reads", None)
            tables = {(t.db, t.name) for t in (reads.tables if reads else ())} | {(target.db, target.name)}
            snapshot = store.snapshot(sorted(tables), txn_id)
            write_id = store.allocate_write_id(txn_id, target.db, target.name)
            overwrite = isinstance(plan, TruncatePlan) or (isinstance(plan, InsertPlan) and plan.overwrite)
            target_spec = _target(target, write_id, base=overwrite)
            outcome = self._execute(plan, snapshot, target_spec)
            operation = "i" if isinstance(plan, InsertPlan | TruncatePlan) else (
                "u" if isinstance(plan, UpdatePlan) else "d"
            )
            store.add_components(txn_id, target.db, target.name, write_id, operation)
            store.commit_txn(txn_id)
        except BaseException as exc:
            self._abort(txn_id, target_spec)
            if isinstance(exc, HiveAcidError | KeyboardInterrupt):
                raise
            raise spark_error(exc) from exc
        return self._result(kind, target, outcome, txn_id, write_id, started, update=isinstance(plan, UpdatePlan))

    # -- ACID legs --------------------------------------------------------------------------------
    def _execute(self, plan: DmlPlan, snapshot, target: WriteTarget) -> _Outcome:
        spark = self.session.spark
        fs, _ = filesystem_for(target.fs_uri)
        if isinstance(plan, TruncatePlan):
            write_version_file(fs, f"{target.location}/{target.insert_dir}")
            return _Outcome([], [target.insert_dir])
        with bound(spark, snapshot, self.session.current_db) as binder:
            if isinstance(plan, InsertPlan):
                rows = shape_rows(binder.run(plan.source, plan.reads), plan.target, plan.column_order)
                if plan.values:
                    files = write_inserts_local(rows.toArrow(), target)
                else:
                    files = write_inserts(rows, target)
            elif isinstance(plan, UpdatePlan | DeletePlan):
                changed = binder.run(plan.source, plan.reads, internal=plan.target)
                files = self._split_update(changed, target, write_inserts=isinstance(plan, UpdatePlan))
            else:  # pragma: no cover - exhaustive over DmlPlan
                raise PlanError(f"cannot run {type(plan).__name__}")
        directories = finish_directories(fs, target, files)
        if isinstance(plan, InsertPlan) and plan.overwrite and target.insert_dir not in directories:
            write_version_file(fs, f"{target.location}/{target.insert_dir}")  # an empty base still hides older rows
            directories = sorted([*directories, target.insert_dir])
        return _Outcome(files, directories)

    def _split_update(self, changed: DataFrame, target: WriteTarget, *, write_inserts: bool) -> list[FileWritten]:
        """Statement-sized changes are written by the driver (one Spark job, no shuffle, no Python workers);
        larger ones by Spark tasks. The probe reads at most ``limit + 1`` rows, so the driver never holds more."""
        limit = int(self.session.settings.get(DRIVER_WRITE_MAX_ROWS, DEFAULT_DRIVER_WRITE_MAX_ROWS))
        if limit > 0:
            probe = changed.limit(limit + 1).toArrow()
            if probe.num_rows <= limit:
                return write_split_update_local(probe, target, write_inserts=write_inserts)
        return write_split_update(changed, target, write_inserts=write_inserts)

    def _abort(self, txn_id: int, target: WriteTarget | None) -> None:
        try:
            self.session.store.abort_txn(txn_id)
        except Exception:  # noqa: BLE001 - the original error matters more; the txn times out anyway
            return
        if target is None:
            return
        fs, _ = filesystem_for(target.fs_uri)
        for name in {target.insert_dir, target.delete_dir}:
            with contextlib.suppress(FileNotFoundError, OSError):
                fs.delete_dir(f"{target.location}/{name}")

    # -- plain targets ----------------------------------------------------------------------------
    def _insert_plain(self, plan: InsertPlan, kind: str, started: float) -> DmlResult:
        snapshot = self.session.store.snapshot(sorted({(t.db, t.name) for t in plan.reads.tables}))
        try:
            with bound(self.session.spark, snapshot, self.session.current_db) as binder:
                rows = shape_rows(binder.run(plan.source, plan.reads), plan.target, plan.column_order)
                rows = rows.cache()
                count = rows.count()
                write_plain(rows, plan.target, overwrite=plan.overwrite)
                rows.unpersist()
        except HiveAcidError:
            raise
        except Exception as exc:
            raise spark_error(exc) from exc
        return DmlResult(
            statement=kind,
            table=plan.target.qualified_name,
            num_affected_rows=count,
            num_inserted_rows=count,
            execution_time_ms=int((time.monotonic() - started) * 1000),
            _spark=self.session.spark,
        )

    def _truncate_plain(self, plan: TruncatePlan, started: float) -> DmlResult:
        fs, path = filesystem_for(plan.target.location)
        try:
            fs.delete_dir_contents(path, missing_dir_ok=True)
        except OSError as exc:
            raise spark_error(exc) from exc
        return DmlResult("TRUNCATE", plan.target.qualified_name, 0, _spark=self.session.spark,
                         execution_time_ms=int((time.monotonic() - started) * 1000))

    def _result(self, kind, target, outcome: _Outcome, txn_id, write_id, started, *, update: bool) -> DmlResult:
        inserted = sum(f.rows for f in outcome.files if f.kind == "insert")
        deleted = sum(f.rows for f in outcome.files if f.kind == "delete")
        if update:
            counts = {"num_updated_rows": deleted, "num_affected_rows": deleted}
        else:
            counts = {"num_inserted_rows": inserted, "num_deleted_rows": deleted, "num_affected_rows": inserted + deleted}
        return DmlResult(
            statement=kind,
            table=target.qualified_name,
            num_files_written=len(outcome.files),
            txn_id=txn_id,
            write_id=write_id,
            directories=tuple(outcome.directories),
            execution_time_ms=int((time.monotonic() - started) * 1000),
            _spark=self.session.spark,
            **counts,
        )
