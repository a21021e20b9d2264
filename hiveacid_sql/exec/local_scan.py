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

from hiveacid_sql.acid.arrow_scan import ROW_ID, scan_dir
from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.acid.scan_files import ScanFiles
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.exec.scan import frame_schema
from hiveacid_sql.exec.small_files import local_relation
from hiveacid_sql.exec.spark_types import cast_to, spark_schema
from hiveacid_sql.exec.tasks import BUCKET, OWID, PART_DIR, ROWID


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
    schema = T.StructType([*frame_schema(table_columns).fields, *spark_schema(list(partition_columns)).fields])
    if not pieces:
        return spark.createDataFrame([], schema)
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
