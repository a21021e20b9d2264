"""Run INSERT / UPDATE / DELETE / TRUNCATE / MERGE inside a transaction (their own, unless one is open).

Each statement: snapshot, the target's write id, statement ids for its legs, then the executor
(:mod:`hiveacid_sql.exec.dml`) finds the rows and writes the files, and what it wrote is recorded in the
transaction (partitions and operations for the components, directories for cleanup). This module is the
transaction around the executor; the Spark work is all in ``exec/``.
"""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

from hiveacid_sql.engine.transaction import Transaction
from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.exec.binder import spark_error
from hiveacid_sql.exec.dml import Written, table_sink, truncate, write_legs, write_plain_target
from hiveacid_sql.exec.session import hive_value_semantics
from hiveacid_sql.exec.write import FileWritten
from hiveacid_sql.plan.model import DmlPlan
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
        if not target.is_transactional:
            return self._write_plain(plan, started)
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
        snapshot, write_id = txn.snapshot_and_write_id([*plan.reads.tables, target], target)
        overwrite = plan.overwrites
        if overwrite or plan.query is None:
            self.ctx.store.refuse_overwrite_below_open(txn.txn_id, target.db, target.name, write_id, plan.statement)
        sink = table_sink(target, write_id, overwrite=overwrite)
        statement_ids = txn.statement_ids(plan.statement_count)
        txn.expect(target, statement_ids, overwrite=overwrite)
        if plan.query is None:  # TRUNCATE: no rows to write, an empty base in each directory
            parts = [p.name for p in self.ctx.catalog.list_partitions(target.db, target.name)] if target.is_partitioned else [""]
            written = truncate(plan, sink, parts, statement_ids[0])
            txn.record(target, dict.fromkeys(parts, "i"), written.directories, statement_ids[:1], overwrite=True)
            return written, write_id
        with self.ctx.bound(snapshot) as binder:
            written = write_legs(binder, plan, sink, statement_ids, self.ctx.settings)
        txn.record(
            target, _operations(written.files, written.operation), written.directories, statement_ids, overwrite=overwrite
        )
        return written, write_id

    # -- plain targets ----------------------------------------------------------------------------
    def _write_plain(self, plan: DmlPlan, started: float) -> DmlResult:
        """INSERT into / TRUNCATE a plain table: no transaction (nothing to roll back); a read lease keeps the
        ACID sources' files while it runs."""
        ctx = self.ctx
        leases = ctx.hold_leases(
            sorted({(t.db, t.name) for t in plan.reads.tables if t.is_transactional}), until_dropped=True
        )
        try:
            snapshot = ctx.store.snapshot(sorted({(t.db, t.name) for t in plan.reads.tables}))
            strict = ctx.settings.value(STRICT_CASTS)
            target = plan.target
            locations = (
                {p.name: p.location for p in ctx.catalog.list_partitions(target.db, target.name) if p.location}
                if target.is_partitioned else {}
            )
            with ctx.bound(snapshot) as binder, hive_value_semantics(ctx.spark, strict=strict):
                written = write_plain_target(binder, plan, locations)
            ctx.catalog.record_plain_write(
                target.db, target.name, written.partitions, whole_table=written.whole_table
            )
            count = written.rows
        except HiveAcidError:
            raise
        except Exception as exc:
            raise spark_error(exc) from exc
        finally:
            ctx.release_leases(leases)
        return DmlResult(
            statement=plan.statement,
            table=plan.target.qualified_name,
            num_affected_rows=count,
            num_inserted_rows=count,
            execution_time_ms=int((time.monotonic() - started) * 1000),
            _spark=ctx.spark,
        )

    def _result(self, plan: DmlPlan, written: Written, txn_id: int, write_id: int, started: float) -> DmlResult:
        return DmlResult(
            statement=plan.statement,
            table=plan.target.qualified_name,
            num_files_written=len(written.files),
            txn_id=txn_id,
            write_id=write_id,
            directories=tuple(written.directories),
            execution_time_ms=int((time.monotonic() - started) * 1000),
            _spark=self.ctx.spark,
            **written.counts,
        )
