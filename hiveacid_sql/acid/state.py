"""Which directories and files of a table/partition a snapshot reads: the port of ``AcidUtils.getAcidState``.

Hive 3.1 behaviour (``getAcidState``, ``getChildState``, ``isValidBase``, the delta walk) with the Hive 4 / Trino
reading extensions: ``base_N_vT`` / ``delta_..._vT`` names are accepted, and a ``_vT`` base counts as compacted
(Hive 4 ``isCompactedBase``). There is no ``ValidTxnList`` here, so every ``_v`` directory is usable, as in Trino's
``AcidTables.getAcidState``. Of two bases with the same write id the compacted one wins (HIVE-25777).

The input is a :class:`TableListing` (built by :mod:`hiveacid_sql.acid.listing` or by hand in tests), so this
module does no I/O.

Files nested *below* a base/delta directory: a nested ACID-named directory (``delta_1_1/delta_1_1/...``, produced
by Hive minor compaction, trino#8920) is ignored, as Hive (which lists only the files directly inside with
``bucketFileFilter``) and Trino since PR 20840 do. Any other nested directory holding files raises
:class:`AcidFormatError` ("Found file in sub-directory of ACID directory ...", Trino ``AcidTables``): silently
skipping unknown data is worse than refusing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hiveacid_sql.acid.names import (
    LONG_MIN,
    ParsedBase,
    ParsedDelta,
    is_hidden,
    is_side_file,
    parse_bucket_file,
    parse_dir_name,
    parse_original_file,
)
from hiveacid_sql.acid.writeids import RangeResponse, ValidTxnList, ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError, NotEnoughHistoryError


@dataclass(frozen=True)
class FileEntry:
    """A file: ``path`` relative to the table/partition dir, ``/``-separated; ``size`` in bytes; ``mtime_ns``
    its modification time as the listing saw it (None: unknown), which with the size keys the footer cache."""

    path: str
    size: int
    mtime_ns: int | None = field(default=None, compare=False)  # not part of what the file *is* in a listing

    @property
    def name(self) -> str:
        """Last path component."""
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class DirEntry:
    """A directory below the table/partition dir.

    ``files`` are the non-hidden files directly inside it; ``subdirs`` its non-hidden sub-directories.
    ``is_compacted``: the dir has a ``_metadata_acid`` saying ``dataFormat: compacted`` (``MetaDataFile.isCompacted``).
    """

    name: str
    files: tuple[FileEntry, ...] = ()
    is_compacted: bool = False
    subdirs: tuple[DirEntry, ...] = ()

    def all_files(self) -> list[FileEntry]:
        """Files of this dir and of every sub-directory, recursively."""
        out = list(self.files)
        for sub in self.subdirs:
            out.extend(sub.all_files())
        return out


@dataclass(frozen=True)
class TableListing:
    """The non-hidden children of a table/partition dir: ``dirs`` (ACID or not) and top-level ``files``."""

    dirs: tuple[DirEntry, ...] = ()
    files: tuple[FileEntry, ...] = ()


@dataclass(frozen=True)
class AcidState:
    """Result of :func:`get_acid_state` (Hive's ``AcidUtils.Directory``).

    * ``base``/``base_files``: the chosen base and its data files.
    * ``deltas``: selected insert deltas; ``delete_deltas``: selected delete deltas; both in Hive's sort order.
    * ``delta_files``: dir name -> data files of every selected (delete) delta.
    * ``originals``: pre-ACID files (only when no base was chosen), sorted by full path (``Path.compareTo``), which
      fixes synthetic row ids.
    * ``obsolete``: relative paths superseded by the chosen base/deltas (what a cleaner may remove once no reader
      needs them); ``aborted``: dirs whose whole write id range is aborted.
    """

    base: ParsedBase | None
    base_files: tuple[FileEntry, ...]
    deltas: tuple[ParsedDelta, ...]
    delete_deltas: tuple[ParsedDelta, ...]
    delta_files: dict[str, tuple[FileEntry, ...]] = field(default_factory=dict)
    originals: tuple[FileEntry, ...] = ()
    obsolete: tuple[str, ...] = ()
    aborted: tuple[str, ...] = ()

    @property
    def all_deltas(self) -> tuple[ParsedDelta, ...]:
        """Insert and delete deltas together, in Hive's order (``Directory.getCurrentDirectories``)."""
        return tuple(sorted(self.deltas + self.delete_deltas, key=ParsedDelta.sort_key))


def is_data_file(name: str) -> bool:
    """Files a reader takes from a base/delta dir: ``bucket_N[_A]`` (``bucketFileFilter``) and, for raw-format
    dirs written by LOAD DATA, original-named files (``NNNNNN_N[_copy_K]``). Side files and hidden files never."""
    if is_hidden(name) or is_side_file(name):
        return False
    return parse_bucket_file(name) is not None or parse_original_file(name) is not None


def _acid_dir_files(entry: DirEntry, nested_files: bool = False) -> tuple[FileEntry, ...]:
    if nested_files:
        # Insert-only tables: Hive's MM writers put a UNION's branches in ``HIVE_UNION_SUBDIR_<n>/`` inside the
        # delta, and Hive reads the directory recursively.
        found = [f for f in entry.all_files() if is_data_file(f.name) and not any(is_hidden(p) for p in f.path.split("/"))]
        return tuple(sorted(found, key=lambda f: f.path))
    for sub in entry.subdirs:
        if is_hidden(sub.name):
            continue
        if _parse(sub.name) is not None:
            continue  # nested ACID dir from minor compaction: ignored (Hive, Trino PR 20840)
        nested = [f for f in sub.all_files() if not is_hidden(f.name)]
        if nested:
            raise AcidFormatError(
                f"Found file in sub-directory of ACID directory: {nested[0].path} (ACID directory {entry.name})"
            )
    return tuple(sorted((f for f in entry.files if is_data_file(f.name)), key=lambda f: f.path))


def _parse(name: str) -> ParsedBase | ParsedDelta | None:
    try:
        return parse_dir_name(name)
    except AcidFormatError:
        return None


def _is_compacted_base(base: ParsedBase, entry: DirEntry) -> bool:
    # hive4 isCompactedBase: visibility suffix > 0 or _metadata_acid says compacted.
    return base.has_visibility_suffix or entry.is_compacted


def _is_valid_base(base: ParsedBase, entry: DirEntry, write_ids: ValidWriteIdList) -> bool:
    # AcidUtils.isValidBase (hive3).
    if base.write_id == LONG_MIN:
        return True  # first compaction of a converted table: no write id can be open below it
    if not _is_compacted_base(base, entry):
        return write_ids.is_write_id_valid(base.write_id)  # INSERT OVERWRITE / TRUNCATE base
    return write_ids.is_valid_base(base.write_id)


def get_acid_state(
    listing: TableListing,
    write_ids: ValidWriteIdList,
    *,
    nested_files: bool = False,
    txns: ValidTxnList | None = None,
) -> AcidState:
    """Choose base, deltas, delete deltas and originals for ``write_ids`` (``AcidUtils.getAcidState``).

    ``nested_files``: the table is insert-only, whose base/delta directories may hold files in
    sub-directories (read too) instead of the flat ``bucket_N`` files of a full-ACID table. ``txns``: the
    reader's transaction list; a Hive 4 ``base_N_vT`` / ``delta_.._vT`` directory then counts only once its
    visibility transaction ``T`` is committed in it (Hive 4 ``isDirUsable``: a compaction still running, or
    one that failed, wrote it), and one of an aborted ``T`` is garbage. Without ``txns`` (a bare directory,
    no store) every ``_v`` directory is usable, as in Trino.

    Raises :class:`NotEnoughHistoryError` (Hive error 10327) when bases exist, none is usable and the oldest one
    is a compacted base: the history it erased is needed by this snapshot.
    """
    obsolete: list[str] = []
    aborted: list[str] = []
    bases: list[tuple[ParsedBase, DirEntry]] = []
    working: list[ParsedDelta] = []
    entries: dict[str, DirEntry] = {}
    original_dirs: list[DirEntry] = []

    for entry in sorted(listing.dirs, key=lambda d: d.name):
        if is_hidden(entry.name):
            continue
        parsed = parse_dir_name(entry.name)
        if parsed is None:
            original_dirs.append(entry)
            continue
        visibility = parsed.visibility_txn_id
        if txns is not None and visibility > 0 and not txns.is_txn_valid(visibility):
            if txns.is_txn_aborted(visibility):
                aborted.append(entry.name)
            continue  # isDirUsable: not (yet) visible to this reader
        entries[entry.name] = entry
        if isinstance(parsed, ParsedBase):
            bases.append((parsed, entry))
            continue
        # getChildState: a delta whose whole range is aborted is garbage; otherwise keep it if any id is valid.
        # Hive 4's rule (Hive 3.1 also handed such a delta to the compactor, whose list counts every id up to
        # its high watermark as a valid range): nothing of an aborted writer is ever read, not even by a
        # compaction, so a file it left half-written can never make a table impossible to compact.
        if write_ids.is_write_id_range_aborted(parsed.min_write_id, parsed.max_write_id) is RangeResponse.ALL:
            aborted.append(entry.name)
        elif (
            write_ids.is_write_id_range_valid(parsed.min_write_id, parsed.max_write_id)
            is not RangeResponse.NONE
        ):
            working.append(parsed)

    # ---- base choice ---------------------------------------------------------------------------------------
    best: tuple[ParsedBase, DirEntry] | None = None
    for base, entry in bases:
        if not _is_valid_base(base, entry, write_ids):
            continue
        if best is None:
            best = (base, entry)
            continue
        cur_base, cur_entry = best
        if base.write_id > cur_base.write_id or (
            base.write_id == cur_base.write_id
            and _is_compacted_base(base, entry)
            and not _is_compacted_base(cur_base, cur_entry)
        ):
            best = (base, entry)
    if best is not None:
        chosen = best[0]
        obsolete.extend(b.name for b, _ in bases if b.name != chosen.name and b.write_id <= chosen.write_id)

    original_files = [f for f in listing.files if not is_hidden(f.name) and f.size != 0]
    if best is not None:
        # A base covers everything the originals held.
        obsolete.extend(f.path for f in original_files)
        obsolete.extend(d.name for d in original_dirs)
        original_files = []
    else:
        for d in original_dirs:
            original_files.extend(f for f in d.all_files() if not is_hidden(f.name) and f.size != 0)
        if bases:
            oldest_base, oldest_entry = min(bases, key=lambda be: (be[0].write_id, be[0].name))
            if _is_compacted_base(oldest_base, oldest_entry):
                first = str(write_ids.exceptions[0]) if write_ids.exceptions else "x"
                raise NotEnoughHistoryError(
                    f"Not enough history available for ({write_ids.high_watermark},{first}).  "
                    f"Oldest available base: {oldest_base.name}"
                )

    # ---- delta walk (findBestWorkingDeltas) ----------------------------------------------------------------
    working.sort(key=ParsedDelta.sort_key)
    current = best[0].write_id if best is not None else 0
    last_stmt = -1
    prev: ParsedDelta | None = None
    selected: list[ParsedDelta] = []
    for nxt in working:
        if nxt.max_write_id > current:
            # Hive 3.1: a delta whose new part is entirely invalid is neither read nor marked obsolete.
            if write_ids.is_write_id_range_valid(current + 1, nxt.max_write_id) is not RangeResponse.NONE:
                selected.append(nxt)
                current = nxt.max_write_id
                last_stmt = -1 if nxt.statement_id is None else nxt.statement_id
                prev = nxt
        elif nxt.max_write_id == current and last_stmt >= 0:
            # other statements of the same (multi-statement) transaction
            selected.append(nxt)
            prev = nxt
        elif prev is not None and nxt.same_range(prev):
            # delete_delta_x_y / delta_x_y twins of the same range
            selected.append(nxt)
            prev = nxt
        else:
            obsolete.append(nxt.name)

    delta_files = {d.name: _acid_dir_files(entries[d.name], nested_files) for d in selected}
    return AcidState(
        base=best[0] if best is not None else None,
        base_files=_acid_dir_files(best[1], nested_files) if best is not None else (),
        deltas=tuple(d for d in selected if not d.is_delete),
        delete_deltas=tuple(d for d in selected if d.is_delete),
        delta_files=delta_files,
        originals=tuple(sorted(original_files, key=lambda f: f.path)),
        obsolete=tuple(obsolete),
        aborted=tuple(aborted),
    )
