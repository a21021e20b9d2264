"""Hive column types as a small typed tree, and the ORC schema of an ACID event file.

The metastore hands us column types as Hive type strings (``decimal(10,2)``, ``array<struct<a:int>>``).
Everything that writes or checks ORC files needs them as a tree: to build the exact ORC schema Hive 3
writes (``acid_event_schema``) and to know, per column, which Hive semantics the Python writer must apply
itself (varchar truncation, decimal rescaling, ...). This module knows nothing of SQL, Spark or SQLAlchemy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hiveacid_sql.errors import AcidFormatError

__all__ = [
    "ACID_COLUMN_NAMES",
    "ACID_COLUMN_TYPES",
    "HiveType",
    "PRIMITIVE_TYPE_NAMES",
    "acid_event_schema",
    "orc_type_string",
    "parse_hive_type",
    "quote_field_name",
]

#: Root field names of every ACID event file, in order, exactly as Hive spells them (format ref §3.1).
#: Hive 3.1's ORC 1.5 compares them case-sensitively, so this spelling must be used when writing.
ACID_COLUMN_NAMES: tuple[str, ...] = (
    "operation",
    "originalTransaction",
    "bucket",
    "rowId",
    "currentTransaction",
    "row",
)

#: ORC types of the five scalar ACID columns (the sixth, ``row``, is the table's struct).
ACID_COLUMN_TYPES: tuple[str, ...] = ("int", "bigint", "int", "bigint", "bigint")

#: Hive primitive type names this package supports (canonical spelling).
PRIMITIVE_TYPE_NAMES: frozenset[str] = frozenset(
    {
        "tinyint",
        "smallint",
        "int",
        "bigint",
        "float",
        "double",
        "decimal",
        "string",
        "varchar",
        "char",
        "boolean",
        "date",
        "timestamp",
        "binary",
    }
)

_COMPLEX_TYPE_NAMES = frozenset({"array", "map", "struct"})

# Aliases Hive's parser accepts for the same type.
_ALIASES = {"integer": "int", "dec": "decimal", "numeric": "decimal"}

# Hive limits (HiveDecimal.MAX_PRECISION, HiveVarchar.MAX_VARCHAR_LENGTH, HiveChar.MAX_CHAR_LENGTH).
_MAX_DECIMAL_PRECISION = 38
_MAX_VARCHAR_LENGTH = 65535
_MAX_CHAR_LENGTH = 255

# Field names ORC prints without backticks (ORC Java TypeDescription.printFieldName).
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]+\Z")


@dataclass(frozen=True)
class HiveType:
    """One node of a Hive type.

    * ``name``: canonical lower-case Hive type name (``int``, ``decimal``, ``array`` ...).
    * ``params``: ``(precision, scale)`` for decimal, ``(length,)`` for varchar/char, ``()`` otherwise.
    * ``children``: ``(element,)`` for array, ``(key, value)`` for map, ``((field_name, type), ...)`` for struct.

    Frozen so types can be shared between rows, used as dict keys and cached converters.
    """

    name: str
    params: tuple[int, ...] = ()
    children: tuple = ()

    @property
    def is_primitive(self) -> bool:
        """True for every non-nested type."""
        return self.name in PRIMITIVE_TYPE_NAMES

    @property
    def precision(self) -> int:
        """Decimal precision (only meaningful for decimal)."""
        return self.params[0]

    @property
    def scale(self) -> int:
        """Decimal scale (only meaningful for decimal)."""
        return self.params[1]

    @property
    def length(self) -> int:
        """Maximum length of varchar/char."""
        return self.params[0]

    @property
    def fields(self) -> tuple[tuple[str, HiveType], ...]:
        """Struct fields as ``(name, type)`` pairs."""
        if self.name != "struct":
            raise AcidFormatError(f"{self.to_string()} is not a struct type")
        return self.children

    def to_string(self) -> str:
        """Canonical lower-case Hive type string, e.g. ``decimal(10,2)`` or ``array<struct<a:int,b:string>>``.

        Struct field names are kept as given (Hive lower-cases column names in the metastore, but
        nested field names keep the case they were declared with) and backtick-quoted when needed.
        """
        if self.name in ("decimal", "varchar", "char"):
            return f"{self.name}({','.join(str(p) for p in self.params)})"
        if self.name == "array":
            return f"array<{self.children[0].to_string()}>"
        if self.name == "map":
            return f"map<{self.children[0].to_string()},{self.children[1].to_string()}>"
        if self.name == "struct":
            inner = ",".join(f"{quote_field_name(n)}:{t.to_string()}" for n, t in self.children)
            return f"struct<{inner}>"
        return self.name

    def __str__(self) -> str:
        return self.to_string()


def quote_field_name(name: str) -> str:
    """Quote a struct field name the way ORC Java's ``TypeDescription`` prints it.

    Names made of letters, digits and ``_`` are printed bare; anything else is wrapped in backticks
    with embedded backticks doubled, which both ORC Java and ORC C++ (pyorc) parse back.
    """
    if _PLAIN_NAME.match(name):
        return name
    return "`" + name.replace("`", "``") + "`"


class _Parser:
    """Recursive-descent parser for Hive type strings (small grammar, so no dependency)."""

    _TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)*`)|([A-Za-z_][A-Za-z0-9_]*)|(\d+)|([<>(),:]))")

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            m = self._TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise AcidFormatError(f"unknown type {text!r}: unexpected character at offset {pos}")
            quoted, word, number, punct = m.groups()
            if quoted is not None:
                self.tokens.append(("name", quoted[1:-1].replace("``", "`")))
            elif word is not None:
                self.tokens.append(("word", word))
            elif number is not None:
                self.tokens.append(("num", number))
            else:
                self.tokens.append(("punct", punct))
            pos = m.end()
        self.i = 0

    def error(self, why: str) -> AcidFormatError:
        return AcidFormatError(f"unknown type {self.text!r}: {why}")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise self.error("unexpected end")
        self.i += 1
        return tok

    def expect(self, punct: str) -> None:
        tok = self.take()
        if tok != ("punct", punct):
            raise self.error(f"expected {punct!r}, found {tok[1]!r}")

    def accept(self, punct: str) -> bool:
        if self.peek() == ("punct", punct):
            self.i += 1
            return True
        return False

    def number(self) -> int:
        kind, value = self.take()
        if kind != "num":
            raise self.error(f"expected a number, found {value!r}")
        return int(value)

    def parse_type(self) -> HiveType:
        kind, word = self.take()
        if kind != "word":
            raise self.error(f"expected a type name, found {word!r}")
        name = word.lower()
        name = _ALIASES.get(name, name)
        if name == "decimal":
            precision, scale = 10, 0
            if self.accept("("):
                precision = self.number()
                if self.accept(","):
                    scale = self.number()
                self.expect(")")
            if not 1 <= precision <= _MAX_DECIMAL_PRECISION or not 0 <= scale <= precision:
                raise self.error(f"invalid decimal precision/scale ({precision},{scale})")
            return HiveType("decimal", (precision, scale))
        if name in ("varchar", "char"):
            self.expect("(")
            length = self.number()
            self.expect(")")
            limit = _MAX_VARCHAR_LENGTH if name == "varchar" else _MAX_CHAR_LENGTH
            if not 1 <= length <= limit:
                raise self.error(f"{name} length must be 1..{limit}, got {length}")
            return HiveType(name, (length,))
        if name == "double" and self.peek() == ("word", "precision"):  # Hive accepts "double precision"
            self.i += 1
            return HiveType("double")
        if name in PRIMITIVE_TYPE_NAMES:
            return HiveType(name)
        if name == "array":
            self.expect("<")
            element = self.parse_type()
            self.expect(">")
            return HiveType("array", (), (element,))
        if name == "map":
            self.expect("<")
            key = self.parse_type()
            if not key.is_primitive:
                raise self.error("map keys must be a primitive type")
            self.expect(",")
            value = self.parse_type()
            self.expect(">")
            return HiveType("map", (), (key, value))
        if name == "struct":
            self.expect("<")
            fields: list[tuple[str, HiveType]] = []
            seen: set[str] = set()
            if not self.accept(">"):
                while True:
                    fkind, fname = self.take()
                    if fkind not in ("word", "name", "num"):
                        raise self.error(f"expected a field name, found {fname!r}")
                    if fname.lower() in seen:
                        raise self.error(f"duplicate struct field {fname!r}")
                    seen.add(fname.lower())
                    self.expect(":")
                    fields.append((fname, self.parse_type()))
                    if self.accept(">"):
                        break
                    self.expect(",")
            if not fields:
                raise self.error("struct needs at least one field")
            return HiveType("struct", (), tuple(fields))
        if name == "uniontype":
            raise AcidFormatError(f"unknown type {self.text!r}: uniontype is not supported")
        raise self.error(f"unknown type name {word!r}")


def parse_hive_type(s: str) -> HiveType:
    """Parse a Hive type string (case-insensitive, whitespace tolerant) into a :class:`HiveType`.

    ``integer`` means ``int``; ``decimal`` without parameters is ``decimal(10,0)`` and ``decimal(p)`` is
    ``decimal(p,0)`` as in Hive; ``dec`` and ``numeric`` are aliases. ``uniontype`` and anything unknown
    raise ``AcidFormatError("unknown type ...")``.
    """
    if not isinstance(s, str):
        raise AcidFormatError(f"unknown type {s!r}: not a string")
    parser = _Parser(s)
    result = parser.parse_type()
    if parser.peek() is not None:
        raise parser.error(f"unexpected {parser.peek()[1]!r} after the type")  # type: ignore[index]
    return result


def orc_type_string(t: HiveType) -> str:
    """ORC ``TypeDescription`` string of a Hive type.

    Hive types map one-to-one to ORC types with the same spelling; the only difference from
    :meth:`HiveType.to_string` is that ORC field names are never lower-cased here either, and are
    backtick-quoted exactly as ORC Java prints them (so the string re-parses in ORC Java and C++).
    """
    return t.to_string()


def acid_event_schema(columns: Sequence[tuple[str, HiveType]]) -> str:
    """ORC schema string of an ACID event file for a table with these columns.

    ``struct<operation:int,originalTransaction:bigint,bucket:int,rowId:bigint,currentTransaction:bigint,
    row:struct<...>>`` with the table columns in table order and lower-case names: Hive 3 maps ``row``
    fields by position and Trino renames them to metastore (lower-case) names, so this matches what Hive
    writes (format ref §3.1). Partition columns must not be passed: they are not stored in files.
    """
    if not columns:
        raise AcidFormatError("an ACID table needs at least one column")
    seen: set[str] = set()
    parts = []
    for name, htype in columns:
        if not isinstance(htype, HiveType):
            raise AcidFormatError(f"column {name!r}: expected a HiveType, got {type(htype).__name__}")
        lname = name.lower()
        if lname in seen:
            raise AcidFormatError(f"duplicate column name {lname!r}")
        seen.add(lname)
        parts.append(f"{quote_field_name(lname)}:{orc_type_string(htype)}")
    head = ",".join(f"{n}:{t}" for n, t in zip(ACID_COLUMN_NAMES[:5], ACID_COLUMN_TYPES, strict=True))
    return f"struct<{head},row:struct<{','.join(parts)}>>"
