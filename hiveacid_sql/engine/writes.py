"""Run INSERT / UPDATE / DELETE / TRUNCATE / MERGE inside a transaction (their own, unless one is open).

Each statement: snapshot, the target's write id, statement ids for its legs, then the executor
(:mod:`hiveacid_sql.exec.dml`) finds the rows and writes the files, and what it wrote is recorded in the
transaction (partitions and operations for the components, directories for cleanup). This module is the
transaction around the executor; the Spark work is all in ``exec/``.
"""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING, Any

from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.engine.transaction import Transaction
from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.exec.binder import spark_error
from hiveacid_sql.exec.dml import Written, insert_plain, table_sink, write_empty_bases, write_legs
from hiveacid_sql.exec.session import hive_value_semantics
from hiveacid_sql.exec.write import FileWritten
from hiveacid_sql.plan.model import DmlPlan, InsertPlan, TruncatePlan, UpdatePlan
from hiveacid_sql.results import DmlResult
from hiveacid_sql.settings import STRICT_CASTS

if TYPE_CHECKING:
    from hiveacid_sql.engine.context import StatementContext


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
    """Runs DML plans in one connection's transactions (Spark, store, settings, current database)."""

    def __init__(self, ctx: StatementContext) -> None:
        self.ctx = ctx

    # -- entry -------------------------------------------------------------------------------------
    def run(self, plan: DmlPlan, text: str | None = None) -> DmlResult:
        """Run ``plan`` in the session's transaction; ``text`` (the statement's SQL) goes to the write history."""
        started = time.monotonic()
        target = plan.target
        if isinstance(plan, InsertPlan) and not target.is_transactional:
            return self._insert_plain(plan, started)
        if isinstance(plan, TruncatePlan) and not target.is_transactional:
            return self._truncate_plain(plan, started)
        strict = self.ctx.settings.value(STRICT_CASTS)
        with self.ctx.transaction() as txn, hive_value_semantics(self.ctx.spark, strict=strict):
            try:
                self.ctx.lock_statement(txn, plan)
                written, write_id = self._execute(plan, txn)
            except HiveAcidError:
                raise
            except Exception as exc:
                raise spark_error(exc) from exc
            result = self._result(plan, written, txn.txn_id, write_id, started)
            txn.note_statement(
                target, plan.statement, text, inserted=result.num_inserted_rows,
                updated=result.num_updated_rows, deleted=result.num_deleted_rows,
            )
        return dataclasses.replace(result, execution_time_ms=int((time.monotonic() - started) * 1000))

    # -- ACID legs --------------------------------------------------------------------------------
    def _execute(self, plan: DmlPlan, txn: Transaction) -> tuple[Written, int]:
        target = plan.target
        snapshot = txn.snapshot([*plan.reads.tables, target])
        write_id = txn.write_id(target)
        overwrite = plan.overwrites
        sink = table_sink(target, write_id, overwrite=overwrite)
        statement_ids = txn.statement_ids(plan.statement_count)
        txn.expect(target, statement_ids, overwrite=overwrite)
        if plan.query is None:  # TRUNCATE: no rows to write, an empty base in each directory
            parts = [p.name for p in self.ctx.catalog.list_partitions(target.db, target.name)] if target.is_partitioned else [""]
            directories = write_empty_bases(target, sink, parts, statement_ids[0])
            txn.record(target, dict.fromkeys(parts, "i"), directories, statement_ids[:1], overwrite=True)
            return Written([], directories, "i"), write_id
        with self.ctx.bound(snapshot) as binder:
            written = write_legs(binder, plan, sink, statement_ids, self.ctx.settings)
        txn.record(
            target, _operations(written.files, written.operation), written.directories, statement_ids, overwrite=overwrite
        )
        return written, write_id

    # -- plain targets ----------------------------------------------------------------------------
    def _insert_plain(self, plan: InsertPlan, started: float) -> DmlResult:
        ctx = self.ctx
        # No transaction here (the target is plain): a read lease keeps the ACID sources' files while it runs.
        leases = ctx.read_leases.acquire(
            sorted({(t.db, t.name) for t in plan.reads.tables if t.is_transactional}), seconds=3600
        )
        snapshot = ctx.store.snapshot(sorted({(t.db, t.name) for t in plan.reads.tables}))
        try:
            strict = ctx.settings.value(STRICT_CASTS)
            with ctx.bound(snapshot) as binder, hive_value_semantics(ctx.spark, strict=strict):
                count = insert_plain(binder, plan)
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

    def _result(self, plan: DmlPlan, outcome: Written, txn_id: int, write_id: int, started: float) -> DmlResult:
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
