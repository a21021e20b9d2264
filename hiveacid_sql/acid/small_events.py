"""Events of a snapshot's small event files, read on the driver with pyarrow and kept for the process.

Why: a table with hundreds of small DML statements since its last compaction has hundreds of tiny delta and
delete-delta files (a one-row UPDATE writes two). Spark's ORC reader pays a fixed cost per file (open, footer,
stripe reads, a split each) and the delete side of the anti join is a job of its own, so the scan after 200
statements took 2.4x the scan after none, with the bytes nearly unchanged (``benchmarks/RESULTS.md``). These
files are immutable (a new version is a new file), so their events are read here once, with the same rules as
the Arrow reader (:mod:`hiveacid_sql.acid.arrow_scan`), and kept keyed by path, size and modification time
like the footers (:mod:`hiveacid_sql.acid.orc_footer`); the Spark scan hands them to Spark as a local
relation (:mod:`hiveacid_sql.exec.small_files`). What is kept is every event of the file's kind with its
``currentTransaction``: which of them are valid depends on the reader's snapshot, so :func:`live_events`
filters them per scan.

Insert events are read here only where the two readers are known to give the same values: table columns of
plain types (no timestamp, whose zone handling differs between the two conversions, no ``char`` padding, no
nested type), each written with the table's type (a column added later by ``ADD COLUMNS`` reads as NULL), and
no date before the Gregorian cut-over. Other files stay with Spark's reader.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs

from hiveacid_sql.acid.arrow_scan import (
    CWID,
    Columns,
    DeleteSet,
    anti_join_deletes,
    compaction_events,
    valid_write_id_mask,
)
from hiveacid_sql.acid.orc_footer import OrcFooter
from hiveacid_sql.acid.scan_files import is_event_file, row_fields
from hiveacid_sql.acid.writeids import ValidWriteIdList

#: Table column types whose values the driver read gives exactly as Spark's ORC reader path does.
PLAIN_TYPES = frozenset(
    {"boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "string", "varchar", "decimal", "date", "binary"}
)
#: Events (rows) the process keeps, over all files: about 40 bytes a delete event, more for insert events.
EVENT_CACHE_ROWS = 2_000_000
#: Threads reading small files not in the cache.
READ_THREADS = 4


@dataclass(frozen=True)
class SmallFile:
    """An event file chosen for the driver read: its footer, its partition directory and its listing stats."""

    footer: OrcFooter
    part_dir: str
    size: int | None
    mtime_ns: int | None


def insert_events_readable(footer: OrcFooter, table_columns: Columns) -> bool:
    """Whether the driver read gives this event file's insert events exactly as the Spark scan does (module
    docstring): an event file, no early dates, plain table types, each written column of the table's type."""
    if footer.pre_gregorian or not is_event_file(footer):
        return False
    if any(t.name not in PLAIN_TYPES for _n, t in table_columns):
        return False
    written = row_fields(footer)
    if len(written) > len(table_columns):
        return False
    return all(p.to_string() == t.to_string() for (_pn, p), (_tn, t) in zip(written, table_columns, strict=False))


class EventCache:
    """Every insert (or delete) event of small files, keyed by filesystem kind, path, size, modification time,
    kind and (insert events) the table's column types; bounded by the rows it holds, least recently used out.
    A file listed without a modification time is read every time. ``reads`` / ``hits`` count files read and
    served (tests assert on them)."""

    def __init__(self, max_rows: int = EVENT_CACHE_ROWS) -> None:
        self.max_rows = max_rows
        self._entries: OrderedDict[tuple, pa.Table] = OrderedDict()
        self._rows = 0
        self._lock = threading.Lock()
        self.reads = 0
        self.hits = 0

    def events(self, fs: pafs.FileSystem, f: SmallFile, table_columns: Columns, *, delete: bool) -> pa.Table:
        """``__owid, __bucket, __rowid, __cwid`` (then, insert events, the table columns) of every event of
        the kind in ``f``."""
        columns = () if delete else tuple((n.lower(), t.to_string()) for n, t in table_columns)
        key = (fs.type_name, f.footer.path, f.size, f.mtime_ns, delete, columns)
        cacheable = f.size is not None and f.mtime_ns is not None
        with self._lock:
            found = self._entries.get(key) if cacheable else None
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return found
            self.reads += 1
        table = compaction_events(fs, f.footer.path, table_columns, None, delete=delete, footer=f.footer)
        if cacheable and table.num_rows <= self.max_rows:
            with self._lock:
                if key not in self._entries:
                    self._entries[key] = table
                    self._rows += table.num_rows
                while self._rows > self.max_rows:
                    _k, old = self._entries.popitem(last=False)
                    self._rows -= old.num_rows
        return table

    def clear(self) -> None:
        """Forget every file's events (the counters stay)."""
        with self._lock:
            self._entries.clear()
            self._rows = 0


#: The process's event cache (the key names the file, so sessions share it).
EVENTS = EventCache()


def live_events(
    fs: pafs.FileSystem,
    files: Sequence[SmallFile],
    table_columns: Columns,
    write_ids: ValidWriteIdList | None,
    *,
    delete: bool,
    part_dir_column: str,
    schema: pa.Schema,
    cache: EventCache = EVENTS,
) -> pa.Table:
    """The events of ``files`` valid in ``write_ids`` (None: all), as ``schema``: ``part_dir_column`` (each
    file's partition directory), ``__owid, __bucket, __rowid``, then (insert events) the table columns."""
    def read(f: SmallFile) -> pa.Table:
        return cache.events(fs, f, table_columns, delete=delete)

    if len(files) > 1:  # files not in the cache yet are read by a few threads (pyarrow's reader drops the GIL)
        with ThreadPoolExecutor(max_workers=READ_THREADS) as pool:
            tables = list(pool.map(read, files))
    else:
        tables = [read(f) for f in files]
    pieces = []
    for f, events in zip(files, tables, strict=True):
        if write_ids is not None:
            mask = valid_write_id_mask(events.column(CWID), write_ids)
            if mask is not None:
                events = events.filter(mask)
        events = events.drop_columns([CWID])
        part = pa.array([f.part_dir] * events.num_rows, pa.string())
        pieces.append(events.add_column(0, part_dir_column, part))
    if not pieces:
        return schema.empty_table()
    return pa.Table.from_arrays(
        [pa.chunked_array([c for p in pieces for c in p.column(i).cast(schema.field(i).type).chunks], schema.field(i).type)
         for i in range(len(schema))],
        schema=schema,
    )


def without_deleted(inserts: pa.Table, deletes: pa.Table, part_dir_column: str) -> pa.Table:
    """Rows of ``inserts`` (from :func:`live_events`) whose ``(partition directory, __owid, __bucket, __rowid)``
    has no event in ``deletes`` (also from it): the anti join on the driver, per partition directory."""
    if inserts.num_rows == 0 or deletes.num_rows == 0:
        return inserts
    by_part = {
        part: DeleteSet(deletes.filter(pc.equal(deletes.column(part_dir_column), part)))
        for part in pc.unique(deletes.column(part_dir_column)).to_pylist()
    }
    parts = pc.unique(inserts.column(part_dir_column)).to_pylist()
    pieces = []
    for part in parts:
        rows = inserts if len(parts) == 1 else inserts.filter(pc.equal(inserts.column(part_dir_column), part))
        found = by_part.get(part)
        pieces.append(anti_join_deletes(rows, found) if found is not None else rows)
    return pa.concat_tables(pieces).cast(inserts.schema) if pieces else inserts.slice(0, 0)
