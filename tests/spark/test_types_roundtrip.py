"""Every Hive type round-trips through INSERT ... VALUES / INSERT ... SELECT -> ORC -> SELECT, unchanged."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

from tests.support.acid_files import events, schema

C = 10  # position of the char(5) column in COLS

ALL_TYPES = (
    "id int, ti tinyint, si smallint, i int, bi bigint, f float, d double, dec decimal(10,2), "
    "s string, vc varchar(3), c char(5), b boolean, dt date, ts timestamp, bin binary, "
    "arr array<int>, m map<string,int>, st struct<a:int,b:string>, "
    "nested array<struct<x:map<string,array<decimal(5,1)>>,y:timestamp>>"
)
COLS = "id, ti, si, i, bi, f, d, dec, s, vc, c, b, dt, ts, bin, arr, m, st, nested"

ROW_MIN = (
    "(1, -128, -32768, -2147483648, -9223372036854775808, CAST(-1.5 AS float), -2.25, 1.5, "
    "'hello', 'abcdef', 'ab', true, DATE '1969-07-20', TIMESTAMP '1969-07-20 20:17:40.123456', "
    "unhex('00FF10'), array(1, NULL, 3), map('k', 1, 'n', NULL), named_struct('a', 7, 'b', 'x'), "
    "array(named_struct('x', map('p', array(CAST(1.5 AS decimal(5,1)), NULL)), "
    "'y', TIMESTAMP '1900-01-01 00:00:00.000001')))"
)
ROW_MAX = (
    "(2, 127, 32767, 2147483647, 9223372036854775807, CAST(3.5 AS float), 1.0E300, -99999999.99, "
    "'', 'ab', 'abcde', false, DATE '9999-12-31', TIMESTAMP '2999-12-31 23:59:59.999999', "
    "unhex(''), array(), map(), named_struct('a', NULL, 'b', NULL), array())"
)
ROW_NULL = "(3" + ", NULL" * 18 + ")"

EXPECTED = {
    1: (1, -128, -32768, -2147483648, -9223372036854775808, -1.5, -2.25, Decimal("1.50"),
        "hello", "abc", "ab   ", True, dt.date(1969, 7, 20), dt.datetime(1969, 7, 20, 20, 17, 40, 123456),
        bytearray(b"\x00\xff\x10"), [1, None, 3], {"k": 1, "n": None}, (7, "x"),
        [((({"p": [Decimal("1.5"), None]}), dt.datetime(1900, 1, 1, 0, 0, 0, 1)))]),
    2: (2, 127, 32767, 2147483647, 9223372036854775807, 3.5, 1.0e300, Decimal("-99999999.99"),
        "", "ab", "abcde", False, dt.date(9999, 12, 31), dt.datetime(2999, 12, 31, 23, 59, 59, 999999),
        bytearray(b""), [], {}, (None, None), []),
    3: (3,) + (None,) * 18,
}


def _plain(value):
    """Spark Row / list / dict values as plain tuples, lists and dicts (for ==)."""
    if isinstance(value, tuple):  # Row is a tuple
        return tuple(_plain(v) for v in value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _rows(acid, table: str) -> dict[int, tuple]:
    return {r.id: _plain(tuple(r)) for r in acid.sql(f"SELECT {COLS} FROM {table} ORDER BY id").collect()}


def _no_char(rows: dict[int, tuple]) -> dict[int, tuple]:
    """Rows without the char column (its read-back is covered by test_char_reads_back_padded)."""
    return {k: v[:C] + v[C + 1:] for k, v in rows.items()}


def _bucket(table_dir: Path, prefix: str) -> Path:
    [directory] = [p for p in sorted(table_dir.iterdir()) if p.name.startswith(prefix)]
    return directory / "bucket_00000"


def _make(acid, name: str) -> None:
    acid.sql(f"CREATE TABLE {name} ({ALL_TYPES}) STORED AS ORC TBLPROPERTIES ('transactional'='true')")


def test_values_roundtrip_with_edges_and_nulls(acid):
    _make(acid, "t")
    result = acid.sql(f"INSERT INTO t VALUES {ROW_MIN}, {ROW_MAX}, {ROW_NULL}")
    assert result.num_inserted_rows == 3
    assert _no_char(_rows(acid, "t")) == _no_char(EXPECTED)


def test_char_reads_back_padded(acid):
    acid.sql("CREATE TABLE t (id int, c char(5), a array<char(3)>) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO t VALUES (1, 'ab', array('x', 'yz')), (2, 'abcde', NULL), (3, NULL, array(NULL))")
    assert [tuple(r) for r in acid.sql("SELECT id, c, a FROM t ORDER BY id").collect()] == [
        (1, "ab   ", ["x  ", "yz "]), (2, "abcde", None), (3, None, [None])]


def test_spark_types_of_select(acid):
    _make(acid, "t")
    fields = {f.name: f.dataType.simpleString() for f in acid.sql("SELECT * FROM t").schema.fields}
    assert fields == {
        "id": "int", "ti": "tinyint", "si": "smallint", "i": "int", "bi": "bigint", "f": "float",
        "d": "double", "dec": "decimal(10,2)", "s": "string", "vc": "string", "c": "string",
        "b": "boolean", "dt": "date", "ts": "timestamp_ntz", "bin": "binary", "arr": "array<int>",
        "m": "map<string,int>", "st": "struct<a:int,b:string>",
        "nested": "array<struct<x:map<string,array<decimal(5,1)>>,y:timestamp_ntz>>",
    }


def test_insert_select_roundtrip(acid):
    _make(acid, "src")
    _make(acid, "dst")
    acid.sql(f"INSERT INTO src VALUES {ROW_MIN}, {ROW_MAX}, {ROW_NULL}")
    result = acid.sql("INSERT INTO dst SELECT * FROM src")
    assert result.num_inserted_rows == 3
    assert _no_char(_rows(acid, "dst")) == _no_char(EXPECTED)
    # and from a query with expressions that must be cast to the column types
    acid.sql(
        "INSERT INTO dst SELECT id + 10, ti, si, i, bi, f, d, dec * 2, concat(s, '!'), vc, c, b, "
        "date_add(dt, 1), ts, bin, arr, m, st, nested FROM src WHERE id = 1"
    )
    row = _rows(acid, "dst")[11]
    assert row[7] == Decimal("3.00") and row[8] == "hello!" and row[12] == dt.date(1969, 7, 21)
    kept = [1, 2, 3, 4, 5, 6, 9, 11, 13, 14, 15, 16, 17, 18]
    assert [row[i] for i in kept] == [EXPECTED[1][i] for i in kept]


def test_orc_file_has_the_exact_hive_types(acid, warehouse):
    _make(acid, "t")
    acid.sql(f"INSERT INTO t VALUES {ROW_MIN}, {ROW_NULL}")
    bucket = _bucket(warehouse / "t", "delta_")
    assert schema(bucket) == (
        "struct<operation:int,originalTransaction:bigint,bucket:int,rowId:bigint,currentTransaction:bigint,"
        "row:struct<id:int,ti:tinyint,si:smallint,i:int,bi:bigint,f:float,d:double,dec:decimal(10,2),"
        "s:string,vc:varchar(3),c:char(5),b:boolean,dt:date,ts:timestamp,bin:binary,arr:array<int>,"
        "m:map<string,int>,st:struct<a:int,b:string>,"
        "nested:array<struct<x:map<string,array<decimal(5,1)>>,y:timestamp>>>>"
    )
    rows = {e["row"]["id"]: e["row"] for e in events(bucket)}
    # the bytes on disk hold Hive's values: padded char, truncated varchar, scale-2 decimal, wall-clock ts
    assert rows[1]["vc"] == "abc" and rows[1]["c"] == "ab   " and rows[1]["dec"] == "1.50"
    assert rows[1]["ts"] == "1969-07-20 20:17:40.123456+00:00"  # pyorc reads ORC timestamps as UTC
    assert rows[1]["dt"] == "1969-07-20"
    assert rows[3] == {k: (3 if k == "id" else None) for k in rows[3]}


def _zone_roundtrip(acid, spark, column_type: str, literal) -> tuple[list, dict, dict]:
    """Insert in UTC, then insert and read in New York, then read in UTC again."""
    acid.sql(f"CREATE TABLE ts (id int, v {column_type}) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql(f"INSERT INTO ts VALUES (1, {literal('2021-03-14 02:30:00.000001')}), (3, NULL)")
    utc = [tuple(r) for r in acid.sql("SELECT id, v FROM ts ORDER BY id").collect()]
    spark.conf.set("spark.sql.session.timeZone", "America/New_York")
    try:
        acid.sql(f"INSERT INTO ts VALUES (2, {literal('1901-11-07 01:30:00.5')})")
        acid.sql("INSERT INTO ts SELECT id + 10, v FROM ts WHERE id = 1")
        ny = {r.id: r.v for r in acid.sql("SELECT id, v FROM ts").collect()}
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    back = {r.id: r.v for r in acid.sql("SELECT id, v FROM ts").collect()}
    return utc, ny, back


def test_timestamps_are_wall_clock_whatever_the_session_time_zone(acid, spark):
    utc, ny, back = _zone_roundtrip(acid, spark, "timestamp", lambda v: f"TIMESTAMP '{v}'")
    first = dt.datetime(2021, 3, 14, 2, 30, 0, 1)  # does not exist in New York (DST gap): still read as is
    expected = {1: first, 2: dt.datetime(1901, 11, 7, 1, 30, 0, 500000), 3: None, 11: first}
    assert utc == [(1, first), (3, None)]
    assert ny == expected
    assert back == expected


def test_nested_timestamps_are_wall_clock_whatever_the_session_time_zone(acid, spark):
    utc, ny, back = _zone_roundtrip(
        acid, spark, "array<struct<t:timestamp>>", lambda v: f"array(named_struct('t', TIMESTAMP '{v}'))"
    )
    first = [(dt.datetime(2021, 3, 14, 2, 30, 0, 1),)]
    expected = {1: first, 2: [(dt.datetime(1901, 11, 7, 1, 30, 0, 500000),)], 3: None, 11: first}
    assert [(i, _plain(v)) for i, v in utc] == [(1, first), (3, None)]
    assert {k: _plain(v) for k, v in ny.items()} == expected
    assert {k: _plain(v) for k, v in back.items()} == expected


def test_update_a_row_with_all_types(acid, warehouse):
    _make(acid, "t")
    acid.sql(f"INSERT INTO t VALUES {ROW_MIN}, {ROW_MAX}, {ROW_NULL}")
    result = acid.sql(
        "UPDATE t SET ti = ti + 1, dec = dec + 0.005, vc = 'wxyz', c = 'q', dt = DATE '1600-02-29', "
        "ts = TIMESTAMP '1600-02-29 00:00:00.000009', arr = array(9), m = map('z', 26), "
        "st = named_struct('a', 1, 'b', 'bee'), bin = unhex('AB') WHERE id = 1"
    )
    assert result.num_updated_rows == 1
    rows = _no_char(_rows(acid, "t"))
    assert rows[2] == _no_char(EXPECTED)[2] and rows[3] == _no_char(EXPECTED)[3]
    updated = list(EXPECTED[1])
    updated[1] = -127
    updated[7] = Decimal("1.51")
    updated[9] = "wxy"
    updated[12] = dt.date(1600, 2, 29)
    updated[13] = dt.datetime(1600, 2, 29, 0, 0, 0, 9)
    updated[15] = [9]
    updated[16] = {"z": 26}
    updated[17] = (1, "bee")
    updated[14] = bytearray(b"\xab")
    assert rows[1] == _no_char({1: tuple(updated)})[1]
    # the new version of row 1 is in the update's delta, with the ORC types kept
    delta = _bucket(warehouse / "t", "delta_0000002")
    [event] = events(delta)
    assert event["row"]["vc"] == "wxy" and event["row"]["c"] == "q    " and event["row"]["dec"] == "1.51"
    assert "vc:varchar(3),c:char(5)" in schema(delta)


def test_plain_orc_timestamps_are_orc_timestamps_hive_can_read(acid, warehouse):
    import datetime
    import glob

    acid.sql("CREATE TABLE p (id int, ts timestamp, c char(4), v varchar(2)) STORED AS ORC")
    acid.sql("INSERT INTO p VALUES (1, '2020-01-01 12:30:05.123456', 'ab', 'xyz')")
    files = [f for f in glob.glob(str(warehouse / "p" / "*.orc"))]
    assert files and all("ts:timestamp" in schema(f) for f in files)  # not Spark's tagged bigint
    row = acid.sql("SELECT * FROM p").collect()[0]
    assert (row.ts, row.c, row.v) == (datetime.datetime(2020, 1, 1, 12, 30, 5, 123456), "ab  ", "xy")
