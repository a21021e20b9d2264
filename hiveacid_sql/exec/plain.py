"""Plain (non-transactional) tables: stored and read by Spark's own ORC and Parquet sources, as text
lines in Hive's LazySimpleSerDe layout (:mod:`hiveacid_sql.exec.textfile`) or another text serde, and as Avro
files written and read by fastavro in Spark tasks (:mod:`hiveacid_sql.exec.avro`).

They exist because MERGE sources and staging tables are usually plain. Dates and timestamps are proleptic
Gregorian everywhere, as Hive 3.1 counts them: ORC files as :mod:`hiveacid_sql.exec.columns` describes,
Parquet files read and written with Spark's ``CORRECTED`` rebase mode whatever the session says.
"""

from __future__ import annotations

import contextlib
import posixpath
import uuid
from collections.abc import Iterator, Mapping, Sequence

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pyorc
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.listing import data_files_of, filesystem_for
from hiveacid_sql.acid.names import original_file_name, parse_original_file
from hiveacid_sql.acid.opencsv import CsvFormat
from hiveacid_sql.acid.orc_footer import read_footer
from hiveacid_sql.acid.partitions import unescape_path_name
from hiveacid_sql.errors import AcidFormatError, UnsupportedStatementError
from hiveacid_sql.exec.avro import avro_schema, read_avro_table, write_avro_table
from hiveacid_sql.exec.columns import (
    PROLEPTIC_WRITE,
    read_orc,
    refuse_unstorable_values,
    to_instant,
    to_table_type,
)
from hiveacid_sql.exec.jsonserde import read_json_table, write_json_table
from hiveacid_sql.exec.opencsv import read_csv_table, write_csv_table
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


#: The formats plain and insert-only tables are read and written in.
PLAIN_FORMATS = frozenset({"orc", "parquet", "textfile", "csv", "json", "avro"})


def _format(table: TableDef) -> str:
    return table.storage_format.lower()


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
    files = data_files_of(location) if paths is None else [(p, p) for p in paths]
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
    files = data_files_of(location) if paths is None else [(p, p) for p in paths]
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
    spark: SparkSession, table: TableDef, paths: list[str] | None = None, *, partitions: Sequence[PartitionDef] | None = None,
    buckets: frozenset[int] | None = None,
) -> DataFrame:
    """The rows of a plain table (an empty frame if its directory holds no data yet); ``paths``: read these
    data files of the table's format instead (an insert-only table's snapshot files: the data columns only).

    A partitioned table is read partition by partition: ``partitions`` (those left after pruning; their
    catalog locations, which ``ADD PARTITION .. LOCATION`` may put anywhere), each partition's files holding
    only the data columns and its values coming from the catalog, as Hive reads them. ``buckets`` (bucket
    pruning of a bucketed table): only the files Hive named for those buckets (``00000B_0[_copy_K]``) and
    files of any other name are read.
    """
    columns = [(c.name, parse_hive_type(c.type)) for c in table.columns]
    if paths is None and buckets is not None and not table.is_partitioned:
        paths = _bucket_files(table.location, buckets)
    if paths is not None or not table.is_partitioned:
        return _read_location(spark, table, table.location, columns, paths)
    keys = [(c.name, parse_hive_type(c.type)) for c in table.partition_keys]
    frames = []
    for part in partitions or ():
        location = part.location or f"{table.location.rstrip('/')}/{part.name}"
        df = _read_location(spark, table, location, columns, None if buckets is None else _bucket_files(location, buckets))
        values = [
            F.lit(value).cast(to_spark_type(htype)).alias(name)
            for value, (name, htype) in zip(part.values, keys, strict=True)
        ]
        frames.append(df.select(*[F.col(n) for n, _ in columns], *values))
    if not frames:
        return spark.createDataFrame([], spark_schema(columns + keys))
    return union_all(frames)


def _bucket_files(location: str, buckets: frozenset[int]) -> list[str]:
    """The data files in ``location`` that may hold rows of ``buckets``: Hive's bucket files of those bucket
    ids, and any file not named as one (written by another engine: it may hold any bucket)."""
    out = []
    for path, _spark_path in data_files_of(location):
        parsed = parse_original_file(posixpath.basename(path))
        if parsed is None or parsed[0] in buckets:
            out.append(path)
    return out


def _read_location(
    spark: SparkSession, table: TableDef, location: str, columns: list[tuple[str, HiveType]], paths: list[str] | None = None
) -> DataFrame:
    """The data columns of the files in one directory of a plain table (empty when it holds none), or of
    the files ``paths``."""
    schema = spark_schema(columns)
    fmt = _format(table)
    if fmt not in PLAIN_FORMATS:  # a table Hive made in a format we cannot read: never an empty answer
        raise UnsupportedStatementError(
            f"{table.qualified_name} is stored as {fmt}: reading it is not supported here "
            "(ORC, Parquet, Avro, and text by LazySimpleSerDe, OpenCSVSerde or JsonSerDe are)"
        )
    if paths is not None and not paths:
        return spark.createDataFrame([], schema)
    if fmt == "json":
        return read_json_table(spark, location if paths is None else paths, columns, table.serde_params)
    if fmt == "avro":
        return read_avro_table(spark, location if paths is None else paths, columns)
    if fmt == "csv":
        return read_csv_table(spark, location if paths is None else paths, columns, CsvFormat.of(table.serde_params))
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
    if fmt not in PLAIN_FORMATS:
        raise UnsupportedStatementError(f"{table.qualified_name} is stored as {fmt}: writing it is not supported here")
    if fmt == "avro":
        columns = [(c.name, parse_hive_type(c.type)) for c in table.columns]
        write_avro_table(
            df, location, columns, avro_schema(table), overwrite=mode == "overwrite", partition_by=partition_by
        )
        return
    if fmt == "json":
        columns = [(c.name, parse_hive_type(c.type)) for c in table.columns]
        write_json_table(df, location, columns, overwrite=mode == "overwrite", partition_by=partition_by)
        return
    if fmt == "csv":
        columns = [(c.name, parse_hive_type(c.type)) for c in table.columns]
        write_csv_table(
            df, location, columns, overwrite=mode == "overwrite", fmt=CsvFormat.of(table.serde_params), partition_by=partition_by
        )
        return
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
#: The column holding each row's Hive bucket number while a bucketed plain or insert-only table is written.
BUCKET_COLUMN = "__bucket"
#: The column Spark's ``partitionBy`` splits a staged write by (:func:`staged_write`).
_STAGE_KEY = "__stage_key"


def spark_location(location: str, path: str) -> str:
    """``path`` (a path of the table's filesystem) as Spark should be given it: with the location's scheme
    and authority when the location has them."""
    if "://" not in location:
        return path
    scheme, rest = location.split("://", 1)
    authority = rest.split("/", 1)[0]
    return f"{scheme}://{authority}{path}"


def stage_key(df: DataFrame) -> Column:
    """The staging key of each row: its partition directory (``PART_DIR_COLUMN``) and its bucket number
    (``BUCKET_COLUMN``), as ``p=v/q=w/3``, whichever of the two ``df`` has ('' for neither)."""
    names = set(df.columns)
    parts = [F.col(c).cast("string") for c in (PART_DIR_COLUMN, BUCKET_COLUMN) if c in names]
    return F.concat_ws("/", *parts) if parts else F.lit("")


def split_stage_key(key: str, *, bucketed: bool) -> tuple[str, int | None]:
    """(partition directory, bucket) of a staging key built by :func:`stage_key`."""
    if not bucketed:
        return key, None
    part, _, bucket = key.rpartition("/")
    return part, int(bucket)


@contextlib.contextmanager
def staged_write(df: DataFrame, table: TableDef, staging: str) -> Iterator[dict[str, list[str]]]:
    """Write ``df`` (the table's data columns, and ``PART_DIR_COLUMN`` / ``BUCKET_COLUMN`` when given) in one
    Spark job into ``staging`` (a path of the table's filesystem, removed afterwards) and yield its files by
    staging key (:func:`stage_key`), for the caller to move into place.

    A bucketed write first gathers each (partition, bucket) into one Spark task, so each key gets one file, as
    one Hive reducer writes one file per bucket. Spark's ``partitionBy`` escapes the key once more; unescaped
    here.
    """
    fs, _ = filesystem_for(table.location)
    keyed = df.select(*[F.col(c.name) for c in table.columns], stage_key(df).alias(_STAGE_KEY))
    if BUCKET_COLUMN in df.columns:
        keyed = keyed.repartition(F.col(_STAGE_KEY))
        if table.sort_cols:  # SORTED BY: each bucket file sorted, as Hive's reducer writes it
            order = [F.col(c).asc_nulls_first() if o else F.col(c).desc_nulls_last() for c, o in table.sort_cols]
            keyed = keyed.sortWithinPartitions(F.col(_STAGE_KEY), *order)
    try:
        _write_files(keyed, table, spark_location(table.location, staging), mode="overwrite", partition_by=_STAGE_KEY)
        produced: dict[str, list[str]] = {}
        prefix = f"{_STAGE_KEY}="
        for info in fs.get_file_info(pafs.FileSelector(staging, allow_not_found=True)):
            name = posixpath.basename(info.path)
            if info.type != pafs.FileType.Directory or not name.startswith(prefix):
                continue
            files = fs.get_file_info(pafs.FileSelector(info.path))
            produced[unescape_path_name(name[len(prefix):])] = sorted(
                f.path for f in files
                if f.type == pafs.FileType.File and not posixpath.basename(f.path).startswith(("_", "."))
            )
        yield produced
    finally:
        with contextlib.suppress(FileNotFoundError, OSError):
            fs.delete_dir(staging)


def free_bucket_names(taken: set[str], bucket: int, count: int) -> list[str]:
    """``count`` names for new files of ``bucket`` in a directory already holding ``taken``: Hive's
    ``000003_0``, then ``000003_0_copy_1``, ``_copy_2``.. (``Hive.mvFile`` on INSERT INTO)."""
    out: list[str] = []
    copy = 0
    while len(out) < count:
        name = original_file_name(bucket, copy)
        if name not in taken:
            out.append(name)
            taken.add(name)
        copy += 1
    return out


def write_plain_partitions(
    df: DataFrame, table: TableDef, locations: Mapping[str, str], *, overwrite: bool, always: Sequence[str] = ()
) -> list[str]:
    """Write the rows of ``df`` (the table's data columns, :data:`PART_DIR_COLUMN` when partitioned and
    :data:`BUCKET_COLUMN` when bucketed) into the partition directories of a partitioned plain table, or the
    bucket files of a bucketed one; returns the partitions written (sorted; none for an un-partitioned table).

    One Spark job writes every partition into a hidden staging directory of the table, then each partition's
    files move into its directory: ``locations`` (the catalog's, for partitions that exist) or
    ``<table>/<name>``. A bucketed table's files are named as Hive names them, one per bucket that received
    rows (``000003_0``; ``000003_0_copy_1`` when INSERT INTO finds the name taken; Hive 3 on Tez writes no
    file for an empty bucket either). INSERT OVERWRITE first empties each partition written, and only those
    (Hive's dynamic-partition overwrite); ``always``: partitions written even without rows (a full static
    spec: Hive creates or empties it; '' for an un-partitioned table).
    """
    fs, root = filesystem_for(table.location)
    root = root.rstrip("/")
    staging = f"{root}/_tmp_{uuid.uuid4().hex}"
    bucketed = table.is_bucketed
    with staged_write(df, table, staging) as produced:
        by_part: dict[str, list[tuple[int | None, list[str]]]] = {}
        for key, paths in produced.items():
            part, bucket = split_stage_key(key, bucketed=bucketed)
            by_part.setdefault(part, []).append((bucket, paths))
        written = sorted(set(by_part) | set(always))
        for part in written:
            target = _fs_path(locations.get(part) or f"{table.location.rstrip('/')}/{part}") if part else root
            if overwrite:
                _empty_dir(fs, target, keep=staging)
            fs.create_dir(target, recursive=True)
            taken = {posixpath.basename(i.path) for i in fs.get_file_info(pafs.FileSelector(target))}
            for bucket, paths in sorted(by_part.get(part, []), key=lambda item: item[0] or 0):
                names = (
                    [posixpath.basename(p) for p in paths] if bucket is None else free_bucket_names(taken, bucket, len(paths))
                )
                for path, name in zip(paths, names, strict=True):
                    fs.move(path, f"{target}/{name}")
    return [p for p in written if p]


def _empty_dir(fs: pafs.FileSystem, path: str, *, keep: str) -> None:
    """Remove everything in ``path`` but ``keep`` (the staging directory, when ``path`` is the table's)."""
    if posixpath.dirname(keep.rstrip("/")) != path.rstrip("/"):
        fs.delete_dir_contents(path, missing_dir_ok=True)
        return
    for info in fs.get_file_info(pafs.FileSelector(path, allow_not_found=True)):
        if info.path.rstrip("/") == keep.rstrip("/"):
            continue
        if info.type == pafs.FileType.Directory:
            fs.delete_dir(info.path)
        else:
            fs.delete_file(info.path)


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
