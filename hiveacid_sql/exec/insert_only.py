"""Insert-only ("MM") transactional tables: plain data files in ACID directories.

Hive 3 makes every managed non-ORC table insert-only (``'transactional_properties'='insert_only'``): an
INSERT writes ``delta_W_W_S/`` and an INSERT OVERWRITE or TRUNCATE ``base_W/``, as for a full-ACID table,
but the directories hold plain files of the table's format (ORC, Parquet, text), named as Hive's
FileSinkOperator names them (``000000_0``, ``000001_0``, one per writer task), with no ACID event columns,
no row ids and no ``_orc_acid_version``. Readers choose the directories exactly as for a full-ACID table
(``getAcidState`` at the snapshot's write ids: open and aborted write ids stay invisible), then read every
file in them whole.

Files are written by Spark's own writers (:func:`~hiveacid_sql.exec.plain.write_plain`, so values are
stored as in a plain table of that format) into a hidden ``_tmp_mm_<uuid>`` directory under the table and
then renamed into their ACID directory, so no reader ever lists a half-written file under a visible name.
"""

from __future__ import annotations

import dataclasses
import posixpath
import uuid

import pyarrow.fs as pafs
from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from hiveacid_sql.acid.compaction import MAJOR, CompactionPlan
from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.acid.names import COMPACTED_METADATA, METADATA_FILE, is_hidden, original_file_name
from hiveacid_sql.acid.scan_files import DirFiles, ScanFiles, join_path
from hiveacid_sql.acid.state import FileEntry
from hiveacid_sql.exec.plain import (
    BUCKET_COLUMN,
    PART_DIR_COLUMN,
    free_bucket_names,
    read_plain,
    spark_location,
    split_stage_key,
    stage_key,
    staged_write,
    write_plain,
)
from hiveacid_sql.exec.scan import frame_schema, partition_values, union_all
from hiveacid_sql.exec.tasks import BUCKET, OWID, PART_DIR, ROWID, TableSink
from hiveacid_sql.exec.write import FileWritten
from hiveacid_sql.txn import TableDef

_STAGING_PREFIX = "_tmp_mm_"
#: Up to this many rows a partition's new rows go to one file (``000000_0``); more are written by several
#: Spark tasks, one file each.
ONE_FILE_MAX_ROWS = 1_000_000


def mm_file_name(index: int) -> str:
    """Hive's name of the ``index``-th writer's file in an insert-only directory (``Utilities.getTaskId``
    rendering: six digits, attempt 0)."""
    return original_file_name(index)


def _live_files(location: str, d: DirFiles) -> list[str]:
    """The non-empty data files the snapshot reads in one directory: base, deltas, then originals (files
    from before the table became transactional)."""
    state = d.state
    root = join_path(location, d.part_dir) if d.part_dir else location
    entries: list[FileEntry] = [*state.base_files, *state.originals]
    for delta in state.deltas:
        entries += state.delta_files.get(delta.name, ())
    sizes = {join_path(root, e.path): e.size for e in entries}
    return [p for p in (*d.data_files, *d.original_files) if sizes.get(p, 1) > 0]


def insert_only_frame(spark: SparkSession, table: TableDef, files: ScanFiles) -> DataFrame:
    """The rows of an insert-only table's snapshot (``files``: its chosen directories), in the scan's shape:
    ``__part_dir``, the row-id columns, the data columns, then the partition columns (from the directory
    names, as Hive reads them). An insert-only table has no row ids: ``__owid`` 0 marks a row as present
    (MERGE's join tells matched rows by it) and ``__rowid`` only tells rows apart within one statement;
    ``row__id`` itself reads NULL (:func:`null_row_id`)."""
    columns = frame_schema([(c.name, parse_hive_type(c.type)) for c in table.columns])
    partition_columns = [(c.name, parse_hive_type(c.type)) for c in table.partition_keys]
    _fs, location = filesystem_for(table.location)
    frames = []
    for d in files.dirs:
        paths = _live_files(location, d)
        if not paths:
            continue
        rows = read_plain(spark, table, paths)
        rows = rows.select(
            F.lit(d.part_dir).alias(PART_DIR),
            F.lit(0).cast("long").alias(OWID),
            F.lit(0).cast("int").alias(BUCKET),
            F.monotonically_increasing_id().alias(ROWID),
            *[F.col(c.name) for c in table.columns],
        )
        frames.append(rows)
    data = union_all(frames) if frames else spark.createDataFrame([], columns)
    if partition_columns:
        data = data.select("*", *partition_values(F.col(PART_DIR), partition_columns))
    return data


def write_insert_only(
    rows: DataFrame, table: TableDef, sink: TableSink, statement_id: int, part_dir: str | None
) -> list[FileWritten]:
    """Write ``rows`` (the table's data columns, then its partition columns) into ``delta_W_W_S`` (or
    ``base_W`` when the sink overwrites) of each partition the rows go to; ``part_dir``: the one partition
    every row goes to (a static spec), None to route each row by its partition values."""
    from hiveacid_sql.exec.routing import new_part_dir

    if table.is_bucketed:
        routed = rows.withColumn(PART_DIR_COLUMN, new_part_dir(table, part_dir))
        return _write_bucketed(routed, table, sink.directory(0, statement_id), statement_id)
    fs, root = filesystem_for(table.location)
    data_columns = [c.name for c in table.columns]
    routed = rows.withColumn(PART_DIR, new_part_dir(table, part_dir)).persist(StorageLevel.MEMORY_AND_DISK)
    staging = f"{root.rstrip('/')}/{_STAGING_PREFIX}{uuid.uuid4().hex}"
    try:
        counts = {r[0]: r[1] for r in routed.groupBy(PART_DIR).count().collect()}
        directory = sink.directory(0, statement_id)
        written: list[FileWritten] = []
        for index, (part, count) in enumerate(sorted(counts.items())):
            temp = f"{staging}/{index}"
            target = dataclasses.replace(table, location=spark_location(table.location, temp), partition_keys=())
            part_rows = routed.where(F.col(PART_DIR) == F.lit(part)).select(*data_columns)
            if count <= ONE_FILE_MAX_ROWS:
                part_rows = part_rows.coalesce(1)  # statement-sized: one file, as one Hive task writes
            write_plain(part_rows, target, overwrite=False)
            rel = f"{part}/{directory}" if part else directory
            written += _move_files(fs, temp, join_path(root, rel), part, rel, statement_id, count)
        return written
    finally:
        routed.unpersist()
        fs.delete_dir_contents(staging, missing_dir_ok=True)
        if fs.get_file_info(staging).type == pafs.FileType.Directory:
            fs.delete_dir(staging)


def _write_bucketed(rows: DataFrame, table: TableDef, directory: str, statement_id: int) -> list[FileWritten]:
    """A bucketed insert-only table: ``directory`` (``delta_W_W_S``, ``base_W``) of each partition gets one
    file per bucket that received rows, named by the bucket (``000003_0``) as Hive's FileSinkOperator names a
    bucketed table's files, so bucket pruning and Hive's bucketed joins find each row where its hash says.
    ``rows``: the data columns and ``PART_DIR_COLUMN``; staged in a hidden directory of ``table.location``."""
    fs, root = filesystem_for(table.location)
    keyed = rows.withColumn(BUCKET_COLUMN, _bucket_of(table)).persist(StorageLevel.MEMORY_AND_DISK)
    staging = f"{root.rstrip('/')}/{_STAGING_PREFIX}{uuid.uuid4().hex}"
    try:
        counts = {r[0]: r[1] for r in keyed.groupBy(stage_key(keyed).alias("k")).count().collect()}
        written: list[FileWritten] = []
        with staged_write(keyed, table, staging) as produced:
            for key in sorted(produced, key=lambda k: split_stage_key(k, bucketed=True)):
                part, bucket = split_stage_key(key, bucketed=True)
                assert bucket is not None
                rel = f"{part}/{directory}" if part else directory
                written += _move_bucket_files(
                    fs, produced[key], join_path(root, rel), (part, rel), bucket, statement_id, counts.get(key, 0)
                )
        return written
    finally:
        keyed.unpersist()


def _move_bucket_files(
    fs: pafs.FileSystem, paths: list[str], target_dir: str, where: tuple[str, str], bucket: int, statement_id: int, rows: int
) -> list[FileWritten]:
    """Rename one bucket's staged files to Hive's names in ``target_dir`` (``000003_0``, then ``_copy_K``);
    ``where``: the partition and the directory relative to the table."""
    fs.create_dir(target_dir, recursive=True)
    taken = {posixpath.basename(i.path) for i in fs.get_file_info(pafs.FileSelector(target_dir))}
    out = []
    for i, (path, name) in enumerate(zip(paths, free_bucket_names(taken, bucket, len(paths)), strict=True)):
        dest = f"{target_dir}/{name}"
        fs.move(path, dest)
        out.append(FileWritten(where[0], where[1], dest, "insert", bucket, statement_id, rows if i == 0 else 0))
    return out


def _bucket_of(table: TableDef) -> Column:
    """The bucket of a bucketed table's new rows (Hive's hash of the bucketing columns)."""
    from hiveacid_sql.exec.routing import new_bucket_id

    bucket = new_bucket_id(table)
    assert bucket is not None  # only bucketed tables get here
    return bucket


def _move_files(
    fs: pafs.FileSystem, temp: str, target_dir: str, part: str, rel: str, statement_id: int, rows: int
) -> list[FileWritten]:
    """Rename the files Spark wrote in ``temp`` to Hive's names in ``target_dir`` (created; files already
    there keep theirs: a second statement of the transaction writes its own ``_S`` directory)."""
    infos = fs.get_file_info(pafs.FileSelector(temp, allow_not_found=True))
    names = sorted(i.path for i in infos if i.type == pafs.FileType.File and not is_hidden(posixpath.basename(i.path)))
    fs.create_dir(target_dir, recursive=True)
    out = []
    for index, path in enumerate(names):
        dest = f"{target_dir}/{mm_file_name(index)}"
        fs.move(path, dest)
        out.append(FileWritten(part, rel, dest, "insert", index, statement_id, rows if index == 0 else 0))
    if not names:  # no file (nothing written): the rows still count where they went
        out.append(FileWritten(part, rel, "", "insert", 0, statement_id, rows))
    return out


def write_empty_dirs(table: TableDef, sink: TableSink, partitions: list[str], statement_id: int) -> list[str]:
    """TRUNCATE (and an INSERT OVERWRITE that wrote no row): an empty ``base_W`` in the table or in each of
    ``partitions`` hides every older file; the directories, relative to the table."""
    fs, root = filesystem_for(table.location)
    base = sink.directory(0, statement_id)
    out = []
    for part in partitions:
        rel = f"{part}/{base}" if part else base
        fs.create_dir(join_path(root, rel), recursive=True)
        out.append(rel)
    return out


def null_row_id(df: DataFrame) -> DataFrame:
    """``row__id`` of an insert-only table: NULL, of the full-ACID type (it has no row ids)."""
    from hiveacid_sql.exec.scan import ROW_ID

    return df.withColumn(
        ROW_ID,
        F.lit(None).cast("struct<writeid:bigint,bucketid:int,rowid:bigint>"),
    )


def compact_insert_only(spark: SparkSession, table: TableDef, root: str, build_dir: str, plan: CompactionPlan) -> list[dict]:
    """Build an insert-only directory's compaction in ``build_dir``: the plan's visible files (its base, its
    deltas and, for a major compaction, the originals) rewritten as one set of plain files, ``000000_0``..,
    in ``base_N`` (major, marked compacted by ``_metadata_acid`` as Hive's compactor marks it) or
    ``delta_<min>_<max>`` (minor); a bucketed table's rows re-bucketed, one ``00000B_0`` per bucket. ``root``: the table's (or partition's) directory. Returns one record per
    file written."""
    fs, _ = filesystem_for(table.location)
    state = plan.state
    entries: list[FileEntry] = []
    if plan.kind == MAJOR:
        entries += [*state.base_files, *state.originals]
    for delta in plan.deltas:
        entries += state.delta_files.get(delta.name, ())
    paths = [join_path(root, e.path) for e in entries if e.size]
    out_dir = f"{build_dir}/{plan.insert_dir}"
    temp = f"{build_dir}/_spark"
    data = dataclasses.replace(table, partition_keys=())
    rows = read_plain(spark, data, paths)
    count = rows.count() if paths else 0
    written: list[FileWritten] = []
    if count and table.is_bucketed:  # re-bucketed by Hive's hash: one file per bucket, as Hive's compactor
        target = dataclasses.replace(data, location=spark_location(table.location, build_dir))
        written = _write_bucketed(rows.withColumn(PART_DIR_COLUMN, F.lit("")), target, plan.insert_dir, -1)
    elif count:
        if count <= ONE_FILE_MAX_ROWS:
            rows = rows.coalesce(1)
        write_plain(rows, dataclasses.replace(data, location=spark_location(table.location, temp)), overwrite=False)
        written = _move_files(fs, temp, out_dir, "", plan.insert_dir, -1, count)
    fs.create_dir(out_dir, recursive=True)
    if fs.get_file_info(temp).type == pafs.FileType.Directory:
        fs.delete_dir(temp)
    if plan.kind == MAJOR:
        with fs.open_output_stream(f"{out_dir}/{METADATA_FILE}") as out:
            out.write(COMPACTED_METADATA)
    return [dataclasses.asdict(f) for f in written if f.path]
