"""Hive 3.1's casts of written values, end to end (sources of each expectation: tests/unit/test_hive_casts.py).

The planner folds string literals with the pure-Python model; any other string goes through the Spark
functions exec registers, so these tests check that both ends give the same value as the model.
"""

from __future__ import annotations

import datetime as dt

from hiveacid_sql.plan.hive_values import hive_date, hive_timestamp
from tests.unit.test_hive_casts import TIMESTAMPS

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def test_update_all_types_qtest_timestamp(acid):
    """Hive's q-test update_all_types.q: t = '2014-09-01 09:44.23.23' reads 2014-09-01 00:00:00."""
    acid.sql(f"CREATE TABLE acid_uat (i int, t timestamp, dt date, de decimal(5,2), ti tinyint) {ACID}")
    acid.sql("INSERT INTO acid_uat VALUES (1, NULL, NULL, NULL, NULL)")
    acid.sql("UPDATE acid_uat SET t = '2014-09-01 09:44.23.23', dt = '2014-09-01', de = 5.999, ti = 300 WHERE i = 1")
    row = acid.sql("SELECT t, dt, de, ti FROM acid_uat").collect()[0]
    assert row.t == dt.datetime(2014, 9, 1) and row.dt == dt.date(2014, 9, 1)
    assert str(row.de) == "6.00"  # HALF_UP, as HiveDecimal.enforcePrecisionScale
    assert row.ti == 44  # (byte) 300: UDFToByte wraps an int


def test_string_columns_cast_as_the_model_says(acid):
    """INSERT ... SELECT and MERGE from a string column run the registered functions: same values as the model."""
    texts = [t for t, _ in TIMESTAMPS]
    acid.sql(f"CREATE TABLE src (id int, s string) {ACID}")
    values = ", ".join(f"({i}, {'NULL' if t is None else repr(t)})" for i, t in enumerate(texts))
    acid.sql(f"INSERT INTO src VALUES {values}")
    acid.sql(f"CREATE TABLE dst (id int, ts timestamp, d date) {ACID}")
    acid.sql("INSERT INTO dst SELECT id, s, s FROM src")
    got = {r.id: (r.ts, r.d) for r in acid.sql("SELECT id, ts, d FROM dst").collect()}
    assert got == {i: (hive_timestamp(t), hive_date(t)) for i, t in enumerate(texts)}
    acid.sql("MERGE INTO dst USING src ON dst.id = src.id WHEN MATCHED THEN UPDATE SET ts = src.s, d = concat(src.s, '')")
    merged = {r.id: (r.ts, r.d) for r in acid.sql("SELECT id, ts, d FROM dst").collect()}
    assert merged == got


def test_decimal_to_integer_outside_its_range_is_null(acid):
    """UDFToInteger(HiveDecimalWritable): NULL unless isInt(); Spark alone would wrap 3000000000.5 around."""
    acid.sql(f"CREATE TABLE nums (id int, d decimal(20,1)) {ACID}")
    acid.sql("INSERT INTO nums VALUES (1, 3000000000.5), (2, -2147483648.9), (3, 300.7)")
    acid.sql(f"CREATE TABLE ints (id int, i int, ti tinyint, bi bigint) {ACID}")
    acid.sql("INSERT INTO ints SELECT id, d, d, d FROM nums")
    rows = {r.id: (r.i, r.ti, r.bi) for r in acid.sql("SELECT * FROM ints").collect()}
    assert rows == {1: (None, None, 3000000000), 2: (-2147483648, None, -2147483648), 3: (300, None, 300)}
    acid.sql("INSERT INTO ints VALUES (4, 3000000000.5, 300, 3000000000)")  # literals decided on the driver
    assert acid.sql("SELECT i, ti, bi FROM ints WHERE id = 4").collect()[0] == (None, 44, 3000000000)
