"""The MERGE leg of the executor: one join, the cardinality check, one event frame, the files.

The joined and classified rows (see :mod:`hiveacid_sql.plan.merge`) come kept by Spark for the duration of
the statement (:func:`hiveacid_sql.exec.merge_split.merge_rows`), because two things read them: one aggregate that is the cardinality check (a target row
matched by more than one source row where an UPDATE or DELETE clause applies is an error, Hive's
``hive.merge.cardinality.check``), the report's counts and the number of events per clause, which chooses
the driver or the task writer; then that writer. Nothing re-scans the target. The source is numbered by
``monotonically_increasing_id`` in the join's own pass (:mod:`hiveacid_sql.plan.merge`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, Row, Window
from pyspark.sql import functions as F

from hiveacid_sql.errors import ExecutionError
from hiveacid_sql.exec.events import bucket_id_of, merge_events
from hiveacid_sql.exec.routing import new_bucket_id, new_part_dir
from hiveacid_sql.exec.shaping import enforce_checks
from hiveacid_sql.exec.spark_types import data_types
from hiveacid_sql.exec.tasks import BUCKET, OWID, PART_DIR, ROWID, UNASSIGNED_BUCKET
from hiveacid_sql.exec.write import DriverWrite, row_bytes, write_events, write_events_local
from hiveacid_sql.plan.columns import CLAUSE, SOURCE_ID
from hiveacid_sql.plan.model import MergeClause, MergePlan
from hiveacid_sql.results import ClauseResult
from hiveacid_sql.settings import CARDINALITY_CHECK, DRIVER_WRITE_MAX_BYTES, DRIVER_WRITE_MAX_ROWS, Settings

if TYPE_CHECKING:
    from hiveacid_sql.exec.merge_split import MergeRows
    from hiveacid_sql.exec.tasks import TableSink
    from hiveacid_sql.exec.write import FileWritten

_ROW_ID = [PART_DIR, OWID, BUCKET, ROWID]
_MATCH_TEXT = {"matched": "MATCHED", "not_matched": "NOT MATCHED", "not_matched_by_source": "NOT MATCHED BY SOURCE"}


@dataclass(frozen=True)
class MergeCounts:
    """What the report adds for MERGE: source rows, target rows matched, and rows per clause."""

    source_rows: int
    target_rows_matched: int
    clauses: tuple[ClauseResult, ...]


def _indices(clauses: tuple[MergeClause, ...], *actions: str, match: str | None = None) -> list[int]:
    return [c.index for c in clauses if c.action in actions and (match is None or c.match == match)]


def _in(clause: Column, indices: list[int]) -> Column:
    return clause.isin(indices) if indices else F.lit(False)


def _row_text(row) -> str:
    part = f" in partition {row[PART_DIR]}" if row[PART_DIR] else ""
    return f'{{"writeid":{row[OWID]},"bucketid":{row[BUCKET]},"rowid":{row[ROWID]}}}{part}'


def write_merge(
    plan: MergePlan, rows: MergeRows, statement_ids: list[int], sink: TableSink, settings: Settings
) -> tuple[list[FileWritten], MergeCounts]:
    """The MERGE leg of the executor (:mod:`hiveacid_sql.exec.dml`): the cardinality check, the counts and
    the events of every clause, written as the other DML statements write theirs. Rows the split holds on
    the driver are checked and counted there (:func:`_driver_counts`), the others by one Spark aggregate."""
    target = plan.target
    clauses = plan.clauses
    clause = F.col(CLAUSE)
    check = settings.value(CARDINALITY_CHECK)
    counted = _driver_counts(plan, rows, check)
    if counted is not None:
        classified, (source_rows, matched, event_count) = rows.frame, counted
    else:
        classified, counts = _checked_counts(plan, rows.frame, check)
        source_rows, matched, event_count = int(counts["source_rows"]), int(counts["matched"]), _event_count(plan, {c.index: int(counts[f"clause_{c.index}"]) for c in plan.clauses})
    classified = enforce_checks(classified, target, applies=_in(clause, _indices(clauses, "update", "insert")))
    updates = _indices(clauses, "update")
    keep_partition = [i for i in updates if i not in plan.moves_partitions]
    keep_bucket = [i for i in updates if i not in plan.moves_buckets]
    statement = F.lit(None).cast("int")
    for c in clauses:
        statement = F.when(clause == c.index, F.lit(statement_ids[c.statement_offset])).otherwise(statement)
    part_dir = new_part_dir(target)
    if target.is_partitioned:
        part_dir = F.when(_in(clause, keep_partition), F.col(PART_DIR)).otherwise(part_dir)
    hashed = new_bucket_id(target)
    bucket = F.when(_in(clause, keep_bucket), bucket_id_of(F.col(BUCKET))).otherwise(
        hashed if hashed is not None else F.lit(UNASSIGNED_BUCKET)
    )
    events = merge_events(
        classified,
        [c.name for c in target.columns],
        data_types=data_types(target),
        clause=clause,
        statement=statement,
        deletes=_in(clause, _indices(clauses, "update", "delete")),
        inserts=_in(clause, _indices(clauses, "update", "insert")),
        updates=_in(clause, updates),
        new_part_dir=part_dir,
        new_bucket_id=bucket,
    )
    # the events are a projection of the kept rows (not kept a second time); how many there are is the
    # aggregate's answer, so the writer is chosen without a count or a trial collect of its own
    if driver_write(settings).fits(event_count, row_bytes(events)):
        files = write_events_local(events.toArrow(), sink)
    else:
        files = write_events(events, sink, route="shuffle")
    return files, MergeCounts(source_rows, matched, _per_clause(plan, statement_ids, files))


def _driver_counts(plan: MergePlan, rows: MergeRows, check: bool) -> tuple[int, int, int] | None:
    """What :func:`_source_and_matched` answers, from the matched rows the split holds on the driver (the
    unmatched ones are one row per source row, each at most one insert event): the source rows, the target
    rows matched and at most how many events the clauses write; the cardinality check's error here too. None
    when the rows are not on the driver, or when the check is off and a target row has several writing rows
    (the first wins: Spark's window, :func:`_first_wins`, decides which, as for the other rows)."""
    held = rows.matched
    if held is None:
        return None
    clause = held.column(CLAUSE)
    writing = _indices(plan.clauses, "update", "delete", match="matched")
    if writing:
        written = held.filter(pc.is_in(clause, value_set=pa.array(writing).cast(clause.type)))
        per_row = written.group_by(_ROW_ID).aggregate([(ROWID, "count")])
        most = max(per_row.column(f"{ROWID}_count").to_pylist(), default=0)
        if most > 1:
            if not check:
                return None
            worst = per_row.filter(pc.equal(per_row.column(f"{ROWID}_count"), most)).slice(0, 1).to_pylist()[0]
            _cardinality_violation(worst, most)
    matched = held.group_by(_ROW_ID).aggregate([]).num_rows
    source_rows = len(pc.unique(held.column(SOURCE_ID))) + rows.unmatched
    counts = held.group_by(CLAUSE).aggregate([(CLAUSE, "count")])
    per_clause = dict(zip(counts.column(CLAUSE).to_pylist(), counts.column(f"{CLAUSE}_count").to_pylist(), strict=True))
    # the held rows are the matched ones (no INSERT clause applies to them); each unmatched source row makes
    # at most one insert event
    events = rows.unmatched + _event_count(plan, per_clause)
    return source_rows, matched, events


def driver_write(settings: Settings) -> DriverWrite:
    """The session's bounds of a MERGE's driver write (:class:`~hiveacid_sql.exec.write.DriverWrite`)."""
    return DriverWrite(settings.value(DRIVER_WRITE_MAX_ROWS), settings.value(DRIVER_WRITE_MAX_BYTES))


def _source_and_matched(
    classified: DataFrame, writing: list[int] | None = None, clauses: tuple[MergeClause, ...] = ()
) -> Row:
    """One aggregate: the number of source rows and of target rows matched (Hive's MERGE counts); per
    matched target row, how many joined rows a ``writing`` clause (UPDATE / DELETE) applies to: ``most`` is
    the largest such number, ``worst`` a target row with that many (the cardinality check's answer); and
    the joined rows each of ``clauses`` applies to (``clause_<index>``), which size the write.

    Both distinct counts and the check are one grouping: each joined row is keyed twice, by its source row
    id and by its target row id, and grouped by (which key, key), as Spark's own plan for two distinct
    counts does; the check's per-target-row count and the per-clause counts ride along (joined rows without
    a matched target row share one group, where only their clause counts matter). (Three aggregates took
    five Spark jobs; a count to choose the writer, or a trial collect, one more; the two levels are one
    shuffle and two jobs, not three.)"""
    row_id = F.struct(*_ROW_ID)
    matched = F.col(OWID).isNotNull() & F.col(SOURCE_ID).isNotNull()
    clause = F.col(CLAUSE)
    writes = F.when(_in(clause, writing or []), F.lit(1)).otherwise(F.lit(0))
    per_clause = [f"clause_{c.index}" for c in clauses]
    keyed = classified.select(
        F.inline(
            F.array(
                F.struct(
                    F.lit(1).alias("g"), F.col(SOURCE_ID).cast("long").alias("src"),
                    F.when(F.lit(False), row_id).alias("rid"), F.lit(0).alias("w"),
                    *[F.lit(0).alias(n) for n in per_clause],
                ),
                F.struct(
                    F.lit(2).alias("g"), F.lit(None).cast("long").alias("src"),
                    F.when(matched, row_id).alias("rid"), writes.alias("w"),
                    *[F.when(clause == c.index, F.lit(1)).otherwise(F.lit(0)).alias(n) for c, n in zip(clauses, per_clause, strict=True)],
                ),
            )
        )
    )
    kept = F.col("src").isNotNull() | F.col("rid").isNotNull()
    if clauses:
        kept = kept | ((F.col("g") == 2) & _counts_for_a_clause(per_clause))
    per_key = keyed.where(kept).groupBy("g", "src", "rid").agg(F.sum("w").alias("w"), *[F.sum(n).alias(n) for n in per_clause])
    # One task sums the per-key rows (about one per source row and matched target row: statement-sized), so
    # the global aggregate needs no second shuffle, which AQE would run as a job of its own
    counts = per_key.coalesce(1).agg(
        F.count(F.when(F.col("g") == 1, F.lit(1))).alias("source_rows"),
        F.count(F.when((F.col("g") == 2) & F.col("rid").isNotNull(), F.lit(1))).alias("matched"),
        F.coalesce(F.max("w"), F.lit(0)).alias("most"),
        F.max_by(F.col("rid"), F.col("w")).alias("worst"),
        *[F.coalesce(F.sum(n), F.lit(0)).alias(n) for n in per_clause],
    ).first()
    assert counts is not None  # an aggregate has one row
    return counts


def _counts_for_a_clause(per_clause: list[str]) -> Column:
    """Whether a keyed row counts for some clause (one of its ``clause_<index>`` flags is 1)."""
    return F.greatest(*[F.col(n) for n in per_clause], F.lit(0)) > 0


def _event_count(plan: MergePlan, per_clause: Mapping[int, int]) -> int:
    """The events the write will hold, from the rows per clause index (absent: none): an UPDATE writes two
    per row (the delete event and the new version), a DELETE or an INSERT one."""
    return sum(per_clause.get(c.index, 0) * (2 if c.action == "update" else 1) for c in plan.clauses)


def _checked_counts(plan: MergePlan, classified: DataFrame, check: bool) -> tuple[DataFrame, Row]:
    """The rows to write and their counts, after the cardinality check (:func:`cardinality_check`'s rules)
    made in the same aggregate as the counts: with the check on, a target row that a writing clause applies
    to more than once is an error; with it off, the first such joined row wins before anything is counted."""
    writing = _indices(plan.clauses, "update", "delete", match="matched")
    if writing and not check:
        classified = _first_wins(classified, writing)
    counts = _source_and_matched(classified, writing if check else None, plan.clauses)
    if counts["most"] > 1:
        _cardinality_violation(counts["worst"], counts["most"])
    return classified, counts


def write_merge_inserts(
    plan: MergePlan, classified: DataFrame, statement_ids: list[int], sink: TableSink
) -> tuple[list[FileWritten], MergeCounts]:
    """MERGE into an insert-only table (its clauses are all WHEN NOT MATCHED .. INSERT: the planner refuses
    UPDATE and DELETE there): each clause's new rows as plain files in its own ``delta_W_W_S``."""
    from hiveacid_sql.exec.insert_only import write_insert_only

    target = plan.target
    classified = classified.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        counts = _source_and_matched(classified)
        files: list[FileWritten] = []
        for c in sorted(plan.clauses, key=lambda c: c.statement_offset):
            rows = classified.where(F.col(CLAUSE) == F.lit(c.index)).select(*[F.col(col.name) for col in target.all_columns])
            rows = enforce_checks(rows, target)
            files += write_insert_only(rows, target, sink, statement_ids[c.statement_offset], None)
    finally:
        classified.unpersist()
    return files, MergeCounts(int(counts["source_rows"]), int(counts["matched"]), _per_clause(plan, statement_ids, files))


def _per_clause(plan: MergePlan, statement_ids: list[int], files: list[FileWritten]) -> tuple[ClauseResult, ...]:
    out = []
    for c in plan.clauses:
        stmt = statement_ids[c.statement_offset]
        kind = "insert" if c.action == "insert" else "delete"
        rows = sum(f.rows for f in files if f.statement_id == stmt and f.kind == kind)
        out.append(ClauseResult(c.index, _MATCH_TEXT[c.match], c.action.upper(), stmt, rows))
    return tuple(out)


def cardinality_check(plan: MergePlan, classified: DataFrame, check: bool) -> DataFrame:
    """Refuse a target row matched by several source rows where an UPDATE/DELETE applies (Hive's check);
    with the check off, the first such joined row (lowest clause) wins and the others are dropped."""
    writing = _indices(plan.clauses, "update", "delete", match="matched")
    if not writing:
        return classified
    matched = classified.where(F.col(CLAUSE).isin(writing))
    if check:
        duplicate = matched.groupBy(*_ROW_ID).count().where(F.col("count") > 1).limit(1).collect()
        if duplicate:
            _cardinality_violation(duplicate[0], duplicate[0]["count"])
        return classified
    return _first_wins(classified, writing)


def _first_wins(classified: DataFrame, writing: list[int]) -> DataFrame:
    """Of the joined rows of one target row that a writing clause applies to, the first (lowest clause, then
    source row) only."""
    rank = F.row_number().over(Window.partitionBy(*_ROW_ID).orderBy(F.col(CLAUSE), F.col(SOURCE_ID)))
    ranked = classified.withColumn("__rank", F.when(F.col(CLAUSE).isin(writing), rank))
    return ranked.where(F.col("__rank").isNull() | (F.col("__rank") == 1)).drop("__rank")


def _cardinality_violation(row: Row, count: int) -> None:
    raise ExecutionError(
        f"Cardinality Violation in Merge statement: target row {_row_text(row)} is matched by "
        f"{count} source rows (SET {CARDINALITY_CHECK}=false to let the first clause win)"
    )
