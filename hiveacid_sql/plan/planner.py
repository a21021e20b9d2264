"""Statement -> plan. Resolves table names against the catalog and checks columns; never touches files.

Errors name the place in the SQL text (line and column from the identifier's position), in one line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from sqlglot import exp

from hiveacid_sql.errors import HiveAcidError, PlanError, UnsupportedStatementError
from hiveacid_sql.plan.columns import BUCKET, OWID, PART_DIR, ROWID
from hiveacid_sql.plan.merge import build_merge
from hiveacid_sql.plan.model import (
    BoundTables,
    DeletePlan,
    DmlPlan,
    InsertPlan,
    MergePlan,
    QueryPlan,
    TruncatePlan,
    UpdatePlan,
)
from hiveacid_sql.plan.partition_spec import insert_spec
from hiveacid_sql.plan.pruning import TablePruning, merge_pruning, table_pruning
from hiveacid_sql.plan.target import default_value, enforced, is_target, set_assignments, target_table
from hiveacid_sql.plan.types import hive_cast, strict_casts, strict_casts_on
from hiveacid_sql.sql.parse import parse_one
from hiveacid_sql.sql.tree import catalog_tables, is_default, is_query, mentions_row_id, table_names, where_is
from hiveacid_sql.txn import TableDef

TableLookup = Callable[[str, str], TableDef]
#: ``is_view(name)``: whether an unqualified name is one of the Spark session's temporary views
ViewLookup = Callable[[str], bool]


_E = TypeVar("_E", bound=exp.Expr)

#: Views nested deeper than this are taken as a definition that reads itself.
_MAX_VIEW_DEPTH = 32


def _no_views(name: str) -> bool:
    return False


class Planner:
    """Builds plans from parsed statements; ``lookup(db, name)`` is the catalog's table getter.

    Name resolution follows Spark's order: an unqualified name that is a temporary view of the Spark session
    (``df.createOrReplaceTempView("src")``, or a ``{src}`` DataFrame argument of ``acid.sql``) is that view, in
    every place a statement reads; a qualified name (``db.t``) is always a warehouse table. ``is_view`` answers
    for the session (tests of plans alone have no views). A view is read by Spark as it is, outside the
    snapshot; the table a statement writes (and DESCRIBE, SHOW, ALTER ..) is always a warehouse table.
    """

    def __init__(
        self,
        lookup: TableLookup,
        current_db: Callable[[], str],
        strict: Callable[[], bool] = lambda: False,
        *,
        is_view: ViewLookup = _no_views,
    ) -> None:
        self._lookup = lookup
        self._current_db = current_db
        self._strict = strict  # hiveacid.strict.casts: the casts to column types are Spark's ANSI ones
        self._is_view = is_view
        self._resolved: dict[tuple[str, str], TableDef] | None = None  # while one statement is planned
        self._views: dict[str, bool] | None = None  # view answers while one statement is planned

    @contextmanager
    def _one_statement(self) -> Iterator[None]:
        """Within one statement's planning a name is looked up in the catalog once (the target and its
        reads, UPDATE's target and its row-id query, MERGE's sides), whatever the number of references."""
        if self._resolved is not None:  # nested: the outer statement's names
            yield
            return
        self._resolved = {}
        self._views = {}
        try:
            with strict_casts(self._strict()):
                yield
        finally:
            self._resolved = None
            self._views = None

    # -- tables -------------------------------------------------------------------------------------
    def is_session_view(self, table: exp.Table) -> bool:
        """Whether a table reference names a temporary view of the Spark session (unqualified names only:
        Spark looks a view up before the current database's tables)."""
        if table.db or table.catalog or not table.name:
            return False
        name = table.name.lower()
        if self._views is not None and name in self._views:
            return self._views[name]
        found = self._is_view(name)
        if self._views is not None:
            self._views[name] = found
        return found

    def resolve(self, table: exp.Table) -> TableDef:
        """The catalog entry for a table node, or a one-line error naming it and where it is."""
        db, name = table_names(table, self._current_db())
        if self._resolved is not None and (db, name) in self._resolved:
            return self._resolved[(db, name)]
        try:
            found = self._lookup(db, name)
        except HiveAcidError as exc:
            if self.is_session_view(table):
                raise PlanError(
                    f"{where_is(table)}'{table.name}' is a temporary view of the Spark session, not a table of the "
                    "warehouse (views can be read, not written or described here)"
                ) from exc
            raise PlanError(f"{where_is(table)}Table not found '{db}.{name}'") from exc
        if self._resolved is not None:
            self._resolved[(db, name)] = found
        return found

    def expand_views(self, tree: _E, *, depth: int = 0) -> _E:
        """``tree`` with every catalog view it reads replaced by the view's stored query (Hive's
        ``VIEW_EXPANDED_TEXT``, its names qualified) as a subquery under the view's name or alias, so the
        tables beneath are bound like any other: at the statement's snapshot, in joins, subqueries,
        ``INSERT .. SELECT`` and MERGE sources. A DML target (:func:`is_target`) and the Spark session's
        temporary views are left alone; the caller refuses a view as the target. Mutates ``tree``."""
        if depth > _MAX_VIEW_DEPTH:
            raise PlanError(f"{where_is(tree)}Recursive view definition (more than {_MAX_VIEW_DEPTH} nested views)")
        for table in catalog_tables(tree):
            if is_target(table) or self.is_session_view(table):
                continue
            tdef = self.resolve(table)
            if not tdef.is_view:
                continue
            if table.args.get("version") is not None:
                raise PlanError(f"{where_is(table)}Time travel needs a transactional table; {tdef.qualified_name} is a view")
            text = tdef.view_expanded_text or tdef.view_original_text or ""
            try:
                query = parse_one(text).tree
                self.expand_views(query, depth=depth + 1)
            except HiveAcidError as exc:
                message = str(exc).split(": ", 1)[-1] if str(exc).startswith("line ") else str(exc)
                raise PlanError(f"{where_is(table)}{message} in definition of VIEW {tdef.qualified_name}") from exc
            sub = exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier(table.alias_or_name)))
            for key in ("joins", "laterals", "pivots"):
                if table.args.get(key):
                    sub.set(key, table.args[key])
            table.replace(sub)
        return tree

    def refuse_view_target(self, target: TableDef, node: exp.Expr, verb: str) -> None:
        """Hive's refusals of a view as the table a statement writes."""
        if not target.is_view:
            return
        if verb == "INSERT":
            raise PlanError(f"{where_is(node)}A view cannot be used as target table for LOAD or INSERT (Hive error 10090)")
        if verb == "TRUNCATE":
            raise PlanError(f"{where_is(node)}Cannot truncate non-managed table {target.qualified_name}.")
        raise PlanError(f"{where_is(node)}You cannot update or delete records in a view: {target.qualified_name}")

    def bind(self, tree: exp.Expr) -> BoundTables:
        """All catalog tables ``tree`` reads, with their pruning.

        A DML statement's own target reference (marked by :func:`target_table`) is read with its row ids and
        pruned on its own; every other reference of the same table is an ordinary read.
        """
        found: dict[str, TableDef] = {}
        references: dict[str, list[TablePruning]] = {}
        target_pruning = None
        views: set[str] = set()
        for table in catalog_tables(tree):
            if not is_target(table) and self.is_session_view(table):
                views.add(table.name.lower())
                continue
            tdef = self.resolve(table)
            found.setdefault(tdef.qualified_name, tdef)
            if is_target(table):
                target_pruning = table_pruning(table, tdef)
            else:
                references.setdefault(tdef.qualified_name, []).append(table_pruning(table, tdef))
        row_ids = frozenset(found) if mentions_row_id(tree) else frozenset()
        pruning = {name: merge_pruning(refs) for name, refs in references.items()}
        return BoundTables(tuple(found.values()), row_ids, pruning, target_pruning, frozenset(views))

    # -- statements ---------------------------------------------------------------------------------
    def plan_query(self, tree: exp.Expr) -> QueryPlan:
        with self._one_statement():
            tree = self.expand_views(tree.copy())
            return QueryPlan(tree, self.bind(tree))

    def plan_insert(self, tree: exp.Insert) -> InsertPlan:
        target_node = tree.this
        columns: list[str] | None = None
        column_nodes: list[exp.Expr] = []
        if isinstance(target_node, exp.Schema):
            column_nodes = list(target_node.expressions)
            columns = [i.name.lower() for i in column_nodes]
            target_node = target_node.this
        if not isinstance(target_node, exp.Table):
            raise PlanError(f"{where_is(tree)}INSERT needs a table name")
        target = self.resolve(target_node)
        self.refuse_view_target(target, target_node, "INSERT")
        static, dynamic = insert_spec(target_node, target)
        order = columns if columns is not None else [c.name for c in target.columns]
        if target.is_partitioned and target_node.args.get("partition") is None and columns is None:
            order = order + [k.name for k in target.partition_keys]  # all partition values come last
        order = order + dynamic
        types = {c.name: c.type for c in target.all_columns}
        known = set(types)
        for col, node in zip(order, [*column_nodes, *[None] * len(order)], strict=False):
            if col not in known:
                raise PlanError(f"{where_is(node or tree)}Invalid column reference '{col}' in table {target.qualified_name}")
            if col in static:
                raise PlanError(f"{where_is(node or tree)}Partition column '{col}' has a static value and is in the column list")
        if len(set(order)) != len(order):
            raise PlanError(f"{where_is(tree)}Duplicate column in INSERT column list")
        missing = [k.name for k in target.partition_keys if k.name not in static and k.name not in order]
        if missing:
            raise PlanError(f"{where_is(tree)}No value for partition column '{missing[0]}' of {target.qualified_name}")
        source = tree.expression
        if source is None:
            raise PlanError(f"{where_is(tree)}INSERT needs VALUES or a query")
        width = len(order)
        is_values = isinstance(source, exp.Values)
        if not is_values:
            source = self.expand_views(source.copy())
        if is_values:
            for row in source.expressions:
                count = len(row.expressions) if isinstance(row, exp.Tuple) else 1
                if count != width:
                    raise PlanError(
                        f"{where_is(row)}Cannot insert into target table because column number/types are different "
                        f"'{target.name}': Table insclause-0 has {width} columns, but query has {count} columns."
                    )
            source = _typed_values(source, [(f"{target.qualified_name}.{c}", types[c]) for c in order], target, order)
        return InsertPlan(
            target=target,
            source=source,
            reads=self.bind(source) if not is_values else BoundTables(),
            column_order=tuple(order),
            overwrite=bool(tree.args.get("overwrite")),
            values=is_values,
            static_partitions=tuple(static.items()),
        )

    def _dml_target(self, tree: exp.Expr, verb: str, *, changes_rows: bool = True) -> tuple[TableDef, exp.Table]:
        """The target of UPDATE / DELETE / MERGE; ``changes_rows``: the statement updates or deletes (a MERGE
        with INSERT clauses only does not, so an insert-only table may take it)."""
        node = tree.this
        if not isinstance(node, exp.Table):
            raise PlanError(f"{where_is(tree)}{verb} needs a table name")
        target = self.resolve(node)
        self.refuse_view_target(target, node, verb)
        if not target.is_transactional:
            raise PlanError(
                f"{where_is(node)}Attempt to do update or delete on table {target.qualified_name} "
                "that is not transactional (Hive error 10297)"
            )
        if target.is_insert_only and changes_rows:
            raise PlanError(
                f"{where_is(node)}Attempt to do update or delete on table {target.qualified_name} "
                "that is insert-only transactional (Hive error 10414)"
            )
        return target, node

    def _row_id_select(self, target: TableDef, node: exp.Table, where: exp.Where | None) -> exp.Select:
        alias = node.alias_or_name
        table = target_table(target, alias)
        select = exp.Select().select(
            *[exp.column(c, table=alias) for c in (PART_DIR, OWID, BUCKET, ROWID)]
        ).from_(table)
        if where is not None:
            select = select.where(where.this.copy())
        return select

    def plan_update(self, tree: exp.Update) -> UpdatePlan:
        target, node = self._dml_target(tree, "UPDATE")
        changes = set_assignments(tree.expressions, target)
        new_values = {name: value for name, _, value in changes}
        assignments = [(name, written.sql(dialect="hive")) for name, written, _ in changes]
        select = self._row_id_select(target, node, tree.args.get("where"))
        alias = node.alias_or_name
        for column in target.all_columns:
            value = new_values.get(column.name)
            expr = value if value is not None else enforced(exp.column(column.name, table=alias), target, column.name)
            select = select.select(exp.alias_(expr, column.name, quoted=True))
        keys = {k.name for k in target.partition_keys}
        select = self.expand_views(select)
        return UpdatePlan(
            target,
            select,
            self.bind(select),
            tuple(assignments),
            moves_partitions=bool(keys & set(new_values)),
            moves_buckets=bool(set(target.bucket_cols) & set(new_values)),
        )

    def plan_delete(self, tree: exp.Delete) -> DeletePlan:
        target, node = self._dml_target(tree, "DELETE")
        select = self.expand_views(self._row_id_select(target, node, tree.args.get("where")))
        return DeletePlan(target, select, self.bind(select))

    def plan_merge(self, tree: exp.Merge) -> MergePlan:
        whens = tree.args.get("whens")
        changes_rows = whens is None or any(not isinstance(w.args.get("then"), exp.Insert) for w in whens.expressions)
        target, _node = self._dml_target(tree, "MERGE", changes_rows=changes_rows)
        tree = tree.copy()
        node = tree.this
        using = tree.args.get("using")
        if isinstance(using, exp.Expr):
            wrapper = exp.Select().from_(using.copy())  # a lone USING table is expanded in place of its FROM
            expanded = self.expand_views(wrapper)
            from_ = expanded.args.get("from_") or expanded.args.get("from")
            assert from_ is not None  # built with one FROM above
            expanded = from_.this
            tree.set("using", expanded)
        return build_merge(tree, target, node, self.bind)

    def plan_truncate(self, table: exp.Table) -> TruncatePlan:
        target = self.resolve(table)
        self.refuse_view_target(target, table, "TRUNCATE")
        return TruncatePlan(target)

    def plan(self, tree: exp.Expr) -> QueryPlan | DmlPlan:
        """The plan of a query or DML statement (one dispatch for running and for EXPLAIN)."""
        with self._one_statement():
            return self._plan(tree)

    def _plan(self, tree: exp.Expr) -> QueryPlan | DmlPlan:
        if is_query(tree):
            return self.plan_query(tree)
        if isinstance(tree, exp.Insert):
            return self.plan_insert(tree)
        if isinstance(tree, exp.Update):
            return self.plan_update(tree)
        if isinstance(tree, exp.Delete):
            return self.plan_delete(tree)
        if isinstance(tree, exp.Merge):
            return self.plan_merge(tree)
        if isinstance(tree, exp.TruncateTable) and len(tree.expressions) == 1:
            return self.plan_truncate(tree.expressions[0])
        raise UnsupportedStatementError(f"{where_is(tree)}no plan for {tree.key.upper()} statements")

    def plan_dml(self, tree: exp.Expr) -> DmlPlan:
        """The plan of a statement that writes a table (a query is refused)."""
        if is_query(tree):
            raise UnsupportedStatementError(f"{where_is(tree)}a query writes no table")
        return self.plan(tree)  # type: ignore[return-value]  # not a query, so a DmlPlan


def _typed_values(values: exp.Values, columns: list[tuple[str, str]], target: TableDef, names: list[str]) -> exp.Expr:
    """VALUES rows with every value cast to its target column's type, as Hive casts each value it inserts.

    Spark would otherwise first unify each VALUES column across rows and refuse e.g. a string in one row and
    a DATE in another, which Hive takes. Under ``hiveacid.strict.casts`` a value's check raises an error,
    which Spark's inline tables (folded on the driver) cannot hold: the rows are then ``SELECT .. UNION ALL``.
    ``DEFAULT`` is the column's default value (NULL without one).
    """
    values = values.copy()
    for row in values.expressions:
        for item, name in zip(list(row.expressions if isinstance(row, exp.Tuple) else [row]), names, strict=True):
            if is_default(item):
                item.replace(default_value(target, name))
    if strict_casts_on():
        rows = [row.expressions if isinstance(row, exp.Tuple) else [row] for row in values.expressions]
        selects = [
            exp.select(*[
                exp.alias_(hive_cast(item.copy(), htype, column=column), f"c{i}")
                for i, (item, (column, htype)) in enumerate(zip(items, columns, strict=True))
            ])
            for items in rows
        ]
        union: exp.Expr = selects[0]
        for select in selects[1:]:
            union = exp.union(union, select, distinct=False)
        return union
    out = values.copy()
    for row in out.expressions:
        items = row.expressions if isinstance(row, exp.Tuple) else [row]
        for item, (column, htype) in zip(list(items), columns, strict=True):
            item.replace(hive_cast(item.copy(), htype, column=column, constant=True))
    return out
