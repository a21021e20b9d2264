"""The ACID event writer produces exactly the rows, metadata and stripes Hive 3 writes (walkthrough §1-2)."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as pa_orc
import pyorc
import pytest

from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.orc_writer import EventFileStats, row_converter
from hiveacid_sql.errors import AcidFormatError
from tests.support.event_file_cases import (
    ALL_COLUMNS,
    ALL_TYPES,
    B0,
    EMPLOYEE,
    EXPECTED_PYORC,
    INPUT_ROWS,
    STRIPE_CASES,
    UTC,
    bucket_value,
    check_all_types,
    check_deletes,
    check_empty,
    check_stripes,
    check_walkthrough_insert,
    check_walkthrough_update,
)
from tests.support.row_events import RowEventWriter


def write_file(path: Path, columns, fill, **kwargs) -> EventFileStats:
    with path.open("wb") as f:
        w = RowEventWriter(f, columns, path=str(path), **kwargs)
        fill(w)
        return w.close()


def test_walkthrough_insert(tmp_path: Path) -> None:
    assert B0 == 536870912
    path = tmp_path / "delta_0000001_0000001_0000" / "bucket_00000"
    path.parent.mkdir()

    def fill(w: RowEventWriter) -> None:
        for i, row in enumerate([(1, "Jerry", 5000), (2, "Tom", 8000), (3, "Kate", 6000)]):
            w.insert(1, B0, i, row)

    check_walkthrough_insert(path, write_file(path, EMPLOYEE, fill))


def test_walkthrough_update(tmp_path: Path) -> None:
    delete_path = tmp_path / "delete_bucket_00000"
    insert_path = tmp_path / "insert_bucket_00000"
    dstats = write_file(delete_path, EMPLOYEE, lambda w: w.delete(1, B0, 1, 2))
    istats = write_file(insert_path, EMPLOYEE, lambda w: w.insert(2, B0, 0, (2, "Tom", 7000)))
    check_walkthrough_update(delete_path, dstats, insert_path, istats)


@pytest.mark.parametrize(("n", "stripes", "key_index"), STRIPE_CASES)
def test_multi_stripe_key_index(tmp_path: Path, n: int, stripes: int, key_index: str) -> None:
    path = tmp_path / "bucket_00000"

    def fill(w: RowEventWriter) -> None:
        for i in range(n):
            w.insert(7, B0, i, (i, f"name{i}", i * 10))

    stats = write_file(path, EMPLOYEE, fill, rows_per_stripe=10, batch_size=5)
    check_stripes(path, stats, n, stripes, key_index)


def test_multi_stripe_deletes_over_several_write_ids(tmp_path: Path) -> None:
    path = tmp_path / "bucket_00000"
    keys = sorted(
        (owid, bucket_value(b, s), rid) for owid in (1, 2) for b in (0, 1) for s in (0, 1) for rid in range(3)
    )

    def fill(w: RowEventWriter) -> None:
        for k in keys:
            w.delete(*k, 9)

    check_deletes(path, write_file(path, EMPLOYEE, fill, rows_per_stripe=4, batch_size=2), keys, per_stripe=4)


def test_empty_writer(tmp_path: Path) -> None:
    path = tmp_path / "bucket_00000"
    check_empty(path, write_file(path, EMPLOYEE, lambda w: None))


def test_ordering_violations() -> None:
    w = RowEventWriter(io.BytesIO(), EMPLOYEE, path="x/bucket_00000")
    w.insert(1, B0, 5, (1, "a", 1))
    with pytest.raises(AcidFormatError, match=r"duplicate.*\(1, 536870912, 5\) after \(1, 536870912, 5\)"):
        w.insert(1, B0, 5, (1, "a", 1))
    with pytest.raises(AcidFormatError, match=r"out-of-order.*\(1, 536870912, 4\) after \(1, 536870912, 5\)"):
        w.insert(1, B0, 4, (1, "a", 1))
    with pytest.raises(AcidFormatError, match="x/bucket_00000"):
        w.insert(0, B0, 9, (1, "a", 1))
    w.insert(1, B0, 7, (1, "a", 1))  # gaps are fine
    assert w.close().rows == 2

    # bucket compares as a signed int: a negative bucket sorts before a positive one
    d = RowEventWriter(io.BytesIO(), EMPLOYEE)
    d.delete(3, -5, 0, 4)
    d.delete(3, B0, 0, 4)
    with pytest.raises(AcidFormatError, match="out-of-order"):
        d.delete(3, -5, 1, 4)
    d.close()


def test_mixing_and_bad_arguments() -> None:
    w = RowEventWriter(io.BytesIO(), EMPLOYEE)
    w.insert(1, B0, 0, (1, "a", 1))
    with pytest.raises(AcidFormatError, match="delete event into a file of insert events"):
        w.delete(1, B0, 1, 2)
    with pytest.raises(AcidFormatError, match="3 column values"):
        w.insert(1, B0, 1, (1, "a"))
    with pytest.raises(AcidFormatError, match="bucket"):
        w.insert(1, 1 << 31, 2, (1, "a", 1))
    with pytest.raises(AcidFormatError, match="rowId"):
        w.insert(1, B0, -1, (1, "a", 1))
    w.close()
    with pytest.raises(AcidFormatError, match="closed"):
        w.insert(1, B0, 3, (1, "a", 1))

    d = RowEventWriter(io.BytesIO(), EMPLOYEE)
    d.delete(1, B0, 0, 2)
    with pytest.raises(AcidFormatError, match="insert event into a file of delete events"):
        d.insert(2, B0, 0, (1, "a", 1))
    d.close()

    with pytest.raises(AcidFormatError, match="multiple of batch_size"):
        RowEventWriter(io.BytesIO(), EMPLOYEE, rows_per_stripe=15, batch_size=10)
    with pytest.raises(AcidFormatError, match="compression"):
        RowEventWriter(io.BytesIO(), EMPLOYEE, compression="brotli")


def test_close_leaves_fileobj_open_and_context_manager() -> None:
    buf = io.BytesIO()
    with RowEventWriter(buf, EMPLOYEE, compression="none") as w:
        w.insert(1, B0, 0, (1, "a", 1))
    assert not buf.closed
    stats = w.close()  # idempotent
    assert stats.rows == 1
    buf.seek(0)
    assert pyorc.Reader(buf).compression == pyorc.CompressionKind.NONE


def test_all_types_round_trip(tmp_path: Path) -> None:
    convert = row_converter(ALL_COLUMNS)
    path = tmp_path / "bucket_00000"

    def fill(w: RowEventWriter) -> None:
        for i, row in enumerate(INPUT_ROWS):
            w.insert(4, B0, i, convert(row))

    write_file(path, ALL_COLUMNS, fill)
    check_all_types(path, EXPECTED_PYORC)

    # second reader: pyarrow reads the same values (it reads timestamps as int64 nanoseconds, so it
    # cannot represent years after 2262: that file gets 2262-01-01 instead of the year 9999 values)
    def far_future_free(row: dict) -> dict:
        row = dict(row)
        if row.get("c_timestamp") is not None and row["c_timestamp"].year == 9999:
            row["c_timestamp"] = dt.datetime(2262, 1, 1, 0, 0, 0, 999999)
        return row

    arrow_path = tmp_path / "bucket_00001"
    write_file(
        arrow_path,
        ALL_COLUMNS,
        lambda w: [w.insert(4, B0, i, convert(far_future_free(r))) for i, r in enumerate(INPUT_ROWS)],
    )
    table = pa_orc.ORCFile(str(arrow_path)).read()
    row = table.column("row").to_pylist()
    assert row[0]["c_decimal"] == Decimal("12345678.13")
    assert row[0]["c_char"] == "ab  "
    assert row[0]["c_varchar"] == "abc"
    assert row[0]["c_timestamp"] == dt.datetime(1900, 3, 4, 5, 6, 7, 891011)
    assert row[0]["c_map"] == [("k1", Decimal("1.3")), ("k2", None)]
    assert row[0]["c_struct"]["z"] == {"d": dt.date(2020, 1, 1), "t": None}
    assert row[1]["c_timestamp"] == dt.datetime(2262, 1, 1, 0, 0, 0, 999999)
    assert row[1]["c_struct"]["z"]["t"] == dt.datetime(1969, 12, 31, 23, 59, 59, 1)
    assert row[1]["c_decimal"] is None
    assert row[2] == {name: None for name, _ in ALL_TYPES}
    assert row[3]["c_decimal"] is None  # 99999999.995 rounds to 100000000.00: too many digits


def test_row_converter_from_pyarrow_batch() -> None:
    """The converter takes exactly what RecordBatch.to_pylist() produces."""
    schema = pa.schema(
        [
            ("id", pa.int32()),
            ("m", pa.map_(pa.string(), pa.int64())),
            ("s", pa.struct([("a", pa.int32()), ("b", pa.string())])),
            ("d", pa.decimal128(12, 4)),
            ("t", pa.timestamp("us")),
        ]
    )
    batch = pa.RecordBatch.from_pylist(
        [
            {
                "id": 1,
                "m": [("a", 1)],
                "s": {"a": 1, "b": "bb"},
                "d": Decimal("1.2345"),
                "t": dt.datetime(2020, 1, 1),
            },
            {"id": None, "m": None, "s": None, "d": None, "t": None},
        ],
        schema=schema,
    )
    columns = [
        ("id", parse_hive_type("int")),
        ("m", parse_hive_type("map<string,bigint>")),
        ("s", parse_hive_type("struct<a:int,b:char(1)>")),
        ("d", parse_hive_type("decimal(10,2)")),
        ("t", parse_hive_type("timestamp")),
    ]
    convert = row_converter(columns)
    rows = [convert(r) for r in batch.to_pylist()]
    assert rows == [
        (1, {"a": 1}, (1, "b"), Decimal("1.23"), dt.datetime(2020, 1, 1)),
        (None, None, None, None, None),
    ]


def test_row_converter_keeps_all_38_digits_of_a_decimal() -> None:
    """HiveDecimal holds 38 digits; Python's default decimal context only 28, and a value of 38 digits used to
    be compared after rounding to 28 (99999999999999999999.999999999999999999 became 1.0E+20: too wide, NULL)."""
    convert = row_converter([("d", parse_hive_type("decimal(38,18)")), ("e", parse_hive_type("decimal(38,0)"))])
    widest = Decimal("99999999999999999999.999999999999999999")
    assert convert({"d": widest, "e": Decimal(10**38 - 1)}) == (widest, Decimal(10**38 - 1))
    lowest = Decimal("-99999999999999999999.999999999999999999")  # not -widest: unary minus rounds to 28 digits
    assert convert({"d": lowest, "e": Decimal(1 - 10**38)}) == (lowest, Decimal(1 - 10**38))
    # one more digit does not fit: rounding the scale up overflows the precision (HiveDecimal: NULL)
    assert convert({"d": Decimal("99999999999999999999.9999999999999999995"), "e": Decimal(10**38)}) == (None, None)


def test_row_converter_fast_path_is_plain() -> None:
    single = row_converter([("a", HiveType("int"))])
    assert single({"a": 5}) == (5,)
    assert single({}) == (None,)
    many = row_converter(EMPLOYEE)
    assert many({"id": 1, "name": "x", "salary": 2}) == (1, "x", 2)
    assert many({"name": "x"}) == (None, "x", None)


def test_naive_timestamps_do_not_depend_on_process_time_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyorc's own converter reads naive datetimes in the local zone; ours treats them as wall clock."""
    import time

    columns = [("t", parse_hive_type("timestamp"))]
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        buf = io.BytesIO()
        with RowEventWriter(buf, columns) as w:
            w.insert(1, B0, 0, (dt.datetime(2020, 1, 1, 12, 0, 0, 999999),))
            w.insert(1, B0, 1, (dt.datetime(2020, 1, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))),))
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    buf.seek(0)
    got = [r[5][0] for r in pyorc.Reader(buf)]
    assert got == [
        dt.datetime(2020, 1, 1, 12, 0, 0, 999999, tzinfo=UTC),
        dt.datetime(2020, 1, 1, 10, 0, tzinfo=UTC),  # aware values: their UTC instant
    ]
