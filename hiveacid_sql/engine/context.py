"""What statement handlers and executors get instead of the :class:`~hiveacid_sql.engine.session.Session`.

Why: handlers used to take the Session and reach back into it (its transaction, its lock helper, its
binder, its private read leases), and the Session imported every handler, so ``engine/`` was one import
cycle. A :class:`StatementContext` holds what a statement needs — the SparkSession, catalog, store, typed
settings, current database, read leases — and the :class:`TransactionScope` (the open multi-statement
transaction, or a new auto-commit one per statement). It imports no handler; the Session builds one and
hands it to every handler it dispatches to.
"""

from __future__ import annotations

import getpass
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hiveacid_sql.acid.listing import is_uri
from hiveacid_sql.compactor.service import CompactorThread, wants_compactor
from hiveacid_sql.engine.transaction import Transaction, lock_components
from hiveacid_sql.errors import TxnAbortedError, TxnStateError
from hiveacid_sql.exec.binder import Binder
from hiveacid_sql.exec.frames import LocalFrame
from hiveacid_sql.exec.pruning import prune_partitions
from hiveacid_sql.exec.session import SparkHandle
from hiveacid_sql.exec.sources import view_lookup
from hiveacid_sql.plan.model import Plan, QueryPlan
from hiveacid_sql.plan.planner import Planner
from hiveacid_sql.settings import (
    DRIVER_POINT_MAX_ROWS,
    DRIVER_SCAN_MAX_ROWS,
    LOCK_RETRIES,
    LOCK_SLEEP,
    READ_LEASE_SECONDS,
    STRICT_CASTS,
    TXN_TIMEOUT,
    Settings,
)
from hiveacid_sql.txn import Snapshot, TableDef, TxnStore
from hiveacid_sql.txn.compactions import ReadLeases, now_ms
from hiveacid_sql.txn.heartbeat import UNTIL_DROPPED, Heartbeater
from hiveacid_sql.txn.locks import LockComponent

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from sqlglot import exp


class TransactionScope:
    """The transaction state of one connection: the open ``BEGIN ... COMMIT`` transaction (if any), why it
    was aborted (until ROLLBACK), and the transaction each statement runs in."""

    def __init__(self, store: TxnStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        # One heartbeat thread per connection: its transactions and its read leases, one store call a beat,
        # every half time-out (read anew: a SET hive.txn.timeout applies from the next beat on).
        self.heartbeat = Heartbeater(
            store, None, lambda: self.timeout_s / 2, lease_s=lambda: self.timeout_s,
            name="hiveacid-connection-heartbeat",
        )
        self.open: Transaction | None = None  # an explicit multi-statement transaction, when one is open
        self.aborted: str | None = None  # why the explicit transaction was aborted (until ROLLBACK/COMMIT)
        self._last_housekeeping = 0.0
        self._ddl_locked = False

    @property
    def timeout_s(self) -> float:
        """``hive.txn.timeout``: a transaction not heartbeated this long gets aborted."""
        return float(self.settings.value(TXN_TIMEOUT))

    def housekeeping(self) -> None:
        """Now and then (every half time-out at most), abort the store's timed-out transactions."""
        timeout = self.timeout_s
        now = time.monotonic()
        if now - self._last_housekeeping >= min(timeout / 2, 60.0):
            self._last_housekeeping = now
            self.store.abort_timed_out(timeout)

    def begin(self) -> None:
        """Open the multi-statement transaction (the caller checked none is open)."""
        self.housekeeping()
        self.open = Transaction(self.store, pinned=True, heartbeat=self.heartbeat)

    def lock_statement(self, txn: Transaction, plan: Plan, target_partitions: list[str] | None = None) -> None:
        """A statement's locks in its transaction, waiting per ``hive.lock.numretries`` and
        ``hive.lock.sleep.between.retries``; ``target_partitions``: see :func:`lock_components`."""
        txn.lock(
            lock_components(plan, target_partitions),
            retries=self.settings.value(LOCK_RETRIES),
            sleep_s=self.settings.value(LOCK_SLEEP),
        )

    @contextmanager
    def ddl_lock(self, components: list[LockComponent]) -> Iterator[None]:
        """An EXCLUSIVE lock of no transaction around a DDL statement (Hive's DDL_EXCLUSIVE)."""
        if self._ddl_locked:  # DROP DATABASE .. CASCADE dropping its tables: the database lock covers them
            yield
            return
        lock_id = self.store.locks.acquire(
            0, components, getpass.getuser(), socket.gethostname(),
            retries=self.settings.value(LOCK_RETRIES), sleep_s=self.settings.value(LOCK_SLEEP),
        )
        self._ddl_locked = True
        try:
            yield
        finally:
            self._ddl_locked = False
            self.store.locks.unlock(lock_id)

    def snapshot_for(self, tables: list[TableDef]) -> Snapshot:
        """What a statement would read now: the open transaction's snapshot, else the newest one."""
        if self.open is not None:
            return self.open.snapshot(tables)
        return self.store.snapshot(sorted({(t.db, t.name) for t in tables}))

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """The transaction a statement runs in: the open one, or a new one committed when the block ends
        (aborted, with its files removed, if the block fails). A statement failing inside the open
        transaction aborts all of it (Hive's rule); the connection then refuses statements until ROLLBACK."""
        if self.open is not None:
            txn = self.open
            try:
                yield txn
            except BaseException as exc:
                self.open = None
                txn.abort()
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                self.aborted = f"Transaction txnid:{txn.txn_id} was aborted because a statement failed: {reason}"
                if isinstance(exc, Exception):
                    raise TxnAbortedError(self.aborted) from exc
                raise
            return
        self.housekeeping()
        txn = Transaction(self.store, heartbeat=self.heartbeat)
        try:
            yield txn
            txn.commit()
        except BaseException:
            txn.abort()
            raise

    def require_open(self, operation: str) -> Transaction:
        if self.open is None:
            raise TxnStateError(
                f"Operation {operation} is not allowed since there is no active transaction (BEGIN first)"
            )
        return self.open


class StatementContext:
    """Spark, catalog, store, settings, current database and read leases of one connection, plus its
    :class:`TransactionScope`; ``run_tree`` runs a statement built in code (CTAS's INSERT, DROP DATABASE
    CASCADE's DROP TABLEs) through the connection's dispatch."""

    def __init__(
        self, spark: SparkHandle | SparkSession, warehouse: str, store: TxnStore, run_tree: Callable[[exp.Expr], Any]
    ) -> None:
        self.spark_handle = spark if isinstance(spark, SparkHandle) else SparkHandle(spark)
        self.warehouse = warehouse
        self.store = store
        self.catalog = store.catalog
        self.settings = Settings()
        self.current_db = "default"
        self.planner = Planner(
            lambda db, name: self.catalog.get_table(db, name), lambda: self.current_db,
            lambda: bool(self.settings.value(STRICT_CASTS)), is_view=view_lookup(self.spark_handle.running),
        )
        self.txns = TransactionScope(store, self.settings)
        self.read_leases = ReadLeases(store.engine)
        self.run_tree = run_tree
        self.compactor_thread: CompactorThread | None = None  # when hive.compactor.* settings ask for one
        # The DataFrames of the running ``acid.sql(.., name=df)`` call, by the temporary view naming each
        # (:func:`~hiveacid_sql.exec.sources.formatted_sources`): the binder reads the frames, not the views.
        self.source_frames: dict[str, DataFrame] = {}

    @property
    def lease_ids(self) -> list[int]:
        """The read leases of the DataFrames this connection returned that it still heartbeats."""
        return self.txns.heartbeat.held_leases()

    def hold_leases(self, tables: Sequence[tuple[str, str]], *, until_dropped: bool = False) -> list[int]:
        """Read leases on ``tables`` (db, name), heartbeated by the connection: each expires
        ``hive.txn.timeout`` after the connection's last beat (so a process that died, on any host, loses it
        that soon), and lasts at most ``hiveacid.read.lease.seconds`` (the files of a lazy DataFrame) unless
        ``until_dropped`` (a statement that releases it when done)."""
        timeout = self.txns.timeout_s
        term = float(self.settings.value(READ_LEASE_SECONDS))
        txn = self.txns.open
        seconds = timeout if until_dropped else min(timeout, term)
        end = UNTIL_DROPPED if until_dropped else now_ms() + int(term * 1000)  # taken first: within the term
        leases = self.read_leases.acquire(tables, seconds=seconds, txn_id=txn.txn_id if txn else None)
        self.txns.heartbeat.hold_leases(leases, end)
        return leases

    def release_leases(self, leases: Sequence[int] | None = None) -> None:
        """End read leases (None: all the connection holds): no longer heartbeated, and gone from the store."""
        heartbeat = self.txns.heartbeat
        leases = heartbeat.held_leases() if leases is None else leases
        heartbeat.drop_leases(leases)
        self.read_leases.release(leases)

    def end_heartbeats(self) -> None:
        """Closing: release every lease the connection holds and stop its heartbeat thread."""
        try:
            self.release_leases()
        finally:
            self.txns.heartbeat.stop()

    @property
    def spark(self) -> SparkSession:
        """The connection's SparkSession, started now if no statement needed it yet (see :class:`SparkHandle`)."""
        return self.spark_handle.get()

    def rows(self, rows: Sequence[Sequence[Any]], schema: str) -> LocalFrame:
        """A statement's result rows made here (SHOW, DESCRIBE ..): read without Spark, Spark's when asked for."""
        return LocalFrame(rows, schema, self.spark_handle.get)

    @contextmanager
    def reading(self, frames: dict[str, DataFrame]) -> Iterator[None]:
        """While the block runs, statements read ``frames`` (an ``acid.sql`` call's DataFrame arguments by
        their views' names) as frames (nested calls see the outer ones too)."""
        outer, self.source_frames = self.source_frames, {**self.source_frames, **frames}
        try:
            yield
        finally:
            self.source_frames = outer

    def restart_compactor(self) -> None:
        """Start, restart or stop the compactor thread to match the ``hive.compactor.*`` settings."""
        if self.compactor_thread is not None:
            self.compactor_thread.stop()
            self.compactor_thread = None
        if wants_compactor(self.settings):
            self.compactor_thread = CompactorThread(self.spark, self.store, self.settings).start()

    @property
    def current_transaction(self) -> Transaction | None:
        return self.txns.open

    def transaction(self) -> Any:
        """See :meth:`TransactionScope.transaction`."""
        return self.txns.transaction()

    def lock_statement(self, txn: Transaction, plan: Plan) -> None:
        self.txns.lock_statement(txn, plan, self._partitions_to_lock(plan))

    def _partitions_to_lock(self, plan: Plan) -> list[str] | None:
        """The target partitions an UPDATE / DELETE / MERGE can write, when its predicate prunes the target's
        partitions (Hive locks the partitions its compiler pruned to); None: lock the table. They are pruned
        from the catalog's list as of now, before the snapshot: a partition a concurrent INSERT adds meanwhile
        is written without its lock, and the write-set check at COMMIT still catches a conflict there."""
        target, pruning = plan.target, plan.reads.target_pruning
        if (
            target is None
            or not target.is_partitioned
            or not plan.writes_partitions_read
            or pruning is None
            or pruning.partition_filter is None
        ):
            return None
        partitions = self.catalog.list_partitions(target.db, target.name)
        return prune_partitions(self.spark, target, partitions, pruning.partition_filter)

    def snapshot_for(self, tables: list[TableDef]) -> Snapshot:
        return self.txns.snapshot_for(tables)

    def bound(self, snapshot: Snapshot) -> Binder:
        """A binder for one statement at ``snapshot``, with this connection's catalog (partitions, their write
        ids, the write history for time travel); use it in ``with`` so its views are dropped."""
        return Binder(
            self.spark, snapshot, self.current_db, self.catalog.list_partitions,
            self.catalog.partition_write_ids, self.store.table_history, self.source_frames,
            driver_scan_max_rows=self.settings.value(DRIVER_SCAN_MAX_ROWS),
            driver_point_max_rows=self.settings.value(DRIVER_POINT_MAX_ROWS),
        )

    def resolve_location(self, location: str) -> str:
        """Absolute form of a user-given location (relative paths are relative to the working directory)."""
        if is_uri(location):
            return location
        return str(Path(location).expanduser().resolve())

    def query_frame(self, tree: exp.Expr) -> DataFrame:
        """A query over snapshot views; every ACID table in it is read at one snapshot."""
        plan = self.planner.plan_query(tree)
        # The lease comes before the snapshot and the listing: the cleaner keeps every file this query reads
        # (the returned DataFrame is lazy) for hiveacid.read.lease.seconds while the connection lives and
        # heartbeats, or until it closes.
        acid_tables = sorted({(t.db, t.name) for t in plan.reads.tables if t.is_transactional})
        leases = self.hold_leases(acid_tables)
        try:
            return self._query_in_snapshot(plan)
        except BaseException:
            self.release_leases(leases)
            raise

    def _query_in_snapshot(self, plan: QueryPlan) -> DataFrame:
        if self.txns.open is None:  # auto-commit reads take no locks: a snapshot of files needs none
            snapshot = self.store.snapshot(sorted({(t.db, t.name) for t in plan.reads.tables}))
            with self.bound(snapshot) as binder:
                return binder.run(plan.query, plan.reads)
        with self.transaction() as txn:
            self.lock_statement(txn, plan)
            snapshot = txn.snapshot(plan.reads.tables)
            with self.bound(snapshot) as binder:
                return binder.run(plan.query, plan.reads)
