"""Plain TEXTFILE tables keep '' and NULL apart, as Hive's LazySimpleSerDe does: NULL is ``\\N``, '' is nothing.

Source: Hive's LazySimpleSerDe defaults (``serialization.null.format`` = ``\\N``, field separator Ctrl-A;
Hive's "Row Formats & SerDe" docs); a field of a non-string type that does not parse, the empty one
included, reads NULL (``LazyPrimitive``), binary is base64 (``LazyUtils.writePrimitiveUTF8``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from hiveacid_sql.errors import HiveAcidError

CTRL_A = "\u0001"


def test_empty_string_and_null_stay_apart_through_text_merge_and_insert_select(acid, warehouse):
    acid.sql("CREATE TABLE src (id int, s string)")  # TEXTFILE, Hive's default
    acid.sql("INSERT INTO src VALUES (1, ''), (2, NULL), (3, ' x ')")
    assert [tuple(r) for r in acid.sql("SELECT * FROM src ORDER BY id").collect()] == [(1, ""), (2, None), (3, " x ")]
    lines = sorted(
        line for f in (warehouse / "src").iterdir() if f.is_file() and not f.name.startswith((".", "_"))
        for line in f.read_text().splitlines()
    )
    assert lines == [f"1{CTRL_A}", f"2{CTRL_A}\\N", f"3{CTRL_A} x "]
    acid.sql("CREATE TABLE t (id int, s string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("MERGE INTO t USING src ON t.id = src.id WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.s)")
    acid.sql("INSERT INTO t SELECT id + 10, s FROM src")
    assert [tuple(r) for r in acid.sql("SELECT * FROM t ORDER BY id").collect()] == [
        (1, ""), (2, None), (3, " x "), (11, ""), (12, None), (13, " x ")
    ]


def test_hive_written_text_lines_read_as_hive_reads_them(acid, warehouse):
    """Lines as Hive writes them, and the short, long and unparseable ones Hive tolerates."""
    acid.sql("CREATE TABLE h (id int, s string, n int, b binary, d date, de decimal(5,2)) STORED AS TEXTFILE")
    acid.sql("INSERT INTO h VALUES (0, 'seed', 0, NULL, NULL, NULL)")
    table = warehouse / "h"
    (table / "000000_0").write_text(
        "\n".join(
            [
                CTRL_A.join(["1", "", "", "", "", ""]),  # '' string; '' int/binary/date/decimal
                CTRL_A.join(["2", "\\N", "\\N", "\\N", "\\N", "\\N"]),
                CTRL_A.join(["3", "abc", "x7", "AP8=", "2014-09-01", "1.005"]),
                "4",  # missing trailing fields
                CTRL_A.join(["5", "a", "5", "YQ==", "2014-09-01", "2", "extra", "fields"]),
            ]
        )
        + "\n"
    )
    rows = {r.id: tuple(r)[1:] for r in acid.sql("SELECT * FROM h").collect()}
    assert rows[1] == ("", None, bytearray(b""), None, None)
    assert rows[2] == (None, None, None, None, None)
    assert rows[3] == ("abc", None, bytearray(b"\x00\xff"), dt.date(2014, 9, 1), Decimal("1.01"))
    assert rows[4] == (None, None, None, None, None)
    assert rows[5] == ("a", 5, bytearray(b"a"), dt.date(2014, 9, 1), Decimal("2.00"))


def test_text_values_of_every_primitive_type_round_trip(acid):
    acid.sql(
        "CREATE TABLE v (id int, ti tinyint, si smallint, bi bigint, f float, d double, de decimal(38,18), "
        "s string, vc varchar(3), c char(4), bo boolean, dt date, ts timestamp, bin binary) STORED AS TEXTFILE"
    )
    acid.sql(
        "INSERT INTO v VALUES (1, -128, -32768, -9223372036854775808, CAST('NaN' AS float), CAST('-Infinity' AS double), "
        "-99999999999999999999.999999999999999999, 'ünï\\tcode ', 'abcd', 'é', false, DATE '0001-01-01', "
        "TIMESTAMP '9999-12-31 23:59:59.999999', unhex('000102')), "
        "(2, NULL, NULL, NULL, CAST('-0.0' AS float), 1.0E300, 0.000000000000000001, '', '', '', NULL, NULL, NULL, unhex(''))"
    )
    rows = {r.id: tuple(r)[1:] for r in acid.sql("SELECT * FROM v").collect()}
    one = rows[1]
    assert one[:3] == (-128, -32768, -9223372036854775808) and one[3] != one[3] and one[4] == float("-inf")
    assert one[5:] == (
        Decimal("-99999999999999999999.999999999999999999"), "ünï\tcode ", "abc", "é   ", False,
        dt.date(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999), bytearray(b"\x00\x01\x02"),
    )
    two = rows[2]
    assert str(two[3]) == "-0.0" and two[4] == 1.0e300 and two[5] == Decimal("0.000000000000000001")
    assert two[6:] == ("", "", "    ", None, None, None, bytearray(b""))


def _lines(warehouse, table: str) -> list[str]:
    return sorted(
        line for f in (warehouse / table).iterdir() if f.is_file() and not f.name.startswith((".", "_"))
        for line in f.read_text().splitlines()
    )


def test_arrays_maps_and_structs_use_hives_nested_separators(acid, warehouse):
    """LazySimpleSerDe.serialize: items of a row's array / entries of its map / fields of its struct are
    separated by \\002, a map's key from its value by \\003, each nesting level one separator further; NULL
    is \\N at every depth; an empty array or map is an empty field."""
    acid.sql("CREATE TABLE c (id int, a array<string>, m map<string,int>, s struct<x:int,y:string>, "
             "n array<map<string,array<int>>>) STORED AS TEXTFILE")
    acid.sql("INSERT INTO c VALUES "
             "(1, array('a', '', NULL), map('k', 1, 'e', NULL), named_struct('x', 1, 'y', ''), "
             "array(map('q', array(1, NULL)), NULL, map())), "
             "(2, NULL, NULL, NULL, NULL), "
             "(3, array(), map(), named_struct('x', NULL, 'y', NULL), array())")
    got = {r.id: tuple(r)[1:] for r in acid.sql("SELECT * FROM c").collect()}
    assert got[1] == (["a", "", None], {"k": 1, "e": None}, (1, ""), [{"q": [1, None]}, None, {}])
    assert got[2] == (None, None, None, None)
    assert got[3] == ([], {}, (None, None), [])
    a, b, c, d, e = (chr(i) for i in range(1, 6))
    maps = {f"k{c}1{b}e{c}\\N", f"e{c}\\N{b}k{c}1"}  # a map's entry order is Spark's
    line1 = next(line for line in _lines(warehouse, "c") if line.startswith("1"))
    fields = line1.split(a)
    assert fields[:2] == ["1", f"a{b}{b}\\N"] and fields[2] in maps
    assert fields[3:] == [f"1{b}", f"q{d}1{e}\\N{b}\\N{b}"]
    assert sorted(_lines(warehouse, "c"))[1:] == [
        a.join(["2", "\\N", "\\N", "\\N", "\\N"]), a.join(["3", "", "", f"\\N{b}\\N", ""]),
    ]


def test_hive_written_nested_text_reads_as_hive_reads_it(acid, warehouse):
    """LazyMap drops NULL keys and keeps the first of duplicate keys; LazyStruct reads missing trailing fields
    as NULL and ignores extra ones; a value of a non-string type that does not parse is NULL at any depth."""
    acid.sql("CREATE TABLE h (id int, a array<int>, m map<int,string>, s struct<x:int,y:string>) STORED AS TEXTFILE")
    a, b, c = (chr(i) for i in range(1, 4))
    (warehouse / "h" / "000000_0").write_text(
        a.join(["1", f"1{b}x{b}{b}\\N", f"1{c}one{b}1{c}uno{b}\\N{c}none{b}{c}empty{b}2", "5"]) + "\n"
        + a.join(["2", "", "", f"6{b}six{b}extra"]) + "\n"
    )
    got = {r.id: tuple(r)[1:] for r in acid.sql("SELECT * FROM h").collect()}
    assert got == {
        1: ([1, None, None, None], {1: "one", 2: None}, (5, None)),
        2: ([], {}, (6, "six")),
    }


def test_nesting_deeper_than_hives_separators_is_refused(acid):
    """LazySimpleSerDe has eight separators: seven levels of nesting (Hive refuses the table as it is created)."""
    seven = "array<" * 7 + "int" + ">" * 7
    acid.sql(f"CREATE TABLE deep (a {seven}) STORED AS TEXTFILE")
    acid.sql("INSERT INTO deep VALUES (" + "array(" * 7 + "1" + ")" * 8)
    assert acid.sql("SELECT a FROM deep").collect()[0].a == [[[[[[[1]]]]]]]
    message = r"^a TEXTFILE table cannot hold array<int> at nesting level 8: Number of levels of nesting supported " \
              r"for LazySimpleSerde is 7$"
    with pytest.raises(HiveAcidError, match=message):
        acid.sql(f"CREATE TABLE deeper (a array<{seven}>) STORED AS TEXTFILE")
    with pytest.raises(HiveAcidError, match=message):
        acid.sql(f"ALTER TABLE deep ADD COLUMNS (b array<{seven}>)")
    assert [r[0] for r in acid.sql("DESCRIBE deep").collect()] == ["a"]
    assert "deeper" not in [r[0] for r in acid.sql("SHOW TABLES").collect()]
