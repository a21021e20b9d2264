"""Catalog statements: databases and tables (CREATE, DROP, ALTER, USE).

Table metadata lives in the transaction store; managed tables live under the warehouse as Hive lays
them out (``<warehouse>/<table>`` for ``default``, ``<warehouse>/<db>.db/<table>`` otherwise). A
table created over a directory that already holds ACID data adopts it: every write id on disk counts
as committed and new write ids continue after the highest.
"""

from __future__ import annotations

import contextlib
import getpass
import time
from typing import TYPE_CHECKING

import pyarrow.fs as pafs
from sqlglot import exp

from hiveacid_sql.acid.avro import PROPERTIES as AVRO_PROPERTIES
from hiveacid_sql.acid.avro import SCHEMA_LITERAL as AVRO_SCHEMA_LITERAL
from hiveacid_sql.acid.avro import SCHEMA_URL as AVRO_SCHEMA_URL
from hiveacid_sql.acid.avro import SERDE_CLASS as AVRO_SERDE
from hiveacid_sql.acid.avro import check_avro_type, schema_columns, table_schema_json
from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.jsonrow import SERDE_CLASS as JSON_SERDE
from hiveacid_sql.acid.jsonrow import SERDE_CLASSES as JSON_SERDES
from hiveacid_sql.acid.listing import discover_partitions, filesystem_for, list_acid_dir, max_write_id_on_disk
from hiveacid_sql.acid.opencsv import PROPERTIES as OPENCSV_PROPERTIES
from hiveacid_sql.acid.opencsv import SERDE_CLASS as OPENCSV_SERDE
from hiveacid_sql.acid.timestamp_formats import PROPERTY as TIMESTAMP_FORMATS
from hiveacid_sql.acid.timestamp_formats import TimestampFormatError
from hiveacid_sql.acid.timestamp_formats import check_formats as check_timestamp_formats
from hiveacid_sql.engine.constraints import table_constraints
from hiveacid_sql.errors import CatalogError, PlanError, UnsupportedStatementError
from hiveacid_sql.exec.pruning import prune_partitions
from hiveacid_sql.exec.routing import partition_dir_of
from hiveacid_sql.exec.textfile import check_columns as check_text_columns
from hiveacid_sql.exec.textfile import text_format
from hiveacid_sql.plan.partition_spec import spec_filter, static_spec
from hiveacid_sql.plan.types import hive_type_of
from hiveacid_sql.settings import CREATE_AS_ACID, CREATE_AS_INSERT_ONLY, DEFAULT_FILEFORMAT
from hiveacid_sql.sql import nodes
from hiveacid_sql.sql.parse import parse_one
from hiveacid_sql.sql.tree import literal_text, table_names, where_is
from hiveacid_sql.txn import Column, TableDef
from hiveacid_sql.txn.tabledef import STORAGE_CLASSES

if TYPE_CHECKING:

    from hiveacid_sql.engine.context import StatementContext
    from hiveacid_sql.exec.frames import LocalFrame

_FORMATS = {"ORC": "orc", "PARQUET": "parquet", "TEXTFILE": "textfile", "JSONFILE": "json", "AVRO": "avro"}  # JSONFILE: Hive 4's JsonSerDe text


def spark_to_hive_type(simple: str) -> str:
    """Hive type of a Spark ``simpleString`` (CTAS): NTZ timestamps are Hive timestamps, NULL is string."""
    text = simple.replace("timestamp_ntz", "timestamp").replace("void", "string")
    return parse_hive_type(text).to_string()


def _columns(schema: exp.Schema) -> tuple[Column, ...]:
    cols = []
    seen = set()
    for coldef in schema.expressions:
        if not isinstance(coldef, exp.ColumnDef):
            continue
        name = coldef.name.lower()
        if name in seen:
            raise PlanError(f"{where_is(coldef)}Duplicate column name: {name}")
        seen.add(name)
        comment = None
        for constraint in coldef.args.get("constraints") or []:
            if isinstance(constraint.kind, exp.CommentColumnConstraint):
                comment = literal_text(constraint.kind.this)
        kind = coldef.args.get("kind")
        if kind is None:
            raise PlanError(f"{where_is(coldef)}Column {name} needs a type")
        try:
            cols.append(Column(name, hive_type_of(kind), comment))
        except Exception as exc:  # noqa: BLE001
            raise PlanError(f"{where_is(coldef)}Unsupported type for column {name}: {kind.sql(dialect='hive')}") from exc
    return tuple(cols)


def table_location(ctx: StatementContext, db: str, name: str) -> str:
    """Default location of a managed table, Hive-style."""
    db_location = ctx.catalog.get_database(db)["location"]
    return f"{db_location.rstrip('/')}/{name}"


def create_table(ctx: StatementContext, tree: exp.Create) -> None:
    """CREATE [EXTERNAL] TABLE [IF NOT EXISTS] ... (incl. LIKE and AS SELECT)."""
    target = tree.this
    schema_node = target if isinstance(target, exp.Schema) else None
    table_node = target.this if isinstance(target, exp.Schema) else target
    db, name = table_names(table_node, ctx.current_db)
    if not ctx.catalog.database_exists(db):
        raise PlanError(f"{where_is(table_node)}Database does not exist: {db}")
    params: dict[str, str] = {}
    storage = None
    location = None
    external = False
    comment = None
    like: exp.Table | None = None
    partition_keys: tuple[Column, ...] = ()
    bucket_cols: tuple[str, ...] = ()
    num_buckets = -1
    sorted_by = False
    sort_cols: tuple[tuple[str, int], ...] = ()
    serde_params: dict[str, str] = {}
    row_format = False
    serde_format: str | None = None  # a text serde other than LazySimpleSerDe: "csv" or "json"
    avro_serde = False  # ROW FORMAT SERDE '..AvroSerDe'
    transactional_keyword = False
    for prop in (properties.expressions if (properties := tree.args.get("properties")) else []):
        if isinstance(prop, exp.FileFormatProperty) and isinstance(prop.this, exp.InputOutputFormat):
            storage = _input_output_format(prop.this)
        elif isinstance(prop, exp.FileFormatProperty):
            fmt = (prop.name or literal_text(prop.this) or "").upper()
            if not fmt:
                raise PlanError(f"{where_is(table_node)}STORED AS needs a format (ORC, PARQUET or TEXTFILE)")
            if fmt not in _FORMATS:
                raise UnsupportedStatementError(f"STORED AS {fmt} is not supported (ORC, PARQUET, TEXTFILE, JSONFILE, AVRO are)")
            storage = _FORMATS[fmt]
        elif isinstance(prop, exp.LocationProperty):
            location = literal_text(prop.this)
        elif isinstance(prop, exp.ExternalProperty):
            external = True
        elif isinstance(prop, exp.SchemaCommentProperty):
            comment = literal_text(prop.this)
        elif isinstance(prop, exp.LikeProperty):
            like = prop.this
        elif isinstance(prop, exp.PartitionedByProperty):
            partition_keys = _partition_columns(prop)
        elif isinstance(prop, exp.ClusteredByProperty):
            bucket_cols = tuple(c.name.lower() for c in prop.expressions)
            num_buckets = int(prop.args["buckets"].name)
            sorted_by = bool(prop.args.get("sorted_by"))
            sort_cols = tuple(
                (o.this.name.lower(), 0 if o.args.get("desc") else 1) for o in prop.args.get("sorted_by") or []
            )
        elif isinstance(prop, exp.RowFormatSerdeProperty) and literal_text(prop.this) == OPENCSV_SERDE:
            serde_params.update(_opencsv_properties(prop, f"{db}.{name}"))
            serde_format = "csv"
        elif isinstance(prop, exp.RowFormatSerdeProperty) and literal_text(prop.this) in JSON_SERDES:
            serde_params.update(_json_properties(prop, f"{db}.{name}"))
            serde_format = "json"
        elif isinstance(prop, exp.RowFormatSerdeProperty) and literal_text(prop.this) == AVRO_SERDE:
            serde_params.update(_avro_properties(prop, f"{db}.{name}"))
            avro_serde = True
        elif isinstance(prop, exp.RowFormatDelimitedProperty | exp.RowFormatSerdeProperty):
            serde_params.update(_row_format(prop, f"{db}.{name}"))
            row_format = True
        elif isinstance(prop, exp.SerdeProperties | exp.StorageHandlerProperty | exp.RowFormatProperty):
            raise UnsupportedStatementError(f"{prop.sql(dialect='hiveacid')} is not supported")
        elif isinstance(prop, nodes.TransactionalProperty):
            transactional_keyword = True
        elif isinstance(prop, exp.Property):
            params[(literal_text(prop.this) or "").lower() or prop.name] = literal_text(prop.args.get("value")) or ""
        elif isinstance(prop, exp.TemporaryProperty):
            raise UnsupportedStatementError("TEMPORARY tables are not supported")
    if "transactional" in params:
        params["transactional"] = params["transactional"].lower()
    columns: tuple[Column, ...] = _columns(schema_node) if schema_node is not None else ()
    if like is not None:
        source = ctx.planner.resolve(like)
        columns = source.columns
        partition_keys = partition_keys or source.partition_keys
        if not bucket_cols:
            bucket_cols, num_buckets, sort_cols = source.bucket_cols, source.num_buckets, source.sort_cols
        storage = storage or source.storage_format
        serde_params = serde_params or dict(source.serde_params)
        params = {**{k: v for k, v in source.params.items() if k in ("transactional", "transactional_properties")}, **params}
    query = tree.expression
    if query is not None and not columns:
        df = ctx.query_frame(query)
        columns = tuple(Column(f.name.lower(), spark_to_hive_type(f.dataType.simpleString())) for f in df.schema.fields)
    if avro_serde:
        if storage not in (None, "avro"):
            raise UnsupportedStatementError(
                f"ROW FORMAT SERDE '{AVRO_SERDE}' needs STORED AS AVRO ({db}.{name} is stored as {storage.upper()})"
            )
        storage = "avro"
    if storage == "avro":
        columns = _avro_columns(ctx, columns, {**params, **serde_params}, f"{db}.{name}")
    if not columns:
        raise PlanError(f"{where_is(table_node)}CREATE TABLE {db}.{name} needs at least one column")
    if serde_format is not None:  # OpenCSVSerde and JsonSerDe read text files: STORED AS TEXTFILE or nothing
        if storage not in (None, "textfile", serde_format):
            serde = OPENCSV_SERDE if serde_format == "csv" else JSON_SERDE
            raise UnsupportedStatementError(
                f"ROW FORMAT SERDE '{serde}' needs STORED AS TEXTFILE ({db}.{name} is stored as {storage.upper()})"
            )
        storage = serde_format
    if storage in ("csv", "json"):
        _check_serde_columns(storage, columns or (), f"{db}.{name}")
    storage = storage or ctx.settings.value(DEFAULT_FILEFORMAT)
    if not external and "transactional" not in params:
        params.update(_default_transactional(ctx, storage, sorted_by, transactional_keyword, params))
    insert_only = params.get("transactional_properties", "").lower() == "insert_only"
    if params.get("transactional") == "true" and storage != "orc" and not insert_only:
        # Hive's TransactionalValidationListener refuses this; say so before anything is created.
        raise CatalogError(f"The table must be stored using an ACID compliant format (such as ORC): {db}.{name}")
    _check_layout(
        f"{db}.{name}", params, storage, columns, partition_keys, bucket_cols, sorted_by, tuple(c for c, _ in sort_cols)
    )
    if row_format and storage != "textfile":
        raise UnsupportedStatementError(
            f"ROW FORMAT is honoured for TEXTFILE tables only ({db}.{name} is stored as {storage.upper()})"
        )
    if storage == "textfile":
        check_text_columns([(c.name, parse_hive_type(c.type)) for c in columns])  # LazySimpleSerDe's nesting
    constraints = (
        table_constraints(schema_node, db, name, columns, partition_keys, external=external, current_db=ctx.current_db)
        if schema_node is not None
        else ()
    )
    adopting = location is not None
    location = table_location(ctx, db, name) if location is None else ctx.resolve_location(location)
    if bucket_cols and adopting and "bucketing_version" not in params:
        params["bucketing_version"] = "1"  # data written before us: Hive's default for tables that say nothing
    tdef = TableDef(
        db=db,
        name=name,
        columns=columns,
        location=location,
        storage_format=storage,
        table_type="EXTERNAL_TABLE" if external else "MANAGED_TABLE",
        params=params,
        partition_keys=partition_keys,
        bucket_cols=bucket_cols,
        num_buckets=num_buckets,
        sort_cols=sort_cols,
        comment=comment,
        owner=getpass.getuser(),
        create_time=int(time.time()),
        serde_params=serde_params,
        constraints=constraints,
    )
    created = ctx.catalog.create_table(tdef, if_not_exists=bool(tree.args.get("exists")))
    if not created:
        return
    tdef = ctx.catalog.get_table(db, name)
    fs, path = filesystem_for(location)
    fs.create_dir(path, recursive=True)
    if tdef.is_transactional:
        _adopt_existing_data(ctx, tdef, fs, path)
    if query is not None:
        ctx.run_tree(exp.Insert(this=exp.Table(this=exp.to_identifier(name), db=exp.to_identifier(db)), expression=query))


#: ``ROW FORMAT DELIMITED`` clause -> the LazySimpleSerDe parameter Hive stores it as (Hive's own spelling,
#: ``colelction.delim`` included: ``serdeConstants.COLLECTION_DELIM``).
_DELIMITED = {
    "fields": ("field.delim", "serialization.format"),
    "collection_items": ("colelction.delim",),
    "map_keys": ("mapkey.delim",),
    "lines": ("line.delim",),
    "null": ("serialization.null.format",),
    "escaped": ("escape.delim",),
}
#: The SERDE_PARAMS our TEXTFILE reader and writer honour.
_HONOURED_SERDE_PARAMS = frozenset(
    {
        "field.delim", "serialization.format", "serialization.null.format", "line.delim", "colelction.delim", "mapkey.delim",
        "escape.delim", "serialization.escape.crlf", "timestamp.formats",
    }
)
_LAZY_SIMPLE_SERDE = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"


def _opencsv_properties(prop: exp.RowFormatSerdeProperty, qualified: str) -> dict[str, str]:
    """The ``separatorChar`` / ``quoteChar`` / ``escapeChar`` of ``ROW FORMAT SERDE '..OpenCSVSerde' WITH
    SERDEPROPERTIES (..)``; another property is refused (never dropped)."""
    out: dict[str, str] = {}
    props = prop.args.get("serde_properties")
    known = {p.lower(): p for p in OPENCSV_PROPERTIES}
    for item in props.expressions if props is not None else []:
        key = literal_text(item.this) or ""
        if key.lower() not in known:
            raise UnsupportedStatementError(
                f"SERDEPROPERTIES '{key}' is not supported for OpenCSVSerde ({qualified}): "
                f"{', '.join(OPENCSV_PROPERTIES)} are"
            )
        value = literal_text(item.args.get("value")) or ""
        if not value:
            raise UnsupportedStatementError(f"SERDEPROPERTIES '{key}' of OpenCSVSerde needs a character ({qualified})")
        out[known[key.lower()]] = value
    return out


def _json_properties(prop: exp.RowFormatSerdeProperty, qualified: str) -> dict[str, str]:
    """``ROW FORMAT SERDE '..JsonSerDe' WITH SERDEPROPERTIES (..)``: ``timestamp.formats``, the one property
    Hive 3.1's JsonSerDe reads, its patterns checked now; another property is refused (never dropped)."""
    out: dict[str, str] = {}
    props = prop.args.get("serde_properties")
    for item in props.expressions if props is not None else []:
        key = (literal_text(item.this) or "").lower()
        if key != TIMESTAMP_FORMATS:
            raise UnsupportedStatementError(
                f"SERDEPROPERTIES '{key}' is not supported for JsonSerDe ({qualified}): {TIMESTAMP_FORMATS} is "
                "(the one Hive 3.1's JsonSerDe reads)"
            )
        value = literal_text(item.args.get("value")) or ""
        try:
            check_timestamp_formats(value)
        except TimestampFormatError as exc:
            raise UnsupportedStatementError(f"{exc} ({qualified})") from None
        out[key] = value
    return out


def _input_output_format(node: exp.InputOutputFormat) -> str:
    """The storage format of ``STORED AS INPUTFORMAT '..' OUTPUTFORMAT '..'`` (the classes Hive records for
    ORC, Parquet, text and Avro); other classes are refused in one line."""
    pair = (literal_text(node.args.get("input_format")), literal_text(node.args.get("output_format")))
    for fmt in ("orc", "parquet", "textfile", "avro"):
        if pair == STORAGE_CLASSES[fmt][:2]:
            return fmt
    raise UnsupportedStatementError(
        f"STORED AS INPUTFORMAT '{pair[0]}' OUTPUTFORMAT '{pair[1]}' is not supported (ORC's, Parquet's, text's and "
        "Avro's classes are)"
    )


def _avro_properties(prop: exp.RowFormatSerdeProperty, qualified: str) -> dict[str, str]:
    """``ROW FORMAT SERDE '..AvroSerDe' WITH SERDEPROPERTIES (..)``: the schema properties AvroSerDe reads;
    another property is refused (never dropped)."""
    out: dict[str, str] = {}
    props = prop.args.get("serde_properties")
    for item in props.expressions if props is not None else []:
        key = (literal_text(item.this) or "").lower()
        if key not in AVRO_PROPERTIES:
            raise UnsupportedStatementError(
                f"SERDEPROPERTIES '{key}' is not supported for AvroSerDe ({qualified}): {', '.join(AVRO_PROPERTIES)} are"
            )
        out[key] = literal_text(item.args.get("value")) or ""
    return out


def _avro_columns(
    ctx: StatementContext, columns: tuple[Column, ...], props: dict[str, str], qualified: str
) -> tuple[Column, ...]:
    """An Avro table's columns: those of its ``avro.schema.literal`` / ``avro.schema.url`` when it has one
    (Hive's AvroSerDe takes them from the schema, whatever the column list says), else the declared ones,
    each of a type Hive gives an Avro type."""
    text = table_schema_json(props, qualified, [], None, open_url=_read_text) if _external_schema(props) else None
    if text is not None:
        columns = tuple(Column(n, t, doc) for n, t, doc in schema_columns(text, qualified))
    for col in columns:
        check_avro_type(col.name, parse_hive_type(col.type), qualified)
    return columns


def _external_schema(props: dict[str, str]) -> bool:
    keys = {k.lower(): v for k, v in props.items()}
    return keys.get(AVRO_SCHEMA_LITERAL, "none") != "none" or keys.get(AVRO_SCHEMA_URL, "none") != "none"


def _read_text(url: str) -> str:
    """The text of a file (``avro.schema.url``) on the filesystems the warehouse reaches."""
    fs, path = filesystem_for(url)
    try:
        with fs.open_input_stream(path) as f:
            return f.read().decode("utf-8")
    except OSError as exc:
        raise CatalogError(f"cannot read avro.schema.url {url}: {exc}") from None


def _check_serde_columns(storage: str, columns: tuple[Column, ...], qualified: str) -> None:
    """OpenCSVSerde holds every value as text: complex and binary columns are refused in one line; JsonSerDe
    binary ones (no text form agreed with Hive here)."""
    for col in columns:
        htype = parse_hive_type(col.type)
        if storage == "json" and htype.name == "binary":
            raise UnsupportedStatementError(f"JsonSerDe binary columns are not supported: column {col.name} of {qualified}")
        if storage == "csv" and (not htype.is_primitive or htype.name == "binary"):
            raise UnsupportedStatementError(
                f"OpenCSVSerde holds primitive values only: column {col.name} of {qualified} is {col.type}"
            )


def _row_format(prop: exp.Expr, qualified: str) -> dict[str, str]:
    """The serde parameters of ``ROW FORMAT DELIMITED ..`` or ``ROW FORMAT SERDE 'LazySimpleSerDe' WITH
    SERDEPROPERTIES (..)``; a clause we do not honour is an error, never dropped."""
    out: dict[str, str] = {}
    if isinstance(prop, exp.RowFormatSerdeProperty):
        serde = literal_text(prop.this) or ""
        if serde != _LAZY_SIMPLE_SERDE:
            raise UnsupportedStatementError(
                f"ROW FORMAT SERDE '{serde}' is not supported ({qualified}): TEXTFILE tables use {_LAZY_SIMPLE_SERDE}"
            )
        props = prop.args.get("serde_properties")
        for item in props.expressions if props is not None else []:
            key = (literal_text(item.this) or "").lower()
            if key not in _HONOURED_SERDE_PARAMS:
                raise UnsupportedStatementError(f"SERDEPROPERTIES '{key}' is not supported ({qualified})")
            out[key] = literal_text(item.args.get("value")) or ""
            if key == TIMESTAMP_FORMATS:
                try:
                    check_timestamp_formats(out[key])
                except TimestampFormatError as exc:
                    raise UnsupportedStatementError(f"{exc} ({qualified})") from None
    else:
        for arg, keys in _DELIMITED.items():
            value = prop.args.get(arg)
            if value is None:
                continue
            text = literal_text(value) or ""
            if arg == "lines" and text != "\n":
                raise UnsupportedStatementError("LINES TERMINATED BY only supports newline '\\n' right now")
            for key in keys:
                out[key] = text
    if "line.delim" in out:
        out["line.delim"] = "\n"
    delim = out.get("field.delim")
    if delim is not None and len(delim) != 1 and not delim.isdigit():
        raise UnsupportedStatementError(
            f"FIELDS TERMINATED BY '{delim}' is not supported ({qualified}): LazySimpleSerDe separates fields by one character"
        )
    fmt = text_format(out)
    if fmt.escape is not None and (fmt.escape in fmt.separators or fmt.escape in "\r\n"):
        raise UnsupportedStatementError(
            f"ESCAPED BY {fmt.escape!r} is not supported ({qualified}): the escape must not be a separator or a line break"
        )
    return out
def _default_transactional(
    ctx: StatementContext, storage: str, sorted_by: bool, keyword: bool, params: dict[str, str]
) -> dict[str, str]:
    """The ACID properties a managed table gets without 'transactional' in its TBLPROPERTIES.

    Hive 4's ``CREATE TRANSACTIONAL TABLE``: full ACID when the format can be (ORC, not sorted), insert-only
    otherwise. Hive 3.1's ``SemanticAnalyzer.addDefaultProperties``: ``hive.create.as.insert.only`` makes
    the table insert-only, ``hive.create.as.acid`` makes an unsorted ORC table full ACID (winning over
    insert-only), anything else stays plain. A 'transactional_properties' the statement gives is kept."""
    full = storage == "orc" and not sorted_by
    kind = None
    if keyword:
        kind = "default" if full else "insert_only"
    else:
        if ctx.settings.value(CREATE_AS_INSERT_ONLY):
            kind = "insert_only"
        if ctx.settings.value(CREATE_AS_ACID) and full:
            kind = "default"
    if kind is None:
        return {}
    return {"transactional": "true", "transactional_properties": params.get("transactional_properties") or kind}


def _partition_columns(prop: exp.PartitionedByProperty) -> tuple[Column, ...]:
    schema = prop.this
    if not isinstance(schema, exp.Schema) or not all(isinstance(e, exp.ColumnDef) for e in schema.expressions):
        raise PlanError(f"{where_is(prop)}PARTITIONED BY needs column definitions: PARTITIONED BY (p string, ...)")
    keys = _columns(schema)
    for key in keys:
        if parse_hive_type(key.type).name in ("array", "map", "struct", "binary"):
            raise PlanError(f"Partition column {key.name} must have a primitive type, not {key.type}")
    return keys


def _check_layout(
    qualified: str,
    params: dict[str, str],
    storage: str,
    columns: tuple[Column, ...],
    partition_keys: tuple[Column, ...],
    bucket_cols: tuple[str, ...],
    sorted_by: bool,
    sort_cols: tuple[str, ...] = (),
) -> None:
    """Hive's rules for partition and bucket columns, checked before anything is created."""
    names = {c.name for c in columns}
    for key in partition_keys:
        if key.name in names:
            raise PlanError(f"Column repeated in partitioning columns: {key.name}")
    for col in bucket_cols:
        if col not in names:
            raise PlanError(f"Invalid column reference '{col}' in CLUSTERED BY of {qualified}")
    full_acid = params.get("transactional") == "true" and params.get("transactional_properties", "").lower() != "insert_only"
    if bucket_cols and full_acid and sorted_by:
        raise CatalogError(f"Table {qualified} cannot support full ACID functionality since it is sorted.")
    for col in sort_cols:
        if col not in names:
            raise PlanError(f"Invalid column reference '{col}' in SORTED BY of {qualified}")


def _adopt_existing_data(ctx: StatementContext, table: TableDef, fs, path: str) -> None:
    """A LOCATION that already holds Hive ACID data: its partitions are registered and every write id on
    disk counts as committed (new write ids continue after the highest)."""
    if table.is_partitioned:
        names = discover_partitions(fs, path, [k.name for k in table.partition_keys])
        if names:
            ctx.catalog.add_partitions(table.db, table.name, names)
        dirs = [f"{path}/{n}" for n in names]
    else:
        dirs = [path]
    highest = max((max_write_id_on_disk(list_acid_dir(fs, d)) for d in dirs), default=0)
    if highest > 0:
        ctx.store.register_existing_write_ids(table.db, table.name, highest)


def create_database(ctx: StatementContext, tree: exp.Create) -> None:
    name = tree.this.name.lower()
    location = None
    comment = None
    for prop in (properties.expressions if (properties := tree.args.get("properties")) else []):
        if isinstance(prop, exp.LocationProperty):
            location = ctx.resolve_location(literal_text(prop.this) or "")
        elif isinstance(prop, exp.SchemaCommentProperty):
            comment = literal_text(prop.this)
    location = location or f"{ctx.warehouse.rstrip('/')}/{name}.db"
    ctx.catalog.create_database(name, location=location, comment=comment, if_not_exists=bool(tree.args.get("exists")))
    fs, path = filesystem_for(location)
    fs.create_dir(path, recursive=True)


def drop(ctx: StatementContext, tree: exp.Drop) -> None:
    kind = (tree.args.get("kind") or "").upper()
    if kind in ("TABLE", "VIEW"):
        for node in tree.args.get("tables") or [tree.this]:
            db, name = table_names(node, ctx.current_db)
            exists = ctx.catalog.table_exists(db, name)
            if exists:
                found = ctx.catalog.get_table(db, name)
                if found.is_view != (kind == "VIEW") and tree.args.get("exists"):
                    continue  # Hive: DROP TABLE IF EXISTS of a view (and DROP VIEW IF EXISTS of a table) does nothing
                _check_drop_kind(found, kind)
            dropped = ctx.catalog.drop_table(db, name, if_exists=bool(tree.args.get("exists")))
            if dropped is not None and not dropped.is_view and dropped.table_type != "EXTERNAL_TABLE" and dropped.location:
                fs, path = filesystem_for(dropped.location)
                with contextlib.suppress(FileNotFoundError, OSError):
                    fs.delete_dir(path)
        return
    if kind in ("DATABASE", "SCHEMA"):
        for node in tree.args.get("tables") or [tree.this]:
            name = node.name.lower()
            if name == "default":
                raise CatalogError("Can not drop default database")
            if ctx.catalog.database_exists(name) and bool(tree.args.get("cascade")):
                views = set(ctx.catalog.list_tables(name, table_type="VIRTUAL_VIEW"))
                for table in ctx.catalog.list_tables(name):
                    what = "VIEW" if table in views else "TABLE"
                    ctx.run_tree(parse_one(f"DROP {what} `{name}`.`{table}`").tree)
            info = ctx.catalog.get_database(name) if ctx.catalog.database_exists(name) else None
            ctx.catalog.drop_database(name, if_exists=bool(tree.args.get("exists")), cascade=bool(tree.args.get("cascade")))
            if info is not None:
                fs, path = filesystem_for(info["location"])
                with contextlib.suppress(FileNotFoundError, OSError):
                    fs.delete_dir(path)
            if ctx.current_db == name:
                ctx.current_db = "default"
        return
    raise UnsupportedStatementError(f"DROP {kind} is not supported")


def _check_drop_kind(table: TableDef, kind: str) -> None:
    if table.is_view and kind != "VIEW":
        raise CatalogError("Cannot drop a view with DROP TABLE")
    if not table.is_view and kind == "VIEW":
        raise CatalogError("Cannot drop a base table with DROP VIEW")


def alter_table(ctx: StatementContext, tree: exp.Alter) -> None:
    """ALTER TABLE (and ALTER VIEW's SET/UNSET TBLPROPERTIES and RENAME TO)."""
    table = ctx.planner.resolve(tree.this)
    kind = (tree.args.get("kind") or "TABLE").upper()
    if table.is_view and kind != "VIEW":
        raise CatalogError("To alter a view you need to use the ALTER VIEW command. (Hive error 10131)")
    if not table.is_view and kind == "VIEW":
        raise CatalogError("To alter a base table you need to use the ALTER TABLE command. (Hive error 10132)")
    for action in tree.args.get("actions") or []:
        if table.is_view and not isinstance(action, exp.AlterRename | exp.AlterSet) and type(action).__name__ != "UnsetProperties":
            raise CatalogError("Cannot use this form of ALTER on a view (Hive error 10133)")
        if isinstance(action, (exp.Schema, exp.ColumnDef)):
            cols = _columns(action if isinstance(action, exp.Schema) else exp.Schema(expressions=[action]))
            existing = {c.name for c in table.columns}
            for col in cols:
                if col.name in existing:
                    raise PlanError(f"Duplicate column name: {col.name}")
            if table.storage_format in ("csv", "json"):
                _check_serde_columns(table.storage_format, cols, table.qualified_name)
            if table.storage_format == "textfile":
                check_text_columns([(c.name, parse_hive_type(c.type)) for c in cols])
            ctx.catalog.add_columns(table.db, table.name, list(cols))
        elif isinstance(action, exp.AlterRename):
            new_db, new_name = table_names(action.this, table.db)
            new_location = table.location
            default_location = table_location(ctx, table.db, table.name)
            if table.table_type != "EXTERNAL_TABLE" and table.location.rstrip("/") == default_location.rstrip("/"):
                new_location = table_location(ctx, new_db, new_name)
            ctx.catalog.rename_table(table.db, table.name, new_db, new_name, None if table.is_view else new_location)
            if new_location != table.location and not table.is_view:
                fs, old_path = filesystem_for(table.location)
                _, new_path = filesystem_for(new_location)
                with contextlib.suppress(FileNotFoundError):
                    fs.move(old_path, new_path)
        elif isinstance(action, exp.AlterSet):
            props = {}
            for prop in action.expressions:
                for p in prop.expressions if isinstance(prop, exp.Properties) else [prop]:
                    props[(literal_text(p.this) or "").lower()] = literal_text(p.args.get("value")) or ""
            ctx.catalog.set_table_params(table.db, table.name, props)
        elif type(action).__name__ == "UnsetProperties":
            keys = [(literal_text(e) or "").lower() for e in action.expressions]
            ctx.catalog.unset_table_params(table.db, table.name, keys)
        elif isinstance(action, exp.AddConstraint) and not table.is_view:
            schema = exp.Schema(expressions=[e.copy() for e in action.expressions])
            added = table_constraints(
                schema, table.db, table.name, table.columns, table.partition_keys,
                external=table.is_external, current_db=ctx.current_db,
            )
            ctx.catalog.add_constraints(table.db, table.name, added)
        elif isinstance(action, exp.Drop) and str(action.args.get("kind") or "").upper() == "CONSTRAINT":
            for dropped in action.args.get("tables") or []:
                ctx.catalog.drop_constraint(table.db, table.name, dropped.name)
        elif isinstance(action, exp.AddPartition):
            add_partition(ctx, table, action)
        elif isinstance(action, exp.DropPartition):
            drop_partitions(ctx, table, action)
        else:
            raise UnsupportedStatementError(f"ALTER TABLE {action.key.upper()} is not supported")


def add_partition(ctx: StatementContext, table: TableDef, action: exp.AddPartition) -> None:
    """ALTER TABLE ADD [IF NOT EXISTS] PARTITION (...): registered and its directory created, as Hive does."""
    location = literal_text(action.args["location"]) if action.args.get("location") else None
    if location is not None and table.is_transactional:
        raise UnsupportedStatementError(
            "ADD PARTITION ... LOCATION is not supported for transactional tables: their partitions live under the table"
        )
    if not table.is_partitioned:
        raise PlanError(f"Table {table.qualified_name} is not a partitioned table")
    name = partition_dir_of(ctx.spark, table, static_spec(table, action.this))
    location = ctx.resolve_location(location) if location else f"{table.location.rstrip('/')}/{name}"
    added = ctx.catalog.add_partitions(
        table.db, table.name, [name], if_not_exists=bool(action.args.get("exists")), locations={name: location}
    )
    if added:
        fs, path = filesystem_for(location)
        fs.create_dir(path, recursive=True)


def drop_partitions(ctx: StatementContext, table: TableDef, action: exp.DropPartition) -> None:
    """ALTER TABLE DROP [IF EXISTS] PARTITION (...), ...: catalog entries and (managed tables) their data."""
    names: list[str] = []
    for spec in action.expressions:
        matching = prune_partitions(
            ctx.spark, table, ctx.catalog.list_partitions(table.db, table.name), spec_filter(table, spec)
        )
        if not matching and not action.args.get("exists"):
            raise PlanError(f"{where_is(spec)}No partition matches {spec.sql(dialect='hiveacid')} in {table.qualified_name}")
        names += matching
    locations = {p.name: p.location for p in ctx.catalog.list_partitions(table.db, table.name)}
    dropped = ctx.catalog.drop_partitions(table.db, table.name, names)
    if table.table_type != "EXTERNAL_TABLE":
        for name in dropped:
            fs, path = filesystem_for(locations.get(name) or f"{table.location.rstrip('/')}/{name}")
            with contextlib.suppress(FileNotFoundError, OSError):
                fs.delete_dir(path)


def show_partitions(ctx: StatementContext, table: TableDef, spec: exp.Partition | None) -> LocalFrame:
    """SHOW PARTITIONS t [PARTITION (p='v')]: Hive's escaped names, sorted."""
    if not table.is_partitioned:
        raise PlanError(f"Table {table.qualified_name} is not a partitioned table")
    partitions = ctx.catalog.list_partitions(table.db, table.name)
    names = prune_partitions(ctx.spark, table, partitions, spec_filter(table, spec) if spec is not None else None)
    return ctx.rows([(n,) for n in names], "partition string")


def msck_repair(ctx: StatementContext, table: TableDef, mode: str) -> LocalFrame:
    """MSCK [REPAIR] TABLE t [ADD|DROP|SYNC PARTITIONS]: the catalog's partitions made to agree with the
    ``k=v`` directories under the table, as Hive's ``Msck`` does. ADD (the default) registers directories
    written by others; DROP forgets partitions whose directory is gone (their data is not touched); SYNC
    both. Returns Hive's messages: ``Partitions not in metastore:`` / ``Partitions missing from filesystem:``
    and the ``Repair: Added partition to metastore ..`` lines."""
    if not table.is_partitioned:
        raise PlanError(f"Table {table.qualified_name} is not a partitioned table")
    fs, path = filesystem_for(table.location)
    on_disk = set(discover_partitions(fs, path, [k.name for k in table.partition_keys]))
    known = {p.name: p for p in ctx.catalog.list_partitions(table.db, table.name)}
    not_in_catalog = sorted(on_disk - set(known))
    missing: list[str] = []
    for name, part in sorted(known.items()):
        location = part.location or f"{table.location.rstrip('/')}/{name}"
        part_fs, part_path = filesystem_for(location)
        if part_fs.get_file_info(part_path).type != pafs.FileType.Directory:
            missing.append(name)
    lines: list[str] = []
    if not_in_catalog:
        lines.append("Partitions not in metastore:\t" + "\t".join(f"{table.name}:{n}" for n in not_in_catalog))
    if missing:
        lines.append("Partitions missing from filesystem:\t" + "\t".join(f"{table.name}:{n}" for n in missing))
    if mode in ("ADD", "SYNC") and not_in_catalog:
        for name in ctx.catalog.add_partitions(table.db, table.name, not_in_catalog, if_not_exists=True):
            lines.append(f"Repair: Added partition to metastore {table.name}:{name}")
    if mode in ("DROP", "SYNC") and missing:
        for name in ctx.catalog.drop_partitions(table.db, table.name, missing):
            lines.append(f"Repair: Dropped partition from metastore {table.qualified_name}:{name}")
    return ctx.rows([(line,) for line in lines], "result string")
