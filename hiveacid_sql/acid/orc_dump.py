"""Dump ORC files (ACID event files or plain ones) the way ``orc-tools data`` prints them.

Debugging ACID tables means looking at events: which ROW__IDs a delta inserted, which ones a delete
delta removed, what the key index says. ``orc-tools data`` is the tool every Hive write-up uses, so the
dump follows its JSON layout (one object per row, ``row`` nested, ``null`` for delete events) and lets the
output be compared with published examples. ``hiveacid-sql dump PATH`` prints :func:`dump_path`.

Value rendering (ORC Java ``tools/PrintData.printValue``, Gson ``JsonWriter``):

* boolean / integers -> JSON true/false / numbers; float/double -> JSON numbers (Python ``repr``, equal
  to Java's ``Double.toString`` such as ``-50.0`` except in exponent form: Python ``10000000000.0``
  where Java prints ``1.0E10``);
* string / varchar / char -> strings (char as stored, i.e. space padded);
* decimal -> string of the value without trailing zeros (``HiveDecimal.toString``: ``5.1``, ``100``);
* date -> ``"yyyy-MM-dd"``; timestamp -> ``java.sql.Timestamp.toString``: ``"yyyy-MM-dd HH:mm:ss.f..."``
  with the fraction trimmed of trailing zeros but at least one digit (``"2020-01-01 12:30:05.0"``,
  ``"2020-01-01 12:30:05.123456"``). Timestamps are Hive wall-clock values: read in UTC, printed without a
  zone (orc-tools would use the proleptic Gregorian calendar here only for dates after 1582);
* binary -> array of unsigned byte values; list -> array; map -> array of ``{"_key": k, "_value": v}``;
  struct -> object; union -> the value of the branch that is set (no tag, as ``printUnion`` does).
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable, Iterator
from decimal import Context, Decimal
from typing import Any, BinaryIO

import pyarrow.fs as pafs
import pyorc

from hiveacid_sql.acid.hive_types import ACID_COLUMN_NAMES
from hiveacid_sql.acid.listing import filesystem_for, is_uri
from hiveacid_sql.acid.orc_footer import schema_string
from hiveacid_sql.errors import AcidFormatError

__all__ = [
    "ACID_COLUMN_KINDS",
    "check_acid_schema",
    "dump_events",
    "dump_path",
    "format_timestamp",
    "is_acid_schema",
    "list_orc_files",
    "user_metadata",
]

_K = pyorc.TypeKind
#: ORC kinds of the six ACID columns (Trino ``verifyAcidSchema``: INT, LONG, INT, LONG, LONG, STRUCT).
ACID_COLUMN_KINDS: tuple[pyorc.TypeKind, ...] = (_K.INT, _K.LONG, _K.INT, _K.LONG, _K.LONG, _K.STRUCT)
_ACID_NAMES_LOWER = tuple(n.lower() for n in ACID_COLUMN_NAMES)
_ORC_MAGIC = b"ORC"

_Source = str | os.PathLike | BinaryIO


# -- schema checks -------------------------------------------------------------------------------------


def _as_type_description(type_description: pyorc.TypeDescription | str) -> pyorc.TypeDescription:
    if isinstance(type_description, str):
        try:
            return pyorc.TypeDescription.from_string(type_description)
        except Exception as exc:  # pyorc raises its own parse errors
            raise AcidFormatError(f"not an ORC type description: {type_description!r}: {exc}") from exc
    return type_description


def _root_names(td: pyorc.TypeDescription) -> list[str] | None:
    if td.kind != _K.STRUCT:
        return None
    return list(td.fields)


def is_acid_schema(type_description: pyorc.TypeDescription | str) -> bool:
    """True when the root struct has exactly the six ACID field names, in order, case-insensitively.

    That is the Trino rule (and newer ORC's ``SchemaEvolution.checkAcidSchema``); it accepts files written
    with lower-case names such as Impala's. Column types are checked by :func:`check_acid_schema`.
    """
    names = _root_names(_as_type_description(type_description))
    return names is not None and tuple(n.lower() for n in names) == _ACID_NAMES_LOWER


def check_acid_schema(type_description: pyorc.TypeDescription | str, path: str = "") -> None:
    """Raise ``AcidFormatError("<path> is not an ACID event file: ...")`` unless the schema is an ACID one.

    Checks the six names (case-insensitive) and their kinds (int, bigint, int, bigint, bigint, struct), so
    that reading a plain ORC file as ACID fails with a clear message instead of returning garbage.
    """
    td = _as_type_description(type_description)
    where = path or "file"
    names = _root_names(td)
    if names is None or tuple(n.lower() for n in names) != _ACID_NAMES_LOWER:
        raise AcidFormatError(
            f"{where} is not an ACID event file: its schema {td} does not have the 6 ACID columns "
            f"{','.join(ACID_COLUMN_NAMES)}"
        )
    for name, (field, child), kind in zip(
        ACID_COLUMN_NAMES, td.fields.items(), ACID_COLUMN_KINDS, strict=True
    ):
        if child.kind != kind:
            raise AcidFormatError(
                f"{where} is not an ACID event file: column {field} ({name}) has type {child}, "
                f"expected {kind.name.lower()}"
            )


# -- value formatting (orc-tools data) -------------------------------------------------------------------


def format_timestamp(value: dt.datetime) -> str:
    """``java.sql.Timestamp.toString`` of a wall-clock value: fraction trimmed, at least one digit."""
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    frac = f"{value.microsecond:06d}".rstrip("0") or "0"
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}.{frac}"
    )


def _format_decimal(value: Decimal) -> str:
    # normalize() rounds to the context's 28 digits; a decimal(38,s) needs its own precision
    text = format(value.normalize(Context(prec=max(len(value.as_tuple().digits), 1))), "f")
    return "0" if text in ("-0", "0") else text


def _formatter(td: pyorc.TypeDescription) -> Callable[[Any], Any] | None:
    """JSON-ready formatter for values of ``td`` (as pyorc reads them with StructRepr.DICT), None = as is."""
    kind = td.kind
    if kind in (_K.DATE,):
        return lambda v: None if v is None else v.isoformat()
    if kind in (_K.TIMESTAMP, _K.TIMESTAMP_INSTANT):
        return lambda v: None if v is None else format_timestamp(v)
    if kind == _K.DECIMAL:
        return lambda v: None if v is None else _format_decimal(v)
    if kind == _K.BINARY:
        return lambda v: None if v is None else list(v)
    if kind == _K.LIST:
        elem = _formatter(td.type)
        if elem is None:
            return None
        return lambda v: None if v is None else [elem(x) for x in v]
    if kind == _K.MAP:
        kf = _formatter(td.key) or (lambda x: x)
        vf = _formatter(td.value) or (lambda x: x)
        return lambda v: None if v is None else [{"_key": kf(k), "_value": vf(x)} for k, x in v.items()]
    if kind == _K.STRUCT:
        fields = [(name, _formatter(child)) for name, child in td.fields.items()]
        if all(f is None for _, f in fields):
            return None
        return lambda v: None if v is None else {n: (v[n] if f is None else f(v[n])) for n, f in fields}
    return None


# -- reading -----------------------------------------------------------------------------------------------


def _open(source: _Source) -> tuple[BinaryIO, bool, str]:
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        return open(path, "rb"), True, path  # noqa: SIM115 - closed by the caller's finally
    return source, False, getattr(source, "name", "") or "<file object>"


def _reader(fileobj: BinaryIO, path: str, **kwargs: Any) -> pyorc.Reader:
    try:
        return pyorc.Reader(fileobj, struct_repr=pyorc.StructRepr.DICT, **kwargs)
    except (pyorc.ParseError, pyorc.ORCError) as exc:
        raise AcidFormatError(f"{path} is not a readable ORC file: {exc}") from exc


def dump_events(path_or_fileobj: _Source, *, acid: bool | None = None) -> Iterator[dict]:
    """Yield every row of an ORC file as the JSON-ready object ``orc-tools data`` prints.

    ``acid=None`` (default): an ACID event file yields ``{"operation": 0, "originalTransaction": 1,
    "bucket": 536870912, "rowId": 0, "currentTransaction": 1, "row": {...}}`` (field names as stored in
    the file, ``row`` ``None`` for delete events), a plain ORC file yields each row as an object.
    ``acid=True``: the file must be an ACID event file, else ``AcidFormatError("... is not an ACID event
    file: ...")``. ``acid=False``: always plain rows. File objects are not closed.
    """
    fileobj, owned, path = _open(path_or_fileobj)
    try:
        reader = _reader(fileobj, path)
        if acid:
            check_acid_schema(reader.schema, path)
        fmt = _formatter(reader.schema)
        for row in reader:
            yield row if fmt is None else fmt(row)
    finally:
        if owned:
            fileobj.close()


def user_metadata(path_or_fileobj: _Source) -> dict[str, str]:
    """The ORC user metadata (``hive.acid.key.index``, ``hive.acid.stats``, ...) decoded as UTF-8."""
    fileobj, owned, path = _open(path_or_fileobj)
    try:
        reader = _reader(fileobj, path)
        return {k: bytes(v).decode("utf-8", errors="replace") for k, v in reader.user_metadata.items()}
    finally:
        if owned:
            fileobj.close()


def _hidden(name: str) -> bool:
    # Hadoop/Hive hidden files (`_orc_acid_version`, `_metadata_acid`, `.crc`, staging dirs) and the
    # streaming side files `bucket_N_flush_length`, which are not ORC.
    return name.startswith(("_", ".")) or name.endswith("_flush_length")


def list_orc_files(path: str | os.PathLike) -> list[str]:
    """``path`` itself if it is a file, else every non-hidden file below it, sorted (directories walked)."""
    root = os.fspath(path)
    if not os.path.isdir(root):
        return [root]
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not _hidden(d))
        found.extend(os.path.join(dirpath, f) for f in filenames if not _hidden(f))
    return sorted(found)


def _remote_files(root: str) -> tuple[pafs.FileSystem, list[tuple[str, str]]] | None:
    """For a location on another file system (``s3://bucket/t``, ``hdfs://..``): its file system and the
    (path in it, URI to show) of the ORC files :func:`list_orc_files` would list. None for local paths."""
    if not is_uri(root):
        return None
    fs, path = filesystem_for(root)
    if isinstance(fs, pafs.LocalFileSystem):
        return None
    scheme = root.split(":", 1)[0]
    info = fs.get_file_info(path)
    if info.type == pafs.FileType.NotFound:
        raise AcidFormatError(f"{root}: no such file or directory")
    if info.type == pafs.FileType.File:
        return fs, [(path, root)]
    found = []
    for entry in fs.get_file_info(pafs.FileSelector(path, recursive=True)):
        parts = entry.path[len(path) :].strip("/").split("/")
        if entry.type == pafs.FileType.File and not any(_hidden(part) for part in parts):
            found.append((entry.path, f"{scheme}://{entry.path}"))
    return fs, sorted(found)


def dump_path(path: str | os.PathLike) -> Iterator[str]:
    """JSON lines for one ORC file or every ORC file under a directory (what ``hiveacid-sql dump`` prints).

    Per file, a header line ``{"file": ..., "acid": true, "rows": n, "stripes": s, "schema": "...",
    "metadata": {...}}`` followed by one line per row (see :func:`dump_events`). Files under a directory
    are sorted by path; hidden files (``_orc_acid_version``, ``_metadata_acid``, ``.*``) and
    ``*_flush_length`` side files are skipped; a non-ORC file gets a header with an ``"error"`` instead of
    rows. A missing path raises ``AcidFormatError``. A URI of another file system (``s3://bucket/t``) is
    read through ``pyarrow.fs``, its files named by URI.
    """
    root = os.fspath(path)
    remote = _remote_files(root)
    if remote is None and not os.path.exists(root):
        raise AcidFormatError(f"{root}: no such file or directory")
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    fs, files = remote if remote is not None else (None, [(f, f) for f in list_orc_files(root)])
    for file, where in files:
        with open(file, "rb") if fs is None else fs.open_input_file(file) as f:
            if f.read(3) != _ORC_MAGIC:
                yield dumps({"file": where, "error": "not an ORC file"})
                continue
            f.seek(0)
            reader = _reader(f, where)
            header = {
                "file": where,
                "acid": is_acid_schema(reader.schema),
                "rows": len(reader),
                "stripes": reader.num_of_stripes,
                "schema": schema_string(reader.schema),
                "metadata": {
                    k: bytes(v).decode("utf-8", errors="replace") for k, v in reader.user_metadata.items()
                },
            }
            yield dumps(header)
            f.seek(0)
            for row in dump_events(f):
                yield dumps(row)
