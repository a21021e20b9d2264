"""Plain (non-transactional) tables: stored and read by Spark's own ORC and Parquet sources, and as text
lines in Hive's LazySimpleSerDe layout (:mod:`hiveacid_sql.exec.textfile`).

They exist because MERGE sources and staging tables are usually plain. Dates and timestamps are proleptic
Gregorian everywhere, as Hive 3.1 counts them: ORC files as :mod:`hiveacid_sql.exec.columns` describes,
Parquet files read and written with Spark's ``CORRECTED`` rebase mode whatever the session says.
"""

from __future__ import annotations

import contextlib
import posixpath
import uuid
from collections.abc import Mapping, Sequence

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pyorc
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.listing import filesystem_for
from hiveacid_sql.acid.orc_footer import read_footer
from hiveacid_sql.acid.partitions import unescape_path_name
from hiveacid_sql.errors import AcidFormatError
from hiveacid_sql.exec.columns import (
    PROLEPTIC_WRITE,
    read_orc,
    refuse_unstorable_values,
    to_instant,
    to_table_type,
)
from hiveacid_sql.exec.scan import union_all
from hiveacid_sql.exec.spark_types import spark_schema, to_spark_type
from hiveacid_sql.exec.textfile import read_text_table, text_format, write_text_table
from hiveacid_sql.txn import PartitionDef, TableDef

# The attribute Spark puts on the ORC type of a TIMESTAMP_NTZ column (stored as a bigint of micros).
_SPARK_TYPE_ATTRIBUTE = "spark.sql.catalyst.type"

# Parquet: proleptic days and micros as they are (Spark's default, pinned against a session's LEGACY).
_PARQUET_READ = {"datetimeRebaseMode": "CORRECTED", "int96RebaseMode": "CORRECTED"}
#: Parquet as Hive 3.1 writes and reads it. Spark takes these from the session's conf only (a writer option is
#: overridden), so they are set around each write and put back after it:
#: * decimals as fixed-length binary, lists and maps in Hive's layout (``writeLegacyFormat``): Spark's default
#:   (decimals as INT32/INT64) is unreadable to Hive 3.1's ParquetHiveSerDe;
#: * timestamps as INT96 (Hive's ``ParquetHiveSerDe`` writes and reads only that; Spark's default INT64
#:   ``TIMESTAMP_MICROS`` fails there), the wall clock stored as its UTC instant, proleptic (no rebase).
_PARQUET_WRITE_CONF = {
    "spark.sql.parquet.writeLegacyFormat": "true",
    "spark.sql.parquet.outputTimestampType": "INT96",
    "spark.sql.parquet.int96RebaseModeInWrite": "CORRECTED",
}


def _format(table: TableDef) -> str:
    return table.storage_format.lower()


def _orc_files(location: str) -> list[tuple[str, str]]:
    """(pyarrow path, path for Spark) of the data files Spark would read in ``location`` (no hidden, no empty)."""
    fs, root = filesystem_for(location)
    try:
        infos = fs.get_file_info(pafs.FileSelector(root, allow_not_found=True))
    except OSError:
        return []
    out = []
    for info in sorted(infos, key=lambda i: i.path):
        name = posixpath.basename(info.path)
        if info.type != pafs.FileType.File or name.startswith(("_", ".")) or not info.size:
            continue
        spark_path = location.rstrip("/") + "/" + name if "://" in location else info.path
        out.append((info.path, spark_path))
    return out


def _ntz_columns(fs: pafs.FileSystem, path: str, names: set[str]) -> frozenset[str]:
    """Which of the (lower-case) timestamp columns ``names`` this ORC file holds as Spark TIMESTAMP_NTZ."""
    try:
        with fs.open_input_file(path) as f:
            fields = pyorc.Reader(f).schema.fields
    except (pyorc.ParseError, OSError) as exc:
        raise AcidFormatError(f"cannot read ORC file {path}: {exc}") from exc
    return frozenset(
        name.lower()
        for name, t in fields.items()
        if name.lower() in names and t.attributes.get(_SPARK_TYPE_ATTRIBUTE) == "timestamp_ntz"
    )


def _read_orc_temporal(
    spark: SparkSession, location: str, columns: list[tuple[str, HiveType]], paths: list[str] | None = None
) -> DataFrame:
    """An ORC table with date or timestamp columns, file group by file group.

    An ORC ``timestamp`` written by Hive (or by us) can only be read by Spark as TIMESTAMP and is then
    turned into its wall-clock value, as the ACID scan does; a file written by Spark itself stores
    TIMESTAMP_NTZ as a tagged bigint that Spark reads only as TIMESTAMP_NTZ. A table may hold both. Files
    whose dates reach before 1583 take the exact calendar path (:mod:`hiveacid_sql.exec.columns`).
    """
    schema = spark_schema(columns)
    ts_names = {n.lower() for n, t in columns if t.name == "timestamp"}
    fs, _ = filesystem_for(location)
    groups: dict[tuple[frozenset[str], bool], list[str]] = {}
    files = _orc_files(location) if paths is None else [(p, p) for p in paths]
    for path, spark_path in files:
        key = (_ntz_columns(fs, path, ts_names), read_footer(fs, path).pre_gregorian)
        groups.setdefault(key, []).append(spark_path)
    frames = []
    for (ntz, as_text), paths in groups.items():
        # TIMESTAMP_NTZ files are read as they are; for the others every timestamp (even nested) is
        # asked for as TIMESTAMP (or as text), then turned into the table's type.
        physical = T.StructType(
            [
                T.StructField(n, to_spark_type(t, physical=n.lower() not in ntz, dates_as_text=as_text), True)
                for n, t in columns
            ]
        )
        df = read_orc(spark, physical, paths, dates_as_text=as_text)
        out = [
            F.col(name) if name.lower() in ntz else to_table_type(F.col(name), htype, htype, dates_as_text=as_text).alias(name)
            for name, htype in columns
        ]
        frames.append(df.select(*out))
    return union_all(frames) if frames else spark.createDataFrame([], schema)


def _has_timestamp(t: HiveType) -> bool:
    return t.name == "timestamp" or any(_has_timestamp(c[1] if isinstance(c, tuple) else c) for c in t.children)


def _int96(fs: pafs.FileSystem, path: str) -> bool:
    """Whether this Parquet file stores timestamps as INT96 (Hive's and ours since they are written as Hive's;
    earlier files of ours hold Spark's INT64 TIMESTAMP_NTZ)."""
    try:
        with fs.open_input_file(path) as f:
            schema = pq.ParquetFile(f).metadata.schema
            return any(schema.column(i).physical_type == "INT96" for i in range(len(schema)))
    except (OSError, pa.ArrowException) as exc:
        raise AcidFormatError(f"cannot read Parquet file {path}: {exc}") from exc


def _read_parquet_timestamps(
    spark: SparkSession, location: str, columns: list[tuple[str, HiveType]], paths: list[str] | None = None
) -> DataFrame:
    """A Parquet table with timestamp columns, file group by file group: INT96 files (Hive's, and ours) are
    read with their timestamps as Spark TIMESTAMP (the UTC instant) and turned into the wall clock, as the
    ORC path does; files holding Spark's TIMESTAMP_NTZ are read as they are. A table may hold both."""
    schema = spark_schema(columns)
    fs, _ = filesystem_for(location)
    groups: dict[bool, list[str]] = {}
    files = _orc_files(location) if paths is None else [(p, p) for p in paths]
    for path, spark_path in files:
        groups.setdefault(_int96(fs, path), []).append(spark_path)
    frames = []
    for int96, group in sorted(groups.items()):
        if not int96:
            frames.append(spark.read.options(**_PARQUET_READ).schema(schema).parquet(*group))
            continue
        physical = T.StructType([T.StructField(n, to_spark_type(t, physical=True), True) for n, t in columns])
        df = spark.read.options(**_PARQUET_READ).schema(physical).parquet(*group)
        frames.append(df.select(*[to_table_type(F.col(n), t, t).alias(n) for n, t in columns]))
    return union_all(frames) if frames else spark.createDataFrame([], schema)


def _has_temporal(t: HiveType) -> bool:
    if t.name in ("date", "timestamp"):
        return True
    return any(_has_temporal(c[1] if isinstance(c, tuple) else c) for c in t.children)


def read_plain(
    spark: SparkSession, table: TableDef, paths: list[str] | None = None, *, partitions: Sequence[PartitionDef] | None = None
) -> DataFrame:
    """The rows of a plain table (an empty frame if its directory holds no data yet); ``paths``: read these
    data files of the table's format instead (an insert-only table's snapshot files: the data columns only).

    A partitioned table is read partition by partition: ``partitions`` (those left after pruning; their
    catalog locations, which ``ADD PARTITION .. LOCATION`` may put anywhere), each partition's files holding
    only the data columns and its values coming from the catalog, as Hive reads them.
    """
    columns = [(c.name, parse_hive_type(c.type)) for c in table.columns]
    if paths is not None or not table.is_partitioned:
        return _read_location(spark, table, table.location, columns, paths)
    keys = [(c.name, parse_hive_type(c.type)) for c in table.partition_keys]
    frames = []
    for part in partitions or ():
        location = part.location or f"{table.location.rstrip('/')}/{part.name}"
        df = _read_location(spark, table, location, columns)
        values = [
            F.lit(value).cast(to_spark_type(htype)).alias(name)
            for value, (name, htype) in zip(part.values, keys, strict=True)
        ]
        frames.append(df.select(*[F.col(n) for n, _ in columns], *values))
    if not frames:
        return spark.createDataFrame([], spark_schema(columns + keys))
    return union_all(frames)


def _read_location(
    spark: SparkSession, table: TableDef, location: str, columns: list[tuple[str, HiveType]], paths: list[str] | None = None
) -> DataFrame:
    """The data columns of the files in one directory of a plain table (empty when it holds none), or of
    the files ``paths``."""
    schema = spark_schema(columns)
    if paths is not None and not paths:
        return spark.createDataFrame([], schema)
    fmt = _format(table)
    if fmt == "textfile":
        return read_text_table(
            spark, location if paths is None else paths, columns, text_format(table.serde_params)  # type: ignore[arg-type]
        )
    if fmt == "orc" and any(_has_temporal(t) for _, t in columns):
        return _read_orc_temporal(spark, location, columns, paths)
    if fmt == "parquet" and any(_has_timestamp(t) for _, t in columns):
        return _read_parquet_timestamps(spark, location, columns, paths)
    reader = spark.read.format(fmt).schema(schema).options(**(_PARQUET_READ if fmt == "parquet" else {}))
    try:
        return reader.load(location if paths is None else paths)
    except Exception:  # noqa: BLE001 - an empty or missing directory reads as an empty table
        if paths is not None:
            raise
        return spark.createDataFrame([], schema)


def write_plain(df: DataFrame, table: TableDef, *, overwrite: bool) -> None:
    """Append (or overwrite) the rows of ``df`` to an un-partitioned plain table's directory."""
    _write_files(df, table, table.location, mode="overwrite" if overwrite else "append")


def _write_files(df: DataFrame, table: TableDef, location: str, *, mode: str, partition_by: str | None = None) -> None:
    """``df``'s rows (the table's data columns, and ``partition_by`` if given) as files of the table's format
    in ``location`` (Spark's ``partitionBy`` sub-directories when ``partition_by`` is set)."""
    fmt = _format(table)
    if fmt == "textfile":
        columns = [(c.name, parse_hive_type(c.type)) for c in table.columns]
        write_text_table(
            df, location, columns, overwrite=mode == "overwrite", fmt=text_format(table.serde_params), partition_by=partition_by
        )
        return
    options: dict[str, str] = {}
    if fmt == "orc":
        df = _ntz_as_instants(refuse_unstorable_values(df))
        options = PROLEPTIC_WRITE
    elif fmt == "parquet":
        df = _ntz_as_instants(df)  # written as INT96 instants (below), Hive's Parquet timestamps
    writer = df.write.format(fmt).options(**options).mode(mode)
    if partition_by is not None:
        writer = writer.partitionBy(partition_by)
    if fmt != "parquet":
        writer.save(location)
        return
    spark = df.sparkSession
    previous = {key: spark.conf.get(key, None) for key in _PARQUET_WRITE_CONF}
    for key, value in _PARQUET_WRITE_CONF.items():
        spark.conf.set(key, value)
    try:
        writer.save(location)
    finally:
        for key, old in previous.items():
            if old is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, old)


#: The column holding each row's Hive partition directory name while a partitioned plain table is written.
PART_DIR_COLUMN = "__part_dir"


def write_plain_partitions(
    df: DataFrame, table: TableDef, locations: Mapping[str, str], *, overwrite: bool, always: Sequence[str] = ()
) -> list[str]:
    """Write the rows of ``df`` (the table's data columns and :data:`PART_DIR_COLUMN`) into the partition
    directories of a partitioned plain table; returns the partitions written (sorted).

    One Spark job writes every partition into a hidden staging directory of the table (Spark's
    ``partitionBy`` escapes the name once more; unescaped here), then each partition's files move into its
    directory: ``locations`` (the catalog's, for partitions that exist) or ``<table>/<name>``. INSERT
    OVERWRITE first empties each partition written, and only those (Hive's dynamic-partition overwrite);
    ``always``: partitions written even without rows (a full static spec: Hive creates or empties it).
    """
    fs, root = filesystem_for(table.location)
    staging = f"{root.rstrip('/')}/_tmp_{uuid.uuid4().hex}"
    staging_uri = f"{table.location.rstrip('/')}/{posixpath.basename(staging)}"
    try:
        _write_files(df, table, staging_uri, mode="overwrite", partition_by=PART_DIR_COLUMN)
        produced: dict[str, list[str]] = {}
        prefix = f"{PART_DIR_COLUMN}="
        infos = fs.get_file_info(pafs.FileSelector(staging, allow_not_found=True))
        for info in infos:
            name = posixpath.basename(info.path)
            if info.type != pafs.FileType.Directory or not name.startswith(prefix):
                continue
            part = unescape_path_name(name[len(prefix):])
            files = fs.get_file_info(pafs.FileSelector(info.path))
            produced[part] = [
                f.path for f in files
                if f.type == pafs.FileType.File and not posixpath.basename(f.path).startswith(("_", "."))
            ]
        written = sorted(set(produced) | set(always))
        for part in written:
            target = _fs_path(locations.get(part) or f"{table.location.rstrip('/')}/{part}")
            if overwrite:
                fs.delete_dir_contents(target, missing_dir_ok=True)
            fs.create_dir(target, recursive=True)
            for path in produced.get(part, []):
                fs.move(path, f"{target}/{posixpath.basename(path)}")
        return written
    finally:
        with contextlib.suppress(FileNotFoundError, OSError):
            fs.delete_dir(staging)


def _fs_path(location: str) -> str:
    """``location`` as a path of its filesystem."""
    return filesystem_for(location)[1].rstrip("/")


def _ntz_as_instants(df: DataFrame) -> DataFrame:
    """Wall-clock timestamps, also inside arrays, maps and structs, as UTC instants, so Spark writes a plain
    ORC ``timestamp`` Hive reads.

    Spark would store TIMESTAMP_NTZ as a tagged ``bigint`` that Hive and Trino read as a number (and that
    our reader, asking nested timestamps as TIMESTAMP, read as NULL: an ``array<timestamp>`` came back
    ``[NULL, ..]``).
    """
    for field in df.schema.fields:
        converted = _instants(F.col(field.name), field.dataType)
        if converted is not None:
            df = df.withColumn(field.name, converted)
    return df


def _instants(col: Column, data_type: T.DataType) -> Column | None:
    """``col`` with every TIMESTAMP_NTZ in it as an instant (:func:`to_instant`); None if it holds none."""
    if isinstance(data_type, T.TimestampNTZType):
        return to_instant(col)
    if isinstance(data_type, T.ArrayType):
        element = data_type.elementType
        if _instants(F.lit(None), element) is None:
            return None
        return F.transform(col, lambda x: _instants(x, element))  # type: ignore[arg-type,return-value]
    if isinstance(data_type, T.MapType):
        key, value = data_type.keyType, data_type.valueType
        if _instants(F.lit(None), key) is None and _instants(F.lit(None), value) is None:
            return None
        out = col
        if _instants(F.lit(None), key) is not None:
            out = F.transform_keys(out, lambda k, _v: _instants(k, key))  # type: ignore[arg-type,return-value]
        if _instants(F.lit(None), value) is not None:
            out = F.transform_values(out, lambda _k, v: _instants(v, value))  # type: ignore[arg-type,return-value]
        return out
    if isinstance(data_type, T.StructType):
        parts = [(f, _instants(col.getField(f.name), f.dataType)) for f in data_type.fields]
        if all(c is None for _, c in parts):
            return None
        fields = [(c if c is not None else col.getField(f.name)).alias(f.name) for f, c in parts]
        return F.when(col.isNull(), F.lit(None)).otherwise(F.struct(*fields))
    return None
