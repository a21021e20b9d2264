"""The one interpreter of ``PARTITION (...)`` specs, in the three forms Hive has:

* INSERT's static-and-dynamic spec (``PARTITION (p='v', q)``): :func:`insert_spec`;
* a full static spec naming one partition (ADD PARTITION, SHOW LOCKS): :func:`static_spec`;
* a filter over the partition columns (DROP PARTITION takes comparisons, COMPACT and SHOW PARTITIONS
  equalities): :func:`spec_filter`.

Static values stay SQL constants here; the executor casts them to the columns' types and names the
directory (``exec.routing.partition_dir_of``), the same way for every statement, so one spec names one
directory everywhere (SHOW LOCKS used to render the literal's text: ``p=01`` where INSERT wrote ``p=1``).
"""

from __future__ import annotations

from sqlglot import exp

from hiveacid_sql.errors import PlanError
from hiveacid_sql.sql.tree import where_is
from hiveacid_sql.txn import TableDef


def _check_partitioned(table: TableDef, spec: exp.Expr) -> None:
    if not table.partition_keys:
        raise PlanError(f"{where_is(spec)}Table {table.qualified_name} is not partitioned")


def static_spec(table: TableDef, spec: exp.Partition, statement: str = "PARTITION (...)") -> dict[str, exp.Expr]:
    """``PARTITION (p='v', ...)`` naming one partition: every partition column once, each ``= value``; the
    values by column, in the table's partition order."""
    _check_partitioned(table, spec)
    keys = [k.name for k in table.partition_keys]
    values: dict[str, exp.Expr] = {}
    for item in spec.expressions:
        if not isinstance(item, exp.EQ) or not isinstance(item.this, exp.Column):
            raise PlanError(f"{where_is(item)}Expected partition column = value in {statement}")
        name = item.this.name.lower()
        if name not in keys:
            raise PlanError(f"{where_is(item.this)}'{name}' is not a partition column of {table.qualified_name}")
        if name in values:
            raise PlanError(f"{where_is(item.this)}Partition column '{name}' appears twice in PARTITION (...)")
        values[name] = item.expression
    missing = [k for k in keys if k not in values]
    if missing:
        raise PlanError(f"{where_is(spec)}Partition column '{missing[0]}' is missing from PARTITION (...)")
    return {k: values[k] for k in keys}


def spec_filter(table: TableDef, spec: exp.Partition) -> exp.Expr:
    """A partition spec (``p='v'`` or, for DROP, comparisons like ``q > 1``) as a predicate over the keys."""
    _check_partitioned(table, spec)
    keys = {k.name for k in table.partition_keys}
    for col in spec.find_all(exp.Column):
        if col.name.lower() not in keys:
            raise PlanError(f"{where_is(col)}'{col.name.lower()}' is not a partition column of {table.qualified_name}")
    return exp.and_(*[e.copy() for e in spec.expressions])


def insert_spec(node: exp.Table, target: TableDef) -> tuple[dict[str, exp.Expr], list[str]]:
    """INSERT's ``PARTITION (p='v', q)``: static values by column, and the dynamic columns in spec order.

    Hive's rules: only a partitioned table takes a spec; the spec names every partition column, each once;
    a static value is a constant; a dynamic column never comes before a static one (error 10094).
    """
    spec = node.args.get("partition")
    if spec is None:
        return {}, []
    if not target.is_partitioned:
        raise PlanError(f"{where_is(node)}Table {target.qualified_name} is not partitioned but a partition spec exists")
    keys = [k.name for k in target.partition_keys]
    static: dict[str, exp.Expr] = {}
    dynamic: list[str] = []
    for item in spec.expressions:
        column, value = (item.this, item.expression) if isinstance(item, exp.EQ) else (item, None)
        if not isinstance(column, exp.Column):
            raise PlanError(f"{where_is(item)}Expected partition column [= value] in PARTITION (...)")
        name = column.name.lower()
        if name not in keys:
            raise PlanError(f"{where_is(column)}'{name}' is not a partition column of {target.qualified_name}")
        if name in static or name in dynamic:
            raise PlanError(f"{where_is(column)}Partition column '{name}' appears twice in PARTITION (...)")
        if value is None:
            dynamic.append(name)
            continue
        if dynamic:
            raise PlanError(f"{where_is(column)}Dynamic partition cannot be the parent of a static partition '{name}'")
        if not isinstance(value, exp.Literal | exp.Null | exp.Neg | exp.Boolean):
            raise PlanError(f"{where_is(value)}Partition value of '{name}' must be a constant")
        static[name] = value
    missing = [k for k in keys if k not in static and k not in dynamic]
    if missing:
        raise PlanError(f"{where_is(spec)}Partition column '{missing[0]}' is missing from PARTITION (...)")
    if [k for k in keys if k in dynamic] != dynamic:
        raise PlanError(f"{where_is(spec)}Dynamic partition columns must follow the table's partition order")
    return static, dynamic
