"""The user's handle: ``acid = hiveacid_sql.connect(...)``, then ``acid.sql("...")``: parse -> plan -> execute
-> commit. Queries return a Spark DataFrame, SHOW / DESCRIBE / SET a ``LocalFrame``, DML a :class:`DmlResult`, other
statements a ``StatementResult``. The Session keeps the public API, the transaction state and the dispatch to
:mod:`hiveacid_sql.engine.statements`; handlers get a :class:`StatementContext`, never the Session."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from hiveacid_sql.engine import statements
from hiveacid_sql.engine.context import StatementContext
from hiveacid_sql.engine.table import TableApi
from hiveacid_sql.engine.transaction import Transaction
from hiveacid_sql.errors import HiveAcidError, TxnAbortedError, TxnStateError, UnsupportedStatementError
from hiveacid_sql.exec.expressions import quiet_spark_errors, without_call_sites
from hiveacid_sql.exec.session import SparkHandle
from hiveacid_sql.exec.sources import formatted_sources
from hiveacid_sql.plan.planner import Planner
from hiveacid_sql.settings import Settings
from hiveacid_sql.sql import nodes
from hiveacid_sql.sql.parse import Statement, parse
from hiveacid_sql.sql.tree import is_query
from hiveacid_sql.txn import TxnStore
from hiveacid_sql.txn.catalog import Catalog

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: Statements Hive refuses inside a multi-statement transaction (DDL, and ending other transactions).
_NOT_IN_TRANSACTION = (
    exp.Create, exp.Drop, exp.Alter, exp.TruncateTable, nodes.AbortTransactions, nodes.Compact, nodes.Msck,
)


class Session(TableApi):
    """One connection: a SparkSession, a warehouse, a transaction store and session settings."""

    def __init__(self, spark: SparkHandle | SparkSession, warehouse: str, store: TxnStore, *, owns_spark: bool = False) -> None:
        self.ctx = StatementContext(spark, warehouse, store, run_tree=self.run_statement_tree)
        self._owns_spark = owns_spark
        self._closed = False

    # -- what a connection holds ------------------------------------------------------------------
    spark: SparkSession = property(lambda self: self.ctx.spark)  # type: ignore[assignment]  # starts it if needed
    warehouse: str = property(lambda self: self.ctx.warehouse)  # type: ignore[assignment]
    store: TxnStore = property(lambda self: self.ctx.store)  # type: ignore[assignment]
    catalog: Catalog = property(lambda self: self.ctx.catalog)  # type: ignore[assignment]
    settings: Settings = property(lambda self: self.ctx.settings)  # type: ignore[assignment]
    planner: Planner = property(lambda self: self.ctx.planner)  # type: ignore[assignment]
    current_db: str = property(lambda self: self.ctx.current_db)  # type: ignore[assignment]

    def running_spark(self) -> SparkSession | None:
        """The SparkSession if it runs, else None (:attr:`spark` starts it: a local one starts when needed)."""
        return self.ctx.spark_handle.started

    @property
    def txn_timeout_s(self) -> float:
        """``hive.txn.timeout`` (default 300s): a transaction not heartbeated this long gets aborted."""
        return self.ctx.txns.timeout_s

    # -- public API -------------------------------------------------------------------------------
    def sql(self, text: str, *, dry_run: bool = False, **kwargs: Any) -> statements.Result | None:
        """Run statements separated by ``;``, return the last result. ``dry_run``: DML returns the rows it would
        change (:mod:`~hiveacid_sql.exec.dryrun`). ``kwargs`` fill ``{name}`` fields as ``spark.sql`` does."""
        self._check_open()
        result: statements.Result | None = None
        sources = formatted_sources(self.ctx.spark_handle.get, text, kwargs)
        with sources as (formatted, frames), quiet_spark_errors(), without_call_sites(), self.ctx.reading(frames):
            for statement in parse(formatted):
                result = self.run_statement(statement, dry_run=dry_run)
        return result

    def close(self) -> None:
        """Release the store (and the SparkSession if this connection started it); an open transaction
        is rolled back."""
        if self._closed:
            return
        txns = self.ctx.txns
        if txns.open is not None:
            try:
                txns.open.abort()
            finally:
                txns.open = None
        self._closed = True
        if self.ctx.compactor_thread is not None:
            self.ctx.compactor_thread.stop()
        with contextlib.suppress(Exception):
            self.ctx.end_heartbeats()
        self.store.close()
        if self._owns_spark and self.ctx.spark_handle.launched and (started := self.ctx.spark_handle.started):
            started.stop()  # never a SparkContext that ran before this connection took it

    # -- multi-statement transactions -------------------------------------------------------------
    def begin(self) -> None:
        """BEGIN / START TRANSACTION: statements until COMMIT or ROLLBACK share one transaction, reading
        committed data as of now plus their own writes."""
        self._check_open()
        txns = self.ctx.txns
        if txns.open is not None or txns.aborted is not None:
            current = f"txnid:{txns.open.txn_id}" if txns.open is not None else "(aborted)"
            raise TxnStateError(f"Operation START TRANSACTION is not allowed in a transaction.  TransactionID={current}.")
        txns.begin()

    def commit(self) -> None:
        """COMMIT the open transaction; a write conflict aborts it instead (TxnAbortedError)."""
        self._check_open()
        txns = self.ctx.txns
        if txns.aborted is not None:
            reason, txns.aborted = txns.aborted, None
            raise TxnAbortedError(f"{reason}; nothing was committed")
        txn = txns.require_open("COMMIT")
        txns.open = None
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
        txns = self.ctx.txns
        if txns.aborted is not None:
            txns.aborted = None
            return
        txn = txns.require_open("ROLLBACK")
        txns.open = None
        txn.abort()

    @property
    def in_transaction(self) -> bool:
        """True between BEGIN and its COMMIT / ROLLBACK (also once a failure aborted the transaction)."""
        return self.ctx.txns.open is not None or self.ctx.txns.aborted is not None

    @contextlib.contextmanager
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
        return self.ctx.txns.open

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- dispatch ---------------------------------------------------------------------------------
    def run_statement(self, statement: Statement, *, dry_run: bool = False) -> statements.Result | None:
        """Run one parsed statement (``dry_run``: as in :meth:`sql`)."""
        tree, txns = statement.tree, self.ctx.txns
        if txns.aborted is not None and not isinstance(tree, exp.Commit | exp.Rollback):
            raise TxnAbortedError(f"{txns.aborted}; only ROLLBACK (or COMMIT) may follow")
        if txns.open is not None and isinstance(tree, _NOT_IN_TRANSACTION):
            operation = " ".join(statement.text.split()[:2]).upper()
            raise TxnStateError(
                f"Operation {operation} is not allowed in a transaction.  TransactionID=txnid:{txns.open.txn_id}."
            )
        if is_query(tree):
            return self.ctx.query_frame(tree)
        if dry_run:
            return statements.dry_run(self.ctx, statement)
        if isinstance(tree, exp.Transaction | exp.Commit | exp.Rollback):
            run = {exp.Transaction: self.begin, exp.Commit: self.commit, exp.Rollback: self.rollback}[type(tree)]
            return statements.reported(self.ctx, statement, run)
        handler = statements.HANDLERS.get(type(tree))
        if handler is None:
            raise UnsupportedStatementError(
                f"{statement.text.split()[0].upper()} statements are not supported yet: {statement.text[:60]}",
                statement.line,
                statement.col,
            )
        return statements.reported(self.ctx, statement, lambda: handler(self.ctx, statement))

    def run_statement_tree(self, tree: exp.Expr) -> statements.Result | None:
        """Run a statement built in code (e.g. the INSERT half of CREATE TABLE AS SELECT)."""
        return self.run_statement(Statement(tree=tree, text=tree.sql(dialect="hiveacid"), line=1, col=1))

    def _check_open(self) -> None:
        if self._closed:
            raise HiveAcidError("this connection is closed")
