"""Functions that run inside Spark tasks (through ``mapInArrow``) or, for statement-sized data, on the driver.

Each factory returns a plain ``Iterator[RecordBatch] -> Iterator[RecordBatch]`` function holding only
picklable values (strings, ints), so it ships to executors as is. Writers return one small stats row
per file written; no table data ever travels back to the driver.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import pyarrow as pa

STATS_SCHEMA = "directory string, path string, kind string, bucket_id int, rows long, key_index string"
_STATS_ARROW = pa.schema(
    [
        ("directory", pa.string()),
        ("path", pa.string()),
        ("kind", pa.string()),
        ("bucket_id", pa.int32()),
        ("rows", pa.int64()),
        ("key_index", pa.string()),
    ]
)

TaskFn = Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]


@dataclass(frozen=True)
class WriteTarget:
    """Where and how a statement writes: table location, column types, write id and statement id."""

    fs_uri: str
    location: str
    columns: tuple[tuple[str, str], ...]  # (name, Hive type string) in table order
    write_id: int
    statement_id: int
    insert_dir: str  # delta_W_W_SSSS or base_W
    delete_dir: str  # delete_delta_W_W_SSSS


def _partition_id() -> int:
    from pyspark import TaskContext

    ctx = TaskContext.get()
    return ctx.partitionId() if ctx is not None else 0


def _stats_batch(rows: list[dict]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist(rows, schema=_STATS_ARROW)


class _FileSink:
    """One open ``bucket_N`` event file, created on first event."""

    def __init__(self, target: WriteTarget, directory: str, bucket_id: int, kind: str) -> None:
        from hiveacid_sql.acid.hive_types import parse_hive_type
        from hiveacid_sql.acid.listing import filesystem_for
        from hiveacid_sql.acid.names import bucket_file_name
        from hiveacid_sql.acid.orc_writer import AcidEventWriter

        fs, root = filesystem_for(target.fs_uri)
        self.directory = directory
        self.kind = kind
        self.bucket_id = bucket_id
        dir_path = f"{target.location.rstrip('/')}/{directory}"
        fs.create_dir(dir_path, recursive=True)
        self.path = f"{dir_path}/{bucket_file_name(bucket_id)}"
        self._stream = fs.open_output_stream(self.path)
        columns = [(n, parse_hive_type(t)) for n, t in target.columns]
        self.writer = AcidEventWriter(self._stream, columns, path=self.path)

    def close(self) -> dict:
        stats = self.writer.close()
        self._stream.close()
        return {
            "directory": self.directory,
            "path": self.path,
            "kind": self.kind,
            "bucket_id": self.bucket_id,
            "rows": stats.rows,
            "key_index": stats.key_index,
        }


def insert_task(target: WriteTarget) -> TaskFn:
    """Write every row of the partition as insert events into ``<insert_dir>/bucket_<partition id>``.

    Un-bucketed tables get one file per writer task, as Hive's FileSinkOperator does; row ids run 0..n-1.
    """

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from hiveacid_sql.acid.codec import encode_bucket
        from hiveacid_sql.acid.hive_types import parse_hive_type
        from hiveacid_sql.acid.orc_writer import row_converter

        bucket_id = _partition_id()
        convert = row_converter([(n, parse_hive_type(t)) for n, t in target.columns])
        bucket = encode_bucket(bucket_id, target.statement_id)
        sink: _FileSink | None = None
        row_id = 0
        for batch in batches:
            for row in batch.to_pylist():
                if sink is None:
                    sink = _FileSink(target, target.insert_dir, bucket_id, "insert")
                sink.writer.insert(target.write_id, bucket, row_id, convert(row))
                row_id += 1
        if sink is not None:
            yield _stats_batch([sink.close()])

    return run


def split_update_task(target: WriteTarget, *, write_inserts: bool) -> TaskFn:
    """Delete events for old row ids and (for UPDATE) insert events for the new versions.

    Input rows are sorted by (bucket id, __owid, __bucket, __rowid). Each delete event goes to
    ``delete_delta/bucket_<bucket id of the deleted row>`` and the new version stays in that bucket
    (Hive's rule), in ``delta/bucket_<same id>`` with row ids 0..k-1 in old-row-id order.
    """

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from hiveacid_sql.acid.codec import decode_bucket_id, encode_bucket
        from hiveacid_sql.acid.hive_types import parse_hive_type
        from hiveacid_sql.acid.orc_writer import row_converter

        convert = row_converter([(n, parse_hive_type(t)) for n, t in target.columns])
        names = [n for n, _ in target.columns]
        current: int | None = None
        deletes: _FileSink | None = None
        inserts: _FileSink | None = None
        row_id = 0
        done: list[dict] = []
        for batch in batches:
            for row in batch.to_pylist():
                bucket_id = decode_bucket_id(row["__bucket"])
                if bucket_id != current:
                    for sink in (deletes, inserts):
                        if sink is not None:
                            done.append(sink.close())
                    current, row_id = bucket_id, 0
                    deletes = _FileSink(target, target.delete_dir, bucket_id, "delete")
                    inserts = _FileSink(target, target.insert_dir, bucket_id, "insert") if write_inserts else None
                deletes.writer.delete(row["__owid"], row["__bucket"], row["__rowid"], target.write_id)
                if inserts is not None:
                    values = convert({n: row[n] for n in names})
                    inserts.writer.insert(
                        target.write_id, encode_bucket(bucket_id, target.statement_id), row_id, values
                    )
                    row_id += 1
        for sink in (deletes, inserts):
            if sink is not None:
                done.append(sink.close())
        if done:
            yield _stats_batch(done)

    return run


def read_originals_task(fs_uri: str, columns: Sequence[tuple[str, str]], out_schema) -> TaskFn:
    """Read original (pre-ACID) ORC files by position and give each row Hive's synthetic row id."""
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_schema = to_arrow_schema(out_schema)
    col_names = [n for n, _ in columns]

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import numpy as np
        import pyarrow.orc as porc

        from hiveacid_sql.acid.listing import filesystem_for

        fs, _ = filesystem_for(fs_uri)
        for job in batches:
            for item in job.to_pylist():
                with fs.open_input_file(item["path"]) as f:
                    table = porc.ORCFile(f).read()
                n = table.num_rows
                start = item["start"]
                arrays = [
                    pa.repeat(pa.scalar(0, pa.int64()), n),
                    pa.repeat(pa.scalar(item["bucket"], pa.int32()), n),
                    pa.array(np.arange(start, start + n, dtype=np.int64)),
                ]
                for i, name in enumerate(col_names):
                    target_type = arrow_schema.field(name).type
                    if i < table.num_columns:
                        col = table.column(i)
                        if pa.types.is_timestamp(col.type):
                            col = col.cast(pa.timestamp("us"), safe=False)
                        arrays.append(col.cast(target_type, safe=False))
                    else:
                        arrays.append(pa.nulls(n, target_type))
                out = pa.Table.from_arrays(arrays, schema=arrow_schema)
                yield from out.to_batches()

    return run
