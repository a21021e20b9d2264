"""SET hiveacid.strict.casts=true: a value that does not fit its column fails the statement in one line naming
the value and the column, and nothing is written (the transaction aborts). The default stays Hive's NULL."""

from __future__ import annotations

import pytest

from hiveacid_sql.errors import HiveAcidError

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


@pytest.fixture()
def tables(acid):
    acid.sql(f"CREATE TABLE t (id int, i int, d decimal(5,2), ts timestamp) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 1, 1.00, NULL)")
    acid.sql(f"CREATE TABLE src (id int, s string) {ACID}")
    acid.sql("INSERT INTO src VALUES (2, 'abc')")
    return acid


def _rows(acid):
    return sorted(tuple(r) for r in acid.sql("SELECT id, i, d, ts FROM t").collect())


def _aborted(acid) -> int:
    return acid.sql("SHOW TRANSACTIONS").where("`Transaction State` = 'ABORTED'").count()


STATEMENTS = [
    ("INSERT INTO t VALUES (2, 'abc', NULL, NULL)", "value 'abc' does not fit column default.t.i (int)"),
    ("INSERT INTO t SELECT id, s, NULL, NULL FROM src", "value 'abc' does not fit column default.t.i (int)"),
    ("INSERT INTO t VALUES (2, 3000000000, NULL, NULL)", "value '3000000000' does not fit column default.t.i (int)"),
    ("UPDATE t SET d = 123456.7 WHERE id = 1", "value '123456.7' does not fit column default.t.d (decimal(5,2))"),
    ("UPDATE t SET ts = '2014-09-01 09:44.23.23'", "value '2014-09-01 09:44.23.23' does not fit column default.t.ts"),
    (
        "MERGE INTO t USING src ON t.id = src.id WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.s, NULL, NULL)",
        "value 'abc' does not fit column default.t.i (int)",
    ),
]


@pytest.mark.parametrize(("sql", "message"), STATEMENTS, ids=["values", "select", "overflow", "decimal", "timestamp", "merge"])
def test_strict_statement_fails_naming_value_and_column(tables, sql, message):
    acid = tables
    before, aborted = _rows(acid), _aborted(acid)
    acid.sql("SET hiveacid.strict.casts=true")
    with pytest.raises(HiveAcidError) as info:
        acid.sql(sql)
    text = str(info.value)
    assert message in text and "\n" not in text
    assert _rows(acid) == before
    assert _aborted(acid) == aborted + 1


def test_default_is_hive_null_and_strict_keeps_fitting_values(tables):
    acid = tables
    acid.sql("INSERT INTO t SELECT id, s, NULL, NULL FROM src")  # Hive: 'abc' -> NULL
    assert (2, None, None, None) in _rows(acid)
    acid.sql("SET hiveacid.strict.casts=true")
    acid.sql("UPDATE t SET d = 1.005, i = '7' WHERE id = 1")  # rounding is no error (ANSI rounds HALF_UP too)
    assert acid.sql("SELECT i, CAST(d AS string) FROM t WHERE id = 1").collect()[0] == (7, "1.01")


def test_strict_division_by_zero_fails(tables):
    acid = tables
    acid.sql("SET hiveacid.strict.casts=true")
    with pytest.raises(HiveAcidError, match="DIVIDE_BY_ZERO|Division by zero"):
        acid.sql("UPDATE t SET i = i / 0")
    acid.sql("SET hiveacid.strict.casts=false")
    acid.sql("UPDATE t SET i = i / 0")
    assert acid.sql("SELECT i FROM t").collect()[0].i is None
