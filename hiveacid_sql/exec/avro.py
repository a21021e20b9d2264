"""Tables of Hive's ``AvroSerDe`` (``STORED AS AVRO``) read and written by Spark tasks running fastavro
(:mod:`hiveacid_sql.acid.avro`): PySpark has no Avro source of its own.

Reading lists the table's data files on the driver and gives each task a share of them to decode into Arrow
batches of the table's columns. Writing runs one Avro writer per (task, partition value) through
``mapInArrow``; each file is written under a hidden name and renamed once complete, then the driver, with
every task done, removes what an overwrite replaces (so ``INSERT OVERWRITE t SELECT .. FROM t`` reads its
rows before they go).
"""

from __future__ import annotations

import posixpath
import uuid
from collections.abc import Iterator, Sequence

import pyarrow as pa
import pyarrow.fs as pafs
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.listing import data_files_of, filesystem_for
from hiveacid_sql.exec.spark_types import spark_schema
from hiveacid_sql.txn import TableDef

#: Most tasks one read is split into (each reads whole files).
_MAX_READ_TASKS = 64


def data_files(location: str) -> list[str]:
    """The data files of one directory as Spark's readers see them (:func:`~hiveacid_sql.acid.listing.data_files_of`)."""
    return [spark_path for _, spark_path in data_files_of(location)]


def avro_schema(table: TableDef) -> str:
    """The Avro schema (JSON text) ``table``'s files are written with (:func:`table_schema_json`: its own
    ``avro.schema.literal`` / ``avro.schema.url``, table or serde property, else Hive's derived one)."""
    from hiveacid_sql.acid.avro import table_schema_json

    def read_url(url: str) -> str:
        fs, path = filesystem_for(url)
        with fs.open_input_stream(path) as f:
            return f.read().decode("utf-8")

    columns = [(c.name, parse_hive_type(c.type), c.comment) for c in table.columns]
    params = {**table.serde_params, **table.params}
    return table_schema_json(params, table.qualified_name, columns, table.comment, open_url=read_url)


def read_avro_table(
    spark: SparkSession, location: str | list[str], columns: Sequence[tuple[str, HiveType]]
) -> DataFrame:
    """The rows of an Avro table's files (``location``'s data files, or the files listed); an empty frame
    when there are none."""
    schema = spark_schema(list(columns))
    paths = data_files(location) if isinstance(location, str) else list(location)
    if not paths:
        return spark.createDataFrame([], schema)
    typed = tuple((n, t.to_string()) for n, t in columns)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from hiveacid_sql.acid.avro import read_avro
        from hiveacid_sql.acid.listing import filesystem_for

        cols = [(n, parse_hive_type(t)) for n, t in typed]
        for batch in batches:
            for path in batch.column("path").to_pylist():
                fs, p = filesystem_for(path)
                with fs.open_input_file(p) as f:
                    yield from read_avro(f, cols)

    jobs = spark.createDataFrame([(p,) for p in paths], "path string").repartition(min(len(paths), _MAX_READ_TASKS))
    return jobs.mapInArrow(run, schema)


def write_avro_table(
    df: DataFrame, location: str, columns: Sequence[tuple[str, HiveType]], schema_json: str, *, overwrite: bool,
    partition_by: str | None = None,
) -> list[str]:
    """Append (or overwrite) ``df``'s rows as Avro container files in ``location`` (in Spark's ``partitionBy``
    layout, ``<partition_by>=<escaped value>/``, when ``partition_by`` is set); returns the files written."""
    typed = tuple((n, t.to_string()) for n, t in columns)
    job = uuid.uuid4().hex
    root = location.rstrip("/")

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow.compute as pc
        from pyspark import TaskContext

        from hiveacid_sql.acid.avro import AvroFileWriter
        from hiveacid_sql.acid.listing import filesystem_for
        from hiveacid_sql.acid.partitions import escape_path_name

        ctx = TaskContext.get()
        task = ctx.partitionId() if ctx is not None else 0
        cols = [(n, parse_hive_type(t)) for n, t in typed]
        fs, base = filesystem_for(root)
        open_files: dict[str, tuple[str, str, pa.NativeFile, AvroFileWriter]] = {}

        def file_for(key: str) -> AvroFileWriter:
            if key not in open_files:
                directory = base if partition_by is None else f"{base}/{partition_by}={escape_path_name(key)}"
                fs.create_dir(directory, recursive=True)
                name = f"part-{task:05d}-{job}.c000.avro"
                partial = f"{directory}/_tmp_{name}"
                stream = fs.open_output_stream(partial)
                open_files[key] = (partial, f"{directory}/{name}", stream, AvroFileWriter(stream, schema_json, cols))
            return open_files[key][3]

        for batch in batches:
            if partition_by is None:
                file_for("").write(batch)
                continue
            table = pa.Table.from_batches([batch])
            keys = table.column(partition_by)
            for key in keys.unique().to_pylist():
                rows = table.filter(pc.equal(keys, key)) if key is not None else table.filter(keys.is_null())
                file_for("" if key is None else key).write(rows)
        done = []
        for partial, final, stream, writer in open_files.values():
            writer.close()
            stream.close()
            fs.move(partial, final)
            done.append((final, writer.rows))
        yield pa.RecordBatch.from_pylist(
            [{"path": p, "rows": n} for p, n in done], schema=pa.schema([("path", pa.string()), ("rows", pa.int64())])
        )

    keep = [F.col(partition_by).cast("string").alias(partition_by)] if partition_by is not None else []
    rows = df.select(*[F.col(n) for n, _ in columns], *keep)
    written = [r["path"] for r in rows.mapInArrow(run, "path string, rows long").collect()]
    if overwrite:
        _remove_all_but(root, set(written))
    return written


def _remove_all_but(location: str, keep: set[str]) -> None:
    """Empty ``location`` but for the files ``keep`` (and the directories holding them), as Spark's
    overwrite mode leaves a directory holding only what the job wrote."""
    fs, root = filesystem_for(location)
    kept_dirs = {posixpath.dirname(p) for p in keep}
    for info in fs.get_file_info(pafs.FileSelector(root, allow_not_found=True, recursive=True)):
        if info.type == pafs.FileType.File and info.path not in keep:
            fs.delete_file(info.path)
    for info in sorted(
        fs.get_file_info(pafs.FileSelector(root, allow_not_found=True, recursive=True)), key=lambda i: -len(i.path)
    ):
        if info.type == pafs.FileType.Directory and info.path not in kept_dirs and not any(
            d.startswith(info.path + "/") for d in kept_dirs
        ):
            fs.delete_dir(info.path)
