"""EXPLAIN: the plan in words — snapshot, files read, directories that would be written.

Nothing is written and no transaction is opened; the write id shown is the next one the table would
get, so the directory names are what the statement would create if it ran now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hiveacid_sql.errors import UnsupportedStatementError
from hiveacid_sql.exec.binder import acid_files, write_id_list
from hiveacid_sql.exec.pruning import prune_partitions, pruned_buckets
from hiveacid_sql.exec.routing import static_part_dir
from hiveacid_sql.exec.scan import ScanFiles
from hiveacid_sql.plan.model import BoundTables, Plan
from hiveacid_sql.plan.pruning import TablePruning
from hiveacid_sql.txn import TableDef

if TYPE_CHECKING:
    from sqlglot import exp

    from hiveacid_sql.engine.context import StatementContext
    from hiveacid_sql.exec.frames import LocalFrame


def explain_lines(ctx: StatementContext, plan: Plan, *, extended: bool = False) -> list[str]:
    """A plan as lines of text; ``extended`` adds the Spark SQL a query runs as."""
    target = plan.target
    tables = {t.qualified_name: t for t in plan.reads.tables}
    if target is not None:
        tables[target.qualified_name] = target
    snapshot = ctx.snapshot_for(list(tables.values()))  # inside a transaction: its snapshot
    lines = [f"Statement: {plan.description}", f"Snapshot: valid txns {snapshot.txns.to_string()}"]
    reads = plan.reads
    for table in tables.values():
        if not table.is_transactional:
            if table.qualified_name not in {t.qualified_name for t in reads.tables}:
                continue  # an INSERT target: nothing of it is read
            lines.append(f"Read {table.qualified_name} (plain {table.storage_format} table) at {table.location}")
            if table.is_partitioned:
                lines += _plain_partition_lines(ctx, table, reads.pruning.get(table.qualified_name))
            continue
        if table.qualified_name not in {t.qualified_name for t in reads.tables}:
            continue  # an INSERT target: nothing of it is read
        if table.qualified_name not in _current_refs(ctx, plan):
            continue  # read only as of a version: see the VERSION AS OF lines
        ids = write_id_list(snapshot, table)
        is_target = target is not None and table.qualified_name == target.qualified_name
        pruning = reads.target_pruning if is_target and reads.target_pruning else reads.pruning.get(table.qualified_name)
        files = acid_files(ctx.spark_handle.lazy(), table, snapshot, ctx.catalog.list_partitions, pruning)
        lines.append(f"Read {table.qualified_name} at write ids {ids.to_string()}")
        lines.append(f"  location: {table.location}")
        lines += _read_lines(ctx, table, files, pruning)
    lines += _version_lines(ctx, plan, snapshot)
    lines += plan.how_rows_are_found()
    if target is not None and target.is_transactional:
        txn = ctx.current_transaction
        own = txn.written_write_id(target) if txn is not None else None
        next_id = own if own is not None else write_id_list(snapshot, target).high_watermark + 1
        first = txn.next_statement_id if txn is not None else 0
        legs = plan.legs(next_id, first)
        writes = [name for _stmt, _what, name in legs]
        lines.append("Legs (statement id: what it writes):")
        lines += [f"  statement {stmt}: {what} -> {name}" for stmt, what, name in legs]
        part = "<partition>/" if target.is_partitioned else ""
        if plan.writes_one_partition:
            part = f"{static_part_dir(ctx.spark_handle.lazy(), plan)}/"
        elif target.is_partitioned:
            lines.append("Target partitions: " + plan.target_partitions(_target_partitions_read(ctx, target, reads)))
        lines.append(f"Write {target.qualified_name} as write id {next_id} (if no other writer takes it first):")
        lines += [f"  {target.location.rstrip('/')}/{part}{w}" for w in writes]
    elif target is not None:
        lines.append(f"Write plain table {target.qualified_name} at {target.location}")
    if extended and target is None and plan.query is not None:  # a query: the SQL Spark runs
        with ctx.bound(snapshot) as binder:
            lines.append("Spark SQL: " + binder.render(plan.query, plan.reads))
    return lines


def _plain_partition_lines(ctx: StatementContext, table: TableDef, pruning: TablePruning | None) -> list[str]:
    """The partitions a plain partitioned table's read keeps after pruning."""
    partitions = ctx.catalog.list_partitions(table.db, table.name)
    predicate = pruning.partition_filter if pruning else None
    kept = prune_partitions(ctx.spark_handle.lazy(), table, partitions, predicate)
    how = f" (pruned by {predicate.sql(dialect='hiveacid')})" if predicate is not None else ""
    return [f"  partitions read: {len(kept)} of {len(partitions)}{how}", *[f"    {name}" for name in kept]]


def _target_partitions_read(ctx: StatementContext, target: TableDef, reads: BoundTables) -> list[str]:
    """The target's partitions the statement reads (all of them unless its predicate prunes some)."""
    partitions = ctx.catalog.list_partitions(target.db, target.name)
    read = reads.target_pruning
    if read is not None and read.partition_filter is not None:
        return prune_partitions(ctx.spark_handle.lazy(), target, partitions, read.partition_filter)
    return [p.name for p in partitions]


def _current_refs(ctx: StatementContext, plan) -> set[str]:
    """Qualified names of the tables the plan reads at the current snapshot (not only ``VERSION AS OF``)."""
    tree = plan.query
    if tree is None:
        return {t.qualified_name for t in plan.reads.tables}
    from hiveacid_sql.sql.tree import catalog_tables, table_names

    return {".".join(table_names(n, ctx.current_db)) for n in catalog_tables(tree) if n.args.get("version") is None}


def _version_lines(ctx: StatementContext, plan, snapshot) -> list[str]:
    """What each ``VERSION AS OF`` reference reads: the version's write ids and directories."""
    tree = plan.query
    if tree is None:
        return []
    from hiveacid_sql.exec.timetravel import requested_version, version_files
    from hiveacid_sql.sql.tree import catalog_tables, table_names

    by_name = {t.qualified_name: t for t in plan.reads.tables}
    lines: list[str] = []
    seen = set()
    for node in catalog_tables(tree):
        version = requested_version(node)
        db, name = table_names(node, ctx.current_db)
        table = by_name.get(f"{db}.{name}")
        if version is None or table is None or not table.is_transactional or (table.qualified_name, version) in seen:
            continue
        seen.add((table.qualified_name, version))
        pruning = plan.reads.pruning.get(table.qualified_name)
        created = ctx.catalog.partition_write_ids(table.db, table.name) if table.is_partitioned else {}
        partitions = ctx.catalog.list_partitions(table.db, table.name) if table.is_partitioned else []
        ids, files = version_files(
            ctx.spark_handle.lazy(), table, write_id_list(snapshot, table), version, partitions, created, pruning,
            ctx.store.table_history(table.db, table.name),
        )
        lines.append(f"Read {table.qualified_name} {version} at write ids {ids.to_string()}")
        lines += _read_lines(ctx, table, files, pruning)
    return lines


def _read_lines(ctx: StatementContext, table: TableDef, files: ScanFiles, pruning: TablePruning | None) -> list[str]:
    """What one ACID table's snapshot reads: partitions (after pruning), buckets, directories, file counts."""
    lines = []
    if table.is_partitioned:
        total = len(ctx.catalog.list_partitions(table.db, table.name))
        how = f" (pruned by {pruning.partition_filter.sql(dialect='hiveacid')})" if pruning and pruning.partition_filter else ""
        lines.append(f"  partitions read: {len(files.dirs)} of {total}{how}")
    if pruning is not None and pruning.bucket_values is not None and table.is_bucketed:
        buckets = pruned_buckets(table, pruning.bucket_values)
        if buckets is not None:
            lines.append(f"  buckets read: {', '.join(str(b) for b in sorted(buckets))} of {table.num_buckets}")
    lines += _key_filter_lines(table, pruning)
    for d in files.dirs:
        state = d.state
        prefix = f"  [{d.part_dir}] " if d.part_dir else "  "
        lines.append(f"{prefix}base: {state.base.name if state.base else '(none)'}")
        lines.append(f"{prefix}insert deltas: {', '.join(x.name for x in state.deltas) or '(none)'}")
        lines.append(f"{prefix}delete deltas: {', '.join(x.name for x in state.delete_deltas) or '(none)'}")
        if d.original_files:
            lines.append(f"{prefix}original files: {len(d.original_files)}")
    lines.append(f"  files read: {len(files.data_files) + len(files.original_files)} data, {len(files.delete_files)} delete")
    return lines


_INTEGER_TYPES = frozenset({"tinyint", "smallint", "int", "bigint"})


def _key_filter_lines(table: TableDef, pruning: TablePruning | None) -> list[str]:
    """The key filters ORC skips insert files, stripes and row groups by (on the table's integer columns; a
    DML statement's Spark work applies them, see exec/sarg.py)."""
    if pruning is None or not pruning.key_filters:
        return []
    integer = {c.name.lower() for c in table.columns if c.type.lower() in _INTEGER_TYPES}
    shown = [
        f"{f.column} IN ({', '.join(map(str, f.values))})" if f.op == "in" else f"{f.column} {f.op} {f.values[0]}"
        for f in pruning.key_filters
        if f.column in integer
    ]
    return [f"  key filters (skip files, stripes, row groups by statistics): {', '.join(shown)}"] if shown else []


def explain(ctx: StatementContext, tree: exp.Expr, kind: str | None = None) -> LocalFrame:
    """EXPLAIN [EXTENDED] as a one-column DataFrame (``Explain``), one line per row."""
    extended = kind is not None and kind.upper() == "EXTENDED"
    try:
        plan = ctx.planner.plan(tree)
    except UnsupportedStatementError as exc:
        raise UnsupportedStatementError(f"EXPLAIN of {tree.key.upper()} is not supported") from exc
    lines = explain_lines(ctx, plan, extended=extended)
    return ctx.rows([(line,) for line in lines], "Explain string")
