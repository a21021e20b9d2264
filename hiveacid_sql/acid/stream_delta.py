"""The files of one streaming transaction batch in one partition: ``delta_<first>_<last>/bucket_N``.

Hive's streaming writer (``HiveStreamingConnection`` / ``AbstractRecordWriter``, format ref §1.3) gives a
transaction batch write ids ``first..last`` and writes every transaction of the batch into one
``delta_<first>_<last>`` directory per partition (no statement suffix), one ``bucket_N`` file per bucket,
each insert event tagged with its own write id (originalTransaction = currentTransaction = the write id,
row ids from 0 per write id and file, bucket property ``encode(N, 0)``). Readers keep the rows of valid
write ids only (format ref §6.1), so rows of open or aborted transactions in the file are never read.

How rows of a committed transaction become readable while the batch is still open: Hive keeps the ORC
file open, writes an intermediate footer at each commit and records its length in the side file
``bucket_N_flush_length``, which readers must honour. Our readers (and Trino) read whole files, and
pyarrow's ORC writer cannot write intermediate footers, so instead **each commit replaces the file**: the
events of the batch's committed transactions plus those of the committing one are written to a hidden
``_tmp_`` name and renamed onto ``bucket_N`` *before* the store commits. Every version of the file is a
complete ORC file, and each one holds a prefix (by write id) of the next, so a reader that opened an older
version misses only write ids its snapshot does not count as committed yet. A writer that dies between the
rename and the store commit leaves rows of a transaction the store times out and aborts: never read. The
price: a commit rewrites its buckets' committed events of the batch (held in memory until the batch
ends), so a batch's write cost grows with the square of its transactions; keep batches modest (Hive
recommends tens to hundreds of transactions per batch, and we recommend tens).

This layer knows nothing of SQL, Spark or SQLAlchemy.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from hiveacid_sql.acid.codec import encode_bucket
from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.acid.names import ACID_VERSION_CONTENT, ACID_VERSION_FILE, bucket_file_name, delta_dir_name
from hiveacid_sql.acid.orc_fast_writer import open_event_writer
from hiveacid_sql.errors import AcidFormatError

__all__ = ["StreamDelta", "records_table"]

_EVENT_NAMES = ["operation", "originalTransaction", "bucket", "rowId", "currentTransaction", "row"]


@dataclass
class _Bucket:
    committed: list[pa.Table] = field(default_factory=list)  # events of committed write ids, in order
    pending: list[pa.Table] = field(default_factory=list)  # events of the open transaction
    next_row_id: int = 0  # of the open transaction's write id in this file


class StreamDelta:
    """The ``delta_<first>_<last>`` directory of one transaction batch in one partition.

    ``location``: the table directory (a path or URI); ``part_dir``: the partition directory relative to it
    ('' for an unpartitioned table); ``columns``: the table's data columns (no partition columns).
    :meth:`add` buffers insert events of the open transaction, :meth:`publish` writes the touched files
    (committed events plus the open transaction's) before the store commits, :meth:`committed` /
    :meth:`aborted` move or drop the open transaction's events afterwards.
    """

    def __init__(
        self,
        location: str,
        part_dir: str,
        columns: Sequence[tuple[str, HiveType]],
        first_write_id: int,
        last_write_id: int,
        *,
        compression: str = "zlib",
    ) -> None:
        self.fs, root = filesystem_for(location)
        self.name = delta_dir_name(first_write_id, last_write_id, None)
        self.directory = f"{part_dir}/{self.name}" if part_dir else self.name
        self.path = f"{root.rstrip('/')}/{self.directory}"
        self.columns = tuple(columns)
        self.compression = compression
        self._buckets: dict[int, _Bucket] = {}
        self._write_id: int | None = None
        self._created = False

    def add(self, write_id: int, bucket_ids: np.ndarray, rows: pa.StructArray) -> None:
        """Buffer insert events of ``write_id`` (the open transaction): one row each, in its bucket."""
        if self._write_id != write_id:
            for b in self._buckets.values():
                b.pending, b.next_row_id = [], 0
            self._write_id = write_id
        distinct = np.unique(bucket_ids).tolist()
        for bucket_id in distinct:
            chosen = rows if len(distinct) == 1 else rows.filter(pa.array(bucket_ids == bucket_id))
            bucket = self._buckets.setdefault(int(bucket_id), _Bucket())
            n = len(chosen)
            first = bucket.next_row_id
            bucket.next_row_id += n
            bucket.pending.append(
                pa.Table.from_arrays(
                    [
                        pa.array(np.zeros(n, dtype=np.int32)),
                        pa.array(np.full(n, write_id, dtype=np.int64)),
                        pa.array(np.full(n, encode_bucket(int(bucket_id), 0), dtype=np.int32)),
                        pa.array(np.arange(first, first + n, dtype=np.int64)),
                        pa.array(np.full(n, write_id, dtype=np.int64)),
                        chosen,
                    ],
                    names=_EVENT_NAMES,
                )
            )

    @property
    def pending_rows(self) -> int:
        """Events of the open transaction buffered here."""
        return sum(t.num_rows for b in self._buckets.values() for t in b.pending)

    def publish(self) -> list[str]:
        """Write every bucket file the open transaction added rows to (its events after the committed ones)
        under a hidden name and rename it onto ``bucket_N``; returns the files' paths. Called before the
        store commits: until then the new rows carry a write id no reader counts as committed."""
        written = []
        for bucket_id, bucket in sorted(self._buckets.items()):
            if not bucket.pending:
                continue
            if not self._created:
                self.fs.create_dir(self.path, recursive=True)
                with self.fs.open_output_stream(f"{self.path}/{ACID_VERSION_FILE}") as out:
                    out.write(ACID_VERSION_CONTENT)
                self._created = True
            final = f"{self.path}/{bucket_file_name(bucket_id)}"
            partial = f"{self.path}/_tmp_{bucket_file_name(bucket_id)}_{uuid.uuid4().hex[:12]}"
            try:
                with self.fs.open_output_stream(partial) as stream:
                    writer = open_event_writer(stream, self.columns, compression=self.compression, path=final)
                    for events in (*bucket.committed, *bucket.pending):
                        writer.write_batch(events)
                    writer.close()
                self.fs.move(partial, final)
            except BaseException:
                with contextlib.suppress(OSError):
                    self.fs.delete_file(partial)
                raise
            written.append(final)
        return written

    def committed(self) -> None:
        """The open transaction committed: its events stay in every later version of the files."""
        for b in self._buckets.values():
            b.committed.extend(b.pending)
            b.pending = []
        self._write_id = None

    def aborted(self) -> None:
        """The open transaction aborted: its events are left out of every later version of the files (a
        version already published keeps them, tagged with the aborted write id, which readers skip)."""
        for b in self._buckets.values():
            b.pending, b.next_row_id = [], 0
        self._write_id = None


def records_table(
    records: object, columns: Sequence[tuple[str, HiveType]], required: Sequence[str] = ()
) -> pa.Table:
    """Streaming input as an Arrow table of ``columns`` (name, Hive type) in that order, each value checked
    against its column; a record that does not fit is refused with one line naming it.

    ``records``: one record (a ``dict`` by column name, or a ``tuple`` of values in column order), a ``list``
    of records, a ``pyarrow.RecordBatch`` / ``Table`` or a ``pandas.DataFrame`` (columns matched by name,
    ignoring case). A column a dict or a frame leaves out is NULL, except the ``required`` ones (the dynamic
    partition columns): a record without a value for one is refused, as Hive's streaming writers refuse it.
    """
    from hiveacid_sql.acid.arrow_values import arrow_type, conform_rows

    names = [n.lower() for n, _ in columns]
    types = [arrow_type(t) for _, t in columns]
    if isinstance(records, pa.RecordBatch):
        records = pa.Table.from_batches([records])
    if (
        not isinstance(records, pa.Table)
        and type(records).__name__ == "DataFrame"
        and hasattr(records, "to_dict")
    ):
        records = pa.Table.from_pandas(records, preserve_index=False)
    if isinstance(records, pa.Table):
        table = _arrow_columns(records, names, types, required)
    else:
        rows = records if isinstance(records, list) else [records]
        table = _python_columns(rows, names, types, required)
    struct = pa.StructArray.from_arrays(
        [c.combine_chunks() for c in table.columns],
        fields=[pa.field(n, t) for n, t in zip(names, types, strict=True)],
    )
    try:  # Hive's value rules (lengths, decimals), so a bad value is refused here, naming its record
        conformed = conform_rows(pa.chunked_array([struct]), columns, arrow_orc_writer=False).combine_chunks()
    except AcidFormatError:
        for i in range(table.num_rows):
            try:
                conform_rows(pa.chunked_array([struct.slice(i, 1)]), columns, arrow_orc_writer=False)
            except AcidFormatError as exc:
                raise AcidFormatError(f"record {i} {_record_text(table, i)}: {_line(exc)}") from None
        raise
    return pa.Table.from_arrays(conformed.flatten(), names=names)


def _record_text(table: pa.Table, i: int) -> str:
    text = repr(table.slice(i, 1).to_pylist()[0])
    return text if len(text) <= 200 else text[:197] + "..."


def _python_columns(
    rows: list, names: list[str], types: list[pa.DataType], required: Sequence[str]
) -> pa.Table:
    values: list[list[object]] = [[] for _ in names]
    index = {n: i for i, n in enumerate(names)}
    for r, record in enumerate(rows):
        if isinstance(record, dict):
            given = {str(k).lower(): v for k, v in record.items()}
            unknown = sorted(set(given) - set(index))
            if unknown:
                raise AcidFormatError(f"record {r} {_short(record)}: no column {unknown[0]!r} in the table")
            missing = [c for c in required if c.lower() not in given]
            if missing:
                raise AcidFormatError(
                    f"record {r} {_short(record)}: no value for partition column {missing[0]!r}"
                )
            for i, n in enumerate(names):
                values[i].append(given.get(n))
        elif isinstance(record, tuple | list):
            if len(record) != len(names):
                raise AcidFormatError(
                    f"record {r} {_short(record)}: {len(record)} values for {len(names)} columns ({', '.join(names)})"
                )
            for i, v in enumerate(record):
                values[i].append(v)
        else:
            raise AcidFormatError(
                f"record {r} {_short(record)}: a record is a dict or a tuple, not {type(record).__name__}"
            )
    arrays = []
    for i, (name, t) in enumerate(zip(names, types, strict=True)):
        try:
            arrays.append(pa.array(values[i], type=t))
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as exc:
            for r, v in enumerate(values[i]):
                try:
                    pa.array([v], type=t)
                except (pa.ArrowException, TypeError, ValueError, OverflowError) as one:
                    raise AcidFormatError(
                        f"record {r} {_short(rows[r])}: value {v!r} does not fit column {name} ({t}): {_line(one)}"
                    ) from None
            raise AcidFormatError(f"column {name} ({t}): {_line(exc)}") from None
    return pa.Table.from_arrays(arrays, names=names)


def _arrow_columns(
    table: pa.Table, names: list[str], types: list[pa.DataType], required: Sequence[str]
) -> pa.Table:
    given = {n.lower(): i for i, n in enumerate(table.column_names)}
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise AcidFormatError(f"no column {unknown[0]!r} in the table (columns: {', '.join(names)})")
    missing = [c for c in required if c.lower() not in given]
    if missing:
        raise AcidFormatError(f"no value for partition column {missing[0]!r}")
    arrays = []
    for name, t in zip(names, types, strict=True):
        if name not in given:
            arrays.append(pa.nulls(table.num_rows, t))
            continue
        col = table.column(given[name])
        if pa.types.is_timestamp(col.type) and col.type.tz is not None and pa.types.is_timestamp(t):
            col = col.cast(pa.timestamp(col.type.unit))  # a Hive timestamp is the UTC wall clock
        try:
            arrays.append(col.cast(t, safe=True).combine_chunks())
        except (pa.ArrowException, TypeError, ValueError) as exc:
            values = col.to_pylist()
            for r, v in enumerate(values):
                try:
                    pa.array([v], type=col.type).cast(t, safe=True)
                except (pa.ArrowException, TypeError, ValueError) as one:
                    raise AcidFormatError(
                        f"record {r} {_record_text(table, r)}: value {v!r} does not fit column {name} ({t}): "
                        f"{_line(one)}"
                    ) from None
            raise AcidFormatError(f"column {name} ({t}): {_line(exc)}") from None
    return pa.Table.from_arrays(arrays, names=names)


def _short(record: object) -> str:
    text = repr(record)
    return text if len(text) <= 200 else text[:197] + "..."


def _line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0]
