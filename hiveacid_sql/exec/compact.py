"""The Spark job of one compaction: read the inputs of a :class:`~hiveacid_sql.acid.compaction.CompactionPlan`,
write the output directories into a hidden build directory, then move them into place.

* Minor: every insert and delete event of the input deltas is kept, with its own ``ROW__ID`` and
  ``currentTransaction`` (history is not collapsed); events of aborted write ids are dropped. Two deletes of
  the same row by two transactions (Hive does not treat delete/delete as a conflict) keep the first one.
* Major: the live rows of the snapshot (the normal scan at the compactor's write ids: deleted rows dropped),
  each written as an insert event with its ``ROW__ID``; original files' synthetic row ids are written out.

Both write one ``bucket_N`` file per bucket id found in the events' ``bucket`` property, events sorted by
``(originalTransaction, bucket, rowId)`` as Hive's readers require. The files go to
``<dir>/_tmp_<uuid>/<output>/``; the driver adds ``_orc_acid_version`` (and ``_metadata_acid`` for a base)
and only then renames each output into ``<dir>/`` (:func:`publish`). A job that dies leaves only the hidden
build directory, which no reader lists.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import pyarrow as pa
import pyarrow.fs as pafs
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from hiveacid_sql.acid.compaction import MAJOR, CompactionPlan
from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.names import COMPACTED_METADATA, METADATA_FILE
from hiveacid_sql.acid.orc_footer import read_footer
from hiveacid_sql.acid.scan_files import is_event_file
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.errors import CompactionError, ExecutionError
from hiveacid_sql.exec.columns import to_table_type
from hiveacid_sql.exec.events import bucket_id_of
from hiveacid_sql.exec.scan import (
    DirFiles,
    ScanFiles,
    group_by_schema,
    join_path,
    read_events,
    scan_table,
    union_all,
    valid_write_id,
)
from hiveacid_sql.exec.spark_types import spark_schema
from hiveacid_sql.exec.tasks import BUCKET, BUCKET_ID, OWID, ROWID, EventFile, TaskFn, write_runs
from hiveacid_sql.exec.write import write_version_file

OUT_DIR, CWID, OPERATION = "__out_dir", "__cwid", "__operation"
_STATS = "directory string, bucket_id int, rows long"
_STATS_ARROW = pa.schema([("directory", pa.string()), ("bucket_id", pa.int32()), ("rows", pa.int64())])


def _events_frame(
    spark: SparkSession,
    paths: Sequence[str],
    fs: pafs.FileSystem,
    table_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
    op: int,
) -> DataFrame | None:
    """Every valid event of kind ``op`` in ``paths``: op, the row id, currentTransaction and the data columns
    (converted to the table's types; NULL for delete events)."""
    footers = [read_footer(fs, p) for p in paths]
    frames = []
    for group in group_by_schema(footers).values():
        df, row_fields = read_events(spark, group, [])
        root = parse_hive_type(group[0].type_string)
        c_op, c_owid, c_bucket, c_rowid, c_cwid, c_row = (name for name, _ in root.fields)
        df = df.where((F.col(c_op) == op) & valid_write_id(F.col(c_cwid), write_ids))
        out: list[Column] = [
            F.lit(op).cast("int").alias(OPERATION),
            F.col(c_owid).alias(OWID),
            F.col(c_bucket).alias(BUCKET),
            F.col(c_rowid).alias(ROWID),
            F.col(c_cwid).alias(CWID),
        ]
        for i, (name, htype) in enumerate(table_columns):
            target = spark_schema([(name, htype)]).fields[0].dataType
            if op != 0 or i >= len(row_fields):
                out.append(F.lit(None).cast(target).alias(name))
            else:
                phys_name, phys_type = row_fields[i]
                value = F.col(c_row).getField(phys_name)
                out.append(to_table_type(value, phys_type, htype, dates_as_text=group[0].pre_gregorian).alias(name))
        frames.append(df.select(*out))
    return union_all(frames) if frames else None


def minor_frame(
    spark: SparkSession,
    fs: pafs.FileSystem,
    root: str,
    plan: CompactionPlan,
    table_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
) -> DataFrame:
    """Events a minor compaction writes, with ``__out_dir`` (output directory) and ``__bucket_id``."""
    files = plan.state.delta_files
    inserts = [join_path(root, f.path) for d in plan.deltas for f in files.get(d.name, ())]
    raw = [p for p in inserts if (f := read_footer(fs, p)).num_rows and not is_event_file(f)]
    if raw:  # an insert-only table converted to full ACID: its plain deltas are merged by a major compaction
        raise CompactionError(
            f"Minor compaction cannot merge plain (insert-only) delta files such as {raw[0]}: "
            "compact the table with ALTER TABLE .. COMPACT 'major'"
        )
    deletes = [join_path(root, f.path) for d in plan.delete_deltas for f in files.get(d.name, ())]
    frames = []
    ins = _events_frame(spark, inserts, fs, table_columns, write_ids, 0) if inserts else None
    if ins is not None:
        frames.append(ins.withColumn(OUT_DIR, F.lit(plan.insert_dir)))
    dels = _events_frame(spark, deletes, fs, table_columns, write_ids, 2) if deletes else None
    if dels is not None:
        # One delete event per row id: the first transaction's (delete/delete is no write conflict in Hive).
        first = dels.groupBy(OWID, BUCKET, ROWID).agg(F.min(CWID).alias(CWID))
        nulls = [F.lit(None).cast(f.dataType).alias(f.name) for f in spark_schema(list(table_columns)).fields]
        dels = first.select(F.lit(2).cast("int").alias(OPERATION), OWID, BUCKET, ROWID, CWID, *nulls)
        frames.append(dels.withColumn(OUT_DIR, F.lit(plan.delete_dir)))
    if not frames:
        return _empty(spark, table_columns)
    return union_all(frames).withColumn(BUCKET_ID, bucket_id_of(F.col(BUCKET)))


def major_frame(
    spark: SparkSession,
    fs: pafs.FileSystem,
    root: str,
    plan: CompactionPlan,
    table_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
) -> DataFrame:
    """Live rows of the plan's inputs as insert events of ``base_N`` (row ids kept, originals' written out)."""
    state = plan.state
    data = [join_path(root, f.path) for f in state.base_files] if state.base is not None else []
    for d in plan.deltas:
        data += [join_path(root, f.path) for f in state.delta_files.get(d.name, ())]
    deletes = [join_path(root, f.path) for d in plan.delete_deltas for f in state.delta_files.get(d.name, ())]
    originals = [join_path(root, f.path) for f in state.originals]
    files = ScanFiles((DirFiles("", state, tuple(data), tuple(deletes), tuple(originals)),))
    live = scan_table(spark, fs, root, list(table_columns), [], write_ids, files)
    names = [n for n, _ in table_columns]
    return live.select(
        F.lit(0).cast("int").alias(OPERATION),
        F.col(OWID),
        F.col(BUCKET),
        F.col(ROWID),
        F.col(OWID).alias(CWID),  # an insert event is written by its own write id
        *[F.col(n) for n in names],
        F.lit(plan.insert_dir).alias(OUT_DIR),
        bucket_id_of(F.col(BUCKET)).alias(BUCKET_ID),
    )


def _empty(spark: SparkSession, table_columns: Sequence[tuple[str, HiveType]]) -> DataFrame:
    schema = T.StructType(
        [
            T.StructField(OPERATION, T.IntegerType()),
            T.StructField(OWID, T.LongType()),
            T.StructField(BUCKET, T.IntegerType()),
            T.StructField(ROWID, T.LongType()),
            T.StructField(CWID, T.LongType()),
            *spark_schema(list(table_columns)).fields,
            T.StructField(OUT_DIR, T.StringType()),
            T.StructField(BUCKET_ID, T.IntegerType()),
        ]
    )
    return spark.createDataFrame([], schema)


class _CompactedFile(EventFile):
    """A compaction task's file: group ``(out_dir, bucket_id)`` under the build directory."""

    def __init__(self, key: tuple[str, int], fs_uri: str, build_dir: str, columns: Sequence[tuple[str, str]]) -> None:
        super().__init__(key, fs_uri, f"{build_dir.rstrip('/')}/{key[0]}", int(key[1]), columns, "zlib")

    def close(self) -> dict:
        self.finish()
        return {"directory": self.key[0], "bucket_id": self.key[1], "rows": self.rows}


def _compacted_events(part: pa.RecordBatch, data_names: Sequence[str]) -> pa.Table:
    """Events kept by the compaction as the six ACID columns (a run shares its operation)."""
    data = part.select(data_names)
    if int(part.column(OPERATION)[0].as_py()) == 0:
        row = pa.StructArray.from_arrays(data.columns, fields=list(data.schema))
    else:
        row = pa.nulls(part.num_rows, pa.struct(data.schema))
    return pa.Table.from_arrays(
        [
            part.column(OPERATION).cast(pa.int32()),
            part.column(OWID).cast(pa.int64()),
            part.column(BUCKET).cast(pa.int32()),
            part.column(ROWID).cast(pa.int64()),
            part.column(CWID).cast(pa.int64()),
            row,
        ],
        names=["operation", "originalTransaction", "bucket", "rowId", "currentTransaction", "row"],
    )


def write_compacted_task(fs_uri: str, build_dir: str, columns: Sequence[tuple[str, str]]) -> TaskFn:
    """Write events grouped by ``(__out_dir, __bucket_id)`` and sorted by row id as ``<build>/<out>/bucket_N``
    (the writer loop of DML tasks, :func:`~hiveacid_sql.exec.tasks.write_runs`)."""
    data_names = [n for n, _ in columns]

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        done = write_runs(
            batches,
            (OUT_DIR, BUCKET_ID),
            lambda key: _CompactedFile(key, fs_uri, build_dir, columns),
            lambda _file, part: _compacted_events(part, data_names),
        )
        if done:
            yield pa.RecordBatch.from_pylist(done, schema=_STATS_ARROW)

    return run


def run_compaction_job(
    spark: SparkSession,
    fs: pafs.FileSystem,
    fs_uri: str,
    root: str,
    build_dir: str,
    plan: CompactionPlan,
    table_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
) -> list[dict]:
    """Write the plan's outputs under ``build_dir`` (absolute) with Spark; returns one record per file.

    Every output directory exists afterwards, with ``_orc_acid_version``; a base also gets ``_metadata_acid``
    (compacted), so an empty result still hides what it replaces.
    """
    make = major_frame if plan.kind == MAJOR else minor_frame
    events = make(spark, fs, root, plan, table_columns, write_ids)
    width = max(1, int(spark.conf.get("spark.sql.shuffle.partitions") or 1))
    prepared = events.repartition(width, F.col(OUT_DIR), F.col(BUCKET_ID)).sortWithinPartitions(
        OUT_DIR, BUCKET_ID, OWID, BUCKET, ROWID
    )
    columns = [(n, t.to_string()) for n, t in table_columns]
    stats = prepared.mapInArrow(write_compacted_task(fs_uri, build_dir, columns), _STATS).collect()
    outputs = [plan.insert_dir] + ([plan.delete_dir] if plan.delete_dir else [])
    for name in outputs:
        write_version_file(fs, f"{build_dir}/{name}")
    if plan.kind == MAJOR:
        with fs.open_output_stream(f"{build_dir}/{plan.insert_dir}/{METADATA_FILE}") as out:
            out.write(COMPACTED_METADATA)
    return [r.asDict() for r in stats]


def publish(fs: pafs.FileSystem, root: str, build_dir: str, names: Sequence[str]) -> list[str]:
    """Rename each built output from ``build_dir`` into ``root`` (skipping one already moved by an earlier,
    interrupted attempt), then remove the build directory. Returns the names moved now."""
    moved = []
    for name in names:
        src, dst = f"{build_dir}/{name}", f"{root.rstrip('/')}/{name}"
        if fs.get_file_info(src).type == pafs.FileType.NotFound:
            if fs.get_file_info(dst).type == pafs.FileType.Directory:
                continue  # moved by the interrupted attempt
            raise ExecutionError(f"compaction output {name} is missing from {build_dir}")
        if fs.get_file_info(dst).type != pafs.FileType.NotFound:
            raise ExecutionError(f"compaction output {dst} already exists")
        fs.move(src, dst)
        moved.append(name)
    with contextlib.suppress(FileNotFoundError, OSError):
        fs.delete_dir(build_dir)
    return moved


def remove_build_dir(fs: pafs.FileSystem, build_dir: str) -> None:
    """Drop a build directory of a failed attempt (nothing in it is visible to readers)."""
    with contextlib.suppress(FileNotFoundError, OSError):
        fs.delete_dir(build_dir)
