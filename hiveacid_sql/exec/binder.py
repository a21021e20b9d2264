"""Bind catalog table names in a statement to DataFrames over one snapshot, and run it.

This is the single place where SQL text is rendered for Spark (sqlglot ``Spark`` dialect) and sent to
``spark.sql``. Each ACID table becomes a DataFrame over :func:`scan_frame` at the statement's snapshot;
plain tables DataFrames over Spark's own readers. The rendered text names them as ``{name}`` arguments of
``spark.sql(text, **frames)`` (PySpark's own DataFrame references), never as temporary views of ours:

* over classic PySpark, ``spark.sql`` registers each frame as a view for the call and analyses the
  statement before it returns, so the result's plan holds the snapshot's files;
* over Spark Connect a DataFrame is an unresolved plan that the server analyses again at every action: a
  view dropped when ``sql()`` returned would be gone then (``TABLE_OR_VIEW_NOT_FOUND``). With frame
  arguments the plan carries the frames themselves (``WithRelations``), so a SELECT's DataFrame stays valid
  for as long as the caller keeps it, inside transactions and for time travel too.

Nothing is left in the user's session catalog either way.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import uuid
from collections.abc import Callable
from typing import Any

from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession
from sqlglot import exp

from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.errors import ExecutionError, HiveAcidError, PlanError
from hiveacid_sql.exec.insert_only import insert_only_frame, null_row_id
from hiveacid_sql.exec.local_scan import local_frame, point_frame, snapshot_rows
from hiveacid_sql.exec.plain import read_plain
from hiveacid_sql.exec.pruning import prune_partitions, pruned_buckets
from hiveacid_sql.exec.scan import ScanFiles, ScanFrame, scan_frame, snapshot_files, user_columns, with_row_id
from hiveacid_sql.exec.timetravel import (
    HistoryOf,
    PartitionWriteIds,
    VersionRequest,
    requested_version,
    version_files,
)
from hiveacid_sql.plan.model import BoundTables
from hiveacid_sql.plan.pruning import KeyFilter, TablePruning
from hiveacid_sql.plan.target import is_target
from hiveacid_sql.sql.tree import catalog_tables, table_names
from hiveacid_sql.txn import PartitionDef, Snapshot, TableDef

_counter = itertools.count()


def write_id_list(snapshot: Snapshot, table: TableDef) -> ValidWriteIdList:
    """The snapshot's write-id list of one table (a table the snapshot was not taken for: nothing written)."""
    ids = snapshot.tables.get(table.qualified_name)
    return ids if ids is not None else ValidWriteIdList(table.qualified_name, 0)


def table_columns(table: TableDef) -> list[tuple[str, HiveType]]:
    """(name, HiveType) of the table's data columns, in table order."""
    return [(c.name, parse_hive_type(c.type)) for c in table.columns]


def partition_columns(table: TableDef) -> list[tuple[str, HiveType]]:
    """(name, HiveType) of the table's partition columns, in order."""
    return [(c.name, parse_hive_type(c.type)) for c in table.partition_keys]


PartitionLister = Callable[[str, str], list[PartitionDef]]


def acid_files(
    spark: SparkSession,
    table: TableDef,
    snapshot: Snapshot,
    partitions_of: PartitionLister,
    pruning: TablePruning | None = None,
) -> ScanFiles:
    """The files an ACID table's snapshot reads, after partition and bucket pruning."""
    pruning = pruning or TablePruning()
    fs, path = filesystem_for(table.location)
    if table.is_partitioned:
        part_dirs = prune_partitions(spark, table, partitions_of(table.db, table.name), pruning.partition_filter)
    else:
        part_dirs = [""]
    buckets = pruned_buckets(table, pruning.bucket_values)
    return snapshot_files(
        fs, path, write_id_list(snapshot, table), part_dirs, buckets, insert_only=table.is_insert_only, txns=snapshot.txns
    )


def acid_snapshot_frame(
    spark: SparkSession, table: TableDef, snapshot: Snapshot, files: ScanFiles, key_filters: tuple[KeyFilter, ...] = ()
) -> DataFrame:
    """Live rows of an ACID table at ``snapshot`` (its chosen ``files``) with the internal columns;
    ``key_filters``: the statement's conjuncts on them, for ORC to skip row groups (:mod:`hiveacid_sql.exec.sarg`)."""
    return _snapshot_scan(spark, table, snapshot, files, key_filters).frame


def _snapshot_scan(
    spark: SparkSession, table: TableDef, snapshot: Snapshot, files: ScanFiles, key_filters: tuple[KeyFilter, ...] = ()
) -> ScanFrame:
    if table.is_insert_only:
        return ScanFrame(insert_only_frame(spark, table, files), reads_files=True)
    fs, _path = filesystem_for(table.location)
    return scan_frame(
        spark, fs, table.location, table_columns(table), partition_columns(table), write_id_list(snapshot, table), files,
        key_filters,
    )


def _expand_stars(tree: exp.Expr, columns_of: dict[str, list[str]]) -> None:
    """Replace ``*`` / ``t.*`` over our tables by their columns, so a view's ``row__id`` stays virtual."""
    for select in list(tree.find_all(exp.Select)):
        sources: list[tuple[str, str]] = []  # (alias, view key)
        plain_sources = True
        from_ = select.args.get("from_") or select.args.get("from")
        nodes = [from_.this] if from_ is not None else []
        nodes += [j.this for j in select.args.get("joins") or []]
        for node in nodes:
            if isinstance(node, exp.Table) and node.name.lower() in columns_of:
                sources.append((node.alias_or_name, node.name.lower()))
            else:
                plain_sources = False
        new_exprs: list[exp.Expr] = []
        changed = False
        for e in select.expressions:
            if isinstance(e, exp.Star) and plain_sources and sources:
                for alias, key in sources:
                    new_exprs += [exp.column(c, table=alias, quoted=True) for c in columns_of[key]]
                changed = True
            elif isinstance(e, exp.Column) and isinstance(e.this, exp.Star):
                match = [s for s in sources if s[0].lower() == e.table.lower()]
                if match:
                    new_exprs += [exp.column(c, table=match[0][0], quoted=True) for c in columns_of[match[0][1]]]
                    changed = True
                else:
                    new_exprs.append(e)
            else:
                new_exprs.append(e)
        if changed:
            select.set("expressions", new_exprs)


class Binder:
    """Builds the snapshot DataFrames of one statement and renders it for Spark (use it in ``with``)."""

    def __init__(
        self,
        spark: SparkSession,
        snapshot: Snapshot,
        current_db: str,
        partitions_of: PartitionLister,
        partition_write_ids: PartitionWriteIds | None = None,
        history_of: HistoryOf | None = None,
        source_frames: dict[str, DataFrame] | None = None,
        *,
        driver_scan_max_rows: int = 0,
        driver_point_max_rows: int = 0,
    ) -> None:
        self.spark = spark
        self.snapshot = snapshot
        self.current_db = current_db
        self.partitions_of = partitions_of
        self.partition_write_ids = partition_write_ids  # for VERSION AS OF: which partitions came later
        self.history_of = history_of  # for VERSION / TIMESTAMP AS OF: commit times of the write ids
        self.files: dict[str, ScanFiles] = {}  # qualified name (@version) -> what was read (EXPLAIN, tests)
        self.plain_partitions: dict[str, list[str]] = {}  # plain partitioned table -> partitions read (pruned)
        # (qualified name, is DML target, VERSION AS OF or None) -> the name the rendered SQL uses
        self._views: dict[tuple[str, bool, object], str] = {}
        self._frames: dict[str, DataFrame] = {}  # that name -> its DataFrame
        self._token = uuid.uuid4().hex[:8]
        # ``acid.sql(.., src=df)``'s DataFrames by the (lower-case) temporary view naming each for the call
        self.source_frames = source_frames or {}
        # a DML target whose snapshot holds at most this many rows is read on the driver (exec/local_scan.py)
        self.driver_scan_max_rows = driver_scan_max_rows
        # a larger one when its key filters' row groups hold at most this many rows (local_scan.point_frame)
        self.driver_point_max_rows = driver_point_max_rows
        self.local_targets: set[str] = set()  # qualified names of the targets read so
        # qualified names of the tables whose frames Spark reads files for: their rows are never a local
        # relation, so the writers need not ask Spark's optimizer (a planning of its own) whether they are
        self.spark_scans: set[str] = set()

    def _version_files(
        self, table: TableDef, version: VersionRequest, pruning: TablePruning | None
    ) -> tuple[Snapshot, ScanFiles]:
        """A snapshot whose list for ``table`` is the one of ``version``, and the files that version reads."""
        created = self.partition_write_ids(table.db, table.name) if self.partition_write_ids and table.is_partitioned else {}
        partitions = self.partitions_of(table.db, table.name) if table.is_partitioned else []
        ids, files = version_files(
            self.spark, table, write_id_list(self.snapshot, table), version, partitions, created, pruning,
            self.history_of(table.db, table.name) if self.history_of else (), txns=self.snapshot.txns,
        )
        return dataclasses.replace(self.snapshot, tables={**self.snapshot.tables, table.qualified_name: ids}), files

    def _register(
        self, table: TableDef, pruning: TablePruning | None, *, row_id: bool, internal: bool, version: VersionRequest | None = None
    ) -> str:
        key = (table.qualified_name, internal, version)
        if key in self._views:
            return self._views[key]
        if version is not None and not table.is_transactional:
            raise PlanError(f"{version.kind} AS OF needs a transactional table; {table.qualified_name} is not one")
        if table.is_transactional:
            if version is None:
                snapshot = self.snapshot
                files = acid_files(self.spark, table, snapshot, self.partitions_of, pruning)
                self.files[table.qualified_name] = files
            else:
                snapshot, files = self._version_files(table, version, pruning)
                self.files[f"{table.qualified_name}@{version}"] = files
            key_filters = (pruning or TablePruning()).key_filters
            df = self._small_target(table, snapshot, files, key_filters) if internal and version is None else None
            if df is None:
                scan = _snapshot_scan(self.spark, table, snapshot, files, key_filters)
                df = scan.frame
                if scan.reads_files:
                    self.spark_scans.add(table.qualified_name)
            if row_id:
                df = null_row_id(df) if table.is_insert_only else with_row_id(df)
            if not internal:
                df = user_columns(df, [c.name for c in table.all_columns], row_id=row_id)
        elif table.is_partitioned:
            partitions = self.partitions_of(table.db, table.name)
            kept = set(prune_partitions(self.spark, table, partitions, (pruning or TablePruning()).partition_filter))
            read = [p for p in partitions if p.name in kept]
            self.plain_partitions[table.qualified_name] = [p.name for p in read]
            df = read_plain(self.spark, table, partitions=read, buckets=pruned_buckets(table, (pruning or TablePruning()).bucket_values))
        else:
            df = read_plain(self.spark, table, buckets=pruned_buckets(table, (pruning or TablePruning()).bucket_values))
        name = f"__hacid_{self._token}_{next(_counter)}_{table.name}"
        self._frames[name] = df
        self._views[key] = name
        return name

    def may_be_local(self, table: TableDef) -> bool:
        """Whether a statement's rows over ``table`` may be a local relation (False: its frame reads files
        through Spark, so its rows never are)."""
        return table.qualified_name not in self.spark_scans

    def _small_target(
        self, table: TableDef, snapshot: Snapshot, files: ScanFiles, key_filters: tuple[KeyFilter, ...] = ()
    ) -> DataFrame | None:
        """A full ACID DML target read on the driver as a local relation (None: read by Spark): whole when
        its footers count at most ``driver_scan_max_rows`` rows, else only the row groups its ``key_filters``
        leave when they hold at most ``driver_point_max_rows`` (a point UPDATE or DELETE of a large table).
        ``driver_scan_max_rows`` 0 turns both off (tests and users forcing the Spark scan set that one)."""
        if table.is_insert_only or self.driver_scan_max_rows <= 0:  # 0: no target is read on the driver
            return None
        fs, _path = filesystem_for(table.location)
        columns, partitions, write_ids = table_columns(table), partition_columns(table), write_id_list(snapshot, table)
        df = None
        if snapshot_rows(fs, files) <= self.driver_scan_max_rows:
            df = local_frame(self.spark, fs, columns, partitions, write_ids, files)
        elif key_filters and self.driver_point_max_rows > 0:
            df = point_frame(self.spark, fs, columns, partitions, write_ids, files, key_filters, self.driver_point_max_rows)
        if df is not None:
            self.local_targets.add(table.qualified_name)
        return df

    def render(self, tree: exp.Expr, reads: BoundTables) -> str:
        """Spark SQL text of ``tree`` with every catalog table replaced by the name of its snapshot frame (a
        DML target's reference by the frame with the internal columns); :meth:`run` passes the frames."""
        return self._bind(tree, reads).sql(dialect="spark")

    def _bind(self, tree: exp.Expr, reads: BoundTables) -> exp.Expr:
        """A copy of ``tree`` naming the snapshot frames (see :meth:`render`)."""
        tree = tree.copy()
        by_name = {t.qualified_name: t for t in reads.tables}
        columns_of: dict[str, list[str]] = {}
        for node in catalog_tables(tree):
            if not node.db and not is_target(node) and node.name.lower() in reads.session_views:
                frame = self.source_frames.get(node.name.lower())
                if frame is not None:  # a DataFrame argument of the call: the frame, not its passing view
                    self._frames[node.name] = frame
                continue  # the Spark session's temporary view: Spark reads it as it is
            db, name = table_names(node, self.current_db)
            table = by_name.get(f"{db}.{name}")
            if table is None:
                continue
            internal = is_target(node)
            view = self._register(
                table,
                reads.target_pruning if internal else reads.pruning.get(table.qualified_name),
                row_id=table.qualified_name in reads.row_id_tables,
                internal=internal,
                version=requested_version(node),
            )
            alias = node.alias_or_name
            new = exp.Table(this=exp.to_identifier(view))
            new.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
            for key in ("joins", "laterals", "pivots"):
                if node.args.get(key):
                    new.set(key, node.args[key])
            node.replace(new)
            if table.qualified_name in reads.row_id_tables:
                columns_of[view.lower()] = [c.name for c in table.all_columns]
        if columns_of:
            _expand_stars(tree, columns_of)
        return tree

    def run(self, tree: exp.Expr, reads: BoundTables, *, direct: bool = False) -> DataFrame:
        """Analyse ``tree`` in Spark; Spark's errors become one-line :class:`PlanError`s. ``direct``: a DML
        statement's rows; when they are a plain filter and projection of one frame, built on the frame itself
        (:func:`direct_select`), without the temporary view ``spark.sql`` makes for a frame argument."""
        bound = self._bind(tree, reads)
        if direct:
            try:
                rows = direct_select(bound, self._frames)
            except PySparkException as exc:
                raise PlanError(self.clean_message(exc)) from exc
            if rows is not None:
                return rows
        sql = bound.sql(dialect="spark")
        frames: dict[str, Any] = {name: df for name, df in self._frames.items() if name in sql}
        if frames:
            # Literal braces of the statement are escaped, then each frame name becomes a ``{name}`` field.
            sql = sql.replace("{", "{{").replace("}", "}}")
            sql = re.sub(r"`?\b(" + "|".join(map(re.escape, frames)) + r")\b`?", r"{\1}", sql)
        try:
            return self.spark.sql(sql, **frames)
        except PySparkException as exc:
            raise PlanError(self.clean_message(exc)) from exc

    def target_frame(self, target: TableDef, reads: BoundTables) -> DataFrame:
        """The DML target's snapshot frame, the one a statement naming the target reads (registered now if
        no statement did yet), without a statement of its own for Spark to analyse."""
        name = self._register(
            target, reads.target_pruning, row_id=target.qualified_name in reads.row_id_tables, internal=True
        )
        return self._frames[name]

    def add_frame(self, name: str, df: DataFrame) -> None:
        """Let statements run by :meth:`run` name ``df`` as table ``name`` (a frame the executor built, such
        as MERGE's numbered source: :class:`~hiveacid_sql.plan.model.MergeSplit`)."""
        self._frames[name] = df

    def clean_message(self, exc: BaseException) -> str:
        """One line from a Spark error, with our view names turned back into table names.

        Spark's ``line 1 pos N`` points into the SQL we generated (views, internal columns), not into the
        user's statement, so it is dropped; so are our internal columns (``__rowid``, ...) in its
        "Did you mean" lists.
        """
        text = first_line(exc)
        for (qualified, _internal, _version), view in self._views.items():
            text = text.replace(view, qualified)
        text = re.sub(r"`?__hacid_[0-9a-f]+_\d+_(\w+)`?", r"\1", text)
        return clean_spark_text(text)

    def close(self) -> None:
        """Forget the statement's frames (the DataFrames built from them keep their own plans)."""
        self._views.clear()
        self._frames.clear()

    def __enter__(self) -> Binder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def direct_select(tree: exp.Expr, frames: dict[str, DataFrame]) -> DataFrame | None:
    """``SELECT <expressions> FROM <frame> [AS a] [WHERE <condition>]`` as ``frame.alias(a).where(..)
    .selectExpr(..)`` (None for any other shape: joins, subqueries, aggregates, windows, ORDER BY ...).

    Why: an UPDATE's or DELETE's rows are that shape, and ``spark.sql(text, frame=df)`` registers the frame
    as a temporary view, has Spark parse and analyse the text against it and drops the view (three calls
    into the JVM, the view's creation a command of its own); on the frame, Spark parses and analyses the
    same expression texts, with the same session settings, against the same columns."""
    if not isinstance(tree, exp.Select) or {k for k, v in tree.args.items() if v} - {"expressions", "from_", "from", "where"}:
        return None
    from_ = tree.args.get("from_") or tree.args.get("from")
    table = from_.this if from_ is not None else None
    if not isinstance(table, exp.Table) or table.name not in frames or table.db or table.catalog:
        return None
    if any(table.args.get(k) for k in ("joins", "laterals", "pivots", "hints", "version", "when")):
        return None
    nested = (exp.Query, exp.Subquery, exp.AggFunc, exp.Window, exp.Star, exp.Placeholder, exp.Parameter)
    if any(node is not tree for node in tree.find_all(*nested)) or sum(1 for _ in tree.find_all(exp.Table)) != 1:
        return None
    df = frames[table.name].alias(table.alias_or_name)
    where = tree.args.get("where")
    if where is not None:
        df = df.where(where.this.sql(dialect="spark"))
    return df.selectExpr(*[e.sql(dialect="spark") for e in tree.expressions])


_SPARK_POSITION = re.compile(r";?\s*line \d+ pos \d+;?\s*$")
_INTERNAL_SUGGESTION = re.compile(r"(?:`\w+`\.)?`__\w+`(?:, )?")


def clean_spark_text(text: str) -> str:
    """Drop the parts of a Spark analysis message that describe our generated SQL rather than the user's."""
    text = _SPARK_POSITION.sub("", text)
    text = _INTERNAL_SUGGESTION.sub("", text)
    return text.replace(", ]", "]").strip()


_PY_ERROR = re.compile(r"^\s*(?:[\w.]+\.)?(\w+(?:Error|Exception)): (.*)$")
# A message of ours raised inside a Spark job (``raise_error``): only our text is kept.
_RAISED = re.compile(r"^\[USER_RAISED_EXCEPTION\] (.*?)(?: SQLSTATE: \w+)?$")


def first_line(exc: BaseException) -> str:
    """The line of an error that says what went wrong.

    A failure inside a Python task arrives as a Java exception wrapping a Python traceback; the useful
    line is the last ``SomeError: message`` of that traceback, not the wrapper's first line.
    """
    text = str(exc).strip()
    if not text:
        return type(exc).__name__
    lines = text.splitlines()
    if "Python worker" in lines[0] or "PythonException" in lines[0]:
        for line in reversed(lines):
            match = _PY_ERROR.match(line)
            if match:
                return f"{match.group(1)}: {match.group(2)}"
    for line in lines:
        if line.strip():
            raised = _RAISED.match(line.strip())
            return raised.group(1) if raised else line.strip()
    return type(exc).__name__


def spark_error(exc: BaseException, binder: Binder | None = None) -> HiveAcidError:
    """A Spark job failure as a one-line :class:`ExecutionError`."""
    if isinstance(exc, HiveAcidError):
        return exc
    message = binder.clean_message(exc) if binder else first_line(exc)
    return ExecutionError(message)
