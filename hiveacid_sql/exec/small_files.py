"""Small event files of a snapshot handed to Spark as local relations instead of files.

Why: Spark's ORC reader costs the same per file whatever its size (open, footer, stripe reads, one split),
and the delete side of the scan's anti join is a job reading every delete file. After hundreds of small DML
statements since the last compaction, almost every file of a snapshot is a tiny delta or delete delta, so
the scan cost grew with the statement count, not the bytes (``benchmarks/RESULTS.md``, scenario 9). Here the
small files' events are read on the driver with pyarrow (and kept for the process:
:mod:`hiveacid_sql.acid.small_events`), then given to Spark by ``createDataFrame`` of the Arrow table: a
``LocalRelation``, which no file is opened for and no job is needed to read (broadcasting it for the anti
join still runs one small job over the driver's rows).

Which files: insert-event and delete-event files of one stripe and at most :data:`SMALL_FILE_MAX_ROWS_CONF`
rows (a Spark conf, default :data:`SMALL_FILE_MAX_ROWS`; ``SET spark.hiveacid.read.small.file.max.rows=0``
turns the driver read off), so that a file ORC could skip stripes or row groups of for a statement's key
filter (:mod:`hiveacid_sql.exec.sarg`) stays with Spark's reader; up to
:data:`SMALL_FILES_MAX_TOTAL_ROWS` rows in all per scan; insert events only where the driver read gives the
same values as Spark's (:func:`~hiveacid_sql.acid.small_events.insert_events_readable`). Larger files, and
any beyond the total, are read by Spark's ORC reader as before.
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Callable, Sequence

import pyarrow as pa
import pyarrow.fs as pafs
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

from hiveacid_sql.acid.arrow_scan import Columns, table_schema
from hiveacid_sql.acid.orc_footer import OrcFooter
from hiveacid_sql.acid.scan_files import ScanFiles
from hiveacid_sql.acid.small_events import SmallFile, insert_events_readable, live_events, without_deleted
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.exec.session import is_connect
from hiveacid_sql.exec.tasks import BUCKET, OWID, PART_DIR, ROWID

#: Spark conf: event files of at most this many rows are read on the driver (0: none, every file by Spark).
SMALL_FILE_MAX_ROWS_CONF = "spark.hiveacid.read.small.file.max.rows"
SMALL_FILE_MAX_ROWS = 1_000
#: Rows read on the driver per scan and kind (insert, delete) at most; files beyond go to Spark's reader.
SMALL_FILES_MAX_TOTAL_ROWS = 200_000

#: The key columns of a scanned piece: the partition directory and the row id.
KEY_FIELDS = [pa.field(PART_DIR, pa.string()), pa.field(OWID, pa.int64()), pa.field(BUCKET, pa.int32()),
               pa.field(ROWID, pa.int64())]
_DELETE_SCHEMA = T.StructType(
    [T.StructField(PART_DIR, T.StringType()), T.StructField(OWID, T.LongType()),
     T.StructField(BUCKET, T.IntegerType()), T.StructField(ROWID, T.LongType())]
)


def small_file_max_rows(spark: SparkSession) -> int:
    """The per-file row bound of the driver read (the Spark conf, else :data:`SMALL_FILE_MAX_ROWS`)."""
    text = spark.conf.get(SMALL_FILE_MAX_ROWS_CONF, None)
    return int(text) if text else SMALL_FILE_MAX_ROWS


def _split(
    files: ScanFiles, footers: Sequence[OrcFooter], max_rows: int, keep: Callable[[OrcFooter], bool] | None = None
) -> tuple[list[SmallFile], list[OrcFooter]]:
    """Footers of small files (as :class:`SmallFile`, up to the total bound) and the rest, in their order."""
    where = {p: d for d in files.dirs for p in (*d.data_files, *d.delete_files)}
    small: list[SmallFile] = []
    rest: list[OrcFooter] = []
    total = 0
    for footer in footers:
        d = where.get(footer.path)
        fits = d is not None and 0 < footer.num_rows <= max_rows and footer.num_stripes <= 1 and total + footer.num_rows <= SMALL_FILES_MAX_TOTAL_ROWS
        if fits and (keep is None or keep(footer)):
            assert d is not None
            size, mtime_ns = d.stats.get(footer.path, (None, None))
            small.append(SmallFile(footer, d.part_dir, size, mtime_ns))
            total += footer.num_rows
        else:
            rest.append(footer)
    return small, rest


def small_inserts(
    max_rows: int,
    fs: pafs.FileSystem,
    files: ScanFiles,
    footers: Sequence[OrcFooter],
    table_columns: Columns,
    write_ids: ValidWriteIdList,
) -> tuple[pa.Table | None, list[OrcFooter]]:
    """Live insert events (before deletes) of the small files among ``footers`` (base or delta files of the
    snapshot) in the shape of the scan's frame before partition columns (None: no small file), and the footers
    left for Spark. ``max_rows``: :func:`small_file_max_rows`, read once per scan (a py4j call)."""
    if max_rows <= 0:
        return None, list(footers)
    small, rest = _split(files, footers, max_rows, lambda f: insert_events_readable(f, table_columns))
    if not small:
        return None, rest
    schema = pa.schema([*KEY_FIELDS, *table_schema(table_columns)])
    return live_events(fs, small, table_columns, write_ids, delete=False, part_dir_column=PART_DIR, schema=schema), rest


def small_deletes(
    max_rows: int, fs: pafs.FileSystem, files: ScanFiles, footers: Sequence[OrcFooter], write_ids: ValidWriteIdList
) -> tuple[pa.Table | None, list[OrcFooter]]:
    """Valid delete events ``__part_dir, __owid, __bucket, __rowid`` of the small files among ``footers``
    (delete deltas of the snapshot; None: no small file), and the footers left for Spark."""
    if max_rows <= 0:
        return None, list(footers)
    small, rest = _split(files, footers, max_rows)
    if not small:
        return None, rest
    return live_events(fs, small, (), write_ids, delete=True, part_dir_column=PART_DIR, schema=pa.schema(KEY_FIELDS)), rest


def live_rows(
    spark: SparkSession,
    data: DataFrame | None,
    inserts: pa.Table | None,
    deletes: Sequence[DataFrame],
    local_deletes: pa.Table | None,
    frame_schema: T.StructType,
    *,
    broadcast: bool,
) -> DataFrame:
    """The snapshot's live rows: ``data`` (insert events read by Spark) and ``inserts`` (read on the driver)
    without the rows that ``deletes`` (read by Spark) or ``local_deletes`` (read on the driver) delete.

    When every delete event was read on the driver, the driver's inserts are anti-joined on the driver and
    only Spark's rows go through Spark's anti join: a union under the join would be planned as one join per
    branch, each broadcasting the deletes in a job of its own. ``broadcast``: the footers say the deletes are
    small enough to broadcast."""
    delete_frames = list(deletes)
    if inserts is not None and local_deletes is not None and not delete_frames:
        inserts = without_deleted(inserts, local_deletes, PART_DIR)
        local_frame = local_relation(spark, inserts, frame_schema)
        spark_part = _anti_join(data, [local_relation(spark, local_deletes, _DELETE_SCHEMA)], broadcast=broadcast)
        return local_frame if spark_part is None else spark_part.unionByName(local_frame)
    if local_deletes is not None:
        delete_frames.append(local_relation(spark, local_deletes, _DELETE_SCHEMA))
    frames = [f for f in (data, None if inserts is None else local_relation(spark, inserts, frame_schema)) if f is not None]
    if not frames:
        return spark.createDataFrame([], frame_schema)
    joined = _anti_join(functools.reduce(DataFrame.unionByName, frames), delete_frames, broadcast=broadcast)
    assert joined is not None
    return joined


def local_relation(spark: SparkSession, table: pa.Table, schema: T.StructType | None = None) -> DataFrame:
    """A local relation of ``table``, in one Arrow batch: PySpark 4.3's ``createDataFrame`` of a table whose
    chunks include an empty one (the driver's anti join leaves them, and so does a fully deleted partition
    among concatenated pieces) drops every row after it (measured: a table of chunks of 2, 0 and 4 rows
    gives 2 rows).

    A table of flat, timestamp-free columns goes to the JVM as ``createDataFrame`` sends it (an Arrow
    stream file read by ``PythonSQLUtils``), without its 30-odd other py4j round trips (conf reads, class
    look-ups): a scan with small deltas and small deletes makes two of these per statement (measured: 38
    round trips and 17.8 ms each through ``createDataFrame``, 6 and 11.7 ms here, loaded machine). Nested and
    timestamp columns, whose values ``createDataFrame`` adjusts to the session, and encrypted I/O take
    ``createDataFrame`` itself, as does Spark Connect (no JVM here: its client sends the table as it is)."""
    table = table.combine_chunks()
    flat = all(not pa.types.is_nested(t) and not pa.types.is_timestamp(t) for t in table.schema.types)
    if not flat or is_connect(spark) or spark.sparkContext._encryption_enabled:  # noqa: SLF001 - see above
        return spark.createDataFrame(table, schema)
    if schema is None:
        schema = from_arrow_schema(table.schema)
    table = table.cast(to_arrow_schema(schema, timezone="UTC"))
    jvm = spark._jvm  # noqa: SLF001 - the JVM classes createDataFrame calls, see above
    assert jvm is not None
    with (
        tempfile.NamedTemporaryFile(delete=False, dir=spark.sparkContext._temp_dir) as f,  # noqa: SLF001
        pa.ipc.new_stream(f, table.schema) as writer,
    ):
        writer.write_table(table)
    try:
        batches = jvm.PythonSQLUtils.readArrowStreamFromFile(f.name)
    finally:
        os.unlink(f.name)
    jdf = jvm.PythonSQLUtils.toDataFrame(batches, schema.json(), spark._jsparkSession)  # noqa: SLF001
    df = DataFrame(jdf, spark)
    df._schema = schema  # noqa: SLF001 - as createDataFrame sets it: df.schema costs no round trip
    return df


def _anti_join(data: DataFrame | None, deletes: Sequence[DataFrame], *, broadcast: bool) -> DataFrame | None:
    if data is None or not deletes:
        return data
    frame = functools.reduce(DataFrame.unionByName, deletes)
    if broadcast:
        frame = F.broadcast(frame)  # the footers say it is small: never a sort-merge join
    return data.join(frame, on=[PART_DIR, OWID, BUCKET, ROWID], how="left_anti")
