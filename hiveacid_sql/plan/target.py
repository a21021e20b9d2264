"""A DML statement's target: the marked table reference its queries read, and the one interpreter of
``SET column = value`` lists (UPDATE and MERGE's WHEN ... UPDATE share it, so DEFAULT, the column checks and
the casts to the column types are the same in both)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from hiveacid_sql.errors import PlanError
from hiveacid_sql.plan.types import hive_cast
from hiveacid_sql.sql.parse import parse_one
from hiveacid_sql.sql.tree import is_default, where_is
from hiveacid_sql.txn import TableDef

_TARGET = "hiveacid_target"


def target_table(target: TableDef, alias: str) -> exp.Table:
    """A reference to a DML statement's target, marked so that it is read with its partition directory and
    row ids (``__part_dir, __owid, __bucket, __rowid``) and pruned by the statement's own rules."""
    table = exp.Table(this=exp.to_identifier(target.name), db=exp.to_identifier(target.db))
    table.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
    table.meta[_TARGET] = True
    return table


def is_target(table: exp.Table) -> bool:
    """Whether a table reference is a DML target made by :func:`target_table`."""
    return bool(table.meta.get(_TARGET))


def default_value(target: TableDef, name: str) -> exp.Expr:
    """What a column gets when a write names no value for it or says ``DEFAULT``: its DEFAULT constraint's
    value (Hive SQL text from the catalog, e.g. ``127Y`` or ``current_timestamp()``), else NULL; cast to
    the column's type."""
    column = next(c for c in target.all_columns if c.name == name)
    text = target.default_of(name)
    value: exp.Expr = exp.Null()
    if text is not None:
        select = parse_one(f"SELECT {text}").tree
        value = select.expressions[0] if isinstance(select, exp.Select) else exp.Null()
    return hive_cast(value, column.type, column=f"{target.qualified_name}.{name}")


def column_value(node: exp.Expr, target: TableDef, name: str) -> exp.Expr:
    """A value written to column ``name`` of ``target``, cast as Hive casts it; ``DEFAULT`` is the column's
    default (NULL without one)."""
    if is_default(node):
        return default_value(target, name)
    htype = next(c.type for c in target.all_columns if c.name == name)
    return hive_cast(node.copy(), htype, column=f"{target.qualified_name}.{name}")


#: Hive 3.1's words when a NOT NULL (or CHECK) constraint fails (``GenericUDFEnforceConstraint``)
NOT_NULL_VIOLATED = "Either CHECK or NOT NULL constraint violated!"


def not_null_message(target: TableDef, name: str) -> str:
    return f"{NOT_NULL_VIOLATED} (column {target.qualified_name}.{name} is NOT NULL)"


def check_message(target: TableDef, name: str, text: str) -> str:
    """Hive's words when a CHECK constraint is FALSE for a written row, naming the constraint."""
    return f"{NOT_NULL_VIOLATED} (CHECK constraint {name} of {target.qualified_name}: {text})"


def _check_expression(text: str) -> exp.Expr:
    select = parse_one(f"SELECT {text}").tree
    if not isinstance(select, exp.Select) or len(select.expressions) != 1:
        raise PlanError(f"Invalid CHECK constraint expression: {text}")
    return select.expressions[0]


def check_sql(text: str) -> str:
    """A stored CHECK expression (Hive SQL over the table's columns) as Spark SQL."""
    return _check_expression(text).sql(dialect="spark")


def check_columns_of(text: str) -> list[str]:
    """The columns a CHECK expression names, lower-case, in order of first use."""
    out: list[str] = []
    for col in _check_expression(text).find_all(exp.Column):
        name = col.name.lower()
        if name not in out:
            out.append(name)
    return out


def enforced(value: exp.Expr, target: TableDef, name: str) -> exp.Expr:
    """``value``, failing the statement (a ``raise_error`` in the Spark job: nothing is committed) when it is
    NULL and the column has an enabled NOT NULL constraint; ``value`` itself otherwise."""
    if name not in target.not_null_columns:
        return value
    error = exp.Anonymous(this="raise_error", expressions=[exp.Literal.string(not_null_message(target, name))])
    return exp.Coalesce(this=value, expressions=[error])


def set_assignments(
    items: Sequence[exp.Expr], target: TableDef, *, star_source: str | None = None
) -> list[tuple[str, exp.Expr, exp.Expr]]:
    """``SET c = e, ..`` as ``(column, e as written, e cast to c's type)``, in the order written.

    Every column must be the target's and set once; ``DEFAULT`` is the column's default (or NULL); a NOT
    NULL column's value is checked. ``SET *`` (MERGE only, where
    ``star_source`` is the source alias) sets every target column from the source column of its name.
    """
    types = {c.name: c.type for c in target.all_columns}
    out: dict[str, tuple[exp.Expr, exp.Expr]] = {}
    for item in items:
        if isinstance(item, exp.Star) and star_source is not None:
            for col in target.all_columns:
                source = exp.column(col.name, table=star_source, quoted=True)
                cast = hive_cast(source.copy(), col.type, column=f"{target.qualified_name}.{col.name}")
                out[col.name] = (source, enforced(cast, target, col.name))
            continue
        if not isinstance(item, exp.EQ) or not isinstance(item.this, exp.Column):
            raise PlanError(f"{where_is(item)}SET expects column = expression")
        name = item.this.name.lower()
        if name not in types:
            raise PlanError(
                f"{where_is(item.this)}Invalid column reference '{name}' in SET of table {target.qualified_name}"
            )
        if name in out:
            raise PlanError(f"{where_is(item.this)}Column '{name}' is set more than once")
        out[name] = (item.expression, enforced(column_value(item.expression, target, name), target, name))
    return [(name, written, value) for name, (written, value) in out.items()]
