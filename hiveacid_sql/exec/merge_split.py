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
3. the numbered source rows whose id is none of step 2's (the matched rows' ids are collected, in the job
   that keeps them; the rest of the source is filtered on the driver into another local relation), each with
   NULL target columns: the rows the right outer join adds.

Steps 2 and 3 have the outer join's select list, so the same clause choice, new values, cardinality check and
counts follow; their union is read twice by the writer (aggregate, events) without being kept again.
 "Small": Spark's own size estimate of the source is under its broadcast threshold
(``spark.sql.autoBroadcastJoinThreshold``; a local relation always is) and under the target's, and the target
is not a local relation already (:mod:`hiveacid_sql.exec.local_scan`). Otherwise, or when the source's rows
do not go through Arrow, the outer join runs as planned.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from hiveacid_sql.exec.local_scan import is_local
from hiveacid_sql.exec.small_files import local_relation
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


@contextmanager
def merge_rows(binder: Binder, plan: MergePlan, *, direct: bool = False) -> Iterator[DataFrame]:
    """The joined and classified rows of ``plan`` (:attr:`MergePlan.query`'s rows), split when the source is
    small (see the module docstring), kept by Spark until the block ends: the writer reads them twice
    (exec/merge.py)."""
    split = plan.split
    numbered = None
    if split is not None and not plan.target.is_insert_only:
        source = binder.run(split.source_rows, plan.reads)
        if source_is_small(source, binder.target_frame(plan.target, plan.reads)):
            numbered = _numbered(source)
    if split is None or numbered is None:
        rows = binder.run(plan.query, plan.reads, direct=direct).persist(StorageLevel.MEMORY_AND_DISK)
        try:
            yield rows
        finally:
            rows.unpersist()
        return
    rows, frame = numbered
    binder.add_frame(NUMBERED_SOURCE, frame)
    matched = binder.run(split.matched, plan.reads).persist(StorageLevel.MEMORY_AND_DISK)
    try:
        # the matched rows' source ids (their job keeps the matched rows); the others, on the driver
        ids = matched.select(SOURCE_ID).toArrow().column(0)
        left = rows.filter(pc.invert(pc.is_in(rows.column(SOURCE_ID), value_set=ids.combine_chunks())))
        binder.add_frame(UNMATCHED_SOURCE, local_relation(binder.spark, left, frame.schema))
        # the matched rows are kept and the unmatched ones a local relation: cheap to read again as they are
        yield matched.unionByName(binder.run(split.unmatched, plan.reads))
    finally:
        matched.unpersist()
