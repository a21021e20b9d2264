"""The statement handlers: one function per statement kind, ``handler(ctx, statement) -> result | None``.

:data:`HANDLERS` is the dispatch table the Session looks a parsed statement's node type up in. A handler
gets the :class:`~hiveacid_sql.engine.context.StatementContext`, never the Session. Adding a statement
kind: a node in ``sql/`` (parser), a plan in ``plan/`` if it reads or writes tables, its Spark work in
``exec/`` (a DML kind: an entry in the executor's and the dry run's registries), and one entry here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias, cast

from sqlglot import exp

from hiveacid_sql.engine import compaction, ddl, show, txn_statements, views
from hiveacid_sql.engine.context import StatementContext
from hiveacid_sql.engine.explain import explain
from hiveacid_sql.engine.history import describe_history
from hiveacid_sql.engine.writes import DmlRunner
from hiveacid_sql.errors import PlanError, TxnStateError, UnsupportedStatementError
from hiveacid_sql.exec.dryrun import dry_run_frame
from hiveacid_sql.exec.session import hive_value_semantics
from hiveacid_sql.results import DmlResult, StatementResult
from hiveacid_sql.settings import STRICT_CASTS
from hiveacid_sql.sql import nodes
from hiveacid_sql.sql.parse import Statement
from hiveacid_sql.sql.tree import is_query, statement_kind, where_is

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from hiveacid_sql.exec.frames import LocalFrame

Result: TypeAlias = "DataFrame | LocalFrame | DmlResult | StatementResult"
Handler = Callable[[StatementContext, Statement], "Result | None"]

#: Statements a dry run (``dry_run=True``, ``EXPLAIN ANALYZE``) answers with the rows they would change.
DRY_RUN_TYPES = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.TruncateTable)


def reported(ctx: StatementContext, st: Statement, run: Callable[[], Result | None]) -> Result:
    """Run a statement's work; its result, or for a statement without rows (DDL, SET, USE, BEGIN ..) a
    :class:`StatementResult`: its kind and object, OK and its time."""
    started = time.monotonic()
    result = run()
    if result is not None:
        return result
    kind, target = statement_kind(st)
    elapsed = int((time.monotonic() - started) * 1000)
    return StatementResult(kind, target, execution_time_ms=elapsed, _spark=ctx.spark_handle.get)


def dml_statement(ctx: StatementContext, st: Statement) -> DmlResult:
    plan = ctx.planner.plan_dml(st.tree)
    txn = ctx.current_transaction
    if txn is not None and not plan.target.is_transactional:
        raise TxnStateError(
            f"Writing non-transactional table {plan.target.qualified_name} is not allowed in a transaction "
            f"(it could not be rolled back).  TransactionID=txnid:{txn.txn_id}."
        )
    return DmlRunner(ctx).run(plan, st.text)


def truncate(ctx: StatementContext, st: Statement) -> DmlResult | None:
    result = None
    for table in st.tree.expressions:
        result = DmlRunner(ctx).run(ctx.planner.plan_truncate(table), st.text)
    return result


def dry_run(ctx: StatementContext, st: Statement) -> DataFrame:
    """The rows a DML statement would change, with old and new values; nothing is committed or written."""
    tree = st.tree
    if not isinstance(tree, DRY_RUN_TYPES):
        raise UnsupportedStatementError(
            f"a dry run covers INSERT, UPDATE, DELETE, MERGE and TRUNCATE, not {st.text.split()[0].upper()}",
            st.line,
            st.col,
        )
    if isinstance(tree, exp.TruncateTable) and len(tree.expressions) != 1:
        raise UnsupportedStatementError("a dry run of TRUNCATE takes one table", st.line, st.col)
    plan = ctx.planner.plan_dml(tree)
    tables = {t.qualified_name: t for t in plan.reads.tables}
    tables[plan.target.qualified_name] = plan.target
    with ctx.bound(ctx.snapshot_for(list(tables.values()))) as binder, hive_value_semantics(ctx.spark, strict=ctx.settings.value(STRICT_CASTS)):
        return dry_run_frame(binder, plan, ctx.settings)


def explain_statement(ctx: StatementContext, st: Statement) -> DataFrame | LocalFrame:
    kind = st.tree.args.get("kind")
    inner = st.tree.this
    if kind == "ANALYZE" and isinstance(inner, DRY_RUN_TYPES):
        return dry_run(ctx, Statement(tree=inner, text=st.text, line=st.line, col=st.col))
    return explain(ctx, inner, kind)


def create(ctx: StatementContext, st: Statement) -> None:
    kind = (st.tree.args.get("kind") or "").upper()
    if kind == "TABLE":
        ddl.create_table(ctx, cast(exp.Create, st.tree))
    elif kind == "VIEW":
        views.create_view(ctx, cast(exp.Create, st.tree), st.text)
    elif kind in ("DATABASE", "SCHEMA"):
        ddl.create_database(ctx, cast(exp.Create, st.tree))
    else:
        raise UnsupportedStatementError(f"CREATE {kind} is not supported", st.line, st.col)


def drop(ctx: StatementContext, st: Statement) -> None:
    with ctx.txns.ddl_lock(txn_statements.ddl_lock_components(ctx, st.tree)):
        ddl.drop(ctx, cast(exp.Drop, st.tree))


def alter(ctx: StatementContext, st: Statement) -> None:
    tree = cast(exp.Alter, st.tree)
    kind = (tree.args.get("kind") or "TABLE").upper()
    actions = tree.args.get("actions") or []
    if kind == "VIEW" and len(actions) == 1 and is_query(actions[0]):  # ALTER VIEW v AS <query>
        view = ctx.planner.resolve(tree.this)
        views.check_kind(view, kind, "ALTER")
        with ctx.txns.ddl_lock(txn_statements.ddl_lock_components(ctx, tree)):
            views.alter_view_as(ctx, view, actions[0], st.text)
        return
    with ctx.txns.ddl_lock(txn_statements.ddl_lock_components(ctx, tree)):
        ddl.alter_table(ctx, tree)


def use(ctx: StatementContext, st: Statement) -> None:
    name = st.tree.this.name.lower()
    if not ctx.catalog.database_exists(name):
        raise PlanError(f"{where_is(st.tree.this)}Database does not exist: {name}")
    ctx.current_db = name


def set_statement(ctx: StatementContext, st: Statement) -> LocalFrame | None:
    """``SET`` lists, ``SET k`` shows, ``SET k=v`` sets (checked by the settings registry: a bad value is
    refused and the old one stays); ``spark.*`` keys go to the SparkSession too, ``hive.compactor.*`` keys
    start, restart or stop the compactor thread."""
    items = st.tree.expressions
    if not items:
        rows = sorted(f"{k}={v}" for k, v in ctx.settings.items())
        return ctx.rows([(r,) for r in rows], "set string")
    for item in items:
        node = item.this
        if isinstance(node, exp.EQ):
            key, value = node.this.name.strip(), node.expression.name.strip()
            ctx.settings.set(key, value)
            if key.startswith("spark."):
                ctx.spark.conf.set(key, value)
            if key.startswith("hive.compactor."):
                ctx.restart_compactor()
        else:
            key = node.name.strip()
            value = ctx.settings.get(key)
            text = f"{key}={value}" if value is not None else f"{key} is undefined"
            return ctx.rows([(text,)], "set string")
    return None


def describe(ctx: StatementContext, st: Statement) -> DataFrame | LocalFrame:
    node = st.tree.this
    kind = (st.tree.args.get("kind") or "").upper()
    if kind in ("DATABASE", "SCHEMA"):
        info = ctx.catalog.get_database(node.name.lower())
        return ctx.rows(
            [(info["name"], info.get("comment") or "", info["location"], info.get("owner") or "")],
            "db_name string, comment string, location string, owner_name string",
        )
    table = ctx.planner.resolve(node)
    style = st.tree.args.get("style")
    if style is not None and str(style).upper() == "HISTORY":
        return describe_history(ctx, table)
    return show.describe(ctx, table, str(style).upper() if style else None)


def show_statement(ctx: StatementContext, st: Statement) -> DataFrame | LocalFrame:
    tree = st.tree
    what = str(tree.this).upper()
    like = tree.args.get("like")
    pattern = like.name if like is not None else None
    if what in ("DATABASES", "SCHEMAS"):
        return show.show_databases(ctx, pattern)
    if what == "TABLES":
        db = tree.args.get("db")
        name = db.name.lower() if db is not None else ctx.current_db
        if not ctx.catalog.database_exists(name):
            raise PlanError(f"Database does not exist: {name}")
        return show.show_tables(ctx, name, pattern)
    if what == "VIEWS":
        db = tree.args.get("db")
        return views.show_views(ctx, db.name.lower() if db is not None else ctx.current_db, pattern)
    if what == "CREATE TABLE":
        return show.show_create_table(ctx, ctx.planner.resolve(tree.args["target"]))
    if what == "COLUMNS":
        table = ctx.planner.resolve(tree.args["target"])
        return ctx.rows([(c.name,) for c in table.all_columns], "field string")
    if what == "PARTITIONS":
        return ddl.show_partitions(ctx, ctx.planner.resolve(tree.args["target"]), tree.args.get("where"))
    raise UnsupportedStatementError(f"SHOW {what} is not supported yet", st.line, st.col)


def show_tblproperties(ctx: StatementContext, st: Statement) -> LocalFrame:
    table = ctx.planner.resolve(st.tree.this)
    key = st.tree.args.get("expression")
    return show.show_tblproperties(ctx, table, key.name if key is not None else None)


def show_views(ctx: StatementContext, tree: nodes.ShowViews) -> LocalFrame:
    db = tree.args.get("db")
    like = tree.args.get("like")
    return views.show_views(ctx, db.name.lower() if db is not None else ctx.current_db, like.name if like is not None else None)


def msck(ctx: StatementContext, tree: nodes.Msck) -> LocalFrame:
    """MSCK [REPAIR] TABLE t [ADD|DROP|SYNC PARTITIONS] (a bare MSCK only reports)."""
    table = ctx.planner.resolve(tree.this)
    mode = str(tree.args.get("mode") or "ADD") if tree.args.get("repair") else "CHECK"
    with ctx.txns.ddl_lock(txn_statements.ddl_lock_components(ctx, tree)):
        return ddl.msck_repair(ctx, table, mode)


#: node type -> handler; BEGIN / COMMIT / ROLLBACK are the Session's own (they change its transaction state).
HANDLERS: dict[type, Handler] = {
    exp.Insert: dml_statement,
    exp.Update: dml_statement,
    exp.Delete: dml_statement,
    exp.Merge: dml_statement,
    exp.TruncateTable: truncate,
    exp.Create: create,
    exp.Drop: drop,
    exp.Alter: alter,
    exp.Use: use,
    exp.Set: set_statement,
    exp.Describe: describe,
    exp.Show: show_statement,
    nodes.ShowTblProperties: show_tblproperties,
    nodes.Explain: explain_statement,
    nodes.ShowTransactions: lambda ctx, st: txn_statements.show_transactions(ctx),
    nodes.ShowLocks: lambda ctx, st: txn_statements.show_locks(ctx, cast(nodes.ShowLocks, st.tree)),
    nodes.ShowReadLeases: lambda ctx, st: txn_statements.show_read_leases(ctx, cast(nodes.ShowReadLeases, st.tree)),
    nodes.AbortTransactions: lambda ctx, st: txn_statements.abort_transactions(ctx, cast(nodes.AbortTransactions, st.tree)),
    nodes.Compact: lambda ctx, st: compaction.compact(ctx, cast(nodes.Compact, st.tree)),
    nodes.ShowCompactions: lambda ctx, st: compaction.show_compactions(ctx),
    nodes.Msck: lambda ctx, st: msck(ctx, cast(nodes.Msck, st.tree)),
    nodes.ShowViews: lambda ctx, st: show_views(ctx, cast(nodes.ShowViews, st.tree)),
}
