"""The Spark job of one compaction: read the inputs of a :class:`~hiveacid_sql.acid.compaction.CompactionPlan`,
write the output directories into a hidden build directory, then move them into place.

* Minor: every insert and delete event of the input deltas is kept, with its own ``ROW__ID`` and
  ``currentTransaction`` (history is not collapsed); events of aborted write ids are dropped. Two deletes of
  the same row by two transactions (Hive does not treat delete/delete as a conflict) keep the first one.
* Major: the live rows of the snapshot (at the compactor's write ids, deleted rows dropped), each written as an
  insert event with its ``ROW__ID``; original files' synthetic row ids are written out.

Both write one ``bucket_N`` file per bucket id found in the events' ``bucket`` property, events sorted by
``(originalTransaction, bucket, rowId)`` as Hive's readers require. A minor compaction shuffles its events by
output file and sorts them. A major one need not: its inputs are sorted runs (originals, the base, then each
delta in write id order, :func:`merge_inputs`), so one Python task per output file reads them one after the
other through ``pyarrow.fs``, drops the deleted rows and writes them as they come (:func:`merge_major_task`):
no shuffle, no sort, one Spark job; inputs not of that shape, or found out of order, go through the sort.

The files go to ``<dir>/_tmp_<uuid>/<output>/``; the driver adds ``_orc_acid_version`` (and ``_metadata_acid``
for a base) and only then renames each output into ``<dir>/`` (:func:`publish`). A job that dies leaves only
the hidden build directory, which no reader lists.

On an object store (no atomic rename: :func:`~hiveacid_sql.acid.listing.has_atomic_rename`) the worker builds
in the table's directory itself, under Hive 4's ``_v<txn>`` names, and no rename happens (``compactor/worker.py``).
Spark reaches such a store only through a Hadoop connector, so there the inputs are read in Python tasks through
``pyarrow.fs`` (:func:`read_inputs_task`, the Arrow reader's rules), as the outputs are written.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.fs as pafs
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from hiveacid_sql.acid.codec import BUCKET_ID_SHIFT, MAX_BUCKET_ID
from hiveacid_sql.acid.compaction import MAJOR, CompactionPlan
from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.listing import has_atomic_rename
from hiveacid_sql.acid.names import COMPACTED_METADATA, METADATA_FILE
from hiveacid_sql.acid.orc_footer import read_footer
from hiveacid_sql.acid.scan_files import is_event_file, original_slices
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.errors import CompactionError, ExecutionError
from hiveacid_sql.exec.columns import to_table_type
from hiveacid_sql.exec.events import bucket_id_of
from hiveacid_sql.exec.scan import (
    DirFiles,
    ScanFiles,
    event_kind,
    group_by_schema,
    join_path,
    read_events,
    scan_frame,
    union_all,
    valid_write_id,
)
from hiveacid_sql.exec.spark_types import spark_schema
from hiveacid_sql.exec.tasks import BUCKET, BUCKET_ID, OWID, ROWID, EventFile, TaskFn, write_runs
from hiveacid_sql.exec.write import write_version_file

if TYPE_CHECKING:
    from hiveacid_sql.acid.arrow_scan import DeleteSet

OUT_DIR, CWID, OPERATION = "__out_dir", "__cwid", "__operation"
#: Major compactions merge their sorted inputs (:func:`merge_inputs`) instead of shuffling and sorting them;
#: False: always the sort (a switch for tests and measurements).
MERGE_MAJOR = True
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
        df, row_fields = read_events(
            spark, group, where=lambda cols: event_kind(cols[0], op) & valid_write_id(cols[4], write_ids)
        )
        root = parse_hive_type(group[0].type_string)
        _op, c_owid, c_bucket, c_rowid, c_cwid, c_row = (name for name, _ in root.fields)
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


_INPUT_JOBS = "path string, kind string, bucket int, start long"
#: What an input task reads of a file (:func:`read_inputs_task`): ``insert`` / ``delete`` events valid in the
#: compactor's write ids (minor), ``live`` insert events less the deletes (major), an original-named file holding
#: events (all visible, less the deletes), an ``original`` file with its synthetic row ids.
INSERT, DELETE, LIVE, EVENT_ORIGINAL, ORIGINAL = "insert", "delete", "live", "event_original", "original"


def _input_schema(table_columns: Sequence[tuple[str, HiveType]]) -> T.StructType:
    return T.StructType(
        [
            T.StructField(OPERATION, T.IntegerType()),
            T.StructField(OWID, T.LongType()),
            T.StructField(BUCKET, T.IntegerType()),
            T.StructField(ROWID, T.LongType()),
            T.StructField(CWID, T.LongType()),
            *spark_schema(list(table_columns)).fields,
        ]
    )


class _TaskInputs:
    """What a compaction task reading its inputs through ``pyarrow.fs`` sets up once: the filesystem, the
    table's columns parsed, and the delete events of ``deletes``, loaded on first use (so a task that only
    copies insert or delete events never reads them) and then kept for the task's other inputs."""

    def __init__(
        self, fs_uri: str, columns: Sequence[tuple[str, str]], write_ids: ValidWriteIdList, deletes: Sequence[str]
    ) -> None:
        from hiveacid_sql.acid.listing import filesystem_for

        self.fs, _ = filesystem_for(fs_uri)
        self.table_columns = [(n, parse_hive_type(t)) for n, t in columns]
        self.names = [n for n, _ in self.table_columns]
        self._write_ids, self._deletes = write_ids, list(deletes)
        self._deleted: DeleteSet | None = None

    def deleted(self) -> DeleteSet | None:
        """The applicable delete events (None: there are none)."""
        if self._deletes and self._deleted is None:
            from hiveacid_sql.acid.arrow_scan import DeleteSet, compaction_events

            parts = [compaction_events(self.fs, p, self.table_columns, self._write_ids, delete=True) for p in self._deletes]
            self._deleted = DeleteSet(pa.concat_tables(parts))
        return self._deleted


def read_inputs_task(
    fs_uri: str,
    columns: Sequence[tuple[str, str]],
    write_ids: ValidWriteIdList,
    deletes: Sequence[str],
    out_schema: T.StructType,
) -> TaskFn:
    """Read compaction inputs through ``pyarrow.fs`` in a Python task (an object store Spark cannot read).

    Job rows: ``path``, ``kind`` (see :data:`INSERT` ..), ``bucket`` and ``start`` (an original's synthetic row
    ids). Output: ``__operation, __owid, __bucket, __rowid, __cwid`` and the table columns, as the Spark frames
    give them. A task that reads live rows loads the applicable delete events (``deletes``) once.
    """
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_schema = to_arrow_schema(out_schema)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from hiveacid_sql.acid.arrow_scan import anti_join_deletes, compaction_events, original_rows
        from hiveacid_sql.acid.scan_files import OriginalSlice

        inputs = _TaskInputs(fs_uri, columns, write_ids, deletes)
        fs, table_columns, names = inputs.fs, inputs.table_columns, inputs.names
        for job in batches:
            for item in job.to_pylist():
                kind, path = item["kind"], item["path"]
                deleted = inputs.deleted() if kind in (LIVE, EVENT_ORIGINAL, ORIGINAL) else None
                if kind == ORIGINAL:
                    rows = original_rows(fs, OriginalSlice(path, item["bucket"], item["start"], ""), table_columns)
                    rows = rows.append_column(CWID, rows.column(OWID))
                else:
                    valid = None if kind == EVENT_ORIGINAL else write_ids
                    rows = compaction_events(fs, path, table_columns, valid, delete=kind == DELETE)
                    if kind in (LIVE, EVENT_ORIGINAL):
                        # a compacted insert event is written by its own write id
                        rows = rows.set_column(rows.schema.get_field_index(CWID), CWID, rows.column(OWID))
                if deleted is not None:
                    rows = anti_join_deletes(rows, deleted)
                n = rows.num_rows
                op = pa.array([2 if kind == DELETE else 0] * n, pa.int32())
                data = [
                    rows.column(name) if name in rows.column_names else pa.nulls(n, arrow_schema.field(name).type)
                    for name in names
                ]
                keys = [rows.column(k) for k in (OWID, BUCKET, ROWID, CWID)]
                out = pa.Table.from_arrays([op, *keys, *data], names=arrow_schema.names).cast(arrow_schema)
                yield from out.to_batches()

    return run


def _tasks_frame(
    spark: SparkSession,
    fs_uri: str,
    jobs: Sequence[tuple[str, str, int, int]],
    table_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
    deletes: Sequence[str] = (),
) -> DataFrame:
    """The inputs ``jobs`` read by :func:`read_inputs_task` (one file or original slice a job row)."""
    schema = _input_schema(table_columns)
    columns = [(n, t.to_string()) for n, t in table_columns]
    job_df = spark.createDataFrame(list(jobs), _INPUT_JOBS).repartition(max(1, min(len(jobs), 64)))
    return job_df.mapInArrow(read_inputs_task(fs_uri, columns, write_ids, list(deletes), schema), schema)


def minor_frame(
    spark: SparkSession,
    fs: pafs.FileSystem,
    root: str,
    plan: CompactionPlan,
    table_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
    tasks_read: str | None = None,
) -> DataFrame:
    """Events a minor compaction writes, with ``__out_dir`` (output directory) and ``__bucket_id``.
    ``tasks_read``: the location's URI when Python tasks read the inputs (:func:`read_inputs_task`)."""
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
    if tasks_read:
        ins = _tasks_frame(spark, tasks_read, [(p, INSERT, 0, 0) for p in inserts], table_columns, write_ids) if inserts else None
        dels = _tasks_frame(spark, tasks_read, [(p, DELETE, 0, 0) for p in deletes], table_columns, write_ids) if deletes else None
    else:
        ins = _events_frame(spark, inserts, fs, table_columns, write_ids, 0) if inserts else None
        dels = _events_frame(spark, deletes, fs, table_columns, write_ids, 2) if deletes else None
    if ins is not None:
        frames.append(ins.withColumn(OUT_DIR, F.lit(plan.insert_dir)))
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
    tasks_read: str | None = None,
) -> DataFrame:
    """Live rows of the plan's inputs as insert events of ``base_N`` (row ids kept, originals' written out).
    ``tasks_read``: the location's URI when Python tasks read the inputs (:func:`read_inputs_task`)."""
    state = plan.state
    data = [join_path(root, f.path) for f in state.base_files] if state.base is not None else []
    for d in plan.deltas:
        data += [join_path(root, f.path) for f in state.delta_files.get(d.name, ())]
    deletes = [join_path(root, f.path) for d in plan.delete_deltas for f in state.delta_files.get(d.name, ())]
    originals = [join_path(root, f.path) for f in state.originals]
    dirs = DirFiles("", state, tuple(data), tuple(deletes), tuple(originals))
    if tasks_read:
        footers = [read_footer(fs, p) for p in originals]
        as_events = {f.path for f in footers if f.num_rows and is_event_file(f)}
        plain = {f.path: f.num_rows for f in footers if f.path not in as_events}
        jobs = [(p, LIVE, 0, 0) for p in data] + [(p, EVENT_ORIGINAL, 0, 0) for p in sorted(as_events)]
        jobs += [(o.path, ORIGINAL, o.bucket, o.start) for o in original_slices([dirs], plain)]
        live = (
            _tasks_frame(spark, tasks_read, jobs, table_columns, write_ids, deletes)
            if jobs
            else spark.createDataFrame([], _input_schema(table_columns))
        )
    else:
        live = scan_frame(spark, fs, root, list(table_columns), [], write_ids, ScanFiles((dirs,))).frame
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


# ------------------------------------------------------------------ major compaction as a merge of sorted runs
#: A merge task that found its inputs out of ``(originalTransaction, bucket, rowId)`` order says so with this
#: word; the job then runs again through the sort (:func:`run_compaction_job`).
_UNSORTED = "HIVEACID_MERGE_UNSORTED"


def merge_inputs(fs: pafs.FileSystem, root: str, plan: CompactionPlan) -> list[tuple[int, list[list]]] | None:
    """The inputs of a major compaction as sorted runs, per output ``bucket_N``: the originals of that bucket
    (synthetic row ids: originalTransaction 0, row ids counting up in Hive's file order), then the base's file,
    then each delta's file in write id and statement id order. Each file is sorted by ``(originalTransaction,
    bucket, rowId)``; a base holds write ids up to its own, a delta ``delta_N_M_S`` only ``N..M`` (its insert
    events are its own rows; a statement's id is in the bucket property), so the runs one after the other are
    already in the order the output needs: nothing to shuffle or sort. None when the inputs are not of that
    shape (plain files in base/delta directories, ACID files in originals' places, two files of one bucket in
    one directory, more delete events than a task should hold): the job then sorts."""
    from hiveacid_sql.acid.codec import decode_bucket_id
    from hiveacid_sql.acid.names import parse_bucket_file
    from hiveacid_sql.exec.scan import BROADCAST_DELETES_MAX_ROWS

    state = plan.state
    dirs = ([state.base_files] if state.base is not None else []) + [state.delta_files.get(d.name, ()) for d in plan.deltas]
    delete_paths = [join_path(root, f.path) for d in plan.delete_deltas for f in state.delta_files.get(d.name, ())]
    if sum(read_footer(fs, p).num_rows for p in delete_paths) > BROADCAST_DELETES_MAX_ROWS:
        return None
    groups: dict[int, list[list]] = {}
    originals = [join_path(root, f.path) for f in state.originals]
    footers = [read_footer(fs, p) for p in originals]
    if any(f.num_rows and is_event_file(f) for f in footers):
        return None
    plain = {f.path: f.num_rows for f in footers}
    for piece in original_slices([DirFiles("", state, (), (), tuple(originals))], plain):
        groups.setdefault(decode_bucket_id(piece.bucket), []).append([piece.path, ORIGINAL, piece.bucket, piece.start])
    for files in dirs:
        seen: set[int] = set()
        for f in files:
            path = join_path(root, f.path)
            bucket_id = parse_bucket_file(path.rsplit("/", 1)[-1])
            footer = read_footer(fs, path)
            if bucket_id is None or bucket_id in seen or (footer.num_rows and not is_event_file(footer)):
                return None
            seen.add(bucket_id)
            if footer.num_rows:
                groups.setdefault(bucket_id, []).append([path, LIVE, 0, 0])
    return sorted(groups.items())


def _sorted_after(keys: tuple[np.ndarray, np.ndarray, np.ndarray], last: tuple[int, int, int] | None) -> bool:
    """Whether the rows' ``(originalTransaction, bucket, rowId)`` rise strictly, and start above ``last``."""
    owid, bucket, rowid = keys
    if last is not None and owid.size and (int(owid[0]), int(bucket[0]), int(rowid[0])) <= last:
        return False
    same_o = owid[1:] == owid[:-1]
    same_b = bucket[1:] == bucket[:-1]
    rises = (owid[1:] > owid[:-1]) | (same_o & ((bucket[1:] > bucket[:-1]) | (same_b & (rowid[1:] > rowid[:-1]))))
    return bool(np.all(rises))


def merge_major_task(
    fs_uri: str,
    build_dir: str,
    insert_dir: str,
    columns: Sequence[tuple[str, str]],
    write_ids: ValidWriteIdList,
    deletes: Sequence[str],
    out_schema: T.StructType,
    tasks: Sequence[Sequence[tuple[int, list[list]]]],
) -> TaskFn:
    """Write the ``bucket_N`` files of a major compaction: the task reading row ``i`` of ``spark.range`` writes
    ``tasks[i]``'s outputs (a bucket id and its inputs, :func:`merge_inputs`), each by reading its inputs one
    after the other through ``pyarrow.fs`` (the Arrow reader's rules, as :func:`read_inputs_task`), less the
    deletes, straight into the file: no shuffle, no sort. Each run is checked as it goes by: a row out of
    order fails the task with :data:`_UNSORTED` (nothing half-written is left under a final name)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_schema = to_arrow_schema(out_schema)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from hiveacid_sql.acid.arrow_scan import anti_join_deletes, compaction_events, original_rows
        from hiveacid_sql.acid.scan_files import OriginalSlice

        inputs = _TaskInputs(fs_uri, columns, write_ids, deletes)
        fs, table_columns, names = inputs.fs, inputs.table_columns, inputs.names
        done = []
        for batch in batches:
            for bucket_id, group in (out for i in batch.column(0).to_pylist() for out in tasks[i]):
                deleted = inputs.deleted()
                out_file: _CompactedFile | None = None
                last: tuple[int, int, int] | None = None
                try:
                    for path, kind, bucket, start in group:
                        if kind == ORIGINAL:
                            rows = original_rows(fs, OriginalSlice(path, bucket, start, ""), table_columns)
                        else:
                            rows = compaction_events(fs, path, table_columns, write_ids, delete=False)
                        if deleted is not None:
                            rows = anti_join_deletes(rows, deleted)
                        if not rows.num_rows:
                            continue
                        keys = tuple(rows.column(k).to_numpy() for k in (OWID, BUCKET, ROWID))
                        ids = (keys[1].astype(np.int64) >> BUCKET_ID_SHIFT) & MAX_BUCKET_ID
                        if not _sorted_after(keys, last) or bool(np.any(ids != bucket_id)):
                            raise CompactionError(f"{_UNSORTED}: {path} is not in row id order after the files before it")
                        last = (int(keys[0][-1]), int(keys[1][-1]), int(keys[2][-1]))
                        n = rows.num_rows
                        data = [rows.column(name) if name in rows.column_names else pa.nulls(n) for name in names]
                        owid = rows.column(OWID)
                        events = pa.Table.from_arrays(
                            [pa.array(np.zeros(n, np.int32)), owid, rows.column(BUCKET), rows.column(ROWID), owid, *data],
                            names=arrow_schema.names,
                        ).cast(arrow_schema)
                        if out_file is None:
                            out_file = _CompactedFile((insert_dir, bucket_id), fs_uri, build_dir, columns)
                        for batch in events.to_batches():
                            out_file.write(_compacted_events(batch, names))
                    if out_file is not None:
                        done.append(out_file.close())
                        out_file = None
                finally:
                    if out_file is not None:
                        out_file.abandon()
        if done:
            yield pa.RecordBatch.from_pylist(done, schema=_STATS_ARROW)

    return run


def _merge_major(
    spark: SparkSession,
    fs: pafs.FileSystem,
    fs_uri: str,
    root: str,
    build_dir: str,
    plan: CompactionPlan,
    table_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
) -> list | None:
    """A major compaction's outputs written by :func:`merge_major_task`: one output ``bucket_N`` per bucket id of
    the inputs (an un-bucketed table's writer ids included, as Hive's compactor groups them), dealt out in turn
    to at most ``spark.sql.shuffle.partitions`` tasks, one ``spark.range`` row and partition each: no shuffle,
    and a table written by two writers is compacted by two tasks at once. None when its inputs are not sorted
    runs (:func:`merge_inputs`) or a task found them out of order (its outputs removed): the caller then
    sorts."""
    groups = merge_inputs(fs, root, plan)
    if groups is None:
        return None
    deletes = [join_path(root, f.path) for d in plan.delete_deltas for f in plan.state.delta_files.get(d.name, ())]
    columns = [(n, t.to_string()) for n, t in table_columns]
    width = max(1, min(len(groups), int(spark.conf.get("spark.sql.shuffle.partitions") or 1)))
    tasks = [groups[i::width] for i in range(width)]
    task = merge_major_task(
        fs_uri, build_dir, plan.insert_dir, columns, write_ids, deletes, _input_schema(table_columns), tasks
    )
    try:
        return spark.range(0, width, 1, width).mapInArrow(task, _STATS).collect()
    except Exception as exc:
        if _UNSORTED not in str(exc):
            raise
        with contextlib.suppress(FileNotFoundError, OSError):
            fs.delete_dir(f"{build_dir}/{plan.insert_dir}")
        return None


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
    stats = (
        _merge_major(spark, fs, fs_uri, root, build_dir, plan, table_columns, write_ids)
        if plan.kind == MAJOR and MERGE_MAJOR
        else None
    )
    if stats is None:
        stats = _sort_and_write(spark, fs, fs_uri, root, build_dir, plan, table_columns, write_ids)
    outputs = [plan.insert_dir] + ([plan.delete_dir] if plan.delete_dir else [])
    for name in outputs:
        write_version_file(fs, f"{build_dir}/{name}")
    if plan.kind == MAJOR:
        with fs.open_output_stream(f"{build_dir}/{plan.insert_dir}/{METADATA_FILE}") as out:
            out.write(COMPACTED_METADATA)
    return [r.asDict() for r in stats]


def _sort_and_write(
    spark: SparkSession,
    fs: pafs.FileSystem,
    fs_uri: str,
    root: str,
    build_dir: str,
    plan: CompactionPlan,
    table_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
) -> list:
    """The outputs through a shuffle by output file and a sort by row id (minor compactions, and major ones
    whose inputs are not sorted runs)."""
    make = major_frame if plan.kind == MAJOR else minor_frame
    # an object store: Spark reaches it only through a Hadoop connector, pyarrow.fs directly
    tasks_read = None if has_atomic_rename(fs) else fs_uri
    events = make(spark, fs, root, plan, table_columns, write_ids, tasks_read)
    width = max(1, int(spark.conf.get("spark.sql.shuffle.partitions") or 1))
    prepared = events.repartition(width, F.col(OUT_DIR), F.col(BUCKET_ID)).sortWithinPartitions(
        OUT_DIR, BUCKET_ID, OWID, BUCKET, ROWID
    )
    columns = [(n, t.to_string()) for n, t in table_columns]
    return prepared.mapInArrow(write_compacted_task(fs_uri, build_dir, columns), _STATS).collect()


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
