"""Hive's ``AvroSerDe`` tables (``STORED AS AVRO``): Avro container files read and written by fastavro.

Why here and not in Spark: PySpark ships no Avro source (``spark-avro`` is a separate jar), so both the Spark
tasks (:mod:`hiveacid_sql.exec.avro`) and ``read_table`` call these functions on each file.

The schema is Hive's: ``avro.schema.literal`` (or the file ``avro.schema.url`` names) when the table has one,
else what ``TypeInfoToSchema`` derives from the columns: a record named after the table (``db.t``: name ``t``,
namespace ``db``; ``avro.schema.name`` / ``avro.schema.namespace`` override), each field ``["null", type]`` with
default ``null`` and the column's comment as its doc; ``tinyint``/``smallint`` as ``int``, ``decimal`` as
``bytes`` with the decimal logical type, ``date`` as ``int`` ``date``, ``timestamp`` as ``long``
``timestamp-millis``, ``char``/``varchar`` as ``string`` with Hive's ``char``/``varchar`` logical type and
``maxLength``, structs as records ``record_<n>`` (numbered inner first), maps with string keys only.

Timestamps are the wall clock as a UTC instant in milliseconds, with the file metadata ``writer.time.zone`` =
``UTC`` (what Hive 3.1 writes when it runs in UTC; Hive and Trino then read the same wall clock back). A file
carrying another ``writer.time.zone`` is read as the wall clock of that zone; one carrying none as UTC.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any
from zoneinfo import ZoneInfo

import pyarrow as pa

from hiveacid_sql.acid.arrow_values import arrow_type
from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.errors import AcidFormatError, UnsupportedStatementError

SERDE_CLASS = "org.apache.hadoop.hive.serde2.avro.AvroSerDe"
SCHEMA_LITERAL = "avro.schema.literal"
SCHEMA_URL = "avro.schema.url"
_SCHEMA_NAME = "avro.schema.name"
_SCHEMA_NAMESPACE = "avro.schema.namespace"
_SCHEMA_DOC = "avro.schema.doc"
#: The table and serde properties AvroSerDe reads (``AvroSerdeUtils.AvroTableProperties``'s schema ones).
PROPERTIES = (SCHEMA_LITERAL, SCHEMA_URL, _SCHEMA_NAME, _SCHEMA_NAMESPACE, _SCHEMA_DOC)
#: The file metadata Hive 3.1 reads a timestamp's writer zone from (``AvroSerDe.WRITER_TIME_ZONE``).
WRITER_TIME_ZONE = "writer.time.zone"
#: Hive's marker that dates and timestamps are proleptic Gregorian (ours always are).
WRITER_PROLEPTIC = "writer.proleptic"

_PRIMITIVE_SCHEMAS: dict[str, Any] = {
    "string": "string",
    "binary": "bytes",
    "tinyint": "int",
    "smallint": "int",
    "int": "int",
    "bigint": "long",
    "float": "float",
    "double": "double",
    "boolean": "boolean",
    "date": {"type": "int", "logicalType": "date"},
    "timestamp": {"type": "long", "logicalType": "timestamp-millis"},
}

Columns = Sequence[tuple[str, HiveType]]


def check_avro_type(name: str, htype: HiveType, qualified: str) -> None:
    """Refuse in one line a column Hive's ``TypeInfoToSchema`` cannot give an Avro type (a map whose key is
    not a string: "Key of Map can only be a String")."""
    if htype.name == "map" and htype.children[0].name != "string":
        raise UnsupportedStatementError(
            f"Avro tables take maps with string keys only: column {name} of {qualified} is {htype.to_string()} "
            "(Key of Map can only be a String)"
        )
    for child in htype.children:
        check_avro_type(name, child[1] if isinstance(child, tuple) else child, qualified)


class _Derive:
    """``TypeInfoToSchema``: one instance per schema, as its record counter is."""

    def __init__(self) -> None:
        self.records = 0

    def field(self, name: str, htype: HiveType, doc: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"name": name, "type": self.nullable(htype)}
        if doc is not None:
            out["doc"] = doc
        out["default"] = None
        return out

    def nullable(self, htype: HiveType) -> list[Any]:
        return ["null", self.schema(htype)]

    def schema(self, htype: HiveType) -> Any:
        if htype.name in _PRIMITIVE_SCHEMAS:
            return _PRIMITIVE_SCHEMAS[htype.name]
        if htype.name in ("char", "varchar"):
            return {"type": "string", "logicalType": htype.name, "maxLength": htype.length}
        if htype.name == "decimal":
            return {"type": "bytes", "logicalType": "decimal", "precision": htype.precision, "scale": htype.scale}
        if htype.name == "array":
            return {"type": "array", "items": self.nullable(htype.children[0])}
        if htype.name == "map":
            check_avro_type("", htype, "")
            return {"type": "map", "values": self.nullable(htype.children[1])}
        if htype.name == "struct":
            fields = [self.field(n, t, t.to_string()) for n, t in htype.fields]
            record = {"type": "record", "name": f"record_{self.records}", "doc": htype.to_string(), "fields": fields}
            self.records += 1
            return record
        raise UnsupportedStatementError(f"{htype.to_string()} has no Avro type here")


def derived_schema(
    columns: Sequence[tuple[str, HiveType, str | None]], name: str, namespace: str | None = None, doc: str | None = None
) -> dict[str, Any]:
    """The schema Hive's ``TypeInfoToSchema.convert`` gives these (name, type, comment) columns: ``name`` may
    be dotted (``db.t``), whose last part is the record's name and the rest its namespace (as Avro splits
    it)."""
    derive = _Derive()
    fields = [derive.field(n, t, c) for n, t, c in columns]
    if "." in name:
        namespace, name = name.rsplit(".", 1)
    out: dict[str, Any] = {"type": "record", "name": name or "baseRecord"}
    if namespace:
        out["namespace"] = namespace
    if doc is not None:
        out["doc"] = doc
    out["fields"] = fields
    return out


def table_schema_json(
    params: Mapping[str, str],
    qualified: str,
    columns: Sequence[tuple[str, HiveType, str | None]],
    comment: str | None,
    open_url: Callable[[str], str] | None = None,
) -> str:
    """The Avro schema (JSON text) a table's files are written with: ``avro.schema.literal``, the text of
    ``avro.schema.url`` (read by ``open_url``), else the one Hive derives from the columns."""
    props = {k.lower(): v for k, v in params.items()}
    literal = props.get(SCHEMA_LITERAL)
    if literal is None and props.get(SCHEMA_URL) and props[SCHEMA_URL] != "none":
        if open_url is None:
            raise UnsupportedStatementError(f"{qualified}: avro.schema.url cannot be read here")
        literal = open_url(props[SCHEMA_URL])
    if literal is not None and literal.strip() != "none":
        try:
            json.loads(literal)
        except ValueError as exc:
            raise AcidFormatError(f"{qualified}: avro.schema.literal is not JSON: {exc}") from None
        return literal
    schema = derived_schema(
        columns, props.get(_SCHEMA_NAME) or qualified, props.get(_SCHEMA_NAMESPACE), props.get(_SCHEMA_DOC, comment)
    )
    return json.dumps(schema, separators=(",", ":"))


_AVRO_PRIMITIVES = {
    "string": "string", "enum": "string", "bytes": "binary", "fixed": "binary", "int": "int", "long": "bigint",
    "float": "float", "double": "double", "boolean": "boolean",
}


def _hive_type_of(schema: Any, where: str) -> str:
    """``SchemaToTypeInfo``: the Hive type of an Avro schema (a ``["null", T]`` union is T)."""
    if isinstance(schema, list):
        kinds = [s for s in schema if s != "null"]
        if len(kinds) != 1:
            raise UnsupportedStatementError(f"Avro union {json.dumps(schema)} of {where} is not supported here")
        return _hive_type_of(kinds[0], where)
    if isinstance(schema, str):
        schema = {"type": schema}
    kind, logical = schema.get("type"), schema.get("logicalType")
    if isinstance(kind, (dict, list)):
        return _hive_type_of(kind, where)
    if logical == "decimal" and kind in ("bytes", "fixed"):
        return f"decimal({schema.get('precision', 10)},{schema.get('scale', 0)})"
    if logical in ("char", "varchar") and kind == "string" and "maxLength" in schema:
        return f"{logical}({schema['maxLength']})"
    if logical == "date" and kind == "int":
        return "date"
    if logical in ("timestamp-millis", "timestamp-micros") and kind == "long":
        return "timestamp"
    if kind in _AVRO_PRIMITIVES:
        return _AVRO_PRIMITIVES[kind]
    if kind == "array":
        return f"array<{_hive_type_of(schema['items'], where)}>"
    if kind == "map":
        return f"map<string,{_hive_type_of(schema['values'], where)}>"
    if kind == "record":
        inner = ",".join(f"{f['name']}:{_hive_type_of(f['type'], where)}" for f in schema.get("fields", []))
        return f"struct<{inner}>"
    raise UnsupportedStatementError(f"Avro type {json.dumps(schema)} of {where} is not supported here")


def schema_columns(schema_json: str, qualified: str) -> list[tuple[str, str, str | None]]:
    """The (name, Hive type, doc) columns Hive derives from a table's Avro schema (``SchemaToTypeInfo``),
    names lower case as the metastore keeps them."""
    try:
        schema = json.loads(schema_json)
    except ValueError as exc:
        raise AcidFormatError(f"{qualified}: avro.schema.literal is not JSON: {exc}") from None
    if not isinstance(schema, dict) or schema.get("type") != "record":
        raise UnsupportedStatementError(f"{qualified}: the Avro schema of a table must be a record")
    return [
        (f["name"].lower(), _hive_type_of(f["type"], f"field {f['name']} of {qualified}"), f.get("doc"))
        for f in schema.get("fields", [])
    ]


# ------------------------------------------------------------------------------------------------- values
def _to_avro(value: Any, htype: HiveType) -> Any:
    """A value as Arrow's ``to_pylist`` gives it, as fastavro writes it (maps: dicts; timestamps: naive
    datetimes, which fastavro counts as UTC)."""
    if htype.name == "char" and value is not None:
        return value.rstrip(" ")  # Hive writes a char's value without its padding (HiveChar.getStrippedValue)
    if value is None or htype.is_primitive:
        return value
    if htype.name == "array":
        return [_to_avro(v, htype.children[0]) for v in value]
    if htype.name == "map":
        return {k: _to_avro(v, htype.children[1]) for k, v in value}
    return {n: _to_avro(value.get(n), t) for n, t in htype.fields}


def _from_avro(value: Any, htype: HiveType, zone: datetime.tzinfo) -> Any:
    """A value fastavro read, as Arrow takes it for ``htype`` (timestamps: the wall clock in the writer's
    zone; records: by field name without regard to case)."""
    if value is None:
        return None
    if htype.name == "timestamp":
        if isinstance(value, datetime.datetime):
            return value.astimezone(zone).replace(tzinfo=None) if value.tzinfo is not None else value
        return datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=int(value))
    if htype.name == "date" and isinstance(value, int):
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=value)
    if htype.name in ("string", "varchar", "char") and not isinstance(value, str):
        value = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    if htype.name == "char":
        return value.ljust(htype.length)  # a char reads padded to its length, as from ORC
    if htype.is_primitive:
        return value
    if htype.name == "array":
        return [_from_avro(v, htype.children[0], zone) for v in value]
    if htype.name == "map":
        return [(k, _from_avro(v, htype.children[1], zone)) for k, v in value.items()]
    by_name = {k.lower(): v for k, v in value.items()}
    return {n: _from_avro(by_name.get(n.lower()), t, zone) for n, t in htype.fields}


class AvroFileWriter:
    """Rows (Arrow batches holding ``columns``, found by name) written into one Avro container file on
    ``out`` with ``schema_json``; :meth:`close` writes the last block."""

    def __init__(self, out: IO[bytes], schema_json: str, columns: Columns) -> None:
        import fastavro

        parsed = json.loads(schema_json)
        self._writer = fastavro.write.Writer(
            out, fastavro.parse_schema(parsed), metadata={WRITER_TIME_ZONE: "UTC", WRITER_PROLEPTIC: "true"}
        )
        by_lower = {f["name"].lower(): f["name"] for f in parsed.get("fields", [])}
        self._columns = list(columns)
        self._keys = [by_lower.get(name.lower(), name) for name, _ in columns]
        self.rows = 0

    def write(self, batch: pa.RecordBatch | pa.Table) -> None:
        # Arrow's own row dicts under the schema's field names; only values Arrow gives in another shape than
        # fastavro takes (maps as pairs, padded chars) are converted in Python
        named = batch.select([name for name, _ in self._columns]).rename_columns(self._keys)
        rows = named.to_pylist()
        for key, (_name, htype) in zip(self._keys, self._columns, strict=True):
            if htype.name == "char" or not htype.is_primitive:
                for row in rows:
                    row[key] = _to_avro(row[key], htype)
        write = self._writer.write
        for row in rows:
            write(row)
        self.rows += batch.num_rows

    def close(self) -> None:
        self._writer.flush()


def read_avro(f: IO[bytes], columns: Columns, batch_rows: int = 65536) -> Iterator[pa.RecordBatch]:
    """The rows of one Avro container file as Arrow batches of ``columns`` (fields matched by name without
    regard to case, as Hive's column names are lower case; a column the file lacks is NULL)."""
    import fastavro

    reader = fastavro.reader(f)
    zone_name = (reader.metadata or {}).get(WRITER_TIME_ZONE)
    zone: datetime.tzinfo = ZoneInfo(zone_name) if zone_name and zone_name != "UTC" else datetime.timezone.utc
    schema = pa.schema([pa.field(name, arrow_type(t)) for name, t in columns])
    rows: list[dict[str, Any]] = []
    try:
        for record in reader:
            rows.append({k.lower(): v for k, v in record.items()} if isinstance(record, dict) else {})
            if len(rows) >= batch_rows:
                yield _batch(rows, columns, schema, zone)
                rows = []
    except (ValueError, EOFError, TypeError) as exc:
        raise AcidFormatError(f"not a readable Avro file: {exc}") from None
    if rows:
        yield _batch(rows, columns, schema, zone)


#: Column types whose values fastavro gives as Arrow takes them.
_AS_READ = frozenset(
    {"string", "varchar", "binary", "tinyint", "smallint", "int", "bigint", "float", "double", "boolean", "date", "decimal"}
)


def _batch(rows: Iterable[dict[str, Any]], columns: Columns, schema: pa.Schema, zone: datetime.tzinfo) -> pa.RecordBatch:
    rows = list(rows)
    arrays = []
    utc = zone is datetime.timezone.utc
    for (name, htype), field in zip(columns, schema, strict=True):
        key = name.lower()
        values = [r.get(key) for r in rows]
        if htype.name in _AS_READ or (utc and htype.name == "timestamp"):
            try:  # Arrow takes fastavro's value as it is (an aware UTC timestamp as its instant)
                arrays.append(pa.array(values, field.type))
                continue
            except (pa.ArrowException, TypeError, ValueError):
                pass  # another writer's type for the field: converted value by value below
        try:
            arrays.append(pa.array([_from_avro(v, htype, zone) for v in values], field.type))
        except (pa.ArrowException, TypeError, ValueError) as exc:
            raise AcidFormatError(f"Avro field {name} does not fit column type {htype.to_string()}: {exc}") from None
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
