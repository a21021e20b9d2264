"""Table values as Arrow arrays of exactly the types the Arrow ORC writer maps to the table's ORC types,
with the Hive semantics applied as array operations.

pyarrow's ORC writer derives each ORC type from the Arrow type (int8 -> tinyint, decimal128(p,s) ->
decimal(p,s), timestamp without time zone -> timestamp, ...) and stores values as they are, so the values
must already be what Hive stores: varchar(n) and char(n) cut to n characters and char(n) padded with
spaces (Hive's ``HiveBaseChar``), decimals rounded HALF_UP to the column scale and NULL when they do not
fit the precision (``HiveDecimal.enforcePrecisionScale``). The same rules as
:func:`hiveacid_sql.acid.orc_writer.row_converter`, applied per array instead of per value. Columns that
already have the exact type (what Spark hands over) pass through without a copy.

This layer knows nothing of SQL, Spark or SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hiveacid_sql.acid.hive_types import ACID_COLUMN_NAMES, HiveType
from hiveacid_sql.errors import AcidFormatError

__all__ = ["arrow_type", "conform_rows", "event_arrow_schema", "row_arrow_type"]

_PRIMITIVES = {
    "tinyint": pa.int8(),
    "smallint": pa.int16(),
    "int": pa.int32(),
    "bigint": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "string": pa.string(),
    "varchar": pa.string(),
    "char": pa.string(),
    "boolean": pa.bool_(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us"),
    "binary": pa.binary(),
}
_EVENT_KEY_FIELDS = [
    pa.field(name, t, nullable=False)
    for name, t in zip(ACID_COLUMN_NAMES[:5], (pa.int32(), pa.int64(), pa.int32(), pa.int64(), pa.int64()), strict=True)
]
_MICROS_PER_SECOND = 1_000_000


def arrow_type(t: HiveType) -> pa.DataType:
    """The Arrow type pyarrow's ORC writer turns into the ORC type of ``t`` (char/varchar: string,
    patched in the ORC footer afterwards)."""
    if t.name in _PRIMITIVES:
        return _PRIMITIVES[t.name]
    if t.name == "decimal":
        return pa.decimal128(t.precision, t.scale)
    if t.name == "array":
        return pa.list_(arrow_type(t.children[0]))
    if t.name == "map":
        return pa.map_(arrow_type(t.children[0]), arrow_type(t.children[1]))
    if t.name == "struct":
        return pa.struct([pa.field(name, arrow_type(ft)) for name, ft in t.fields])
    raise AcidFormatError(f"no Arrow type for Hive type {t.to_string()}")


def row_arrow_type(columns: Sequence[tuple[str, HiveType]]) -> pa.StructType:
    """The ``row`` struct: table columns in table order with lower-case names (format ref §3.1)."""
    return pa.struct([pa.field(name.lower(), arrow_type(t)) for name, t in columns])


def event_arrow_schema(columns: Sequence[tuple[str, HiveType]]) -> pa.Schema:
    """The six ACID columns as Arrow, matching :func:`~hiveacid_sql.acid.hive_types.acid_event_schema`."""
    return pa.schema([*_EVENT_KEY_FIELDS, pa.field("row", row_arrow_type(columns))])


def conform_rows(
    row: pa.ChunkedArray,
    columns: Sequence[tuple[str, HiveType]],
    where: str = "",
    *,
    arrow_orc_writer: bool = True,
) -> pa.ChunkedArray:
    """The ``row`` struct column as :func:`row_arrow_type` with Hive's value rules applied.

    ``row`` must have passed :func:`~hiveacid_sql.acid.event_batch.check_row_type`. Raises
    :class:`AcidFormatError` for a value the column cannot hold (an integer out of range, a timestamp
    with nanoseconds) or ORC cannot store: a timestamp in 1969-12-31 23:59:59.001 .. 23:59:59.999999
    (:func:`refuse_unstorable_timestamps`). With ``arrow_orc_writer`` (the values go to pyarrow's ORC
    writer) it also refuses any timestamp before 1970 with a fraction of a second, which that writer stores
    with negative nanoseconds that Hive, Spark and Trino refuse to read.
    """
    target = row_arrow_type(columns)
    if row.type == target and not any(_values_need_work(t) for _, t in columns):
        return row  # what Spark hands over for most tables: nothing to do
    struct_type = HiveType("struct", (), tuple((name.lower(), t) for name, t in columns))
    chunks = [_conform(chunk, struct_type, "", where, arrow_orc_writer) for chunk in row.chunks]
    return pa.chunked_array(chunks, type=target)


def _values_need_work(t: HiveType) -> bool:
    """Whether values of the exact Arrow type may still need a rule (truncation, padding, a check)."""
    if t.name in ("varchar", "char", "timestamp"):
        return True
    children = [ft for _, ft in t.fields] if t.name == "struct" else list(t.children)
    return any(_values_need_work(c) for c in children)


def _conform(arr: pa.Array, t: HiveType, what: str, where: str, arrow_orc: bool) -> pa.Array:
    """One array to ``arrow_type(t)``; ``what`` names the column (nested: ``c.field``) for errors."""
    name = t.name
    target = arrow_type(t)
    if name == "struct":
        children = arr.flatten()  # the parent's NULLs merged into each child
        conformed = [
            _conform(child, ft, f"{what}.{fname}" if what else fname, where, arrow_orc)
            for child, (fname, ft) in zip(children, t.fields, strict=True)
        ]
        return pa.StructArray.from_arrays(conformed, fields=list(target), mask=_mask(arr))
    if name in ("array", "map"):
        return _conform_nested_list(arr, t, target, what, where, arrow_orc)
    if name == "decimal":
        return conform_decimal(arr, t.precision, t.scale, what, where)
    arr = _cast(arr, target, what, where)
    if name == "varchar":
        return _truncate(arr, t.length)
    if name == "char":
        arr = _truncate(arr, t.length)
        if len(arr) - arr.null_count and pc.min(pc.utf8_length(arr)).as_py() < t.length:
            arr = pc.utf8_rpad(arr, t.length, " ")
        return arr
    if name == "timestamp":
        if arrow_orc:
            _refuse_fractional_before_1970(arr, what, where)
        refuse_unstorable_timestamps(arr, what, where)
    return arr


def _conform_nested_list(
    arr: pa.Array, t: HiveType, target: pa.DataType, what: str, where: str, arrow_orc: bool
) -> pa.Array:
    """list/map: rebuild from offsets re-based at 0 (pyarrow refuses a NULL mask over sliced offsets)."""
    offsets = arr.offsets
    start = offsets[0].as_py()
    length = offsets[-1].as_py() - start
    if start:
        offsets = pc.subtract(offsets, pa.scalar(start, offsets.type))
    offsets = offsets.cast(pa.int32())
    if t.name == "array":
        values = _conform(arr.values.slice(start, length), t.children[0], f"{what}[]", where, arrow_orc)
        return pa.ListArray.from_arrays(offsets, values, type=target, mask=_mask(arr))
    keys = _conform(arr.keys.slice(start, length), t.children[0], f"{what}.key", where, arrow_orc)
    items = _conform(arr.items.slice(start, length), t.children[1], f"{what}.value", where, arrow_orc)
    return pa.MapArray.from_arrays(offsets, keys, items, type=target, mask=_mask(arr))


def _mask(arr: pa.Array) -> pa.Array | None:
    return arr.is_null() if arr.null_count else None


def _cast(arr: pa.Array, target: pa.DataType, what: str, where: str) -> pa.Array:
    if arr.type == target:
        return arr
    if pa.types.is_timestamp(arr.type) and arr.type.tz is not None:
        arr = arr.cast(pa.timestamp(arr.type.unit))  # an instant: its UTC wall clock, as row_converter
    try:
        return arr.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise AcidFormatError(f"{where}column {what}: cannot store {arr.type} values as {target}: {exc}") from exc


def _truncate(arr: pa.Array, length: int) -> pa.Array:
    """At most ``length`` characters (code points, as Hive counts them); copies only when needed."""
    if len(arr) - arr.null_count and pc.max(pc.utf8_length(arr)).as_py() > length:
        return pc.utf8_slice_codeunits(arr, 0, length)
    return arr


def conform_decimal(arr: pa.Array, precision: int, scale: int, what: str, where: str) -> pa.Array:
    """Round HALF_UP (away from zero) to ``scale``; NULL where the result needs more than ``precision``."""
    target = pa.decimal128(precision, scale)
    if arr.type == target:
        return arr
    in_scale = arr.type.scale if pa.types.is_decimal(arr.type) else 0
    wide = _cast(arr, pa.decimal256(76, in_scale), what, where)
    if in_scale > scale:
        wide = pc.round(wide, ndigits=scale, round_mode="half_towards_infinity")
    wide = _cast(wide, pa.decimal256(76, scale), what, where)
    limit = pa.scalar(Decimal(10) ** (precision - scale), pa.decimal256(76, scale))
    too_wide = pc.greater_equal(pc.abs(wide), limit)
    if pc.any(too_wide).as_py():
        wide = pc.if_else(too_wide, pa.scalar(None, wide.type), wide)
    return _cast(wide, target, what, where)


#: Microseconds since 1970 that no ORC file can hold (the last second before 1970 with a fraction of a
#: millisecond or more): see :func:`refuse_unstorable_timestamps`.
UNSTORABLE_MICROS = (-999_000, -1)


def refuse_unstorable_timestamps(arr: pa.Array, what: str, where: str = "") -> None:
    """Refuse timestamps in 1969-12-31 23:59:59.001 .. 23:59:59.999999: ORC cannot store them.

    ORC stores seconds and nanoseconds apart, and ORC Java writes the seconds of a time before 1970
    rounded towards zero: ``TimestampTreeWriter`` takes ``millis / 1000`` (ORC C++ does the same with its
    ``secs < 0 && nanos > 999999`` correction), so -0.5 s is stored as 0 s and 500 ms. Its reader undoes
    that only when the result is negative (``TreeReaderFactory.TimestampTreeReader.readTimestamp``: ``millis
    < 0 && nanos > 999_999``), which a value in the last second before 1970 never is: the same bytes mean
    1970-01-01 00:00:00.5. So Hive 3.1, Spark and Trino read such a value one second later, whoever wrote
    it. Rather than store a value that reads back different, the write fails naming it.
    """
    if not len(arr) or arr.null_count == len(arr):
        return
    low, high = UNSTORABLE_MICROS
    micros = pc.fill_null(arr.cast(pa.int64()), 0).to_numpy()
    bad = np.flatnonzero((micros >= low) & (micros <= high))
    if bad.size:
        value = arr[int(bad[0])].as_py()
        raise AcidFormatError(
            f"{where}column {what}: ORC cannot store the timestamp {value} (between 1969-12-31 23:59:59.001 and "
            "1970-01-01: ORC readers, Hive's included, read it one second later)"
        )


def _refuse_fractional_before_1970(arr: pa.Array, what: str, where: str) -> None:
    """pyarrow's ORC writer splits a timestamp into seconds and nanoseconds with C++ integer division
    (towards zero), so a time before 1970 with a fraction of a second gets negative nanoseconds: an
    invalid ORC value that Hive, Spark and Trino refuse (``nanos > 999999999 or < 0``)."""
    micros = pc.fill_null(arr.cast(pa.int64()), 0).to_numpy()
    bad = np.flatnonzero((micros < 0) & (micros % _MICROS_PER_SECOND != 0))
    if bad.size:
        value = arr[int(bad[0])].as_py()
        raise AcidFormatError(
            f"{where}column {what}: the Arrow ORC writer cannot store {value} (before 1970 with a fraction of "
            "a second); write this table with the pyorc writer (open_event_writer picks it for timestamp columns)"
        )
