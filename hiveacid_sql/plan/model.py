"""Plans: what a statement will do, decided before any file is listed or any Spark job runs.

Plans hold sqlglot trees that name catalog tables; the executor binds those names to snapshot views.
They are frozen so the same plan can be explained, dry-run or executed without surprises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from sqlglot import exp

from hiveacid_sql.acid.names import base_dir_name, delete_delta_dir_name, delta_dir_name
from hiveacid_sql.plan.pruning import TablePruning
from hiveacid_sql.txn import TableDef
from hiveacid_sql.txn.locks import EXCLUSIVE, SHARED_READ, SHARED_WRITE

#: (statement id, what the leg writes, directory name): one leg of a DML statement, as EXPLAIN prints it
Leg = tuple[int, str, str]


@dataclass(frozen=True)
class BoundTables:
    """Every catalog table a statement reads, which of them must expose ``row__id``, and what the
    statement's predicates allow to skip (partitions, buckets) per table."""

    tables: tuple[TableDef, ...] = ()
    row_id_tables: frozenset[str] = frozenset()  # qualified names
    pruning: dict[str, TablePruning] = field(default_factory=dict)  # qualified name -> pruning
    target_pruning: TablePruning | None = None  # the DML target's own reference (read with its row ids)
    session_views: frozenset[str] = frozenset()  # unqualified names read as the Spark session's temp views

    def acid_tables(self) -> tuple[TableDef, ...]:
        return tuple(t for t in self.tables if t.is_transactional)


class Plan:
    """What every plan answers, so that consumers (locks, EXPLAIN, dry runs, the executor) ask the plan
    instead of switching on its type: the table it writes (None for a query), the tables it reads (resolved,
    with their pruning), its one query, the lock its target needs, how many statement ids it takes and the
    legs (directories) it writes."""

    target: TableDef | None  # the table written (a field of each plan; None for a query)
    reads: BoundTables  # the tables read, resolved, with their pruning (a field of each plan)
    statement: str = ""
    #: Hive 3.1's lock on the written table (``AcidUtils.makeLockComponents``); reads take SHARED_READ
    target_lock: str | None = None
    #: statement ids the statement takes (MERGE: one per WHEN clause)
    statement_count = 1
    #: partition columns given a constant value by the statement's PARTITION spec (INSERT's static spec)
    static_partitions: tuple[tuple[str, exp.Expr], ...] = ()

    @property
    def writes_partitions_read(self) -> bool:
        """The statement writes only in target partitions it reads (those ``reads.target_pruning`` keeps):
        UPDATE and DELETE, MERGE without INSERT clauses, unless a partition column is assigned. Such a statement
        can lock just those partitions; one that may write anywhere else locks the whole table."""
        return False

    @property
    def writes_one_partition(self) -> bool:
        """The PARTITION spec gives every partition column of the target a value: the statement writes one
        partition directory, known before any row is read (and replaced by INSERT OVERWRITE even if no row
        lands there)."""
        target = self.target
        return target is not None and target.is_partitioned and len(self.static_partitions) == len(target.partition_keys)

    @property
    def description(self) -> str:
        """What EXPLAIN calls the statement."""
        return self.statement

    @property
    def query(self) -> exp.Expr | None:
        """The query Spark runs (the rows to write, or to return); None for TRUNCATE."""
        return None

    @property
    def overwrites(self) -> bool:
        """Whether the target's older rows are hidden by a new ``base_W`` (INSERT OVERWRITE, TRUNCATE)."""
        return False

    def legs(self, write_id: int, first: int = 0) -> list[Leg]:
        """The legs in statement-id order (``first``: the first statement id; in an open multi-statement
        transaction the ids continue from the earlier statements')."""
        return []

    def how_rows_are_found(self) -> list[str]:
        """EXPLAIN's lines on how the statement finds the rows it changes (none for INSERT, TRUNCATE, queries)."""
        return []

    def target_partitions(self, partitions: list[str]) -> str:
        """EXPLAIN's words on where a partitioned target's legs go; ``partitions``: the target's partitions the
        statement reads (after pruning)."""
        where = ", ".join(partitions) or "(none)"
        return f"deletes in the partitions read that hold matching rows ({where})"


@dataclass(frozen=True)
class QueryPlan(Plan):
    """A SELECT (or any query) run by Spark SQL over snapshot views."""

    source: exp.Expr
    reads: BoundTables
    target: TableDef | None = None  # a query writes no table

    statement = "QUERY"

    @property
    def query(self) -> exp.Expr:
        return self.source


@dataclass(frozen=True)
class InsertPlan(Plan):
    """INSERT INTO / OVERWRITE: the columns of ``source`` fill ``column_order`` (data and dynamic partition
    columns, by position); ``static_partitions`` gives the other partition columns a constant value."""

    target: TableDef
    source: exp.Expr
    reads: BoundTables
    column_order: tuple[str, ...]
    overwrite: bool = False
    values: bool = False  # statement-sized VALUES rows: written by the driver
    static_partitions: tuple[tuple[str, exp.Expr], ...] = ()

    @property
    def statement(self) -> str:  # type: ignore[override]
        return "INSERT OVERWRITE" if self.overwrite else "INSERT"

    @property
    def query(self) -> exp.Expr:
        return self.source

    @property
    def overwrites(self) -> bool:
        return self.overwrite

    @property
    def target_lock(self) -> str:  # type: ignore[override]
        return EXCLUSIVE if self.overwrite else SHARED_READ  # hive.txn.xlock.iow

    def legs(self, write_id: int, first: int = 0) -> list[Leg]:
        w = write_id
        if self.overwrite:
            return [(first, "the new rows, as a base hiding the older ones", base_dir_name(w))]
        return [(first, "the new rows", delta_dir_name(w, w, first))]

    def target_partitions(self, partitions: list[str]) -> str:
        return "the partitions of the rows' partition values"


@dataclass(frozen=True)
class UpdatePlan(Plan):
    """UPDATE: ``source`` selects the partition directory and row id of matching rows and the new values of
    every column (split update). ``moves_partitions`` / ``moves_buckets``: a partition or bucketing column is
    assigned, so new versions may go to another partition or bucket (Hive refuses both; errors 10292, 10302)."""

    target: TableDef
    source: exp.Select
    reads: BoundTables
    assignments: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (column, expression SQL)
    moves_partitions: bool = False
    moves_buckets: bool = False

    statement = "UPDATE"
    description = "UPDATE (split update: delete_delta + delta)"
    target_lock = SHARED_WRITE

    @property
    def writes_partitions_read(self) -> bool:
        return not self.moves_partitions

    @property
    def query(self) -> exp.Select:
        return self.source

    def legs(self, write_id: int, first: int = 0) -> list[Leg]:
        w = write_id
        return [
            (first, "delete events of the rows found", delete_delta_dir_name(w, w, first)),
            (first, "their new versions", delta_dir_name(w, w, first)),
        ]

    def how_rows_are_found(self) -> list[str]:
        return ["Find rows: " + self.source.sql(dialect="hiveacid")]

    def target_partitions(self, partitions: list[str]) -> str:
        text = super().target_partitions(partitions)
        if self.moves_partitions:
            return text + "; rows whose partition columns change go to their new partitions"
        return text + "; new versions stay in their rows' partitions"


@dataclass(frozen=True)
class DeletePlan(Plan):
    """DELETE: ``source`` selects the row ids of the rows to delete."""

    target: TableDef
    source: exp.Select
    reads: BoundTables

    statement = "DELETE"
    target_lock = SHARED_WRITE
    writes_partitions_read = True

    @property
    def query(self) -> exp.Select:
        return self.source

    def legs(self, write_id: int, first: int = 0) -> list[Leg]:
        return [(first, "delete events of the rows found", delete_delta_dir_name(write_id, write_id, first))]

    def how_rows_are_found(self) -> list[str]:
        return ["Find rows: " + self.source.sql(dialect="hiveacid")]


@dataclass(frozen=True)
class TruncatePlan(Plan):
    """TRUNCATE TABLE: an empty ``base_W`` hides every older row and keeps older snapshots readable."""

    target: TableDef
    reads: BoundTables = field(default_factory=BoundTables)

    statement = "TRUNCATE"
    target_lock = EXCLUSIVE

    @property
    def overwrites(self) -> bool:
        return True

    def legs(self, write_id: int, first: int = 0) -> list[Leg]:
        return [(first, "an empty base hiding every older row", base_dir_name(write_id))]

    def target_partitions(self, partitions: list[str]) -> str:
        return ", ".join(partitions) or "(none)"  # every partition: TRUNCATE reads none, prunes none


@dataclass(frozen=True)
class MergeClause:
    """One WHEN clause: ``index`` is its 1-based SQL position; ``values`` the (column, new value) pairs of an
    UPDATE (assigned columns) or INSERT (every target column); ``statement_offset`` its statement id within
    the statement (insert clauses first)."""

    index: int
    match: Literal["matched", "not_matched", "not_matched_by_source"]
    action: Literal["update", "delete", "insert"]
    condition: exp.Expr | None
    values: tuple[tuple[str, exp.Expr], ...]
    statement_offset: int


@dataclass(frozen=True)
class MergeSplit:
    """A MERGE with NOT MATCHED (INSERT) clauses and no NOT MATCHED BY SOURCE one, as two queries the executor
    may run instead of :attr:`MergePlan.query`'s right outer join when the source is small.

    Why: Spark builds (broadcasts or hashes) only the side of an outer join whose rows are not kept, so
    ``target RIGHT OUTER JOIN source`` builds the whole target (a broadcast of every target row, or a shuffle
    of them). The same rows are ``target INNER JOIN source`` (Spark broadcasts the small source and streams
    the target once) plus the source rows that matched nothing, with every target column NULL. Both read
    the source with the same row ids, so the executor numbers it once, on the driver, and names it
    :data:`~hiveacid_sql.plan.columns.NUMBERED_SOURCE`; the unmatched rows are
    :data:`~hiveacid_sql.plan.columns.UNMATCHED_SOURCE`. Same select list, so the same clause choice."""

    source_rows: exp.Select  # SELECT * FROM <source>: the rows the executor numbers
    matched: exp.Select  # the select list FROM <target> t JOIN NUMBERED_SOURCE s ON <on>
    unmatched: exp.Select  # the select list FROM (<target> WHERE FALSE) t RIGHT JOIN UNMATCHED_SOURCE s ON <on>


@dataclass(frozen=True)
class MergePlan(Plan):
    """MERGE: ``query`` joins the target snapshot with the source once and names, per joined row, the clause
    that applies (``__clause``) and the new values of every column (see :mod:`hiveacid_sql.plan.merge`)."""

    target: TableDef
    source: exp.Select
    reads: BoundTables
    clauses: tuple[MergeClause, ...]
    join: Literal["inner", "right", "left", "full"]
    moves_partitions: frozenset[int] = frozenset()  # update clauses that assign a partition column
    moves_buckets: frozenset[int] = frozenset()  # update clauses that assign a bucketing column
    #: target data columns the ON condition equates with a source expression (no BY SOURCE clause), and
    #: ``SELECT <those expressions> FROM <source>``: the executor reads the source's key range from it and
    #: skips target stripes outside (:mod:`hiveacid_sql.exec.merge_keys`)
    source_keys: tuple[str, ...] = ()
    source_key_query: exp.Select | None = None
    #: the join as an inner join plus the unmatched source rows, for a small source (None: only ``query``)
    split: MergeSplit | None = None

    statement = "MERGE"
    description = "MERGE (each clause its own statement id)"
    target_lock = SHARED_WRITE

    @property
    def writes_partitions_read(self) -> bool:
        return not self.moves_partitions and all(c.action != "insert" for c in self.clauses)

    @property
    def query(self) -> exp.Select:
        return self.source

    @property
    def statement_count(self) -> int:  # type: ignore[override]
        return len(self.clauses)

    def legs(self, write_id: int, first: int = 0) -> list[Leg]:
        w, out = write_id, []
        for c in sorted(self.clauses, key=lambda c: c.statement_offset):
            stmt = first + c.statement_offset
            if c.action in ("update", "delete"):
                what = "delete events of the rows it " + ("updates" if c.action == "update" else "deletes")
                out.append((stmt, f"clause {c.index}, {what}", delete_delta_dir_name(w, w, stmt)))
            if c.action in ("update", "insert"):
                what = "new versions of the rows it updates" if c.action == "update" else "the rows it inserts"
                out.append((stmt, f"clause {c.index}, {what}", delta_dir_name(w, w, stmt)))
        return out

    def how_rows_are_found(self) -> list[str]:
        """The join MERGE runs once, and its clauses in the order they are tried, with their statement ids."""
        join = self.query.args["joins"][0]
        lines = [f"Join: target {_JOINS[self.join]} source ON {join.args['on'].sql(dialect='hiveacid')} (one scan of each)"]
        lines.append("Clauses, first applicable wins:")
        for c in self.clauses:
            cond = f" AND {c.condition.sql(dialect='hiveacid')}" if c.condition is not None else ""
            legs = {"update": "delete + insert", "delete": "delete", "insert": "insert"}[c.action]
            lines.append(
                f"  {c.index}. WHEN {_MATCHES[c.match]}{cond} THEN {c.action.upper()}: statement {c.statement_offset} ({legs})"
            )
        return lines

    def target_partitions(self, partitions: list[str]) -> str:
        text = super().target_partitions(partitions)
        if any(c.action == "insert" for c in self.clauses):
            text += "; inserted rows go to the partitions of their values"
        if self.moves_partitions:
            text += "; rows whose partition columns change go to their new partitions"
        return text


_JOINS = {"inner": "INNER JOIN", "right": "RIGHT OUTER JOIN", "left": "LEFT OUTER JOIN", "full": "FULL OUTER JOIN"}
_MATCHES = {"matched": "MATCHED", "not_matched": "NOT MATCHED", "not_matched_by_source": "NOT MATCHED BY SOURCE"}


DmlPlan = InsertPlan | UpdatePlan | DeletePlan | TruncatePlan | MergePlan
