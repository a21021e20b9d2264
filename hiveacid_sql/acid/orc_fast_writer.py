"""Write one Hive 3 ACID event file from Arrow batches with pyarrow's ORC writer (ORC C++), no per-row Python.

The pyorc writer (:mod:`hiveacid_sql.acid.orc_writer`) converts every event in Python (~5.7 µs each): a
minute of CPU per 10 million rows. This writer hands whole Arrow batches to ORC C++ and writes the same
files: the same ORC types, events, stripes and ``hive.acid.*`` metadata (format ref §3). pyarrow's writer
has gaps, closed by rewriting the file tail as it leaves (:mod:`hiveacid_sql.acid.orc_tail`): it cannot
set user metadata, it writes char/varchar columns as STRING (same encoding; only the Footer's type
changes), and it writes no calendar (the days it stores are proleptic Gregorian, as Hive 3.1's).

Streaming: every byte ORC writes before :meth:`FastAcidEventWriter.close` goes straight to the output
stream; only what ORC writes during ``close`` (the last stripe and the tail) is held to be patched. So the
writer never seeks and works on non-seekable streams (S3 through ``pyarrow.fs``), and holds at most about
one stripe: the Arrow events not yet handed to ORC (fewer than ``rows_per_stripe``) plus ORC's buffers.

Stripes: events go to ORC ``rows_per_stripe`` at a time, in one ORC batch, and ORC is told to end its
stripe after every batch (stripe size 1 byte). ORC C++ measures a stripe by its compressed bytes, though,
and a batch that has not yet produced one compression block (e.g. delete events for consecutive row ids,
which encode to a few bytes) stays in the stripe with the next batch. So stripes hold ``rows_per_stripe``
events or a multiple of it (always exactly ``rows_per_stripe`` uncompressed). ``hive.acid.key.index``
follows the stripes ORC actually wrote: each stripe's row count is read back from the Footer and its last
event is one whose key was kept when its batch went to ORC (format ref §3.2: the index must be exact).

This layer knows nothing of SQL, Spark or SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import BinaryIO

import pyarrow as pa
import pyarrow.orc as pa_orc

from hiveacid_sql.acid.arrow_values import conform_rows, event_arrow_schema
from hiveacid_sql.acid.event_batch import EventBatch, check_event_batch
from hiveacid_sql.acid.hive_types import HiveType, acid_event_schema
from hiveacid_sql.acid.orc_tail import (
    CALENDAR_PROLEPTIC_GREGORIAN,
    TYPE_CHAR,
    TYPE_VARCHAR,
    TailPatchingSink,
    patch_tail,
    read_tail,
)
from hiveacid_sql.acid.orc_writer import OP_DELETE, OP_INSERT, AcidEventWriter, EventFileStats
from hiveacid_sql.errors import AcidFormatError

__all__ = ["FastAcidEventWriter", "open_event_writer"]

# pyarrow's names for the compressions the pyorc writer accepts (ORC C++ cannot write LZO).
_COMPRESSION = {
    "none": "uncompressed",
    "uncompressed": "uncompressed",
    "zlib": "zlib",
    "snappy": "snappy",
    "lz4": "lz4",
    "zstd": "zstd",
}
# The pyorc writer's ORC settings (Hive/ORC defaults): orc.compress.size 256 KiB, orc.row.index.stride 10000.
_COMPRESSION_BLOCK_SIZE = 256 * 1024
_ROW_INDEX_STRIDE = 10_000
# ORC C++ ends a stripe after a batch once its buffered (compressed) size reaches this: every batch.
_STRIPE_AFTER_EVERY_BATCH = 1
# Type ids in the Footer (pre-order): 0 the root struct, 1-5 the scalar ACID columns, 6 ``row``.
_FIRST_ROW_TYPE_ID = 7

Key = tuple[int, int, int]


class FastAcidEventWriter:
    """One bucket_N file of insert events OR delete events, from Arrow batches; the same files as
    :class:`~hiveacid_sql.acid.orc_writer.AcidEventWriter`.

    * ``fileobj``: a writable binary stream, seekable or not; never closed here (as with the pyorc writer).
      Usable as a context manager: a clean exit closes the ORC file, an exception abandons it (nothing
      more is written to ``fileobj``; the caller deletes the half-written file).
    * ``columns``: table columns (no partition columns) as ``(name, HiveType)``, in table order.
    * ``rows_per_stripe``: events per ORC batch and stripe (see the module docstring for the stripes of
      very compressible events); it bounds the memory held: about one stripe.
    * ``compression``: ``zlib`` (Hive's default), ``snappy``, ``zstd``, ``lz4`` or ``none``.
    * ``path``: only reported back in :class:`EventFileStats` and error messages.

    :meth:`write_batch` takes the same Arrow batches as the pyorc writer's and checks them the same way
    (:func:`~hiveacid_sql.acid.event_batch.check_event_batch`): a refused batch writes nothing. One
    difference: a timestamp before 1970 with a fraction of a second is refused (pyarrow's ORC writer would
    store it with negative nanoseconds); :func:`open_event_writer` gives tables with timestamp columns the
    pyorc writer.
    """

    def __init__(
        self,
        fileobj: BinaryIO,
        columns: Sequence[tuple[str, HiveType]],
        *,
        rows_per_stripe: int = 500_000,
        compression: str = "zlib",
        path: str = "",
    ) -> None:
        if rows_per_stripe < 1:
            raise AcidFormatError(f"rows_per_stripe must be positive, got {rows_per_stripe}")
        codec = _COMPRESSION.get(compression.lower())
        if codec is None:
            raise AcidFormatError(f"unknown ORC compression {compression!r}; one of {sorted(_COMPRESSION)}")
        self.path = path
        self.schema = acid_event_schema(columns)
        self._columns = tuple(columns)
        self._arrow_schema = event_arrow_schema(columns)
        self._string_types = _string_type_patches(columns)
        self._rows_per_stripe = rows_per_stripe
        self._sink = TailPatchingSink(fileobj)
        self._orc = pa_orc.ORCWriter(
            self._sink,
            batch_size=rows_per_stripe,
            stripe_size=_STRIPE_AFTER_EVERY_BATCH,
            compression=codec,
            compression_block_size=_COMPRESSION_BLOCK_SIZE,
            compression_strategy="speed",
            row_index_stride=_ROW_INDEX_STRIDE,
            dictionary_key_size_threshold=0.0,
        )
        self._pending: list[pa.Table] = []
        self._pending_rows = 0
        self._handed = 0  # events handed to ORC
        self._batch_ends: dict[int, Key] = {}  # events handed to ORC -> key of the last of them
        self._mode: int | None = None
        self._inserts = 0
        self._deletes = 0
        self._first_key: Key | None = None
        self._last_key: Key | None = None
        self._stats: EventFileStats | None = None

    # -- events ---------------------------------------------------------------------------------------

    def write_batch(self, events: pa.Table | pa.RecordBatch) -> None:
        """Append a batch of events (layout and checks: :meth:`AcidEventWriter.write_batch`)."""
        if self._stats is not None:
            raise AcidFormatError(f"{self._where()}writer is closed")
        batch = check_event_batch(events, self._columns, after=self._last_key, where=self._where())
        if batch.operation is None:
            return
        self._check_mode(batch.operation)
        table = self._orc_table(batch)
        self._mode = batch.operation
        if batch.operation == OP_INSERT:
            self._inserts += table.num_rows
        else:
            self._deletes += table.num_rows
        if self._first_key is None:
            self._first_key = batch.first_key
        self._last_key = batch.last_key
        self._pending.append(table)
        self._pending_rows += table.num_rows
        while self._pending_rows >= self._rows_per_stripe:
            pending = pa.concat_tables(self._pending)
            self._hand_to_orc(pending.slice(0, self._rows_per_stripe))
            rest = pending.slice(self._rows_per_stripe)
            self._pending = [rest] if rest.num_rows else []
            self._pending_rows = rest.num_rows

    def _check_mode(self, op: int) -> None:
        if self._mode is not None and self._mode != op:
            kinds = {OP_INSERT: "insert", OP_DELETE: "delete"}
            raise AcidFormatError(
                f"{self._where()}cannot write a {kinds[op]} event into a file of {kinds[self._mode]} events: "
                "insert and delete events go to separate delta/delete_delta files"
            )

    def _orc_table(self, batch: EventBatch) -> pa.Table:
        """The batch with exactly the writer's Arrow schema (what ORC C++ maps to the event schema)."""
        table = batch.table
        row_type = self._arrow_schema.field("row").type
        if batch.operation == OP_INSERT:
            row = conform_rows(table.column(5), self._columns, self._where())
        else:
            row = pa.chunked_array([pa.nulls(table.num_rows, row_type)], type=row_type)
        return pa.Table.from_arrays([*table.columns[:5], row], schema=self._arrow_schema)

    def _hand_to_orc(self, table: pa.Table) -> None:
        """One ORC batch (and so at most one stripe end); remembers the key of its last event."""
        self._orc.write(table)
        self._handed += table.num_rows
        last = table.num_rows - 1
        self._batch_ends[self._handed] = (
            table.column(1)[last].as_py(),
            table.column(2)[last].as_py(),
            table.column(3)[last].as_py(),
        )

    # -- finishing ------------------------------------------------------------------------------------

    def close(self) -> EventFileStats:
        """Finish the ORC file with the ACID user metadata and exact types; returns what the file holds.

        ``hive.acid.key.index`` gets one ``owid,bucket,rowId;`` entry per stripe ORC wrote (the last event of
        each), ``hive.acid.stats`` ``inserts,0,deletes`` and ``hive.acid.version`` ``2``. Does not close
        ``fileobj``. Idempotent: a second call returns the same stats.
        """
        if self._stats is not None:
            return self._stats
        if self._pending_rows:
            self._hand_to_orc(pa.concat_tables(self._pending))
            self._pending, self._pending_rows = [], 0
        if not self._handed:
            self._orc.write(self._arrow_schema.empty_table())  # ORC C++ starts the file on its first batch
        self._sink.capture()
        self._orc.close()
        tail = self._sink.captured()
        keys = self._stripe_last_keys(tail)
        key_index = "".join(f"{o},{b},{r};" for o, b, r in keys)
        patched = patch_tail(
            tail,
            string_types=self._string_types,
            metadata=[
                ("hive.acid.key.index", key_index.encode("utf-8")),
                ("hive.acid.stats", f"{self._inserts},0,{self._deletes}".encode()),
                ("hive.acid.version", b"2"),
            ],
            calendar=CALENDAR_PROLEPTIC_GREGORIAN,
        )
        self._sink.release(patched)
        self._stats = EventFileStats(
            path=self.path,
            rows=self._inserts + self._deletes,
            inserts=self._inserts,
            deletes=self._deletes,
            stripes=len(keys),
            key_index=key_index,
            first_key=self._first_key,
            last_key=self._last_key,
        )
        return self._stats

    def _stripe_last_keys(self, tail: bytes) -> list[Key]:
        ends = read_tail(tail).stripe_ends
        missing = [end for end in ends if end not in self._batch_ends]
        if missing or (ends and ends[-1] != self._handed):
            raise AcidFormatError(
                f"{self._where()}ORC ended stripes after {ends} events, not at the ends of the batches handed to "
                f"it ({sorted(self._batch_ends)}): the key index cannot be exact"
            )
        return [self._batch_ends[end] for end in ends]

    @property
    def rows(self) -> int:
        """Events written so far."""
        return self._inserts + self._deletes

    def __enter__(self) -> FastAcidEventWriter:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self._sink.discard()

    def __del__(self) -> None:
        # pyarrow's ORCWriter finishes its file when collected: never let an abandoned one reach fileobj.
        sink = getattr(self, "_sink", None)
        if sink is not None and self._stats is None:
            sink.discard()

    def _where(self) -> str:
        return f"{self.path}: " if self.path else ""


def _string_type_patches(columns: Sequence[tuple[str, HiveType]]) -> dict[int, tuple[int, int]]:
    """Footer type id -> (VARCHAR or CHAR, length) for every char/varchar node, nested ones included."""
    patches: dict[int, tuple[int, int]] = {}
    next_id = _FIRST_ROW_TYPE_ID

    def visit(t: HiveType) -> None:
        nonlocal next_id
        if t.name in ("varchar", "char"):
            patches[next_id] = (TYPE_VARCHAR if t.name == "varchar" else TYPE_CHAR, t.length)
        next_id += 1
        children = [ft for _, ft in t.fields] if t.name == "struct" else list(t.children)
        for child in children:
            visit(child)

    for _, t in columns:
        visit(t)
    return patches


def _has_timestamp(t: HiveType) -> bool:
    if t.name == "timestamp":
        return True
    children = [ft for _, ft in t.fields] if t.name == "struct" else list(t.children)
    return any(_has_timestamp(c) for c in children)


def open_event_writer(
    fileobj: BinaryIO,
    columns: Sequence[tuple[str, HiveType]],
    *,
    rows_per_stripe: int = 500_000,
    compression: str = "zlib",
    path: str = "",
    writer: str = "auto",
) -> FastAcidEventWriter | AcidEventWriter:
    """The event writer for one bucket file: the seam where Spark tasks choose between the two writers.

    Both take :meth:`write_batch` and ``close()`` and write the same files. ``writer="auto"`` picks the
    fast Arrow writer unless a column holds a timestamp (at any depth): pyarrow's ORC writer cannot store
    timestamps before 1970 with a fraction of a second, and a task cannot know in advance whether its rows
    hold one. ``writer="fast"`` or ``"pyorc"`` forces one.
    """
    if writer == "auto":
        writer = "pyorc" if any(_has_timestamp(t) for _, t in columns) else "fast"
    if writer == "fast":
        return FastAcidEventWriter(fileobj, columns, rows_per_stripe=rows_per_stripe, compression=compression, path=path)
    if writer == "pyorc":
        batch_size = min(rows_per_stripe, 10_000)
        if rows_per_stripe % batch_size:
            batch_size = rows_per_stripe
        return AcidEventWriter(
            fileobj, columns, rows_per_stripe=rows_per_stripe, batch_size=batch_size, compression=compression, path=path
        )
    raise AcidFormatError(f"unknown event writer {writer!r}; one of 'auto', 'fast', 'pyorc'")
