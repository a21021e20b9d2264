"""Every Hive type at its extremes x every write path x every read path: the value read is the value written,
and the value Hive 3.1 returns.

One table per write path, a column per type, a row per extreme (so the matrix costs one table per path,
not one per cell). Expectations and their sources:
* integers, float/double (NaN, +-Infinity, -0.0 kept bit for bit), boolean, binary, string: stored as given
  (ORC's own encodings; Hive's ``LazySimpleSerDe`` for TEXTFILE, where NULL is ``\\N`` and '' is empty);
* decimal(38,18): the full 38 digits (HiveDecimal's maximum precision);
* varchar(10) keeps trailing blanks, char(5) is padded to 5 (HiveChar / HiveVarchar);
* date and timestamp in the proleptic Gregorian calendar (Hive 3.1's ``java.time`` values, HIVE-20007), so
  0001-01-01, 1582-10-04 and 1582-10-15 are the days written;
* nanoseconds: Hive keeps them, Spark's values hold microseconds, so ``.123456789`` is ``.123456`` here
  (README: differences from Hive 3.1).
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import hiveacid_sql
from hiveacid_sql.acid.orc_dump import dump_events

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
COLUMNS = (
    "id int, ti tinyint, si smallint, i int, bi bigint, f float, d double, dec decimal(38,18), "
    "s string, vc varchar(10), c char(5), b boolean, bin binary, dt date, ts timestamp, "
    "arr array<timestamp>, m map<string,date>, st struct<x:decimal(38,18),y:string>"
)
NAMES = [c.split()[0] for c in COLUMNS.split(", ")]
#: the columns without a timestamp at any depth: a table of these is written by the Arrow ORC writer
ARROW_COLUMNS = [c for c in COLUMNS.split(", ") if "timestamp" not in c]
ARROW_NAMES = [c.split()[0] for c in ARROW_COLUMNS]
# 38 significant digits, HiveDecimal's maximum
DEC_MAX = "99999999999999999999.999999999999999999"


def _row(i, ti, si, ii, bi, f, d, dec, s, vc, c, b, bin_, date, ts) -> str:
    return (
        f"({i}, {ti}, {si}, {ii}, {bi}, CAST('{f}' AS float), CAST('{d}' AS double), "
        f"CAST('{dec}' AS decimal(38,18)), '{s}', '{vc}', '{c}', {b}, unhex('{bin_}'), DATE '{date}', "
        f"TIMESTAMP '{ts}', array(TIMESTAMP '{ts}', NULL), map('{s}', DATE '{date}'), "
        f"named_struct('x', CAST('{dec}' AS decimal(38,18)), 'y', '{s}'))"
    )


ROWS = [
    _row(1, -128, -32768, -(2**31), -(2**63), "-Infinity", "-Infinity", "-" + DEC_MAX, "", "", "", "false", "",
         "0001-01-01", "0001-01-01 00:00:00"),
    _row(2, 127, 32767, 2**31 - 1, 2**63 - 1, "Infinity", "Infinity", DEC_MAX, "héllo ✓ 𝄞", "trail  ", "ab",
         "true", "00FF10", "9999-12-31", "9999-12-31 23:59:59.999999"),
    _row(3, 0, 0, 0, 0, "NaN", "NaN", "0.000000000000000001", " lead", "x", "abcde", "true", "00",
         "1582-10-04", "1582-10-04 12:00:00.5"),
    _row(4, -1, 1, -1, 1, "-0.0", "-0.0", "-1.5", "tab\tnl", "é", "é", "false", "FF",
         "1582-10-15", "1899-12-31 23:59:59.999999"),
    _row(5, 1, -1, 1, -1, "3.4028235E38", "4.9E-324", "1", 'a"b', "  ", " ", "true", "0102",
         "1970-01-01", "1969-12-31 23:59:58.999999"),
    _row(6, 2, 2, 2, 2, "1.5", "1.0E300", "2", "x", "y", "z", "true", "03",
         "1899-12-31", "2000-01-01 00:00:00.123456789"),
    "(7" + ", NULL" * (len(NAMES) - 1) + ")",
]


def _expected_row(i, ti, si, ii, bi, f, d, dec, s, vc, c, b, bin_, date, ts) -> tuple:
    day = dt.date.fromisoformat(date)
    stamp = dt.datetime.fromisoformat(ts[:26])
    value = Decimal(dec)
    return (i, ti, si, ii, bi, float(f), float(d), value, s, vc, c.ljust(5), b, bytes.fromhex(bin_), day, stamp,
            [stamp, None], {s: day}, (value, s))


EXPECTED = {
    1: _expected_row(1, -128, -32768, -(2**31), -(2**63), "-inf", "-inf", "-" + DEC_MAX, "", "", "", False, "",
                     "0001-01-01", "0001-01-01 00:00:00"),
    2: _expected_row(2, 127, 32767, 2**31 - 1, 2**63 - 1, "inf", "inf", DEC_MAX, "héllo ✓ 𝄞", "trail  ", "ab", True,
                     "00FF10", "9999-12-31", "9999-12-31 23:59:59.999999"),
    3: _expected_row(3, 0, 0, 0, 0, "nan", "nan", "0.000000000000000001", " lead", "x", "abcde", True, "00",
                     "1582-10-04", "1582-10-04 12:00:00.500000"),
    4: _expected_row(4, -1, 1, -1, 1, "-0.0", "-0.0", "-1.5", "tab\tnl", "é", "é", False, "FF",
                     "1582-10-15", "1899-12-31 23:59:59.999999"),
    5: _expected_row(5, 1, -1, 1, -1, "3.4028234663852886e+38", "5e-324", "1", 'a"b', "  ", " ", True, "0102",
                     "1970-01-01", "1969-12-31 23:59:58.999999"),
    6: _expected_row(6, 2, 2, 2, 2, "1.5", "1e300", "2", "x", "y", "z", True, "03",
                     "1899-12-31", "2000-01-01 00:00:00.123456"),  # nanoseconds cut to microseconds
    7: (7,) + (None,) * (len(NAMES) - 1),
}


def _norm(value: Any) -> Any:
    """Values made comparable with ==: floats by repr (NaN, -0.0), rows/lists/dicts/bytes by content."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, Decimal):  # normalize() in a context of 38+ digits: the default 28 would round
        return value.normalize(decimal.Context(prec=100)) if value else Decimal(0)
    if isinstance(value, dict):
        return {_norm(k): _norm(v) for k, v in value.items()}
    if isinstance(value, list) and value and isinstance(value[0], tuple) and len(value[0]) == 2 and not isinstance(value[0], list):
        return value  # (map as arrow list of pairs is handled by the caller)
    if isinstance(value, (list, tuple)):
        return type(value)(_norm(v) for v in value) if isinstance(value, list) else tuple(_norm(v) for v in value)
    return value


WANT = {k: _norm(v) for k, v in EXPECTED.items()}


def _diff(got: dict[int, tuple], want: dict[int, tuple]) -> list[tuple]:
    """(row id, column, read, expected) of every cell that differs (the assertion's message)."""
    out = []
    for k in sorted(set(got) | set(want)):
        g, w = got.get(k, ()), want.get(k, ())
        out += [(k, NAMES[i] if i < len(NAMES) else i, a, b) for i, (a, b) in enumerate(zip(g, w, strict=False)) if a != b]
        if len(g) != len(w):
            out.append((k, "width", len(g), len(w)))
    return out


def _spark_rows(acid, sql: str) -> dict[int, tuple]:
    return {r[0]: _norm(tuple(r)) for r in acid.sql(sql).collect()}


def _arrow_rows(table: pa.Table) -> dict[int, tuple]:
    out = {}
    for row in table.select(NAMES).to_pylist():
        m = row["m"]
        row["m"] = dict(m) if isinstance(m, list) else m  # pyarrow gives a map as [(k, v), ..]
        st = row["st"]
        row["st"] = None if st is None else (st["x"], st["y"])
        out[row["id"]] = _norm(tuple(row[n] for n in NAMES))
    return out


@pytest.fixture(scope="module")
def matrix(spark, tmp_path_factory):
    """Every write path's table, written once for the module (the matrix's cost is one table per path)."""
    warehouse = tmp_path_factory.mktemp("matrix") / "warehouse"
    acid = hiveacid_sql.connect(spark=spark, warehouse=warehouse)
    try:
        acid.sql(f"CREATE TABLE m_values ({COLUMNS}) {ACID}")
        acid.sql(f"INSERT INTO m_values VALUES {', '.join(ROWS)}")  # VALUES: written on the driver
        for name in ("m_select", "m_update_tasks", "m_update_driver", "m_merge"):
            acid.sql(f"CREATE TABLE {name} ({COLUMNS}) {ACID}")
            acid.sql(f"INSERT INTO {name} SELECT * FROM m_values")  # INSERT ... SELECT: Spark tasks
        every = ", ".join(f"{n} = {n}" for n in NAMES[1:])
        acid.sql("SET hiveacid.driver.write.max.rows=0")  # UPDATE rewritten by tasks
        acid.sql(f"UPDATE m_update_tasks SET {every}")
        acid.sql("SET hiveacid.driver.write.max.rows=10000")  # UPDATE written on the driver
        acid.sql(f"UPDATE m_update_driver SET {every}")
        acid.sql(f"UPDATE m_update_driver SET {every} WHERE id > 3")  # a second delta for the compactions
        sets = ", ".join(f"{n} = s.{n}" for n in NAMES[1:])
        acid.sql(f"MERGE INTO m_merge t USING m_values s ON t.id = s.id WHEN MATCHED THEN UPDATE SET {sets}")
        acid.sql(f"CREATE TABLE m_minor ({COLUMNS}) {ACID}")
        acid.sql("INSERT INTO m_minor SELECT * FROM m_values WHERE id <= 3")
        acid.sql("INSERT INTO m_minor SELECT * FROM m_values WHERE id > 3")
        acid.sql(f"UPDATE m_minor SET {every} WHERE id IN (2, 5)")
        acid.sql("ALTER TABLE m_minor COMPACT 'minor' AND WAIT")
        acid.sql(f"CREATE TABLE m_major ({COLUMNS}) {ACID}")
        acid.sql("INSERT INTO m_major SELECT * FROM m_minor")
        acid.sql(f"UPDATE m_major SET {every} WHERE id IN (1, 6)")
        acid.sql("ALTER TABLE m_major COMPACT 'major' AND WAIT")
        # without timestamp columns the tasks write with pyarrow's ORC writer (open_event_writer), not pyorc
        acid.sql(f"CREATE TABLE m_arrow ({', '.join(ARROW_COLUMNS)}) {ACID}")
        acid.sql(f"INSERT INTO m_arrow SELECT {', '.join(ARROW_NAMES)} FROM m_values")
        acid.sql("SET hiveacid.driver.write.max.rows=0")
        acid.sql(f"UPDATE m_arrow SET {', '.join(f'{n} = {n}' for n in ARROW_NAMES[1:])} WHERE id IN (2, 5)")
        acid.sql("SET hiveacid.driver.write.max.rows=10000")
        for name, storage in (("p_orc", "STORED AS ORC"), ("p_parquet", "STORED AS PARQUET")):
            acid.sql(f"CREATE TABLE {name} ({COLUMNS}) {storage}")
            acid.sql(f"INSERT INTO {name} SELECT * FROM m_values")
        acid.sql(f"CREATE TABLE p_text ({COLUMNS}) STORED AS TEXTFILE")
        acid.sql("INSERT INTO p_text SELECT * FROM m_values")
        yield acid, warehouse
    finally:
        acid.close()


ACID_TABLES = ["m_values", "m_select", "m_update_tasks", "m_update_driver", "m_merge", "m_minor", "m_major"]
PLAIN_TABLES = ["p_orc", "p_parquet"]


@pytest.mark.parametrize("table", ACID_TABLES + PLAIN_TABLES)
def test_select_reads_what_was_written(matrix, table):
    acid, _ = matrix
    got = _spark_rows(acid, f"SELECT {', '.join(NAMES)} FROM {table}")
    assert got == WANT, _diff(got, WANT)


def test_textfile_reads_what_was_written(matrix):
    """Hive's LazySimpleSerDe text: '' and NULL apart, tabs and unicode kept, floats as Java prints them,
    arrays, maps and structs with Hive's nested separators."""
    acid, _ = matrix
    got = _spark_rows(acid, f"SELECT {', '.join(NAMES)} FROM p_text")
    assert got == WANT, _diff(got, WANT)


@pytest.mark.parametrize("table", ACID_TABLES)
def test_row_id_query_and_time_travel_read_the_same(matrix, table):
    acid, _ = matrix
    got = _spark_rows(acid, f"SELECT {', '.join(NAMES)}, row__id FROM {table}")
    assert {k: v[:-1] for k, v in got.items()} == WANT
    assert len({v[-1] for v in got.values()}) == len(WANT)  # one live row id per row
    version = acid.sql(f"DESCRIBE HISTORY {table}").collect()[0][0]
    assert _spark_rows(acid, f"SELECT {', '.join(NAMES)} FROM {table} VERSION AS OF {version}") == WANT


@pytest.mark.parametrize("table", [*ACID_TABLES, "p_orc", "p_parquet"])
def test_read_table_reads_the_same(matrix, table):
    _, warehouse = matrix
    assert _arrow_rows(hiveacid_sql.read_table(table, warehouse=warehouse)) == WANT


@pytest.mark.parametrize("table", ["m_values", "m_update_tasks", "m_major"])
def test_dump_shows_the_proleptic_days(matrix, table):
    """`hiveacid-sql dump` prints each inserted event's date as written (both ORC writers, and the compactor)."""
    _, warehouse = matrix
    dates = set()
    for path in sorted(Path(warehouse, table).rglob("bucket_*")):
        for event in dump_events(path):
            if event.get("row") is not None:
                dates.add(event["row"]["dt"])
    assert {"0001-01-01", "1582-10-04", "1582-10-15", "1899-12-31", "1970-01-01", "9999-12-31"} <= {str(d) for d in dates}


def test_38_digit_decimal_next_to_a_timestamp(acid):
    """A table with a timestamp column is written by the pyorc writer, whose decimal rule compared the value
    after rounding it to Python's default 28 digits: 38 digits became NULL."""
    acid.sql(f"CREATE TABLE wide (id int, dec decimal(38,18), ts timestamp) {ACID}")
    acid.sql("INSERT INTO wide VALUES (1, 99999999999999999999.999999999999999999, TIMESTAMP '0001-01-01 00:00:00'), "
             "(2, -99999999999999999999.999999999999999999, TIMESTAMP '2001-01-01 00:00:00')")
    got = {r.id: r.dec for r in acid.sql("SELECT id, dec FROM wide").collect()}
    assert got == {1: Decimal("99999999999999999999.999999999999999999"),
                   2: Decimal("-99999999999999999999.999999999999999999")}


def test_the_arrow_orc_writer_writes_every_value_exactly(matrix):
    """The other event writer: INSERT ... SELECT and UPDATE through tasks of a table without timestamps."""
    import io

    from hiveacid_sql.acid.hive_types import parse_hive_type
    from hiveacid_sql.acid.orc_fast_writer import FastAcidEventWriter, open_event_writer

    acid, warehouse = matrix
    columns = [(c.split()[0], parse_hive_type(c.split(maxsplit=1)[1])) for c in ARROW_COLUMNS]
    assert isinstance(open_event_writer(io.BytesIO(), columns), FastAcidEventWriter)
    keep = [NAMES.index(n) for n in ARROW_NAMES]
    want = {k: tuple(v[i] for i in keep) for k, v in WANT.items()}
    got = _spark_rows(acid, f"SELECT {', '.join(ARROW_NAMES)} FROM m_arrow")
    assert got == want, _diff(got, want)
    table = hiveacid_sql.read_table("m_arrow", warehouse=warehouse).select(ARROW_NAMES)
    rows = {}
    for row in table.to_pylist():
        row["m"] = dict(row["m"]) if isinstance(row["m"], list) else row["m"]
        row["st"] = None if row["st"] is None else (row["st"]["x"], row["st"]["y"])
        rows[row["id"]] = _norm(tuple(row[n] for n in ARROW_NAMES))
    assert rows == want
