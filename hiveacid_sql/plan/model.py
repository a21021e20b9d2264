"""Plans: what a statement will do, decided before any file is listed or any Spark job runs.

Plans hold sqlglot trees that name catalog tables; the executor binds those names to snapshot views.
They are frozen so the same plan can be explained, dry-run or executed without surprises.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from hiveacid_sql.txn import TableDef


@dataclass(frozen=True)
class BoundTables:
    """Every catalog table a statement reads, and which of them must expose ``row__id``."""

    tables: tuple[TableDef, ...] = ()
    row_id_tables: frozenset[str] = frozenset()  # qualified names

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
    """INSERT INTO / OVERWRITE: rows of ``source`` go to ``target`` columns ``column_order`` (None = all, in order)."""

    target: TableDef
    source: exp.Expression
    reads: BoundTables
    overwrite: bool = False
    values: bool = False  # statement-sized VALUES rows: written by the driver
    column_order: tuple[str, ...] | None = None

    @property
    def statement(self) -> str:
        return "INSERT OVERWRITE" if self.overwrite else "INSERT"


@dataclass(frozen=True)
class UpdatePlan:
    """UPDATE: ``source`` selects the row ids of matching rows and their new values (split update)."""

    target: TableDef
    source: exp.Select
    reads: BoundTables
    assignments: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (column, expression SQL)

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
