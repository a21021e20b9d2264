"""``read_table``: a Hive ACID table snapshot as a ``pyarrow.Table``, with no Spark and no JVM.

For everything that is not Spark: pandas, DuckDB, polars, a notebook on a laptop, a service that only
reads. The reading rules are those of the Spark reader, shared with it through the format layer
(:mod:`hiveacid_sql.acid.scan_files` chooses the files with the port of Hive's ``getAcidState``,
:mod:`hiveacid_sql.acid.arrow_scan` reads them, :mod:`hiveacid_sql.acid.versions` does time travel); this
module only resolves what to read: a table of the transaction store (its location, partitions, the
snapshot's valid write ids, its write history for time travel, a read lease so the compaction cleaner keeps
the files while they are read) or a bare directory, where every write id on disk counts as committed, as a
table adopted with ``CREATE TABLE .. LOCATION`` does.

Importing this module imports neither PySpark nor SQLAlchemy; the store (and SQLAlchemy) only when a table
name is read.
"""

from __future__ import annotations

import atexit
import dataclasses
import datetime as dt
import functools
import os
import socket
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs

if TYPE_CHECKING:
    from hiveacid_sql.txn import PartitionDef

from hiveacid_sql.acid.arrow_scan import (
    ROW_ID,
    read_orc_file,
    scan_snapshot,
    table_schema,
    to_table_values,
    writer_offset_seconds,
)
from hiveacid_sql.acid.arrow_values import arrow_type
from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.listing import discover_partitions, filesystem_for, list_acid_dir, max_write_id_on_disk
from hiveacid_sql.acid.names import is_hidden, parse_bucket_file, parse_dir_name, parse_original_file
from hiveacid_sql.acid.orc_footer import read_footer
from hiveacid_sql.acid.partitions import parse_partition_name
from hiveacid_sql.acid.scan_files import DirFiles, ScanFiles, join_path, row_fields, snapshot_files
from hiveacid_sql.acid.versions import VersionRequest, as_of, timestamp_ms, version_part_dirs
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError, HiveAcidError, PlanError, TimeTravelError

__all__ = ["ReadPlan", "plan_read", "read_table"]

Filter: TypeAlias = "pc.Expression | Sequence[Any]"
Columns = list[tuple[str, HiveType]]
#: How long the read lease of a :func:`plan_read` lasts (nothing heartbeats it: the rows are read elsewhere).
READ_LEASE_SECONDS = 3600.0
#: A ``read_table`` call's lease lapses this long after its last heartbeat (hive.txn.timeout's default); it is
#: heartbeated while the read runs and released when the read ends.
READ_LEASE_EXPIRY = 300.0


def read_table(
    table: str | os.PathLike[str],
    *,
    warehouse: str | os.PathLike[str] | None = None,
    store_url: str | None = None,
    version: int | None = None,
    timestamp: str | dt.datetime | None = None,
    columns: Sequence[str] | None = None,
    filter: Filter | None = None,  # pyarrow's and pandas' name for it
    row_id: bool = False,
    schema: str | None = None,
    threads: int | None = None,
) -> pa.Table:
    """Read a snapshot of a Hive ACID table into a ``pyarrow.Table`` with pyarrow alone (no JVM, no PySpark).

    ``table`` is a table name (``"db.t"`` or ``"t"`` in database ``default``), resolved through the
    transaction store, or a table directory (a path with a ``/``, a ``pathlib.Path`` or a URI such as
    ``s3://bucket/t``), read without a store: every write id on disk counts as committed, partitions are the
    ``k=v`` directories (values as strings) and the columns are those of the newest file unless ``schema``
    gives them (``"id int, name varchar(10)"``, matched by position as Hive does).

    * ``warehouse`` / ``store_url``: where the store is, as :func:`hiveacid_sql.connect` finds it (default:
      ``sqlite:///<warehouse>/.hiveacid/txn.db``, warehouse ``./warehouse``). The store must exist.
    * ``version``: the table as it stood when that write id committed (``VERSION AS OF``); ``timestamp``: as
      committed at that time (``TIMESTAMP AS OF``; a string is UTC unless it names a zone; needs the store).
    * ``columns``: the columns to return, in that order (fewer columns, less read).
    * ``filter``: a ``pyarrow.compute`` expression or pyarrow's DNF tuples (``[("year", "=", 2024)]``);
      conditions on partition columns alone skip whole partitions, the rest filter rows after reading.
    * ``row_id``: add Hive's ``row__id`` struct<writeid, bucketid, rowid> as the first column.

    Plain (non-transactional) ORC and Parquet tables of the store are read too. A Hive ``timestamp`` is a
    wall-clock value: an Arrow ``timestamp[us]`` without zone.

    >>> import hiveacid_sql, duckdb
    >>> acid = hiveacid_sql.connect(warehouse=warehouse)
    >>> _ = acid.sql("CREATE TABLE emp (id int, name string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    >>> _ = acid.sql("INSERT INTO emp VALUES (1, 'Jerry'), (2, 'Tom')")
    >>> _ = acid.sql("DELETE FROM emp WHERE id = 1")
    >>> t = hiveacid_sql.read_table("emp", warehouse=warehouse)
    >>> t.to_pylist()
    [{'id': 2, 'name': 'Tom'}]
    >>> hiveacid_sql.read_table("emp", warehouse=warehouse, version=1).num_rows
    2
    >>> duckdb.sql("SELECT count(*) FROM t").fetchall()      # DuckDB reads the Arrow table in place
    [(1,)]
    >>> t.to_pandas().name.tolist()                          # polars: polars.from_arrow(t)
    ['Tom']
    """
    if version is not None and timestamp is not None:
        raise PlanError("read_table takes version= or timestamp=, not both")
    request = _request(version, timestamp, str(table))
    if _is_location(table):
        if timestamp is not None:
            raise TimeTravelError("timestamp= needs the table's write history: read it by name through the store")
        return _read_location(str(table), request, columns, filter, row_id, schema, threads)
    if schema is not None:
        raise PlanError("schema= is for a table directory; a table of the store has its own columns")
    return _read_named(str(table), warehouse, store_url, request, columns, filter, row_id, threads)


# ------------------------------------------------------------------------------------------ resolution
def _is_location(table: str | os.PathLike[str]) -> bool:
    if isinstance(table, os.PathLike):
        return True
    return "/" in table or "\\" in table or "://" in table


def _request(version: int | None, timestamp: str | dt.datetime | None, name: str) -> VersionRequest | None:
    if version is not None:
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise TimeTravelError(f"version= needs a write id (a non-negative integer) for {name}, not {version!r}")
        return VersionRequest("VERSION", version)
    if timestamp is not None:
        if isinstance(timestamp, dt.datetime):
            stamp = timestamp if timestamp.tzinfo else timestamp.replace(tzinfo=dt.timezone.utc)
            return VersionRequest("TIMESTAMP", int(stamp.timestamp() * 1000), f"'{timestamp.isoformat(' ')}'")
        return VersionRequest("TIMESTAMP", timestamp_ms(str(timestamp), name), f"'{timestamp}'")
    return None


def store_url_for(warehouse: str | os.PathLike[str] | None, store_url: str | None) -> str:
    """The store :func:`hiveacid_sql.connect` would use; it must already exist (a reader never creates one)."""
    if store_url is not None:
        return store_url
    root = Path(warehouse if warehouse is not None else Path.cwd() / "warehouse").expanduser().resolve()
    path = root / ".hiveacid" / "txn.db"
    if not path.is_file():
        raise HiveAcidError(f"No transaction store at {path}: pass warehouse= or store_url=, or a table directory")
    return f"sqlite:///{path}"


def _read_named(
    name: str,
    warehouse: str | os.PathLike[str] | None,
    store_url: str | None,
    request: VersionRequest | None,
    columns: Sequence[str] | None,
    filter: Filter | None,
    row_id: bool,
    threads: int | None,
) -> pa.Table:
    from hiveacid_sql.txn.compactions import ReadLeases
    from hiveacid_sql.txn.heartbeat import Heartbeater

    with _opened_store(store_url_for(warehouse, store_url)) as store:
        leases = ReadLeases(store.engine)
        lease: list[int] = []
        # Heartbeated while the read runs (started only once a lease is held): a process that dies mid-read,
        # on any host, leaves its lease for READ_LEASE_EXPIRY at most.
        heartbeat = Heartbeater(
            store, None, READ_LEASE_EXPIRY / 2, lease_s=READ_LEASE_EXPIRY, name="hiveacid-read-lease"
        )

        def take(db: str, tname: str) -> None:
            lease.extend(_lease(leases, db, tname, READ_LEASE_EXPIRY))
            heartbeat.hold_leases(lease)

        try:
            plan = _resolve(store, name, request, filter, take)
            return plan.read(columns, filter=filter, row_id=row_id, threads=threads)
        finally:
            heartbeat.stop()
            leases.release(lease)


#: SQLite stores kept open between the reads of this process, by (url, pid, device, inode): see _opened_store
_KEPT_STORES: OrderedDict[tuple[str, int, int, int], Any] = OrderedDict()
_KEPT_LOCK = threading.Lock()
_KEEP_AT_MOST = 4


@contextmanager
def _opened_store(url: str) -> Iterator[Any]:
    """The store at ``url`` for one read (or one read plan).

    Why kept open: a store opened per read cost each read a new SQLAlchemy engine (its cache of compiled
    statements empty, so the ~15 statements of a read compiled again), the schema check, and the close of
    SQLite's last connection (a WAL checkpoint): most of ``read_table``'s time on a small table, ~15% of its
    CPU on a 1 M-row one. A SQLite store is kept for the next read of this process, keyed by its file's device
    and inode (a store deleted and made again at the same path is opened anew) and by the process id (a forked
    child opens its own); at most four are kept, the oldest closed. PostgreSQL and MariaDB stores are opened
    and closed per read: a connection kept open would hold their database (``DROP DATABASE`` waits for it).
    A read that fails closes the store it used.
    """
    from hiveacid_sql.txn import TxnStore

    key = _sqlite_key(url)
    store = None
    if key is not None:
        with _KEPT_LOCK:
            store = _KEPT_STORES.pop(key, None)
    if store is None:
        store = TxnStore(url)
    try:
        yield store
    except BaseException:
        store.close()
        raise
    if key is None:
        store.close()
        return
    with _KEPT_LOCK:
        replaced = _KEPT_STORES.pop(key, None)  # another thread's read of the same store ended meanwhile
        _KEPT_STORES[key] = store
        evicted = [_KEPT_STORES.popitem(last=False)[1] for _ in range(len(_KEPT_STORES) - _KEEP_AT_MOST)]
    for old in [replaced, *evicted]:
        if old is not None:
            old.close()


def _sqlite_key(url: str) -> tuple[str, int, int, int] | None:
    if not url.startswith("sqlite:///"):
        return None
    try:
        st = os.stat(url[len("sqlite:///") :].split("?", 1)[0])
    except OSError:
        return None
    return (url, os.getpid(), st.st_dev, st.st_ino)


@atexit.register
def _close_kept_stores() -> None:
    with _KEPT_LOCK:
        stores = list(_KEPT_STORES.values())
        _KEPT_STORES.clear()
    for store in stores:
        store.close()


def _lease(leases: Any, db: str, tname: str, seconds: float = READ_LEASE_SECONDS) -> list[int]:
    return list(leases.acquire([(db, tname)], seconds=seconds, host=socket.gethostname(),
                               agent="hiveacid-sql read_table"))


@dataclass(frozen=True)
class ReadPlan:
    """What a snapshot read of a table of the store reads, resolved once: picklable, so that the pieces can be
    read in other processes (the Spark data source's tasks) exactly as :func:`read_table` reads them.

    ``kind``: ``acid`` (full ACID: ``dirs`` and ``write_ids``), ``insert_only`` (``dirs``) or ``plain``
    (``partitions``, None for an un-partitioned table).
    """

    table: str
    kind: str
    location: str
    storage_format: str
    columns: tuple[tuple[str, HiveType], ...]
    partition_columns: tuple[tuple[str, HiveType], ...]
    write_ids: ValidWriteIdList | None = None
    dirs: tuple[DirFiles, ...] = ()
    partitions: tuple[PartitionDef, ...] | None = None
    #: the serde's parameters (``SERDE_PARAMS``), which a TEXTFILE table's separators and NULL text come from
    serde_params: tuple[tuple[str, str], ...] = ()

    @property
    def schema(self) -> pa.Schema:
        """The Arrow schema of the rows read (table columns, then partition columns)."""
        return table_schema(list(self.columns) + list(self.partition_columns))

    def pieces(self) -> list[ReadPlan]:
        """The read split into independent parts whose rows together are the snapshot's: a full-ACID directory
        per bucket id (its data and original files of that bucket; every delete delta of the directory, since
        the anti join is on the whole row id), an insert-only directory or a plain partition each."""
        if self.kind == "plain":
            if self.partitions is None:
                return [self]
            return [dataclasses.replace(self, partitions=(p,)) for p in self.partitions]
        if self.kind == "insert_only":
            return [dataclasses.replace(self, dirs=(d,)) for d in self.dirs]
        out = []
        for d in self.dirs:
            buckets = sorted({_bucket_id(p) for p in (*d.data_files, *d.original_files)})
            for b in buckets:
                piece = dataclasses.replace(
                    d,
                    data_files=tuple(p for p in d.data_files if _bucket_id(p) == b),
                    original_files=tuple(p for p in d.original_files if _bucket_id(p) == b),
                )
                out.append(dataclasses.replace(self, dirs=(piece,)))
        return out

    def read(
        self,
        columns: Sequence[str] | None = None,
        *,
        filter: Filter | None = None,
        row_id: bool = False,
        threads: int | None = 1,
    ) -> pa.Table:
        """The live rows of this plan (or piece), every column unless ``columns`` names some; ``filter`` and
        ``row_id`` as in :func:`read_table` (which reads through here too)."""
        if self.kind == "plain":
            return _read_plain(self.location, self.storage_format, list(self.columns), columns, filter, row_id,
                               self.partitions, list(self.partition_columns), dict(self.serde_params))
        fs, _ = filesystem_for(self.location)
        files = ScanFiles(self.dirs)
        if self.kind == "insert_only":
            return _read_insert_only(fs, files, self.storage_format, list(self.columns), list(self.partition_columns),
                                     columns, filter, row_id, dict(self.serde_params))
        assert self.write_ids is not None  # a full-ACID plan has them
        return _scan(fs, files, list(self.columns), list(self.partition_columns), self.write_ids, columns, filter,
                     row_id, threads)


def _bucket_id(path: str) -> int:
    name = path.rsplit("/", 1)[-1]
    original = parse_original_file(name)
    if original is not None:
        return original[0]
    bucket = parse_bucket_file(name)
    return bucket if bucket is not None else -1


def plan_read(
    table: str,
    *,
    warehouse: str | os.PathLike[str] | None = None,
    store_url: str | None = None,
    version: int | None = None,
    timestamp: str | dt.datetime | None = None,
    lease_seconds: float = READ_LEASE_SECONDS,
) -> ReadPlan:
    """Resolve a snapshot read of a table of the store without reading rows: the catalog, a read lease, the
    snapshot (``version`` / ``timestamp``: time travel) and the choice of files, as :func:`read_table` does.

    The read lease is left to expire after ``lease_seconds`` (the rows are read later, elsewhere), as a
    SELECT's lazy DataFrame keeps its files; the compaction cleaner keeps the plan's files until then.
    """
    if version is not None and timestamp is not None:
        raise PlanError("read takes version or timestamp, not both")
    from hiveacid_sql.txn.compactions import ReadLeases

    request = _request(version, timestamp, table)
    with _opened_store(store_url_for(warehouse, store_url)) as store:
        leases = ReadLeases(store.engine)
        return _resolve(store, table, request, None, lambda db, t: _lease(leases, db, t, lease_seconds))


def _resolve(
    store: Any, name: str, request: VersionRequest | None, filter: Filter | None, take_lease: Any
) -> ReadPlan:
    """The :class:`ReadPlan` of table ``name`` in ``store`` (``take_lease(db, table)`` before the snapshot)."""
    db, _, tname = name.rpartition(".")
    db = (db or "default").strip().lower()
    tname = tname.strip().lower()
    tdef = store.catalog.get_table(db, tname)
    cols = tuple((c.name, parse_hive_type(c.type)) for c in tdef.columns)
    part_cols = tuple((c.name, parse_hive_type(c.type)) for c in tdef.partition_keys)
    base = {"table": tdef.qualified_name, "location": tdef.location, "storage_format": tdef.storage_format,
            "columns": cols, "partition_columns": part_cols, "serde_params": tuple(sorted(tdef.serde_params.items()))}
    if not tdef.is_transactional:
        if request is not None:
            raise TimeTravelError(f"{request.kind} AS OF needs a transactional table; {tdef.qualified_name} is not one")
        if tdef.is_view:
            raise PlanError(f"read_table reads tables, not views: {tdef.qualified_name} is a view")
        partitions = tuple(store.catalog.list_partitions(db, tname)) if tdef.is_partitioned else None
        return ReadPlan(kind="plain", partitions=partitions, **base)
    fs, path = filesystem_for(tdef.location)
    # As every SELECT of the engine: the lease comes before the snapshot and the listing, so the cleaner
    # keeps what this read needs until it is released.
    take_lease(db, tname)
    snapshot = store.snapshot([(db, tname)])
    current = snapshot.write_ids(db, tname)
    part_dirs = [p.name for p in store.catalog.list_partitions(db, tname)] if part_cols else [""]
    part_dirs = _prune(part_dirs, list(part_cols), filter)
    ids = current
    if request is not None:
        commits = {e.write_id: e.commit_time_ms for e in store.table_history(db, tname) if e.txn_id is not None}
        ids = as_of(current, request, tdef.qualified_name, commits)
        created = store.catalog.partition_write_ids(db, tname) if part_cols else {}
        part_dirs = version_part_dirs(fs, path, tdef.qualified_name, current, ids, part_dirs, created)
    files = snapshot_files(fs, path, ids, part_dirs, insert_only=tdef.is_insert_only, txns=snapshot.txns)
    kind = "insert_only" if tdef.is_insert_only else "acid"
    return ReadPlan(kind=kind, write_ids=ids, dirs=files.dirs, **base)


def _read_location(
    location: str,
    request: VersionRequest | None,
    columns: Sequence[str] | None,
    filter: Filter | None,
    row_id: bool,
    schema: str | None,
    threads: int | None,
) -> pa.Table:
    fs, path = filesystem_for(location)
    if fs.get_file_info(path).type != pafs.FileType.Directory:
        raise AcidFormatError(f"Not a table directory: {location}")
    keys = _partition_keys(fs, path)
    part_dirs = discover_partitions(fs, path, keys) if keys else [""]
    part_cols = [(k, parse_hive_type("string")) for k in keys]
    highest = max((max_write_id_on_disk(list_acid_dir(fs, join_path(path, d) if d else path)) for d in part_dirs), default=0)
    current = ValidWriteIdList.all_committed(None, highest)  # the adoption rule: everything on disk committed
    ids = current if request is None else as_of(current, request, location)
    part_dirs = _prune(part_dirs, part_cols, filter)
    if request is not None:
        part_dirs = version_part_dirs(fs, path, location, current, ids, part_dirs, {})
    files = snapshot_files(fs, path, ids, part_dirs)
    cols = _columns_of(schema) if schema is not None else _columns_on_disk(fs, files)
    return _scan(fs, files, cols, part_cols, ids, columns, filter, row_id, threads)


def _partition_keys(fs: pafs.FileSystem, path: str) -> list[str]:
    """Partition keys of a table directory: the ``k=`` names of its first chain of ``k=v`` directories."""
    keys: list[str] = []
    here = path
    while True:
        infos = fs.get_file_info(pafs.FileSelector(here, allow_not_found=True))
        subdirs = sorted(
            i.base_name for i in infos
            if i.type == pafs.FileType.Directory and not is_hidden(i.base_name) and "=" in i.base_name
            and _not_acid_dir(i.base_name)
        )
        if not subdirs:
            return keys
        keys.append(parse_partition_name(subdirs[0])[0][0])
        here = join_path(here, subdirs[0])


def _not_acid_dir(name: str) -> bool:
    try:
        return parse_dir_name(name) is None
    except AcidFormatError:
        return True


def _columns_of(ddl: str) -> Columns:
    """``"id int, m map<string,int>"`` as (name, HiveType) pairs (commas inside <> and () belong to types)."""
    parsed = parse_hive_type(f"struct<{','.join(_split_columns(ddl))}>")
    return list(parsed.fields)


def _split_columns(ddl: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in ddl:
        depth += ch in "<(" and 1 or (-1 if ch in ">)" else 0)
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    out = []
    for part in (p.strip() for p in parts if p.strip()):
        name, _, htype = part.partition(" ")
        if not htype.strip():
            raise PlanError(f"schema= needs 'name type' pairs, got {part!r}")
        out.append(f"{name.strip('`')}:{htype.strip()}")
    return out


def _columns_on_disk(fs: pafs.FileSystem, files: ScanFiles) -> Columns:
    """The table's columns as the newest file of the snapshot names them (the ``row`` fields of an event file,
    the columns of an original file)."""
    for path in reversed([*files.original_files, *files.data_files]):
        footer = read_footer(fs, path)
        try:
            return row_fields(footer)
        except AcidFormatError:
            root = parse_hive_type(footer.type_string)
            if root.name == "struct":
                return list(root.fields)
    return []


# ------------------------------------------------------------------------------------------ filters
def _expression(filter: Filter | None) -> pc.Expression | None:
    if filter is None or isinstance(filter, pc.Expression):
        return filter
    import pyarrow.parquet as pq

    return pq.filters_to_expression(filter)


def _partition_expression(filter: Filter | None, keys: set[str]) -> pc.Expression | None:
    """The part of ``filter`` that names partition columns only (None: no pruning possible).

    DNF tuples are split by conjunct; an expression is used whole when it names partition columns only.
    """
    if filter is None or isinstance(filter, pc.Expression):
        return filter
    groups = [filter] if filter and isinstance(filter[0], tuple) else list(filter)
    kept = []
    for group in groups:
        mine = [t for t in group if str(t[0]).lower() in keys]
        if not mine:
            return None  # one OR branch without a partition condition: every partition may match
        kept.append(mine)
    return _expression(kept)


def _prune(part_dirs: list[str], part_cols: Columns, filter: Filter | None) -> list[str]:
    """The partition directories whose values pass the partition conditions of ``filter``."""
    if not part_cols or filter is None or part_dirs == [""]:
        return part_dirs
    expr = _partition_expression(filter, {n.lower() for n, _ in part_cols})
    if expr is None:
        return part_dirs
    values = [[v for _k, v in parse_partition_name(d)] for d in part_dirs]
    arrays = {
        name: to_table_values(pa.array([row[i] for row in values], pa.string()), parse_hive_type("string"), htype)
        for i, (name, htype) in enumerate(part_cols)
    }
    frame = pa.table({**arrays, "__dir": pa.array(part_dirs)})
    try:
        return frame.filter(expr).column("__dir").to_pylist()
    except (pa.ArrowInvalid, pa.ArrowTypeError, KeyError):
        return part_dirs  # names a data column: no pruning, rows are filtered after reading


def _scan(
    fs: pafs.FileSystem,
    files: ScanFiles,
    cols: Columns,
    part_cols: Columns,
    ids: ValidWriteIdList,
    columns: Sequence[str] | None,
    filter: Filter | None,
    row_id: bool,
    threads: int | None,
) -> pa.Table:
    names = [n for n, _ in cols] + [n for n, _ in part_cols]
    missing = [c for c in columns or () if c.lower() not in {n.lower() for n in names}]
    if missing:
        raise PlanError(f"no column {missing[0]!r} in the table; columns: {', '.join(names)}")
    expr = _expression(filter)
    read_cols = None if expr is not None else columns  # the filter may name any column
    out = scan_snapshot(fs, files, cols, part_cols, ids, columns=read_cols, row_id=row_id, threads=threads or _threads())
    return _finish(out, expr, columns, row_id)


def _finish(out: pa.Table, expr: pc.Expression | None, columns: Sequence[str] | None, row_id: bool) -> pa.Table:
    if expr is not None:
        try:
            out = out.filter(expr)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise PlanError(f"filter cannot be applied: {str(exc).splitlines()[0]}") from exc
    if columns is not None:
        lower = {n.lower(): n for n in out.schema.names}
        missing = [c for c in columns if c.lower() not in lower]
        if missing:
            raise PlanError(f"no column {missing[0]!r} in the table; columns: {', '.join(out.schema.names)}")
        out = out.select(([ROW_ID] if row_id else []) + [lower[c.lower()] for c in columns])
    return out


def _threads() -> int:
    return max(1, min(8, os.cpu_count() or 1))


# ------------------------------------------------------------------------------------------ plain tables
def _read_plain(
    location: str, storage_format: str, cols: Columns, columns: Sequence[str] | None, filter: Filter | None, row_id: bool,
    partitions: Sequence[PartitionDef] | None = None, part_cols: Columns | None = None,
    serde: Mapping[str, str] | None = None,
) -> pa.Table:
    """A plain ORC or Parquet table's files, columns matched by name (as Spark's readers do); a partitioned
    one's ``partitions`` (pruned by ``filter``'s partition conditions), each directory's files with the
    partition's values from the catalog."""
    if row_id:
        raise PlanError("row__id exists on transactional tables only")
    if partitions is None:
        return _finish(_files_in(location, storage_format, cols, serde), _expression(filter), columns, False)
    part_cols = part_cols or []
    kept = set(_prune([p.name for p in partitions], part_cols, filter))
    pieces = []
    for part in partitions:
        if part.name not in kept:
            continue
        data = _files_in(part.location or f"{location.rstrip('/')}/{part.name}", storage_format, cols, serde)
        for value, (name, htype) in zip(part.values, part_cols, strict=True):
            raw = pa.array([value] * data.num_rows, pa.string())
            data = data.append_column(pa.field(name, arrow_type(htype)), to_table_values(raw, parse_hive_type("string"), htype))
        pieces.append(data)
    schema = table_schema(cols + part_cols)
    out = pa.concat_tables(pieces) if pieces else schema.empty_table()
    return _finish(out, _expression(filter), columns, False)


def _files_in(location: str, storage_format: str, cols: Columns, serde: Mapping[str, str] | None = None) -> pa.Table:
    """The data columns of the plain files directly in ``location``."""
    fs, path = filesystem_for(location)
    infos = fs.get_file_info(pafs.FileSelector(path, allow_not_found=True, recursive=False))
    paths = sorted(i.path for i in infos if i.type == pafs.FileType.File and i.size and not is_hidden(i.base_name))
    return _plain_files(fs, paths, storage_format, cols, serde)


def _read_insert_only(
    fs: pafs.FileSystem,
    files: ScanFiles,
    storage_format: str,
    cols: Columns,
    part_cols: Columns,
    columns: Sequence[str] | None,
    filter: Filter | None,
    row_id: bool,
    serde: Mapping[str, str] | None = None,
) -> pa.Table:
    """An insert-only table's snapshot: the plain files of its chosen directories, partition values from
    the directory names."""
    if row_id:
        raise PlanError("row__id exists on full-ACID tables only (an insert-only table has no row ids)")
    pieces = []
    schema = table_schema(list(cols) + list(part_cols))
    for d in files.dirs:
        paths = [*d.data_files, *d.original_files]
        infos = fs.get_file_info(paths) if paths else []
        data = _plain_files(fs, [i.path for i in infos if i.size], storage_format, cols, serde)
        values = [v for _k, v in parse_partition_name(d.part_dir)] if d.part_dir else []
        for (name, htype), raw in zip(part_cols, values, strict=True):
            text = pa.array([raw] * data.num_rows, pa.string())
            data = data.append_column(name, to_table_values(text, parse_hive_type("string"), htype))
        pieces.append(data.cast(schema))
    out = pa.concat_tables(pieces) if pieces else schema.empty_table()
    return _finish(out, _expression(filter), columns, False)


def _plain_files(
    fs: pafs.FileSystem, paths: Sequence[str], storage_format: str, cols: Columns, serde: Mapping[str, str] | None = None
) -> pa.Table:
    """Plain ORC or Parquet files as the table's columns, matched by name (as Spark's readers do); TEXTFILE
    ones by position (:func:`_text_files`)."""
    fmt = storage_format.lower()
    if fmt == "textfile":
        return _text_files(fs, paths, cols, serde or {})
    if fmt == "csv":
        return _csv_files(fs, paths, cols, serde or {})
    if fmt == "json":
        return _json_files(fs, paths, cols, serde or {})
    if fmt == "avro":
        return _avro_files(fs, paths, cols)
    if fmt not in ("orc", "parquet"):
        raise PlanError(f"read_table reads plain ORC, Parquet, Avro and TEXTFILE files, not {fmt.upper()}")
    pieces = []
    for p in paths:
        if fmt == "orc":
            raw = read_orc_file(fs, p)  # timestamps before 1677 too (pyarrow's own reader refuses them)
        else:
            import pyarrow.parquet as pq

            with fs.open_input_file(p) as f:
                # INT96 (Hive's Parquet timestamps, and ours): microseconds, so years outside 1677..2262 fit
                raw = pq.read_table(f, coerce_int96_timestamp_unit="us")
        by_name = {n.lower(): i for i, n in enumerate(raw.schema.names)}
        stamps = fmt == "orc" and any(pa.types.is_timestamp(f.type) for f in raw.schema)
        offset = writer_offset_seconds(fs, p) if stamps else 0
        arrays = []
        for name, htype in cols:
            i = by_name.get(name.lower())
            if i is None:
                arrays.append(pa.nulls(raw.num_rows, arrow_type(htype)))
                continue
            phys = _hive_type_of(raw.schema.field(i).type)
            arrays.append(pa.chunked_array(
                [to_table_values(c, phys or htype, htype, offset) for c in raw.column(i).chunks], arrow_type(htype)
            ))
        pieces.append(pa.Table.from_arrays(arrays, schema=table_schema(cols)))
    return pa.concat_tables(pieces) if pieces else table_schema(cols).empty_table()


def _text_files(fs: pafs.FileSystem, paths: Sequence[str], cols: Columns, serde: Mapping[str, str]) -> pa.Table:
    """TEXTFILE files by Hive's LazySimpleSerDe rules for primitive columns: one row per line, fields by
    ``field.delim`` (Ctrl-A by default), the NULL text ``serialization.null.format`` (``\\N``) is NULL, missing
    trailing fields are NULL, extra ones ignored; each field's text becomes the column's type as Hive casts
    a string (a value that does not parse is NULL). Complex columns are refused in one line."""
    complex_cols = [name for name, htype in cols if htype.name in ("array", "map", "struct", "uniontype")]
    if complex_cols:
        raise PlanError(f"read_table reads TEXTFILE tables of primitive columns only ({complex_cols[0]} is not)")
    delim = serde.get("field.delim") or serde.get("serialization.format") or "1"
    # LazyUtils.getByte: a number is the byte itself (serialization.format=1 is Ctrl-A), else the first character
    delim = chr(int(delim)) if delim.isdigit() and int(delim) < 128 else delim[0]
    null_text = serde.get("serialization.null.format", "\\N")
    escape = serde.get("escape.delim")
    if escape is not None:  # LazySerDeParameters.getByte, as for the separator
        escape = chr(int(escape) & 0xFF) if escape.lstrip("-").isdigit() else (escape[:1] or "\\")

    def split(line: str) -> list[str | None]:
        line = line.removesuffix("\r")
        fields = line.split(delim) if escape is None else _split_escaped(line, delim, escape)
        return [None if value == null_text else value for value in fields]

    columns = _fields_by_column(_lines_of(fs, paths), len(cols), split)
    if serde.get("timestamp.formats"):  # LazyTimestamp's TimestampParser
        from hiveacid_sql.acid.timestamp_formats import parser_of

        parser = parser_of(serde["timestamp.formats"])
        for out, (_n, htype) in zip(columns, cols, strict=True):
            if htype.name == "timestamp":
                out[:] = [parser.normalize(v) for v in out]
    if escape is not None:
        for out, (_n, htype) in zip(columns, cols, strict=True):
            if htype.name in ("string", "varchar", "char"):
                out[:] = [None if v is None else _unescaped(v, escape) for v in out]
    return _typed_columns(columns, cols)


def _lines_of(fs: pafs.FileSystem, paths: Sequence[str]) -> Iterator[str]:
    """The lines of text files, file after file, as Hive's line reader gives them (split at LF; the last
    line's LF optional; undecodable bytes replaced): one reader for the text, CSV and JSON serdes."""
    for p in paths:
        with fs.open_input_stream(p) as f:
            lines = f.read().decode("utf-8", errors="replace").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        yield from lines


def _fields_by_column(
    lines: Iterator[str], count: int, split: Callable[[str], Sequence[str | None]]
) -> list[list[str | None]]:
    """Each line cut by its serde's ``split`` into fields, gathered column by column: fields past ``count``
    ignored, missing trailing ones NULL (as every Hive text serde reads a short line)."""
    columns: list[list[str | None]] = [[] for _ in range(count)]
    for line in lines:
        fields = split(line)
        for i, out in enumerate(columns):
            out.append(fields[i] if i < len(fields) else None)
    return columns


def _typed_columns(columns: list[list[str | None]], cols: Columns) -> pa.Table:
    """Text fields, column by column, as the table's types (a value that does not parse is NULL)."""
    string = parse_hive_type("string")
    arrays = []
    for vals, (_n, htype) in zip(columns, cols, strict=True):
        if htype.name in ("string", "varchar", "char"):
            arrays.append(to_table_values(pa.array(vals, pa.string()), string, htype))
        else:
            arrays.append(pa.array([_text_value(v, htype) for v in vals], arrow_type(htype)))
    return pa.Table.from_arrays(arrays, schema=table_schema(cols))


def _json_files(fs: pafs.FileSystem, paths: Sequence[str], cols: Columns, serde: Mapping[str, str]) -> pa.Table:
    """JsonSerDe files of primitive columns: each line's values by key, without regard to case
    (:mod:`hiveacid_sql.acid.jsonrow`; ``timestamp.formats`` as Hive 3.1 reads it), typed as a string is cast."""
    from hiveacid_sql.acid.jsonrow import json_fields
    from hiveacid_sql.acid.timestamp_formats import PROPERTY

    complex_cols = [name for name, htype in cols if not htype.is_primitive]
    if complex_cols:
        raise PlanError(f"read_table reads JsonSerDe tables of primitive columns only ({complex_cols[0]} is not)")
    names = [name for name, _ in cols]
    split = functools.partial(
        json_fields, names=names, complex_columns=[False] * len(names),
        timestamp_columns=[t.name == "timestamp" for _, t in cols], timestamp_formats=serde.get(PROPERTY),
    )
    return _typed_columns(_fields_by_column(_lines_of(fs, paths), len(cols), split), cols)


def _avro_files(fs: pafs.FileSystem, paths: Sequence[str], cols: Columns) -> pa.Table:
    """AvroSerDe files: each record's fields by name (:mod:`hiveacid_sql.acid.avro`, the reader Spark's tasks
    use too)."""
    from hiveacid_sql.acid.avro import read_avro

    schema = table_schema(cols)
    batches: list[pa.RecordBatch] = []
    for p in paths:
        with fs.open_input_file(p) as f:
            batches.extend(b.cast(schema) for b in read_avro(f, cols))
    return pa.Table.from_batches(batches, schema=schema)


def _csv_files(fs: pafs.FileSystem, paths: Sequence[str], cols: Columns, serde: Mapping[str, str]) -> pa.Table:
    """OpenCSVSerde files: each line's fields by opencsv's rules (:mod:`hiveacid_sql.acid.opencsv`), missing
    trailing ones NULL, then typed as a string is cast."""
    from hiveacid_sql.acid.opencsv import CsvFormat, parse_line

    fmt = CsvFormat.of(serde)
    columns = _fields_by_column(_lines_of(fs, paths), len(cols), lambda line: parse_line(line.removesuffix("\r"), fmt))
    return _typed_columns(columns, cols)


def _split_escaped(line: str, delim: str, escape: str) -> list[str]:
    """``line``'s fields as LazyStruct splits them with an escape character: a separator right after the
    escape is part of the field (the escape and its character are kept, for :func:`_unescaped`)."""
    fields: list[str] = []
    start = i = 0
    while i < len(line):
        if line[i] == escape and i + 1 < len(line):
            i += 2
            continue
        if line[i] == delim:
            fields.append(line[start:i])
            start = i + 1
        i += 1
    fields.append(line[start:])
    return fields


def _unescaped(text: str, escape: str) -> str:
    """``LazyUtils.copyAndEscapeStringDataToText``: the escape and the character after it become that
    character, ``r`` and ``n`` CR and LF; a lone escape at the end stays."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == escape and i + 1 < len(text):
            nxt = text[i + 1]
            out.append({"r": "\r", "n": "\n"}.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


_INT_RANGES = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}


def _text_value(text: str | None, htype: HiveType) -> Any:
    """One TEXTFILE field as LazySimpleSerDe's lazy objects read it: a value that does not parse is NULL."""
    import base64
    import datetime as dt
    import re
    from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

    if text is None:
        return None
    name = htype.name
    try:
        if name in _INT_RANGES:
            if not re.fullmatch(r"[+-]?\d+", text):
                return None
            value = int(text)
            bits = _INT_RANGES[name]
            return value if -(2 ** (bits - 1)) <= value < 2 ** (bits - 1) else None
        if name in ("float", "double"):
            return float(text)
        if name == "decimal":
            number = Decimal(text.strip()).quantize(Decimal(1).scaleb(-htype.scale), rounding=ROUND_HALF_UP)
            return number if len(number.as_tuple().digits) <= htype.precision else None
        if name == "boolean":
            return {"true": True, "false": False}.get(text.lower())
        if name == "date":
            return dt.date.fromisoformat(text.strip()[:10])
        if name == "timestamp":
            return dt.datetime.fromisoformat(text.strip()[:26])
        if name == "binary":  # LazyBinary: base64 when it decodes, the bytes as they are otherwise
            try:
                return base64.b64decode(text, validate=True)
            except ValueError:
                return text.encode()
    except (ValueError, InvalidOperation, ArithmeticError):
        return None
    return None


def _hive_type_of(t: pa.DataType) -> HiveType | None:
    """The Hive type a plain file's Arrow type stands for, for the conversion rules (None: same as the table)."""
    if pa.types.is_timestamp(t):
        return parse_hive_type("timestamp")
    return None
