"""MERGE's join with a small source: the target streamed once, not broadcast or shuffled.

``target RIGHT OUTER JOIN source`` (a MERGE with an INSERT clause) keeps every source row, so Spark can
build only the target side: at 1 M rows it broadcasts the whole target (a 135 MB hash relation built on the
driver, most of scenario 3's time), at 10 M it shuffles and sorts it. When the source is small, the planner's
:class:`~hiveacid_sql.plan.model.MergeSplit` is run instead:

1. the source's rows are collected (one job; none for a local relation) and numbered on the driver, then
   handed back to Spark as a local relation, so both uses below see the same rows with the same
   ``__src_id`` (``monotonically_increasing_id`` may number them differently each time it is evaluated);
2. ``target INNER JOIN numbered source``: Spark broadcasts the source and streams the target once; these
   rows are kept (the next step reads their source ids, the write reads them again);
3. the numbered source rows whose id is none of step 2's (the rest of the source is filtered on the driver
   into another local relation), each with NULL target columns: the rows the right outer join adds.

Steps 2 and 3 have the outer join's select list, so the same clause choice, new values, cardinality check and
counts follow. Step 2's rows are collected to the driver when the driver write would take as many
(``hiveacid.driver.write.max.rows`` / ``.max.bytes``: :class:`~hiveacid_sql.exec.write.DriverWrite`), in the
job that scans the target (each of its tasks stops after one row more than that): then the check and the
counts are made there in Arrow, and the events are computed from local relations and written by the driver,
with no Spark job but the events' own (four jobs in all, where keeping the rows and aggregating them took
eight at 1 M rows). Otherwise (more rows: the target is scanned once more) step 2's rows are kept by Spark
and their ids collected, and the writer reads the union twice (aggregate, events) without keeping it again.
 "Small": Spark's own size estimate of the source is under its broadcast threshold
(``spark.sql.autoBroadcastJoinThreshold``; a local relation always is) and under the target's, and the target
is not a local relation already (:mod:`hiveacid_sql.exec.local_scan`). Otherwise, or when the source's rows
do not go through Arrow, the outer join runs as planned.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from hiveacid_sql.exec.local_scan import is_local
from hiveacid_sql.exec.small_files import local_relation
from hiveacid_sql.exec.write import DriverWrite, row_bytes
from hiveacid_sql.plan.columns import NUMBERED_SOURCE, SOURCE_ID, UNMATCHED_SOURCE
from hiveacid_sql.plan.model import MergePlan

if TYPE_CHECKING:
    from hiveacid_sql.exec.binder import Binder


def _size_estimate(df: DataFrame) -> int | None:
    """Spark's estimate of ``df``'s size in bytes (its optimized plan's statistics); None when not known."""
    try:
        return int(df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())  # noqa: SLF001 - py4j: an int
    except Exception:  # noqa: BLE001 - Spark Connect (no JVM plan here): not known
        return None


def _broadcast_threshold(df: DataFrame) -> int:
    try:
        return int(df.sparkSession._jsparkSession.sessionState().conf().autoBroadcastJoinThreshold())  # noqa: SLF001
    except Exception:  # noqa: BLE001 - Spark Connect: never split
        return -1


def source_is_small(source: DataFrame, target: DataFrame) -> bool:
    """Whether the split join pays (see the module docstring)."""
    if is_local(target):
        return False
    if is_local(source):
        return True
    size, threshold, target_size = _size_estimate(source), _broadcast_threshold(source), _size_estimate(target)
    return size is not None and target_size is not None and 0 <= size <= threshold and size < target_size


def _numbered(source: DataFrame) -> tuple[pa.Table, DataFrame] | None:
    """The source's rows with ``__src_id`` 0, 1, ..., in Arrow and as a local relation (None: they do not go
    through Arrow)."""
    try:
        rows = source.toArrow()
        numbered = rows.append_column(SOURCE_ID, pa.array(range(rows.num_rows), pa.int64()))
        schema = T.StructType([*source.schema.fields, T.StructField(SOURCE_ID, T.LongType(), False)])
        return numbered, local_relation(source.sparkSession, numbered, schema)
    except Exception:  # noqa: BLE001 - a type Arrow does not carry: the outer join, as planned
        return None


@dataclass(frozen=True)
class MergeRows:
    """The joined and classified rows of a MERGE (``frame``) and, when the split held them on the driver,
    what the writer needs to check and count them there without a Spark job (:func:`merge_rows`):
    ``matched``, the matched rows in Arrow (``frame`` is a local relation of them plus the unmatched rows),
    and ``unmatched``, how many source rows matched nothing (one row each in ``frame``)."""

    frame: DataFrame
    matched: pa.Table | None = None
    unmatched: int = 0


@contextmanager
def merge_rows(
    binder: Binder, plan: MergePlan, *, driver: DriverWrite | None = None, direct: bool = False
) -> Iterator[MergeRows]:
    """The joined and classified rows of ``plan`` (:attr:`MergePlan.query`'s rows), split when the source is
    small (see the module docstring). The writer reads them twice (exec/merge.py): the split's matched rows
    are collected to the driver when ``driver`` (the driver write's bounds) takes as many (one Spark job,
    the target's scan; then the check, the counts and the write need none of their own), else they are
    kept by Spark until the block ends, as is the planned join's result."""
    split = plan.split
    numbered = None
    if split is not None and not plan.target.is_insert_only:
        source = binder.run(split.source_rows, plan.reads)
        if source_is_small(source, binder.target_frame(plan.target, plan.reads)):
            numbered = _numbered(source)
    if split is None or numbered is None:
        rows = binder.run(plan.query, plan.reads, direct=direct).persist(StorageLevel.MEMORY_AND_DISK)
        try:
            yield MergeRows(rows)
        finally:
            rows.unpersist()
        return
    rows, frame = numbered
    binder.add_frame(NUMBERED_SOURCE, frame)
    joined = binder.run(split.matched, plan.reads)
    held = _collect_matched(joined, driver)
    local = _local(binder, held, joined.schema) if held is not None else None
    if held is not None and local is not None:
        # the unmatched source rows (a local relation: Spark's optimizer evaluates their select list on the
        # driver) and the matched ones, as one frame of local relations: the events need no scan
        left = _unmatched(rows, held.column(SOURCE_ID))
        binder.add_frame(UNMATCHED_SOURCE, local_relation(binder.spark, left, frame.schema))
        yield MergeRows(local.unionByName(binder.run(split.unmatched, plan.reads)), held, left.num_rows)
        return
    matched = joined.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        # the matched rows' source ids (their job keeps the matched rows); the others, on the driver
        ids = matched.select(SOURCE_ID).toArrow().column(0)
        binder.add_frame(UNMATCHED_SOURCE, local_relation(binder.spark, _unmatched(rows, ids), frame.schema))
        # the matched rows are kept and the unmatched ones a local relation: cheap to read again as they are
        yield MergeRows(matched.unionByName(binder.run(split.unmatched, plan.reads)))
    finally:
        matched.unpersist()


def _unmatched(rows: pa.Table, ids: pa.ChunkedArray) -> pa.Table:
    """The numbered source rows whose ``__src_id`` is none of ``ids`` (the matched rows')."""
    return rows.filter(pc.invert(pc.is_in(rows.column(SOURCE_ID), value_set=ids.combine_chunks())))


def _collect_matched(joined: DataFrame, driver: DriverWrite | None) -> pa.Table | None:
    """The split's matched rows in Arrow, when they are at most as many as the driver write takes (Spark's
    row size estimate; one job: the target's scan, each task stopping after that many rows); None when
    there are more (then they are computed again and kept by Spark), when the driver write is off, or when
    a column does not go through Arrow."""
    from pyspark.sql.pandas.types import to_arrow_schema

    if driver is None:
        return None
    bound = driver.row_bound(row_bytes(joined))
    if bound <= 0:
        return None
    try:
        to_arrow_schema(joined.schema, timezone="UTC")
    except Exception:  # noqa: BLE001 - a type Arrow does not carry: kept by Spark, as before
        return None
    head = joined.limit(bound + 1).toArrow()
    return head if head.num_rows <= bound else None


def _local(binder: Binder, held: pa.Table, schema: T.StructType) -> DataFrame | None:
    """The matched rows collected as a local relation with the join's columns, each nullable (the inner
    join's target columns are never NULL, but they are in the unmatched rows they are unioned with); None
    when Spark does not take them back (a type ``createDataFrame`` refuses): then kept by Spark, as before."""
    nullable = T.StructType([T.StructField(f.name, f.dataType, True, f.metadata) for f in schema.fields])
    try:
        return local_relation(binder.spark, held, nullable)
    except Exception:  # noqa: BLE001 - the rows go the way they went before
        return None
