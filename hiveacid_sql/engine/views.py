"""Views, stored as Hive stores them: a ``VIRTUAL_VIEW`` row in ``TBLS`` with the query as written
(``VIEW_ORIGINAL_TEXT``) and as read (``VIEW_EXPANDED_TEXT``: table names qualified with their database and
the output columns named, ``SELECT `c` AS `name`, .. FROM (<query>) `view```, the form Hive writes for a
view with a column list), and the view's columns and types in its storage descriptor.

A statement reading a view reads its expanded query in place of the view (the planner's
:meth:`~hiveacid_sql.plan.planner.Planner.expand_views`), so the tables beneath are read at the statement's
snapshot, like tables named directly.
"""

from __future__ import annotations

import getpass
import re
import time
from typing import TYPE_CHECKING

from sqlglot import exp

from hiveacid_sql.engine.ddl import spark_to_hive_type
from hiveacid_sql.errors import CatalogError, PlanError
from hiveacid_sql.sql.tree import catalog_tables, literal_text, table_names, where_is
from hiveacid_sql.txn import Column, TableDef
from hiveacid_sql.txn.tabledef import VIRTUAL_VIEW

if TYPE_CHECKING:

    from hiveacid_sql.engine.context import StatementContext
    from hiveacid_sql.exec.frames import LocalFrame

# Where the query of ``CREATE VIEW .. AS <query>`` / ``ALTER VIEW .. AS <query>`` starts in the text.
_QUERY_START = re.compile(r"\bAS\s*(?=\(*\s*(?:SELECT|WITH|FROM|VALUES|TABLE)\b)", re.IGNORECASE)


def _original_text(statement_text: str, query: exp.Expr) -> str:
    """The query as the user wrote it (Hive keeps the text verbatim), else as rendered."""
    match = _QUERY_START.search(statement_text)
    if match is None:
        return query.sql(dialect="hiveacid")
    return statement_text[match.end():].strip().rstrip(";").strip()


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _view_definition(
    ctx: StatementContext, db: str, name: str, query: exp.Expr, column_nodes: list[exp.Expr], statement_text: str
) -> tuple[tuple[Column, ...], str, str]:
    """(columns, original text, expanded text) of a view's query; checks it resolves, as Hive does at CREATE."""
    qualified = query.copy()
    for table in catalog_tables(qualified):
        if ctx.planner.is_session_view(table):
            raise PlanError(
                f"{where_is(table)}A view cannot read '{table.name}', a temporary view of the Spark session "
                "(the warehouse's other clients do not know it)"
            )
        if not table.db:
            table.set("db", exp.to_identifier(ctx.current_db))
    frame = ctx.query_frame(qualified.copy())
    fields = frame.schema.fields
    outputs = [f.name for f in fields]
    if column_nodes:
        if len(column_nodes) != len(fields):
            raise PlanError(
                f"{where_is(column_nodes[0])}The number of columns produced by the SELECT clause does not match the "
                "number of column names specified by CREATE VIEW (Hive error 10089)"
            )
        names = [n.name.lower() for n in column_nodes]
        comments = [_column_comment(n) for n in column_nodes]
    else:
        names = [_output_name(e, i, f.name) for i, (e, f) in enumerate(zip(_select_list(query, len(fields)), fields, strict=True))]
        comments = [None] * len(fields)
    seen: set[str] = set()
    for column in names:
        if column in seen:
            raise PlanError(f"Duplicate column name: {column}")
        seen.add(column)
    if len({o.lower() for o in outputs}) != len(outputs):
        duplicate = next(o for o in outputs if [x.lower() for x in outputs].count(o.lower()) > 1)
        raise PlanError(f"Duplicate column name: {duplicate.lower()}")
    columns = tuple(
        Column(n, spark_to_hive_type(f.dataType.simpleString()), c) for n, f, c in zip(names, fields, comments, strict=True)
    )
    inner = qualified.sql(dialect="hiveacid", identify=True)
    select_list = ", ".join(f"{_quoted(o)} AS {_quoted(n)}" for o, n in zip(outputs, names, strict=True))
    expanded = f"SELECT {select_list} FROM ({inner}) {_quoted(name)}"
    return columns, _original_text(statement_text, query), expanded


def _select_list(query: exp.Expr, width: int) -> list[exp.Expr | None]:
    """The top SELECT's expressions, when they line up with the output columns (no ``*``)."""
    select = query if isinstance(query, exp.Select) else None
    if select is None or any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)) for e in select.expressions):
        return [None] * width
    exprs: list[exp.Expr | None] = list(select.expressions)
    return exprs if len(exprs) == width else [None] * width


def _output_name(expression: exp.Expr | None, index: int, spark_name: str) -> str:
    """Hive's name of a view column without a column list: the column or alias, else ``_c<i>``."""
    if expression is None or isinstance(expression, exp.Alias | exp.Column):
        return spark_name.lower()
    return f"_c{index}"


def _column_comment(node: exp.Expr) -> str | None:
    for constraint in node.args.get("constraints") or []:
        if isinstance(constraint.kind, exp.CommentColumnConstraint):
            return literal_text(constraint.kind.this)
    return None


def create_view(ctx: StatementContext, tree: exp.Create, statement_text: str) -> None:
    """CREATE [OR REPLACE] VIEW [IF NOT EXISTS] v [(c [COMMENT ..], ..)] [COMMENT ..] [TBLPROPERTIES (..)] AS q."""
    target = tree.this
    column_nodes = list(target.expressions) if isinstance(target, exp.Schema) else []
    table_node = target.this if isinstance(target, exp.Schema) else target
    db, name = table_names(table_node, ctx.current_db)
    if not ctx.catalog.database_exists(db):
        raise PlanError(f"{where_is(table_node)}Database does not exist: {db}")
    query = tree.expression
    if query is None:
        raise PlanError(f"{where_is(table_node)}CREATE VIEW {db}.{name} needs AS SELECT ..")
    exists = bool(tree.args.get("exists"))
    if exists and ctx.catalog.table_exists(db, name):
        return
    comment = None
    params: dict[str, str] = {}
    for prop in (properties.expressions if (properties := tree.args.get("properties")) else []):
        if isinstance(prop, exp.SchemaCommentProperty):
            comment = literal_text(prop.this)
        elif isinstance(prop, exp.Property):
            params[(literal_text(prop.this) or "").lower() or prop.name] = literal_text(prop.args.get("value")) or ""
        else:
            raise PlanError(f"{where_is(table_node)}CREATE VIEW does not take {prop.sql(dialect='hiveacid')}")
    columns, original, expanded = _view_definition(ctx, db, name, query, column_nodes, statement_text)
    view = TableDef(
        db=db, name=name, columns=columns, location="", table_type=VIRTUAL_VIEW, storage_format="sequencefile",
        params=params, comment=comment, owner=getpass.getuser(), create_time=int(time.time()),
        view_original_text=original, view_expanded_text=expanded,
    )
    ctx.catalog.create_view(view, replace=bool(tree.args.get("replace")), if_not_exists=exists)


def alter_view_as(ctx: StatementContext, view: TableDef, query: exp.Expr, statement_text: str) -> None:
    """ALTER VIEW v AS <query>: a new definition, the view's comment and properties kept."""
    columns, original, expanded = _view_definition(ctx, view.db, view.name, query, [], statement_text)
    params = {k: v for k, v in view.params.items() if k != "transient_lastDdlTime"}
    new = TableDef(
        db=view.db, name=view.name, columns=columns, location="", table_type=VIRTUAL_VIEW,
        storage_format="sequencefile", params=params, comment=view.comment, owner=view.owner,
        create_time=int(time.time()), view_original_text=original, view_expanded_text=expanded,
    )
    ctx.catalog.create_view(new, replace=True)


def check_kind(table: TableDef, kind: str, verb: str) -> None:
    """Hive's refusals of ``ALTER/DROP TABLE`` on a view and ``ALTER/DROP VIEW`` on a table."""
    if verb == "DROP":
        if table.is_view and kind != "VIEW":
            raise CatalogError("Cannot drop a view with DROP TABLE")
        if not table.is_view and kind == "VIEW":
            raise CatalogError("Cannot drop a base table with DROP VIEW")
        return
    if table.is_view and kind != "VIEW":
        raise CatalogError("To alter a view you need to use the ALTER VIEW command. (Hive error 10131)")
    if not table.is_view and kind == "VIEW":
        raise CatalogError("To alter a base table you need to use the ALTER TABLE command. (Hive error 10132)")


def show_views(ctx: StatementContext, db: str, pattern: str | None) -> LocalFrame:
    """SHOW VIEWS [IN db] [LIKE 'p']: the views' names (Hive 3's ``tab_name``)."""
    from hiveacid_sql.engine.show import hive_like

    if not ctx.catalog.database_exists(db):
        raise PlanError(f"Database does not exist: {db}")
    names = hive_like(pattern, ctx.catalog.list_tables(db, table_type=VIRTUAL_VIEW))
    return ctx.rows([(n,) for n in names], "tab_name string")
