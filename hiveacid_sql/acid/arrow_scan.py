"""Read a snapshot's files (:mod:`hiveacid_sql.acid.scan_files`) into one Arrow table, with pyarrow alone.

The same reading rules as the Spark scan (:mod:`hiveacid_sql.exec.scan`) and Hive's vectorized reader:

* insert events come from the base and insert deltas; an event is live when its ``currentTransaction`` is
  valid in the snapshot (a multi-write-id delta, like Hive streaming's, holds rows of several transactions)
  and no applicable delete event carries its ``(originalTransaction, bucket, rowId)``;
* a delete event applies when its own ``currentTransaction`` is valid;
* original (pre-ACID) files get Hive's synthetic row ids (:func:`~hiveacid_sql.acid.scan_files.original_slices`);
  an original-named file that already holds ACID events is read as events, all visible (IMPALA-10115);
* columns are matched by position (schema evolution: a file written before ``ADD COLUMNS`` reads the new
  columns as NULL), converted to the table's types with Hive's rules: a ``timestamp`` is a wall-clock value
  (pyarrow's ORC reader already returns it as such) truncated to microseconds like Spark's reader, ``char(n)``
  padded to n, ``varchar(n)`` cut to n, decimals rescaled HALF_UP (NULL when too wide);
* partition column values come from the directory names (Hive's unescaping; the default partition is NULL).

Everything is vectorized: files are read whole (only the asked-for fields of ``row``) by pyarrow's ORC reader
on a thread pool, filters are Arrow compute kernels, and the delete anti join is a hash join on the three key
columns (:func:`anti_join_deletes`). No Spark, no SQL, no store.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.orc as porc
import pyorc

from hiveacid_sql.acid.arrow_values import arrow_type, conform_decimal
from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.names import ParsedBase, ParsedDelta, parse_dir_name
from hiveacid_sql.acid.orc_footer import FOOTERS, OrcFooter, read_footer
from hiveacid_sql.acid.partitions import parse_partition_name
from hiveacid_sql.acid.scan_files import (
    DirFiles,
    OriginalSlice,
    ScanFiles,
    event_fields,
    is_event_file,
    original_slices,
    raw_slices,
)
from hiveacid_sql.acid.writeids import RangeResponse, ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError

Columns = Sequence[tuple[str, HiveType]]

#: Internal key columns of a scanned piece (the row id), as the Spark scan names them.
OWID, BUCKET, ROWID = "__owid", "__bucket", "__rowid"
#: An event's ``currentTransaction`` (the write id that wrote it), as compaction's frames name it.
CWID = "__cwid"
KEYS = (OWID, BUCKET, ROWID)
ROW_ID = "row__id"
#: Hive's virtual ``row__id`` column as Arrow: ``struct<writeid:bigint, bucketid:int, rowid:bigint>``.
ROW_ID_TYPE = pa.struct([("writeid", pa.int64()), ("bucketid", pa.int32()), ("rowid", pa.int64())])
_KEY_TYPES = (pa.int64(), pa.int32(), pa.int64())
#: Arrow field metadata key holding a column's Hive type (``varchar(10)``), for callers that need more
#: than the Arrow type tells.
HIVE_TYPE_KEY = b"hive.type"
OP_INSERT, OP_DELETE = 0, 2


# ---------------------------------------------------------------------------------------------- types
def table_schema(columns: Columns) -> pa.Schema:
    """The Arrow schema of the table columns (:func:`~hiveacid_sql.acid.arrow_values.arrow_type`), each field
    carrying its Hive type in its metadata."""
    return pa.schema(
        [pa.field(name, arrow_type(t), metadata={HIVE_TYPE_KEY: t.to_string().encode()}) for name, t in columns]
    )


def writer_offset_seconds(fs: pafs.FileSystem, path: str) -> int:
    """UTC offset, at the epoch, of the time zone the ORC file's writer recorded (0 for UTC writers)."""
    try:
        with fs.open_input_file(path) as f:
            reader = pyorc.Reader(f)
            name = reader.read_stripe(0).writer_timezone if reader.num_of_stripes else "UTC"
        offset = zoneinfo.ZoneInfo(name or "UTC").utcoffset(dt.datetime(1970, 1, 1))
    except (pyorc.ParseError, OSError, zoneinfo.ZoneInfoNotFoundError, ValueError):
        return 0
    return int(offset.total_seconds()) if offset else 0


def _java_pre_epoch_rule(ns: np.ndarray, writer_offset: int) -> np.ndarray:
    """Undo where ORC C++ and ORC Java disagree: a value with a fraction of a second within the writer's UTC
    offset of the epoch. Both readers take a second off a pre-1970 value with a fraction (the writer stored
    it rounded towards zero), but C++ tests the sign of the wall clock in the reader's zone and Java (Hive,
    Spark, pyorc) that of the instant, which is what the writer rounded; so Java's answer is kept."""
    secs = np.floor_divide(ns, 1_000_000_000)
    fraction = ns - secs * 1_000_000_000
    late = fraction > 999_999
    add = late & (secs < 0) & (secs + 1 - writer_offset >= 0)
    sub = late & (secs >= 0) & (secs - writer_offset < 0)
    if add.any() or sub.any():
        ns = ns + 1_000_000_000 * add.astype(np.int64) - 1_000_000_000 * sub.astype(np.int64)
    return ns


def _floor_micros(arr: pa.Array, writer_offset: int = 0) -> pa.Array:
    """A timestamp array as ``timestamp[us]``, nanoseconds dropped towards the past (Spark's reader does
    ``millis * 1000 + nanos / 1000`` with nanos >= 0, i.e. a floor), whatever its unit."""
    if arr.type == pa.timestamp("us"):
        return arr
    unit = arr.type.unit
    ints = pc.fill_null(arr.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    if unit == "ns":
        if writer_offset:
            ints = _java_pre_epoch_rule(ints, writer_offset)
        ints = np.floor_divide(ints, 1000)
    elif unit in ("ms", "s"):
        ints = ints * (1000 if unit == "ms" else 1_000_000)
    mask = arr.is_null().to_numpy(zero_copy_only=False) if arr.null_count else None
    return pa.array(ints, pa.int64(), mask=mask).cast(pa.timestamp("us"))


def _rebased_offsets(arr: pa.Array) -> tuple[pa.Array, int, int]:
    offsets = arr.offsets
    start = offsets[0].as_py()
    length = offsets[-1].as_py() - start
    if start:
        offsets = pc.subtract(offsets, pa.scalar(start, offsets.type))
    return offsets.cast(pa.int32()), start, length


def to_table_values(arr: pa.Array, physical: HiveType, table: HiveType, writer_offset: int = 0) -> pa.Array:
    """Values read from a file (``physical``: the file's Hive type of the column) as the table's type
    (``writer_offset``: :func:`writer_offset_seconds` of the file, for timestamps)."""
    target = arrow_type(table)
    mask = arr.is_null() if arr.null_count else None
    if table.name == "struct" and physical.name == "struct":
        children = arr.flatten() if isinstance(arr, pa.StructArray) else []
        fields = []
        for i, (_name, ftype) in enumerate(table.fields):
            if i < len(physical.fields):
                fields.append(to_table_values(children[i], physical.fields[i][1], ftype, writer_offset))
            else:
                fields.append(pa.nulls(len(arr), arrow_type(ftype)))
        return pa.StructArray.from_arrays(fields, fields=list(target), mask=mask)
    if table.name == "array" and physical.name == "array":
        offsets, start, length = _rebased_offsets(arr)
        values = to_table_values(arr.values.slice(start, length), physical.children[0], table.children[0], writer_offset)
        return pa.ListArray.from_arrays(offsets, values, type=target, mask=mask)
    if table.name == "map" and physical.name == "map":
        offsets, start, length = _rebased_offsets(arr)
        keys = to_table_values(arr.keys.slice(start, length), physical.children[0], table.children[0], writer_offset)
        items = to_table_values(arr.items.slice(start, length), physical.children[1], table.children[1], writer_offset)
        return pa.MapArray.from_arrays(offsets, keys, items, type=target, mask=mask)
    if table.name == "decimal":
        return conform_decimal(arr, table.precision, table.scale, "", "")
    if pa.types.is_timestamp(arr.type):
        arr = _floor_micros(arr, writer_offset)
    try:
        arr = arr if arr.type == target else arr.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise AcidFormatError(f"cannot read {physical.to_string()} values as {table.to_string()}: {exc}") from exc
    if table.name in ("char", "varchar") and len(arr) > arr.null_count:
        if pc.max(pc.utf8_length(arr)).as_py() > table.length:
            arr = pc.utf8_slice_codeunits(arr, 0, table.length)
        if table.name == "char" and pc.min(pc.utf8_length(arr)).as_py() < table.length:
            arr = pc.utf8_rpad(arr, table.length, " ")
    return arr


def _has_timestamp(t: HiveType) -> bool:
    return t.name == "timestamp" or any(_has_timestamp(c[1] if isinstance(c, tuple) else c) for c in t.children)


def _column(chunked: pa.ChunkedArray, physical: HiveType, table: HiveType, writer_offset: int = 0) -> pa.ChunkedArray:
    chunks = [to_table_values(c, physical, table, writer_offset) for c in chunked.chunks]
    return pa.chunked_array(chunks, type=arrow_type(table))


# ---------------------------------------------------------------------------------------------- reading
def valid_write_id_mask(cwid: pa.ChunkedArray, write_ids: ValidWriteIdList) -> pa.ChunkedArray | None:
    """Rows whose write id (``currentTransaction``) is valid in the snapshot (None: all of them)."""
    if len(cwid) == 0:
        return None
    lo, hi = pc.min_max(cwid).values()
    if write_ids.is_write_id_range_valid(lo.as_py(), hi.as_py()) is RangeResponse.ALL:
        return None
    mask = pc.less_equal(cwid, write_ids.high_watermark)
    if write_ids.exceptions:
        mask = pc.and_(mask, pc.invert(pc.is_in(cwid, pa.array(write_ids.exceptions, pa.int64()))))
    return mask


def read_orc_file(
    fs: pafs.FileSystem, path: str, columns: list[str] | None = None, stripe: int | None = None
) -> pa.Table:
    """The ``columns`` (None: all) of an ORC file, or of one of its stripes (a big file is read by several
    threads). Timestamps outside pyarrow's nanosecond range (before 1677, after 2262) are read too, as
    microseconds, through pyorc."""
    try:
        with fs.open_input_file(path) as f:
            orc = porc.ORCFile(f)
            if stripe is None:
                return orc.read(columns=columns)
            return pa.Table.from_batches([orc.read_stripe(stripe, columns=columns)])
    except pa.ArrowInvalid as exc:
        if "out of range for nanosecond" in str(exc):
            return _read_orc_micros(fs, path, columns, stripe)
        raise AcidFormatError(f"cannot read ORC file {path}: {exc}") from exc
    except OSError as exc:
        raise AcidFormatError(f"cannot read ORC file {path}: {exc}") from exc


class _MicrosConverter(pyorc.converters.ORCConverter):
    """ORC timestamps as microseconds since the epoch (pyarrow's reader only has nanoseconds). pyorc's ORC
    C++ already decodes a pre-1970 value with a fraction as ORC Java does, whatever the writer's zone (so
    :func:`_java_pre_epoch_rule` is for pyarrow's reader only; ``tests/unit/test_acid_arrow_scan.py``)."""

    @staticmethod
    def from_orc(seconds: int, nanoseconds: int, timezone: object) -> int:
        return seconds * 1_000_000 + nanoseconds // 1000

    @staticmethod
    def to_orc(obj: object, timezone: object) -> tuple[int, int]:  # pragma: no cover - never written
        raise NotImplementedError


def _micros_type(t: pa.DataType) -> pa.DataType:
    if pa.types.is_timestamp(t):
        return pa.timestamp("us")
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _micros_type(f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(_micros_type(t.key_type), _micros_type(t.item_type))
    if pa.types.is_list(t):
        return pa.list_(_micros_type(t.value_type))
    return t


def _read_orc_micros(fs: pafs.FileSystem, path: str, columns: list[str] | None, stripe: int | None) -> pa.Table:
    """The slow path for a file holding timestamps outside pyarrow's nanosecond range (before 1677 or after
    2262): the rows through pyorc, timestamps as microseconds (one Python object per value, so only here)."""
    with fs.open_input_file(path) as f:
        schema = porc.ORCFile(f).schema
    with fs.open_input_file(path) as f:
        reader = pyorc.Reader(
            f, struct_repr=pyorc.StructRepr.DICT, timezone=zoneinfo.ZoneInfo("UTC"),
            converters={pyorc.TypeKind.TIMESTAMP: _MicrosConverter},
        )
        rows = list(reader.read_stripe(stripe) if stripe is not None else reader)
    table = pa.Table.from_pylist(rows, schema=pa.schema([pa.field(f.name, _micros_type(f.type)) for f in schema]))
    if columns is None:
        return table
    out: dict[str, pa.ChunkedArray] = {}
    for name in columns:  # "row.x" asks for field x of the struct column row, as pyarrow's reader takes it
        top, _, child = name.partition(".")
        if not child:
            out[top] = table.column(top)
            continue
        parent = table.column(top).combine_chunks()
        picked = out.get(top)
        fields = [*(list(picked.type) if picked is not None else []), parent.type.field(child)]
        arrays = [*(picked.combine_chunks().flatten() if picked is not None else []), parent.field(child)]
        out[top] = pa.chunked_array([pa.StructArray.from_arrays(arrays, fields=fields, mask=parent.is_null())])
    order = [c.name for c in schema if c.name in out]
    return pa.table({name: out[name] for name in order})


def _only_events_of(footer: OrcFooter, op: int) -> bool:
    """Whether the file's ``hive.acid.stats`` (inserts,updates,deletes, written by Hive and by us) says every
    event is an insert (``op`` 0) or a delete (2): then the ``operation`` column need not be read."""
    try:
        counts = tuple(int(x) for x in footer.metadata["hive.acid.stats"].decode().split(","))
    except (KeyError, ValueError, UnicodeDecodeError):
        return False
    n = footer.num_rows
    return counts == ((n, 0, 0) if op == OP_INSERT else (0, 0, n))


def _all_write_ids_valid(path: str, write_ids: ValidWriteIdList) -> bool:
    """Whether every event of a file in a base or delta directory has a valid ``currentTransaction``, known from
    the directory name alone: a ``delta_x_y`` holds write ids x..y, a ``base_N`` write ids up to N. Then the
    column need not be read; otherwise (a streaming delta with an open write id) rows are filtered one by one."""
    parts = path.rstrip("/").rsplit("/", 2)
    try:
        parsed = parse_dir_name(parts[-2]) if len(parts) == 3 else None
    except AcidFormatError:
        return False
    if isinstance(parsed, ParsedDelta):
        return write_ids.is_write_id_range_valid(parsed.min_write_id, parsed.max_write_id) is RangeResponse.ALL
    if isinstance(parsed, ParsedBase):
        return parsed.write_id <= write_ids.high_watermark and not any(e <= parsed.write_id for e in write_ids.exceptions)
    return False


def _read_events(
    fs: pafs.FileSystem,
    footer: OrcFooter,
    table_columns: Columns,
    wanted: Sequence[int],
    write_ids: ValidWriteIdList | None,
    *,
    keys: bool,
    delete: bool = False,
    stripe: int | None = None,
    current: bool = False,
) -> pa.Table:
    """Insert (or, with ``delete``, delete) events of one event file (or one ``stripe`` of it) that are valid
    in ``write_ids`` (None: every event): the key columns when ``keys``, then the table columns at positions
    ``wanted``. The ``operation`` and ``currentTransaction`` columns are read only when the file's stats and
    directory name leave a doubt, or (``current``) to return ``currentTransaction`` as ``__cwid`` after the keys."""
    fields = event_fields(footer)
    op, owid, bucket, rowid, cwid, row = (name for name, _ in fields)
    phys_row = fields[5][1].fields
    readable = [i for i in wanted if i < len(phys_row)]
    kind = OP_DELETE if delete else OP_INSERT
    check_op = not _only_events_of(footer, kind)
    check_cwid = write_ids is not None and not _all_write_ids_valid(footer.path, write_ids)
    names = ([op] if check_op else []) + ([cwid] if check_cwid or current else [])
    if keys:
        names += [owid, bucket, rowid]
    if not delete:
        names += [f"{row}.{phys_row[i][0]}" for i in readable] if readable else [row]
    raw = read_orc_file(fs, footer.path, names, stripe)  # columns come back in file order, named as in the file
    mask = pc.equal(raw.column(op), kind) if check_op else None
    if check_cwid:
        assert write_ids is not None  # check_cwid needs them
        valid = valid_write_id_mask(raw.column(cwid), write_ids)
        if valid is not None:
            mask = valid if mask is None else pc.and_(mask, valid)
    out: dict[str, pa.ChunkedArray] = {}
    if keys:
        for name, key, t in zip((owid, bucket, rowid), KEYS, _KEY_TYPES, strict=True):
            out[key] = raw.column(name).cast(t)
    if current:
        out[CWID] = raw.column(cwid).cast(pa.int64())
    if not delete:
        row_col = raw.column(row)
        if row_col.null_count:
            mask = pc.is_valid(row_col) if mask is None else pc.and_(mask, pc.is_valid(row_col))
        parts = row_col.flatten() if readable else []
        by_pos = dict(zip(readable, parts, strict=True))
        offset = writer_offset_seconds(fs, footer.path) if any(_has_timestamp(phys_row[i][1]) for i in readable) else 0
        for i in wanted:
            name, htype = table_columns[i]
            out[name] = (
                _column(by_pos[i], phys_row[i][1], htype, offset) if i in by_pos
                else pa.chunked_array([pa.nulls(raw.num_rows, arrow_type(htype))])
            )
    table = pa.table(out) if out else raw.select([])
    if mask is not None and pc.all(mask).as_py() is not True:
        table = table.filter(mask)
    return table


def compaction_events(
    fs: pafs.FileSystem,
    path: str,
    table_columns: Columns,
    write_ids: ValidWriteIdList | None,
    *,
    delete: bool,
    footer: OrcFooter | None = None,
) -> pa.Table:
    """Every insert (or, with ``delete``, delete) event of one event file whose ``currentTransaction`` is valid
    in ``write_ids`` (None: all): ``__owid, __bucket, __rowid, __cwid``, then (insert events) every table
    column converted to the table's type. What a compaction reads of its inputs where Spark cannot read them
    (an object store: ``exec/compact.py``), and what a scan reads of small files on the driver
    (:mod:`hiveacid_sql.acid.small_events`)."""
    wanted = () if delete else range(len(table_columns))
    footer = footer if footer is not None else read_footer(fs, path)  # a caller may hold it (the footer cache)
    return _read_events(fs, footer, table_columns, wanted, write_ids, keys=True, delete=delete, current=True)


def _read_original(
    fs: pafs.FileSystem, piece: OriginalSlice, table_columns: Columns, wanted: Sequence[int], *, keys: bool
) -> pa.Table:
    """An original file's rows with their synthetic row ids (``keys``) and the table columns at ``wanted``."""
    footer = read_footer(fs, piece.path)
    root = parse_hive_type(footer.type_string)
    phys = list(root.fields) if root.name == "struct" else []
    readable = [i for i in wanted if i < len(phys)]
    raw = read_orc_file(fs, piece.path, [phys[i][0] for i in readable]) if readable else None
    n = footer.num_rows
    out: dict[str, pa.Array | pa.ChunkedArray] = {}
    if keys:
        out[OWID] = pa.array(np.full(n, piece.write_id, dtype=np.int64))
        out[BUCKET] = pa.array(np.full(n, piece.bucket, dtype=np.int32))
        out[ROWID] = pa.array(np.arange(piece.start, piece.start + n, dtype=np.int64))
    offset = writer_offset_seconds(fs, piece.path) if any(_has_timestamp(phys[i][1]) for i in readable) else 0
    for i in wanted:
        name, htype = table_columns[i]
        if i < len(phys):
            assert raw is not None  # i is readable, so the file was read
            out[name] = _column(raw.column(readable.index(i)), phys[i][1], htype, offset)
        else:
            out[name] = pa.nulls(n, arrow_type(htype))
    return pa.table(out) if out else pa.table({"_": pa.nulls(n)}).select([])


def original_rows(
    fs: pafs.FileSystem, piece: OriginalSlice, table_columns: Columns
) -> pa.Table:
    """Every table column of an original file with its synthetic row id columns (``__owid``, ``__bucket``,
    ``__rowid``) first: what the Spark scan's original-file tasks produce."""
    return _read_original(fs, piece, table_columns, range(len(table_columns)), keys=True)


class DeleteSet:
    """Applicable delete events, grouped by ``(originalTransaction, bucket)`` with their sorted row ids.

    Most files hold the rows of one write id and one bucket, in row id order (Hive writes them so), so a
    file's deleted rows are found by binary search of the few delete row ids of its ``(owid, bucket)``: the
    cost grows with the deletes, not with the file. Other files (a compacted base, original files read with
    several buckets) go through a hash join on the three key columns.
    """

    def __init__(self, deletes: pa.Table) -> None:
        self.table = deletes.select(list(KEYS))
        self.by_key: dict[tuple[int, int], np.ndarray] = {}
        if deletes.num_rows:
            order = pc.sort_indices(self.table, sort_keys=[(k, "ascending") for k in KEYS])
            owid, bucket, rowid = (self.table.column(k).take(order).to_numpy() for k in KEYS)
            starts = np.flatnonzero(np.r_[True, (owid[1:] != owid[:-1]) | (bucket[1:] != bucket[:-1])])
            for start, stop in zip(starts, [*starts[1:], owid.size], strict=True):
                self.by_key[(int(owid[start]), int(bucket[start]))] = np.unique(rowid[start:stop])

    def deleted(self, data: pa.Table) -> np.ndarray | None:
        """Positions of ``data``'s rows that have a delete event (None: none)."""
        if data.num_rows == 0 or not self.by_key:
            return None
        owid, bucket = pc.min_max(data.column(OWID)), pc.min_max(data.column(BUCKET))
        if owid["min"] == owid["max"] and bucket["min"] == bucket["max"]:
            wanted = self.by_key.get((owid["min"].as_py(), bucket["min"].as_py()))
            if wanted is None:
                return None
            rows = data.column(ROWID).combine_chunks().to_numpy()
            if rows.size < 2 or bool(np.all(rows[1:] > rows[:-1])):
                pos = np.searchsorted(rows, wanted)
                inside = pos < rows.size
                pos = pos[inside]
                hits = pos[rows[pos] == wanted[inside]]
                return hits if hits.size else None
        return self._hash_join(data)

    def _hash_join(self, data: pa.Table) -> np.ndarray | None:
        # Only rows whose row id occurs among the deletes go into the join (one hash lookup per row); the join
        # carries row positions, never the payload (Acero's join refuses nested payload columns).
        candidate = pc.is_in(data.column(ROWID), value_set=pc.unique(self.table.column(ROWID).combine_chunks()))
        positions = pc.indices_nonzero(candidate.combine_chunks() if isinstance(candidate, pa.ChunkedArray) else candidate)
        if len(positions) == 0:
            return None
        keys = data.select(list(KEYS)).take(positions).append_column("__pos", positions)
        unique = self.table.group_by(list(KEYS)).aggregate([])
        hit = keys.join(unique, keys=list(KEYS), join_type="left semi")
        return hit.column("__pos").to_numpy() if hit.num_rows else None


def anti_join_deletes(data: pa.Table, deletes: pa.Table | DeleteSet, *, drop_keys: bool = False) -> pa.Table:
    """Rows of ``data`` whose ``(__owid, __bucket, __rowid)`` is not in ``deletes``, in their order (``data``
    itself, no copy, when none is deleted; ``drop_keys``: without the three key columns, dropped before
    the rows are copied)."""
    deletes = deletes if isinstance(deletes, DeleteSet) else DeleteSet(deletes)
    hits = deletes.deleted(data)
    if drop_keys:
        data = data.drop_columns(list(KEYS))
    if hits is None:
        return data
    if hits.size <= _SLICE_MAX_HITS:  # a few deleted rows: zero-copy slices around them
        hits = np.sort(hits)
        bounds = zip(np.r_[0, hits + 1], np.r_[hits, data.num_rows], strict=True)
        return pa.concat_tables([data.slice(a, b - a) for a, b in bounds if b > a] or [data.slice(0, 0)])
    keep = np.ones(data.num_rows, dtype=bool)
    keep[hits] = False
    return data.filter(pa.array(keep))


#: Up to this many deleted rows in a piece, the survivors are slices of it rather than a filtered copy.
_SLICE_MAX_HITS = 16


def _concat(pieces: list[pa.Table], schema: pa.Schema) -> pa.Table:
    if not len(schema):  # no column asked for (a count): concat_tables would lose the row count
        return pa.table({"_": pa.nulls(sum(p.num_rows for p in pieces))}).select([])
    pieces = [p.cast(schema) if p.schema != schema else p for p in pieces]
    if not pieces:
        return schema.empty_table()
    # from_arrays keeps the schema's field metadata (the Hive types), which concat and cast leave out.
    return pa.Table.from_arrays(pa.concat_tables(pieces).columns, schema=schema)


def partition_arrays(part_dir: str, partition_columns: Columns, n: int) -> dict[str, pa.Array]:
    """The partition columns' values of ``n`` rows of the directory ``part_dir`` (Hive's escaped ``k=v/..``;
    the default partition and values the type cannot hold: NULL)."""
    values = [v for _k, v in parse_partition_name(part_dir)] if part_dir else []
    out = {}
    for (name, htype), raw in zip(partition_columns, values, strict=True):
        target = arrow_type(htype)
        if raw is None:
            out[name] = pa.nulls(n, target)
            continue
        try:
            value = pa.array([raw]).cast(target) if not pa.types.is_decimal(target) else None
            if value is None:
                value = conform_decimal(pa.array([raw]).cast(pa.decimal128(38, min(htype.scale + 10, 38))),
                                 htype.precision, htype.scale, "", "")
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            value = pa.nulls(1, target)  # as Spark's cast: a value the type cannot hold is NULL
        out[name] = pa.repeat(value[0], n) if value[0].is_valid else pa.nulls(n, target)
    return out


def _map(fn: Callable, items: list, threads: int) -> list:
    if threads <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(fn, items))


def scan_dir(
    fs: pafs.FileSystem,
    d: DirFiles,
    table_columns: Columns,
    partition_columns: Columns,
    write_ids: ValidWriteIdList,
    *,
    wanted: Sequence[int],
    row_id: bool = False,
    threads: int = 1,
) -> pa.Table:
    """Live rows of one ACID directory: ``row__id`` (when asked), the table columns at ``wanted``, then the
    partition columns."""
    keys = row_id or bool(d.delete_files)
    # through the process's footer cache, keyed by the listing's size and time (the scan read them already)
    footers = _map(
        lambda p: FOOTERS.footer(fs, p, *d.stats.get(p, (None, None))), [*d.data_files, *d.original_files, *d.delete_files],
        threads,
    )
    by_path = {f.path: f for f in footers}
    data_footers = [by_path[p] for p in d.data_files if by_path[p].num_rows]
    # plain files in base/delta directories (an insert-only table converted to full ACID): synthetic row ids
    raw = {f.path: f.num_rows for f in data_footers if not is_event_file(f)}
    data_footers = [f for f in data_footers if f.path not in raw]
    original_footers = [by_path[p] for p in d.original_files]
    # An original-named file holding ACID events (IMPALA-10115) is read as events, all of them visible.
    event_originals = [f for f in original_footers if f.num_rows and is_event_file(f)]
    plain = {f.path: f.num_rows for f in original_footers if f not in event_originals}
    stripes = [(f, i if f.num_stripes > 1 else None) for f in data_footers for i in range(max(f.num_stripes, 1))]
    jobs: list[Callable[[], pa.Table]] = [
        *[lambda f=f, i=i: _read_events(fs, f, table_columns, wanted, write_ids, keys=keys, stripe=i) for f, i in stripes],
        *[lambda f=f: _read_events(fs, f, table_columns, wanted, None, keys=keys) for f in event_originals],
        *[lambda s=s: _read_original(fs, s, table_columns, wanted, keys=keys) for s in original_slices([d], plain)],
        *[lambda s=s: _read_original(fs, s, table_columns, wanted, keys=keys) for s in raw_slices(d, raw)],
    ]
    schema = table_schema([table_columns[i] for i in wanted])
    if keys:
        schema = pa.schema([pa.field(k, t) for k, t in zip(KEYS, _KEY_TYPES, strict=True)] + list(schema))
    delete_footers = [by_path[p] for p in d.delete_files if by_path[p].num_rows]
    delete_jobs = [lambda f=f: _read_events(fs, f, table_columns, (), write_ids, keys=True, delete=True) for f in delete_footers]
    pieces = _map(lambda job: job(), jobs + delete_jobs, threads)
    data_pieces = pieces[: len(jobs)]
    if delete_jobs:
        deletes = DeleteSet(pa.concat_tables(pieces[len(jobs) :]))
        # piece by piece: one file, mostly one (write id, bucket)
        data_pieces = [anti_join_deletes(p, deletes, drop_keys=not row_id) for p in data_pieces]
        if not row_id:
            keys = False
            schema = pa.schema([f for f in schema if f.name not in KEYS])
    data = _concat(data_pieces, schema)
    if row_id:
        struct = pa.StructArray.from_arrays(
            [data.column(k).combine_chunks() for k in KEYS], fields=list(ROW_ID_TYPE)
        )
        data = data.drop_columns(list(KEYS))
        data = data.add_column(0, ROW_ID, pa.chunked_array([struct], ROW_ID_TYPE))
    elif keys:
        data = data.drop_columns(list(KEYS))
    for name, arr in partition_arrays(d.part_dir, partition_columns, data.num_rows).items():
        data = data.append_column(pa.field(name, arr.type), arr)
    return data


def scan_snapshot(
    fs: pafs.FileSystem,
    files: ScanFiles,
    table_columns: Columns,
    partition_columns: Columns,
    write_ids: ValidWriteIdList,
    *,
    columns: Sequence[str] | None = None,
    row_id: bool = False,
    threads: int = 4,
) -> pa.Table:
    """Live rows of a snapshot's files as one Arrow table.

    Columns: ``row__id`` first when ``row_id``, then ``columns`` (names of table or partition columns, in
    the order given; default: every table column, then the partition columns).
    """
    all_names = [n for n, _ in table_columns] + [n for n, _ in partition_columns]
    lower = {n.lower(): n for n in all_names}
    if columns is None:
        picked = all_names
    else:
        missing = [c for c in columns if c.lower() not in lower]
        if missing:
            raise AcidFormatError(f"no column {missing[0]!r} in the table; columns: {', '.join(all_names)}")
        picked = [lower[c.lower()] for c in columns]
    data_names = {n.lower(): i for i, (n, _) in enumerate(table_columns)}
    wanted = sorted({data_names[c.lower()] for c in picked if c.lower() in data_names})
    per_dir = [
        scan_dir(fs, d, table_columns, partition_columns, write_ids, wanted=wanted, row_id=row_id, threads=threads)
        for d in files.dirs
    ]
    schema = table_schema([table_columns[i] for i in wanted] + list(partition_columns))
    if row_id:
        schema = pa.schema([pa.field(ROW_ID, ROW_ID_TYPE), *schema])
    out = _concat(per_dir, schema)
    return out.select(([ROW_ID] if row_id else []) + picked)
