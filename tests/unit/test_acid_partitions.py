"""Partition directory names: Hive's escaping, ``k=v`` names, and the strings typed values become.

Expected strings come from Hive's own outputs where they exist:

* trinodb/trino ``plugin/trino-hive/src/test/java/io/trino/plugin/hive/util/TestHiveUtil.java``
  (``testEscapePathName`` / ``testUnescapePathName`` / ``testMakePartName`` assert each value against Hive's
  ``FileUtils`` itself);
* apache/hive ``ql/src/test/results/clientpositive/partition_special_char.q.out`` (dynamic partitions of
  ``'2011-01-11+14:18:26'``), ``llap/partition_timestamp.q.out`` (timestamp partitions), ``llap/dynpart_cast.q.out``
  (``'002'`` cast to an int partition is ``2``).
"""

from __future__ import annotations

import datetime
import decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.partitions import (
    DEFAULT_PARTITION_NAME,
    escape_path_name,
    java_double_to_string,
    java_float_to_string,
    make_partition_name,
    parse_partition_name,
    partition_spec_text,
    partition_value_string,
    unescape_path_name,
)
from hiveacid_sql.errors import AcidFormatError

# (raw, escaped) from TestHiveUtil.testEscapePathName (trinodb/trino), each checked there against Hive's FileUtils.
_TRINO_ESCAPE_CASES = [
    ("x", "x"),
    ("abc", "abc"),
    ("%", "%25"),
    ("A", "A"),
    ("A%x", "A%25x"),
    ("A%xxZ", "A%25xxZ"),
    ("A%%Z", "A%25%25Z"),
    ("abcABC", "abcABC"),
    ("abc:xyz", "abc%3Axyz"),
    ("abc\u00bbxyz", "abc\u00bbxyz"),
    ("\u0000\t\b\r\n\u001f", "%00%09%08%0D%0A%1F"),
    ("#%^&*=[]{\\:'\"/?", "%23%25%5E&%2A%3D%5B%5D%7B%5C%3A%27%22%2F%3F"),
    ("~`!@$()-_+}|;,.<>", "~`!@$()-_+}|;,.<>"),
]

# (escaped, raw) from TestHiveUtil.testUnescapePathName (trinodb/trino), checked there against Hive's FileUtils.
_TRINO_UNESCAPE_CASES = [
    ("", ""),
    ("x", "x"),
    ("abc", "abc"),
    ("abc%", "abc%"),
    ("%", "%"),
    ("%41", "A"),
    ("%41%x", "A%x"),
    ("%41%xxZ", "A%xxZ"),
    ("%41%%Z", "A%%Z"),
    ("%41%25%25Z", "A%%Z"),
    ("abc%41%42%43", "abcABC"),
    ("abc%3Axyz", "abc:xyz"),
    ("abc%3axyz", "abc:xyz"),
    ("abc%BBxyz", "abc\u00bbxyz"),
]


@pytest.mark.parametrize(("raw", "escaped"), _TRINO_ESCAPE_CASES)
def test_escape_matches_hive(raw, escaped):
    assert escape_path_name(raw) == escaped


@pytest.mark.parametrize(("escaped", "raw"), _TRINO_UNESCAPE_CASES)
def test_unescape_matches_hive(escaped, raw):
    assert unescape_path_name(escaped) == raw


def test_null_and_empty_escape_to_the_default_partition():
    # TestHiveUtil.testEscapePathName: null and "" -> __HIVE_DEFAULT_PARTITION__
    assert escape_path_name(None) == "__HIVE_DEFAULT_PARTITION__"
    assert escape_path_name("") == "__HIVE_DEFAULT_PARTITION__"
    assert DEFAULT_PARTITION_NAME == "__HIVE_DEFAULT_PARTITION__"


def test_every_escaped_character():
    # FileUtils.charToEscape (hive3 common/.../FileUtils.java): every char below 0x20, then the listed ones.
    listed = "\"#%'*/:=?\\\x7f{[]^"
    for code in range(128):
        c = chr(code)
        expected = f"%{code:02X}" if code < 0x20 or c in listed else c
        assert escape_path_name(c) == expected, repr(c)
        assert unescape_path_name(escape_path_name(c)) == c
    # Nothing at or above 0x80 is escaped, including characters outside the BMP.
    assert escape_path_name("é/ü😀") == "é%2Fü😀"


def test_unescape_java_quirks():
    # Integer.parseInt(s, 16) accepts a sign: "+5" -> 5 and "-0" -> 0 are decoded, "-5" is negative and kept.
    assert unescape_path_name("%+5") == "\x05"
    assert unescape_path_name("%-0") == "\x00"
    assert unescape_path_name("%-5") == "%-5"
    # Character.digit accepts any Unicode decimal digit and fullwidth a-f: Arabic-Indic 3 and fullwidth A.
    assert unescape_path_name("%\u0663\uff21") == chr(0x3A)
    # A supplementary-plane digit is two surrogates in Java, never a digit.
    assert unescape_path_name("%\U0001d7ce1") == "%\U0001d7ce1"
    # "%X" needs two characters after it; "i + 2 < length" leaves a trailing "%4" alone.
    assert unescape_path_name("a%4") == "a%4"


@given(st.text())
def test_escape_round_trips(s):
    escaped = escape_path_name(s)
    if s == "":
        assert escaped == DEFAULT_PARTITION_NAME
    else:
        assert "/" not in escaped and "=" not in escaped
        assert unescape_path_name(escaped) == s


def test_make_partition_name_matches_hive():
    # TestHiveUtil.testMakePartName (trinodb/trino), checked there against Hive's FileUtils.makePartName.
    assert make_partition_name(["abc"], ["xyz"]) == "abc=xyz"
    assert make_partition_name(["abc:qqq"], ["xyz/yyy=zzz"]) == "abc%3Aqqq=xyz%2Fyyy%3Dzzz"
    assert make_partition_name(["abc", "def", "xyz"], ["qqq", "rrr", "sss"]) == "abc=qqq/def=rrr/xyz=sss"


def test_make_partition_name_special_chars_qtest():
    # partition_special_char.q.out: POSTHOOK: Output: default@sc_part@ts=2011-01-11+14%3A18%3A26
    assert make_partition_name(["ts"], ["2011-01-11+14:18:26"]) == "ts=2011-01-11+14%3A18%3A26"
    assert parse_partition_name("ts=2011-01-11+14%3A18%3A26") == [("ts", "2011-01-11+14:18:26")]


def test_make_partition_name_lowercases_keys_and_defaults_nulls():
    # FileUtils.makePartName lower-cases each key; null/empty values -> the default partition.
    name = make_partition_name(["Region", "DAY"], [None, ""])
    assert name == "region=__HIVE_DEFAULT_PARTITION__/day=__HIVE_DEFAULT_PARTITION__"
    assert parse_partition_name(name) == [("region", None), ("day", None)]


def test_multi_level_round_trip():
    keys = ["a", "b", "c"]
    values = ["x=1/y", None, "50% off: 'now'"]
    name = make_partition_name(keys, values)
    assert name == "a=x%3D1%2Fy/b=__HIVE_DEFAULT_PARTITION__/c=50%25 off%3A %27now%27"
    assert parse_partition_name(name) == list(zip(keys, values, strict=True))
    assert parse_partition_name(name + "/") == parse_partition_name(name)


@pytest.mark.parametrize(
    "call",
    [
        lambda: make_partition_name([], []),
        lambda: make_partition_name(["a", "b"], ["1"]),
        lambda: make_partition_name([""], ["1"]),
        lambda: make_partition_name(["a"], [1]),
        lambda: parse_partition_name(""),
        lambda: parse_partition_name("/"),
        lambda: parse_partition_name("a=1/junk"),
        lambda: parse_partition_name("a="),
        lambda: parse_partition_name("=1"),
    ],
)
def test_bad_names_are_refused(call):
    with pytest.raises(AcidFormatError):
        call()


def test_partition_spec_text():
    assert partition_spec_text([("p", "v"), ("q", "w")]) == "p='v', q='w'"
    assert partition_spec_text([("p", None)]) == "p=NULL"
    assert partition_spec_text([("p", "it's \\")]) == "p='it\\'s \\\\'"


# ---------------------------------------------------------------------------------------------------------
# Typed values
# ---------------------------------------------------------------------------------------------------------


def _value(value, type_text):
    return partition_value_string(value, parse_hive_type(type_text))


def test_timestamp_values_match_hive_qtest():
    # llap/partition_timestamp.q.out: partition(dt='2000-01-01 01:00:00') is written as
    # default@partition_timestamp_1@dt=2000-01-01 01%3A00%3A00/region=1 (no ".0" in Hive 3).
    ts = _value(datetime.datetime(2000, 1, 1, 1, 0, 0), "timestamp")
    assert ts == "2000-01-01 01:00:00"
    assert make_partition_name(["dt", "region"], [ts, "1"]) == "dt=2000-01-01 01%3A00%3A00/region=1"
    # Hive's Timestamp PRINT_FORMATTER: appendFraction(NANO_OF_SECOND, 0, 9) drops trailing zeros.
    assert _value(datetime.datetime(2001, 1, 1, 3, 0, 0, 120000), "timestamp") == "2001-01-01 03:00:00.12"
    assert _value(datetime.datetime(1, 1, 1, 0, 0, 0, 1), "timestamp") == "0001-01-01 00:00:00.000001"


def test_int_values_match_hive_qtest():
    # llap/dynpart_cast.q.out: '002' cast to the int partition column -> default@dynpart_cast@static_part=3/dyn_part=2
    assert make_partition_name(["static_part", "dyn_part"], [_value(3, "int"), _value(2, "int")]) == (
        "static_part=3/dyn_part=2"
    )
    assert _value(-128, "tinyint") == "-128"
    assert _value(2**63 - 1, "bigint") == "9223372036854775807"


def test_simple_values():
    assert _value(True, "boolean") == "true"
    assert _value(False, "boolean") == "false"
    assert _value(datetime.date(2008, 4, 8), "date") == "2008-04-08"
    assert _value(datetime.date(1, 2, 3), "date") == "0001-02-03"
    assert _value("a/b", "string") == "a/b"
    assert _value("ab", "varchar(5)") == "ab"
    # HiveCharWritable.toString() is the padded value.
    assert _value("ab", "char(4)") == "ab  "
    assert _value(None, "int") is None
    assert _value("", "string") is None


def test_decimal_values_are_trimmed():
    # HiveDecimal keeps no trailing fractional zeros and prints plain digits (HiveDecimal.toString).
    assert _value(decimal.Decimal("1.50"), "decimal(10,2)") == "1.5"
    assert _value(decimal.Decimal("100"), "decimal(10,2)") == "100"
    assert _value(decimal.Decimal("0.000"), "decimal(10,3)") == "0"
    assert _value(decimal.Decimal("-0.05"), "decimal(10,2)") == "-0.05"
    assert _value(decimal.Decimal("2.345"), "decimal(10,2)") == "2.35"  # HALF_UP to the scale
    assert _value(decimal.Decimal("1E+3"), "decimal(5,0)") == "1000"
    with pytest.raises(AcidFormatError):
        _value(decimal.Decimal("123456"), "decimal(5,2)")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # Values from the Double.toString javadoc / JDK examples: plain in [1e-3, 1e7), else computerized notation.
        (1.0, "1.0"),
        (100.0, "100.0"),
        (0.001, "0.001"),
        (1.0e-4, "1.0E-4"),
        (1.0e7, "1.0E7"),
        (9999999.0, "9999999.0"),
        (12.34, "12.34"),
        (-1.5, "-1.5"),
        (123456789.0, "1.23456789E8"),
        (0.1 + 0.2, "0.30000000000000004"),
        (5e-324, "4.9E-324"),  # Double.MIN_VALUE's documented string
        (1.7976931348623157e308, "1.7976931348623157E308"),  # Double.MAX_VALUE
        (-0.0, "-0.0"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
    ],
)
def test_double_to_string(value, expected):
    assert java_double_to_string(value) == expected
    assert _value(value, "double") == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (12.34, "12.34"),
        (0.1, "0.1"),
        (1.0e10, "1.0E10"),
        (16777216.0, "1.6777216E7"),
        (1.4e-45, "1.4E-45"),  # Float.MIN_VALUE's documented string
        (3.4028235e38, "3.4028235E38"),  # Float.MAX_VALUE's documented string
        (float("inf"), "Infinity"),
    ],
)
def test_float_to_string(value, expected):
    assert java_float_to_string(value) == expected
    assert _value(value, "float") == expected


@pytest.mark.parametrize(
    ("value", "type_text"),
    [
        (b"x", "binary"),
        ([1], "array<int>"),
        ("1", "int"),
        (True, "int"),
        (1, "boolean"),
        (datetime.datetime(2000, 1, 1), "date"),
        (datetime.date(2000, 1, 1), "timestamp"),
        (datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc), "timestamp"),
        (1.5, "decimal(5,2)"),
        (decimal.Decimal("NaN"), "decimal(5,2)"),
    ],
)
def test_bad_typed_values_are_refused(value, type_text):
    with pytest.raises(AcidFormatError):
        _value(value, type_text)
