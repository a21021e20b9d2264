"""``write_batch`` (Arrow in) of the ACID event writers: the same files as the per-event API, for both
writers (pyorc, and the Arrow/ORC C++ writer), checked with pyorc, pyarrow and Spark."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as pa_orc
import pyorc
import pytest
from event_file_cases import (
    ALL_ARROW_ROW,
    ALL_COLUMNS,
    ALL_TYPES,
    ARROW_INPUT_ROWS,
    B0,
    EMPLOYEE,
    EMPLOYEE_ROW,
    EMPLOYEE_SCHEMA,
    EXPECTED_ARROW,
    UTC,
    bucket_value,
    delete_events,
    insert_events,
    read_all,
    same,
)

from hiveacid_sql.acid.orc_writer import AcidEventWriter, EventFileStats
from hiveacid_sql.errors import AcidFormatError

WRITERS = ["pyorc"]


def open_writer(kind: str, f, columns, *, rows_per_stripe: int | None = None, **kwargs):
    """A writer of ``kind``; a small ``rows_per_stripe`` also sets pyorc's batch size (it must divide it)."""
    if rows_per_stripe is not None:
        kwargs["rows_per_stripe"] = rows_per_stripe
        if kind == "pyorc":
            kwargs["batch_size"] = min(rows_per_stripe, 10_000)
    return AcidEventWriter(f, columns, **kwargs)


def write_file(kind: str, path: Path, columns, batches: list, **kwargs) -> EventFileStats:
    with path.open("wb") as f:
        w = open_writer(kind, f, columns, path=str(path), **kwargs)
        for b in batches:
            w.write_batch(b)
        return w.close()


@pytest.fixture(params=WRITERS)
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


# -- the walkthrough, through write_batch ------------------------------------------------------------------


def test_walkthrough_insert(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "delta_0000001_0000001_0000" / "bucket_00000"
    path.parent.mkdir()
    rows = [{"id": 1, "name": "Jerry", "salary": 5000}, {"id": 2, "name": "Tom", "salary": 8000}]
    batches = [
        insert_events(1, B0, rows, EMPLOYEE_ROW).to_batches()[0],  # a RecordBatch
        insert_events(1, B0, [{"id": 3, "name": "Kate", "salary": 6000}], EMPLOYEE_ROW, first_row_id=2),
    ]
    stats = write_file(kind, path, EMPLOYEE, batches)
    got, meta, schema, stripes = read_all(path)
    assert got == [
        (0, 1, 536870912, 0, 1, (1, "Jerry", 5000)),
        (0, 1, 536870912, 1, 1, (2, "Tom", 8000)),
        (0, 1, 536870912, 2, 1, (3, "Kate", 6000)),
    ]
    assert meta == {
        "hive.acid.key.index": b"1,536870912,2;",
        "hive.acid.stats": b"3,0,0",
        "hive.acid.version": b"2",
    }
    assert schema == EMPLOYEE_SCHEMA
    assert stripes == 1
    assert stats == EventFileStats(
        path=str(path),
        rows=3,
        inserts=3,
        deletes=0,
        stripes=1,
        key_index="1,536870912,2;",
        first_key=(1, B0, 0),
        last_key=(1, B0, 2),
    )
    table = pa_orc.ORCFile(str(path)).read()
    assert table.column_names == [
        "operation",
        "originalTransaction",
        "bucket",
        "rowId",
        "currentTransaction",
        "row",
    ]
    assert table.column("row").to_pylist()[1] == {"id": 2, "name": "Tom", "salary": 8000}


def test_walkthrough_update(kind: str, tmp_path: Path) -> None:
    delete_path = tmp_path / "delete_bucket_00000"
    insert_path = tmp_path / "insert_bucket_00000"
    # a delete batch may type ``row`` as the table struct or as Arrow null
    dstats = write_file(kind, delete_path, EMPLOYEE, [delete_events([(1, B0, 1)], 2, EMPLOYEE_ROW)])
    istats = write_file(
        kind,
        insert_path,
        EMPLOYEE,
        [insert_events(2, B0, [{"id": 2, "name": "Tom", "salary": 7000}], EMPLOYEE_ROW)],
    )

    got, meta, schema, _ = read_all(delete_path)
    assert got == [(2, 1, 536870912, 1, 2, None)]
    assert meta == {
        "hive.acid.key.index": b"1,536870912,1;",
        "hive.acid.stats": b"0,0,1",
        "hive.acid.version": b"2",
    }
    assert schema == EMPLOYEE_SCHEMA
    assert (dstats.inserts, dstats.deletes, dstats.rows) == (0, 1, 1)

    got, meta, _, _ = read_all(insert_path)
    assert got == [(0, 2, 536870912, 0, 2, (2, "Tom", 7000))]
    assert meta["hive.acid.key.index"] == b"2,536870912,0;"
    assert meta["hive.acid.stats"] == b"1,0,0"
    assert istats.key_index == "2,536870912,0;"

    table = pa_orc.ORCFile(str(delete_path)).read()
    assert table.column("row").to_pylist() == [None]
    assert table.column("currentTransaction").to_pylist() == [2]


def test_batches_of_any_shape(kind: str, tmp_path: Path) -> None:
    """Multi-chunk tables, sliced batches and empty batches all continue the same file."""
    names = [{"id": i, "name": f"n{i}", "salary": i * 10} for i in range(12)]
    full = insert_events(3, B0, names, EMPLOYEE_ROW)
    two_chunks = pa.concat_tables([full.slice(0, 2), full.slice(2, 3)])
    assert two_chunks.column("row").num_chunks == 2
    batches = [
        two_chunks,
        full.slice(5, 0),
        full.to_batches()[0].slice(5, 4),  # a sliced RecordBatch: offsets inside the struct
        full.slice(9),
    ]
    stats = write_file(kind, tmp_path / "b", EMPLOYEE, batches)
    got, meta, _, _ = read_all(tmp_path / "b")
    assert got == [(0, 3, B0, i, 3, (i, f"n{i}", i * 10)) for i in range(12)]
    assert meta["hive.acid.key.index"] == b"3,536870912,11;"
    assert (stats.rows, stats.first_key, stats.last_key) == (12, (3, B0, 0), (3, B0, 11))


@pytest.mark.parametrize(
    ("n", "stripes", "key_index"),
    [
        (25, 3, "7,536870912,9;7,536870912,19;7,536870912,24;"),
        (20, 2, "7,536870912,9;7,536870912,19;"),
        (10, 1, "7,536870912,9;"),
        (1, 1, "7,536870912,0;"),
    ],
)
def test_multi_stripe_key_index(kind: str, tmp_path: Path, n: int, stripes: int, key_index: str) -> None:
    """Batches of 7 events cross stripe boundaries of 10; uncompressed, both writers cut exactly there."""
    path = tmp_path / "bucket_00000"
    events = insert_events(
        7, B0, [{"id": i, "name": f"name{i}", "salary": i * 10} for i in range(n)], EMPLOYEE_ROW
    )
    batches = [events.slice(i, 7) for i in range(0, n, 7)]
    stats = write_file(kind, path, EMPLOYEE, batches, rows_per_stripe=10, compression="none")
    with path.open("rb") as f:
        r = pyorc.Reader(f)
        assert r.num_of_stripes == stripes
        assert [len(s) for s in r.iter_stripes()] == [min(10, n - 10 * k) for k in range(stripes)]
        assert r.user_metadata["hive.acid.key.index"] == key_index.encode()
        assert r.user_metadata["hive.acid.stats"] == f"{n},0,0".encode()
        assert [row[3] for row in r] == list(range(n))
    assert stats.stripes == stripes and stats.key_index == key_index
    assert pa_orc.ORCFile(str(path)).nstripes == stripes
    assert pa_orc.ORCFile(str(path)).read().num_rows == n


def test_multi_stripe_deletes_over_several_write_ids(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "bucket_00000"
    keys = sorted(
        (owid, bucket_value(b, s), rid) for owid in (1, 2) for b in (0, 1) for s in (0, 1) for rid in range(3)
    )
    batches = [delete_events(keys[i : i + 5], 9) for i in range(0, len(keys), 5)]
    stats = write_file(kind, path, EMPLOYEE, batches, rows_per_stripe=4, compression="none")
    assert stats.stripes == 6 and stats.deletes == 24
    got, meta, _, stripes = read_all(path)
    assert stripes == 6
    assert [(r[1], r[2], r[3]) for r in got] == keys
    assert all(r[0] == 2 and r[4] == 9 and r[5] is None for r in got)
    expected = "".join(f"{o},{b},{r};" for o, b, r in keys[3::4])
    assert meta["hive.acid.key.index"].decode() == expected
    assert meta["hive.acid.stats"] == b"0,0,24"


def test_empty_writer(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "bucket_00000"
    stats = write_file(kind, path, EMPLOYEE, [insert_events(1, B0, [], EMPLOYEE_ROW)])
    got, meta, schema, stripes = read_all(path)
    assert got == [] and stripes == 0 and schema == EMPLOYEE_SCHEMA
    assert meta == {"hive.acid.key.index": b"", "hive.acid.stats": b"0,0,0", "hive.acid.version": b"2"}
    assert stats.first_key is None and stats.last_key is None and stats.stripes == 0 and stats.rows == 0
    assert pa_orc.ORCFile(str(path)).read().num_rows == 0


# -- refused batches -----------------------------------------------------------------------------------------


def _employee(n: int, write_id: int = 1, first_row_id: int = 0) -> pa.Table:
    return insert_events(
        write_id, B0, [{"id": i, "name": "x", "salary": i} for i in range(n)], EMPLOYEE_ROW, first_row_id
    )


def _replace(table: pa.Table, name: str, values: list, type_: pa.DataType | None = None) -> pa.Table:
    i = table.column_names.index(name)
    return table.set_column(
        i,
        table.field(i).with_type(type_ or table.field(i).type),
        pa.array(values, type_ or table.field(i).type),
    )


BAD_INSERT_BATCHES: list[tuple[str, Callable[[], object]]] = [
    (
        r"duplicate event key \(1, 536870912, 5\) after \(1, 536870912, 5\)",
        lambda: _employee(1, first_row_id=5),
    ),
    (
        r"out-of-order event key \(1, 536870912, 4\) after \(1, 536870912, 5\)",
        lambda: _employee(1, first_row_id=4),
    ),
    (
        r"out-of-order event key \(1, 536870912, 6\) after \(1, 536870912, 7\)",
        lambda: _replace(_employee(3, first_row_id=6), "rowId", [6, 7, 6]),
    ),
    (r"out-of-order.*\(0, 536870912, 9\)", lambda: _employee(1, write_id=0, first_row_id=9)),
    (
        r"operation must be 0 \(insert\) or 2 \(delete\), got 1",
        lambda: _replace(_employee(1, first_row_id=9), "operation", [1]),
    ),
    (
        "one batch holds insert events and operation 2",
        lambda: _replace(_employee(2, first_row_id=9), "operation", [0, 2]),
    ),
    (
        "originalTransaction 1 != currentTransaction 4",
        lambda: _replace(_employee(1, first_row_id=9), "currentTransaction", [4]),
    ),
    (
        "insert events need a row: 1 NULL rows",
        lambda: _replace(_employee(1, first_row_id=9), "row", [None], EMPLOYEE_ROW),
    ),
    ("rowId -1 out of range", lambda: _replace(_employee(1, first_row_id=9), "rowId", [-1])),
    ("bucket must not be NULL", lambda: _replace(_employee(1, first_row_id=9), "bucket", [None])),
    (
        "rowId must be Arrow int64, got int32",
        lambda: _replace(_employee(1, first_row_id=9), "rowId", [9], pa.int32()),
    ),
    (
        "events must have the columns",
        lambda: _employee(1, first_row_id=9).rename_columns(["op", "a", "b", "c", "d", "row"]),
    ),
    ("events must be a pyarrow Table or RecordBatch", lambda: [(0, 1, B0, 9, 1, (1, "x", 1))]),
    (
        r"row fields \['id', 'salary', 'name'\] do not match the table columns",
        lambda: _replace(
            _employee(1, first_row_id=9),
            "row",
            [{"id": 1, "salary": 2, "name": "x"}],
            pa.struct([("id", pa.int32()), ("salary", pa.int32()), ("name", pa.string())]),
        ),
    ),
    (
        "column name: cannot write Arrow double values as Hive string",
        lambda: _replace(
            _employee(1, first_row_id=9),
            "row",
            [{"id": 1, "name": 2.5, "salary": 2}],
            pa.struct([("id", pa.int32()), ("name", pa.float64()), ("salary", pa.int32())]),
        ),
    ),
]


@pytest.mark.parametrize(("message", "make"), BAD_INSERT_BATCHES, ids=[m[:30] for m, _ in BAD_INSERT_BATCHES])
def test_refused_batch_writes_nothing(kind: str, message: str, make: Callable[[], object]) -> None:
    buf = io.BytesIO()
    w = open_writer(kind, buf, EMPLOYEE, path="x/bucket_00000")
    w.write_batch(_employee(6))  # keys (1, B0, 0..5)
    with pytest.raises(AcidFormatError, match=message) as err:
        w.write_batch(make())
    assert str(err.value).startswith("x/bucket_00000: ") and "\n" not in str(err.value)
    w.write_batch(_employee(2, first_row_id=7))  # gaps are fine
    stats = w.close()
    assert (stats.rows, stats.last_key, stats.key_index) == (8, (1, B0, 8), "1,536870912,8;")
    buf.seek(0)
    assert [r[3] for r in pyorc.Reader(buf)] == [0, 1, 2, 3, 4, 5, 7, 8]


def test_refused_delete_batches(kind: str) -> None:
    d = open_writer(kind, io.BytesIO(), EMPLOYEE)
    d.write_batch(delete_events([(3, -5, 0), (3, B0, 0)], 4))  # bucket compares as a signed int
    with pytest.raises(
        AcidFormatError, match=r"out-of-order event key \(3, -5, 1\) after \(3, 536870912, 0\)"
    ):
        d.write_batch(delete_events([(3, -5, 1)], 4))
    with pytest.raises(AcidFormatError, match="delete events carry no row: 1 non-NULL rows"):
        d.write_batch(
            _replace(
                delete_events([(4, B0, 0)], 4, EMPLOYEE_ROW),
                "row",
                [{"id": 1, "name": "a", "salary": 1}],
                EMPLOYEE_ROW,
            )
        )
    with pytest.raises(AcidFormatError, match="currentTransaction -1 out of range"):
        d.write_batch(delete_events([(4, B0, 0)], -1))
    with pytest.raises(AcidFormatError, match="insert event into a file of delete events"):
        d.write_batch(_employee(1, write_id=5))
    assert d.close().deletes == 2
    with pytest.raises(AcidFormatError, match="closed"):
        d.write_batch(delete_events([(5, B0, 0)], 6))

    w = open_writer(kind, io.BytesIO(), EMPLOYEE)
    w.write_batch(_employee(1))
    with pytest.raises(AcidFormatError, match="delete event into a file of insert events"):
        w.write_batch(delete_events([(1, B0, 1)], 2))
    w.close()


# -- every type ---------------------------------------------------------------------------------------------


def test_all_types_round_trip(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "bucket_00000"
    events = insert_events(4, B0, ARROW_INPUT_ROWS, ALL_ARROW_ROW)
    write_file(kind, path, ALL_COLUMNS, [events.slice(0, 1), events.slice(1)])
    got, meta, schema, _ = read_all(path)
    assert schema == (
        "struct<operation:int,originalTransaction:bigint,bucket:int,rowId:bigint,currentTransaction:bigint,"
        "row:struct<" + ",".join(f"{n}:{t}" for n, t in ALL_TYPES) + ">>"
    )
    assert meta["hive.acid.key.index"] == b"4,536870912,3;"
    assert len(got) == len(EXPECTED_ARROW)
    for got_row, want in zip(got, EXPECTED_ARROW, strict=True):
        assert got_row[:5] == (0, 4, B0, got_row[3], 4)
        for i, (g, e) in enumerate(zip(got_row[5], want, strict=True)):
            assert same(g, e), (ALL_TYPES[i], g, e)

    # pyarrow reads timestamps as int64 nanoseconds (nothing after 2262): a copy without year 9999
    arrow_path = tmp_path / "bucket_00001"
    rows = [dict(r) for r in ARROW_INPUT_ROWS]
    rows[1]["c_timestamp"] = dt.datetime(2262, 1, 1, 0, 0, 0, 999999)
    write_file(kind, arrow_path, ALL_COLUMNS, [insert_events(4, B0, rows, ALL_ARROW_ROW)])
    row = pa_orc.ORCFile(str(arrow_path)).read().column("row").to_pylist()
    assert row[0]["c_decimal"] == Decimal("12345678.13")
    assert row[0]["c_bigdec"] == Decimal("-12345678901234567890123456789012.123457")
    assert (row[0]["c_char"], row[0]["c_varchar"], row[1]["c_char"]) == ("ab  ", "abc", "abcd")
    assert row[0]["c_timestamp"] == dt.datetime(1900, 3, 4, 5, 6, 7)
    assert row[0]["c_map"] == [("k1", Decimal("1.3")), ("k2", None)]
    assert row[0]["c_array"] == [{"a": 1, "b": "xy"}, None, {"a": None, "b": None}]
    assert row[0]["c_struct"]["z"] == {"d": dt.date(2020, 1, 1), "t": None}
    assert row[1]["c_timestamp"] == dt.datetime(2262, 1, 1, 0, 0, 0, 999999)
    assert row[1]["c_struct"]["z"]["t"] == dt.datetime(1970, 1, 1, 0, 0, 0, 1)
    assert row[1]["c_decimal"] is None
    assert row[2] == {name: None for name, _ in ALL_TYPES}
    assert row[3]["c_decimal"] is None  # 99999999.995 rounds to 100000000.00: too many digits
    assert row[3]["c_bigdec"] == Decimal("7.000000")


def test_close_leaves_fileobj_open_and_context_manager(kind: str) -> None:
    buf = io.BytesIO()
    with open_writer(kind, buf, EMPLOYEE, compression="none") as w:
        w.write_batch(_employee(1))
    assert not buf.closed
    assert w.close().rows == 1  # idempotent
    buf.seek(0)
    assert pyorc.Reader(buf).compression == pyorc.CompressionKind.NONE


def test_timestamps_are_wall_clock(kind: str, tmp_path: Path) -> None:
    """Naive Arrow timestamps are the Hive wall clock; zoned ones are their UTC instant."""
    columns = [("t", ALL_COLUMNS[13][1])]
    values = [
        dt.datetime(1, 1, 1),
        dt.datetime(1582, 10, 4, 23, 59, 59),
        dt.datetime(1969, 12, 31, 23, 59, 59),
        dt.datetime(1970, 1, 1),
        dt.datetime(1970, 1, 1, 0, 0, 0, 1),
        dt.datetime(2024, 2, 29, 12, 30, 45, 123456),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
        None,
    ]
    naive = insert_events(1, B0, [{"t": v} for v in values], pa.struct([("t", pa.timestamp("us"))]))
    zoned = insert_events(
        1,
        B0,
        [{"t": dt.datetime(2020, 1, 1, 12, tzinfo=dt.timezone(dt.timedelta(hours=2)))}],
        pa.struct([("t", pa.timestamp("ms", tz="+02:00"))]),
        first_row_id=len(values),
    )
    path = tmp_path / "bucket_00000"
    write_file(kind, path, columns, [naive, zoned])
    got, _, _, _ = read_all(path)
    assert [r[5][0] for r in got] == [None if v is None else v.replace(tzinfo=UTC) for v in values] + [
        dt.datetime(2020, 1, 1, 10, tzinfo=UTC)
    ]
