"""SHOW TRANSACTIONS, SHOW LOCKS, SHOW READ LEASES, ABORT TRANSACTIONS, and the locks DDL statements take.

Column names and values as Hive 3.1 prints them: SHOW TRANSACTIONS with the CLI header names, SHOW LOCKS
with HiveServer2's schema names; states and lock types spelled out (OPEN, ACQUIRED, SHARED_READ), lock ids
as ``external.internal``, times in epoch milliseconds. SHOW READ LEASES is ours (Hive has no read leases)
and follows SHOW LOCKS' naming.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from hiveacid_sql.errors import PlanError
from hiveacid_sql.exec.routing import partition_dir_of
from hiveacid_sql.plan.partition_spec import static_spec
from hiveacid_sql.sql import nodes
from hiveacid_sql.sql.tree import table_names
from hiveacid_sql.txn.compactions import ReadLeases
from hiveacid_sql.txn.locks import EXCLUSIVE, LockComponent

if TYPE_CHECKING:

    from hiveacid_sql.engine.context import StatementContext
    from hiveacid_sql.exec.frames import LocalFrame

_TXN_COLUMNS = (
    "`Transaction ID` bigint, `Transaction State` string, `Started Time` bigint, `Last Heartbeat Time` bigint, "
    "`User` string, `Hostname` string"
)

_LOCK_COLUMNS = (
    "`lockid` string, `database` string, `table` string, `partition` string, `lock_state` string, "
    "`blocked_by` string, `lock_type` string, `transaction_id` bigint, `last_heartbeat` bigint, "
    "`acquired_at` bigint, `user` string, `hostname` string, `agent_info` string"
)


def show_transactions(ctx: StatementContext) -> LocalFrame:
    """Open and aborted transactions (committed ones have no TXNS row in Hive 3.1)."""
    rows = [
        (t["txn_id"], t["state"].upper(), t["started"], t["last_heartbeat"], t["user"], t["host"])
        for t in ctx.store.list_txns()
    ]
    return ctx.rows(rows, _TXN_COLUMNS)


def show_locks(ctx: StatementContext, tree: nodes.ShowLocks) -> LocalFrame:
    """Every lock, or those on one table (and the table's locks covering one partition). EXTENDED shows
    the same columns, as Hive 3.1's DbTxnManager does."""
    db = table = partition = None
    target = tree.args.get("this")
    if target is not None:
        tdef = ctx.planner.resolve(target)
        db, table = tdef.db, tdef.name
        spec = tree.args.get("partition")
        if spec is not None:
            partition = partition_dir_of(ctx.spark, tdef, static_spec(tdef, spec, "SHOW LOCKS ... PARTITION (...)"))
    locks = ctx.store.locks.show_locks(db, table)
    if partition is not None:
        locks = [lock for lock in locks if lock["partition"] in (None, partition)]
    rows = [
        (
            f"{lk['lock_id']}.{lk['lock_int_id']}", lk["db"], lk["table"], lk["partition"], lk["state"],
            lk["blocked_by"], lk["type"], lk["txn_id"], lk["last_heartbeat"], lk["acquired_at"], lk["user"],
            lk["host"], lk["agent_info"],
        )
        for lk in locks
    ]
    return ctx.rows(rows, _LOCK_COLUMNS)


_LEASE_COLUMNS = (
    "`leaseid` bigint, `database` string, `table` string, `transaction_id` bigint, `acquired_at` bigint, "
    "`expires_at` bigint, `hostname` string, `agent_info` string, `holder_state` string, `blocks_cleaning` string"
)


def show_read_leases(ctx: StatementContext, tree: nodes.ShowReadLeases) -> LocalFrame:
    """The live read leases (of one table), by id: who holds each (host, ``hiveacid-sql pid N``, and whether
    that process still runs: RUNNING / GONE / UNKNOWN for another host's), until when, and which compactions
    'ready for cleaning' wait for it (``compaction 3, 5``), so a user sees why the cleaner waits."""
    db = table = None
    target = tree.args.get("this")
    if target is not None:
        tdef = ctx.planner.resolve(target)
        db, table = tdef.db, tdef.name
    rows = [
        (
            r.lease_id, r.db, r.table, r.txn_id, r.started, r.expires, r.host, r.agent_info, r.holder,
            "compaction " + ", ".join(map(str, r.blocks_cleaning)) if r.blocks_cleaning else None,
        )
        for r in ReadLeases(ctx.store.engine).show(db, table)
    ]
    return ctx.rows(rows, _LEASE_COLUMNS)


def abort_transactions(ctx: StatementContext, tree: nodes.AbortTransactions) -> LocalFrame:
    """ABORT TRANSACTIONS 1 2 3: abort the open ones; one row per id says what happened (Hive only logs
    the ids it could not abort)."""
    ids = []
    for literal in tree.expressions:
        try:
            ids.append(int(literal.name))
        except ValueError as exc:
            raise PlanError(f"Not a transaction id: {literal.sql()}") from exc
    outcome = ctx.store.abort_txns(ids)
    rows = [(txn_id, result) for txn_id, result in outcome.items()]
    return ctx.rows(rows, "txnid bigint, result string")


def ddl_lock_components(ctx: StatementContext, tree: exp.Expr) -> list[LockComponent]:
    """DROP TABLE / ALTER TABLE lock the table EXCLUSIVE, DROP DATABASE the database (Hive 3.1)."""
    kind = (tree.args.get("kind") or "").upper()
    if isinstance(tree, exp.Drop) and kind in ("DATABASE", "SCHEMA"):
        nodes_ = tree.args.get("tables") or [tree.this]
        return [LockComponent(n.name.lower(), None, None, EXCLUSIVE) for n in nodes_]
    nodes_ = (tree.args.get("tables") or [tree.this]) if isinstance(tree, exp.Drop) else [tree.this]
    comps = []
    for node in nodes_:
        if isinstance(node, exp.Table):
            db, name = table_names(node, ctx.current_db)
            comps.append(LockComponent(db, name, None, EXCLUSIVE))
    return comps or [LockComponent(ctx.current_db, None, None, EXCLUSIVE)]
