"""Statement -> plan. Resolves table names against the catalog and checks columns; never touches files.

Errors name the place in the SQL text (line and column from the identifier's position), in one line.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from hiveacid_sql.errors import HiveAcidError, PlanError, UnsupportedStatementError
from hiveacid_sql.plan.model import BoundTables, DeletePlan, InsertPlan, QueryPlan, TruncatePlan, UpdatePlan
from hiveacid_sql.plan.types import cast_to
from hiveacid_sql.sql.helpers import position
from hiveacid_sql.txn import TableDef

ROW_ID = "row__id"
OWID, BUCKET, ROWID = "__owid", "__bucket", "__rowid"

TableLookup = Callable[[str, str], TableDef]


def where_is(node: exp.Expression | None) -> str:
    """``line L, col C: `` (where the node's text starts) for a node that carries a position, else empty."""
    if node is None:
        return ""
    found = position(node)
    return f"line {found[0]}, col {found[1]}: " if found else ""


def table_names(table: exp.Table, current_db: str) -> tuple[str, str]:
    """(db, table) lower-cased, the current database filling in a missing db."""
    return (table.db or current_db).lower(), table.name.lower()


def mentions_row_id(tree: exp.Expression) -> bool:
    """Whether the statement names Hive's virtual ``row__id`` column anywhere."""
    # `row__id.rowid` parses as column `rowid` of a "table" `row__id`; `t.row__id.rowid` puts it in `db`.
    return any(
        ROW_ID in (c.name.lower(), c.table.lower(), c.db.lower()) for c in tree.find_all(exp.Column)
    )


QUERY_TYPES = (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Subquery, exp.Values)


def is_query(tree: exp.Expression) -> bool:
    """Whether a statement is a query (run by Spark SQL and returned as a DataFrame)."""
    return isinstance(tree, QUERY_TYPES) or (isinstance(tree, exp.With) and isinstance(tree.this, QUERY_TYPES))


def _cte_names(tree: exp.Expression) -> set[str]:
    return {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}


def catalog_tables(tree: exp.Expression) -> list[exp.Table]:
    """Table nodes that name catalog tables (not CTEs, not table functions)."""
    ctes = _cte_names(tree)
    out = []
    for table in tree.find_all(exp.Table):
        if not table.name:
            continue
        if not table.db and table.name.lower() in ctes:
            continue
        out.append(table)
    return out


class Planner:
    """Builds plans from parsed statements; ``lookup(db, name)`` is the catalog's table getter."""

    def __init__(self, lookup: TableLookup, current_db: Callable[[], str]) -> None:
        self._lookup = lookup
        self._current_db = current_db

    # -- tables -------------------------------------------------------------------------------------
    def resolve(self, table: exp.Table) -> TableDef:
        """The catalog entry for a table node, or a one-line error naming it and where it is."""
        db, name = table_names(table, self._current_db())
        try:
            return self._lookup(db, name)
        except HiveAcidError as exc:
            raise PlanError(f"{where_is(table)}Table not found '{db}.{name}'") from exc

    def bind(self, tree: exp.Expression, *, skip: exp.Table | None = None) -> BoundTables:
        """All catalog tables ``tree`` reads (optionally except the DML target node)."""
        found: dict[str, TableDef] = {}
        for table in catalog_tables(tree):
            if table is skip:
                continue
            tdef = self.resolve(table)
            found.setdefault(tdef.qualified_name, tdef)
        row_ids = frozenset(found) if mentions_row_id(tree) else frozenset()
        return BoundTables(tuple(found.values()), row_ids)

    # -- statements ---------------------------------------------------------------------------------
    def plan_query(self, tree: exp.Expression) -> QueryPlan:
        return QueryPlan(tree, self.bind(tree))

    def plan_insert(self, tree: exp.Insert) -> InsertPlan:
        target_node = tree.this
        columns: tuple[str, ...] | None = None
        if isinstance(target_node, exp.Schema):
            columns = tuple(i.name.lower() for i in target_node.expressions)
            target_node = target_node.this
        if not isinstance(target_node, exp.Table):
            raise PlanError(f"{where_is(tree)}INSERT needs a table name")
        target = self.resolve(target_node)
        names = [c.name for c in target.columns]
        if columns is not None:
            for ident, col in zip(target_node.parent.expressions if isinstance(target_node.parent, exp.Schema) else [], columns, strict=False):
                if col not in names:
                    raise PlanError(f"{where_is(ident)}Invalid column reference '{col}' in table {target.qualified_name}")
            if len(set(columns)) != len(columns):
                raise PlanError(f"{where_is(tree)}Duplicate column in INSERT column list")
        source = tree.expression
        if source is None:
            raise PlanError(f"{where_is(tree)}INSERT needs VALUES or a query")
        width = len(columns) if columns is not None else len(names)
        is_values = isinstance(source, exp.Values)
        if is_values:
            for row in source.expressions:
                count = len(row.expressions) if isinstance(row, exp.Tuple) else 1
                if count != width:
                    raise PlanError(
                        f"{where_is(row)}Cannot insert into target table because column number/types are different "
                        f"'{target.name}': Table insclause-0 has {width} columns, but query has {count} columns."
                    )
        return InsertPlan(
            target=target,
            source=source,
            reads=self.bind(source) if not is_values else BoundTables(),
            overwrite=bool(tree.args.get("overwrite")),
            values=is_values,
            column_order=columns,
        )

    def _dml_target(self, tree: exp.Expression, verb: str) -> tuple[TableDef, exp.Table]:
        node = tree.this
        if not isinstance(node, exp.Table):
            raise PlanError(f"{where_is(tree)}{verb} needs a table name")
        target = self.resolve(node)
        if not target.is_transactional:
            raise PlanError(
                f"{where_is(node)}Attempt to do update or delete on table {target.qualified_name} "
                "that is not transactional (Hive error 10297)"
            )
        return target, node

    def _row_id_select(self, target: TableDef, node: exp.Table, where: exp.Where | None) -> exp.Select:
        alias = node.alias_or_name
        table = exp.Table(this=exp.to_identifier(node.name), db=exp.to_identifier(target.db))
        table.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        select = exp.Select().select(
            exp.column(OWID, table=alias), exp.column(BUCKET, table=alias), exp.column(ROWID, table=alias)
        ).from_(table)
        if where is not None:
            select = select.where(where.this.copy())
        return select

    def plan_update(self, tree: exp.Update) -> UpdatePlan:
        target, node = self._dml_target(tree, "UPDATE")
        types = {c.name: c.type for c in target.columns}
        new_values: dict[str, exp.Expression] = {}
        assignments = []
        for assignment in tree.expressions:
            if not isinstance(assignment, exp.EQ) or not isinstance(assignment.this, exp.Column):
                raise PlanError(f"{where_is(assignment)}SET expects column = expression")
            col = assignment.this.name.lower()
            if col not in types:
                raise PlanError(
                    f"{where_is(assignment.this)}Invalid column reference '{col}' in SET of table {target.qualified_name}"
                )
            if col in new_values:
                raise PlanError(f"{where_is(assignment.this)}Column '{col}' is set more than once")
            new_values[col] = assignment.expression
            assignments.append((col, assignment.expression.sql(dialect="hive")))
        select = self._row_id_select(target, node, tree.args.get("where"))
        alias = node.alias_or_name
        for column in target.columns:
            value = new_values.get(column.name)
            expr = cast_to(value.copy(), column.type) if value is not None else exp.column(column.name, table=alias)
            select = select.select(exp.alias_(expr, column.name, quoted=True))
        reads = self.bind(tree)
        return UpdatePlan(target, select, reads, tuple(assignments))

    def plan_delete(self, tree: exp.Delete) -> DeletePlan:
        target, node = self._dml_target(tree, "DELETE")
        select = self._row_id_select(target, node, tree.args.get("where"))
        return DeletePlan(target, select, self.bind(tree))

    def plan_truncate(self, table: exp.Table) -> TruncatePlan:
        return TruncatePlan(self.resolve(table))

    def plan(self, tree: exp.Expression) -> QueryPlan | InsertPlan | UpdatePlan | DeletePlan | TruncatePlan:
        """The plan of a query or DML statement (one dispatch for running and for EXPLAIN)."""
        if is_query(tree):
            return self.plan_query(tree)
        if isinstance(tree, exp.Insert):
            return self.plan_insert(tree)
        if isinstance(tree, exp.Update):
            return self.plan_update(tree)
        if isinstance(tree, exp.Delete):
            return self.plan_delete(tree)
        if isinstance(tree, exp.TruncateTable) and len(tree.expressions) == 1:
            return self.plan_truncate(tree.expressions[0])
        raise UnsupportedStatementError(f"{where_is(tree)}no plan for {tree.key.upper()} statements")
