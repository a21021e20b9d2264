"""Dry runs: the rows an INSERT / UPDATE / DELETE / MERGE / TRUNCATE would change, committing nothing.

A dry run takes the statement's own plan (the one :mod:`hiveacid_sql.exec.dml` executes) and
runs its row-finding query over a snapshot, adding the old values next to the new ones. No transaction is
opened and no write id allocated (the snapshot is a plain read, or the open transaction's), nothing is
written; MERGE still applies Hive's cardinality check, so a statement that would fail fails here too.

The result is a Spark DataFrame, one row per changed row:

``action`` ('insert' | 'update' | 'delete'), for MERGE ``clause`` (the 1-based WHEN clause), ``row__id`` of
the old row (NULL for inserts), then ``old_<col>`` and ``new_<col>`` for every table column (partition
columns last; old NULL for inserts, new NULL for deletes). INSERT OVERWRITE and TRUNCATE list the rows they
replace as deletes.
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from sqlglot import exp

from hiveacid_sql.exec.binder import Binder
from hiveacid_sql.exec.merge import cardinality_check
from hiveacid_sql.exec.plain import read_plain
from hiveacid_sql.exec.routing import new_part_dir, static_part_dir
from hiveacid_sql.exec.scan import ROW_ID
from hiveacid_sql.exec.shaping import shape_rows
from hiveacid_sql.exec.spark_types import to_spark_type
from hiveacid_sql.plan.columns import BUCKET, CLAUSE, OWID, PART_DIR, ROWID
from hiveacid_sql.plan.model import (
    BoundTables,
    DeletePlan,
    DmlPlan,
    InsertPlan,
    MergePlan,
    TruncatePlan,
    UpdatePlan,
)
from hiveacid_sql.plan.target import target_table
from hiveacid_sql.settings import CARDINALITY_CHECK, Settings
from hiveacid_sql.txn import TableDef

ACTION = "action"
_OLD = "__old_"
_TARGET_ALIAS = "__dry_target"


def _old(name: str) -> str:
    return f"{_OLD}{name}"


def _row_id() -> Column:
    return F.struct(F.col(OWID).alias("writeid"), F.col(BUCKET).alias("bucketid"), F.col(ROWID).alias("rowid"))


def _null_row_id() -> Column:
    return F.lit(None).cast("struct<writeid:bigint,bucketid:int,rowid:bigint>")


def _shape(
    frame: DataFrame, table: TableDef, action: Column, *, old: bool, new: bool, row_id: bool, clause: Column | None = None
) -> DataFrame:
    """The dry-run columns from a frame holding the row id columns, ``__old_<col>`` (if ``old``) and ``<col>``
    (if ``new``)."""
    cols = [action.alias(ACTION)]
    if clause is not None:
        cols.append(clause.cast("int").alias("clause"))
    cols.append((_row_id() if row_id else _null_row_id()).alias(ROW_ID))
    for c in table.all_columns:
        null = F.lit(None).cast(to_spark_type(c.type))
        cols.append((F.col(_old(c.name)) if old else null).alias(f"old_{c.name}"))
        cols.append((F.col(f"`{c.name}`") if new else null).alias(f"new_{c.name}"))
    return frame.select(*cols)


def _with_old_values(select: exp.Select, table: TableDef, alias: str) -> exp.Select:
    """A copy of a plan's row-finding SELECT that also returns each column's current value as ``__old_<col>``."""
    out = select.copy()
    return out.select(*[exp.alias_(exp.column(c.name, table=alias, quoted=True), _old(c.name)) for c in table.all_columns])


def _target_alias(select: exp.Select) -> str:
    from_ = select.args.get("from_") or select.args.get("from")
    assert from_ is not None  # a DML plan's query reads its target
    return from_.this.alias_or_name


def _current_rows(binder: Binder, table: TableDef) -> DataFrame:
    """Every live row of ``table`` at the snapshot, with its row id and partition directory, values as ``__old_*``."""
    select = exp.select(*[exp.column(c, table=_TARGET_ALIAS) for c in (PART_DIR, OWID, BUCKET, ROWID)]).from_(
        target_table(table, _TARGET_ALIAS)
    )
    select = _with_old_values(select, table, _TARGET_ALIAS)
    return binder.run(select, BoundTables((table,), target_pruning=None))


def _insert(binder: Binder, plan: InsertPlan, settings: Settings) -> DataFrame:
    target = plan.target
    rows = shape_rows(binder.run(plan.source, plan.reads), target, plan.column_order, plan.static_partitions)
    inserts = _shape(rows, target, F.lit("insert"), old=False, new=True, row_id=False)
    if not (plan.overwrite and target.is_transactional):
        return inserts
    current = _current_rows(binder, target)
    if target.is_partitioned:
        if plan.writes_one_partition:  # one static partition, replaced even by no rows
            static = static_part_dir(binder.spark, plan)
            current = current.where(F.col(PART_DIR) == F.lit(static))
        else:  # dynamic: only the partitions that receive rows are replaced
            written = rows.select(new_part_dir(target).alias(PART_DIR)).distinct()
            current = current.join(written, on=PART_DIR, how="left_semi")
    deletes = _shape(current, target, F.lit("delete"), old=True, new=False, row_id=True)
    return deletes.unionByName(inserts)


def _merge(binder: Binder, plan: MergePlan, settings: Settings) -> DataFrame:
    target = plan.target
    alias = _target_alias(plan.query)
    classified = binder.run(_with_old_values(plan.query, target, alias), plan.reads)
    classified = cardinality_check(plan, classified, settings.value(CARDINALITY_CHECK))
    classified = classified.where(F.col(CLAUSE).isNotNull())
    action = F.lit(None).cast("string")
    for c in plan.clauses:
        action = F.when(F.col(CLAUSE) == c.index, F.lit(c.action)).otherwise(action)
    inserts = [c.index for c in plan.clauses if c.action == "insert"]
    deletes = [c.index for c in plan.clauses if c.action == "delete"]
    is_insert = F.col(CLAUSE).isin(inserts) if inserts else F.lit(False)
    is_delete = F.col(CLAUSE).isin(deletes) if deletes else F.lit(False)
    cols = [action.alias(ACTION), F.col(CLAUSE).cast("int").alias("clause")]
    cols.append(F.when(is_insert, _null_row_id()).otherwise(_row_id()).alias(ROW_ID))
    for column in target.all_columns:
        null = F.lit(None).cast(to_spark_type(column.type))
        cols.append(F.when(is_insert, null).otherwise(F.col(_old(column.name))).alias(f"old_{column.name}"))
        cols.append(F.when(is_delete, null).otherwise(F.col(f"`{column.name}`")).alias(f"new_{column.name}"))
    return classified.select(*cols)


def _truncate(binder: Binder, plan: TruncatePlan, settings: Settings) -> DataFrame:
    target = plan.target
    if not target.is_transactional:
        parts = binder.partitions_of(target.db, target.name) if target.is_partitioned else None
        plain = read_plain(binder.spark, target, partitions=parts)
        plain = plain.select(*[F.col(f"`{c.name}`").alias(_old(c.name)) for c in target.all_columns])
        return _shape(plain, target, F.lit("delete"), old=True, new=False, row_id=False)
    return _shape(_current_rows(binder, target), target, F.lit("delete"), old=True, new=False, row_id=True)


def _update(binder: Binder, plan: UpdatePlan, settings: Settings) -> DataFrame:
    source = _with_old_values(plan.source, plan.target, _target_alias(plan.source))
    return _shape(binder.run(source, plan.reads), plan.target, F.lit("update"), old=True, new=True, row_id=True)


def _delete(binder: Binder, plan: DeletePlan, settings: Settings) -> DataFrame:
    source = _with_old_values(plan.source, plan.target, _target_alias(plan.source))
    return _shape(binder.run(source, plan.reads), plan.target, F.lit("delete"), old=True, new=False, row_id=True)


#: The dry run's dispatch by plan class (the same plans the executor's ``_LEG_WRITERS`` (exec/dml.py) runs).
_DRY_RUNS: dict[type, Callable[..., DataFrame]] = {
    InsertPlan: _insert,
    TruncatePlan: _truncate,
    UpdatePlan: _update,
    DeletePlan: _delete,
    MergePlan: _merge,
}


def dry_run_frame(binder: Binder, plan: DmlPlan, settings: Settings) -> DataFrame:
    """The rows ``plan`` would change at the binder's snapshot (see the module notes for the columns)."""
    return _DRY_RUNS[type(plan)](binder, plan, settings)
