"""The executor of INSERT / UPDATE / DELETE / MERGE / TRUNCATE: the Spark and file side of a DML statement.

The transaction around it (snapshot, write id, statement ids, locks, what is recorded for the commit) is the
engine's (:mod:`hiveacid_sql.engine.writes`); this module gets a bound statement (the
:class:`~hiveacid_sql.exec.binder.Binder` at the statement's snapshot), the plan and the sink of the write
id, finds the rows, builds the *event frame* (one row per ACID event: :mod:`hiveacid_sql.exec.events`) and
writes the files. Statement-sized event sets are written by the driver (one Spark job to compute them, no
shuffle, no Python workers); larger ones by Spark tasks.

The dispatch by plan class is :func:`write_legs` (one writer per plan class, in ``_LEG_WRITERS``); the
helpers the engine, EXPLAIN and the dry run share are public here: :func:`all_static`,
:func:`~hiveacid_sql.exec.routing.static_part_dir`, :func:`~hiveacid_sql.exec.merge.cardinality_check`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.exec.events import delete_events, insert_events, update_events
from hiveacid_sql.exec.merge import MergeCounts, write_merge
from hiveacid_sql.exec.plain import write_plain
from hiveacid_sql.exec.routing import new_bucket_id, new_part_dir, static_part_dir
from hiveacid_sql.exec.shaping import shape_rows
from hiveacid_sql.exec.spark_types import data_types
from hiveacid_sql.exec.tasks import TableSink
from hiveacid_sql.exec.write import (
    FileWritten,
    finish_directories,
    write_changes,
    write_events,
    write_events_local,
    write_version_file,
)
from hiveacid_sql.plan.model import DeletePlan, DmlPlan, InsertPlan, MergePlan, UpdatePlan
from hiveacid_sql.settings import DRIVER_WRITE_MAX_ROWS, Settings
from hiveacid_sql.txn import TableDef

if TYPE_CHECKING:
    from pyarrow.fs import FileSystem

    from hiveacid_sql.exec.binder import Binder


@dataclass(frozen=True)
class Written:
    """What a statement's legs wrote: the files, the directories they landed in (empty bases included),
    the TXN_COMPONENTS operation and MERGE's counts."""

    files: list[FileWritten]
    directories: list[str]
    operation: str
    merge: MergeCounts | None = None


def table_sink(table: TableDef, write_id: int, *, overwrite: bool) -> TableSink:
    """Where a statement writing ``table`` under ``write_id`` puts its files."""
    _fs, path = filesystem_for(table.location)
    return TableSink(
        fs_uri=table.location,
        location=path,
        columns=tuple((c.name, c.type) for c in table.columns),
        write_id=write_id,
        overwrite=overwrite,
        partitioned=table.is_partitioned,
        compression=table.orc_compression,
    )


def all_static(plan: InsertPlan) -> bool:
    """The INSERT's PARTITION spec gives every partition column a value: it writes one directory."""
    return plan.target.is_partitioned and len(plan.static_partitions) == len(plan.target.partition_keys)


def write_legs(binder: Binder, plan: DmlPlan, sink: TableSink, statement_ids: list[int], settings: Settings) -> Written:
    """Find ``plan``'s rows at the binder's snapshot and write its legs (one writer per plan class); an
    INSERT OVERWRITE that wrote nothing where it overwrites leaves an empty base there."""
    assert plan.query is not None  # TRUNCATE writes no rows: write_empty_bases
    rows = binder.run(plan.query, plan.reads)
    files, operation, merge = _LEG_WRITERS[type(plan)](binder, plan, rows, sink, statement_ids, settings)
    fs, _ = filesystem_for(plan.target.location)
    directories = finish_directories(fs, sink, files)
    if plan.overwrites:
        directories = _empty_overwritten_bases(binder, plan, sink, fs, directories)  # type: ignore[arg-type]
    return Written(files, directories, operation, merge)


_Leg = tuple[list[FileWritten], str, MergeCounts | None]


def _write_insert(
    binder: Binder, plan: InsertPlan, rows: DataFrame, sink: TableSink, statement_ids: list[int], settings: Settings
) -> _Leg:
    target = plan.target
    rows = shape_rows(rows, target, plan.column_order, plan.static_partitions)
    static = static_part_dir(binder.spark, plan) if all_static(plan) else None
    events = insert_events(
        rows, [c.name for c in target.columns], stmt=statement_ids[0],
        part_dir=new_part_dir(target, static), bucket_id=new_bucket_id(target),
    )
    if plan.values:
        return write_events_local(events.toArrow(), sink), "i", None
    return write_events(events, sink, route="shuffle" if target.is_bucketed else "append"), "i", None


def _write_update(
    binder: Binder, plan: UpdatePlan, changed: DataFrame, sink: TableSink, statement_ids: list[int], settings: Settings
) -> _Leg:
    target = plan.target
    part_dir = new_part_dir(target) if plan.moves_partitions else F.col("__part_dir")
    bucket = new_bucket_id(target) if plan.moves_buckets else None
    events = update_events(
        changed, [c.name for c in target.columns], stmt=statement_ids[0], data_types=data_types(target),
        new_part_dir=part_dir, new_bucket_id=bucket,
    )
    return write_changes(events, sink, settings.value(DRIVER_WRITE_MAX_ROWS)), "u", None


def _write_delete(
    binder: Binder, plan: DeletePlan, changed: DataFrame, sink: TableSink, statement_ids: list[int], settings: Settings
) -> _Leg:
    target = plan.target
    events = delete_events(changed, [c.name for c in target.columns], stmt=statement_ids[0], data_types=data_types(target))
    return write_changes(events, sink, settings.value(DRIVER_WRITE_MAX_ROWS)), "d", None


def _write_merge(
    binder: Binder, plan: MergePlan, classified: DataFrame, sink: TableSink, statement_ids: list[int], settings: Settings
) -> _Leg:
    files, merge = write_merge(plan, classified, statement_ids, sink, settings)
    return files, "u", merge


#: The executor's dispatch by plan class: the one place that knows which writer a plan's rows go through.
_LEG_WRITERS: dict[type, Callable[..., _Leg]] = {
    InsertPlan: _write_insert,
    UpdatePlan: _write_update,
    DeletePlan: _write_delete,
    MergePlan: _write_merge,
}


def _empty_overwritten_bases(
    binder: Binder, plan: InsertPlan, sink: TableSink, fs: FileSystem, directories: list[str]
) -> list[str]:
    """INSERT OVERWRITE that wrote no row into the partition it names (or the table) still hides the old
    rows there: an empty ``base_W``, as Hive writes."""
    target = plan.target
    if target.is_partitioned and not all_static(plan):
        return directories  # dynamic partitions: only those that received rows are overwritten
    part = static_part_dir(binder.spark, plan) if target.is_partitioned else ""
    base = sink.directory(0, 0)
    rel = f"{part}/{base}" if part else base
    if rel not in directories:
        write_version_file(fs, f"{sink.location.rstrip('/')}/{rel}")
        directories = sorted([*directories, rel])
    return directories


def write_empty_bases(table: TableDef, sink: TableSink, partitions: list[str], stmt: int) -> list[str]:
    """TRUNCATE: an empty ``base_W`` in the table (or in each of ``partitions``), so older snapshots stay
    readable; the directories written, relative to the table."""
    fs, _ = filesystem_for(table.location)
    base = sink.directory(0, stmt)
    directories = []
    for part in partitions:
        rel = f"{part}/{base}" if part else base
        write_version_file(fs, f"{sink.location.rstrip('/')}/{rel}")
        directories.append(rel)
    return directories


def insert_plain(binder: Binder, plan: InsertPlan) -> int:
    """INSERT into a plain (non-transactional) table through Spark's own writers; the rows inserted."""
    rows = shape_rows(binder.run(plan.source, plan.reads), plan.target, plan.column_order, ())
    rows = rows.cache()
    try:
        count = rows.count()
        write_plain(rows, plan.target, overwrite=plan.overwrite)
    finally:
        rows.unpersist()
    return count
