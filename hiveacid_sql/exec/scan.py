"""Read an ACID table snapshot into a Spark DataFrame of live rows.

The flow follows Hive's reader: ``getAcidState`` picks the base, the insert deltas and the delete
deltas of the snapshot; the files of the base and insert deltas are insert events, read by Spark's own
ORC reader; rows whose ``currentTransaction`` is not valid in the snapshot are dropped (multi-write-id
deltas hold rows of several transactions); rows whose ``(originalTransaction, bucket, rowId)`` has a
valid delete event are removed by an anti join. Original (pre-ACID) files get synthetic row ids,
computed in Python tasks because Spark cannot report a row's position in an ORC file.

Partitioned tables: the chosen files of every partition are read together; each row's partition
directory comes from the file's path (``_metadata.file_path``), which gives both the partition column
values and the key of the delete anti join. (Spark's own partition discovery cannot be used: it adds the
partition columns to the schema ORC is asked for, which then no longer matches the six ACID columns.)

Spark pitfall (walkthrough section 7): the ORC library re-wraps any request that is not exactly the
six ACID columns, so every scan here filters on all six top-level columns; pruning inside ``row``
still works.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pyarrow.fs as pafs
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.acid.orc_footer import OrcFooter
from hiveacid_sql.acid.partitions import DEFAULT_PARTITION_NAME, escape_path_name
from hiveacid_sql.acid.scan_files import DirFiles as DirFiles
from hiveacid_sql.acid.scan_files import (
    OriginalSlice,
    group_by_schema,
    is_event_file,
    original_slices,
    raw_slices,
    row_fields,
)
from hiveacid_sql.acid.scan_files import ScanFiles as ScanFiles
from hiveacid_sql.acid.scan_files import join_path as join_path
from hiveacid_sql.acid.scan_files import snapshot_files as snapshot_files
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.exec.columns import read_orc, to_table_type
from hiveacid_sql.exec.sarg import excluded_by, search_argument_options
from hiveacid_sql.exec.small_files import live_rows, small_deletes, small_file_max_rows, small_inserts
from hiveacid_sql.exec.spark_types import cast_to, spark_schema, to_spark_type
from hiveacid_sql.exec.tasks import BUCKET, OWID, PART_DIR, ROWID
from hiveacid_sql.plan.pruning import KeyFilter

ROW_ID = "row__id"
#: Delete events (counted in the delete deltas' ORC footers) up to which the anti join broadcasts them:
#: about 40 bytes a key, so the largest broadcast is tens of MB.
BROADCAST_DELETES_MAX_ROWS = 1_000_000


def frame_schema(table_columns: Sequence[tuple[str, HiveType]]) -> T.StructType:
    """Schema of a scan's frame before partition columns: partition dir, row-id columns, table columns."""
    return T.StructType(
        [
            T.StructField(PART_DIR, T.StringType()),
            T.StructField(OWID, T.LongType()),
            T.StructField(BUCKET, T.IntegerType()),
            T.StructField(ROWID, T.LongType()),
            *spark_schema(list(table_columns)).fields,
        ]
    )


#: Files at least this large are read by a Spark scan of their own, apart from the snapshot's smaller files
#: of the same schema (:func:`by_size`).
LARGE_FILE_BYTES = 1 << 20


def by_size(files: ScanFiles, group: list[OrcFooter]) -> list[list[OrcFooter]]:
    """``group`` as the reads that spread it over Spark's tasks: its large files apart from its small ones.

    Why: Spark packs a scan's files into tasks by size plus ``spark.sql.files.openCostInBytes`` (4 MiB)
    each, and sizes its splits from that padded total over the cores. Ten small delta files beside a base of
    two 15 MB writer files made the padded total so large that both base files fell into one task: at
    10 M rows after ten statements one of two tasks read 10,000,000 of the 10,050,000 rows while the other
    read the deltas, so the scan ran on one core. Read apart, the large files' scan sizes its splits from
    their own bytes (a task per file, or per split of a larger one) and the small files share the rest."""
    large = [f for f in group if (files.size_of(f.path) or 0) >= LARGE_FILE_BYTES]
    if not large or len(large) == len(group):
        return [group]
    large_paths = {f.path for f in large}
    return [large, [f for f in group if f.path not in large_paths]]


def union_all(frames: Sequence[DataFrame]) -> DataFrame:
    """Union of frames with the same columns (by name), e.g. file groups of different physical schemas."""
    return functools.reduce(DataFrame.unionByName, frames)


def valid_write_id(col: Column, write_ids: ValidWriteIdList) -> Column:
    """An event's ``currentTransaction`` is valid in ``write_ids`` (NULL: not), in the form of
    :func:`event_column`, which Spark never hands to ORC as a filter."""
    cwid = event_column(col, write_ids.high_watermark + 1)
    cond = cwid <= F.lit(write_ids.high_watermark)
    if write_ids.exceptions:
        cond = cond & ~cwid.isin(list(write_ids.exceptions))
    return cond


def event_column(col: Column, if_null: int) -> Column:
    """One of an event file's five top-level integer columns, for a condition of the scan: ``if_null`` where
    it is NULL.

    Why not the column itself: Spark hands a condition on a column (and the ``IS NOT NULL`` it infers from
    ``c = 0`` or ``c <= 5``) to ORC as a search argument, and in a file ORC recognises as ACID it resolves
    search-argument names inside ``row``, the table's own columns: a table with a column named ``operation``,
    ``bucket``, ``rowId`` (any case) had ORC skip the row groups where that column of the table was all NULL,
    the pushed ``IsNotNull(operation)`` read as ``row.operation``: every row of a table whose ``operation``
    column was NULL vanished from SELECT, and delete events (``row`` NULL) were skipped, so deleted rows came
    back. A COALESCE is not handed to ORC, and Spark infers nothing from it."""
    return F.coalesce(col, F.lit(if_null))


def event_kind(col: Column, op: int) -> Column:
    """An event's ``operation`` is ``op`` (0 insert, 1 update, 2 delete): see :func:`event_column`."""
    return event_column(col, -1) == F.lit(op)


def _uri_decode(col: Column) -> Column:
    """Undo one level of %XX escaping ('+' kept as is); text that is not valid escaping stays unchanged."""
    return F.coalesce(F.try_url_decode(F.replace(col, F.lit("+"), F.lit("%2B"))), col)


def part_dir_of_file(keys: Sequence[str]) -> Column:
    """The partition directory (Hive's escaped ``k1=v1/k2=v2``) of each row's file, from Spark's file path.

    Spark reports file paths URI-encoded (``p=a%20b``); the last run of ``k1=../k2=..`` segments is the
    partition, whatever the depth of the file below it. Un-partitioned tables: ''.
    """
    if not keys:
        return F.lit("")
    # Keys are escaped in directory names like values are (a key ``p/q`` is the directory ``p%2Fq=..``), so the
    # pattern matches the escaped key in the decoded path.
    pattern = "^.*/(" + "/".join(re.escape(escape_path_name(k.lower())) + "=[^/]*" for k in keys) + ")/"
    return F.regexp_extract(_uri_decode(F.col("_metadata.file_path")), pattern, 1)


def partition_values(part_dir: Column, partition_columns: Sequence[tuple[str, HiveType]]) -> list[Column]:
    """Typed partition column values from a partition directory name (Hive's unescaping, default -> NULL)."""
    out = []
    parts = F.split(part_dir, "/")
    for i, (name, htype) in enumerate(partition_columns):
        segment = parts.getItem(i)
        raw = _uri_decode(segment.substr(F.instr(segment, "=") + 1, F.lit(1 << 30)))
        value = F.when(raw == F.lit(DEFAULT_PARTITION_NAME), F.lit(None)).otherwise(raw)
        out.append(cast_to(value, to_spark_type(htype)).alias(name))
    return out


def read_events(
    spark: SparkSession,
    footers: list[OrcFooter],
    options: dict[str, str] | None = None,
    where: Callable[[list[Column]], Column] | None = None,
) -> tuple[DataFrame, list[tuple[str, HiveType]]]:
    """Spark DataFrame over event files that share one physical schema and calendar path (one group of
    :func:`~hiveacid_sql.acid.scan_files.group_by_schema`), asking for all six columns; ``options``: more
    ORC reader settings (a search argument); ``where``: more conditions on the six columns (given as
    Columns, in file order), in the same filter (each DataFrame step is an analysis of its own in the JVM).
    The frame has the file's six columns; a caller selects the partition directory,
    ``part_dir_of_file(keys)``, in its own projection (not a step of its own here)."""
    fields = row_fields(footers[0])
    root = parse_hive_type(footers[0].type_string)
    as_text = footers[0].pre_gregorian
    schema = spark_schema([(n, t) for n, t in root.fields], physical=True, dates_as_text=as_text)
    df = read_orc(spark, schema, [f.path for f in footers], dates_as_text=as_text, options=options)
    # Physical names may differ in case (lower-case Impala/Hive 2 files): Spark matches case-insensitively.
    cols = [F.col(name) for name, _ in root.fields]
    # always true of an event; it names all six columns (the ORC pitfall in the module docstring), in a form
    # Spark hands nothing of to ORC (see event_column)
    condition = F.coalesce(*[c.cast("bigint") for c in cols[:5]]).isNotNull() | cols[5].isNotNull()
    if where is not None:
        condition = condition & where(cols)
    return df.where(condition), fields


def _row_id(owid: str, bucket: str, rowid: str) -> list[Column]:
    """The row id columns of a scan's frame, through :func:`event_column`: the IS NOT NULL that Spark infers
    for the keys of the delete anti join's build side, or for a query's condition on ``row__id``, reaches no
    event column. NULLIF(.., -1) gives back the column's value and its nullability (row ids are never
    negative), so the frame's schema is the driver read's (``row__id``'s fields nullable)."""
    return [
        F.nullif(event_column(F.col(name), -1), F.lit(-1)).alias(alias)
        for name, alias in ((owid, OWID), (bucket, BUCKET), (rowid, ROWID))
    ]


def _insert_frame(
    spark: SparkSession,
    footers: list[OrcFooter],
    table_columns: Sequence[tuple[str, HiveType]],
    keys: Sequence[str],
    write_ids: ValidWriteIdList | None,
    key_filters: Sequence[KeyFilter] = (),
) -> DataFrame:
    """Insert events of ``footers``; rows of write ids not valid in ``write_ids`` dropped (None: keep all).
    ``key_filters``: conjuncts of the statement on these rows, handed to ORC to skip stripes and row groups."""
    fields = row_fields(footers[0])
    options = search_argument_options(spark, fields, table_columns, key_filters) if key_filters else {}

    def inserts(cols: list[Column]) -> Column:
        op, _owid, _bucket, _rowid, cwid, _row = cols
        keep = event_kind(op, 0)
        return keep & valid_write_id(cwid, write_ids) if write_ids is not None else keep

    df, fields = read_events(spark, footers, options, where=inserts)
    root = parse_hive_type(footers[0].type_string)
    _op, owid, bucket, rowid, _cwid, row = (name for name, _ in root.fields)
    out = [part_dir_of_file(keys).alias(PART_DIR), *_row_id(owid, bucket, rowid)]
    for i, (name, htype) in enumerate(table_columns):
        if i < len(fields):
            phys_name, phys_type = fields[i]
            value = F.col(row).getField(phys_name)
            out.append(to_table_type(value, phys_type, htype, dates_as_text=footers[0].pre_gregorian).alias(name))
        else:  # written before ALTER TABLE ADD COLUMNS: Hive reads the new column as NULL
            out.append(cast_to(F.lit(None), to_spark_type(htype)).alias(name))
    return df.select(*out)


def _delete_frame(
    spark: SparkSession, footers: list[OrcFooter], keys: Sequence[str], write_ids: ValidWriteIdList
) -> DataFrame:
    def deletes(cols: list[Column]) -> Column:
        return event_kind(cols[0], 2) & valid_write_id(cols[4], write_ids)

    df, _ = read_events(spark, footers, where=deletes)
    root = parse_hive_type(footers[0].type_string)
    _op, owid, bucket, rowid, _cwid, _row = (name for name, _ in root.fields)
    return df.select(part_dir_of_file(keys).alias(PART_DIR), *_row_id(owid, bucket, rowid))


def _originals_frame(
    spark: SparkSession,
    fs_uri: str,
    footers: dict[str, OrcFooter],
    dirs: Sequence[DirFiles],
    table_columns: Sequence[tuple[str, HiveType]],
) -> DataFrame | None:
    """Original files with Hive's synthetic row ids (:func:`original_slices`), read in Python tasks."""
    return _slices_frame(spark, fs_uri, original_slices(dirs, {p: f.num_rows for p, f in footers.items()}), table_columns)


def _slices_frame(
    spark: SparkSession, fs_uri: str, slices: Sequence[OriginalSlice], table_columns: Sequence[tuple[str, HiveType]]
) -> DataFrame | None:
    """Plain files read with given synthetic row ids, in Python tasks (originals and raw base/delta files)."""
    jobs = [(o.path, o.bucket, o.start, o.part_dir, o.write_id) for o in slices]
    if not jobs:
        return None
    from hiveacid_sql.exec.tasks import read_originals_task

    out_schema = frame_schema(table_columns)
    col_types = [(n, t.to_string()) for n, t in table_columns]
    job_df = spark.createDataFrame(jobs, "path string, bucket int, start long, part_dir string, write_id long").repartition(
        min(len(jobs), 64)
    )
    return job_df.mapInArrow(read_originals_task(fs_uri, col_types, out_schema), out_schema)


@dataclass(frozen=True)
class ScanFrame:
    """A snapshot's frame and whether Spark reads files for it (a file scan or Python reader tasks): such a
    frame's rows are never a local relation on the driver, so a statement need not ask Spark's optimizer."""

    frame: DataFrame
    reads_files: bool


def scan_frame(
    spark: SparkSession,
    fs: pafs.FileSystem,
    fs_uri: str,
    table_columns: Sequence[tuple[str, HiveType]],
    partition_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
    files: ScanFiles,
    key_filters: Sequence[KeyFilter] = (),
) -> ScanFrame:
    """Live rows of the snapshot's files.

    Columns: ``__part_dir``, the row id ``__owid, __bucket, __rowid``, the table's data columns, then its
    partition columns (read from the directory names, as Hive does: partition values are not in the files).
    ``key_filters``: conjuncts every row the caller keeps satisfies; insert events are read with them as
    ORC's search argument (:mod:`hiveacid_sql.exec.sarg`; delete events always whole).
    """
    keys = [n for n, _ in partition_columns]
    data_footers = files.footers(fs, files.data_files)
    # plain files in base/delta directories (an insert-only table converted to full ACID): Hive's raw files
    raw = [f for f in data_footers if f.num_rows and not is_event_file(f)]
    raw_paths = {f.path for f in raw}
    data_footers = [f for f in data_footers if f.path not in raw_paths]
    if key_filters:  # files whose statistics exclude the statement's key filters: not even opened by Spark
        data_footers = [f for f in data_footers if not excluded_by(f, table_columns, key_filters)]
    # small base/delta files: read on the driver, given to Spark as a local relation (exec/small_files.py)
    small_max_rows = small_file_max_rows(spark)
    local_inserts, data_footers = small_inserts(small_max_rows, fs, files, data_footers, table_columns, write_ids)
    frames = [
        _insert_frame(spark, part, table_columns, keys, write_ids, key_filters)
        for group in group_by_schema(data_footers).values()
        for part in by_size(files, group)
    ]
    if raw:
        counts = {f.path: f.num_rows for f in raw}
        slices = [s for d in files.dirs for s in raw_slices(d, {p: counts[p] for p in d.data_files if p in counts})]
        raw_frame = _slices_frame(spark, fs_uri, slices, table_columns)
        if raw_frame is not None:
            frames.append(raw_frame)
    if files.original_files:
        orig_footers = files.footers(fs, files.original_files)
        # A file in an original's place that already holds ACID events (files copied in by hand, IMPALA-10115)
        # is read as events, recognised by its schema as Hive's OrcInputFormat.isOriginal does. Like any
        # original it belongs to no write id range, so all of its rows are visible (Impala's test expects it).
        event_footers = [f for f in orig_footers if f.num_rows and is_event_file(f)]
        event_paths = {f.path for f in event_footers}
        frames += [
            _insert_frame(spark, group, table_columns, keys, None, key_filters)
            for group in group_by_schema(event_footers).values()
        ]
        plain = {f.path: f for f in orig_footers if f.path not in event_paths}
        originals = _originals_frame(spark, fs_uri, plain, files.dirs, table_columns)
        if originals is not None:
            frames.append(originals)
    reads_files = bool(frames)
    if not frames and local_inserts is None:
        data = spark.createDataFrame([], frame_schema(table_columns))
    else:
        delete_footers = files.footers(fs, files.delete_files)
        local_deletes, spark_deletes = small_deletes(small_max_rows, fs, files, delete_footers, write_ids)
        delete_frames = [_delete_frame(spark, group, keys, write_ids) for group in group_by_schema(spark_deletes).values()]
        reads_files = reads_files or bool(delete_frames)
        data = live_rows(
            spark, union_all(frames) if frames else None, local_inserts, delete_frames, local_deletes,
            frame_schema(table_columns),
            broadcast=sum(f.num_rows for f in delete_footers) <= BROADCAST_DELETES_MAX_ROWS,
        )
    if partition_columns:
        data = data.select("*", *partition_values(F.col(PART_DIR), partition_columns))
    return ScanFrame(data, reads_files)


def scan_location(
    spark: SparkSession,
    location: str,
    table_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
    *,
    partition_columns: Sequence[tuple[str, HiveType]] = (),
    part_dirs: Sequence[str] = ("",),
) -> DataFrame:
    """List and read a table location at ``write_ids`` (no catalog): :func:`snapshot_files` + :func:`scan_frame`."""
    fs, path = filesystem_for(location)
    files = snapshot_files(fs, path, write_ids, part_dirs)
    return scan_frame(spark, fs, location, table_columns, partition_columns, write_ids, files).frame


def with_row_id(df: DataFrame) -> DataFrame:
    """Add Hive's virtual ``row__id`` struct<writeid,bucketid,rowid> next to the internal columns."""
    return df.withColumn(
        ROW_ID,
        F.struct(
            F.col(OWID).alias("writeid"), F.col(BUCKET).alias("bucketid"), F.col(ROWID).alias("rowid")
        ),
    )


def user_columns(df: DataFrame, columns: Sequence[str], *, row_id: bool) -> DataFrame:
    """Only what a query may name: the table's columns (partition columns last), plus ``row__id`` (added by
    :func:`with_row_id`) when asked."""
    cols = [F.col(n) for n in columns]
    return df.select(F.col(ROW_ID), *cols) if row_id else df.select(*cols)
