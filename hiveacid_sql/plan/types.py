"""Hive column types as the Spark SQL type names the planner writes into CASTs.

Pure string mapping (no pyspark): the planner casts every written value to the column's type the way
Hive's INSERT does, and Spark evaluates those casts. Hive ``timestamp`` is wall-clock, so
``timestamp_ntz``; ``varchar``/``char`` are ``string`` here and get their length rules in the writer.
"""

from __future__ import annotations

from sqlglot import exp

from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type


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
    """``CAST(expression AS <spark type of hive_type>)`` as a sqlglot node."""
    return exp.Cast(this=expression, to=exp.DataType.build(spark_sql_type(hive_type), dialect="spark"))


def hive_type_of(data_type: exp.DataType) -> str:
    """Canonical lower-case Hive type string of a parsed column type (``DECIMAL(10, 2)`` -> ``decimal(10,2)``)."""
    return parse_hive_type(data_type.sql(dialect="hive")).to_string()
