"""Hive partition directory names: escaping, ``p=v/q=w`` names, and how typed values become directory values.

A partitioned table keeps each partition in ``<table>/<k1>=<v1>/<k2>=<v2>/``, with keys and values escaped by
``FileUtils.escapePathName`` (hive3 ``common/.../common/FileUtils.java``; the metastore copy in
``standalone-metastore/.../metastore/utils/FileUtils.java`` is identical). Hive, Trino and Spark all list these names
and unescape them, so the bytes must be exactly Hive's: every character below is escaped as ``%XX`` (upper-case hex),
everything else, non-ASCII included, is kept as is. NULL and empty values go to ``__HIVE_DEFAULT_PARTITION__``.

This module knows nothing of SQL, Spark or SQLAlchemy.
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
import unicodedata
from collections.abc import Sequence

import numpy as np

from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.errors import AcidFormatError

__all__ = [
    "DEFAULT_PARTITION_NAME",
    "escape_path_name",
    "finite_tuple",
    "java_double_to_string",
    "java_float_to_string",
    "make_partition_name",
    "parse_partition_name",
    "partition_spec_text",
    "partition_value_string",
    "unescape_path_name",
]

DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__"
"""``hive.exec.default.partition.name``'s default: the directory value of NULL and empty partition values."""

# FileUtils.charToEscape (non-Windows): 0x00-0x1F (the static loop sets every char below ' '; the list repeats
# 0x01-0x1F), then " # % ' * / : = ? \ 0x7F { [ ] ^.
_CHARS_TO_ESCAPE = frozenset([chr(c) for c in range(0x20)] + list("\"#%'*/:=?\\\x7f{[]^"))

# Warehouse.pat: a component is key=value with neither part empty nor holding '/'; the key group is greedy, so a
# (never escaped) second '=' would stay in the key, as in Hive.
_COMPONENT = re.compile(r"([^/]+)=([^/]+)\Z")

# Fullwidth Latin letters Java's Character.digit accepts as hex digits (U+FF21.. 'A', U+FF41.. 'a').
_FULLWIDTH_UPPER_A = 0xFF21
_FULLWIDTH_LOWER_A = 0xFF41



def finite_tuple(value: decimal.Decimal) -> tuple[int, tuple[int, ...], int]:
    """``value.as_tuple()`` of a finite decimal, its exponent an int (never 'n' / 'N' / 'F')."""
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise ValueError(f"not a finite decimal: {value}")
    return sign, digits, exponent

def escape_path_name(s: str | None) -> str:
    """``FileUtils.escapePathName(s)``: ``%XX`` for each escaped character; NULL or empty -> the default partition."""
    if s is None or s == "":
        return DEFAULT_PARTITION_NAME
    if not isinstance(s, str):
        raise AcidFormatError(f"partition name part must be a string, got {type(s).__name__}")
    return "".join(f"%{ord(c):02X}" if c in _CHARS_TO_ESCAPE else c for c in s)


def _java_hex_digit(c: str) -> int:
    """``Character.digit(c, 16)``: ASCII and Unicode decimal digits, ASCII and fullwidth a-f/A-F; -1 otherwise.

    Only BMP characters can be a Java ``char`` digit: a supplementary character is two surrogates in Java.
    """
    code = ord(c)
    if code >= 0x10000:
        return -1
    if "a" <= c <= "f":
        return code - ord("a") + 10
    if "A" <= c <= "F":
        return code - ord("A") + 10
    if _FULLWIDTH_UPPER_A <= code < _FULLWIDTH_UPPER_A + 6:
        return code - _FULLWIDTH_UPPER_A + 10
    if _FULLWIDTH_LOWER_A <= code < _FULLWIDTH_LOWER_A + 6:
        return code - _FULLWIDTH_LOWER_A + 10
    return unicodedata.decimal(c, -1)


def _java_parse_hex2(two: str) -> int:
    """``Integer.parseInt(two, 16)`` for a 2-character string, or -1 where Java throws.

    Java accepts a leading sign followed by one digit, so ``+5`` is 5 and ``-0`` is 0 (both then decoded by
    ``unescapePathName``), while ``-5`` is negative and left alone.
    """
    first, second = two[0], two[1]
    low = _java_hex_digit(second)
    if low < 0:
        return -1
    if first == "+":
        return low
    if first == "-":
        return -low if low else 0
    high = _java_hex_digit(first)
    return -1 if high < 0 else high * 16 + low


def unescape_path_name(s: str) -> str:
    """``FileUtils.unescapePathName(s)``, quirks included.

    ``%`` followed by two characters that ``Integer.parseInt(.., 16)`` reads as a non-negative number becomes that
    character (``(char) code``); anything else (a lone ``%``, ``%zz``, a ``%X`` at the very end) is kept as written.
    """
    out: list[str] = []
    i = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c == "%" and i + 2 < n:
            code = _java_parse_hex2(s[i + 1 : i + 3])
            if code >= 0:
                out.append(chr(code))
                i += 3
                continue
        out.append(c)
        i += 1
    return "".join(out)


def make_partition_name(keys: Sequence[str], values: Sequence[str | None]) -> str:
    """``Warehouse.makePartName``: ``k1=v1/k2=v2`` with keys lower-cased, keys and values escaped.

    A None or empty value becomes ``__HIVE_DEFAULT_PARTITION__``. Values must already be the partition strings
    (see :func:`partition_value_string` for typed values).
    """
    if len(keys) == 0 or len(keys) != len(values):
        raise AcidFormatError(f"invalid partition key & values; keys {list(keys)}, values {list(values)}")
    parts = []
    for key, value in zip(keys, values, strict=True):
        if not isinstance(key, str) or key == "":
            raise AcidFormatError(f"invalid partition key {key!r}")
        if value is not None and not isinstance(value, str):
            raise AcidFormatError(
                f"partition value for {key!r} must be a string or None, got {type(value).__name__}"
            )
        parts.append(f"{escape_path_name(key.lower())}={escape_path_name(value)}")
    return "/".join(parts)


def parse_partition_name(name: str) -> list[tuple[str, str | None]]:
    """Split ``k1=v1/k2=v2`` into unescaped ``(key, value)`` pairs; the default partition's value is None.

    The inverse of :func:`make_partition_name` (``Warehouse.makeSpecFromName``). A component that is not
    ``key=value`` with both sides non-empty is an error rather than silently skipped as Hive does, so a stray
    directory is never mistaken for a partition.
    """
    if not isinstance(name, str) or name.strip("/") == "":
        raise AcidFormatError(f"invalid partition name {name!r}")
    pairs: list[tuple[str, str | None]] = []
    for component in name.strip("/").split("/"):
        m = _COMPONENT.match(component)
        if m is None:
            raise AcidFormatError(
                f"invalid partition name {name!r}: component {component!r} is not key=value"
            )
        value = unescape_path_name(m.group(2))
        pairs.append((unescape_path_name(m.group(1)), None if value == DEFAULT_PARTITION_NAME else value))
    return pairs


def partition_spec_text(pairs: Sequence[tuple[str, str | None]]) -> str:
    """``p='v', q='w'`` for messages (NULL for the default partition), quotes and backslashes escaped."""

    def literal(value: str | None) -> str:
        if value is None:
            return "NULL"
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"

    return ", ".join(f"{key}={literal(value)}" for key, value in pairs)


# ---------------------------------------------------------------------------------------------------------
# Typed values -> partition strings
# ---------------------------------------------------------------------------------------------------------


def _java_digits_to_string(negative: bool, digits: str, exponent: int) -> str:
    """Java ``Double.toString`` / ``Float.toString`` layout of ``0.<digits> * 10**exponent`` (digits shortest).

    Plain notation with at least one fraction digit for 1e-3 <= |v| < 1e7, else ``d.dddE<n>``.
    """
    sign = "-" if negative else ""
    if -2 <= exponent <= 7:  # 1e-3 <= |v| < 1e7
        if exponent <= 0:
            return f"{sign}0.{'0' * -exponent}{digits}"
        whole = digits[:exponent].ljust(exponent, "0")
        frac = digits[exponent:] or "0"
        return f"{sign}{whole}.{frac}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent - 1}"


def _java_digits(value: float, shortest: str, round_trips) -> tuple[str, int]:
    """Significant digits and exponent (value = 0.digits * 10**exp) Java's ``toString`` picks for ``value > 0``.

    JDK 19+ (``Double.toString`` javadoc): the shortest decimal that rounds to the value, except that a one-digit
    result is replaced by the two-digit decimal closest to the value (``Double.MIN_VALUE`` is ``4.9E-324``, not
    ``5.0E-324``). ``round_trips(text)`` tells whether a decimal string reads back as the same value.
    """
    _, digit_tuple, exp = finite_tuple(decimal.Decimal(shortest))
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    exponent = len(digit_tuple) + exp
    if len(digits) == 1:
        exact = decimal.Decimal(value)  # the binary value, exactly
        with decimal.localcontext() as ctx:
            ctx.prec = 2
            ctx.rounding = decimal.ROUND_HALF_EVEN
            two = +exact
        if round_trips(str(two)):
            _, digit_tuple, exp = finite_tuple(two)
            digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
            exponent = len(digit_tuple) + exp
    return digits, exponent


def java_double_to_string(value: float) -> str:
    """``Double.toString(value)`` as JDK 19+ prints it (shortest round-trip digits, at least two).

    Hive 3 runs on Java 8, whose older algorithm prints a longer digit string for a few values (JDK-4511638);
    the shortest form is also what Trino and Spark print.
    """
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    magnitude = abs(value)
    digits, exponent = _java_digits(magnitude, repr(magnitude), lambda text: float(text) == magnitude)
    return _java_digits_to_string(value < 0, digits, exponent)


def java_float_to_string(value: float) -> str:
    """``Float.toString(value)``: the value as a 32-bit float, printed like :func:`java_double_to_string`."""
    f32 = np.float32(value)
    if np.isnan(f32):
        return "NaN"
    if np.isinf(f32):
        return "Infinity" if f32 > 0 else "-Infinity"
    if f32 == 0:
        return "-0.0" if np.signbit(f32) else "0.0"
    magnitude = abs(f32)
    shortest = np.format_float_scientific(magnitude, unique=True, trim="-")
    digits, exponent = _java_digits(
        float(magnitude), shortest, lambda text: np.float32(float(text)) == magnitude
    )
    return _java_digits_to_string(bool(np.signbit(f32)), digits, exponent)


def _decimal_string(value: decimal.Decimal, htype: HiveType) -> str:
    """``HiveDecimal.toString``: rounded HALF_UP to the type's scale, trailing zeros trimmed, plain notation."""
    if not value.is_finite():
        raise AcidFormatError(f"{value} is not a valid {htype.to_string()} partition value")
    quantum = decimal.Decimal(1).scaleb(-htype.scale)
    with decimal.localcontext() as ctx:
        ctx.prec = 100
        rounded = value.quantize(quantum, rounding=decimal.ROUND_HALF_UP)
        if rounded.adjusted() + 1 > htype.precision - htype.scale and rounded != 0:
            raise AcidFormatError(f"{value} does not fit partition column type {htype.to_string()}")
        if rounded == 0:
            return "0"
        normalized = rounded.normalize()
    sign, digits, exp = finite_tuple(normalized)
    text = "".join(map(str, digits))
    if exp >= 0:
        text = text + "0" * exp
    else:
        text = text.rjust(-exp + 1, "0")
        text = f"{text[:exp]}.{text[exp:]}"
    return ("-" if sign else "") + text


def _timestamp_string(value: datetime.datetime) -> str:
    """``TimestampWritableV2.toString``: ``yyyy-MM-dd HH:mm:ss`` plus the fraction without trailing zeros."""
    if value.tzinfo is not None:
        raise AcidFormatError(f"timestamp partition value {value} must be a wall-clock (naive) value")
    text = (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    )
    if value.microsecond:
        text += "." + f"{value.microsecond:06d}".rstrip("0")
    return text


def partition_value_string(value: object, hive_type: HiveType) -> str | None:
    """The directory value Hive's dynamic partitioning writes for a typed value; None means the default partition.

    ``FileSinkOperator.process`` names a dynamic partition ``o.toString()`` of the value's writable (NULL or an empty
    string -> default partition). The value is expected already cast to the partition column type (Hive 4 does
    this cast, ``hive.exec.dynamic.partition.type.conversion``; Hive 3 used the select expression's type):

    * tinyint/smallint/int/bigint: decimal digits; boolean: ``true``/``false``;
    * float/double: Java ``Float.toString``/``Double.toString`` (``1.0E7``, ``0.001``, ``NaN``);
    * decimal: ``HiveDecimal.toString``, trailing zeros trimmed (``1.50`` -> ``1.5``);
    * date: ``yyyy-MM-dd``; timestamp: ``yyyy-MM-dd HH:mm:ss[.fff]`` (``TimestampWritableV2.toString``: no ``.0``);
    * string/varchar: as is; char(n): padded to n (``HiveCharWritable.toString`` is the padded value).

    Binary and complex types cannot be partition columns (``AcidFormatError``).
    """
    if not isinstance(hive_type, HiveType):
        raise AcidFormatError(f"expected a HiveType, got {type(hive_type).__name__}")
    if value is None:
        return None
    name = hive_type.name
    try:
        if name in ("tinyint", "smallint", "int", "bigint"):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError
            return str(int(value))
        if name == "boolean":
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError
            return "true" if value else "false"
        if name == "double":
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
                raise TypeError
            return java_double_to_string(float(value))
        if name == "float":
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
                raise TypeError
            return java_float_to_string(float(value))
        if name == "decimal":
            if isinstance(value, bool) or not isinstance(value, (decimal.Decimal, int)):
                raise TypeError
            return _decimal_string(decimal.Decimal(value), hive_type)
        if name == "date":
            if isinstance(value, datetime.datetime) or not isinstance(value, datetime.date):
                raise TypeError
            return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
        if name == "timestamp":
            if not isinstance(value, datetime.datetime):
                raise TypeError
            return _timestamp_string(value)
        if name in ("string", "varchar", "char"):
            if not isinstance(value, str):
                raise TypeError
            if name == "char":
                value = value.ljust(hive_type.length)
            return value or None
    except TypeError:
        raise AcidFormatError(
            f"partition value {value!r} ({type(value).__name__}) is not a {hive_type.to_string()}"
        ) from None
    raise AcidFormatError(f"partition column type {hive_type.to_string()} is not supported")
