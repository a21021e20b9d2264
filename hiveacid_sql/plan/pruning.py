"""What a statement's predicates say about the partitions and buckets it can touch (pure sqlglot, no files).

For each table a statement reads, the conjuncts of the WHERE clause next to it that name only that table's
partition columns form its *partition filter*: the executor evaluates it on the catalog's partition list
and lists only the partitions that pass, before any directory is opened. Equality and IN predicates on
all bucketing columns give the *bucket values*: the executor reads only the files of their buckets.

Conjuncts comparing a data column with integer literals (``=``, ``IN``, ``<``, ``<=``, ``>``, ``>=``,
``BETWEEN``) are the *key filters*: the executor hands them to ORC as a search argument, which skips the
stripes and row groups whose statistics exclude them (:mod:`hiveacid_sql.exec.sarg`).

All are optimisations: the full WHERE clause still runs on the rows read, so a predicate that cannot be
used here (a function of a partition column and a data column, an OR across tables) only costs reading
more, never a wrong row.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from sqlglot import exp

from hiveacid_sql.txn import TableDef

_MAX_BUCKET_COMBINATIONS = 1024


@dataclass(frozen=True)
class KeyFilter:
    """One conjunct ``column op integer literal(s)`` of the WHERE next to a table: every row the statement
    keeps satisfies it, so a stripe or row group whose min/max of ``column`` exclude it holds none of them.
    ``op``: ``=``, ``in``, ``<``, ``<=``, ``>``, ``>=`` (``column`` on the left); ``column`` lower-case."""

    column: str
    op: str
    values: tuple[int, ...]


@dataclass(frozen=True)
class TablePruning:
    """Pruning for one table: a predicate over its partition columns (unqualified names), the bucket
    column value tuples an equality / IN on every bucketing column allows (None: no restriction), and the
    key filters on its data columns (empty: none)."""

    partition_filter: exp.Expr | None = None
    bucket_values: tuple[tuple[object, ...], ...] | None = None
    key_filters: tuple[KeyFilter, ...] = ()


def _conjuncts(where: exp.Expr | None) -> list[exp.Expr]:
    if where is None:
        return []
    node = where.this if isinstance(where, exp.Where) else where
    return list(node.flatten()) if isinstance(node, exp.And) else [node]


def _single_source(select: exp.Select) -> bool:
    return not select.args.get("joins")


def _column_of(col: exp.Column, table_node: exp.Table, select: exp.Select, names: set[str]) -> str | None:
    """The column's name if it is one of ``names`` of ``table_node`` (qualified by its alias, or unqualified
    when the SELECT reads only that table), else None."""
    name = col.name.lower()
    if name not in names or col.args.get("db"):
        return None
    qualifier = col.table
    if qualifier:
        return name if qualifier.lower() == table_node.alias_or_name.lower() else None
    return name if _single_source(select) else None


def _usable(conjunct: exp.Expr) -> bool:
    """No subqueries, aggregates, window functions or non-deterministic calls: safe to evaluate alone."""
    bad = (exp.Subquery, exp.Select, exp.AggFunc, exp.Window, exp.Rand, exp.Exists)
    return not any(isinstance(n, bad) for n in conjunct.walk())


def _only_columns(conjunct: exp.Expr, table_node: exp.Table, select: exp.Select, names: set[str]) -> bool:
    cols = list(conjunct.find_all(exp.Column))
    return bool(cols) and all(_column_of(c, table_node, select, names) for c in cols)


def _unqualified(conjunct: exp.Expr) -> exp.Expr:
    out = conjunct.copy()
    for col in out.find_all(exp.Column):
        col.set("table", None)
    return out


def _literal_value(node: exp.Expr) -> object | None:
    """A number or string literal's Python value (negative numbers included); None for anything else."""
    negative = False
    if isinstance(node, exp.Neg):
        negative, node = True, node.this
    if not isinstance(node, exp.Literal):
        return None
    if node.is_string:
        return None if negative else node.this
    text = node.this
    if not text.lstrip("-").isdigit():
        return None  # decimals/exponents: Spark may compare them as another type, so no bucket pruning
    value = int(text)
    return -value if negative else value


def _equalities(
    conjuncts: list[exp.Expr], table_node: exp.Table, select: exp.Select, column: str
) -> list[object] | None:
    """Values ``column`` must equal according to one ``col = literal`` or ``col IN (literals)`` conjunct."""
    for conjunct in conjuncts:
        if isinstance(conjunct, exp.EQ):
            sides = [(conjunct.this, conjunct.expression), (conjunct.expression, conjunct.this)]
            for col, lit in sides:
                if isinstance(col, exp.Column) and _column_of(col, table_node, select, {column}):
                    value = _literal_value(lit)
                    if value is not None:
                        return [value]
        elif isinstance(conjunct, exp.In) and not conjunct.args.get("query") and not conjunct.args.get("is_global"):
            col = conjunct.this
            if isinstance(col, exp.Column) and _column_of(col, table_node, select, {column}):
                values = [_literal_value(e) for e in conjunct.expressions]
                if values and all(v is not None for v in values):
                    return values
    return None


#: A comparison with the literal on the left, as the same comparison with the column on the left.
_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_COMPARISONS: dict[type, str] = {exp.EQ: "=", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}


def _integer(node: exp.Expr) -> int | None:
    value = _literal_value(node)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _key_filter(conjunct: exp.Expr, table_node: exp.Table, select: exp.Select, names: set[str]) -> list[KeyFilter]:
    """The key filters one conjunct amounts to (BETWEEN: two), or none."""
    op = _COMPARISONS.get(type(conjunct))
    if op is not None:
        left, right = conjunct.this, conjunct.expression
        for col, lit, this_op in ((left, right, op), (right, left, _FLIPPED[op])):
            if isinstance(col, exp.Column):
                name, value = _column_of(col, table_node, select, names), _integer(lit)
                if name is not None and value is not None:
                    return [KeyFilter(name, this_op, (value,))]
        return []
    col = conjunct.this
    if not isinstance(col, exp.Column):
        return []
    name = _column_of(col, table_node, select, names)
    if name is None:
        return []
    if isinstance(conjunct, exp.In) and not conjunct.args.get("query") and not conjunct.args.get("is_global"):
        values = [_integer(e) for e in conjunct.expressions]
        if values and all(v is not None for v in values):
            return [KeyFilter(name, "in", tuple(v for v in values if v is not None))]
    if isinstance(conjunct, exp.Between):
        low, high = _integer(conjunct.args["low"]), _integer(conjunct.args["high"])
        if low is not None and high is not None:
            return [KeyFilter(name, ">=", (low,)), KeyFilter(name, "<=", (high,))]
    return []


def key_filters(conjuncts: list[exp.Expr], table_node: exp.Table, select: exp.Select, table: TableDef) -> tuple[KeyFilter, ...]:
    """The key filters among ``conjuncts`` (of the WHERE next to ``table_node``) on ``table``'s data columns."""
    names = {c.name.lower() for c in table.columns}
    return tuple(f for c in conjuncts for f in _key_filter(c, table_node, select, names))


def table_pruning(table_node: exp.Table, table: TableDef) -> TablePruning:
    """Pruning for one table reference, from the WHERE of the SELECT whose FROM/JOIN names it."""
    select = table_node.find_ancestor(exp.Select)
    if select is None:
        return TablePruning()
    sources = [select.args.get("from_") or select.args.get("from"), *(select.args.get("joins") or [])]
    if not any(s is not None and s.this is table_node for s in sources):
        return TablePruning()  # the table sits in a subquery of this SELECT, not in its FROM
    conjuncts = [c for c in _conjuncts(select.args.get("where")) if _usable(c)]
    keyed = key_filters(conjuncts, table_node, select, table)
    if not table.is_partitioned and not table.is_bucketed:
        return TablePruning(key_filters=keyed)
    keys = {k.name for k in table.partition_keys}
    on_keys = [_unqualified(c) for c in conjuncts if keys and _only_columns(c, table_node, select, keys)]
    partition_filter = exp.and_(*on_keys) if on_keys else None
    bucket_values = None
    if table.is_bucketed:
        per_column = [_equalities(conjuncts, table_node, select, c) for c in table.bucket_cols]
        if all(v is not None for v in per_column):
            combos = list(itertools.islice(itertools.product(*[v or [] for v in per_column]), _MAX_BUCKET_COMBINATIONS + 1))
            if len(combos) <= _MAX_BUCKET_COMBINATIONS:
                bucket_values = tuple(combos)
    return TablePruning(partition_filter, bucket_values, keyed)


def merge_pruning(references: list[TablePruning]) -> TablePruning:
    """One table read through several references (a self-join): prune only what no reference needs."""
    if not references:
        return TablePruning()
    filters = [r.partition_filter for r in references]
    partition_filter = exp.or_(*filters) if all(f is not None for f in filters) else None
    buckets = [r.bucket_values for r in references]
    bucket_values = tuple(v for b in buckets for v in b) if all(b is not None for b in buckets) else None  # type: ignore[union-attr]
    # A row group can be skipped only when no reference reads it: simplest when all say the same.
    keyed = references[0].key_filters if all(r.key_filters == references[0].key_filters for r in references) else ()
    return TablePruning(partition_filter, bucket_values, keyed)


def partition_conjuncts(expr: exp.Expr | None, alias: str, keys: set[str]) -> list[exp.Expr]:
    """Conjuncts of ``expr`` that name only partition columns ``keys`` qualified by ``alias`` (unqualified)."""
    out = []
    for conjunct in _conjuncts(expr):
        cols = list(conjunct.find_all(exp.Column))
        if cols and _usable(conjunct) and all(
            c.table and c.table.lower() == alias.lower() and c.name.lower() in keys and not c.args.get("db")
            for c in cols
        ):
            out.append(_unqualified(conjunct))
    return out
