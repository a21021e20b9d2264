"""Hive 3.1's casts of a written value to its column type (plan/hive_values.py, plan/types.py), no JVM.

Sources of the expectations (Hive 3.1, ``org.apache.hadoop.hive.common.type`` since HIVE-20007):
* ``TimestampUtils.stringToTimestamp`` / ``PrimitiveObjectInspectorUtils.getTimestampFromString``: the order
  of the attempts (10 characters = a date; ``Timestamp.valueOf``; ISO; zoned; ``Date.valueOf`` last);
* ``Timestamp.PARSE_FORMATTER`` / ``Date.PARSE_FORMATTER``: ``appendValue(YEAR, 1, 10)``, 1-2 digit fields,
  1-9 fraction digits, ``ResolverStyle.LENIENT``;
* ``Date.valueOf``: the text cut at the first blank, so the q-test ``update_all_types.q`` sets
  ``t = '2014-09-01 09:44.23.23'`` and reads ``2014-09-01 00:00:00`` (update_all_types.q.out);
* ``UDFToInteger.evaluate(HiveDecimalWritable)`` (and UDFToByte/Short/Long): NULL unless ``isInt()``.
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlglot import exp

from hiveacid_sql.plan.hive_values import hive_date, hive_timestamp
from hiveacid_sql.plan.types import STRING_TO_TIMESTAMP, hive_cast, strict_casts

T = dt.datetime

TIMESTAMPS = [
    # q-test update_all_types: the time does not parse, Date.valueOf reads the date before the blank
    ("2014-09-01 09:44.23.23", T(2014, 9, 1)),
    ("2014-09-01 09:44", T(2014, 9, 1)),  # no seconds: not Timestamp.valueOf's shape -> the date
    ("2014-09-01 09:44:23", T(2014, 9, 1, 9, 44, 23)),
    ("  2014-09-01 09:44:23.5\t", T(2014, 9, 1, 9, 44, 23, 500000)),  # String.trim
    ("2014-9-1 9:4:3", T(2014, 9, 1, 9, 4, 3)),  # 1-digit fields
    ("2014-02-30", T(2014, 3, 2)),  # LENIENT: 30 February is 2 March
    ("2014-13-01 00:00:00", T(2015, 1, 1)),  # LENIENT month 13
    ("2014-09-01 24:00:00", T(2014, 9, 2)),  # LENIENT hour 24
    ("2014-09-01 23:59:60", T(2014, 9, 2)),  # LENIENT second 60
    ("2014-09-01 01:02:03.123456789", T(2014, 9, 1, 1, 2, 3, 123456)),  # nanoseconds cut to Spark's micros
    ("2014-09-01 01:02:03.1234567891234", T(2014, 9, 1, 1, 2, 3, 123456)),  # trimNanoTimestamp
    ("2014-09-01 01:02:03.", T(2014, 9, 1)),  # a bare point: not a fraction -> the date
    ("2014-09-01T09:44", T(2014, 9, 1, 9, 44)),  # ISO-8601
    ("2014-09-01T09:44:23.25", T(2014, 9, 1, 9, 44, 23, 250000)),
    ("2014-09-01T25:00", T(2014, 9, 1)),  # ISO is STRICT -> the date before the T
    ("2014-09-01 09:44:23 UTC", T(2014, 9, 1, 9, 44, 23)),  # zoned: the local time as written
    ("2014-09-01 09:44:23+02:00", T(2014, 9, 1, 9, 44, 23)),
    ("2014-03-30 02:30:00 Europe/Paris", T(2014, 3, 30, 3, 30)),  # in the DST gap: moved forward
    ("2014-02-30 10:00:00 UTC", T(2014, 2, 28, 10)),  # zoned parse is SMART: the month's last day
    ("0001-01-01 00:00:00", T(1, 1, 1)),
    ("1582-10-10", T(1582, 10, 10)),  # proleptic Gregorian: no gap
    ("9999-12-31 23:59:59.999999999", T(9999, 12, 31, 23, 59, 59, 999999)),
    ("2014", None),
    ("2014-09", None),
    ("abc", None),
    ("", None),
    ("0000-01-01", None),  # year 0: Hive keeps it, Spark's values do not hold it (README)
    (None, None),
]


@pytest.mark.parametrize(("text", "expected"), TIMESTAMPS)
def test_string_to_timestamp_is_hive_31(text, expected):
    assert hive_timestamp(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2014-09-01", dt.date(2014, 9, 1)),
        ("2014-09-01 09:44.23.23", dt.date(2014, 9, 1)),
        ("2014-02-30", dt.date(2014, 3, 2)),
        ("2014-09-01 24:00:00", dt.date(2014, 9, 2)),  # the date of the timestamp
        ("2014-09-01T10:00:00", dt.date(2014, 9, 1)),
        ("01-09-2014", None),
        ("x", None),
        (None, None),
    ],
)
def test_string_to_date_is_hive_31(text, expected):
    assert hive_date(text) == expected


def _sql(node: exp.Expr) -> str:
    return node.sql(dialect="spark")


def test_string_literal_folds_to_hive_value():
    assert _sql(hive_cast(exp.Literal.string("2014-09-01 09:44.23.23"), "timestamp")) == (
        "CAST('2014-09-01 00:00:00' AS TIMESTAMP_NTZ)"
    )
    assert _sql(hive_cast(exp.Literal.string("nope"), "date")) == "CAST(NULL AS DATE)"


def test_other_values_pick_the_branch_of_their_type():
    sql = _sql(hive_cast(exp.column("s"), "timestamp"))
    assert sql.startswith("CASE WHEN TYPEOF(s) = 'string' THEN ")
    assert STRING_TO_TIMESTAMP.upper() in sql
    assert sql.endswith("ELSE CAST(s AS TIMESTAMP_NTZ) END")


def test_decimal_to_int_outside_the_range_is_null():
    sql = _sql(hive_cast(exp.column("d"), "int"))
    assert "TYPEOF(d) LIKE 'decimal%'" in sql
    assert "> -2147483649" in sql and "< 2147483648" in sql
    assert "ELSE CAST(NULL AS INT)" in sql


def test_casts_that_already_agree_stay_plain():
    assert _sql(hive_cast(exp.column("x"), "decimal(10,2)")) == "CAST(x AS DECIMAL(10, 2))"
    assert _sql(hive_cast(exp.column("x"), "string")) == "CAST(x AS STRING)"


def test_strict_cast_names_value_and_column():
    with strict_casts(True):
        sql = _sql(hive_cast(exp.column("x"), "int", column="default.t.c"))
    assert sql.startswith("CASE WHEN NOT x IS NULL AND TRY_CAST(x AS INT) IS NULL THEN ")
    assert "RAISE_ERROR" in sql and "does not fit column default.t.c (int)" in sql
    # and outside the block the casts are Hive's again
    assert "RAISE_ERROR" not in _sql(hive_cast(exp.column("x"), "int"))


def test_literals_are_decided_on_the_driver():
    assert _sql(hive_cast(exp.Null(), "timestamp")) == "CAST(NULL AS TIMESTAMP_NTZ)"
    assert _sql(hive_cast(exp.Literal.number(3000000000), "int")) == "CAST(3000000000 AS INT)"  # wraps, as Hive
    assert _sql(hive_cast(exp.Literal.number("3000000000.5"), "int")) == "CAST(NULL AS INT)"  # isInt() false
    assert _sql(hive_cast(exp.Literal.number("-2147483648.9"), "int")) == "CAST(-2147483648.9 AS INT)"


def test_values_items_and_typed_values_stay_plain():
    """A VALUES item must fold on the driver (Spark's inline tables), and DATE '..' is no string."""
    assert _sql(hive_cast(exp.func("concat", exp.column("a"), exp.column("b")), "date", constant=True)) == (
        "CAST(CONCAT(a, b) AS DATE)"
    )
    date_literal = exp.maybe_parse("DATE '1969-07-20'", dialect="spark")
    assert "TYPEOF" not in _sql(hive_cast(date_literal, "timestamp"))


def test_strict_casts_setting_is_registered_and_checked():
    from hiveacid_sql.errors import PlanError
    from hiveacid_sql.settings import STRICT_CASTS, Settings

    settings = Settings()
    assert settings.value(STRICT_CASTS) is False  # Hive's NULL by default
    settings.set(STRICT_CASTS, "TRUE")
    assert settings.value(STRICT_CASTS) is True
    with pytest.raises(PlanError, match="hiveacid.strict.casts=maybe' FAILED in validation"):
        settings.set(STRICT_CASTS, "maybe")
    assert settings.value(STRICT_CASTS) is True
