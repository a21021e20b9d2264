"""Check a batch of ACID events given as Arrow data, with numpy, before any of it is written.

Both event writers take whole Arrow batches (``write_batch``) from Spark tasks, so the per-event checks of
the row-at-a-time API (key order, insert/delete separation, ``row`` NULL exactly for deletes) run here once
per batch as array operations. A batch that fails any check is refused whole with one
:class:`AcidFormatError` line naming the first offending event, so a refused batch writes nothing.

This layer knows nothing of SQL, Spark or SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from hiveacid_sql.acid.hive_types import ACID_COLUMN_NAMES, HiveType
from hiveacid_sql.errors import AcidFormatError

__all__ = ["EVENT_KEY_TYPES", "EventBatch", "check_event_batch", "check_row_type"]

#: Arrow types of the five scalar ACID columns, in order (ORC int, bigint, int, bigint, bigint).
EVENT_KEY_TYPES: tuple[pa.DataType, ...] = (pa.int32(), pa.int64(), pa.int32(), pa.int64(), pa.int64())

_OP_INSERT = 0
_OP_DELETE = 2
_KINDS = {_OP_INSERT: "insert", _OP_DELETE: "delete"}

Key = tuple[int, int, int]


@dataclass(frozen=True)
class EventBatch:
    """A batch that passed every check.

    ``table`` holds the six columns as given; ``operation`` is 0 (inserts) or 2 (deletes), ``None`` for an
    empty batch; ``first_key``/``last_key`` are the (originalTransaction, bucket, rowId) of its first and
    last event.
    """

    table: pa.Table
    operation: int | None
    first_key: Key | None
    last_key: Key | None

    @property
    def num_rows(self) -> int:
        """Events in the batch."""
        return self.table.num_rows


def check_event_batch(
    events: pa.Table | pa.RecordBatch,
    columns: Sequence[tuple[str, HiveType]],
    *,
    after: Key | None = None,
    where: str = "",
) -> EventBatch:
    """Check ``events`` against the ACID event layout of a table with ``columns``; raise or return it.

    ``events`` has the six ACID columns named and typed exactly (``operation`` int32, ``originalTransaction``
    int64, ``bucket`` int32, ``rowId`` int64, ``currentTransaction`` int64, ``row`` struct of the table
    columns in table order, or of Arrow type null in a batch of deletes). Checked: no NULL key, one kind of
    event per batch (0 = insert, 2 = delete), inserts with a non-NULL ``row`` and originalTransaction ==
    currentTransaction, deletes with a NULL ``row``, non-negative write ids and row ids, and keys strictly
    ascending within the batch and after ``after`` (the last key already written). ``where`` prefixes
    every message (the file path).
    """
    table = _as_table(events, where)
    n = table.num_rows
    for i, (name, want) in enumerate(zip(ACID_COLUMN_NAMES[:5], EVENT_KEY_TYPES, strict=True)):
        col = table.column(i)
        if col.null_count:
            raise AcidFormatError(
                f"{where}{name} must not be NULL ({col.null_count} NULL values in the batch)"
            )
        if col.type != want:
            raise AcidFormatError(f"{where}{name} must be Arrow {want}, got {col.type}")
    row = table.column(5)
    if n == 0:
        return EventBatch(table, None, None, None)
    op = _np(table.column(0))
    kind = int(op[0])
    mixed = np.flatnonzero(op != kind)
    if kind not in _KINDS:
        raise AcidFormatError(
            f"{where}operation must be 0 (insert) or 2 (delete), got {kind}: Hive 3 writes an UPDATE as a "
            "delete event and an insert event"
        )
    if mixed.size:
        raise AcidFormatError(
            f"{where}one batch holds {_KINDS[kind]} events and operation {int(op[mixed[0]])}: insert and "
            "delete events go to separate delta/delete_delta files"
        )
    owid, bucket, row_id, cwid = (_np(table.column(i)) for i in (1, 2, 3, 4))
    for name, values in (("originalTransaction", owid), ("rowId", row_id), ("currentTransaction", cwid)):
        bad = np.flatnonzero(values < 0)
        if bad.size:
            raise AcidFormatError(f"{where}{name} {int(values[bad[0]])} out of range [0, {(1 << 63) - 1}]")
    if kind == _OP_INSERT:
        check_row_type(row.type, columns, where)
        if row.null_count:
            raise AcidFormatError(f"{where}insert events need a row: {row.null_count} NULL rows in the batch")
        differs = np.flatnonzero(owid != cwid)
        if differs.size:
            i = int(differs[0])
            raise AcidFormatError(
                f"{where}insert event {_key(owid, bucket, row_id, i)} has originalTransaction {int(owid[i])} "
                f"!= currentTransaction {int(cwid[i])}: an insert event is created by its own write id"
            )
    else:
        if not pa.types.is_null(row.type):
            check_row_type(row.type, columns, where)
        if row.null_count != n:
            raise AcidFormatError(
                f"{where}delete events carry no row: {n - row.null_count} non-NULL rows in the batch"
            )
    _check_order(owid, bucket, row_id, after, where)
    return EventBatch(table, kind, _key(owid, bucket, row_id, 0), _key(owid, bucket, row_id, n - 1))


def check_row_type(row_type: pa.DataType, columns: Sequence[tuple[str, HiveType]], where: str = "") -> None:
    """Refuse a ``row`` Arrow type that cannot hold the table's columns.

    The struct must have one field per table column, in table order, named like the column (top-level
    names compare case-insensitively: Hive lower-cases them). Each field must be an Arrow type the writers
    convert to the column's Hive type without guessing (see :func:`_check_value_type`).
    """
    if not pa.types.is_struct(row_type):
        raise AcidFormatError(f"{where}row must be an Arrow struct of the table columns, got {row_type}")
    names = [row_type.field(i).name for i in range(row_type.num_fields)]
    want = [name for name, _ in columns]
    if [n.lower() for n in names] != [n.lower() for n in want]:
        raise AcidFormatError(
            f"{where}row fields {names} do not match the table columns {want} (in table order)"
        )
    for i, (name, htype) in enumerate(columns):
        _check_value_type(row_type.field(i).type, htype, name, where)


def _check_value_type(arrow_type: pa.DataType, t: HiveType, what: str, where: str) -> None:
    """One Arrow type against one Hive type, recursively (nested struct names must match exactly)."""
    name = t.name
    ok: bool
    if name in ("tinyint", "smallint", "int", "bigint"):
        ok = pa.types.is_integer(arrow_type)
    elif name in ("float", "double"):
        ok = pa.types.is_floating(arrow_type) or pa.types.is_integer(arrow_type)
    elif name == "decimal":
        ok = pa.types.is_decimal(arrow_type) or pa.types.is_integer(arrow_type)
    elif name in ("string", "varchar", "char"):
        ok = pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)
    elif name == "boolean":
        ok = pa.types.is_boolean(arrow_type)
    elif name == "date":
        ok = pa.types.is_date(arrow_type)
    elif name == "timestamp":
        ok = pa.types.is_timestamp(arrow_type)
    elif name == "binary":
        ok = pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type)
    elif name == "array":
        ok = pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type)
        if ok:
            _check_value_type(arrow_type.value_type, t.children[0], f"{what}[]", where)
    elif name == "map":
        ok = pa.types.is_map(arrow_type)
        if ok:
            _check_value_type(arrow_type.key_type, t.children[0], f"{what}.key", where)
            _check_value_type(arrow_type.item_type, t.children[1], f"{what}.value", where)
    elif name == "struct":
        ok = pa.types.is_struct(arrow_type) and [
            arrow_type.field(i).name for i in range(arrow_type.num_fields)
        ] == [n for n, _ in t.fields]
        if ok:
            for i, (fname, ftype) in enumerate(t.fields):
                _check_value_type(arrow_type.field(i).type, ftype, f"{what}.{fname}", where)
    else:
        ok = False
    if not ok:
        raise AcidFormatError(
            f"{where}column {what}: cannot write Arrow {arrow_type} values as Hive {t.to_string()}"
        )


def _check_order(
    owid: np.ndarray, bucket: np.ndarray, row_id: np.ndarray, after: Key | None, where: str
) -> None:
    """Keys strictly ascending by (originalTransaction, bucket as a signed int, rowId), also across batches."""
    if after is not None:
        first = _key(owid, bucket, row_id, 0)
        if not first > after:
            _order_error(first, after, where)
    if owid.size < 2:
        return
    o0, o1 = owid[:-1], owid[1:]
    b0, b1 = bucket[:-1], bucket[1:]
    r0, r1 = row_id[:-1], row_id[1:]
    ascending = (o1 > o0) | ((o1 == o0) & ((b1 > b0) | ((b1 == b0) & (r1 > r0))))
    bad = np.flatnonzero(~ascending)
    if bad.size:
        i = int(bad[0])
        _order_error(_key(owid, bucket, row_id, i + 1), _key(owid, bucket, row_id, i), where)


def _order_error(key: Key, last: Key, where: str) -> None:
    what = "duplicate" if key == last else "out-of-order"
    raise AcidFormatError(
        f"{where}{what} event key {key} after {last}: events must be strictly ascending "
        "by (originalTransaction, bucket, rowId)"
    )


def _key(owid: np.ndarray, bucket: np.ndarray, row_id: np.ndarray, i: int) -> Key:
    return int(owid[i]), int(bucket[i]), int(row_id[i])


def _np(col: pa.ChunkedArray) -> np.ndarray:
    """A NULL-free integer column as numpy (zero-copy for a single chunk)."""
    return col.to_numpy()


def _as_table(events: object, where: str) -> pa.Table:
    if isinstance(events, pa.RecordBatch):
        events = pa.Table.from_batches([events])
    if not isinstance(events, pa.Table):
        raise AcidFormatError(
            f"{where}events must be a pyarrow Table or RecordBatch, got {type(events).__name__}"
        )
    if events.column_names != list(ACID_COLUMN_NAMES):
        raise AcidFormatError(
            f"{where}events must have the columns {list(ACID_COLUMN_NAMES)} in this order, got {events.column_names}"
        )
    return events
