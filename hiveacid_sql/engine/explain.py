"""EXPLAIN: the plan in words — snapshot, files read, directories that would be written.

Nothing is written and no transaction is opened; the write id shown is the next one the table would
get, so the directory names are what the statement would create if it ran now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql import DataFrame
from sqlglot import exp

from hiveacid_sql.acid.names import base_dir_name, delete_delta_dir_name, delta_dir_name
from hiveacid_sql.engine.binder import acid_files, bound, write_id_list
from hiveacid_sql.errors import UnsupportedStatementError
from hiveacid_sql.plan.model import BoundTables, DeletePlan, InsertPlan, QueryPlan, TruncatePlan, UpdatePlan

if TYPE_CHECKING:
    from hiveacid_sql.engine.session import Session


def _reads(plan) -> BoundTables:
    return getattr(plan, "reads", None) or BoundTables()


def explain_lines(session: Session, plan, *, extended: bool = False) -> list[str]:
    """A plan as lines of text; ``extended`` adds the Spark SQL a query runs as."""
    target = getattr(plan, "target", None)
    tables = {t.qualified_name: t for t in _reads(plan).tables}
    if target is not None:
        tables[target.qualified_name] = target
    snapshot = session.store.snapshot(sorted({(t.db, t.name) for t in tables.values()}))
    kind = "UPDATE (split update: delete_delta + delta)" if isinstance(plan, UpdatePlan) else plan.statement
    lines = [f"Statement: {kind}", f"Snapshot: valid txns {snapshot.txns.to_string()}"]
    for table in tables.values():
        if not table.is_transactional:
            lines.append(f"Read {table.qualified_name} (plain {table.storage_format} table) at {table.location}")
            continue
        ids = write_id_list(snapshot, table)
        files = acid_files(table, snapshot)
        state = files.state
        lines.append(f"Read {table.qualified_name} at write ids {ids.to_string()}")
        lines.append(f"  location: {table.location}")
        lines.append(f"  base: {state.base.name if state.base else '(none)'}")
        lines.append(f"  insert deltas: {', '.join(d.name for d in state.deltas) or '(none)'}")
        lines.append(f"  delete deltas: {', '.join(d.name for d in state.delete_deltas) or '(none)'}")
        if files.original_files:
            lines.append(f"  original files: {len(files.original_files)}")
        lines.append(f"  files read: {len(files.data_files) + len(files.original_files)} data, {len(files.delete_files)} delete")
    if isinstance(plan, UpdatePlan | DeletePlan):
        lines.append("Find rows: " + plan.source.sql(dialect="hiveacid"))
    if target is not None and target.is_transactional:
        next_id = write_id_list(snapshot, target).high_watermark + 1
        if isinstance(plan, TruncatePlan) or (isinstance(plan, InsertPlan) and plan.overwrite):
            writes = [base_dir_name(next_id)]
        elif isinstance(plan, InsertPlan):
            writes = [delta_dir_name(next_id, next_id, 0)]
        elif isinstance(plan, UpdatePlan):
            writes = [delete_delta_dir_name(next_id, next_id, 0), delta_dir_name(next_id, next_id, 0)]
        else:
            writes = [delete_delta_dir_name(next_id, next_id, 0)]
        lines.append(f"Write {target.qualified_name} as write id {next_id} (if no other writer takes it first):")
        lines += [f"  {target.location.rstrip('/')}/{w}" for w in writes]
    elif target is not None:
        lines.append(f"Write plain table {target.qualified_name} at {target.location}")
    if extended and isinstance(plan, QueryPlan):
        with bound(session.spark, snapshot, session.current_db) as binder:
            lines.append("Spark SQL: " + binder.render(plan.query, plan.reads))
    return lines


def explain(session: Session, tree: exp.Expression, kind: str | None = None) -> DataFrame:
    """EXPLAIN [EXTENDED] as a one-column DataFrame (``Explain``), one line per row."""
    extended = bool(kind) and kind.upper() == "EXTENDED"
    try:
        plan = session.planner.plan(tree)
    except UnsupportedStatementError as exc:
        raise UnsupportedStatementError(f"EXPLAIN of {tree.key.upper()} is not supported") from exc
    lines = explain_lines(session, plan, extended=extended)
    return session.spark.createDataFrame([(line,) for line in lines], "Explain string")
