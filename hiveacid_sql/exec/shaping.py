"""Shape a statement's source rows into a table's columns, cast as Hive's INSERT casts them.

The source's columns map by position onto ``column_order`` (data columns and dynamic partition columns);
data columns it does not name get their DEFAULT (NULL without one), static partition columns get their constant. Every value is cast
to its column's type, and ``varchar(n)`` / ``char(n)`` get Hive's length rules, for every target (ACID or
plain), so the same INSERT stores the same values whatever the table's format.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from sqlglot import exp

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.errors import PlanError
from hiveacid_sql.exec.scan import partition_values
from hiveacid_sql.plan.columns import PART_DIR
from hiveacid_sql.plan.target import (
    check_columns_of,
    check_message,
    check_sql,
    default_value,
    not_null_message,
)
from hiveacid_sql.plan.types import hive_cast
from hiveacid_sql.txn import TableDef


def shape_rows(
    df: DataFrame,
    table: TableDef,
    column_order: Sequence[str],
    static_partitions: Sequence[tuple[str, exp.Expr]],
) -> DataFrame:
    """The table's data columns then its partition columns, from ``df``'s columns in ``column_order``, each
    cast as Hive casts a written value (:func:`~hiveacid_sql.plan.types.hive_cast`; strict ones inside
    :func:`~hiveacid_sql.exec.session.hive_value_semantics` with ``strict``)."""
    width = len(column_order)
    if len(df.columns) != width:
        raise PlanError(
            "Cannot insert into target table because column number/types are different "
            f"'{table.name}': Table insclause-0 has {width} columns, but query has {len(df.columns)} columns."
        )
    source = df.toDF(*[f"__c{i}" for i in range(width)])
    position = {name: i for i, name in enumerate(column_order)}
    static = dict(static_partitions)
    out = []
    for column in table.all_columns:
        if column.name in static:
            value: exp.Expr = static[column.name]
        elif column.name in position:
            value = exp.column(f"__c{position[column.name]}")
        else:
            value = default_value(table, column.name)
        cast = hive_cast(value, column.type, column=f"{table.qualified_name}.{column.name}")
        written = hive_lengths(F.expr(cast.sql(dialect="spark")), column.type)
        if column.name in table.not_null_columns:  # Hive's enforce_constraint: the statement fails, nothing is written
            written = F.coalesce(written, F.raise_error(not_null_message(table, column.name)))
        out.append(written.alias(column.name))
    return enforce_checks(source.select(*out), table)


def enforce_checks(df: DataFrame, table: TableDef, applies: Column | None = None) -> DataFrame:
    """``df``'s new rows (the table's columns by name), failing the statement (a ``raise_error`` in the Spark
    job: nothing is committed) at a row where an enabled CHECK constraint is FALSE; NULL passes, as in SQL
    and in Hive (``enforce_constraint(.. IS NOT FALSE)``). ``applies``: only rows where it holds are new
    rows (MERGE). A partition column ``df`` lacks (an UPDATE that keeps each row in its partition) is taken
    from the row's partition directory (``__part_dir``) for the check, and dropped again."""
    named = {name for check in table.check_constraints for name in check_columns_of(check.default_value or "")}
    keys = [(c.name, parse_hive_type(c.type)) for c in table.partition_keys]
    borrowed = [name for name, _ in keys if name in named and name not in df.columns]
    if borrowed and PART_DIR in df.columns:
        values = partition_values(F.col(PART_DIR), keys)
        df = df.withColumns({name: v for (name, _), v in zip(keys, values, strict=True) if name in borrowed})
    for check in table.check_constraints:
        text = check.default_value or ""
        if not set(check_columns_of(text)) <= set(df.columns):
            continue  # a column this frame does not carry
        condition = F.expr(check_sql(text))
        violated = ~F.coalesce(condition, F.lit(True))
        if applies is not None:
            violated = F.coalesce(applies, F.lit(False)) & violated
        df = df.where(F.when(violated, F.raise_error(check_message(table, check.name, text))).isNull())
    return df.drop(*borrowed) if borrowed and PART_DIR in df.columns else df


def hive_lengths(value: Column, hive_type: str) -> Column:
    """Hive's INSERT rules for ``varchar(n)`` (truncate) and ``char(n)`` (truncate, pad)."""
    parsed = parse_hive_type(hive_type)
    if parsed.name == "varchar":
        return F.substring(value, 1, parsed.length)
    if parsed.name == "char":
        return F.rpad(F.substring(value, 1, parsed.length), parsed.length, " ")
    return value
