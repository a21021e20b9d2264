"""A small DML target's snapshot read on the driver and handed to Spark as a local relation.

A one-row UPDATE of a small table costs a Spark job whose launch dwarfs the work. When the footers (already
read and cached by the listing) say the target's snapshot holds at most ``hiveacid.driver.scan.max.rows``
rows, its live rows are read here by :func:`~hiveacid_sql.acid.arrow_scan.scan_dir` (the same rules as the
Spark scan: delete events, write-id validity, original files' synthetic row ids, schema evolution, Hive's
type conversions) into one Arrow table with the columns of :func:`~hiveacid_sql.exec.scan.scan_frame`'s
frame, and Spark gets it as a ``LocalRelation``. The statement's own Spark expressions then run over it;
Spark's optimizer folds filters and projections over a local relation into another one, so collecting the
changed rows launches no task (:func:`is_local`, the driver write's ``collect``).
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.fs as pafs
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from hiveacid_sql.acid.arrow_scan import ROW_ID, partition_arrays, scan_dir, table_schema
from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.acid.point_read import (
    IntCondition,
    estimated_rows,
    point_events,
    satisfying,
    search_argument,
)
from hiveacid_sql.acid.scan_files import ScanFiles
from hiveacid_sql.acid.small_events import SmallFile, insert_events_readable, live_events, without_deleted
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.exec.sarg import excluded_by
from hiveacid_sql.exec.scan import frame_schema
from hiveacid_sql.exec.small_files import KEY_FIELDS, local_relation
from hiveacid_sql.exec.spark_types import cast_to, spark_schema
from hiveacid_sql.exec.tasks import BUCKET, OWID, PART_DIR, ROWID
from hiveacid_sql.plan.pruning import KeyFilter


def snapshot_rows(fs: pafs.FileSystem, files: ScanFiles) -> int:
    """Rows (events) the snapshot's data files hold by their footers: an upper bound of its live rows."""
    return sum(f.num_rows for f in files.footers(fs, (*files.data_files, *files.original_files)))


def local_frame(
    spark: SparkSession,
    fs: pafs.FileSystem,
    table_columns: Sequence[tuple[str, HiveType]],
    partition_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
    files: ScanFiles,
) -> DataFrame:
    """The live rows of ``files`` as a local relation with the Spark scan's columns and types:
    ``__part_dir``, ``__owid``, ``__bucket``, ``__rowid``, the table columns, the partition columns."""
    pieces = []
    wanted = list(range(len(table_columns)))
    for d in files.dirs:
        rows = scan_dir(fs, d, table_columns, partition_columns, write_ids, wanted=wanted, row_id=True)
        ids = rows.column(ROW_ID).combine_chunks()
        rows = rows.drop_columns([ROW_ID])
        keys = [pa.array([d.part_dir] * rows.num_rows, pa.string()), *ids.flatten()]
        for i, name in enumerate((PART_DIR, OWID, BUCKET, ROWID)):
            rows = rows.add_column(i, name, keys[i])
        if rows.num_rows:
            pieces.append(rows)
    return _as_frame(spark, pieces, table_columns, partition_columns)


def _as_frame(
    spark: SparkSession,
    pieces: list[pa.Table],
    table_columns: Sequence[tuple[str, HiveType]],
    partition_columns: Sequence[tuple[str, HiveType]],
) -> DataFrame:
    """Arrow pieces of ``__part_dir, __owid, __bucket, __rowid``, the table columns, the partition columns as
    one local relation with the Spark scan's names and types."""
    schema = T.StructType([*frame_schema(table_columns).fields, *spark_schema(list(partition_columns)).fields])
    if not pieces:  # an empty local relation (``createDataFrame([])`` is a scan of an RDD: a job to collect)
        from pyspark.sql.pandas.types import to_arrow_schema

        return local_relation(spark, to_arrow_schema(schema, timezone="UTC").empty_table(), schema)
    data = pa.concat_tables([p.replace_schema_metadata(None) for p in pieces], promote_options="permissive")
    # Arrow's field names are the Hive column names as the table spells them: renamed to the scan's by
    # position before Spark sees them (a ``toDF`` after would be one more analysis in the JVM).
    df = local_relation(spark, data.rename_columns(schema.names))
    # Arrow's types as the Spark scan's (char/varchar are strings there and here). The local relation's
    # schema is known here (PySpark keeps the one it sent), so only the columns whose types differ are cast;
    # when none does, the frame is the local relation itself (the Columns of a select cost py4j calls each).
    have = df.schema.fields
    if all(h.dataType == f.dataType for h, f in zip(have, schema.fields, strict=True)):
        return df
    return df.select(*[
        F.col(f"`{h.name}`") if h.dataType == f.dataType else cast_to(F.col(f"`{h.name}`"), f.dataType).alias(f.name)
        for h, f in zip(have, schema.fields, strict=True)
    ])


#: Delete events (by their files' footers) a point read applies on the driver at most; more: the Spark scan.
POINT_DELETES_MAX_ROWS = 200_000


def point_frame(
    spark: SparkSession,
    fs: pafs.FileSystem,
    table_columns: Sequence[tuple[str, HiveType]],
    partition_columns: Sequence[tuple[str, HiveType]],
    write_ids: ValidWriteIdList,
    files: ScanFiles,
    key_filters: Sequence[KeyFilter],
    max_rows: int,
) -> DataFrame | None:
    """The live rows of the row groups the statement's ``key_filters`` leave (files excluded whole by their
    footers, then stripes and row groups by ORC's search argument: :mod:`hiveacid_sql.acid.point_read`) as a
    local relation like :func:`local_frame`'s; every delete event of the snapshot applied. None (the Spark
    scan reads the target) when those row groups hold more than ``max_rows`` events, when the deletes hold
    more than :data:`POINT_DELETES_MAX_ROWS`, or for what only the Spark scan reads exactly: original files,
    raw files in base/delta directories, types or early dates pyorc's values would not give as Spark's
    reader does (:func:`~hiveacid_sql.acid.small_events.insert_events_readable`), a file no condition can
    be handed to ORC for. Rows failing a key filter on an integer column are dropped here (:func:`satisfying`);
    the statement still applies its full WHERE to the rest."""
    if not key_filters or max_rows <= 0 or files.original_files:
        return None
    position = {name.lower(): i for i, (name, _) in enumerate(table_columns)}
    conditions = [IntCondition(position[f.column], f.op, f.values) for f in key_filters if f.column in position]
    if not conditions:
        return None
    delete_footers = [f for f in files.footers(fs, files.delete_files) if f.num_rows]
    if sum(f.num_rows for f in delete_footers) > POINT_DELETES_MAX_ROWS:
        return None
    deletes_by_path = {f.path: f for f in delete_footers}
    candidates = [
        [f for f in files.footers(fs, d.data_files) if f.num_rows and not excluded_by(f, table_columns, key_filters)]
        for d in files.dirs
    ]
    if sum(estimated_rows(f, conditions) for footers in candidates for f in footers) > max_rows:
        return None  # ranges over most of the files (a MERGE's source key range): not worth decoding to find out
    schema = pa.schema([*KEY_FIELDS, *table_schema(table_columns)])
    budget = max_rows
    pieces = []
    for d, footers in zip(files.dirs, candidates, strict=True):
        inserts = []
        for footer in footers:
            if not insert_events_readable(footer, table_columns):
                return None  # raw files, early dates, types pyorc's values would not give as Spark's reader
            predicate = search_argument(footer, table_columns, conditions)
            read = point_events(fs, footer, table_columns, predicate, write_ids, budget) if predicate else None
            if read is None:
                return None
            events, decoded = read
            budget -= decoded
            events = satisfying(events, table_columns, conditions)
            if events.num_rows:
                inserts.append(events.add_column(0, PART_DIR, pa.array([d.part_dir] * events.num_rows, pa.string())))
        if not inserts:
            continue
        rows = pa.concat_tables([t.cast(schema) for t in inserts])
        small = [
            SmallFile(deletes_by_path[p], d.part_dir, *d.stats.get(p, (None, None)))
            for p in d.delete_files if p in deletes_by_path
        ]
        if small:
            deletes = live_events(fs, small, (), write_ids, delete=True, part_dir_column=PART_DIR, schema=pa.schema(KEY_FIELDS))
            rows = without_deleted(rows, deletes, PART_DIR)
        for name, arr in partition_arrays(d.part_dir, partition_columns, rows.num_rows).items():
            rows = rows.append_column(pa.field(name, arr.type), arr)
        if rows.num_rows:
            pieces.append(rows)
    return _as_frame(spark, pieces, table_columns, partition_columns)


def is_local(df: DataFrame) -> bool:
    """Whether Spark's optimized plan of ``df`` is a local relation: its rows are collected without a job."""
    try:
        plan = df._jdf.queryExecution().optimizedPlan()  # noqa: SLF001 - the JVM plan, classic PySpark only
        return str(plan.getClass().getSimpleName()) == "LocalRelation"
    except Exception:  # Spark Connect (no JVM plan here): never assumed local
        return False


def local_rows(df: DataFrame) -> int | None:
    """The number of rows of ``df`` when Spark's optimized plan of it is a local relation (:func:`is_local`),
    else None: a caller that knows they fit collects them whole, without a ``limit`` (a plan of its own that
    Spark would analyse and optimize again)."""
    try:
        plan = df._jdf.queryExecution().optimizedPlan()  # noqa: SLF001 - the JVM plan, classic PySpark only
        if str(plan.getClass().getSimpleName()) != "LocalRelation":
            return None
        return int(plan.data().size())
    except Exception:  # Spark Connect (no JVM plan here): never assumed local
        return None


def collect_arrow(df: DataFrame, limit: int | None = None) -> pa.Table:
    """At most ``limit`` rows (None: all) of a local ``df`` (:func:`is_local`) as the Arrow table ``toArrow``
    gives, but through ``collect``, which a local relation answers on the driver (``toArrow`` always runs a
    job)."""
    from pyspark.sql.conversion import LocalDataToArrowConversion
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = to_arrow_schema(df.schema, timezone="UTC")
    rows = (df if limit is None else df.limit(limit)).collect()
    if not rows:
        return schema.empty_table()
    return LocalDataToArrowConversion.convert(rows, df.schema, False).cast(schema)


def collect_pairs(pairs: DataFrame, limit: int) -> pa.Table | None:
    """The events of a local frame of event arrays (:func:`~hiveacid_sql.exec.events.update_event_pairs`),
    one row each, as ``toArrow`` of their ``inline`` gives them; None when more than ``limit``. (Spark's
    ``inline`` over a local relation is a generator it runs in a job; the arrays are flattened here.)"""
    from pyspark.sql.conversion import LocalDataToArrowConversion
    from pyspark.sql.pandas.types import to_arrow_schema

    (field,) = pairs.schema.fields
    element = field.dataType
    if isinstance(element, T.ArrayType) and isinstance(element.elementType, T.StructType) and not element.containsNull:
        event_schema = element.elementType  # what ``inline`` of the arrays gives, without Spark analysing it
    else:
        event_schema = pairs.select(F.inline(F.col(field.name))).schema
    schema = to_arrow_schema(event_schema, timezone="UTC")
    rows = pairs.collect()
    if 2 * len(rows) > limit:
        return None
    if not rows:
        return schema.empty_table()
    arrays = LocalDataToArrowConversion.convert(rows, pairs.schema, False).column(0)
    flat = pa.Table.from_struct_array(pa.concat_arrays([c.flatten() for c in arrays.chunks]))
    return flat.cast(schema)
