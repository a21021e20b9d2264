"""A table's definition as the catalog stores it: pure frozen values, no SQLAlchemy.

The planner and the engine read these; :class:`~hiveacid_sql.txn.catalog.Catalog` turns them
into ``TBLS``/``COLUMNS_V2``/... rows and back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

StorageFormat = Literal["orc", "parquet", "textfile", "csv", "json", "avro"]
TableType = Literal["MANAGED_TABLE", "EXTERNAL_TABLE", "VIRTUAL_VIEW"]

STORAGE_FORMATS: frozenset[str] = frozenset({"orc", "parquet", "textfile", "csv", "json", "avro"})
TABLE_TYPES: frozenset[str] = frozenset({"MANAGED_TABLE", "EXTERNAL_TABLE"})
#: Hive's table type of a view (``TableType.VIRTUAL_VIEW``): no location, its query in TBLS.VIEW_*_TEXT
VIRTUAL_VIEW = "VIRTUAL_VIEW"


@dataclass(frozen=True)
class Column:
    """One column: ``type`` is Hive's lower-case type string, e.g. ``'decimal(10,2)'``."""

    name: str
    type: str
    comment: str | None = None


#: ``KEY_CONSTRAINTS.CONSTRAINT_TYPE`` codes of Hive 3.1's metastore (``MConstraint``)
CONSTRAINT_TYPES: dict[str, int] = {
    "primary_key": 0, "foreign_key": 1, "unique": 2, "not_null": 3, "default": 4, "check": 5,
}


@dataclass(frozen=True)
class ConstraintDef:
    """One constraint as Hive 3.1 stores it in ``KEY_CONSTRAINTS`` (one row per column, ``POSITION`` from 1).

    ``kind`` is a key of :data:`CONSTRAINT_TYPES`; ``columns`` the constrained columns in key order (none for a
    table-level CHECK, which Hive 3.1 records against no column: ``PARENT_INTEGER_IDX`` -1);
    ``enable``/``validate``/``rely`` Hive's options (``ENABLE_VALIDATE_RELY`` = 4*enable + 2*validate + rely);
    ``default_value`` a DEFAULT's value as written (Hive SQL text, e.g. ``127Y``) or a CHECK's expression
    (Hive keeps both in ``DEFAULT_VALUE``); a foreign key names the
    referenced table and its columns (``ref_columns``, in the order of ``columns``).
    """

    name: str
    kind: str
    columns: tuple[str, ...]
    enable: bool = False
    validate: bool = False
    rely: bool = False
    default_value: str | None = None
    ref_db: str | None = None
    ref_table: str | None = None
    ref_columns: tuple[str, ...] = ()

    @property
    def enable_validate_rely(self) -> int:
        return (4 if self.enable else 0) + (2 if self.validate else 0) + (1 if self.rely else 0)


#: The table property naming the ORC codec of the table's files (Hive's and ORC's name).
ORC_COMPRESS = "orc.compress"
#: ``orc.compress`` values we write; Hive also knows LZO, which the ORC C++ writer cannot write.
ORC_COMPRESSIONS = ("none", "zlib", "snappy", "lz4", "zstd")


@dataclass(frozen=True)
class TableDef:
    """Everything the catalog knows about a table.

    ``params`` are the TBLPROPERTIES (``'transactional'``, ``'bucketing_version'``, ...);
    ``num_buckets`` is -1 for an un-bucketed table, as in Hive; ``create_time`` is epoch
    seconds (0 = "now" when creating).
    """

    db: str
    name: str
    columns: tuple[Column, ...]
    location: str
    storage_format: str = "orc"
    table_type: str = "MANAGED_TABLE"
    params: dict[str, str] = field(default_factory=dict)
    partition_keys: tuple[Column, ...] = ()
    bucket_cols: tuple[str, ...] = ()
    num_buckets: int = -1
    #: ``SORTED BY`` of a bucketed table: (column, Hive's ``Order``: 1 ASC, 0 DESC), as ``SORT_COLS`` holds them
    sort_cols: tuple[tuple[str, int], ...] = ()
    comment: str | None = None
    owner: str | None = None
    create_time: int = 0
    #: a view's query as the user wrote it and as stored for reading (names qualified), Hive's
    #: ``VIEW_ORIGINAL_TEXT`` / ``VIEW_EXPANDED_TEXT``; None for tables
    view_original_text: str | None = None
    view_expanded_text: str | None = None
    #: the serde's parameters (``SERDE_PARAMS``: ``field.delim``, ``serialization.null.format``, ..), which
    #: ``ROW FORMAT DELIMITED`` / ``WITH SERDEPROPERTIES`` set; Hive's ``serialization.format``=1 when empty
    serde_params: dict[str, str] = field(default_factory=dict)
    #: column and table constraints (``KEY_CONSTRAINTS``): DEFAULT and NOT NULL are used by every write,
    #: PRIMARY KEY / FOREIGN KEY / UNIQUE are informational (``DISABLE NOVALIDATE``), as in Hive 3
    constraints: tuple[ConstraintDef, ...] = ()

    @property
    def qualified_name(self) -> str:
        return f"{self.db}.{self.name}"

    @property
    def is_transactional(self) -> bool:
        """Hive's test: TBLPROPERTIES 'transactional' equals 'true', ignoring case."""
        return _param(self.params, "transactional").lower() == "true"

    @property
    def is_view(self) -> bool:
        return self.table_type == VIRTUAL_VIEW

    @property
    def is_insert_only(self) -> bool:
        """An insert-only ("MM") transactional table: ``'transactional_properties'='insert_only'``. Its
        ``delta_W_W_S`` / ``base_W`` directories hold plain data files of the table's format (no ACID events,
        no row ids), chosen by the same snapshot rules as a full-ACID table's."""
        return self.is_transactional and _param(self.params, "transactional_properties").lower() == "insert_only"

    @property
    def is_full_acid(self) -> bool:
        """A full-ACID table: transactional and not insert-only (ORC event files, UPDATE / DELETE / MERGE)."""
        return self.is_transactional and not self.is_insert_only

    @property
    def is_external(self) -> bool:
        return self.table_type == "EXTERNAL_TABLE"

    @property
    def is_partitioned(self) -> bool:
        return bool(self.partition_keys)

    @property
    def is_bucketed(self) -> bool:
        return bool(self.bucket_cols) and self.num_buckets > 0

    @property
    def bucketing_version(self) -> int:
        """Hive's ``Utilities.getBucketingVersion``: the table property, 1 when missing or unparseable."""
        try:
            return int(_param(self.params, "bucketing_version") or "1")
        except ValueError:
            return 1

    @property
    def orc_compression(self) -> str:
        """The ``orc.compress`` table property, lower-cased (Hive's default ``ZLIB`` when missing)."""
        return (_param(self.params, ORC_COMPRESS) or "ZLIB").strip().lower()

    @property
    def not_null_columns(self) -> frozenset[str]:
        """Columns whose NOT NULL constraint is enabled (Hive enforces those on every INSERT/UPDATE/MERGE)."""
        return frozenset(c.columns[0] for c in self.constraints if c.kind == "not_null" and c.enable)

    @property
    def check_constraints(self) -> tuple[ConstraintDef, ...]:
        """Enabled CHECK constraints (Hive 3 enforces them on every INSERT/UPDATE/MERGE); each one's
        expression text is its ``default_value``, as ``KEY_CONSTRAINTS.DEFAULT_VALUE`` holds it."""
        return tuple(c for c in self.constraints if c.kind == "check" and c.enable and c.default_value)

    def default_of(self, column: str) -> str | None:
        """The DEFAULT value text of ``column`` (Hive SQL, as written at CREATE), None when it has none."""
        for c in self.constraints:
            if c.kind == "default" and c.columns == (column,):
                return c.default_value
        return None

    @property
    def all_columns(self) -> tuple[Column, ...]:
        """Data columns, then partition columns: the columns a query over the table sees."""
        return self.columns + self.partition_keys


@dataclass(frozen=True)
class PartitionDef:
    """One partition of a table: Hive's escaped name (``p=v/q=w``), its unescaped values (None = NULL) and
    the location its storage descriptor records (None when not loaded; ``ADD PARTITION .. LOCATION`` puts a
    plain table's partition anywhere, otherwise it is ``<table>/<name>``)."""

    name: str
    values: tuple[str | None, ...]
    location: str | None = None


def _param(params: dict[str, str], key: str) -> str:
    """A parameter looked up by case-insensitive key (Hive matches 'transactional' that way)."""
    for k, v in params.items():
        if k.lower() == key:
            return v or ""
    return ""


#: The classes Hive records in ``SDS``/``SERDES`` for each storage format (what ``STORED AS`` writes):
#: input format, output format, serde library.
STORAGE_CLASSES: dict[str, tuple[str, str, str]] = {
    "orc": (
        "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat",
        "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat",
        "org.apache.hadoop.hive.ql.io.orc.OrcSerde",
    ),
    "parquet": (
        "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
    ),
    "textfile": (
        "org.apache.hadoop.mapred.TextInputFormat",
        "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
    ),
    "avro": (
        "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat",
        "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat",
        "org.apache.hadoop.hive.serde2.avro.AvroSerDe",
    ),
    "sequencefile": (
        "org.apache.hadoop.mapred.SequenceFileInputFormat",
        "org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat",
        "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
    ),
    "rcfile": (
        "org.apache.hadoop.hive.ql.io.RCFileInputFormat",
        "org.apache.hadoop.hive.ql.io.RCFileOutputFormat",
        "org.apache.hadoop.hive.serde2.columnar.LazyBinaryColumnarSerDe",
    ),
    # Hive's OpenCSVSerde over text files (ROW FORMAT SERDE '..OpenCSVSerde'): told from "textfile" by its serde
    "csv": (
        "org.apache.hadoop.mapred.TextInputFormat",
        "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        "org.apache.hadoop.hive.serde2.OpenCSVSerde",
    ),
    # Hive's JsonSerDe over text files (hcatalog's class name is read as the same format)
    "json": (
        "org.apache.hadoop.mapred.TextInputFormat",
        "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        "org.apache.hadoop.hive.serde2.JsonSerDe",
    ),
}


def storage_format_of(input_format: str | None, serde: str | None) -> str:
    """The storage format of a table Hive (or we) recorded, from its input format (and serde): ``orc``, ...;
    an input format we do not know gives its class name, lower case."""
    if serde == "org.apache.hive.hcatalog.data.JsonSerDe":  # hcatalog's, which Hive 3 delegates to serde2's
        serde = STORAGE_CLASSES["json"][2]
    for name, (inp, _out, lib) in STORAGE_CLASSES.items():
        if (input_format, serde) == (inp, lib):
            return name
    for name, (inp, _out, lib) in STORAGE_CLASSES.items():
        if input_format == inp:
            if name == "textfile" and serde is not None and serde != lib:
                # text read by another serde (RegexSerDe, ..): never read as LazySimpleSerDe's layout
                return f"textfile with {serde.rsplit('.', 1)[-1]}".lower()
            return name
    for name, (_inp, _out, lib) in STORAGE_CLASSES.items():
        if serde == lib and name != "textfile":
            return name
    return (input_format or "unknown").rsplit(".", 1)[-1].lower()
