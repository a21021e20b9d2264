"""Read an ACID table snapshot into a Spark DataFrame of live rows.

The flow follows Hive's reader: ``getAcidState`` picks the base, the insert deltas and the delete
deltas of the snapshot; the files of the base and insert deltas are insert events, read by Spark's own
ORC reader; rows whose ``currentTransaction`` is not valid in the snapshot are dropped (multi-write-id
deltas hold rows of several transactions); rows whose ``(originalTransaction, bucket, rowId)`` has a
valid delete event are removed by an anti join. Original (pre-ACID) files get synthetic row ids,
computed in Python tasks because Spark cannot report a row's position in an ORC file.

Spark pitfall (walkthrough section 7): the ORC library re-wraps any request that is not exactly the
six ACID columns, so every scan here filters on all six top-level columns; pruning inside ``row``
still works.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pyarrow.fs as pafs
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from hiveacid_sql.acid.codec import encode_bucket
from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.listing import list_acid_dir
from hiveacid_sql.acid.names import parse_original_file
from hiveacid_sql.acid.orc_footer import OrcFooter, read_footer
from hiveacid_sql.acid.state import AcidState, get_acid_state
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError
from hiveacid_sql.exec.columns import to_table_type
from hiveacid_sql.exec.spark_types import spark_schema, to_spark_type

ROW_ID = "row__id"
OWID, BUCKET, ROWID = "__owid", "__bucket", "__rowid"
_EVENT_PREFIX = ["operation", "originalTransaction", "bucket", "rowId", "currentTransaction"]


@dataclass(frozen=True)
class ScanFiles:
    """What a snapshot reads: absolute paths grouped by role, for EXPLAIN and for the scan itself."""

    state: AcidState
    data_files: tuple[str, ...]
    delete_files: tuple[str, ...]
    original_files: tuple[str, ...]


def frame_schema(table_columns: Sequence[tuple[str, HiveType]]) -> T.StructType:
    """Schema of a scan's frame: the internal row-id columns, then the table columns."""
    return T.StructType(
        [
            T.StructField(OWID, T.LongType()),
            T.StructField(BUCKET, T.IntegerType()),
            T.StructField(ROWID, T.LongType()),
            *spark_schema(list(table_columns)).fields,
        ]
    )


def union_all(frames: Sequence[DataFrame]) -> DataFrame:
    """Union of frames with the same columns (by name), e.g. file groups of different physical schemas."""
    return functools.reduce(DataFrame.unionByName, frames)


def join_path(base: str, rel: str) -> str:
    """Join a table location and a relative path with '/' (pyarrow.fs paths are '/' separated)."""
    return base.rstrip("/") + "/" + rel.lstrip("/")


def snapshot_files(fs: pafs.FileSystem, location: str, write_ids: ValidWriteIdList) -> ScanFiles:
    """List the table directory and choose the snapshot's files (no data read yet)."""
    state = get_acid_state(list_acid_dir(fs, location), write_ids)
    data: list[str] = []
    if state.base is not None:
        data += [join_path(location, f.path) for f in state.base_files]
    for delta in state.deltas:
        data += [join_path(location, f.path) for f in state.delta_files.get(delta.name, ())]
    deletes = [
        join_path(location, f.path) for d in state.delete_deltas for f in state.delta_files.get(d.name, ())
    ]
    originals = [join_path(location, f.path) for f in state.originals]
    return ScanFiles(state, tuple(data), tuple(deletes), tuple(originals))


def _valid_write_id(col: Column, write_ids: ValidWriteIdList) -> Column:
    cond = col <= F.lit(write_ids.high_watermark)
    if write_ids.exceptions:
        cond = cond & ~col.isin(list(write_ids.exceptions))
    return cond


def _row_fields(footer: OrcFooter) -> list[tuple[str, HiveType]]:
    root = parse_hive_type(footer.type_string)
    if root.name != "struct":
        raise AcidFormatError(f"{footer.path} is not an ACID event file: schema {footer.type_string}")
    names = [n.lower() for n, _ in root.fields]
    if names[:5] != [n.lower() for n in _EVENT_PREFIX] or len(names) != 6 or names[5] != "row":
        raise AcidFormatError(f"{footer.path} is not an ACID event file: schema {footer.type_string}")
    row = root.fields[5][1]
    if row.name != "struct":
        raise AcidFormatError(f"{footer.path} is not an ACID event file: row is {row.to_string()}")
    return list(row.fields)


def _is_event_file(footer: OrcFooter) -> bool:
    """Whether the file's schema is the ACID event schema (field names compared case-insensitively)."""
    try:
        _row_fields(footer)
    except AcidFormatError:
        return False
    return True


def _group_by_schema(footers: Iterable[OrcFooter]) -> dict[str, list[OrcFooter]]:
    groups: dict[str, list[OrcFooter]] = {}
    for footer in footers:
        if footer.num_rows == 0:
            continue  # empty files carry no events (Trino exempts them from every check too)
        groups.setdefault(footer.type_string, []).append(footer)
    return groups


def _read_events(spark: SparkSession, footers: list[OrcFooter]) -> tuple[DataFrame, list[tuple[str, HiveType]]]:
    """Spark DataFrame over event files that share one physical schema, asking for all six columns."""
    row_fields = _row_fields(footers[0])
    root = parse_hive_type(footers[0].type_string)
    schema = spark_schema([(n, t) for n, t in root.fields], physical=True)
    df = spark.read.schema(schema).orc([f.path for f in footers])
    # Physical names may differ in case (lower-case Impala/Hive 2 files): Spark matches case-insensitively.
    cols = [F.col(name) for name, _ in root.fields]
    keep_all_six = (
        cols[0].isNotNull() & cols[1].isNotNull() & cols[2].isNotNull() & cols[3].isNotNull() & cols[4].isNotNull()
    )
    return df.where(keep_all_six | cols[5].isNotNull()), row_fields


def _insert_frame(
    spark: SparkSession,
    footers: list[OrcFooter],
    table_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList | None,
) -> DataFrame:
    """Insert events of ``footers``; rows of write ids not valid in ``write_ids`` dropped (None: keep all)."""
    df, row_fields = _read_events(spark, footers)
    root = parse_hive_type(footers[0].type_string)
    op, owid, bucket, rowid, cwid, row = (name for name, _ in root.fields)
    df = df.where((F.col(op) == 0) & F.col(row).isNotNull())
    if write_ids is not None:
        df = df.where(_valid_write_id(F.col(cwid), write_ids))
    out = [F.col(owid).alias(OWID), F.col(bucket).alias(BUCKET), F.col(rowid).alias(ROWID)]
    for i, (name, htype) in enumerate(table_columns):
        if i < len(row_fields):
            phys_name, phys_type = row_fields[i]
            out.append(to_table_type(F.col(row).getField(phys_name), phys_type, htype).alias(name))
        else:  # written before ALTER TABLE ADD COLUMNS: Hive reads the new column as NULL
            out.append(F.lit(None).cast(to_spark_type(htype)).alias(name))
    return df.select(*out)


def _delete_frame(spark: SparkSession, footers: list[OrcFooter], write_ids: ValidWriteIdList) -> DataFrame:
    df, _ = _read_events(spark, footers)
    root = parse_hive_type(footers[0].type_string)
    op, owid, bucket, rowid, cwid, _row = (name for name, _ in root.fields)
    df = df.where((F.col(op) == 2) & _valid_write_id(F.col(cwid), write_ids))
    return df.select(F.col(owid).alias(OWID), F.col(bucket).alias(BUCKET), F.col(rowid).alias(ROWID))


def _originals_frame(
    spark: SparkSession,
    fs_uri: str,
    footers: list[OrcFooter],
    original_paths: Sequence[str],
    table_columns: Sequence[tuple[str, HiveType]],
) -> DataFrame:
    """Original files with Hive's synthetic row ids: per bucket id, row counts of earlier files + position."""
    offsets: dict[int, int] = {}
    jobs = []
    by_path = {f.path: f for f in footers}
    for path in original_paths:  # already in Hive's Path order
        parsed = parse_original_file(path.rsplit("/", 1)[-1])
        bucket_id = parsed[0] if parsed else 0
        start = offsets.get(bucket_id, 0)
        n = by_path[path].num_rows
        offsets[bucket_id] = start + n
        if n:
            jobs.append((path, encode_bucket(bucket_id, 0), start))
    out_schema = frame_schema(table_columns)
    if not jobs:
        return spark.createDataFrame([], out_schema)
    from hiveacid_sql.exec.tasks import read_originals_task

    col_types = [(n, t.to_string()) for n, t in table_columns]
    job_df = spark.createDataFrame(jobs, "path string, bucket int, start long").repartition(
        min(len(jobs), 64)
    )
    return job_df.mapInArrow(read_originals_task(fs_uri, col_types, out_schema), out_schema)


def scan_table(
    spark: SparkSession,
    fs: pafs.FileSystem,
    fs_uri: str,
    location: str,
    table_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
    *,
    files: ScanFiles | None = None,
) -> DataFrame:
    """Live rows of the snapshot: internal row-id columns ``__owid, __bucket, __rowid`` + table columns."""
    files = files or snapshot_files(fs, location, write_ids)
    data_footers = [read_footer(fs, p) for p in files.data_files]
    frames = [
        _insert_frame(spark, group, table_columns, write_ids) for group in _group_by_schema(data_footers).values()
    ]
    if files.original_files:
        orig_footers = [read_footer(fs, p) for p in files.original_files]
        # A file in an original's place that already holds ACID events (files copied in by hand, IMPALA-10115)
        # is read as events, recognised by its schema as Hive's OrcInputFormat.isOriginal does. Like any
        # original it belongs to no write id range, so all of its rows are visible (Impala's test expects it).
        event_footers = [f for f in orig_footers if f.num_rows and _is_event_file(f)]
        event_paths = {f.path for f in event_footers}
        frames += [
            _insert_frame(spark, group, table_columns, None)
            for group in _group_by_schema(event_footers).values()
        ]
        originals = [p for p in files.original_files if p not in event_paths]
        if originals:
            frames.append(_originals_frame(spark, fs_uri, orig_footers, originals, table_columns))
    if not frames:
        return spark.createDataFrame([], frame_schema(table_columns))
    data = union_all(frames)
    delete_footers = [read_footer(fs, p) for p in files.delete_files]
    delete_groups = list(_group_by_schema(delete_footers).values())
    if delete_groups:
        deletes = union_all([_delete_frame(spark, group, write_ids) for group in delete_groups])
        data = data.join(deletes, on=[OWID, BUCKET, ROWID], how="left_anti")
    return data


def with_row_id(df: DataFrame) -> DataFrame:
    """Add Hive's virtual ``row__id`` struct<writeid,bucketid,rowid> next to the internal columns."""
    return df.withColumn(
        ROW_ID,
        F.struct(
            F.col(OWID).alias("writeid"), F.col(BUCKET).alias("bucketid"), F.col(ROWID).alias("rowid")
        ),
    )


def user_columns(df: DataFrame, table_columns: Sequence[tuple[str, HiveType]], *, row_id: bool) -> DataFrame:
    """Only what a query may name: the table columns, plus ``row__id`` when asked for."""
    cols = [F.col(n) for n, _ in table_columns]
    if row_id:
        return with_row_id(df).select(F.col(ROW_ID), *cols)
    return df.select(*cols)
