"""Run the writers of a statement: on Spark for data-sized input, on the driver for statement-sized input.

After the files are written the driver drops ``_orc_acid_version`` (the single byte ``2``) into every
directory that received a file, as Hive's OrcRecordUpdater does; directories are never created empty,
except the base of an INSERT OVERWRITE / TRUNCATE, which must exist to hide older data.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.fs as pafs
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from hiveacid_sql.acid.names import ACID_VERSION_CONTENT, ACID_VERSION_FILE
from hiveacid_sql.exec.scan import BUCKET, OWID, ROWID
from hiveacid_sql.exec.tasks import STATS_SCHEMA, WriteTarget, insert_task, split_update_task

MAX_WRITERS = 4096  # BucketCodec V1 holds bucket ids 0..4095


@dataclass(frozen=True)
class FileWritten:
    """One event file a statement wrote."""

    directory: str
    path: str
    kind: str  # "insert" | "delete"
    bucket_id: int
    rows: int


def _files(rows: Iterable[dict]) -> list[FileWritten]:
    return [FileWritten(r["directory"], r["path"], r["kind"], r["bucket_id"], r["rows"]) for r in rows]


def _collect(stats_df: DataFrame) -> list[FileWritten]:
    """Stats rows of a Spark write job (one small row per file)."""
    return _files(r.asDict() for r in stats_df.collect())


def _from_batches(batches: Iterable[pa.RecordBatch]) -> list[FileWritten]:
    """Stats rows of a writer run on the driver."""
    return _files(r for batch in batches for r in batch.to_pylist())


def write_inserts(df: DataFrame, target: WriteTarget) -> list[FileWritten]:
    """Insert events for every row of ``df`` (columns = table columns in order), one file per task."""
    return _collect(df.coalesce(MAX_WRITERS).mapInArrow(insert_task(target), STATS_SCHEMA))


def write_inserts_local(table: pa.Table, target: WriteTarget) -> list[FileWritten]:
    """Driver path for statement-sized inserts (INSERT ... VALUES): one ``bucket_00000`` file."""
    return _from_batches(insert_task(target)(iter(table.to_batches())))


def write_split_update(df: DataFrame, target: WriteTarget, *, write_inserts: bool) -> list[FileWritten]:
    """Delete events (and new versions for UPDATE) for the rows of ``df``, grouped by the rows' bucket ids."""
    bucket_id = F.shiftright(F.col(BUCKET), 16).bitwiseAND(0xFFF)
    prepared = (
        df.withColumn("__bucket_id", bucket_id)
        .repartition("__bucket_id")
        .sortWithinPartitions("__bucket_id", OWID, BUCKET, ROWID)
        .drop("__bucket_id")
    )
    return _collect(prepared.mapInArrow(split_update_task(target, write_inserts=write_inserts), STATS_SCHEMA))


def write_split_update_local(rows: pa.Table, target: WriteTarget, *, write_inserts: bool) -> list[FileWritten]:
    """Driver path of :func:`write_split_update` for statement-sized row sets (already collected)."""
    import pyarrow.compute as pc

    bucket_id = pc.bit_wise_and(pc.shift_right(rows.column(BUCKET), 16), 0xFFF)
    ordered = rows.append_column("__bucket_id", bucket_id).sort_by(
        [("__bucket_id", "ascending"), (OWID, "ascending"), (BUCKET, "ascending"), (ROWID, "ascending")]
    )
    ordered = ordered.drop_columns(["__bucket_id"])
    return _from_batches(split_update_task(target, write_inserts=write_inserts)(iter(ordered.to_batches())))


def finish_directories(fs: pafs.FileSystem, target: WriteTarget, files: list[FileWritten]) -> list[str]:
    """Write ``_orc_acid_version`` into each directory written; return the directory names, sorted."""
    dirs = sorted({f.directory for f in files})
    for name in dirs:
        write_version_file(fs, f"{target.location.rstrip('/')}/{name}")
    return dirs


def write_version_file(fs: pafs.FileSystem, dir_path: str) -> None:
    """Create ``dir_path`` if needed and its ``_orc_acid_version`` marker."""
    fs.create_dir(dir_path, recursive=True)
    with fs.open_output_stream(f"{dir_path}/{ACID_VERSION_FILE}") as out:
        out.write(ACID_VERSION_CONTENT)
