"""The user's handle: ``acid = hiveacid_sql.connect(...)``, then ``acid.sql("...")``.

Flow of one statement, top to bottom: parse (sqlglot HiveAcid dialect) -> plan (catalog lookups, no
files) -> execute (Spark jobs over snapshot views, ORC writers in tasks) -> commit in the transaction
store. Queries return a Spark DataFrame, DML returns a :class:`DmlResult`, catalog statements return a
(possibly empty) DataFrame, as ``spark.sql`` does.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from sqlglot import exp

from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.engine import ddl, show
from hiveacid_sql.engine.binder import bound
from hiveacid_sql.engine.dml import DmlRunner
from hiveacid_sql.engine.dryrun import dry_run_frame
from hiveacid_sql.engine.explain import explain
from hiveacid_sql.engine.history import describe_history
from hiveacid_sql.engine.transaction import Transaction
from hiveacid_sql.errors import HiveAcidError, PlanError, UnsupportedStatementError
from hiveacid_sql.exec.session import local_session
from hiveacid_sql.plan.planner import Planner, is_query, where_is
from hiveacid_sql.results import DmlResult
from hiveacid_sql.sql import nodes
from hiveacid_sql.sql.parse import Statement, parse
from hiveacid_sql.txn import TxnStore

Result = DataFrame | DmlResult
#: Statements a dry run (``dry_run=True``, ``EXPLAIN ANALYZE``) answers with the rows they would change.
DRY_RUN_TYPES = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.TruncateTable)

class Session:
    """One connection: a SparkSession, a warehouse, a transaction store and session settings."""

    def __init__(self, spark: SparkSession, warehouse: str, store: TxnStore, *, owns_spark: bool = False) -> None:
        self.spark = spark
        self.warehouse = warehouse
        self.store = store
        self.catalog = store.catalog
        self.current_db = "default"
        self.settings: dict[str, str] = {}
        self.planner = Planner(self.catalog.get_table, lambda: self.current_db)
        self._dml = DmlRunner(self)
        self._owns_spark = owns_spark
        self._closed = False
        self._txn: Transaction | None = None  # an explicit multi-statement transaction, when one is open
        self._handlers: dict[type, Callable[[Statement], Result | None]] = {
            exp.Insert: self._dml_statement,
            exp.Update: self._dml_statement,
            exp.Delete: self._dml_statement,
            exp.Merge: self._dml_statement,
            exp.TruncateTable: self._truncate,
            exp.Create: self._create,
            exp.Drop: lambda st: ddl.drop(self, st.tree),
            exp.Alter: lambda st: ddl.alter_table(self, st.tree),
            exp.Use: self._use,
            exp.Set: self._set,
            exp.Describe: self._describe,
            exp.Show: self._show,
            nodes.ShowTblProperties: self._show_tblproperties,
            nodes.Explain: self._explain,
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
        """Release the store (and the SparkSession if this connection started it)."""
        if self._closed:
            return
        self._closed = True
        self.store.close()
        if self._owns_spark:
            self.spark.stop()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing used by the statement handlers ---------------------------------------------------
    def run_statement(self, statement: Statement, *, dry_run: bool = False) -> Result | None:
        """Run one parsed statement (``dry_run``: as in :meth:`sql`)."""
        tree = statement.tree
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
        snapshot = (
            self._txn.snapshot(tables.values())
            if self._txn
            else self.store.snapshot(sorted({(t.db, t.name) for t in tables.values()}))
        )
        return dry_run_frame(self, plan, snapshot)

    def _explain(self, st: Statement) -> DataFrame:
        kind = st.tree.args.get("kind")
        inner = st.tree.this
        if kind == "ANALYZE" and isinstance(inner, DRY_RUN_TYPES):
            return self.dry_run(Statement(tree=inner, text=st.text, line=st.line, col=st.col))
        return explain(self, inner, kind)

    def query_frame(self, tree: exp.Expression) -> DataFrame:
        """A query over snapshot views; every ACID table in it is read at one snapshot."""
        plan = self.planner.plan_query(tree)
        tables = sorted({(t.db, t.name) for t in plan.reads.tables})
        snapshot = self._txn.snapshot(plan.reads.tables) if self._txn else self.store.snapshot(tables)
        with bound(
            self.spark, snapshot, self.current_db, self.catalog.list_partitions,
            self.catalog.partition_write_ids, self.store.table_history,
        ) as binder:
            return binder.run(plan.query, plan.reads)

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """The transaction a statement runs in: the open one, or a new one committed when the block ends
        (aborted, with its files removed, if the block fails)."""
        if self._txn is not None:
            yield self._txn
            return
        txn = Transaction(self.store)
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
        return self._dml.run(self.planner.plan(st.tree), st.text)

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
                self.settings[key] = value
                if key.startswith("spark."):
                    self.spark.conf.set(key, value)
            else:
                key = node.name.strip()
                value = self.settings.get(key)
                text = f"{key}={value}" if value is not None else f"{key} is undefined"
                return self.spark.createDataFrame([(text,)], "set string")
        return None

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
