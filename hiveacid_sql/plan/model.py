"""Plans: what a statement will do, decided before any file is listed or any Spark job runs.

Plans hold sqlglot trees that name catalog tables; the executor binds those names to snapshot views.
They are frozen so the same plan can be explained, dry-run or executed without surprises.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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

    def acid_tables(self) -> tuple[TableDef, ...]:
        return tuple(t for t in self.tables if t.is_transactional)


@dataclass(frozen=True)
class QueryPlan:
    """A SELECT (or any query) run by Spark SQL over snapshot views."""

    query: exp.Expression
    reads: BoundTables

    statement = "QUERY"


@dataclass(frozen=True)
class InsertPlan:
    """INSERT INTO / OVERWRITE: the columns of ``source`` fill ``column_order`` (data and dynamic partition
    columns, by position); ``static_partitions`` gives the other partition columns a constant value."""

    target: TableDef
    source: exp.Expression
    reads: BoundTables
    column_order: tuple[str, ...]
    overwrite: bool = False
    values: bool = False  # statement-sized VALUES rows: written by the driver
    static_partitions: tuple[tuple[str, exp.Expression], ...] = ()

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


DmlPlan = InsertPlan | UpdatePlan | DeletePlan | TruncatePlan
