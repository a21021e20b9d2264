"""Functions that run inside Spark tasks (through ``mapInArrow``) or, for statement-sized data, on the driver.

Each factory returns a plain ``Iterator[RecordBatch] -> Iterator[RecordBatch]`` function holding only
picklable values (strings, ints), so it ships to executors as is. Writers return one small stats row
per file written; no table data ever travels back to the driver.

The writer consumes an *event frame* (see :mod:`hiveacid_sql.exec.events`): one row per ACID event with
``__op`` (0 insert, 2 delete), ``__stmt`` (statement id), ``__part_dir`` (the partition directory relative
to the table, '' when unpartitioned), ``__bucket_id``, the row id of the deleted (or updated) row and the
table's data columns. Rows arrive grouped by ``(__op, __stmt, __part_dir, __bucket_id)``; every group is
one ``bucket_N`` file in ``<part_dir>/<delta|delete_delta|base dir>/``.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

import pyarrow as pa

from hiveacid_sql.plan.columns import BUCKET, BUCKET_ID, OP, OWID, PART_DIR, ROWID, STMT

STATS_SCHEMA = (
    "partition string, directory string, path string, kind string, bucket_id int, statement_id int, rows long"
)
_STATS_ARROW = pa.schema(
    [
        ("partition", pa.string()),
        ("directory", pa.string()),
        ("path", pa.string()),
        ("kind", pa.string()),
        ("bucket_id", pa.int32()),
        ("statement_id", pa.int32()),
        ("rows", pa.int64()),
    ]
)

GROUP_KEYS = (OP, STMT, PART_DIR, BUCKET_ID)
#: Bucket id of a fresh insert into an un-bucketed table before it is given one (the writer's task id).
UNASSIGNED_BUCKET = -1
OP_INSERT, OP_DELETE = 0, 2

TaskFn = Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]


@dataclass(frozen=True)
class TableSink:
    """Where and how one statement writes one table: location, data columns, write id.

    ``overwrite`` sends insert events to ``base_W`` (INSERT OVERWRITE) instead of ``delta_W_W_S``.
    """

    fs_uri: str
    location: str
    columns: tuple[tuple[str, str], ...]  # (name, Hive type string) in table order, partition columns excluded
    write_id: int
    overwrite: bool = False
    partitioned: bool = False
    compression: str = "zlib"  # the table's orc.compress

    def directory(self, op: int, statement_id: int) -> str:
        """The ACID directory name events of ``op`` from statement ``statement_id`` go to."""
        from hiveacid_sql.acid.names import base_dir_name, delete_delta_dir_name, delta_dir_name

        w = self.write_id
        if op == OP_DELETE:
            return delete_delta_dir_name(w, w, statement_id)
        return base_dir_name(w) if self.overwrite else delta_dir_name(w, w, statement_id)


def _partition_id() -> int:
    from pyspark import TaskContext

    ctx = TaskContext.get()
    return ctx.partitionId() if ctx is not None else 0


class EventFile:
    """One open ``bucket_N`` event file of one group of the writer loop: its directory created, the ACID
    event writer on an output stream. :meth:`finish` closes both; :meth:`abandon` (a failure mid-file) only
    closes the stream, leaving nothing half-open.

    The file is written under a hidden name (``_tmp_bucket_N_<id>``, which no listing reads) and renamed to
    ``bucket_N`` only once complete: a task killed mid-file (OOM, SIGKILL) leaves no half-written or 0-byte
    ``bucket_N`` behind for a reader or a compaction to trip over.
    """

    def __init__(
        self, key: tuple, fs_uri: str, dir_path: str, bucket_id: int, columns: Sequence[tuple[str, str]], compression: str
    ) -> None:
        from hiveacid_sql.acid.hive_types import parse_hive_type
        from hiveacid_sql.acid.listing import filesystem_for
        from hiveacid_sql.acid.names import bucket_file_name
        from hiveacid_sql.acid.orc_fast_writer import open_event_writer

        fs, _root = filesystem_for(fs_uri)
        fs.create_dir(dir_path, recursive=True)
        self.key = key
        self._fs = fs
        self.path = f"{dir_path}/{bucket_file_name(bucket_id)}"
        self._partial = f"{dir_path}/_tmp_{bucket_file_name(bucket_id)}_{uuid.uuid4().hex[:12]}"
        self._stream = fs.open_output_stream(self._partial)
        hive_columns = [(n, parse_hive_type(t)) for n, t in columns]
        self.writer = open_event_writer(self._stream, hive_columns, compression=compression, path=self.path)
        self.next_row_id = 0
        self.rows = 0

    def write(self, events: pa.Table) -> None:
        self.writer.write_batch(events)
        self.rows += events.num_rows

    def finish(self) -> int:
        """Close the file; the number of events written."""
        rows = self.writer.close().rows
        self._stream.close()
        self._fs.move(self._partial, self.path)
        return rows

    def abandon(self) -> None:
        self._stream.close()
        with contextlib.suppress(OSError):
            self._fs.delete_file(self._partial)

    def close(self) -> dict:
        """Finish the file and give its row of the task's statistics."""
        raise NotImplementedError


class _FileSink(EventFile):
    """A DML writer task's file: group ``(op, stmt, part_dir, bucket_id)`` under the table's directory."""

    def __init__(self, sink: TableSink, key: tuple[int, int, str, int]) -> None:
        op, stmt, part_dir, bucket_id = key
        self.partition = part_dir
        name = sink.directory(op, stmt)
        self.directory = f"{part_dir}/{name}" if part_dir else name
        super().__init__(
            key, sink.fs_uri, f"{sink.location.rstrip('/')}/{self.directory}", bucket_id, sink.columns, sink.compression
        )

    def close(self) -> dict:
        rows = self.finish()
        op, stmt, _part, bucket_id = self.key
        return {
            "partition": self.partition,
            "directory": self.directory,
            "path": self.path,
            "kind": "delete" if op == OP_DELETE else "insert",
            "bucket_id": bucket_id,
            "statement_id": stmt,
            "rows": rows,
        }


EventFileT = TypeVar("EventFileT", bound=EventFile)


def write_runs(
    batches: Iterator[pa.RecordBatch],
    keys: Sequence[str],
    open_file: Callable[[tuple], EventFileT],
    events: Callable[[EventFileT, pa.RecordBatch], pa.Table],
    prepare: Callable[[pa.RecordBatch], pa.RecordBatch] | None = None,
) -> list[dict]:
    """The one writer loop of DML and compaction tasks: rows arrive grouped by ``keys``; each run of equal
    keys goes to the file of its group (opened on the group's first row, closed when the next group
    starts), as the six ACID columns ``events`` assembles. Returns each file's statistics row."""
    current: EventFileT | None = None
    done: list[dict] = []
    try:
        for batch in batches:
            if batch.num_rows == 0:
                continue
            if prepare is not None:
                batch = prepare(batch)
            for start, stop in runs(batch, keys):
                rows = batch.slice(start, stop - start)
                key = tuple(rows.column(k)[0].as_py() for k in keys)
                if current is None or current.key != key:
                    if current is not None:
                        done.append(current.close())
                    current = open_file(key)
                current.write(events(current, rows))
        if current is not None:
            done.append(current.close())
            current = None
    finally:
        if current is not None:  # a failure mid-file: leave nothing half-open
            current.abandon()
    return done


def runs(batch: pa.RecordBatch, keys: Sequence[str] = GROUP_KEYS) -> list[tuple[int, int]]:
    """``(start, stop)`` of the runs of equal ``keys`` in a batch (rows arrive grouped)."""
    import numpy as np
    import pyarrow.compute as pc

    n = batch.num_rows
    if n == 0:
        return []
    change = np.zeros(n - 1, dtype=bool)
    for key in keys:
        col = batch.column(key)
        left, right = col.slice(0, n - 1), col.slice(1)
        differs = pc.not_equal(left, right)
        # NULL keys never occur (the event frame fills every key), so a null comparison means "equal".
        change |= np.asarray(differs.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
    starts = [0, *(np.flatnonzero(change) + 1).tolist()]
    return list(zip(starts, [*starts[1:], n], strict=True))


def _events(sink: TableSink, file: _FileSink, rows: pa.RecordBatch, data_names: Sequence[str]) -> pa.Table:
    """The six ACID columns for one run of rows of one group."""
    import numpy as np

    from hiveacid_sql.acid.codec import encode_bucket

    op, stmt, _part, bucket_id = file.key
    n = rows.num_rows
    w = sink.write_id
    if op == OP_DELETE:
        owid, bucket, rowid = rows.column(OWID), rows.column(BUCKET), rows.column(ROWID)
        data = rows.select(list(data_names))
        row = pa.nulls(n, pa.struct(data.schema))
    else:
        owid = pa.array(np.full(n, w, dtype=np.int64))
        bucket = pa.array(np.full(n, encode_bucket(bucket_id, stmt), dtype=np.int32))
        rowid = pa.array(np.arange(file.next_row_id, file.next_row_id + n, dtype=np.int64))
        file.next_row_id += n
        data = rows.select(list(data_names))
        row = pa.StructArray.from_arrays(data.columns, fields=list(data.schema))
    return pa.Table.from_arrays(
        [
            pa.array(np.full(n, op, dtype=np.int32)),
            owid,
            bucket,
            rowid,
            pa.array(np.full(n, w, dtype=np.int64)),
            row,
        ],
        names=["operation", "originalTransaction", "bucket", "rowId", "currentTransaction", "row"],
    )


def write_events_task(sink: TableSink) -> TaskFn:
    """Write an event frame's rows (grouped by ``(__op, __stmt, __part_dir, __bucket_id)``) as ACID files.

    Insert events get row ids 0..n-1 per file in arrival order; delete events keep the deleted row's id.
    A bucket id of -1 (a fresh insert into an un-bucketed table) becomes this task's partition id, as Hive's
    FileSinkOperator names un-bucketed files after the writer task.
    """
    data_names = [n for n, _ in sink.columns]

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow.compute as pc

        task_bucket: int | None = None

        def assign_task_bucket(batch: pa.RecordBatch) -> pa.RecordBatch:
            nonlocal task_bucket
            buckets = batch.column(BUCKET_ID)
            if not pc.any(pc.equal(buckets, UNASSIGNED_BUCKET)).as_py():
                return batch
            task_bucket = _partition_id() if task_bucket is None else task_bucket
            fixed = pc.if_else(pc.equal(buckets, UNASSIGNED_BUCKET), task_bucket, buckets)
            return batch.set_column(batch.schema.get_field_index(BUCKET_ID), BUCKET_ID, fixed)

        done = write_runs(
            batches,
            GROUP_KEYS,
            lambda key: _FileSink(sink, key),
            lambda file, rows: _events(sink, file, rows, data_names),
            prepare=assign_task_bucket,
        )
        if done:
            yield pa.RecordBatch.from_pylist(done, schema=_STATS_ARROW)

    return run


def read_originals_task(fs_uri: str, columns: Sequence[tuple[str, str]], out_schema) -> TaskFn:
    """Read original (pre-ACID) ORC files by position and give each row Hive's synthetic row id
    (:func:`hiveacid_sql.acid.arrow_scan.original_rows`, which the Arrow reader uses too).

    Job rows: ``path``, ``bucket`` (encoded bucket property), ``start`` (row id of the file's first row) and
    ``part_dir`` (the partition directory the file belongs to), passed through to the output.
    """
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_schema = to_arrow_schema(out_schema)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from hiveacid_sql.acid.arrow_scan import original_rows
        from hiveacid_sql.acid.hive_types import parse_hive_type
        from hiveacid_sql.acid.listing import filesystem_for
        from hiveacid_sql.acid.scan_files import OriginalSlice

        fs, _ = filesystem_for(fs_uri)
        table_columns = [(n, parse_hive_type(t)) for n, t in columns]
        for job in batches:
            for item in job.to_pylist():
                piece = OriginalSlice(item["path"], item["bucket"], item["start"], item["part_dir"], item["write_id"])
                rows = original_rows(fs, piece, table_columns)
                part_dir = pa.repeat(pa.scalar(piece.part_dir, pa.string()), rows.num_rows)
                out = pa.Table.from_arrays([part_dir, *rows.columns], names=arrow_schema.names).cast(arrow_schema)
                yield from out.to_batches()

    return run
