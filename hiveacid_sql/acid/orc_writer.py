"""Write one Hive 3 ACID event file (``bucket_N`` of a delta or delete_delta) with pyorc.

Hive's readers trust what is inside the file: the event order (k-way merges and binary searches), the
per-stripe ``hive.acid.key.index`` (Hive 4 bounds delete-event loading with it: a wrong index silently
resurrects deleted rows) and ``hive.acid.stats`` (Hive 3.1 sizes its delete-event arrays from it). So this
writer checks the order of every event and controls stripe boundaries itself, so that the key index it
records is exact (format ref §3, §5, §12).

Stripe control: pyorc hands rows to the ORC C++ writer in batches of ``batch_size`` and
``Writer.write_intermediate_footer()`` ends the current stripe with only the rows already handed over. We
give ORC an effectively infinite ``stripe_size`` (it never cuts a stripe on its own) and cut a stripe right
before the first event of the next stripe whenever ``rows_per_stripe`` (a multiple of ``batch_size``)
events are in the current one. An intermediate footer is what Hive's own streaming writer
(``OrcRecordUpdater.flush``) leaves between stripes, so every ORC reader accepts it. A file that fits in one
stripe gets no intermediate footer at all.

This layer knows nothing of SQL, Spark or SQLAlchemy.
"""

from __future__ import annotations

import datetime as dt
import decimal
import zoneinfo
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import islice
from typing import Any, BinaryIO

import pyarrow as pa
import pyorc

from hiveacid_sql.acid.arrow_values import conform_rows
from hiveacid_sql.acid.event_batch import check_event_batch
from hiveacid_sql.acid.hive_types import HiveType, acid_event_schema
from hiveacid_sql.acid.orc_tail import CALENDAR_PROLEPTIC_GREGORIAN, TailPatchingSink, patch_tail
from hiveacid_sql.errors import AcidFormatError

__all__ = [
    "OP_DELETE",
    "OP_INSERT",
    "AcidEventWriter",
    "EventFileStats",
    "WallClockTimestampConverter",
    "row_converter",
]

#: ``operation`` values (split update: 1 = UPDATE is never written by Hive 3+).
OP_INSERT = 0
OP_DELETE = 2

# Effectively "never": ORC C++ cuts a stripe when its buffered size reaches stripe_size.
_NO_AUTOMATIC_STRIPES = 1 << 62
# Hive/ORC defaults: orc.compress.size 256 KiB, orc.row.index.stride 10000.
_COMPRESSION_BLOCK_SIZE = 256 * 1024
_ROW_INDEX_STRIDE = 10_000

_UTC_ZONE = zoneinfo.ZoneInfo("UTC")

_COMPRESSION = {
    "none": pyorc.CompressionKind.NONE,
    "uncompressed": pyorc.CompressionKind.NONE,
    "zlib": pyorc.CompressionKind.ZLIB,
    "snappy": pyorc.CompressionKind.SNAPPY,
    "lz4": pyorc.CompressionKind.LZ4,
    "zstd": pyorc.CompressionKind.ZSTD,
}


_EPOCH_NAIVE = dt.datetime(1970, 1, 1)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


class WallClockTimestampConverter(pyorc.converters.TimestampConverter):
    """pyorc timestamp converter with exact integer arithmetic and process-independent naive handling.

    pyorc's own ``to_orc`` uses ``math.floor(obj.timestamp())``: a naive datetime is then read in the
    *process's* local time zone (a Spark executor with ``TZ=America/New_York`` would shift every value by
    5 hours) and the float loses microseconds far from 1970 (9999-12-31 23:59:59.999999 becomes year
    10000). Hive timestamps are wall-clock values, so a naive datetime is taken as wall clock in the
    writer's time zone (UTC here, what Hive 3 expects); an aware one is converted to its UTC instant.
    Seconds count in the proleptic Gregorian calendar (``datetime`` arithmetic), as Hive 3.1's.
    One ORC format limit remains: a value in 1969-12-31 23:59:59.001 .. 23:59:59.999999 cannot be stored
    (see :func:`~hiveacid_sql.acid.arrow_values.conform_rows`, which refuses it before it gets here).
    """

    @staticmethod
    def to_orc(obj: dt.datetime, timezone: Any) -> tuple[int, int]:
        delta = obj - (_EPOCH_NAIVE if obj.tzinfo is None else _EPOCH_UTC)
        return delta.days * 86400 + delta.seconds, delta.microseconds * 1000


@dataclass(frozen=True)
class EventFileStats:
    """What a closed event file holds; the caller records it (commit bookkeeping, logs, tests).

    ``first_key``/``last_key`` are ``(originalTransaction, bucket, rowId)`` of the first/last event,
    ``None`` for an empty file; ``key_index`` is the exact ``hive.acid.key.index`` value written.
    """

    path: str
    rows: int
    inserts: int
    deletes: int
    stripes: int
    key_index: str
    first_key: tuple[int, int, int] | None
    last_key: tuple[int, int, int] | None


class AcidEventWriter:
    """One bucket_N file of insert events OR delete events (never mixed), events strictly ascending by
    (originalTransaction, bucket (signed int), rowId).

    * ``fileobj``: a writable binary file object; :meth:`close` finishes the ORC file but does **not**
      close ``fileobj`` (the caller opened it, so the caller decides: e.g. an HDFS stream that must be
      closed to commit, or a BytesIO that is read afterwards). Usable as a context manager: a clean exit
      closes the ORC writer, an exception leaves the half-written file to the caller to delete.
    * ``columns``: table columns (no partition columns) as ``(name, HiveType)``, in table order.
    * ``rows_per_stripe``: events per stripe, a multiple of ``batch_size``; it bounds the writer's memory
      (a whole stripe is buffered). ``batch_size``: rows pyorc hands to ORC at once.
    * ``compression``: ``zlib`` (Hive's default), ``snappy``, ``zstd``, ``lz4`` or ``none`` (ORC C++ cannot write LZO).
    * ``path``: only reported back in :class:`EventFileStats` and error messages.

    Events come as Arrow batches (:meth:`write_batch`, what the Spark tasks and the compactor hand over;
    tests that spell events out one by one use ``tests/support/row_events.py``). Mixing insert and delete
    events or writing a key that is not strictly greater than the previous one raises
    :class:`AcidFormatError` naming both keys. A writer with 0 events closes to a valid, empty ORC file (no stripes, empty key
    index, stats ``0,0,0``), but callers are expected not to create one: Hive deletes empty event files.
    """

    def __init__(
        self,
        fileobj: BinaryIO,
        columns: Sequence[tuple[str, HiveType]],
        *,
        rows_per_stripe: int = 500_000,
        batch_size: int = 10_000,
        compression: str = "zlib",
        path: str = "",
    ) -> None:
        if batch_size < 1 or rows_per_stripe < 1 or rows_per_stripe % batch_size:
            raise AcidFormatError(
                f"rows_per_stripe ({rows_per_stripe}) must be a positive multiple of batch_size ({batch_size}), "
                "otherwise stripe boundaries (and so hive.acid.key.index) cannot be exact"
            )
        kind = _COMPRESSION.get(compression.lower())
        if kind is None:
            raise AcidFormatError(f"unknown ORC compression {compression!r}; one of {sorted(_COMPRESSION)}")
        self.path = path
        self.schema = acid_event_schema(columns)
        self._columns = tuple(columns)
        self._ncols = len(columns)
        self._rows_per_stripe = rows_per_stripe
        # pyorc writes no calendar: its tail is patched on the way out (orc_tail: PROLEPTIC_GREGORIAN).
        self._sink = TailPatchingSink(fileobj)
        self._writer = pyorc.Writer(
            self._sink,
            self.schema,
            batch_size=batch_size,
            stripe_size=_NO_AUTOMATIC_STRIPES,
            row_index_stride=_ROW_INDEX_STRIDE,
            compression=kind,
            compression_block_size=_COMPRESSION_BLOCK_SIZE,
            struct_repr=pyorc.StructRepr.TUPLE,
            timezone=_UTC_ZONE,
            converters={pyorc.TypeKind.TIMESTAMP: WallClockTimestampConverter},
        )
        self._mode: int | None = None
        self._inserts = 0
        self._deletes = 0
        self._in_stripe = 0
        self._stripe_keys: list[tuple[int, int, int]] = []
        self._first_key: tuple[int, int, int] | None = None
        self._last_key: tuple[int, int, int] | None = None
        self._stats: EventFileStats | None = None

    # -- events ---------------------------------------------------------------------------------------

    def write_batch(self, events: pa.Table | pa.RecordBatch) -> None:
        """Append a batch of events given as Arrow data (what a Spark task hands over).

        ``events`` has the six ACID columns named and typed exactly: ``operation`` int32,
        ``originalTransaction`` int64, ``bucket`` int32, ``rowId`` int64, ``currentTransaction`` int64 and
        ``row``, a struct of the table columns in table order (NULL for delete events; a delete batch may
        give it Arrow type null). Insert values arrive as Spark hands them to Arrow (timestamp[us] without
        time zone holding the Hive wall clock, decimal128, date32, string or large_string, ...) and get
        Hive's value rules as array operations (:func:`~hiveacid_sql.acid.arrow_values.conform_rows`, the
        same rules as :func:`row_converter`: varchar/char truncation, decimal rescaling), shared with the
        Arrow writer (:mod:`hiveacid_sql.acid.orc_fast_writer`).

        The whole batch is checked first, with numpy (see :func:`~hiveacid_sql.acid.event_batch.check_event_batch`):
        a refused batch raises :class:`AcidFormatError` and writes nothing. Stripes are cut after exactly
        ``rows_per_stripe`` events.
        """
        if self._stats is not None:
            raise AcidFormatError(f"{self._where()}writer is closed")
        batch = check_event_batch(events, self._columns, after=self._last_key, where=self._where())
        if batch.operation is None:
            return
        self._set_mode(batch.operation)
        table = batch.table
        n = table.num_rows
        keys = [table.column(i).to_pylist() for i in range(5)]
        if batch.operation == OP_INSERT:
            rows: Any = self._pyorc_rows(table.column(5))
        else:
            rows = [None] * n
        events_iter = zip(*keys, rows, strict=True)
        owids, buckets, row_ids = keys[1], keys[2], keys[3]
        if self._first_key is None:
            self._first_key = batch.first_key
        done = 0
        while done < n:
            if self._in_stripe == self._rows_per_stripe:
                self._writer.write_intermediate_footer()
                self._stripe_keys.append(self._last_key)  # type: ignore[arg-type]
                self._in_stripe = 0
            take = min(n - done, self._rows_per_stripe - self._in_stripe)
            try:
                self._writer.writerows(islice(events_iter, take))
            except (TypeError, ValueError, OverflowError) as exc:
                raise AcidFormatError(f"{self._where()}cannot write events: {exc}") from exc
            done += take
            self._in_stripe += take
            self._last_key = (owids[done - 1], buckets[done - 1], row_ids[done - 1])
        if batch.operation == OP_INSERT:
            self._inserts += n
        else:
            self._deletes += n

    def _pyorc_rows(self, row: pa.ChunkedArray) -> list[tuple]:
        """The ``row`` struct column as pyorc tuples.

        Hive's value rules are applied to the arrays first (:func:`conform_rows`, shared with the Arrow
        writer): it also refuses integers out of the column's range, which pyorc would silently wrap.
        """
        row = conform_rows(row, self._columns, self._where(), arrow_orc_writer=False)
        convert = _struct_converter(self._columns)
        fields = [
            pa.chunked_array([chunk.field(i) for chunk in row.chunks], type=row.type.field(i).type).to_pylist()
            for i in range(self._ncols)
        ]
        return [convert(values) for values in zip(*fields, strict=True)]

    def _set_mode(self, op: int) -> None:
        if self._stats is not None:
            raise AcidFormatError(f"{self._where()}writer is closed")
        if self._mode is not None and self._mode != op:
            kinds = {OP_INSERT: "insert", OP_DELETE: "delete"}
            raise AcidFormatError(
                f"{self._where()}cannot write a {kinds[op]} event into a file of {kinds[self._mode]} events: "
                "insert and delete events go to separate delta/delete_delta files"
            )
        self._mode = op

    # -- finishing ------------------------------------------------------------------------------------

    def close(self) -> EventFileStats:
        """Write the ACID user metadata and finish the ORC file; returns what the file holds.

        Sets ``hive.acid.key.index`` (one ``owid,bucket,rowId;`` entry per stripe: the last event of each
        stripe), ``hive.acid.stats`` (``inserts,0,deletes``) and ``hive.acid.version`` (``2``), and marks
        the file's calendar proleptic Gregorian (:mod:`~hiveacid_sql.acid.orc_tail`). Does not close
        ``fileobj``. Idempotent: a second call returns the same stats.
        """
        if self._stats is not None:
            return self._stats
        keys = list(self._stripe_keys)
        if self._in_stripe:
            keys.append(self._last_key)  # type: ignore[arg-type]
        key_index = "".join(f"{o},{b},{r};" for o, b, r in keys)
        self._writer.set_user_metadata(
            **{
                "hive.acid.key.index": key_index.encode("utf-8"),
                "hive.acid.stats": f"{self._inserts},0,{self._deletes}".encode(),
                "hive.acid.version": b"2",
            }
        )
        self._sink.capture()
        self._writer.close()
        self._sink.release(patch_tail(self._sink.captured(), calendar=CALENDAR_PROLEPTIC_GREGORIAN))
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

    @property
    def rows(self) -> int:
        """Events written so far."""
        return self._inserts + self._deletes

    def __enter__(self) -> AcidEventWriter:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self._sink.discard()

    def _where(self) -> str:
        return f"{self.path}: " if self.path else ""


# -- row conversion (pyarrow to_pylist() form -> pyorc form) ----------------------------------------------

_Converter = Callable[[Any], Any]
_IDENTITY_TYPES = frozenset(
    {
        "tinyint",
        "smallint",
        "int",
        "bigint",
        "float",
        "double",
        "string",
        "boolean",
        "date",
        "timestamp",
        "binary",
    }
)


def _decimal_converter(precision: int, scale: int) -> _Converter:
    """Hive's ``HiveDecimal.enforcePrecisionScale``: round HALF_UP to the scale, NULL if it does not fit."""
    quantum = Decimal(1).scaleb(-scale)
    limit = Decimal(10) ** (precision - scale)
    ctx = decimal.Context(prec=max(precision, 1) + 40, rounding=decimal.ROUND_HALF_UP)

    def convert(v: Any) -> Any:
        if v is None:
            return None
        if not isinstance(v, Decimal):
            v = Decimal(str(v)) if isinstance(v, float) else Decimal(v)
        if not v.is_finite():
            return None
        try:
            q = v.quantize(quantum, rounding=decimal.ROUND_HALF_UP, context=ctx)
        except decimal.InvalidOperation:
            return None
        if q.copy_abs() >= limit:  # abs() would round to the default context's 28 digits
            return None
        return q

    return convert


def _converter(t: HiveType) -> _Converter | None:
    """Converter for one value of type ``t``, or None when pyorc takes the value as it is."""
    name = t.name
    if name in _IDENTITY_TYPES:
        return None
    if name == "varchar":
        n = t.length
        return lambda v: v if v is None or len(v) <= n else v[:n]
    if name == "char":
        # Hive truncates to n code points; pyorc pads to n with spaces (as HiveChar does).
        n = t.length
        return lambda v: v if v is None or len(v) <= n else v[:n]
    if name == "decimal":
        return _decimal_converter(t.precision, t.scale)
    if name == "array":
        elem = _converter(t.children[0])
        if elem is None:
            return None
        return lambda v: None if v is None else [elem(x) for x in v]
    if name == "map":
        kconv = _converter(t.children[0]) or (lambda x: x)
        vconv = _converter(t.children[1]) or (lambda x: x)

        def convert_map(v: Any) -> Any:
            if v is None:
                return None
            items = v.items() if isinstance(v, Mapping) else v
            return {kconv(k): vconv(x) for k, x in items}

        return convert_map
    if name == "struct":
        return _struct_converter(t.children)
    raise AcidFormatError(f"no ORC conversion for Hive type {t.to_string()}")


def _struct_converter(fields: Sequence[tuple[str, HiveType]]) -> _Converter:
    """dict (pyarrow) or tuple (already positional) -> tuple in field order."""
    names = [n for n, _ in fields]
    convs = [_converter(ft) for _, ft in fields]

    def convert(v: Any) -> Any:
        if v is None:
            return None
        if isinstance(v, Mapping):
            values = [v.get(n) for n in names]
        else:
            values = list(v)
            if len(values) != len(names):
                raise AcidFormatError(f"struct value {v!r} does not have {len(names)} fields")
        return tuple(x if c is None else c(x) for c, x in zip(convs, values, strict=True))

    return convert


def row_converter(columns: Sequence[tuple[str, HiveType]]) -> Callable[[Mapping[str, Any]], tuple]:
    """Build a function turning one pyarrow ``RecordBatch.to_pylist()`` row into the tuple pyorc writes.

    Input: a dict keyed by the column names exactly as given in ``columns`` (struct -> dict, map -> list
    of ``(k, v)`` pairs or dict, list -> list, timestamp -> naive ``datetime`` holding the Hive wall-clock
    value, decimal -> ``Decimal``, date -> ``date``, binary -> ``bytes``). Output: tuple in column order,
    struct -> tuple, map -> dict.

    Hive semantics applied here because pyorc would not (or would differently): varchar(n)/char(n)
    truncated to n characters (pyorc pads char), decimals rescaled to the column scale with ROUND_HALF_UP
    and NULL when they do not fit the precision (pyorc would truncate or fail). Missing keys become NULL.
    Columns that need no conversion cost nothing: with only such columns the converter is a single
    ``operator.itemgetter``-like call, because this runs once per row inside Spark tasks.
    Timestamps with a tzinfo are written by pyorc as that instant in UTC; pass naive wall-clock values.
    """
    names = [name for name, _ in columns]
    convs = [_converter(t) for _, t in columns]
    if all(c is None for c in convs):
        if len(names) == 1:
            only = names[0]
            return lambda row: (row.get(only),)
        return lambda row: tuple([row.get(n) for n in names])
    pairs = list(zip(names, convs, strict=True))

    def convert(row: Mapping[str, Any]) -> tuple:
        return tuple([row.get(n) if c is None else c(row.get(n)) for n, c in pairs])

    return convert
