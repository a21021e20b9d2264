"""MERGE's key range: target stripes that no source row can match are not read.

A daily upsert of recent ids into a large table matches rows of a few stripes, yet the join reads every
target row. When the ON condition equates a target integer column with a source expression (``t.id = s.id``;
the planner lists them: :attr:`~hiveacid_sql.plan.model.MergePlan.source_keys`), a target row whose ``id``
lies outside the source's [min, max] of that expression matches no source row, so the range becomes two
key filters of the target's scan and the existing pruning (:mod:`hiveacid_sql.exec.sarg`: files dropped by
their footers' statistics, ORC's search argument skipping stripes and row groups) does the rest.

Why this is safe: the range is only ever used to skip target rows that cannot match. A NOT MATCHED source
row is still unmatched against every target row that was read and against none that was skipped; inner and
right joins drop unmatched target rows anyway, and a plan with a NOT MATCHED BY SOURCE clause (which needs
every target row) gets no source keys. The range must be the one of the source rows the join sees, so it
is taken only where reading it costs no Spark job and gives the same rows again:

* a source whose key projection Spark's optimizer turns into a local relation (``VALUES``, a small
  DataFrame passed by the caller) and whose plan is deterministic: its rows are collected on the driver;
* an ACID table named directly, keyed by bare columns: the union of its insert-event files' footer
  statistics (already read and cached by the listing), a superset of the live rows' range.

Any other source (a plain table, a subquery that runs a job) is not ranged: one more aggregate over the
source would cost two jobs on every MERGE, for nothing when its keys are spread over the table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pyspark.sql import DataFrame
from pyspark.sql import types as T
from sqlglot import exp

from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.acid.scan_files import is_event_file, row_fields
from hiveacid_sql.exec.local_scan import is_local
from hiveacid_sql.exec.timetravel import requested_version
from hiveacid_sql.plan.model import MergePlan
from hiveacid_sql.plan.pruning import KeyFilter, TablePruning
from hiveacid_sql.sql.tree import table_names

if TYPE_CHECKING:
    from hiveacid_sql.exec.binder import Binder

_INTEGRAL = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
Range = tuple[int, int] | None  # (min, max) of a key; None: not known


def with_source_key_range(binder: Binder, plan: MergePlan) -> MergePlan:
    """``plan`` with the target's key filters narrowed to the source's key range, where it is known cheaply."""
    filters = source_key_filters(binder, plan)
    if not filters:
        return plan
    pruning = plan.reads.target_pruning or TablePruning()
    pruning = dataclasses.replace(pruning, key_filters=(*pruning.key_filters, *filters))
    return dataclasses.replace(plan, reads=dataclasses.replace(plan.reads, target_pruning=pruning))


def source_key_filters(binder: Binder, plan: MergePlan) -> tuple[KeyFilter, ...]:
    """``c >= min`` and ``c <= max`` for each target column ``c`` of :attr:`MergePlan.source_keys` whose
    source expression's range is known (see the module docstring); empty when none is."""
    if plan.source_key_query is None or plan.target.is_insert_only:
        return ()
    keys = binder.run(plan.source_key_query, plan.reads)
    integral = [isinstance(f.dataType, _INTEGRAL) for f in keys.schema.fields]
    if not any(integral):
        return ()
    ranges = _local_ranges(keys) if is_local(keys) else _footer_ranges(binder, plan)
    out: list[KeyFilter] = []
    for column, ok, span in zip(plan.source_keys, integral, ranges, strict=True):
        if ok and span is not None:
            out += [KeyFilter(column, ">=", (span[0],)), KeyFilter(column, "<=", (span[1],))]
    return tuple(out)


def _deterministic(df: DataFrame) -> bool:
    try:
        return bool(df._jdf.queryExecution().analyzed().deterministic())  # noqa: SLF001 - the JVM plan
    except Exception:  # noqa: BLE001 - no JVM plan (Spark Connect): not known, so not used
        return False


def _local_ranges(keys: DataFrame) -> list[Range]:
    """The range of each key column of a local relation, collected on the driver (no job)."""
    width = len(keys.columns)
    if not _deterministic(keys):
        return [None] * width
    rows = keys.collect()
    out: list[Range] = []
    for i in range(width):
        values = [r[i] for r in rows if isinstance(r[i], int) and not isinstance(r[i], bool)]
        out.append((min(values), max(values)) if values else None)
    return out


def _footer_ranges(binder: Binder, plan: MergePlan) -> list[Range]:
    """The range of each bare-column key of an ACID source table from its insert-event files' statistics."""
    query = plan.source_key_query
    assert query is not None
    width = len(plan.source_keys)
    from_ = query.args.get("from_") or query.args.get("from")
    source = from_.this if from_ is not None else None
    if not isinstance(source, exp.Table) or requested_version(source) is not None:
        return [None] * width
    db, name = table_names(source, binder.current_db)
    table = next((t for t in plan.reads.tables if t.qualified_name == f"{db}.{name}"), None)
    files = binder.files.get(f"{db}.{name}")
    if table is None or files is None or not table.is_transactional or table.is_insert_only or files.original_files:
        return [None] * width
    positions = {c.name.lower(): i for i, c in enumerate(table.columns)}
    fs, _ = filesystem_for(table.location)
    footers = files.footers(fs, files.data_files)
    if not all(is_event_file(f) for f in footers if f.num_rows):
        return [None] * width
    out: list[Range] = []
    for e in query.expressions:
        key = e.this if isinstance(e, exp.Alias) else e
        position = positions.get(key.name.lower()) if isinstance(key, exp.Column) else None
        out.append(None if position is None else _union_range([f for f in footers if f.num_rows], position))
    return out


def _union_range(footers: Sequence, position: int) -> Range:
    """(min, max) over the files' statistics of ``row`` field ``position``; None when a file has none usable."""
    low: int | None = None
    high: int | None = None
    for footer in footers:
        if position >= len(row_fields(footer)):
            continue  # written before ADD COLUMNS: the column is NULL there, matching nothing
        ranges = dict(footer.int_ranges)
        if position not in ranges:
            return None  # no statistics (or not an integer field there): the range is not known
        span = ranges[position]
        if span is None:
            continue  # no value in this file
        low = span[0] if low is None else min(low, span[0])
        high = span[1] if high is None else max(high, span[1])
    return None if low is None or high is None else (low, high)
