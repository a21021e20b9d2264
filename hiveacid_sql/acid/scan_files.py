"""What a snapshot reads, before any data is read: files per directory, their roles, and row-id offsets.

Shared by both readers of a snapshot: the Spark scan (:mod:`hiveacid_sql.exec.scan`) and the Arrow reader
(:mod:`hiveacid_sql.acid.arrow_scan`), so the two cannot disagree on which files hold the table:

* :func:`snapshot_files` runs ``getAcidState`` (:mod:`hiveacid_sql.acid.state`) in every partition directory
  and sorts the chosen files into insert-event files (base and insert deltas), delete-event files and
  original (pre-ACID) files, with optional bucket pruning;
* :func:`row_fields` / :func:`is_event_file` check a file's ORC schema against the ACID event schema
  (field names compared case-insensitively, as Hive does for files of older writers);
* :func:`original_slices` gives each original file Hive's synthetic row ids: per bucket id, the row counts of
  the files sorting before it (``Path.compareTo``) plus the position in the file.

No Spark, no SQL: paths, ORC footers and pyarrow filesystems only.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import pyarrow.fs as pafs

from hiveacid_sql.acid.codec import encode_bucket
from hiveacid_sql.acid.compaction import without_unfinished_publish
from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.listing import list_acid_dir
from hiveacid_sql.acid.names import ParsedBase, parse_bucket_file, parse_dir_name, parse_original_file
from hiveacid_sql.acid.orc_footer import FOOTERS, OrcFooter
from hiveacid_sql.acid.state import AcidState, FileEntry, get_acid_state
from hiveacid_sql.acid.writeids import ValidTxnList, ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError

#: The five key columns of an ACID event file, in order (the sixth is the ``row`` struct).
EVENT_PREFIX = ("operation", "originalTransaction", "bucket", "rowId", "currentTransaction")


@dataclass(frozen=True)
class DirFiles:
    """What a snapshot reads in one ACID directory (the table, or one partition): absolute paths by role."""

    part_dir: str  # '' for an un-partitioned table, else Hive's escaped ``p=v/q=w``
    state: AcidState
    data_files: tuple[str, ...]
    delete_files: tuple[str, ...]
    original_files: tuple[str, ...]
    #: absolute path -> (size, modification time in ns or None) as listed: the footer cache's key
    stats: Mapping[str, tuple[int, int | None]] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class ScanFiles:
    """What a snapshot reads, per ACID directory, for EXPLAIN and for the scan itself."""

    dirs: tuple[DirFiles, ...]

    @property
    def state(self) -> AcidState:
        """The state of an un-partitioned table's single directory."""
        return self.dirs[0].state

    @property
    def data_files(self) -> tuple[str, ...]:
        return tuple(p for d in self.dirs for p in d.data_files)

    @property
    def delete_files(self) -> tuple[str, ...]:
        return tuple(p for d in self.dirs for p in d.delete_files)

    @property
    def original_files(self) -> tuple[str, ...]:
        return tuple(p for d in self.dirs for p in d.original_files)

    @functools.cached_property
    def stats(self) -> Mapping[str, tuple[int, int | None]]:
        """Every listed file's (size, modification time), all directories together (made once)."""
        merged: dict[str, tuple[int, int | None]] = {}
        for d in self.dirs:
            merged.update(d.stats)
        return merged

    def size_of(self, path: str) -> int | None:
        """The listed size of one of this snapshot's files (None: not listed with a size)."""
        stat = self.stats.get(path)
        return stat[0] if stat is not None else None

    def footers(self, fs: pafs.FileSystem, paths: Iterable[str]) -> list[OrcFooter]:
        """The footers of ``paths`` (files of this snapshot), through the process's footer cache: a file listed
        with the same size and modification time as when its footer was read is not opened again."""
        stats = self.stats
        out = []
        for path in paths:
            size, mtime_ns = stats.get(path, (None, None))
            out.append(FOOTERS.footer(fs, path, size, mtime_ns))
        return out


def join_path(base: str, rel: str) -> str:
    """Join a table location and a relative path with '/' (pyarrow.fs paths are '/' separated)."""
    return base.rstrip("/") + "/" + rel.lstrip("/")


def _bucket_of(path: str) -> int | None:
    name = path.rsplit("/", 1)[-1]
    parsed = parse_original_file(name)
    return parse_bucket_file(name) if parsed is None else parsed[0]


def dir_files(
    fs: pafs.FileSystem,
    location: str,
    write_ids: ValidWriteIdList,
    part_dir: str = "",
    buckets: frozenset[int] | None = None,
    *,
    insert_only: bool = False,
    txns: ValidTxnList | None = None,
) -> DirFiles:
    """List one ACID directory and choose the snapshot's files (no data read yet).

    ``buckets`` (bucket pruning) keeps only the ``bucket_N`` files (and originals) of those bucket ids;
    ``insert_only``: an insert-only table's directory (plain files, possibly in sub-directories); ``txns``:
    the reader's transaction list, which Hive 4 ``_vT`` directories must be visible in.
    """
    root = join_path(location, part_dir) if part_dir else location
    state = get_acid_state(
        without_unfinished_publish(list_acid_dir(fs, root)), write_ids, nested_files=insert_only, txns=txns
    )
    stats: dict[str, tuple[int, int | None]] = {}

    def absolute(entries: Iterable[FileEntry]) -> list[str]:
        out = []
        for f in entries:
            path = join_path(root, f.path)
            stats[path] = (f.size, f.mtime_ns)
            out.append(path)
        return out

    data: list[str] = []
    if state.base is not None:
        data += absolute(state.base_files)
    for delta in state.deltas:
        data += absolute(state.delta_files.get(delta.name, ()))
    deletes = absolute(f for d in state.delete_deltas for f in state.delta_files.get(d.name, ()))
    originals = absolute(state.originals)
    if buckets is not None:
        data, deletes = [p for p in data if _bucket_of(p) in buckets], [p for p in deletes if _bucket_of(p) in buckets]
        originals = [p for p in originals if _bucket_of(p) in buckets]
    return DirFiles(part_dir, state, tuple(data), tuple(deletes), tuple(originals), stats)


def snapshot_files(
    fs: pafs.FileSystem,
    location: str,
    write_ids: ValidWriteIdList,
    part_dirs: Sequence[str] = ("",),
    buckets: frozenset[int] | None = None,
    *,
    insert_only: bool = False,
    txns: ValidTxnList | None = None,
) -> ScanFiles:
    """The snapshot's files of the table (``part_dirs`` = the partitions to read, already pruned)."""
    return ScanFiles(
        tuple(dir_files(fs, location, write_ids, d, buckets, insert_only=insert_only, txns=txns) for d in part_dirs)
    )


@functools.lru_cache(maxsize=256)
def _parsed(type_string: str) -> HiveType:
    return parse_hive_type(type_string)


def event_fields(footer: OrcFooter) -> list[tuple[str, HiveType]]:
    """The six top-level fields of an ACID event file as the file names them (an error for any other schema)."""
    root = _parsed(footer.type_string)
    if root.name != "struct":
        raise AcidFormatError(f"{footer.path} is not an ACID event file: schema {footer.type_string}")
    names = [n.lower() for n, _ in root.fields]
    if names[:5] != [n.lower() for n in EVENT_PREFIX] or len(names) != 6 or names[5] != "row":
        raise AcidFormatError(f"{footer.path} is not an ACID event file: schema {footer.type_string}")
    if root.fields[5][1].name != "struct":
        raise AcidFormatError(f"{footer.path} is not an ACID event file: row is {root.fields[5][1].to_string()}")
    return list(root.fields)


def row_fields(footer: OrcFooter) -> list[tuple[str, HiveType]]:
    """The fields of an event file's ``row`` struct: the table's columns as written (matched by position)."""
    return list(event_fields(footer)[5][1].fields)


def is_event_file(footer: OrcFooter) -> bool:
    """Whether the file's schema is the ACID event schema (field names compared case-insensitively)."""
    try:
        event_fields(footer)
    except AcidFormatError:
        return False
    return True


def group_by_schema(footers: Iterable[OrcFooter]) -> dict[tuple[str, bool], list[OrcFooter]]:
    """Non-empty files that one Spark read can take together: same physical schema, same calendar path
    (:mod:`hiveacid_sql.exec.columns`: files reaching before 1583 read their dates as text)."""
    groups: dict[tuple[str, bool], list[OrcFooter]] = {}
    for footer in footers:
        if footer.num_rows == 0:
            continue  # empty files carry no events (Trino exempts them from every check too)
        groups.setdefault((footer.type_string, footer.pre_gregorian), []).append(footer)
    return groups


@dataclass(frozen=True)
class OriginalSlice:
    """One original file and the synthetic row id of its first row.

    Hive's rule (``OrcRawRecordMerger``, ``VectorizedOrcAcidRowBatchReader.computeOffsetAndBucket``): the
    originalTransaction is 0, the bucket property encodes the bucket id of the file name (statement 0), and
    the row id is the number of rows of the files of the same bucket id that sort before it, plus the row's
    position in the file.
    """

    path: str
    bucket: int  # the encoded bucket property
    start: int  # row id of the file's first row
    part_dir: str
    write_id: int = 0  # the synthetic originalTransaction (a raw base/delta's, see raw_slices)


def original_slices(dirs: Sequence[DirFiles], num_rows: Mapping[str, int]) -> list[OriginalSlice]:
    """The non-empty original files of ``dirs`` that are read as originals (those in ``num_rows``, which gives
    each one's row count; files left out are read as something else) with their first synthetic row id."""
    out: list[OriginalSlice] = []
    for d in dirs:
        offsets: dict[int, int] = {}
        for path in d.original_files:  # already in Hive's Path order
            if path not in num_rows:
                continue
            parsed = parse_original_file(path.rsplit("/", 1)[-1])
            bucket_id = parsed[0] if parsed else 0
            start = offsets.get(bucket_id, 0)
            n = num_rows[path]
            offsets[bucket_id] = start + n
            if n:
                out.append(OriginalSlice(path, encode_bucket(bucket_id, 0), start, d.part_dir))
    return out


def raw_slices(d: DirFiles, num_rows: Mapping[str, int]) -> list[OriginalSlice]:
    """Plain ("raw") files inside a full-ACID table's base or delta directories, as an insert-only table
    converted to full ACID (Hive 4) leaves them, with the synthetic row ids Hive gives them
    (``OrcRawRecordMerger.TransactionMetaData.findWriteIDForSynthetcRowIDs`` and
    ``VectorizedOrcAcidRowBatchReader.computeOffsetAndBucket``): the originalTransaction is the base's write
    id or the delta's minimum one, the bucket property encodes the file name's bucket id and the delta's
    statement id (0 without one), and the row id counts the rows of the directory's files of the same bucket
    id that sort before it (``num_rows``: the raw files and their row counts, in path order)."""
    out: list[OriginalSlice] = []
    offsets: dict[tuple[str, int], int] = {}
    for path in sorted(num_rows):
        directory, name = path.rsplit("/", 2)[-2:]
        parsed = parse_dir_name(directory)
        if parsed is None:
            continue
        original = parse_original_file(name)
        bucket_id = original[0] if original else (parse_bucket_file(name) or 0)
        if isinstance(parsed, ParsedBase):
            write_id, statement = parsed.write_id, 0
        else:
            write_id, statement = parsed.min_write_id, parsed.statement_id or 0
        start = offsets.get((directory, bucket_id), 0)
        n = num_rows[path]
        offsets[(directory, bucket_id)] = start + n
        if n:
            out.append(OriginalSlice(path, encode_bucket(bucket_id, statement), start, d.part_dir, write_id))
    return out
