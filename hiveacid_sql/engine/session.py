"""The user's handle: ``acid = hiveacid_sql.connect(...)``, then ``acid.sql("...")``.

Flow of one statement, top to bottom: parse (sqlglot HiveAcid dialect) -> plan (catalog lookups, no
files) -> execute (Spark jobs over snapshot views, ORC writers in tasks) -> commit in the transaction
store. Queries return a Spark DataFrame, DML returns a :class:`DmlResult`, catalog statements return a
(possibly empty) DataFrame, as ``spark.sql`` does.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from sqlglot import exp

from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.engine import compaction, ddl, show, txn_statements
from hiveacid_sql.engine.binder import Binder
from hiveacid_sql.engine.dml import DmlRunner
from hiveacid_sql.engine.dryrun import dry_run_frame
from hiveacid_sql.engine.explain import explain
from hiveacid_sql.engine.history import describe_history
from hiveacid_sql.engine.transaction import Transaction, lock_components
from hiveacid_sql.errors import (
    HiveAcidError,
    PlanError,
    TxnAbortedError,
    TxnStateError,
    UnsupportedStatementError,
)
from hiveacid_sql.exec.session import local_session
from hiveacid_sql.plan.planner import Planner
from hiveacid_sql.results import DmlResult
from hiveacid_sql.settings import LOCK_RETRIES, LOCK_SLEEP, READ_LEASE_SECONDS, TXN_TIMEOUT, Settings
from hiveacid_sql.sql import nodes
from hiveacid_sql.sql.parse import Statement, parse
from hiveacid_sql.sql.tree import is_query, where_is
from hiveacid_sql.txn import Snapshot, TxnStore
from hiveacid_sql.txn.compactions import ReadLeases

Result = DataFrame | DmlResult
#: Statements a dry run (``dry_run=True``, ``EXPLAIN ANALYZE``) answers with the rows they would change.
DRY_RUN_TYPES = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.TruncateTable)

#: Statements Hive refuses inside a multi-statement transaction (DDL, and ending other transactions).
_NOT_IN_TRANSACTION = (exp.Create, exp.Drop, exp.Alter, exp.TruncateTable, nodes.AbortTransactions, nodes.Compact)


class Session:
    """One connection: a SparkSession, a warehouse, a transaction store and session settings."""

    def __init__(self, spark: SparkSession, warehouse: str, store: TxnStore, *, owns_spark: bool = False) -> None:
        self.spark = spark
        self.warehouse = warehouse
        self.store = store
        self.catalog = store.catalog
        self.current_db = "default"
        self.settings = Settings()
        self.planner = Planner(self.catalog.get_table, lambda: self.current_db)
        self._dml = DmlRunner(self)
        self._owns_spark = owns_spark
        self._closed = False
        self._txn: Transaction | None = None  # an explicit multi-statement transaction, when one is open
        self._aborted_txn: str | None = None  # why the explicit transaction was aborted (until ROLLBACK/COMMIT)
        self._last_housekeeping = 0.0
        self._ddl_locked = False
        self._read_leases = ReadLeases(store.engine)
        self._lease_ids: list[int] = []  # leases of the DataFrames this session returned
        self._compactor_thread = None  # a CompactorThread when hive.compactor.* settings ask for one
        self._handlers: dict[type, Callable[[Statement], Result | None]] = {
            exp.Insert: self._dml_statement,
            exp.Update: self._dml_statement,
            exp.Delete: self._dml_statement,
            exp.Merge: self._dml_statement,
            exp.TruncateTable: self._truncate,
            exp.Create: self._create,
            exp.Drop: self._drop,
            exp.Alter: self._alter,
            exp.Use: self._use,
            exp.Set: self._set,
            exp.Describe: self._describe,
            exp.Show: self._show,
            nodes.ShowTblProperties: self._show_tblproperties,
            nodes.Explain: self._explain,
            exp.Transaction: lambda st: self.begin(),
            exp.Commit: lambda st: self.commit(),
            exp.Rollback: lambda st: self.rollback(),
            nodes.ShowTransactions: lambda st: txn_statements.show_transactions(self),
            nodes.ShowLocks: lambda st: txn_statements.show_locks(self, st.tree),
            nodes.AbortTransactions: lambda st: txn_statements.abort_transactions(self, st.tree),
            nodes.Compact: lambda st: compaction.compact(self, st.tree),
            nodes.ShowCompactions: lambda st: compaction.show_compactions(self),
        }

    # -- public API -------------------------------------------------------------------------------
    def sql(self, text: str, *, dry_run: bool = False) -> Result | None:
        """Run one statement or several separated by ``;``; return the last one's result.

        ``dry_run``: DML statements return the rows they would change (a DataFrame, see
        :mod:`hiveacid_sql.engine.dryrun`) and commit nothing; queries run as usual; anything else is refused.
        """
        self._check_open()
        result: Result | None = None
        for statement in parse(text):
            result = self.run_statement(statement, dry_run=dry_run)
        return result

    def table(self, name: str) -> DataFrame:
        """The live rows of a table as a DataFrame (``db.table`` or a name in the current database)."""
        return self.sql(f"SELECT * FROM {name}")  # type: ignore[return-value]

    def close(self) -> None:
        """Release the store (and the SparkSession if this connection started it); an open transaction
        is rolled back."""
        if self._closed:
            return
        if self._txn is not None:
            try:
                self._txn.abort()
            finally:
                self._txn = None
        self._closed = True
        if self._compactor_thread is not None:
            self._compactor_thread.stop()
        with contextlib.suppress(Exception):
            self._read_leases.release(self._lease_ids)
        self.store.close()
        if self._owns_spark:
            self.spark.stop()

    # -- multi-statement transactions -------------------------------------------------------------
    def begin(self) -> None:
        """BEGIN / START TRANSACTION: statements until COMMIT or ROLLBACK share one transaction, reading
        committed data as of now plus their own writes."""
        self._check_open()
        if self._txn is not None or self._aborted_txn is not None:
            current = f"txnid:{self._txn.txn_id}" if self._txn is not None else "(aborted)"
            raise TxnStateError(
                f"Operation START TRANSACTION is not allowed in a transaction.  TransactionID={current}."
            )
        self._housekeeping()
        self._txn = Transaction(self.store, pinned=True, heartbeat_s=self.txn_timeout_s / 2)

    def commit(self) -> None:
        """COMMIT the open transaction; a write conflict aborts it instead (TxnAbortedError)."""
        self._check_open()
        if self._aborted_txn is not None:
            reason, self._aborted_txn = self._aborted_txn, None
            raise TxnAbortedError(f"{reason}; nothing was committed")
        txn = self._require_txn("COMMIT")
        self._txn = None
        try:
            txn.commit()
        except BaseException as exc:
            txn.abort()  # removes its files (a no-op if the commit already ended it)
            if isinstance(exc, TxnAbortedError):  # a write conflict, or timed out / aborted meanwhile
                raise TxnAbortedError(
                    f"Transaction manager has aborted the transaction txnid:{txn.txn_id}.  Reason: {exc}"
                ) from exc
            raise

    def rollback(self) -> None:
        """ROLLBACK: abort the open transaction; its files become invisible and are removed."""
        self._check_open()
        if self._aborted_txn is not None:
            self._aborted_txn = None
            return
        txn = self._require_txn("ROLLBACK")
        self._txn = None
        txn.abort()

    @property
    def in_transaction(self) -> bool:
        """True between BEGIN and its COMMIT / ROLLBACK (also once a failure aborted the transaction)."""
        return self._txn is not None or self._aborted_txn is not None

    @contextmanager
    def atomic(self) -> Iterator[Session]:
        """``with acid.atomic():`` BEGIN, COMMIT at the end, ROLLBACK if the block raises."""
        self.begin()
        try:
            yield self
        except BaseException:
            if self.in_transaction:
                self.rollback()
            raise
        self.commit()

    @property
    def current_transaction(self) -> Transaction | None:
        """The open multi-statement transaction, if any."""
        return self._txn

    @property
    def txn_timeout_s(self) -> float:
        """``hive.txn.timeout`` (default 300s): a transaction not heartbeated this long gets aborted."""
        return float(self.settings.value(TXN_TIMEOUT))

    def _require_txn(self, operation: str) -> Transaction:
        if self._txn is None:
            raise TxnStateError(
                f"Operation {operation} is not allowed since there is no active transaction (BEGIN first)"
            )
        return self._txn

    def _housekeeping(self) -> None:
        """Now and then (every half time-out at most), abort the store's timed-out transactions."""
        timeout = self.txn_timeout_s
        now = time.monotonic()
        if now - self._last_housekeeping >= min(timeout / 2, 60.0):
            self._last_housekeeping = now
            self.store.abort_timed_out(timeout)

    def lock_statement(self, txn: Transaction, plan: object) -> None:
        """A statement's locks in its transaction, waiting per ``hive.lock.numretries`` and
        ``hive.lock.sleep.between.retries``."""
        retries, sleep_s = self.settings.value(LOCK_RETRIES), self.settings.value(LOCK_SLEEP)
        txn.lock(lock_components(plan), retries=retries, sleep_s=sleep_s)

    @contextmanager
    def _ddl_lock(self, components: list) -> Iterator[None]:
        """An EXCLUSIVE lock of no transaction around a DDL statement (Hive's DDL_EXCLUSIVE)."""
        import getpass
        import socket

        retries, sleep_s = self.settings.value(LOCK_RETRIES), self.settings.value(LOCK_SLEEP)
        if self._ddl_locked:  # DROP DATABASE .. CASCADE dropping its tables: the database lock covers them
            yield
            return
        lock_id = self.store.locks.acquire(
            0, components, getpass.getuser(), socket.gethostname(), retries=retries, sleep_s=sleep_s
        )
        self._ddl_locked = True
        try:
            yield
        finally:
            self._ddl_locked = False
            self.store.locks.unlock(lock_id)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing used by the statement handlers ---------------------------------------------------
    def run_statement(self, statement: Statement, *, dry_run: bool = False) -> Result | None:
        """Run one parsed statement (``dry_run``: as in :meth:`sql`)."""
        tree = statement.tree
        if self._aborted_txn is not None and not isinstance(tree, exp.Commit | exp.Rollback):
            raise TxnAbortedError(f"{self._aborted_txn}; only ROLLBACK (or COMMIT) may follow")
        if self._txn is not None and isinstance(tree, _NOT_IN_TRANSACTION):
            operation = " ".join(statement.text.split()[:2]).upper()
            raise TxnStateError(
                f"Operation {operation} is not allowed in a transaction.  TransactionID=txnid:{self._txn.txn_id}."
            )
        if is_query(tree):
            return self.query_frame(tree)
        if dry_run:
            return self.dry_run(statement)
        handler = self._handlers.get(type(tree))
        if handler is None:
            raise UnsupportedStatementError(
                f"{statement.text.split()[0].upper()} statements are not supported yet: {statement.text[:60]}",
                statement.line,
                statement.col,
            )
        result = handler(statement)
        return result if result is not None else self.spark.createDataFrame([], "result string")

    def run_statement_tree(self, tree: exp.Expression) -> Result | None:
        """Run a statement built in code (e.g. the INSERT half of CREATE TABLE AS SELECT)."""
        return self.run_statement(Statement(tree=tree, text=tree.sql(dialect="hiveacid"), line=1, col=1))

    def dry_run(self, statement: Statement) -> DataFrame:
        """The rows a DML statement would change, with old and new values; nothing is committed or written."""
        tree = statement.tree
        if not isinstance(tree, DRY_RUN_TYPES):
            raise UnsupportedStatementError(
                f"a dry run covers INSERT, UPDATE, DELETE, MERGE and TRUNCATE, not {statement.text.split()[0].upper()}",
                statement.line,
                statement.col,
            )
        if isinstance(tree, exp.TruncateTable) and len(tree.expressions) != 1:
            raise UnsupportedStatementError("a dry run of TRUNCATE takes one table", statement.line, statement.col)
        plan = self.planner.plan(tree)
        reads = getattr(plan, "reads", None)
        tables = {t.qualified_name: t for t in (reads.tables if reads else ())}
        tables[plan.target.qualified_name] = plan.target
        return dry_run_frame(self, plan, self.snapshot_for(list(tables.values())))

    def _explain(self, st: Statement) -> DataFrame:
        kind = st.tree.args.get("kind")
        inner = st.tree.this
        if kind == "ANALYZE" and isinstance(inner, DRY_RUN_TYPES):
            return self.dry_run(Statement(tree=inner, text=st.text, line=st.line, col=st.col))
        return explain(self, inner, kind)

    def query_frame(self, tree: exp.Expression) -> DataFrame:
        """A query over snapshot views; every ACID table in it is read at one snapshot."""
        plan = self.planner.plan_query(tree)
        # The lease comes before the snapshot and the listing: the cleaner keeps every file this query reads
        # (the returned DataFrame is lazy) for hiveacid.read.lease.seconds, or until the session closes.
        acid_tables = sorted({(t.db, t.name) for t in plan.reads.tables if t.is_transactional})
        seconds = self.settings.value(READ_LEASE_SECONDS)
        leases = self._read_leases.acquire(
            acid_tables, seconds=seconds, txn_id=self._txn.txn_id if self._txn else None
        )
        try:
            frame = self._query_in_snapshot(plan)
        except BaseException:
            self._read_leases.release(leases)
            raise
        self._lease_ids.extend(leases)
        return frame

    def _query_in_snapshot(self, plan) -> DataFrame:
        if self._txn is None:  # auto-commit reads take no locks: a snapshot of files needs none
            snapshot = self.store.snapshot(sorted({(t.db, t.name) for t in plan.reads.tables}))
            with self.bound(snapshot) as binder:
                return binder.run(plan.query, plan.reads)
        with self.transaction() as txn:
            self.lock_statement(txn, plan)
            snapshot = txn.snapshot(plan.reads.tables)
            with self.bound(snapshot) as binder:
                return binder.run(plan.query, plan.reads)

    def bound(self, snapshot: Snapshot) -> Binder:
        """A binder for one statement at ``snapshot``, with this session's catalog (partitions, their write
        ids, the write history for time travel); use it in ``with`` so its views are dropped."""
        return Binder(
            self.spark, snapshot, self.current_db, self.catalog.list_partitions,
            self.catalog.partition_write_ids, self.store.table_history,
        )

    def snapshot_for(self, tables: list) -> Snapshot:
        """What a statement would read now: the open transaction's snapshot, else the newest one."""
        if self._txn is not None:
            return self._txn.snapshot(tables)
        return self.store.snapshot(sorted({(t.db, t.name) for t in tables}))

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """The transaction a statement runs in: the open one, or a new one committed when the block ends
        (aborted, with its files removed, if the block fails). A statement failing inside the open
        transaction aborts all of it (Hive's rule); the session then refuses statements until ROLLBACK."""
        if self._txn is not None:
            txn = self._txn
            try:
                yield txn
            except BaseException as exc:
                self._txn = None
                txn.abort()
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                self._aborted_txn = f"Transaction txnid:{txn.txn_id} was aborted because a statement failed: {reason}"
                if isinstance(exc, Exception):
                    raise TxnAbortedError(self._aborted_txn) from exc
                raise
            return
        self._housekeeping()
        txn = Transaction(self.store, heartbeat_s=self.txn_timeout_s / 2)
        try:
            yield txn
            txn.commit()
        except BaseException:
            txn.abort()
            raise

    def resolve_location(self, location: str) -> str:
        """Absolute form of a user-given location (relative paths are relative to the working directory)."""
        if "://" in location:
            return location
        return str(Path(location).expanduser().resolve())

    def _check_open(self) -> None:
        if self._closed:
            raise HiveAcidError("this connection is closed")

    # -- statement handlers ------------------------------------------------------------------------
    def _dml_statement(self, st: Statement) -> DmlResult:
        plan = self.planner.plan(st.tree)
        if self._txn is not None and not plan.target.is_transactional:
            raise TxnStateError(
                f"Writing non-transactional table {plan.target.qualified_name} is not allowed in a transaction "
                f"(it could not be rolled back).  TransactionID=txnid:{self._txn.txn_id}."
            )
        return self._dml.run(plan, st.text)

    def _truncate(self, st: Statement) -> DmlResult | None:
        result = None
        for table in st.tree.expressions:
            result = self._dml.run(self.planner.plan_truncate(table), st.text)
        return result

    def _create(self, st: Statement) -> None:
        kind = (st.tree.args.get("kind") or "").upper()
        if kind == "TABLE":
            ddl.create_table(self, st.tree)
        elif kind in ("DATABASE", "SCHEMA"):
            ddl.create_database(self, st.tree)
        else:
            raise UnsupportedStatementError(f"CREATE {kind} is not supported", st.line, st.col)

    def _drop(self, st: Statement) -> None:
        with self._ddl_lock(txn_statements.ddl_lock_components(self, st.tree)):
            ddl.drop(self, st.tree)

    def _alter(self, st: Statement) -> None:
        with self._ddl_lock(txn_statements.ddl_lock_components(self, st.tree)):
            ddl.alter_table(self, st.tree)

    def _use(self, st: Statement) -> None:
        name = st.tree.this.name.lower()
        if not self.catalog.database_exists(name):
            raise PlanError(f"{where_is(st.tree.this)}Database does not exist: {name}")
        self.current_db = name

    def _set(self, st: Statement) -> DataFrame | None:
        items = st.tree.expressions
        if not items:
            rows = sorted(f"{k}={v}" for k, v in self.settings.items())
            return self.spark.createDataFrame([(r,) for r in rows], "set string")
        for item in items:
            node = item.this
            if isinstance(node, exp.EQ):
                key, value = node.this.name.strip(), node.expression.name.strip()
                self.settings.set(key, value)  # a bad value is refused here, the old one stays
                if key.startswith("spark."):
                    self.spark.conf.set(key, value)
                if key.startswith("hive.compactor."):
                    self._restart_compactor()
            else:
                key = node.name.strip()
                value = self.settings.get(key)
                text = f"{key}={value}" if value is not None else f"{key} is undefined"
                return self.spark.createDataFrame([(text,)], "set string")
        return None

    def _restart_compactor(self) -> None:
        """Start, restart or stop the compactor thread to match the ``hive.compactor.*`` settings."""
        from hiveacid_sql.compactor.service import CompactorThread, wants_compactor

        if self._compactor_thread is not None:
            self._compactor_thread.stop()
            self._compactor_thread = None
        if wants_compactor(self.settings):
            self._compactor_thread = CompactorThread(self.spark, self.store, self.settings).start()

    def _describe(self, st: Statement) -> DataFrame:
        node = st.tree.this
        kind = (st.tree.args.get("kind") or "").upper()
        if kind in ("DATABASE", "SCHEMA"):
            info = self.catalog.get_database(node.name.lower())
            return self.spark.createDataFrame(
                [(info["name"], info.get("comment") or "", info["location"], info.get("owner") or "")],
                "db_name string, comment string, location string, owner_name string",
            )
        table = self.planner.resolve(node)
        style = st.tree.args.get("style")
        if style is not None and str(style).upper() == "HISTORY":
            return describe_history(self, table)
        return show.describe(self, table, str(style).upper() if style else None)

    def _show(self, st: Statement) -> DataFrame:
        tree = st.tree
        what = str(tree.this).upper()
        like = tree.args.get("like")
        pattern = like.name if like is not None else None
        if what in ("DATABASES", "SCHEMAS"):
            return show.show_databases(self, pattern)
        if what == "TABLES":
            db = tree.args.get("db")
            name = db.name.lower() if db is not None else self.current_db
            if not self.catalog.database_exists(name):
                raise PlanError(f"Database does not exist: {name}")
            return show.show_tables(self, name, pattern)
        if what == "CREATE TABLE":
            return show.show_create_table(self, self.planner.resolve(tree.args["target"]))
        if what == "COLUMNS":
            table = self.planner.resolve(tree.args["target"])
            return self.spark.createDataFrame([(c.name,) for c in table.all_columns], "field string")
        if what == "PARTITIONS":
            return ddl.show_partitions(self, self.planner.resolve(tree.args["target"]), tree.args.get("where"))
        raise UnsupportedStatementError(f"SHOW {what} is not supported yet", st.line, st.col)

    def _show_tblproperties(self, st: Statement) -> DataFrame:
        table = self.planner.resolve(st.tree.this)
        key = st.tree.args.get("expression")
        return show.show_tblproperties(self, table, key.name if key is not None else None)


def connect(
    spark: SparkSession | None = None,
    warehouse: str | os.PathLike[str] | None = None,
    store_url: str | None = None,
    **conf: Any,
) -> Session:
    """Open a hiveacid-sql connection.

    With no arguments: a local SparkSession (UTC, quiet), ``./warehouse`` as the warehouse and a SQLite
    store file ``<warehouse>/.hiveacid/txn.db`` inside it. Other keyword arguments are Spark settings
    for a session this call starts (``connect(**{"spark.sql.shuffle.partitions": "4"})``, or
    ``spark_conf={...}``); ``master`` picks the Spark master (default ``local[*]``).
    """
    if warehouse is None:
        warehouse = Path.cwd() / "warehouse"
    warehouse_uri = str(warehouse)
    if "://" not in warehouse_uri:
        warehouse_uri = str(Path(warehouse_uri).expanduser().resolve())
    fs, path = filesystem_for(warehouse_uri)
    fs.create_dir(path, recursive=True)
    if store_url is None:
        if "://" in warehouse_uri and not warehouse_uri.startswith("file://"):
            raise HiveAcidError("a warehouse that is not on the local disk needs an explicit store_url")
        store_dir = Path(path) / ".hiveacid"
        store_dir.mkdir(parents=True, exist_ok=True)
        store_url = f"sqlite:///{store_dir / 'txn.db'}"
    master = str(conf.pop("master", "local[*]"))
    spark_conf = {k: str(v) for k, v in (conf.pop("spark_conf", None) or {}).items()}
    spark_conf.update({str(k): str(v) for k, v in conf.items()})
    owns = spark is None
    if spark is None:
        spark = local_session(spark_conf, master=master)
    store = TxnStore(store_url, default_db_location=warehouse_uri)
    return Session(spark, warehouse_uri, store, owns_spark=owns)


__all__ = ["Session", "connect"]
