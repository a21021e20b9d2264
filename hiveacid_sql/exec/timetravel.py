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

from collections.abc import Callable, Sequence

from pyspark.sql import SparkSession
from sqlglot import exp

from hiveacid_sql.acid import versions
from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.acid.scan_files import ScanFiles, snapshot_files
from hiveacid_sql.acid.versions import VersionRequest as VersionRequest
from hiveacid_sql.acid.versions import timestamp_ms
from hiveacid_sql.acid.writeids import ValidTxnList, ValidWriteIdList
from hiveacid_sql.errors import TimeTravelError
from hiveacid_sql.exec.pruning import prune_partitions, pruned_buckets
from hiveacid_sql.plan.pruning import TablePruning
from hiveacid_sql.txn import PartitionDef, TableDef
from hiveacid_sql.txn.history import HistoryEntry

PartitionWriteIds = Callable[[str, str], dict[str, "int | None"]]
HistoryOf = Callable[[str, str], list[HistoryEntry]]


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
        return VersionRequest("TIMESTAMP", timestamp_ms(value.name, name), f"'{value.name}'")
    if not (isinstance(value, exp.Literal) and not value.is_string and value.name.isdigit()):
        given = value.sql(dialect="hive") if value is not None else "nothing"
        raise TimeTravelError(f"VERSION AS OF needs a write id (a non-negative integer) for {name}, not {given}")
    return VersionRequest("VERSION", int(value.name))


def as_of(
    ids: ValidWriteIdList, request: VersionRequest | int, table: str, history: Sequence[HistoryEntry] = ()
) -> ValidWriteIdList:
    """:func:`hiveacid_sql.acid.versions.as_of` with the commit times of the table's write history."""
    return versions.as_of(ids, request, table, commit_times(history))


def commit_times(history: Sequence[HistoryEntry]) -> dict[int, int]:
    """``{write id: commit time ms}`` of the committed write ids of a history (adopted ones have none)."""
    return {e.write_id: e.commit_time_ms for e in history if e.txn_id is not None}


def version_files(
    spark: SparkSession,
    table: TableDef,
    current: ValidWriteIdList,
    request: VersionRequest | int,
    partitions: list[PartitionDef],
    created: dict[str, int | None],
    pruning: TablePruning | None = None,
    history: Sequence[HistoryEntry] = (),
    *,
    txns: ValidTxnList | None = None,
) -> tuple[ValidWriteIdList, ScanFiles]:
    """The write-id list and files of ``table`` at a version (``current``: today's list; ``created``:
    partition -> the write id that created it; ``history``: the table's commit times). Raises
    :class:`TimeTravelError` when the version does not exist or its files are gone."""
    ids = as_of(current, request, table.qualified_name, history)
    pruning = pruning or TablePruning()
    fs, path = filesystem_for(table.location)
    part_dirs = prune_partitions(spark, table, partitions, pruning.partition_filter) if table.is_partitioned else [""]
    kept = versions.version_part_dirs(fs, path, table.qualified_name, current, ids, part_dirs, created)
    buckets = pruned_buckets(table, pruning.bucket_values)
    return ids, snapshot_files(fs, path, ids, kept, buckets, insert_only=table.is_insert_only, txns=txns)
