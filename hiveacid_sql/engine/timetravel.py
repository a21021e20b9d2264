"""Time travel: ``FROM t VERSION AS OF <write id>`` (Delta) / ``FOR SYSTEM_VERSION AS OF <write id>`` (Hive 4).

Version N of a table is what a reader sees with the write-id high-water mark at N: every write id <= N
that is committed now, minus the open and aborted ones (they stay exceptions, as in the current snapshot).
Write ids are handed out in order, so this is the table as it stood when write id N committed, except
that a transaction holding a lower write id which committed *after* N counts as part of version N
(the store has one write id order, not one commit order per table).

Files: the reader of version N needs, in each partition, the deltas of every write id <= N, or a base no
newer than N. A ``base_M`` with M > N (INSERT OVERWRITE, TRUNCATE, major compaction) makes the older
deltas obsolete: the cleaner may remove them at any time, so a version below M is refused once such a
base exists, with the oldest version available named. A partition created after N (known from the
catalog) held nothing at N and is skipped. Minor compaction keeps every write id's rows (they are
filtered row by row), so versions inside a compacted delta range stay readable.
"""

from __future__ import annotations

from collections.abc import Callable

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

PartitionWriteIds = Callable[[str, str], dict[str, "int | None"]]


def requested_version(node: exp.Table) -> int | None:
    """The write id a table reference asks for (``VERSION AS OF 3``), or None for the current version."""
    version = node.args.get("version")
    if version is None:
        return None
    what = str(version.this).upper()
    value = version.expression
    name = f"{node.db + '.' if node.db else ''}{node.name}"
    if what != "VERSION":
        raise TimeTravelError(
            f"{what} AS OF is not supported for {name}: use VERSION AS OF <write id> (DESCRIBE HISTORY lists them)"
        )
    if str(version.args.get("kind", "AS OF")).upper() != "AS OF":
        raise TimeTravelError(f"Only VERSION AS OF <write id> is supported for {name}")
    if not (isinstance(value, exp.Literal) and not value.is_string and value.name.isdigit()):
        given = value.sql(dialect="hive") if value is not None else "nothing"
        raise TimeTravelError(f"VERSION AS OF needs a write id (a non-negative integer) for {name}, not {given}")
    text = value.name
    return int(text)


def as_of(ids: ValidWriteIdList, version: int, table: str) -> ValidWriteIdList:
    """The table's write-id list at ``version``: high-water mark ``version``, today's open and aborted write ids
    at or below it still exceptions."""
    if version > ids.high_watermark:
        raise TimeTravelError(
            f"Version {version} of {table} does not exist: the latest write id is {ids.high_watermark}"
        )
    exceptions = tuple(w for w in ids.exceptions if w <= version)
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
    version: int,
    partitions: list[PartitionDef],
    created: dict[str, int | None],
    pruning: TablePruning | None = None,
) -> tuple[ValidWriteIdList, ScanFiles]:
    """The write-id list and files of ``table`` at ``version`` (``current``: today's list; ``created``:
    partition -> the write id that created it). Raises :class:`TimeTravelError` when the version is gone."""
    ids = as_of(current, version, table.qualified_name)
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
