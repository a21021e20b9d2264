"""The executor of INSERT / UPDATE / DELETE / MERGE / TRUNCATE: the Spark and file side of a DML statement.

The transaction around it (snapshot, write id, statement ids, locks, what is recorded for the commit) is the
engine's (:mod:`hiveacid_sql.engine.writes`); this module gets a bound statement (the
:class:`~hiveacid_sql.exec.binder.Binder` at the statement's snapshot), the plan and the sink of the write
id, finds the rows, builds the *event frame* (one row per ACID event: :mod:`hiveacid_sql.exec.events`) and
writes the files. Statement-sized event sets are written by the driver (one Spark job to compute them, no
shuffle, no Python workers); larger ones by Spark tasks.

The dispatch by plan class is :func:`write_legs` (one writer per plan class, in ``_LEG_WRITERS``); the
helpers the engine, EXPLAIN and the dry run share are public: :func:`table_sink`,
:func:`~hiveacid_sql.exec.routing.static_part_dir`, :func:`~hiveacid_sql.exec.merge.cardinality_check`.
Plain (non-transactional) targets go through :func:`write_plain_target`, the same way by plan class.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.errors import ExecutionError
from hiveacid_sql.exec.events import (
    EVENT_PAIR,
    delete_events,
    insert_events,
    local_events,
    update_event_pairs,
)
from hiveacid_sql.exec.insert_only import write_empty_dirs, write_insert_only
from hiveacid_sql.exec.local_scan import collect_arrow, collect_pairs, is_local, local_rows, snapshot_rows
from hiveacid_sql.exec.merge import MergeCounts, driver_write, write_merge, write_merge_inserts
from hiveacid_sql.exec.merge_keys import with_source_key_range
from hiveacid_sql.exec.merge_split import MergeRows, merge_rows
from hiveacid_sql.exec.plain import BUCKET_COLUMN, PART_DIR_COLUMN, write_plain, write_plain_partitions
from hiveacid_sql.exec.routing import new_bucket_id, new_part_dir, static_part_dir
from hiveacid_sql.exec.sarg import own_search_arguments
from hiveacid_sql.exec.shaping import enforce_checks, shape_rows
from hiveacid_sql.exec.spark_types import data_types
from hiveacid_sql.exec.tasks import TableSink
from hiveacid_sql.exec.write import (
    FileWritten,
    append_writers,
    finish_directories,
    spread_rows,
    write_changes,
    write_events,
    write_events_local,
    write_version_file,
)
from hiveacid_sql.plan.model import DeletePlan, DmlPlan, InsertPlan, MergePlan, TruncatePlan, UpdatePlan
from hiveacid_sql.settings import DRIVER_WRITE_MAX_ROWS, WRITE_BYTES_PER_WRITER, WRITE_MAX_WRITERS, Settings
from hiveacid_sql.txn import TableDef

if TYPE_CHECKING:
    from pyarrow.fs import FileSystem

    from hiveacid_sql.exec.binder import Binder


@dataclass(frozen=True)
class Written:
    """What a statement's legs wrote: the files, the directories they landed in (empty bases included),
    the TXN_COMPONENTS operation and the row counts the statement reports (``DmlResult`` fields)."""

    files: list[FileWritten]
    directories: list[str]
    operation: str
    counts: dict[str, Any]


def _rows(files: list[FileWritten], kind: str) -> int:
    return sum(f.rows for f in files if f.kind == kind)


def _insert_delete_counts(files: list[FileWritten]) -> dict[str, Any]:
    inserted, deleted = _rows(files, "insert"), _rows(files, "delete")
    return {"num_inserted_rows": inserted, "num_deleted_rows": deleted, "num_affected_rows": inserted + deleted}


def _merge_counts(merge: MergeCounts) -> dict[str, Any]:
    per = merge.clauses
    ins = sum(c.num_rows for c in per if c.action == "INSERT")
    upd = sum(c.num_rows for c in per if c.action == "UPDATE")
    dele = sum(c.num_rows for c in per if c.action == "DELETE")
    return {
        "num_inserted_rows": ins,
        "num_updated_rows": upd,
        "num_deleted_rows": dele,
        "num_affected_rows": ins + upd + dele,
        "num_source_rows": merge.source_rows,
        "num_target_rows_matched": merge.target_rows_matched,
        "clauses": per,
    }


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


def write_legs(binder: Binder, plan: DmlPlan, sink: TableSink, statement_ids: list[int], settings: Settings) -> Written:
    """Find ``plan``'s rows at the binder's snapshot and write its legs (one writer per plan class); an
    INSERT OVERWRITE that wrote nothing where it overwrites leaves an empty base there."""
    narrow = _NARROWERS.get(type(plan))
    if narrow is not None:  # key ranges known only at run time (a MERGE's source): fewer target stripes read
        plan = narrow(binder, plan)
    assert plan.query is not None  # TRUNCATE writes no rows: write_empty_bases
    if plan.target.is_insert_only:
        rows = binder.run(plan.query, plan.reads, direct=True)
        return _write_insert_only_legs(binder, plan, rows, sink, statement_ids)
    # the key filters' row-group skipping (exec/sarg.py); a MERGE's rows, split for a small source
    with own_search_arguments(binder.spark), _plan_rows(binder, plan, settings) as rows:
        files, operation, counts = _LEG_WRITERS[type(plan)](binder, plan, rows, sink, statement_ids, settings)
    fs, _ = filesystem_for(plan.target.location)
    directories = finish_directories(fs, sink, files)
    if plan.overwrites:
        directories = _empty_overwritten_bases(binder, plan, sink, fs, directories)
    return Written(files, directories, operation, counts)


_Leg = tuple[list[FileWritten], str, dict[str, Any]]


@contextmanager
def _plan_rows(binder: Binder, plan: DmlPlan, settings: Settings) -> Iterator[Any]:
    """The rows a plan writes: its query's frame, or what its class's row source gives (:data:`_ROW_SOURCES`)."""
    source = _ROW_SOURCES.get(type(plan))
    if source is not None:
        with source(binder, plan, settings, direct=True) as rows:
            yield rows
        return
    assert plan.query is not None
    yield binder.run(plan.query, plan.reads, direct=True)


def _merge_rows(binder: Binder, plan: MergePlan, settings: Settings, *, direct: bool) -> AbstractContextManager[MergeRows]:
    return merge_rows(binder, plan, driver=driver_write(settings), direct=direct)


#: Plans whose rows are not simply their query's, by plan class: a MERGE's join split for a small source
#: (exec/merge_split.py) when it applies, its query's rows otherwise (a :class:`MergeRows` either way).
_ROW_SOURCES: dict[type, Callable[..., AbstractContextManager[Any]]] = {MergePlan: _merge_rows}

#: Plans whose target pruning is completed at run time, by plan class: MERGE's target key range is the
#: source's (exec/merge_keys.py).
_NARROWERS: dict[type, Callable[[Binder, Any], DmlPlan]] = {MergePlan: with_source_key_range}


def _write_insert(
    binder: Binder, plan: InsertPlan, rows: DataFrame, sink: TableSink, statement_ids: list[int], settings: Settings
) -> _Leg:
    target = plan.target
    rows = shape_rows(rows, target, plan.column_order, plan.static_partitions)
    if not plan.values and not target.is_bucketed:  # a large load: several writers (exec/write.py)
        max_writers, per_writer = settings.value(WRITE_MAX_WRITERS), settings.value(WRITE_BYTES_PER_WRITER)
        rows = spread_rows(rows, append_writers(rows, max_writers, per_writer))
    static = static_part_dir(binder.spark, plan) if plan.writes_one_partition else None
    events = insert_events(
        rows, [c.name for c in target.columns], stmt=statement_ids[0],
        part_dir=new_part_dir(target, static), bucket_id=new_bucket_id(target),
    )
    if plan.values:
        files = write_events_local(events.toArrow(), sink)
    else:
        files = write_events(events, sink, route="shuffle" if target.is_bucketed else "append")
    return files, "i", _insert_delete_counts(files)


def _write_update(
    binder: Binder, plan: UpdatePlan, changed: DataFrame, sink: TableSink, statement_ids: list[int], settings: Settings
) -> _Leg:
    target = plan.target
    changed = enforce_checks(changed, target)
    part_dir = new_part_dir(target) if plan.moves_partitions else None  # None: the old row's directory
    bucket = new_bucket_id(target) if plan.moves_buckets else None
    names, types = [c.name for c in target.columns], data_types(target)
    limit = settings.value(DRIVER_WRITE_MAX_ROWS)
    # is_local asks Spark's optimizer (a planning of its own): not when the target's frame reads files
    maybe_local = limit > 0 and binder.may_be_local(target)
    if maybe_local and part_dir is None and bucket is None:
        # a small target read on the driver (exec/local_scan.py): the changed rows collected without a job,
        # their events built here (no event projection for Spark to analyse and fold)
        rows = local_rows(changed)
        if rows is not None and 2 * rows <= limit:
            events = local_events(collect_arrow(changed), names, types, stmt=statement_ids[0], update=True)
            return _updated(write_events_local(events, sink))
        maybe_local = rows is not None
    pairs = update_event_pairs(
        changed, names, stmt=statement_ids[0], data_types=types, new_part_dir=part_dir, new_bucket_id=bucket
    )
    local = collect_pairs(pairs, limit) if maybe_local and is_local(pairs) else None
    if local is not None:  # a small target read on the driver (exec/local_scan.py): no Spark job
        return _updated(write_events_local(local, sink))
    events = pairs.select(F.inline(F.col(EVENT_PAIR)))
    keep = not (_surely_fits(binder, target, 2, limit) or _point_lookup(plan))
    return _updated(write_changes(events, sink, limit, keep=keep, local=False))


def _updated(files: list[FileWritten]) -> _Leg:
    updated = _rows(files, "delete")  # each updated row: one delete event and its new version
    return files, "u", {"num_updated_rows": updated, "num_affected_rows": updated}


def _write_delete(
    binder: Binder, plan: DeletePlan, changed: DataFrame, sink: TableSink, statement_ids: list[int], settings: Settings
) -> _Leg:
    target = plan.target
    names, types = [c.name for c in target.columns], data_types(target)
    limit = settings.value(DRIVER_WRITE_MAX_ROWS)
    rows = local_rows(changed) if limit > 0 and binder.may_be_local(target) else None
    if rows is not None and rows <= limit:  # the rows are the driver's: collected without a job, events built here
        files = write_events_local(local_events(collect_arrow(changed), names, types, stmt=statement_ids[0], update=False), sink)
        return files, "d", _insert_delete_counts(files)
    events = delete_events(changed, names, stmt=statement_ids[0], data_types=types)
    keep = not (_surely_fits(binder, target, 1, limit) or _point_lookup(plan))
    files = write_changes(events, sink, limit, keep=keep, local=False)
    return files, "d", _insert_delete_counts(files)


def _surely_fits(binder: Binder, target: TableDef, events_per_row: int, limit: int) -> bool:
    """Whether the target's snapshot holds so few rows (its files' footers, already read by the scan and
    cached) that the statement's events cannot outnumber ``limit``: an UPDATE writes two events per row it
    changes, a DELETE one. Then the events are not kept by Spark: the driver's collect is their only pass,
    and on a table with delete deltas keeping them cost a job of its own."""
    files = binder.files.get(target.qualified_name)
    if files is None or limit <= 0:
        return False
    fs, _ = filesystem_for(target.location)
    rows = snapshot_rows(fs, files)
    return rows * events_per_row <= limit


def _point_lookup(plan: UpdatePlan | DeletePlan) -> bool:
    """Whether the statement's WHERE pins a target column to a few integer values (``k = 7``, ``k IN (..)``):
    its rows are then expected to be few, and its events are not kept by Spark. Keeping them (``persist``)
    costs a planning of the cache and its building on every statement (about 0.08 CPU-s of a one-row UPDATE
    of 1 M rows, measured); without it, the rare point statement that still changes more rows than the
    driver write takes computes them once more for the Spark tasks that write them."""
    pruning = plan.reads.target_pruning
    return pruning is not None and any(f.op in ("=", "in") for f in pruning.key_filters)


def _write_merge(
    binder: Binder, plan: MergePlan, rows: MergeRows, sink: TableSink, statement_ids: list[int], settings: Settings
) -> _Leg:
    files, merge = write_merge(plan, rows, statement_ids, sink, settings)
    # Hive's write type: a MERGE that updates is an update; one that only deletes (and inserts) a delete,
    # so it does not conflict with another delete (D/D)
    operation = "u" if any(c.action == "update" for c in plan.clauses) else "d"
    return files, operation, _merge_counts(merge)


#: The executor's dispatch by plan class: the one place that knows which writer a plan's rows go through.
_LEG_WRITERS: dict[type, Callable[..., _Leg]] = {
    InsertPlan: _write_insert,
    UpdatePlan: _write_update,
    DeletePlan: _write_delete,
    MergePlan: _write_merge,
}


def _write_insert_only_legs(
    binder: Binder, plan: DmlPlan, rows: DataFrame, sink: TableSink, statement_ids: list[int]
) -> Written:
    """An insert-only target: plain files in ``delta_W_W_S`` (``base_W`` for INSERT OVERWRITE). The planner
    lets only INSERT (and MERGE with INSERT clauses only) reach here."""
    target = plan.target
    writer = _INSERT_ONLY_WRITERS.get(type(plan))
    if writer is None:
        raise ExecutionError(f"{plan.statement} of insert-only table {target.qualified_name} is not supported")
    files, counts = writer(binder, plan, rows, sink, statement_ids)
    directories = sorted({f.directory for f in files})
    if plan.overwrites and not (target.is_partitioned and not plan.writes_one_partition):
        part = static_part_dir(binder.spark, plan) if target.is_partitioned else ""
        directories = sorted({*directories, *write_empty_dirs(target, sink, [part], statement_ids[0])})
    return Written(files, directories, "i", counts)


def _insert_only_insert(
    binder: Binder, plan: InsertPlan, rows: DataFrame, sink: TableSink, statement_ids: list[int]
) -> tuple[list[FileWritten], dict[str, Any]]:
    rows = shape_rows(rows, plan.target, plan.column_order, plan.static_partitions)
    static = static_part_dir(binder.spark, plan) if plan.writes_one_partition else None
    files = write_insert_only(rows, plan.target, sink, statement_ids[0], static)
    return files, _insert_delete_counts(files)


def _insert_only_merge(
    binder: Binder, plan: MergePlan, rows: DataFrame, sink: TableSink, statement_ids: list[int]
) -> tuple[list[FileWritten], dict[str, Any]]:
    files, merge = write_merge_inserts(plan, rows, statement_ids, sink)
    return files, _merge_counts(merge)


#: Insert-only targets by plan class (UPDATE and DELETE of one are refused by the planner).
_INSERT_ONLY_WRITERS: dict[type, Callable[..., tuple[list[FileWritten], dict[str, Any]]]] = {
    InsertPlan: _insert_only_insert,
    MergePlan: _insert_only_merge,
}


def _empty_overwritten_bases(
    binder: Binder, plan: DmlPlan, sink: TableSink, fs: FileSystem, directories: list[str]
) -> list[str]:
    """INSERT OVERWRITE that wrote no row into the partition it names (or the table) still hides the old
    rows there: an empty ``base_W``, as Hive writes."""
    target = plan.target
    if target.is_partitioned and not plan.writes_one_partition:
        return directories  # dynamic partitions: only those that received rows are overwritten
    part = static_part_dir(binder.spark, plan) if target.is_partitioned else ""
    base = sink.directory(0, 0)
    rel = f"{part}/{base}" if part else base
    if rel not in directories:
        write_version_file(fs, f"{sink.location.rstrip('/')}/{rel}")
        directories = sorted([*directories, rel])
    return directories


def truncate(plan: TruncatePlan, sink: TableSink, partitions: list[str], stmt: int) -> Written:
    """TRUNCATE of an ACID table: an empty base in the table or in each of ``partitions``."""
    directories = write_empty_bases(plan.target, sink, partitions, stmt)
    return Written([], directories, "i", _insert_delete_counts([]))


def write_empty_bases(table: TableDef, sink: TableSink, partitions: list[str], stmt: int) -> list[str]:
    """TRUNCATE: an empty ``base_W`` in the table (or in each of ``partitions``), so older snapshots stay
    readable; the directories written, relative to the table."""
    if table.is_insert_only:
        return write_empty_dirs(table, sink, partitions, stmt)
    fs, _ = filesystem_for(table.location)
    base = sink.directory(0, stmt)
    directories = []
    for part in partitions:
        rel = f"{part}/{base}" if part else base
        write_version_file(fs, f"{sink.location.rstrip('/')}/{rel}")
        directories.append(rel)
    return directories


@dataclass(frozen=True)
class PlainWritten:
    """What a write of a plain table did: the rows written and the partitions it wrote into (to register);
    ``whole_table``: every partition's data changed (TRUNCATE), not only those listed."""

    rows: int
    partitions: list[str]
    whole_table: bool = False


def write_plain_target(binder: Binder, plan: DmlPlan, partition_locations: Mapping[str, str] | None = None) -> PlainWritten:
    """INSERT into or TRUNCATE a plain (non-transactional) table. ``partition_locations``: where the
    target's existing partitions are (the catalog's locations)."""
    if plan.target.is_transactional or type(plan) not in _PLAIN_WRITERS:
        raise ExecutionError(f"{plan.statement} of {plan.target.qualified_name} is not a plain-table write")
    return _PLAIN_WRITERS[type(plan)](binder, plan, partition_locations or {})


def _insert_plain(binder: Binder, plan: InsertPlan, locations: Mapping[str, str]) -> PlainWritten:
    """INSERT into a plain table through Spark's own writers. A partitioned table's rows go to Hive's
    partition directories (Hive's names and escaping), static, dynamic or mixed as the spec says."""
    target = plan.target
    rows = shape_rows(binder.run(plan.source, plan.reads), target, plan.column_order, plan.static_partitions)
    partitions: list[str] = []
    static = None
    keys = []
    if target.is_partitioned:
        static = static_part_dir(binder.spark, plan) if plan.writes_one_partition else None
        keys.append(new_part_dir(target, static).alias(PART_DIR_COLUMN))
    bucket = new_bucket_id(target)
    if bucket is not None:  # Hive's hash, one file per bucket (000003_0)
        keys.append(bucket.alias(BUCKET_COLUMN))
    if keys:
        rows = rows.select(*[F.col(c.name) for c in target.columns], *keys)
    rows = rows.cache()
    try:
        count = rows.count()
        if keys:
            always = [static] if static is not None else ([] if target.is_partitioned else [""])
            partitions = write_plain_partitions(rows, target, locations, overwrite=plan.overwrite, always=always)
        else:
            write_plain(rows, target, overwrite=plan.overwrite)
    finally:
        rows.unpersist()
    return PlainWritten(count, partitions)


def _truncate_plain(binder: Binder, plan: TruncatePlan, locations: Mapping[str, str]) -> PlainWritten:
    """TRUNCATE of a plain table: its files go (no older snapshot to keep), in every partition."""
    fs, path = filesystem_for(plan.target.location)
    if not plan.target.is_partitioned:
        fs.delete_dir_contents(path, missing_dir_ok=True)
        return PlainWritten(0, [], whole_table=True)
    for part in binder.partitions_of(plan.target.db, plan.target.name):
        _, part_path = filesystem_for(part.location or f"{plan.target.location.rstrip('/')}/{part.name}")
        fs.delete_dir_contents(part_path, missing_dir_ok=True)
    return PlainWritten(0, [], whole_table=True)


#: Plain targets by plan class (UPDATE, DELETE and MERGE of a plain table are refused by the planner).
_PLAIN_WRITERS: dict[type, Callable[..., PlainWritten]] = {InsertPlan: _insert_plain, TruncatePlan: _truncate_plain}
