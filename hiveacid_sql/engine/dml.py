"""Run INSERT / UPDATE / DELETE / TRUNCATE inside a transaction (their own, unless one is open).

Each statement: snapshot, the target's write id, statement ids for its legs, an *event frame* (what it
writes, one row per ACID event: :mod:`hiveacid_sql.exec.events`), the files, then what it wrote is recorded
in the transaction (partitions and operations for the components, directories for cleanup). Statement-sized
event sets are written by the driver (one Spark job to compute them, no shuffle, no Python workers); larger
ones by Spark tasks.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.engine.merge import MergeCounts, MergeRunner
from hiveacid_sql.engine.transaction import Transaction
from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.exec.binder import spark_error
from hiveacid_sql.exec.events import delete_events, insert_events, update_events
from hiveacid_sql.exec.plain import write_plain
from hiveacid_sql.exec.routing import new_bucket_id, new_part_dir, static_part_dir
from hiveacid_sql.exec.session import hive_value_semantics
from hiveacid_sql.exec.shaping import shape_rows
from hiveacid_sql.exec.spark_types import data_types
from hiveacid_sql.exec.tasks import TableSink
from hiveacid_sql.exec.write import (
    FileWritten,
    finish_directories,
    write_changes,
    write_events,
    write_events_local,
    write_version_file,
)
from hiveacid_sql.plan.model import DeletePlan, DmlPlan, InsertPlan, MergePlan, TruncatePlan, UpdatePlan
from hiveacid_sql.results import DmlResult
from hiveacid_sql.settings import DRIVER_WRITE_MAX_ROWS
from hiveacid_sql.txn import TableDef

if TYPE_CHECKING:
    from hiveacid_sql.engine.context import StatementContext



@dataclass(frozen=True)
class _Written:
    """What one plan's leg writer wrote: the files, the TXN_COMPONENTS operation, MERGE's counts."""

    files: list[FileWritten]
    operation: str
    merge: MergeCounts | None = None


@dataclass(frozen=True)
class _Outcome:
    files: list[FileWritten]
    directories: list[str]
    merge: MergeCounts | None = None


def _sink(table: TableDef, write_id: int, *, overwrite: bool) -> TableSink:
    _fs, path = filesystem_for(table.location)
    return TableSink(
        fs_uri=table.location,
        location=path,
        columns=tuple((c.name, c.type) for c in table.columns),
        write_id=write_id,
        overwrite=overwrite,
        partitioned=table.is_partitioned,
        compression=table.orc_compression,
    )


def _operations(files: list[FileWritten], operation: str) -> dict[str, str]:
    """Partition -> TXN_COMPONENTS operation: the statement's own ('u' or 'd') where it deleted rows, 'i'
    where only new rows landed (an UPDATE moving rows into a partition only inserts there)."""
    ops: dict[str, str] = {}
    for f in files:
        if f.kind == "delete":
            ops[f.partition] = operation
        else:
            ops.setdefault(f.partition, "i")
    return ops


class DmlRunner:
    """Executes DML plans against one connection's context (Spark, store, settings, current database)."""

    def __init__(self, ctx: StatementContext) -> None:
        self.ctx = ctx
        self._merge = MergeRunner(ctx.settings)

    @staticmethod
    def data_types(table: TableDef) -> list:
        return data_types(table)

    # -- entry -------------------------------------------------------------------------------------
    def run(self, plan: DmlPlan, text: str | None = None) -> DmlResult:
        """Run ``plan`` in the session's transaction; ``text`` (the statement's SQL) goes to the write history."""
        started = time.monotonic()
        target = plan.target
        if isinstance(plan, InsertPlan) and not target.is_transactional:
            return self._insert_plain(plan, started)
        if isinstance(plan, TruncatePlan) and not target.is_transactional:
            return self._truncate_plain(plan, started)
        with self.ctx.transaction() as txn, hive_value_semantics(self.ctx.spark):
            try:
                self.ctx.lock_statement(txn, plan)
                outcome, write_id = self._execute(plan, txn)
            except HiveAcidError:
                raise
            except Exception as exc:
                raise spark_error(exc) from exc
            result = self._result(plan, outcome, txn.txn_id, write_id, started)
            txn.note_statement(
                target, plan.statement, text, inserted=result.num_inserted_rows,
                updated=result.num_updated_rows, deleted=result.num_deleted_rows,
            )
        return dataclasses.replace(result, execution_time_ms=int((time.monotonic() - started) * 1000))

    # -- ACID legs --------------------------------------------------------------------------------
    def _execute(self, plan: DmlPlan, txn: Transaction) -> tuple[_Outcome, int]:
        target = plan.target
        snapshot = txn.snapshot([*plan.reads.tables, target])
        write_id = txn.write_id(target)
        overwrite = plan.overwrites
        sink = _sink(target, write_id, overwrite=overwrite)
        statement_ids = txn.statement_ids(plan.statement_count)
        stmt = statement_ids[0]
        txn.expect(target, statement_ids, overwrite=overwrite)
        fs, _ = filesystem_for(target.location)
        if plan.query is None:  # TRUNCATE: no rows to write, an empty base in each directory
            return self._truncate(plan, txn, sink, fs, stmt), write_id
        with self.ctx.bound(snapshot) as binder:
            written = _LEG_WRITERS[type(plan)](self, plan, binder.run(plan.query, plan.reads), sink, statement_ids)
        directories = finish_directories(fs, sink, written.files)
        if plan.overwrites:
            directories = self._empty_bases(plan, sink, fs, directories)  # type: ignore[arg-type]
        txn.record(target, _operations(written.files, written.operation), directories, statement_ids, overwrite=overwrite)
        return _Outcome(written.files, directories, written.merge), write_id

    # -- one leg writer per plan class (the executor's dispatch registry: _LEG_WRITERS) ------------
    def write_insert(self, plan: InsertPlan, rows: DataFrame, sink: TableSink, statement_ids: list[int]) -> _Written:
        target = plan.target
        rows = shape_rows(rows, target, plan.column_order, plan.static_partitions)
        static = self._static_part_dir(plan) if self._all_static(plan) else None
        events = insert_events(
            rows, [c.name for c in target.columns], stmt=statement_ids[0],
            part_dir=new_part_dir(target, static), bucket_id=new_bucket_id(target),
        )
        if plan.values:
            return _Written(write_events_local(events.toArrow(), sink), "i")
        return _Written(write_events(events, sink, route="shuffle" if target.is_bucketed else "append"), "i")

    def write_update(self, plan: UpdatePlan, changed: DataFrame, sink: TableSink, statement_ids: list[int]) -> _Written:
        target = plan.target
        part_dir = new_part_dir(target) if plan.moves_partitions else F.col("__part_dir")
        bucket = new_bucket_id(target) if plan.moves_buckets else None
        events = update_events(
            changed, [c.name for c in target.columns], stmt=statement_ids[0], data_types=self.data_types(target),
            new_part_dir=part_dir, new_bucket_id=bucket,
        )
        return _Written(self.write_changes(events, sink), "u")

    def write_delete(self, plan: DeletePlan, changed: DataFrame, sink: TableSink, statement_ids: list[int]) -> _Written:
        target = plan.target
        events = delete_events(changed, [c.name for c in target.columns], stmt=statement_ids[0], data_types=self.data_types(target))
        return _Written(self.write_changes(events, sink), "d")

    def write_merge(self, plan: MergePlan, classified: DataFrame, sink: TableSink, statement_ids: list[int]) -> _Written:
        files, merge = self._merge.write(plan, classified, statement_ids, sink)
        return _Written(files, "u", merge)

    def write_changes(self, events: DataFrame, sink: TableSink) -> list[FileWritten]:
        return write_changes(events, sink, self.ctx.settings.value(DRIVER_WRITE_MAX_ROWS))

    def _empty_bases(self, plan: InsertPlan, sink: TableSink, fs, directories: list[str]) -> list[str]:
        """INSERT OVERWRITE that wrote no row into the partition it names (or the table) still hides the old
        rows there: an empty ``base_W``, as Hive writes."""
        target = plan.target
        if target.is_partitioned and not self._all_static(plan):
            return directories  # dynamic partitions: only those that received rows are overwritten
        part = self._static_part_dir(plan) if target.is_partitioned else ""
        base = sink.directory(0, 0)
        rel = f"{part}/{base}" if part else base
        if rel not in directories:
            write_version_file(fs, f"{sink.location.rstrip('/')}/{rel}")
            directories = sorted([*directories, rel])
        return directories

    @staticmethod
    def _all_static(plan: InsertPlan) -> bool:
        return plan.target.is_partitioned and len(plan.static_partitions) == len(plan.target.partition_keys)

    def _static_part_dir(self, plan: InsertPlan) -> str:
        return static_part_dir(self.ctx.spark, plan)

    def _truncate(self, plan: TruncatePlan, txn: Transaction, sink: TableSink, fs, stmt: int) -> _Outcome:
        """TRUNCATE: an empty ``base_W`` in the table (or in every partition), so older snapshots stay readable."""
        table = plan.target
        parts = [p.name for p in self.ctx.catalog.list_partitions(table.db, table.name)] if table.is_partitioned else [""]
        base = sink.directory(0, stmt)
        directories = []
        for part in parts:
            rel = f"{part}/{base}" if part else base
            write_version_file(fs, f"{sink.location.rstrip('/')}/{rel}")
            directories.append(rel)
        txn.record(table, dict.fromkeys(parts, "i"), directories, [stmt], overwrite=True)
        return _Outcome([], directories)

    # -- plain targets ----------------------------------------------------------------------------
    def _insert_plain(self, plan: InsertPlan, started: float) -> DmlResult:
        ctx = self.ctx
        # No transaction here (the target is plain): a read lease keeps the ACID sources' files while it runs.
        leases = ctx.read_leases.acquire(
            sorted({(t.db, t.name) for t in plan.reads.tables if t.is_transactional}), seconds=3600
        )
        snapshot = ctx.store.snapshot(sorted({(t.db, t.name) for t in plan.reads.tables}))
        try:
            with ctx.bound(snapshot) as binder:
                rows = shape_rows(binder.run(plan.source, plan.reads), plan.target, plan.column_order, ())
                rows = rows.cache()
                count = rows.count()
                write_plain(rows, plan.target, overwrite=plan.overwrite)
                rows.unpersist()
        except HiveAcidError:
            raise
        except Exception as exc:
            raise spark_error(exc) from exc
        finally:
            ctx.read_leases.release(leases)
        return DmlResult(
            statement=plan.statement,
            table=plan.target.qualified_name,
            num_affected_rows=count,
            num_inserted_rows=count,
            execution_time_ms=int((time.monotonic() - started) * 1000),
            _spark=ctx.spark,
        )

    def _truncate_plain(self, plan: TruncatePlan, started: float) -> DmlResult:
        fs, path = filesystem_for(plan.target.location)
        try:
            fs.delete_dir_contents(path, missing_dir_ok=True)
        except OSError as exc:
            raise spark_error(exc) from exc
        return DmlResult("TRUNCATE", plan.target.qualified_name, 0, _spark=self.ctx.spark,
                         execution_time_ms=int((time.monotonic() - started) * 1000))

    def _result(self, plan: DmlPlan, outcome: _Outcome, txn_id: int, write_id: int, started: float) -> DmlResult:
        inserted = sum(f.rows for f in outcome.files if f.kind == "insert")
        deleted = sum(f.rows for f in outcome.files if f.kind == "delete")
        counts: dict[str, Any]
        if isinstance(plan, UpdatePlan):
            counts = {"num_updated_rows": deleted, "num_affected_rows": deleted}
        elif outcome.merge is not None:
            per = outcome.merge.clauses
            ins = sum(c.num_rows for c in per if c.action == "INSERT")
            upd = sum(c.num_rows for c in per if c.action == "UPDATE")
            dele = sum(c.num_rows for c in per if c.action == "DELETE")
            counts = {
                "num_inserted_rows": ins,
                "num_updated_rows": upd,
                "num_deleted_rows": dele,
                "num_affected_rows": ins + upd + dele,
                "num_source_rows": outcome.merge.source_rows,
                "num_target_rows_matched": outcome.merge.target_rows_matched,
                "clauses": per,
            }
        else:
            counts = {"num_inserted_rows": inserted, "num_deleted_rows": deleted, "num_affected_rows": inserted + deleted}
        return DmlResult(
            statement=plan.statement,
            table=plan.target.qualified_name,
            num_files_written=len(outcome.files),
            txn_id=txn_id,
            write_id=write_id,
            directories=tuple(outcome.directories),
            execution_time_ms=int((time.monotonic() - started) * 1000),
            _spark=self.ctx.spark,
            **counts,
        )


#: The executor's dispatch by plan class: the one place that knows which writer a plan's rows go through.
_LEG_WRITERS: dict[type, Callable[..., _Written]] = {
    InsertPlan: DmlRunner.write_insert,
    UpdatePlan: DmlRunner.write_update,
    DeletePlan: DmlRunner.write_delete,
    MergePlan: DmlRunner.write_merge,
}
