"""Time travel: ``FROM t VERSION AS OF <write id>`` (Delta) / ``FOR SYSTEM_VERSION AS OF <write id>`` (Hive 4).

Version N of a table is the table as it stood when write id N committed: the write-id high-water mark at
N, today's open and aborted write ids as exceptions (as in the current snapshot), and also every lower
write id that committed *after* N (a longer transaction), known from the commit times of the write
history. ``TIMESTAMP AS OF 'ts'`` (``FOR SYSTEM_TIME AS OF``) is the same picture at a time: the latest
write id committed at or before ``ts``, without the lower ones committed later.

Files: the reader of version N needs, in each partition, the deltas of every write id <= N, or a base no
newer than N. A ``base_M`` with M > N (INSERT OVERWRITE, TRUNCATE, major compaction) makes the older
deltas obsolete: the cleaner may remove them at any time, so a version below M is refused once such a
base exists, with the oldest version available named. A partition created after N (known from the
catalog) held nothing at N and is skipped. Minor compaction keeps every write id's rows (they are
filtered row by row), so versions inside a compacted delta range stay readable.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pyspark.sql import SparkSession
from sqlglot import exp

from hiveacid_sql.acid.listing import filesystem_for, list_acid_dir
from hiveacid_sql.acid.names import ParsedBase, parse_dir_name
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError, TimeTravelError
from hiveacid_sql.exec.pruning import prune_partitions, pruned_buckets
from hiveacid_sql.exec.scan import ScanFiles, join_path, snapshot_files
from hiveacid_sql.plan.pruning import TablePruning
from hiveacid_sql.txn import PartitionDef, TableDef
from hiveacid_sql.txn.history import HistoryEntry

PartitionWriteIds = Callable[[str, str], dict[str, "int | None"]]
HistoryOf = Callable[[str, str], list[HistoryEntry]]


@dataclass(frozen=True)
class VersionRequest:
    """``VERSION AS OF <write id>`` (``value`` the write id) or ``TIMESTAMP AS OF '<ts>'`` (``value`` epoch ms)."""

    kind: str  # "VERSION" | "TIMESTAMP"
    value: int
    text: str = field(compare=False, default="")

    def __str__(self) -> str:
        return f"{self.kind} AS OF {self.text or self.value}"


def _epoch_ms(text: str, name: str) -> int:
    try:
        stamp = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise TimeTravelError(f"TIMESTAMP AS OF needs a timestamp such as '2026-01-31 12:00:00' for {name}, not '{text}'") from None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.timezone.utc)
    return int(stamp.timestamp() * 1000)


def requested_version(node: exp.Table) -> VersionRequest | None:
    """What a table reference asks for (``VERSION AS OF 3``, ``TIMESTAMP AS OF '...'``), None for today."""
    version = node.args.get("version")
    if version is None:
        return None
    what = str(version.this).upper()
    value = version.expression
    name = f"{node.db + '.' if node.db else ''}{node.name}"
    if str(version.args.get("kind", "AS OF")).upper() != "AS OF":
        raise TimeTravelError(f"Only VERSION AS OF <write id> and TIMESTAMP AS OF '<timestamp>' are supported for {name}")
    if what == "TIMESTAMP":
        if not (isinstance(value, exp.Literal) and value.is_string):
            given = value.sql(dialect="hive") if value is not None else "nothing"
            raise TimeTravelError(f"TIMESTAMP AS OF needs a timestamp string for {name}, not {given}")
        return VersionRequest("TIMESTAMP", _epoch_ms(value.name, name), f"'{value.name}'")
    if not (isinstance(value, exp.Literal) and not value.is_string and value.name.isdigit()):
        given = value.sql(dialect="hive") if value is not None else "nothing"
        raise TimeTravelError(f"VERSION AS OF needs a write id (a non-negative integer) for {name}, not {given}")
    return VersionRequest("VERSION", int(value.name))


def as_of(
    ids: ValidWriteIdList, request: VersionRequest | int, table: str, history: Sequence[HistoryEntry] = ()
) -> ValidWriteIdList:
    """The table's write-id list at a version: high-water mark its write id; today's open and aborted write ids
    at or below it stay exceptions, and so do lower write ids that committed after it (``history``: commit
    times; write ids without a history row count as committed before)."""
    if isinstance(request, int):
        request = VersionRequest("VERSION", request)
    committed = {e.write_id: e.commit_time_ms for e in history if e.txn_id is not None}
    if request.kind == "TIMESTAMP":
        before = [w for w, t in committed.items() if t <= request.value]
        if not before:
            first = min(committed.values(), default=None)
            when = (
                f"its first commit is at {dt.datetime.fromtimestamp(first / 1000, dt.timezone.utc):%Y-%m-%d %H:%M:%S.%f}"[:-3]
                if first is not None else "it has no commit in its history"
            )
            raise TimeTravelError(f"No version of {table} at or before {request.text}: {when} (UTC)")
        version, cutoff = max(before), request.value
        cutoff_ms: int | None = cutoff
    else:
        version = request.value
        if version > ids.high_watermark:
            raise TimeTravelError(
                f"Version {version} of {table} does not exist: the latest write id is {ids.high_watermark}"
            )
        cutoff_ms = committed.get(version)
    later = {w for w, t in committed.items() if w < version and cutoff_ms is not None and t > cutoff_ms}
    exceptions = tuple(sorted({w for w in ids.exceptions if w <= version} | later))
    aborted = frozenset(w for w in ids.aborted if w <= version)
    min_open = next((w for w in exceptions if w not in aborted), None)
    return ValidWriteIdList(ids.table_name, version, exceptions, aborted, min_open)


def _has_valid_write(ids: ValidWriteIdList, first: int, last: int) -> bool:
    """Whether some write id in ``first..last`` is valid in ``ids`` (committed and <= its high-water mark)."""
    last = min(last, ids.high_watermark)
    if last < first:
        return False
    return last - first + 1 > sum(1 for w in ids.exceptions if first <= w <= last)


def _oldest_base(fs, root: str, current: ValidWriteIdList) -> ParsedBase | None:
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


def version_files(
    spark: SparkSession,
    table: TableDef,
    current: ValidWriteIdList,
    request: VersionRequest | int,
    partitions: list[PartitionDef],
    created: dict[str, int | None],
    pruning: TablePruning | None = None,
    history: Sequence[HistoryEntry] = (),
) -> tuple[ValidWriteIdList, ScanFiles]:
    """The write-id list and files of ``table`` at a version (``current``: today's list; ``created``:
    partition -> the write id that created it; ``history``: the table's commit times). Raises
    :class:`TimeTravelError` when the version does not exist or its files are gone."""
    ids = as_of(current, request, table.qualified_name, history)
    version = ids.high_watermark
    pruning = pruning or TablePruning()
    fs, path = filesystem_for(table.location)
    part_dirs = prune_partitions(spark, table, partitions, pruning.partition_filter) if table.is_partitioned else [""]
    kept: list[str] = []
    gone: list[tuple[str, ParsedBase]] = []
    oldest = 0
    for part in part_dirs:
        since = max(created.get(part) or 1, 1)
        base = _oldest_base(fs, join_path(path, part) if part else path, current)
        if base is not None and base.write_id > version:
            # Versions since..M-1 with a committed write need the deltas base_M made obsolete.
            if _has_valid_write(current, since, base.write_id - 1):
                oldest = max(oldest, base.write_id)
            if _has_valid_write(ids, since, version):
                gone.append((part, base))
            continue  # otherwise nothing of this partition existed at the version: nothing to read
        kept.append(part)
    if gone:
        part, base = gone[0]
        where = f"partition {part} of {table.qualified_name}" if part else table.qualified_name
        raise TimeTravelError(
            f"Version {version} of {table.qualified_name} is no longer available: {where} was rewritten by "
            f"{base.name} (INSERT OVERWRITE, TRUNCATE or major compaction), which makes the older files obsolete; "
            f"the oldest version available is {oldest}"
        )
    buckets = pruned_buckets(table, pruning.bucket_values)
    return ids, snapshot_files(fs, path, ids, kept, buckets)
