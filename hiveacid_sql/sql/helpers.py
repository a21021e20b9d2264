"""Small read-only helpers over parsed trees, for the planner.

They live here so that only ``hiveacid_sql.sql`` knows where sqlglot keeps a statement's target
table and how it records source positions (identifier ``meta``).
"""

from __future__ import annotations

from sqlglot import exp


def table_name(expr: exp.Expression) -> tuple[str | None, str]:
    """Return ``(db, table)`` lower-cased for a table or for a statement that targets one.

    Accepts an ``exp.Table`` or any node whose ``this`` chain leads to one (UPDATE, DELETE, MERGE,
    INSERT, CREATE, ALTER, COMPACT, DESCRIBE, SHOW TBLPROPERTIES, ...), plus ``exp.Show`` (its
    ``target``), ``exp.TruncateTable`` and ``exp.Drop`` (their first table).  Hive names are
    case-insensitive, so lower-casing here saves every caller from doing it.  Raises ``ValueError``
    if there is no table.
    """
    node: exp.Expression | None = expr
    while node is not None and not isinstance(node, exp.Table):
        if isinstance(node, exp.Show):
            node = node.args.get("target")
        elif isinstance(node, exp.TruncateTable):
            node = node.expressions[0] if node.expressions else None
        elif node.args.get("tables"):  # DROP TABLE keeps its table(s) in a list
            node = node.args["tables"][0]
        else:
            nxt = node.args.get("this")
            node = nxt if isinstance(nxt, exp.Expression) else None
    if node is None or not node.name:
        raise ValueError(f"no table in {type(expr).__name__} node")
    db = node.text("db")
    return (db.lower() if db else None), node.name.lower()


def position(expr: exp.Expression) -> tuple[int, int] | None:
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
