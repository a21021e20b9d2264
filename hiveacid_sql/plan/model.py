"""Plans: what a statement will do, decided before any file is listed or any Spark job runs.

Plans hold sqlglot trees that name catalog tables; the executor binds those names to snapshot views.
They are frozen so the same plan can be explained, dry-run or executed without surprises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from sqlglot import exp

from hiveacid_sql.plan.pruning import TablePruning
from hiveacid_sql.txn import TableDef


@dataclass(frozen=True)
class BoundTables:
    """Every catalog table a statement reads, which of them must expose ``row__id``, and what the
    statement's predicates allow to skip (partitions, buckets) per table."""

    tables: tuple[TableDef, ...] = ()
    row_id_tables: frozenset[str] = frozenset()  # qualified names
    pruning: dict[str, TablePruning] = field(default_factory=dict)  # qualified name -> pruning
    target_pruning: TablePruning | None = None  # the DML target's own reference (read with its row ids)

    def acid_tables(self) -> tuple[TableDef, ...]:
        return tuple(t for t in self.tables if t.is_transactional)


@dataclass(frozen=True)
class QueryPlan:
    """A SELECT (or any query) run by Spark SQL over snapshot views."""

    query: exp.Expr
    reads: BoundTables

    statement = "QUERY"


@dataclass(frozen=True)
class InsertPlan:
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
    def statement(self) -> str:
        return "INSERT OVERWRITE" if self.overwrite else "INSERT"


@dataclass(frozen=True)
class UpdatePlan:
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


@dataclass(frozen=True)
class DeletePlan:
    """DELETE: ``source`` selects the row ids of the rows to delete."""

    target: TableDef
    source: exp.Select
    reads: BoundTables

    statement = "DELETE"


@dataclass(frozen=True)
class TruncatePlan:
    """TRUNCATE TABLE: an empty ``base_W`` hides every older row and keeps older snapshots readable."""

    target: TableDef

    statement = "TRUNCATE"


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
class MergePlan:
    """MERGE: ``query`` joins the target snapshot with the source once and names, per joined row, the clause
    that applies (``__clause``) and the new values of every column (see :mod:`hiveacid_sql.plan.merge`)."""

    target: TableDef
    query: exp.Select
    reads: BoundTables
    clauses: tuple[MergeClause, ...]
    join: Literal["inner", "right", "left", "full"]
    moves_partitions: frozenset[int] = frozenset()  # update clauses that assign a partition column
    moves_buckets: frozenset[int] = frozenset()  # update clauses that assign a bucketing column

    statement = "MERGE"


DmlPlan = InsertPlan | UpdatePlan | DeletePlan | TruncatePlan | MergePlan
