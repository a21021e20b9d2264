"""Plain TEXTFILE tables in Hive's LazySimpleSerDe layout, read and written line by line.

Hive's defaults (``LazySerDeParameters``; Hive's docs, "Row Formats & SerDe"): one row per line, fields
separated by Ctrl-A (``\\001``), ``NULL`` written as ``\\N`` (``serialization.null.format``), an empty
string written as nothing. A string column keeps ``''`` and ``NULL`` apart; a field of another type that
does not parse (an empty one included) reads as ``NULL``, a missing trailing field as ``NULL``, extra
fields are ignored. Binary values are base64 (``LazyUtils.writePrimitiveUTF8``; ``LazyBinary`` decodes
base64 and keeps bytes that are not). No escaping by default, so a value holding the separator or a line
break does not survive, in Hive as here. ``ESCAPED BY 'c'`` (``escape.delim``) turns on LazySimpleSerDe's
escaping of string values (``LazyUtils.writeEscaped`` / ``copyAndEscapeStringDataToText``): every separator
of any level and the escape itself are written after the escape, fields and items are split only at
unescaped separators, and ``serialization.escape.crlf=true`` also writes CR and LF as the escape and ``r`` /
``n`` (read back as CR and LF whatever the setting, as Hive does).

Complex types as ``LazySimpleSerDe`` nests them (``LazySimpleSerDe.serialize``, ``LazyArray``/``LazyMap``/
``LazyStruct``): a row's fields are at level 1; an array at level ``n`` separates its items by separator ``n``
(items at level ``n + 1``), a map separates its entries by separator ``n`` and each key from its value by
separator ``n + 1`` (keys and values at level ``n + 2``), a struct separates its fields by separator ``n``
(fields at level ``n + 1``). The separators are ``\\001`` (fields), ``\\002`` (collection items), ``\\003``
(map keys), then ``\\004`` .. ``\\010`` (``LazySerDeParameters``: eight levels, deeper nesting is refused as
Hive refuses it). A NULL at any depth is ``\\N``; an empty field reads as an empty array or map; a map keeps
the first of duplicate keys and drops NULL keys (``LazyMap``). So an array holding one '' reads as an empty
array, in Hive as here.

Spark's CSV source cannot keep ``''`` and ``NULL`` apart on read (an empty field is always NULL), so
lines are split here. :class:`TextFormat` holds the layout; other delimiters and escaping extend it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.errors import CatalogError
from hiveacid_sql.exec.spark_types import spark_schema, to_spark_type

_STRINGS = frozenset({"string", "varchar", "char"})


@dataclass(frozen=True)
class TextFormat:
    """A LazySimpleSerDe layout: separators by nesting level (fields, collection items, map keys, then
    ``\004`` ..) and the text of NULL (Hive's defaults)."""

    separators: tuple[str, ...] = tuple(chr(i) for i in range(1, 9))
    null_format: str = "\\N"
    #: ``escape.delim`` (``ESCAPED BY``): None when unset (Hive's default: no escaping)
    escape: str | None = None
    #: ``serialization.escape.crlf``: also write CR and LF inside strings as the escape and ``r`` / ``n``
    escape_crlf: bool = False
    #: ``timestamp.formats``: how top-level timestamp fields are read (:mod:`hiveacid_sql.acid.timestamp_formats`)
    timestamp_formats: str | None = None

    @property
    def field_delim(self) -> str:
        return self.separators[0]

    def separator(self, level: int, htype: HiveType) -> str:
        """Separator ``level``; a type nested deeper than Hive's levels is refused in one line."""
        if level >= len(self.separators):
            raise CatalogError(
                f"a TEXTFILE table cannot hold {htype.to_string()} at nesting level {level}: Number of levels of "
                f"nesting supported for LazySimpleSerde is {len(self.separators) - 1}"
            )
        return self.separators[level]


HIVE_DEFAULT = TextFormat()


def _separator(value: str | None, default: str) -> str:
    """Hive's ``LazySerDeParameters.getByte``: a number is the byte of that value, else the first character."""
    if not value:
        return default
    if value.lstrip("-").isdigit():
        return chr(int(value) & 0xFF)
    return value[0]


def text_format(serde_params: dict[str, str]) -> TextFormat:
    """The layout a table's serde parameters give (``LazySerDeParameters``): the field separator
    (``field.delim``, else ``serialization.format``), the collection-item and map-key separators
    (``colelction.delim``, ``mapkey.delim``), ``serialization.null.format``; Hive's defaults for the rest."""
    separators = list(HIVE_DEFAULT.separators)
    separators[0] = _separator(serde_params.get("field.delim") or serde_params.get("serialization.format"), separators[0])
    separators[1] = _separator(serde_params.get("colelction.delim"), separators[1])
    separators[2] = _separator(serde_params.get("mapkey.delim"), separators[2])
    null = serde_params.get("serialization.null.format")
    escape = serde_params.get("escape.delim")
    return TextFormat(
        tuple(separators),
        HIVE_DEFAULT.null_format if null is None else null,
        None if escape is None else _separator(escape, "\\"),
        (serde_params.get("serialization.escape.crlf") or "").strip().lower() == "true",
        serde_params.get("timestamp.formats") or None,
    )


def _split(text: Column, delim: str, fmt: TextFormat) -> Column:
    """``text`` split at every ``delim``; with an escape character, not at an escaped one (LazyStruct /
    LazyArray skip the byte after the escape)."""
    if fmt.escape is None:
        return F.split(text, _pattern(delim), -1)
    d, e = _pattern(delim), _pattern(fmt.escape)
    return F.regexp_extract_all(text, F.lit(f"(?s)(?:^|{d})((?:[^{d}{e}]|{e}.|{e}\\z)*)"), 1)


def _split_once(text: Column, delim: str, fmt: TextFormat) -> tuple[Column, Column]:
    """``text`` split at its first (unescaped) ``delim``: the part before and the part after it (NULL when
    there is no ``delim``), as LazyMap separates a key from its value."""
    if fmt.escape is None:
        kv = F.split(text, _pattern(delim), 2)
        return F.get(kv, 0), F.get(kv, 1)
    d, e = _pattern(delim), _pattern(fmt.escape)
    pattern = f"(?s)^((?:[^{d}{e}]|{e}.|{e}\\z)*)({d}(.*))?\\z"
    has_value = F.regexp_extract(text, pattern, 2) != F.lit("")
    return F.regexp_extract(text, pattern, 1), F.when(has_value, F.regexp_extract(text, pattern, 3))


def _unescape(text: Column, escape: str) -> Column:
    """``LazyUtils.copyAndEscapeStringDataToText``: the escape and the character after it become that
    character (``r`` and ``n`` become CR and LF); a lone escape at the end stays."""
    e = _pattern(escape)
    tokens = F.regexp_extract_all(text, F.lit(f"(?s){e}.|[^{e}]+|{e}"), 0)

    def one(token: Column) -> Column:
        second = F.substring(token, 2, 1)
        pair = (F.length(token) == 2) & token.startswith(escape)
        decoded = F.when(second == "r", F.lit("\r")).when(second == "n", F.lit("\n")).otherwise(second)
        return F.when(pair, decoded).otherwise(token)

    return F.when(text.isNull(), F.lit(None)).otherwise(F.array_join(F.transform(tokens, one), ""))


def _java_replacement(text: str) -> str:
    """``text`` as a literal in a Java regex replacement (``Matcher.quoteReplacement``)."""
    return text.replace("\\", "\\\\").replace("$", "\\$")


def _escape(text: Column, fmt: TextFormat) -> Column:
    """``LazyUtils.writeEscaped``: every separator (all nesting levels) and the escape character itself
    preceded by the escape; with ``serialization.escape.crlf`` CR and LF written as the escape and ``r`` /
    ``n``."""
    assert fmt.escape is not None
    special = "".join(_pattern(c) for c in sorted({*fmt.separators, fmt.escape}))
    repl = _java_replacement(fmt.escape)
    out = F.regexp_replace(text, f"([{special}])", repl + "$1")
    if fmt.escape_crlf:
        out = F.regexp_replace(F.regexp_replace(out, "\r", repl + "r"), "\n", repl + "n")
    return out


def _pattern(delim: str) -> str:
    """A Java regex matching ``delim`` literally (``split`` takes a regex)."""
    return "".join(c if c.isalnum() else f"\\x{{{ord(c):x}}}" for c in delim)


def check_columns(columns: Sequence[tuple[str, HiveType]], fmt: TextFormat = HIVE_DEFAULT) -> None:
    """Refuse (one line) a column nested deeper than the layout's separators reach."""
    for _, htype in columns:
        _check_depth(htype, 1, fmt)


def _check_depth(htype: HiveType, level: int, fmt: TextFormat) -> None:
    if htype.name == "array":
        fmt.separator(level, htype)
        _check_depth(htype.children[0], level + 1, fmt)
    elif htype.name == "map":
        fmt.separator(level + 1, htype)
        _check_depth(htype.children[0], level + 2, fmt)
        _check_depth(htype.children[1], level + 2, fmt)
    elif htype.name == "struct":
        fmt.separator(level, htype)
        for _, ft in htype.fields:
            _check_depth(ft, level + 1, fmt)


def decode(lines: DataFrame, columns: Sequence[tuple[str, HiveType]], fmt: TextFormat = HIVE_DEFAULT) -> DataFrame:
    """Lines (one ``value`` string column) to the table's columns, by Hive's rules (module docstring)."""
    check_columns(columns, fmt)
    fields = _split(F.col("value"), fmt.field_delim, fmt)
    out = []
    for i, (name, htype) in enumerate(columns):
        raw = F.get(fields, i)  # NULL past the last field
        if htype.name == "timestamp" and fmt.timestamp_formats:  # LazyTimestamp's TimestampParser
            raw = _timestamp_text(raw, fmt.timestamp_formats)
        out.append(_from_text(raw, htype, 1, fmt).alias(name))
    return lines.select(*out)


def _timestamp_text(raw: Column, formats: str) -> Column:
    """Each field's text as Hive's default timestamp text where a ``timestamp.formats`` pattern takes it (in a
    Python task; the NULL text passes through unchanged)."""

    def normalize(texts: pa.Array) -> pa.Array:
        from hiveacid_sql.acid.timestamp_formats import parser_of

        parser = parser_of(formats)
        return pa.array([parser.normalize(t) for t in texts.to_pylist()], pa.string())

    return F.arrow_udf(normalize, "string")(raw)  # type: ignore[call-overload]


def _from_text(raw: Column, htype: HiveType, level: int, fmt: TextFormat) -> Column:
    """The value of one field (or item, key, value) written at nesting ``level``; ``\\N`` is NULL."""
    text = F.when(raw == F.lit(fmt.null_format), F.lit(None)).otherwise(raw)
    if htype.is_primitive:
        return _parse(text, htype, fmt)
    target = to_spark_type(htype)
    if htype.name == "array":
        items = _split(text, fmt.separator(level, htype), fmt)
        elem = htype.children[0]
        parsed = F.transform(items, lambda x: _from_text(x, elem, level + 1, fmt))
    elif htype.name == "map":
        ktype, vtype = htype.children
        key_sep = fmt.separator(level + 1, htype)

        def entry(e: Column) -> Column:
            key, value = _split_once(e, key_sep, fmt)
            return F.struct(
                _from_text(key, ktype, level + 2, fmt).alias("key"),
                _from_text(value, vtype, level + 2, fmt).alias("value"),
            )

        entries = F.transform(_split(text, fmt.separator(level, htype), fmt), entry)
        entries = F.filter(entries, lambda e: e.getField("key").isNotNull())  # LazyMap drops NULL keys
        keys = F.transform(entries, lambda e: e.getField("key"))
        first = F.filter(entries, lambda e, i: F.array_position(keys, e.getField("key")) == i + 1)  # first wins
        parsed = F.map_from_entries(first)
    else:  # struct: missing trailing fields are NULL, extra ones ignored (LazyStruct)
        parts = _split(text, fmt.separator(level, htype), fmt)
        parsed = F.struct(
            *[_from_text(F.get(parts, i), ft, level + 1, fmt).alias(fn) for i, (fn, ft) in enumerate(htype.fields)]
        )
        return F.when(text.isNull(), F.lit(None)).otherwise(parsed).cast(target)
    empty = F.array() if htype.name == "array" else F.create_map()
    return F.when(text.isNull(), F.lit(None)).when(text == F.lit(""), empty.cast(target)).otherwise(parsed).cast(target)


def _parse(text: Column, htype: HiveType, fmt: TextFormat) -> Column:
    if htype.name in _STRINGS:
        return text if fmt.escape is None else _unescape(text, fmt.escape)
    if htype.name == "binary":
        return F.coalesce(F.try_to_binary(text, F.lit("base64")), text.cast("binary"))
    return text.try_cast(to_spark_type(htype))  # empty or unparseable -> NULL, never an error


def encode(
    df: DataFrame, columns: Sequence[tuple[str, HiveType]], fmt: TextFormat = HIVE_DEFAULT, *, keep: Sequence[str] = ()
) -> DataFrame:
    """The rows of ``df`` (the table's columns) as lines (one ``value`` string column), with the columns
    ``keep`` as they are (a partitioned write's partition directory)."""
    check_columns(columns, fmt)
    fields = [_to_text(F.col(name), htype, 1, fmt) for name, htype in columns]
    return df.select(F.concat_ws(fmt.field_delim, *fields).alias("value"), *[F.col(k) for k in keep])


def _to_text(col: Column, htype: HiveType, level: int, fmt: TextFormat) -> Column:
    """A value as LazySimpleSerDe writes it at nesting ``level`` (module docstring); NULL is ``\\N``."""
    if htype.is_primitive:
        text = F.base64(col) if htype.name == "binary" else col.cast("string")
        if htype.name in _STRINGS and fmt.escape is not None:
            text = _escape(text, fmt)
    elif htype.name == "array":
        elem = htype.children[0]
        items = F.transform(col, lambda x: _to_text(x, elem, level + 1, fmt))
        text = F.array_join(items, fmt.separator(level, htype))
    elif htype.name == "map":
        ktype, vtype = htype.children
        key_sep = fmt.separator(level + 1, htype)

        def entry(e: Column) -> Column:
            key = _to_text(e.getField("key"), ktype, level + 2, fmt)
            return F.concat(key, F.lit(key_sep), _to_text(e.getField("value"), vtype, level + 2, fmt))

        text = F.array_join(F.transform(F.map_entries(col), entry), fmt.separator(level, htype))
    else:
        parts = [_to_text(col.getField(fn), ft, level + 1, fmt) for fn, ft in htype.fields]
        text = F.concat_ws(fmt.separator(level, htype), *parts)
    return F.when(col.isNull(), F.lit(fmt.null_format)).otherwise(text)


def read_text_table(
    spark: SparkSession, location: str, columns: Sequence[tuple[str, HiveType]], fmt: TextFormat = HIVE_DEFAULT
) -> DataFrame:
    """A text table's rows (an empty frame when its directory holds no data yet)."""
    try:
        lines = spark.read.text(location)
    except Exception:  # noqa: BLE001 - an empty or missing directory reads as an empty table
        return spark.createDataFrame([], spark_schema(list(columns)))
    return decode(lines, columns, fmt)


def write_text_table(
    df: DataFrame, location: str, columns: Sequence[tuple[str, HiveType]], *, overwrite: bool,
    fmt: TextFormat = HIVE_DEFAULT, partition_by: str | None = None,
) -> None:
    """Append (or overwrite) ``df``'s rows as text files in ``location`` (in Spark's ``partitionBy``
    sub-directories of ``partition_by``'s values when it is set)."""
    keep = [partition_by] if partition_by is not None else []
    writer = encode(df, columns, fmt, keep=keep).write.mode("overwrite" if overwrite else "append")
    if partition_by is not None:
        writer = writer.partitionBy(partition_by)
    writer.text(location)
