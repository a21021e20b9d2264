"""Read-only helpers over parsed statement trees, used by every layer above ``sql``: where a node is in the
text (for one-line errors), the table names a tree mentions, whether a statement is a query, Hive's
``DEFAULT`` keyword and ``row__id``.

They live in the ``sql`` layer so that only it knows how sqlglot keeps positions (identifier ``meta``) and
where tables hang in a tree; nothing here reads the catalog.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from hiveacid_sql.errors import PlanError

ROW_ID = "row__id"


def position(expr: exp.Expr) -> tuple[int, int] | None:
    """Return the 1-based ``(line, col)`` where ``expr`` starts in the parsed script, or None.

    sqlglot records ``meta`` (line, col of the token's *last* character, start and end offsets) on
    identifiers and literals.  We take the earliest such node inside ``expr`` and convert its column
    to the token's *first* character, the same convention parse errors use.
    """
    best: tuple[int, int] | None = None
    for node in expr.walk():
        meta = node.meta if isinstance(node, exp.Expression) else None
        if not meta or "line" not in meta or "col" not in meta:
            continue
        line, col = int(meta["line"]), int(meta["col"])
        start, end = meta.get("start"), meta.get("end")
        if start is not None and end is not None and end - start < col:
            col -= end - start
        if best is None or (line, col) < best:
            best = (line, col)
    return best


def where_is(node: exp.Expr | None) -> str:
    """``line L, col C: `` (where the node's text starts) for a node that carries a position, else empty."""
    if node is None:
        return ""
    found = position(node)
    return f"line {found[0]}, col {found[1]}: " if found else ""


def table_names(table: exp.Table, current_db: str) -> tuple[str, str]:
    """(db, table) lower-cased, the current database filling in a missing db.

    The parser may put another node where a table name belongs (``DESCRIBE UPDATE t``, ``TRUNCATE VALUES``):
    that is the user's error, said in one line, not an AttributeError.
    """
    if not isinstance(table, exp.Table):
        found = table.key.upper() if isinstance(table, exp.Expression) else "nothing"
        raise PlanError(f"{where_is(table) if isinstance(table, exp.Expression) else ''}Expected a table name, "
                        f"found {found}")
    return (table.db or current_db).lower(), table.name.lower()


def mentions_row_id(tree: exp.Expr) -> bool:
    """Whether the statement names Hive's virtual ``row__id`` column anywhere."""
    # `row__id.rowid` parses as column `rowid` of a "table" `row__id`; `t.row__id.rowid` puts it in `db`.
    return any(
        ROW_ID in (c.name.lower(), c.table.lower(), c.db.lower()) for c in tree.find_all(exp.Column)
    )


QUERY_TYPES = (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Subquery, exp.Values)


def is_query(tree: exp.Expr) -> bool:
    """Whether a statement is a query (run by Spark SQL and returned as a DataFrame)."""
    return isinstance(tree, QUERY_TYPES) or (isinstance(tree, exp.With) and isinstance(tree.this, QUERY_TYPES))


def _cte_names(tree: exp.Expr) -> set[str]:
    return {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}


def catalog_tables(tree: exp.Expr) -> list[exp.Table]:
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


def is_default(node: exp.Expr) -> bool:
    """Whether a value is Hive's ``DEFAULT`` keyword (a bare name, not a column of a table)."""
    return isinstance(node, exp.Var | exp.Column) and node.name.upper() == "DEFAULT" and not getattr(node, "table", "")


def literal_text(node: exp.Expr | None) -> str | None:
    """The text of a literal or name as written (``'zlib'`` -> ``zlib``), for property keys and values."""
    if node is None:
        return None
    if isinstance(node, exp.Literal):
        return str(node.this)
    return node.name if hasattr(node, "name") and node.name else node.sql(dialect="hive").strip("'\"")


#: words after CREATE / DROP / ALTER that qualify the kind of object, kept in a statement's kind
_KIND_WORDS = {"OR", "REPLACE", "EXTERNAL", "TEMPORARY", "TRANSACTIONAL", "MATERIALIZED"}
_OBJECT_WORDS = {"TABLE", "VIEW", "DATABASE", "SCHEMA", "INDEX", "FUNCTION", "MACRO", "ROLE"}


def statement_kind(statement: Any) -> tuple[str, str | None]:
    """A statement's kind as its leading keywords (``CREATE TABLE``, ``DROP VIEW``, ``SET``, ``BEGIN``) and the
    object it names as written (``db.t``; None when it names none), for a statement's one-line report."""
    words = statement.text.split()
    if not words:
        return "", None
    first = words[0].upper()
    kind = [first]
    rest = words[1:]
    if first in ("CREATE", "DROP", "ALTER", "TRUNCATE", "MSCK"):
        while rest and rest[0].upper() in _KIND_WORDS | _OBJECT_WORDS:
            kind.append(rest[0].upper())
            done = rest[0].upper() in _OBJECT_WORDS
            rest = rest[1:]
            if done:
                break
        if rest and rest[0].upper() == "IF":  # IF [NOT] EXISTS
            rest = rest[2:] if len(rest) > 1 and rest[1].upper() == "EXISTS" else rest[3:]
        target = rest[0].split("(")[0].rstrip(";").replace("`", "") if rest else None
        return " ".join(kind), target or None
    if first == "USE" and rest:
        return first, rest[0].rstrip(";").replace("`", "")
    if first == "START" and rest:
        return "START TRANSACTION", None
    return first, None
