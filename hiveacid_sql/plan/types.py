"""Hive column types as the Spark SQL type names the planner writes into CASTs, and Hive 3.1's casts of a
written value to its column's type.

Pure SQL-tree building (no pyspark): the planner casts every written value to the column's type the way
Hive's INSERT does (``SemanticAnalyzer.genConversionSelectOperator`` -> the type's cast UDF), and Spark
evaluates those casts. Hive ``timestamp`` is wall-clock, so ``timestamp_ntz``; ``varchar``/``char`` are
``string`` here and get their length rules in the writer.

Where Spark's non-ANSI cast and Hive 3.1's differ, :func:`hive_cast` writes Hive's (each checked in
``tests/unit/test_hive_casts.py`` with its source):

* string -> timestamp / date: Hive's lenient parse (:mod:`hiveacid_sql.plan.hive_values`), folded on the
  driver for a string literal, run by the registered function :data:`STRING_TO_TIMESTAMP` /
  :data:`STRING_TO_DATE` (exec registers them) for any other string;
* decimal -> tinyint / smallint / int / bigint: NULL when the integer part does not fit (Hive's
  ``UDFToInteger.evaluate(HiveDecimalWritable)`` checks ``isInt()``; Spark wraps around).

The other casts a written value goes through agree already (Spark non-ANSI = Hive 3.1): integers and
doubles narrowed by Java's rules (wrap, saturate), unparseable numbers NULL, decimals rounded HALF_UP and
NULL on overflow. A value's type is known only to Spark, so the choice is made there: ``typeof(e)`` is
constant, and Spark folds the CASE down to the branch of the value's type.

``strict=True`` (``SET hiveacid.strict.casts=true``) writes Spark's ANSI cast instead, and a value that does
not fit fails the statement with a message naming the value and the column.
"""

from __future__ import annotations

import contextvars
import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

from sqlglot import exp

from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.plan.hive_values import hive_date, hive_timestamp

#: Spark SQL functions (registered by exec) running Hive's string -> timestamp / date parse on a string column
STRING_TO_TIMESTAMP = "hiveacid_string_to_timestamp"
STRING_TO_DATE = "hiveacid_string_to_date"

#: the integer range of each Hive integral type (Hive's decimal -> integer casts are NULL outside it)
_INTEGER_RANGE = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}


def spark_sql_type(hive_type: HiveType | str) -> str:
    """Spark SQL type name for a Hive type (``decimal(10,2)``, ``array<timestamp_ntz>``, ...)."""
    t = parse_hive_type(hive_type) if isinstance(hive_type, str) else hive_type
    if t.name in ("varchar", "char", "string"):
        return "string"
    if t.name == "timestamp":
        return "timestamp_ntz"
    if t.name == "decimal":
        return f"decimal({t.params[0]},{t.params[1]})"
    if t.name == "array":
        return f"array<{spark_sql_type(t.children[0])}>"
    if t.name == "map":
        return f"map<{spark_sql_type(t.children[0])},{spark_sql_type(t.children[1])}>"
    if t.name == "struct":
        inner = ",".join(f"`{name}`:{spark_sql_type(child)}" for name, child in t.fields)
        return f"struct<{inner}>"
    return t.name


def cast_to(expression: exp.Expr, hive_type: HiveType | str) -> exp.Expr:
    """``CAST(expression AS <spark type of hive_type>)`` as a sqlglot node (Spark's cast, no Hive rules)."""
    return exp.Cast(this=expression, to=_spark_type(hive_type))


def _spark_type(hive_type: HiveType | str) -> exp.DataType:
    return exp.DataType.build(spark_sql_type(hive_type), dialect="spark")


def _sql(text: str) -> exp.Expr:
    return exp.maybe_parse(text, dialect="spark")


def _string_literal(expression: exp.Expr) -> str | None:
    """The text of a string literal (also inside parentheses), else None."""
    while isinstance(expression, exp.Paren):
        expression = expression.this
    if isinstance(expression, exp.Literal) and expression.is_string:
        return str(expression.this)
    return None


def _number_literal(expression: exp.Expr) -> str | None:
    """The text of a numeric literal, signed (``-1.5`` is a negation of ``1.5`` in the tree), else None."""
    sign = ""
    while isinstance(expression, (exp.Paren, exp.Neg)):
        if isinstance(expression, exp.Neg):
            sign = "" if sign else "-"
        expression = expression.this
    if isinstance(expression, exp.Literal) and not expression.is_string:
        return sign + str(expression.this)
    return None


def _typed_literal(value: dt.date | None, hive_type: HiveType) -> exp.Expr:
    """A date / timestamp value as a literal of the column's Spark type (NULL typed too)."""
    if value is None:
        return cast_to(exp.Null(), hive_type)
    return cast_to(exp.Literal.string(value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()), hive_type)


def _when_type(expression: exp.Expr, type_test: str, then: exp.Expr, otherwise: exp.Expr) -> exp.Expr:
    """``CASE WHEN typeof(e) <type_test> THEN then ELSE otherwise END`` (Spark folds it to one branch)."""
    test = _sql(f"typeof(x) {type_test}")
    test.find(exp.Column).replace(expression.copy())  # type: ignore[union-attr]  # the x just parsed
    return exp.Case(ifs=[exp.If(this=test, true=then)], default=otherwise)


_STRICT: contextvars.ContextVar[bool] = contextvars.ContextVar("hiveacid_strict_casts", default=False)


@contextmanager
def strict_casts(on: bool) -> Iterator[None]:
    """Within the block, :func:`hive_cast` writes strict casts when ``on`` (the planner sets it per statement
    from ``hiveacid.strict.casts``, so the SET-list, MERGE and VALUES helpers need no extra argument)."""
    token = _STRICT.set(on)
    try:
        yield
    finally:
        _STRICT.reset(token)


def _typed_not_string(expression: exp.Expr) -> bool:
    """Whether the value's type is visibly not a string (``DATE '..'``, ``CAST(.. AS int)``, a number)."""
    while isinstance(expression, exp.Paren):
        expression = expression.this
    if isinstance(expression, (exp.Cast, exp.TryCast)):
        return not expression.to.is_type(*exp.DataType.TEXT_TYPES)
    return isinstance(expression, exp.Boolean) or _number_literal(expression) is not None


def strict_casts_on() -> bool:
    """Whether the statement being planned runs under ``hiveacid.strict.casts``."""
    return _STRICT.get()


def hive_cast(
    expression: exp.Expr,
    hive_type: HiveType | str,
    *,
    column: str = "",
    strict: bool | None = None,
    constant: bool = False,
) -> exp.Expr:
    """``expression`` cast to the column type as Hive 3.1 casts a written value (see the module docstring);
    ``strict`` (default: the statement's :func:`strict_casts`): Spark's ANSI cast, and a value that does not
    fit is an error naming it and ``column``. ``constant``: a VALUES item, which Spark must fold on the
    driver, so a computed string in it (``concat(..)``) keeps Spark's cast (README: differences)."""
    t = parse_hive_type(hive_type) if isinstance(hive_type, str) else hive_type
    if isinstance(expression, exp.Null):
        return cast_to(expression.copy(), t)
    if strict if strict is not None else _STRICT.get():
        return _strict_cast(expression, t, column)
    plain = cast_to(expression.copy(), t)
    if t.name in ("timestamp", "date"):
        text = _string_literal(expression)
        if text is not None:  # folded here, by the same model the tasks run
            return _typed_literal(hive_timestamp(text) if t.name == "timestamp" else hive_date(text), t)
        if constant or _typed_not_string(expression):
            return plain
        function = STRING_TO_TIMESTAMP if t.name == "timestamp" else STRING_TO_DATE
        parsed = exp.Anonymous(this=function, expressions=[exp.Cast(this=expression.copy(), to=exp.DataType.build("string"))])
        return _when_type(expression, "= 'string'", parsed, plain)
    if t.name in _INTEGER_RANGE:
        low, high = _INTEGER_RANGE[t.name]
        number = _number_literal(expression)
        if number is not None:
            if "e" in number.lower() or "." not in number:  # a double or an integer: Spark casts as Hive does
                return plain
            return plain if low - 1 < Decimal(number) < high + 1 else cast_to(exp.Null(), t)
        # Compared as decimal(38,18) through text, so the dead branch also analyses for any source type
        # (a value past 10^20 is NULL there: outside every integer range too).
        wide = "CAST(CAST(x AS STRING) AS DECIMAL(38,18))"
        fits = _sql(f"{wide} > {low - 1} AND {wide} < {high + 1}")
        for node in list(fits.find_all(exp.Column)):
            node.replace(expression.copy())
        checked = exp.Case(ifs=[exp.If(this=fits, true=plain)], default=cast_to(exp.Null(), t))
        return _when_type(expression, "LIKE 'decimal%'", checked, plain.copy())
    return plain


def _strict_cast(expression: exp.Expr, t: HiveType, column: str) -> exp.Expr:
    """``CASE WHEN e IS NOT NULL AND try_cast(e AS T) IS NULL THEN raise_error(..) ELSE CAST(e AS T) END``:
    Spark's ANSI cast, with an error that names the value and the column instead of a silent NULL."""
    spark_type = _spark_type(t)
    fails = exp.and_(
        exp.Not(this=exp.Is(this=expression.copy(), expression=exp.Null())),
        exp.Is(this=exp.TryCast(this=expression.copy(), to=spark_type.copy(), safe=True), expression=exp.Null()),
    )
    shown = exp.Cast(this=expression.copy(), to=exp.DataType.build("string"))
    message = exp.Concat(
        expressions=[
            exp.Literal.string("hiveacid.strict.casts: value '"),
            shown,
            exp.Literal.string(f"' does not fit column {column} ({t.to_string()})"),
        ]
    )
    error = exp.Anonymous(this="raise_error", expressions=[message])
    return exp.Case(ifs=[exp.If(this=fails, true=exp.Cast(this=error, to=spark_type.copy()))], default=cast_to(expression.copy(), t))


def hive_type_of(data_type: exp.DataType) -> str:
    """Canonical lower-case Hive type string of a parsed column type (``DECIMAL(10, 2)`` -> ``decimal(10,2)``)."""
    return parse_hive_type(data_type.sql(dialect="hive")).to_string()
