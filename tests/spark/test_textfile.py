"""Plain TEXTFILE tables keep '' and NULL apart, as Hive's LazySimpleSerDe does: NULL is ``\\N``, '' is nothing.

Source: Hive's LazySimpleSerDe defaults (``serialization.null.format`` = ``\\N``, field separator Ctrl-A;
Hive's "Row Formats & SerDe" docs); a field of a non-string type that does not parse, the empty one
included, reads NULL (``LazyPrimitive``), binary is base64 (``LazyUtils.writePrimitiveUTF8``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

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
