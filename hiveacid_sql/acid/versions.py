"""Time travel over a table's files: which write ids and which partition directories version N reads.

Version N of a table is the table as it stood when write id N committed: the write-id high-water mark at
N, today's open and aborted write ids as exceptions (as in the current snapshot), and also every lower
write id that committed *after* N (a longer transaction), known from the commit times of the write
history. A timestamp is the same picture at a time: the latest write id committed at or before it, without
the lower ones committed later.

Files: the reader of version N needs, in each partition, the deltas of every write id <= N, or a base no
newer than N. A ``base_M`` with M > N (INSERT OVERWRITE, TRUNCATE, major compaction) makes the older
deltas obsolete: the cleaner may remove them at any time, so a version below M is refused once such a
base exists, with the oldest version available named. A partition created after N held nothing at N and is
skipped. Minor compaction keeps every write id's rows (they are filtered row by row), so versions inside a
compacted delta range stay readable.

Shared by the SQL engine (``VERSION AS OF`` / ``TIMESTAMP AS OF``, :mod:`hiveacid_sql.exec.timetravel`) and
the Arrow reader (:func:`hiveacid_sql.read_table`); no SQL, no Spark, no store: commit times come in as a
``{write id: commit time ms}`` mapping.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pyarrow.fs as pafs

from hiveacid_sql.acid.listing import list_acid_dir
from hiveacid_sql.acid.names import ParsedBase, parse_dir_name
from hiveacid_sql.acid.scan_files import join_path
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError, TimeTravelError


@dataclass(frozen=True)
class VersionRequest:
    """``VERSION AS OF <write id>`` (``value`` the write id) or ``TIMESTAMP AS OF '<ts>'`` (``value`` epoch ms)."""

    kind: str  # "VERSION" | "TIMESTAMP"
    value: int
    text: str = field(compare=False, default="")

    def __str__(self) -> str:
        return f"{self.kind} AS OF {self.text or self.value}"


def timestamp_ms(text: str, name: str) -> int:
    """Epoch milliseconds of a timestamp text (ISO form; UTC unless it names a zone) for ``name``."""
    try:
        stamp = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise TimeTravelError(f"TIMESTAMP AS OF needs a timestamp such as '2026-01-31 12:00:00' for {name}, not '{text}'") from None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.timezone.utc)
    return int(stamp.timestamp() * 1000)


def as_of(
    ids: ValidWriteIdList, request: VersionRequest | int, table: str, commits: Mapping[int, int] | None = None
) -> ValidWriteIdList:
    """The table's write-id list at a version: high-water mark its write id; today's open and aborted write ids
    at or below it stay exceptions, and so do lower write ids that committed after it (``history``: commit
    times: ``{write id: commit time ms}``; write ids without one count as committed before)."""
    if isinstance(request, int):
        request = VersionRequest("VERSION", request)
    committed = dict(commits or {})
    if request.kind == "TIMESTAMP":
        before = [w for w, t in committed.items() if t <= request.value]
        if not before:
            first = min(committed.values(), default=None)
            when = (
                f"its first commit is at {dt.datetime.fromtimestamp(first / 1000, dt.timezone.utc):%Y-%m-%d %H:%M:%S.%f}"[:-3]
                if first is not None else "it has no commit in its history"
            )
            raise TimeTravelError(f"No version of {table} at or before {request.text}: {when} (UTC)")
        version = max(before)
        cutoff: int | None = request.value
    else:
        version = request.value
        if version > ids.high_watermark:
            raise TimeTravelError(
                f"Version {version} of {table} does not exist: the latest write id is {ids.high_watermark}"
            )
        cutoff = committed.get(version)
    later = {w for w, t in committed.items() if w < version and cutoff is not None and t > cutoff}
    exceptions = tuple(sorted({w for w in ids.exceptions if w <= version} | later))
    aborted = frozenset(w for w in ids.aborted if w <= version)
    min_open = next((w for w in exceptions if w not in aborted), None)
    return ValidWriteIdList(ids.table_name, version, exceptions, aborted, min_open)


def has_valid_write(ids: ValidWriteIdList, first: int, last: int) -> bool:
    """Whether some write id in ``first..last`` is valid in ``ids`` (committed and <= its high-water mark)."""
    last = min(last, ids.high_watermark)
    if last < first:
        return False
    return last - first + 1 > sum(1 for w in ids.exceptions if first <= w <= last)


def oldest_base(fs: pafs.FileSystem, root: str, current: ValidWriteIdList) -> ParsedBase | None:
    """The oldest base of a directory that hides older files: committed, or written by a compactor (``_vT``);
    an open or aborted INSERT OVERWRITE's base hides nothing."""
    bases = []
    for entry in list_acid_dir(fs, root).dirs:
        try:
            parsed = parse_dir_name(entry.name)
        except AcidFormatError:
            continue
        if isinstance(parsed, ParsedBase) and (parsed.has_visibility_suffix or current.is_write_id_valid(parsed.write_id)):
            bases.append(parsed)
    return min(bases, key=lambda b: b.write_id) if bases else None


def version_part_dirs(
    fs: pafs.FileSystem,
    path: str,
    table: str,
    current: ValidWriteIdList,
    ids: ValidWriteIdList,
    part_dirs: Sequence[str],
    created: Mapping[str, int | None],
) -> list[str]:
    """The partition directories (of ``part_dirs``, already pruned) version ``ids`` reads: those that existed
    at the version (``created``: partition -> the write id that created it). Raises
    :class:`TimeTravelError` when a newer base has made the version's files obsolete."""
    version = ids.high_watermark
    kept: list[str] = []
    gone: list[tuple[str, ParsedBase]] = []
    oldest = 0
    for part in part_dirs:
        since = max(created.get(part) or 1, 1)
        base = oldest_base(fs, join_path(path, part) if part else path, current)
        if base is not None and base.write_id > version:
            # Versions since..M-1 with a committed write need the deltas base_M made obsolete.
            if has_valid_write(current, since, base.write_id - 1):
                oldest = max(oldest, base.write_id)
            if has_valid_write(ids, since, version):
                gone.append((part, base))
            continue  # otherwise nothing of this partition existed at the version: nothing to read
        kept.append(part)
    if gone:
        part, base = gone[0]
        where = f"partition {part} of {table}" if part else table
        raise TimeTravelError(
            f"Version {version} of {table} is no longer available: {where} was rewritten by "
            f"{base.name} (INSERT OVERWRITE, TRUNCATE or major compaction), which makes the older files obsolete; "
            f"the oldest version available is {oldest}"
        )
    return kept
