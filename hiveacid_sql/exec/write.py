"""Run the writers of a statement: on Spark for data-sized input, on the driver for statement-sized input.

Two ways to bring an event frame's groups together on Spark:

* ``append``: fresh inserts into an un-bucketed table. Every task writes its own rows as
  ``bucket_<task id>`` (sorted by partition directory first when the table is partitioned), as Hive's
  un-bucketed writers do. At most 4096 tasks, the number of bucket ids BucketCodec V1 can hold. A large
  insert's rows are first spread over several tasks (:func:`append_writers`: Spark's size estimate of the
  rows, at most ``hiveacid.write.max.writers``; :func:`spread_rows`) in chunks of neighbouring rows, so a
  load from one input split is not written, then read and compacted, by one core; a small one keeps its
  input's tasks (no shuffle).
* ``shuffle``: everything else (deletes, updates, bucketed tables, MERGE). Rows are hash-partitioned by
  ``(op, statement, partition, bucket)`` and sorted by that key and the row id, so each group lands in
  exactly one task and becomes exactly one file, with delete events in ROW__ID order.

After the files are written the driver drops ``_orc_acid_version`` (the single byte ``2``) into every
directory that received a file, as Hive's OrcRecordUpdater does; directories are never created empty,
except the base of an INSERT OVERWRITE / TRUNCATE, which must exist to hide older data.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import pyarrow as pa
import pyarrow.fs as pafs
from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from hiveacid_sql.acid.names import ACID_VERSION_CONTENT, ACID_VERSION_FILE
from hiveacid_sql.exec.local_scan import collect_arrow, local_rows
from hiveacid_sql.exec.tasks import (
    BUCKET,
    BUCKET_ID,
    GROUP_KEYS,
    OWID,
    PART_DIR,
    ROWID,
    STATS_SCHEMA,
    UNASSIGNED_BUCKET,
    TableSink,
    write_events_task,
)

MAX_WRITERS = 4096  # BucketCodec V1 holds bucket ids 0..4095
Route = Literal["append", "shuffle"]
_SORT_KEYS = [*GROUP_KEYS, OWID, BUCKET, ROWID]


@dataclass(frozen=True)
class FileWritten:
    """One event file a statement wrote; ``directory`` is relative to the table (partition included)."""

    partition: str
    directory: str
    path: str
    kind: str  # "insert" | "delete"
    bucket_id: int
    statement_id: int
    rows: int


def _files(rows: Iterable[dict]) -> list[FileWritten]:
    return [
        FileWritten(r["partition"], r["directory"], r["path"], r["kind"], r["bucket_id"], r["statement_id"], r["rows"])
        for r in rows
    ]


def write_events(events: DataFrame, sink: TableSink, *, route: Route) -> list[FileWritten]:
    """Write an event frame with Spark tasks; returns one record per file (collected: a few rows per file)."""
    if route == "append":
        prepared = events.coalesce(MAX_WRITERS)
        if sink.partitioned:
            prepared = prepared.sortWithinPartitions(PART_DIR)
    else:
        # Fresh inserts of an un-bucketed table get a bucket id before the shuffle, spread over the shuffle
        # partitions by a hash of their values, so a large insert leg is not written by a single task.
        spread = F.pmod(_row_hash(sink), F.lit(_shuffle_width(events)))
        prepared = (
            events.withColumn(
                BUCKET_ID, F.when(F.col(BUCKET_ID) == UNASSIGNED_BUCKET, spread).otherwise(F.col(BUCKET_ID))
            )
            .repartition(*[F.col(k) for k in GROUP_KEYS])
            .sortWithinPartitions(*_SORT_KEYS)
        )
    stats = prepared.mapInArrow(write_events_task(sink), STATS_SCHEMA)
    return _files(r.asDict() for r in stats.collect())


def _row_hash(sink: TableSink) -> Column:
    """A hash of a new row's values; Spark's hash refuses maps (anywhere in a column's type): those columns do
    not take part (no column left: 0)."""
    hashable = [F.col(n) for n, t in sink.columns if "map<" not in t.lower()]
    return F.hash(*hashable) if hashable else F.lit(0)


#: Rows of one input task that go to one writer in a row when an insert is spread (:func:`spread_rows`): ORC's row
#: index stride, so each 10,000-row group of a written file holds rows that were neighbours in the input.
SPREAD_CHUNK_ROWS = 10_000
_ROW_NUMBER_BITS = 33  # monotonically_increasing_id(): partition index << 33 | row number in the partition


def spread_rows(rows: DataFrame, writers: int) -> DataFrame:
    """``rows`` (an insert's, before its events are made: only the data columns cross the shuffle) in
    ``writers`` partitions (as they come when ``writers`` is 1), in chunks of :data:`SPREAD_CHUNK_ROWS`
    neighbouring rows dealt out in turn (chunk ``c`` of input task ``p`` to writer ``(c + p) % writers``).
    Neighbours stay together, so what the input's order gave the files (compression, the key ranges by which
    stripes and row groups are skipped: ``exec/sarg.py``) survives, which a hash of each row would scatter; a write of fewer rows
    than a chunk stays one file. Spark's hash partitioning places a key by ``pmod(murmur3(key, 42), n)``:
    each writer's key is chosen so that it lands there, and the partition count is fixed (Spark's adaptive
    execution coalesces only shuffles whose number it chose)."""
    if writers <= 1:
        return rows
    writers = min(writers, MAX_WRITERS)
    position = F.monotonically_increasing_id()
    row = position.bitwiseAND(F.lit((1 << _ROW_NUMBER_BITS) - 1))
    chunk = F.floor(row / F.lit(SPREAD_CHUNK_ROWS)) + F.shiftright(position, _ROW_NUMBER_BITS)
    keys = F.array(*[F.lit(k) for k in _partition_keys(writers)])
    return rows.repartition(writers, F.element_at(keys, (F.pmod(chunk, F.lit(writers)) + 1).cast("int")))


def _partition_keys(n: int) -> list[int]:
    """For each of ``n`` partitions an int key that Spark's hash partitioning sends there."""
    from hiveacid_sql.acid.bucketing import murmur3_32

    keys: dict[int, int] = {}
    candidate = 0
    while len(keys) < n:
        keys.setdefault(murmur3_32(candidate.to_bytes(4, "little", signed=True), 42) % n, candidate)
        candidate += 1
    return [keys[i] for i in range(n)]


def append_writers(events: DataFrame, max_writers: int, bytes_per_writer: int) -> int:
    """How many writers a fresh insert into an un-bucketed table is spread over: Spark's size estimate of the
    rows (without running anything: a file scan counts its files' bytes, compressed) over
    ``bytes_per_writer``, at most ``max_writers`` (0: Spark's default parallelism, the cores). 1 (the input's
    own tasks write, no shuffle) when the estimate is so large that Spark reads it in at least that many
    tasks anyway (``spark.sql.files.maxPartitionBytes`` each; joins, which Spark over-estimates without
    ANALYZE's row counts, fall here too), when ``bytes_per_writer`` is 0, and under Spark Connect, whose
    plans give no statistics in this process."""
    from hiveacid_sql.exec.session import is_connect

    spark = events.sparkSession
    if bytes_per_writer <= 0 or is_connect(spark):
        return 1
    limit = min(max_writers or spark.sparkContext.defaultParallelism, MAX_WRITERS)
    if limit <= 1:
        return 1
    jdf = events._jdf  # noqa: SLF001 - no Python API for a plan's statistics
    size = int(str(jdf.queryExecution().analyzed().stats().sizeInBytes()))  # a Scala BigInt
    writers = max(1, min(limit, -(-size // bytes_per_writer)))
    split = int(jdf.sparkSession().sessionState().conf().filesMaxPartitionBytes())
    return 1 if size >= writers * split else writers


@dataclass(frozen=True)
class DriverWrite:
    """How many changes the driver writes itself (``hiveacid.driver.write.max.rows`` and ``.max.bytes``): up
    to ``max_rows`` events, or more when Spark's estimate of their size is at most ``max_bytes``. Why bytes: a
    MERGE of a 10,000-row source makes 15,000 events of about 1 MB, which Spark tasks (a shuffle, Python
    workers) wrote in 0.5 s of a 1.9 s statement; the row limit alone cannot tell 1 MB from 1 GB. Either way
    the driver holds at most :meth:`row_bound` rows (``max_rows`` 0: never on the driver)."""

    max_rows: int
    max_bytes: int = 0

    def fits(self, rows: int, row_bytes: int | None) -> bool:
        """Whether ``rows`` events of ``row_bytes`` each (Spark's estimate; None: unknown) go to the driver."""
        return self.max_rows > 0 and rows <= self.row_bound(row_bytes)

    def row_bound(self, row_bytes: int | None) -> int:
        """The most rows of ``row_bytes`` each (None: unknown) the driver takes."""
        if self.max_rows <= 0:
            return 0
        by_bytes = self.max_bytes // row_bytes if row_bytes and self.max_bytes > 0 else 0
        return max(self.max_rows, by_bytes)


def row_bytes(df: DataFrame) -> int | None:
    """Spark's estimate of one row of ``df`` in bytes, without running anything: the sum of its columns'
    default sizes (what Spark's statistics use when they know nothing better: 20 bytes a string, 8 a long).
    None under Spark Connect (no JVM plan in this process)."""
    try:
        return max(1, int(df._jdf.schema().defaultSize()))  # noqa: SLF001 - no Python API for it
    except Exception:  # noqa: BLE001 - Spark Connect: not known
        return None


def _shuffle_width(df: DataFrame) -> int:
    return max(1, min(MAX_WRITERS, int(df.sparkSession.conf.get("spark.sql.shuffle.partitions") or 1)))


def write_events_local(events: pa.Table, sink: TableSink) -> list[FileWritten]:
    """Driver path for statement-sized event sets (already collected): the same writer, run here.

    Fresh inserts of an un-bucketed table all go to ``bucket_00000`` (one writer, as one Hive task would).
    """
    import pyarrow.compute as pc

    buckets = events.column(BUCKET_ID)
    events = events.set_column(
        events.schema.get_field_index(BUCKET_ID), BUCKET_ID, pc.if_else(pc.equal(buckets, UNASSIGNED_BUCKET), 0, buckets)
    )
    ordered = events.sort_by([(k, "ascending") for k in _SORT_KEYS])
    batches = ordered.combine_chunks().to_batches()
    return _files(r for batch in write_events_task(sink)(iter(batches)) for r in batch.to_pylist())


def finish_directories(fs: pafs.FileSystem, sink: TableSink, files: list[FileWritten]) -> list[str]:
    """Write ``_orc_acid_version`` into each directory written; return the directory names, sorted."""
    dirs = sorted({f.directory for f in files})
    for name in dirs:
        write_version_file(fs, f"{sink.location.rstrip('/')}/{name}")
    return dirs


def write_version_file(fs: pafs.FileSystem, dir_path: str) -> None:
    """Create ``dir_path`` if needed and its ``_orc_acid_version`` marker."""
    fs.create_dir(dir_path, recursive=True)
    with fs.open_output_stream(f"{dir_path}/{ACID_VERSION_FILE}") as out:
        out.write(ACID_VERSION_CONTENT)


def write_changes(
    events: DataFrame, sink: TableSink, driver_max_rows: int, *, keep: bool = True, local: bool = True
) -> list[FileWritten]:
    """Statement-sized changes are written by the driver, larger ones by Spark tasks.

    The events are computed once, kept by Spark, and one job collects at most ``hiveacid.driver.write.max.rows``
    + 1 of them (each task sends at most that many): as many or fewer are all the events, written here; more
    are written by tasks from what was kept, so the row-id query never runs twice. (Counting first and
    collecting after took two jobs, and the count's aggregate a shuffle stage of its own.) ``keep=False``: the
    events are cheap to compute again from what the caller keeps (MERGE keeps its joined rows), so they are
    not kept twice. ``local=False``: the caller knows the events are no local relation (Spark reads files
    for them), so Spark's optimizer is not asked."""
    limit = driver_max_rows
    if limit <= 0:
        return write_events(events, sink, route="shuffle")
    # the rows are the driver's already (exec/local_scan.py): collected without a job
    rows = local_rows(events) if local else None
    if rows is not None and rows <= limit:
        return write_events_local(collect_arrow(events), sink)
    kept = events.persist(StorageLevel.MEMORY_AND_DISK) if keep else events
    try:
        if limit < _MAX_LIMIT:
            head = kept.limit(limit + 1).toArrow()
            if head.num_rows <= limit:
                return write_events_local(head, sink)
        elif kept.count() <= limit:
            return write_events_local(kept.toArrow(), sink)
        return write_events(kept, sink, route="shuffle")
    finally:
        if keep:
            kept.unpersist()


#: Spark's LIMIT takes an int: a driver write limit at or above this is counted instead of limited.
_MAX_LIMIT = 2**31 - 2
