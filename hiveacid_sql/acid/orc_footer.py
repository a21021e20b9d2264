"""What a reader needs from an ORC file before reading it: row count, schema, user metadata, and whether
its dates and timestamps may reach back before the Gregorian calendar.

Only the file tail is read, so choosing and grouping files stays cheap on the driver.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow.fs as pafs
import pyorc

from hiveacid_sql.acid.hive_types import quote_field_name
from hiveacid_sql.errors import AcidFormatError

#: From this day on the hybrid Julian/Gregorian and the proleptic Gregorian calendars agree
#: (1582-10-15, the Gregorian cut-over), with a margin for the coarse timestamp statistics
#: (milliseconds, ORC C++ rounds them) and for Spark's per-zone rebase tables.
GREGORIAN_SAFE_FROM = dt.date(1583, 1, 1)

_TEMPORAL = frozenset({pyorc.TypeKind.DATE, pyorc.TypeKind.TIMESTAMP, pyorc.TypeKind.TIMESTAMP_INSTANT})


@dataclass(frozen=True)
class OrcFooter:
    """The parts of an ORC footer the scan and the dumper use.

    ``pre_gregorian``: a date or timestamp column (at any depth) may hold a value before 1583, where the
    calendar a reader assumes changes the value (its statistics say so, or it has no usable statistics).
    Files without such values can be read by Spark's ORC reader as they are; the others need the exact
    path of :mod:`hiveacid_sql.exec.columns`.
    """

    path: str
    num_rows: int
    type_string: str
    metadata: dict[str, bytes]
    num_stripes: int
    pre_gregorian: bool = False
    #: An event file's integer ``row`` fields by position: (min, max) of their values, None when they hold
    #: none (all NULL, or no rows); a field not listed has no usable statistics. Key filters drop whole
    #: files by it (:func:`hiveacid_sql.exec.sarg.excluded_by`).
    int_ranges: tuple[tuple[int, tuple[int, int] | None], ...] = ()


def schema_string(schema: pyorc.TypeDescription) -> str:
    """The ORC schema as a type string whose struct field names are quoted as ORC Java prints them.

    Why: pyorc (ORC C++) prints field names bare, so a column named ``a b`` or ``c-d`` (allowed in Hive)
    gave ``struct<a b:int,c-d:string>``, which no type parser reads back.
    """
    if schema.kind == pyorc.TypeKind.STRUCT:
        fields = ",".join(f"{quote_field_name(n)}:{schema_string(t)}" for n, t in schema.fields.items())
        return f"struct<{fields}>"
    if schema.kind == pyorc.TypeKind.LIST:
        return f"array<{schema_string(schema.type)}>"
    if schema.kind == pyorc.TypeKind.MAP:
        return f"map<{schema_string(schema.key)},{schema_string(schema.value)}>"
    return str(schema)


def read_footer(fs: pafs.FileSystem, path: str) -> OrcFooter:
    """Read the footer of ``path`` on ``fs``; a file that is not ORC is an :class:`AcidFormatError`."""
    try:
        with fs.open_input_file(path) as f:
            reader = pyorc.Reader(f)
            return OrcFooter(
                path=path,
                num_rows=len(reader),
                type_string=schema_string(reader.schema),
                metadata=dict(reader.user_metadata),
                num_stripes=reader.num_of_stripes,
                pre_gregorian=_may_hold_pre_gregorian(reader),
                int_ranges=_row_int_ranges(reader),
            )
    except (pyorc.ParseError, OSError) as exc:
        raise AcidFormatError(f"cannot read ORC file {path}: {exc}") from exc


#: Footers the process keeps (about 1 KB each): a table of this many event files since its last compaction
#: reads none of them again on its next statement.
FOOTER_CACHE_ENTRIES = 20_000


class FooterCache:
    """ORC footers of files already read, keyed by filesystem kind, path, size and modification time.

    Why: every statement lists its snapshot and used to open every event file for its footer (~3 ms a file),
    so a table with hundreds of small deltas since its last compaction paid a second or more per statement
    for files that never change. ACID files are immutable once written (a new version is a new file), so a
    path seen again with the same size and modification time is the same file; a file replaced in place gets
    a new size or time and is read again (Hive's ORC footer cache checks the same two). A file whose listing
    gave no modification time is not cached. ``reads`` counts footers read from files, ``hits`` those served
    from the cache (tests assert on them).
    """

    def __init__(self, max_entries: int = FOOTER_CACHE_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple[str, str, int, int], OrcFooter] = OrderedDict()
        self._lock = threading.Lock()
        self.reads = 0
        self.hits = 0

    def footer(self, fs: pafs.FileSystem, path: str, size: int | None = None, mtime_ns: int | None = None) -> OrcFooter:
        """The footer of ``path``: from the cache when ``size`` and ``mtime_ns`` (the listing's) match an entry."""
        if size is None or mtime_ns is None:
            with self._lock:
                self.reads += 1
            return read_footer(fs, path)
        key = (fs.type_name, path, size, mtime_ns)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return found
            self.reads += 1
        footer = read_footer(fs, path)
        with self._lock:
            self._entries[key] = footer
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return footer

    def clear(self) -> None:
        """Forget every footer (the counters stay)."""
        with self._lock:
            self._entries.clear()


#: The process's footer cache: sessions, the data source and compaction share it (the key names the file).
FOOTERS = FooterCache()


_INTEGERS = frozenset({pyorc.TypeKind.BYTE, pyorc.TypeKind.SHORT, pyorc.TypeKind.INT, pyorc.TypeKind.LONG})


def _row_int_ranges(reader: pyorc.Reader) -> tuple[tuple[int, tuple[int, int] | None], ...]:
    """(position, (min, max) or None) of the integer fields of an ACID event file's ``row`` (the file
    statistics); nothing for other files or fields without statistics."""
    schema = reader.schema
    if schema.kind != pyorc.TypeKind.STRUCT or len(schema.fields) != 6:
        return ()
    row = list(schema.fields.values())[5]
    if row.kind != pyorc.TypeKind.STRUCT:
        return ()
    out: list[tuple[int, tuple[int, int] | None]] = []
    for i, field in enumerate(row.fields.values()):
        if field.kind not in _INTEGERS:
            continue
        try:
            stats = reader[field.column_id].statistics
            if not stats.get("number_of_values"):
                out.append((i, None))
            else:
                out.append((i, (int(stats["minimum"]), int(stats["maximum"]))))
        except (KeyError, TypeError, ValueError, pyorc.ParseError):
            continue  # no usable statistics: the file is always read
    return tuple(out)


def _temporal_column_ids(td: pyorc.TypeDescription) -> Iterator[int]:
    if td.kind in _TEMPORAL:
        yield td.column_id
    elif td.kind == pyorc.TypeKind.STRUCT:
        for child in td.fields.values():
            yield from _temporal_column_ids(child)
    elif td.kind == pyorc.TypeKind.LIST:
        yield from _temporal_column_ids(td.type)
    elif td.kind == pyorc.TypeKind.MAP:
        yield from _temporal_column_ids(td.key)
        yield from _temporal_column_ids(td.value)
    elif td.kind == pyorc.TypeKind.UNION:
        for child in td.cont_types:
            yield from _temporal_column_ids(child)


def _may_hold_pre_gregorian(reader: pyorc.Reader) -> bool:
    """Whether any date/timestamp column's file statistics reach before :data:`GREGORIAN_SAFE_FROM`."""
    for column_id in _temporal_column_ids(reader.schema):
        try:
            stats = reader[column_id].statistics
            if not stats.get("number_of_values"):
                continue
            low = stats["minimum"]
        except (KeyError, ValueError, OverflowError, pyorc.ParseError):
            return True  # no statistics, or a minimum Python cannot even represent (before year 1)
        low_date = low.date() if isinstance(low, dt.datetime) else low
        if low is None or low_date < GREGORIAN_SAFE_FROM:
            return True
    return False
