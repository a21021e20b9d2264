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

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.orc_fast_writer import FastAcidEventWriter, open_event_writer
from hiveacid_sql.acid.orc_writer import AcidEventWriter
from hiveacid_sql.errors import AcidFormatError
from tests.support.event_file_cases import (
    ALL_ARROW_ROW,
    ALL_COLUMNS,
    ALL_TYPES,
    ARROW_INPUT_ROWS,
    B0,
    EMPLOYEE,
    EMPLOYEE_ROW,
    EXPECTED_ARROW,
    STRIPE_CASES,
    TS_COLUMNS,
    TS_ROW,
    UTC,
    WRITERS,
    bucket_value,
    check_all_types,
    check_deletes,
    check_empty,
    check_stripes,
    check_walkthrough_insert,
    check_walkthrough_update,
    delete_events,
    insert_events,
    open_writer,
    read_all,
    write_file,
)


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
    check_walkthrough_insert(path, write_file(kind, path, EMPLOYEE, batches))


def test_walkthrough_update(kind: str, tmp_path: Path) -> None:
    delete_path = tmp_path / "delete_bucket_00000"
    insert_path = tmp_path / "insert_bucket_00000"
    # a delete batch may type ``row`` as the table struct or as Arrow null
    dstats = write_file(kind, delete_path, EMPLOYEE, [delete_events([(1, B0, 1)], 2, EMPLOYEE_ROW)])
    tom = insert_events(2, B0, [{"id": 2, "name": "Tom", "salary": 7000}], EMPLOYEE_ROW)
    istats = write_file(kind, insert_path, EMPLOYEE, [tom])
    check_walkthrough_update(delete_path, dstats, insert_path, istats)


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


@pytest.mark.parametrize(("n", "stripes", "key_index"), STRIPE_CASES)
def test_multi_stripe_key_index(kind: str, tmp_path: Path, n: int, stripes: int, key_index: str) -> None:
    """Batches of 7 events cross stripe boundaries of 10; uncompressed, both writers cut exactly there."""
    path = tmp_path / "bucket_00000"
    rows = [{"id": i, "name": f"name{i}", "salary": i * 10} for i in range(n)]
    events = insert_events(7, B0, rows, EMPLOYEE_ROW)
    batches = [events.slice(i, 7) for i in range(0, n, 7)]
    stats = write_file(kind, path, EMPLOYEE, batches, rows_per_stripe=10, compression="none")
    check_stripes(path, stats, n, stripes, key_index)


def test_multi_stripe_deletes_over_several_write_ids(kind: str, tmp_path: Path) -> None:
    """2400 deletes, 600 per stripe: ORC C++ encodes more than one run of 512 integers per stripe, so even
    the Arrow writer (which lets ORC measure stripes in encoded bytes) cuts exactly there."""
    path = tmp_path / "bucket_00000"
    keys = sorted(
        (owid, bucket_value(b, s), rid)
        for owid in (1, 2)
        for b in (0, 1)
        for s in (0, 1)
        for rid in range(300)
    )
    batches = [delete_events(keys[i : i + 500], 9) for i in range(0, len(keys), 500)]
    stats = write_file(kind, path, EMPLOYEE, batches, rows_per_stripe=600, compression="none")
    check_deletes(path, stats, keys, per_stripe=600)


def test_empty_writer(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "bucket_00000"
    check_empty(path, write_file(kind, path, EMPLOYEE, [insert_events(1, B0, [], EMPLOYEE_ROW)]))


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
    check_all_types(path, EXPECTED_ARROW)

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


# -- Hive value rules: both writers agree with hand-written values ------------------------------------------

RULE_COLUMNS = [
    ("v", parse_hive_type("varchar(3)")),
    ("c", parse_hive_type("char(3)")),
    ("d", parse_hive_type("decimal(4,2)")),
    ("i", parse_hive_type("decimal(5,1)")),
    ("t", parse_hive_type("tinyint")),
]
RULE_ROW = pa.struct(
    [
        ("V", pa.large_string()),  # top-level names compare case-insensitively
        ("c", pa.string()),
        ("d", pa.decimal128(6, 3)),
        ("i", pa.int64()),
        ("t", pa.int32()),
    ]
)


def test_hive_value_rules(kind: str, tmp_path: Path) -> None:
    rows = [
        {"V": "☃éxyz", "c": "é", "d": Decimal("-0.005"), "i": 1234, "t": -128},  # HALF_UP: away from zero
        {"V": "ab", "c": "☃☃☃☃", "d": Decimal("99.995"), "i": -9999, "t": 127},  # 100.00 needs 5 digits: NULL
        {"V": "", "c": "", "d": Decimal("12.344"), "i": 10000, "t": 0},  # 10000.0 needs 6 digits: NULL
        {"V": None, "c": None, "d": None, "i": None, "t": None},
    ]
    path = tmp_path / "b"
    write_file(kind, path, RULE_COLUMNS, [insert_events(1, B0, rows, RULE_ROW)])
    got, _, schema, _ = read_all(path)
    assert schema.endswith("row:struct<v:varchar(3),c:char(3),d:decimal(4,2),i:decimal(5,1),t:tinyint>>")
    assert [r[5] for r in got] == [
        ("☃éx", "é  ", Decimal("-0.01"), Decimal("1234.0"), -128),
        ("ab", "☃☃☃", None, Decimal("-9999.0"), 127),
        ("", "   ", Decimal("12.34"), None, 0),
        (None, None, None, None, None),
    ]
    assert [str(r[5][2]) for r in got[:1]] == ["-0.01"]

    w = open_writer(kind, io.BytesIO(), RULE_COLUMNS, path="p")
    with pytest.raises(AcidFormatError, match=r"^p: column t: cannot store int32 values as int8"):
        w.write_batch(insert_events(1, B0, [{"V": "a", "c": "b", "d": None, "i": 1, "t": 300}], RULE_ROW))
    assert w.close().rows == 0  # pyorc would have stored 300 as 44


# -- timestamps: the Arrow writer's one gap ---------------------------------------------------------------


def test_fast_writer_refuses_fractional_timestamps_before_1970() -> None:
    """pyarrow's ORC writer would store negative nanoseconds (Spark: "nanos > 999999999 or < 0")."""
    buf = io.BytesIO()
    w = FastAcidEventWriter(buf, TS_COLUMNS, path="x")
    w.write_batch(insert_events(1, B0, [{"t": dt.datetime(1969, 12, 31, 23, 59, 59)}], TS_ROW))
    for value in (dt.datetime(1900, 3, 4, 5, 6, 7, 891011), dt.datetime(1969, 12, 31, 23, 59, 59, 999999)):
        with pytest.raises(
            AcidFormatError, match=r"^x: column t: the Arrow ORC writer cannot store .* pyorc writer"
        ):
            w.write_batch(insert_events(1, B0, [{"t": value}], TS_ROW, first_row_id=1))
    nested = [("s", parse_hive_type("struct<a:array<timestamp>>"))]
    nested_row = pa.struct([("s", pa.struct([("a", pa.list_(pa.timestamp("us")))]))])
    n = FastAcidEventWriter(io.BytesIO(), nested)
    with pytest.raises(
        AcidFormatError, match=r"column s\.a\[\]: the Arrow ORC writer cannot store 1960-01-01 00:00:00.5"
    ):
        n.write_batch(
            insert_events(1, B0, [{"s": {"a": [dt.datetime(1960, 1, 1, 0, 0, 0, 500000)]}}], nested_row)
        )
    assert w.close().rows == 1
    buf.seek(0)
    assert [r[5] for r in pyorc.Reader(buf)] == [(dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC),)]

    # the pyorc writer stores them (with ORC's own quirk for the last second before 1970)
    buf = io.BytesIO()
    p = AcidEventWriter(buf, TS_COLUMNS)
    p.write_batch(insert_events(1, B0, [{"t": dt.datetime(1900, 3, 4, 5, 6, 7, 891011)}], TS_ROW))
    p.close()
    buf.seek(0)
    assert [r[5] for r in pyorc.Reader(buf)] == [(dt.datetime(1900, 3, 4, 5, 6, 7, 891011, tzinfo=UTC),)]


def test_open_event_writer_is_the_seam() -> None:
    assert isinstance(open_event_writer(io.BytesIO(), EMPLOYEE), FastAcidEventWriter)
    assert isinstance(open_event_writer(io.BytesIO(), ALL_COLUMNS), AcidEventWriter)  # timestamp columns
    nested = [("s", parse_hive_type("map<int,array<struct<t:timestamp>>>"))]
    assert isinstance(open_event_writer(io.BytesIO(), nested), AcidEventWriter)
    assert isinstance(open_event_writer(io.BytesIO(), ALL_COLUMNS, writer="fast"), FastAcidEventWriter)
    assert isinstance(open_event_writer(io.BytesIO(), EMPLOYEE, writer="pyorc"), AcidEventWriter)
    odd = open_event_writer(io.BytesIO(), EMPLOYEE, writer="pyorc", rows_per_stripe=12_345)
    odd.write_batch(_employee(3))
    assert odd.close().rows == 3
    with pytest.raises(AcidFormatError, match="unknown event writer 'java'"):
        open_event_writer(io.BytesIO(), EMPLOYEE, writer="java")
    with pytest.raises(AcidFormatError, match="compression"):
        FastAcidEventWriter(io.BytesIO(), EMPLOYEE, compression="lzo")


# -- the Arrow writer's file tail matches the pyorc writer's ------------------------------------------------


@pytest.mark.parametrize("compression", ["zlib", "snappy", "zstd", "lz4", "none"])
def test_tail_matches_the_pyorc_writer(tmp_path: Path, compression: str) -> None:
    """Same types (char/varchar included), user metadata and ORC settings, for every compression."""
    events = insert_events(4, B0, ARROW_INPUT_ROWS, ALL_ARROW_ROW)
    files = {}
    for kind in WRITERS:
        files[kind] = tmp_path / kind
        write_file(kind, files[kind], ALL_COLUMNS, [events], compression=compression)
    readers = {}
    for kind, path in files.items():
        with path.open("rb") as f:
            r = pyorc.Reader(f)
            readers[kind] = (
                str(r.schema),
                dict(r.user_metadata),
                r.compression,
                r.compression_block_size,
                r.row_index_stride,
                r.num_of_stripes,
                r.format_version,
                list(r),
            )
    assert readers["fast"] == readers["pyorc"]
    assert readers["fast"][2] == {"none": pyorc.CompressionKind.NONE}.get(compression, readers["fast"][2])
    fast, slow = pa_orc.ORCFile(str(files["fast"])), pa_orc.ORCFile(str(files["pyorc"]))
    assert (fast.schema, fast.metadata, fast.compression, fast.compression_size) == (
        slow.schema,
        slow.metadata,
        slow.compression,
        slow.compression_size,
    )
    # the raw footer types: kind, children, names, lengths, precision and scale
    assert _types(files["fast"]) == _types(files["pyorc"])


def _types(path: Path) -> list[tuple]:
    from hiveacid_sql.acid.orc_tail import read_tail

    out = []
    for fields in read_tail(path.read_bytes()).types:
        values: dict[int, list] = {}
        for f in fields:
            values.setdefault(f.number, []).append(f.value)
        kind = values[1][0]
        out.append(
            (
                kind,
                values.get(2),
                values.get(3),
                values.get(4) if kind in (16, 17) else None,
                (values.get(5), values.get(6)) if kind == 14 else None,
            )
        )
    return out


# -- streaming, stripes and abandoned files -------------------------------------------------------------------


class NonSeekableStream:
    """A write-only stream like S3's: no seek, no tell, no read; records what arrives when."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.closed = False

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)

    def seek(self, *args: object) -> int:
        raise OSError("not seekable")

    def tell(self) -> int:
        raise OSError("not seekable")


def test_streams_to_non_seekable_outputs(tmp_path: Path) -> None:
    """Stripes leave as ORC writes them; only the last stripe and the tail wait for close()."""
    stream = NonSeekableStream()
    w = FastAcidEventWriter(stream, EMPLOYEE, rows_per_stripe=1000, compression="none")
    events = _employee(3500)
    for i in range(0, 3500, 700):
        w.write_batch(events.slice(i, 700))
    before_close = bytes(stream.data)
    assert len(before_close) > 3  # the header and three stripes are out already
    stats = w.close()
    assert (
        stats.stripes == 4
        and stats.key_index == "1,536870912,999;1,536870912,1999;1,536870912,2999;1,536870912,3499;"
    )
    r = pyorc.Reader(io.BytesIO(bytes(stream.data)))
    assert [len(s) for s in r.iter_stripes()] == [1000, 1000, 1000, 500]
    assert bytes(stream.data).startswith(before_close)  # nothing rewritten, only appended

    # a pyarrow.fs output stream (what S3FileSystem.open_output_stream returns), not seekable either
    import pyarrow.fs as pafs

    path = tmp_path / "bucket_00000"
    with pafs.LocalFileSystem().open_output_stream(str(path)) as out:
        assert not out.seekable()
        with FastAcidEventWriter(out, EMPLOYEE, path=str(path)) as w:
            w.write_batch(events)
    got, meta, _, _ = read_all(path)
    assert len(got) == 3500 and meta["hive.acid.stats"] == b"3500,0,0"


def test_key_index_follows_the_stripes_orc_wrote(tmp_path: Path) -> None:
    """zlib: 1000 delete events with consecutive row ids encode to a few bytes, below one compression
    block, so ORC keeps all 5000 in one stripe; incompressible inserts get a stripe per batch. Either way
    the key index holds the last key of every stripe ORC wrote (read back independently with pyorc)."""
    import random

    rnd = random.Random(7)
    deletes = delete_events([(1, B0, i) for i in range(5000)], 2)
    names = [
        "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(300)) for _ in range(3000)
    ]
    inserts = insert_events(
        3, B0, [{"id": i, "name": s, "salary": i} for i, s in enumerate(names)], EMPLOYEE_ROW
    )
    for name, events, expect_stripes in (("deletes", deletes, 1), ("inserts", inserts, 3)):
        path = tmp_path / name
        stats = write_file("fast", path, EMPLOYEE, [events], rows_per_stripe=1000)
        with path.open("rb") as f:
            r = pyorc.Reader(f)
            last_keys = [stripe.read()[-1][1:4] for stripe in r.iter_stripes()]
            key_index = r.user_metadata["hive.acid.key.index"].decode()
        assert key_index == "".join(f"{o},{b},{rid};" for o, b, rid in last_keys) == stats.key_index
        assert stats.stripes == len(last_keys)
        assert len(last_keys) == expect_stripes
        assert sum(1 for _ in key_index.split(";") if _) == stats.stripes


def test_abandoned_writer_writes_nothing_more() -> None:
    stream = NonSeekableStream()
    with pytest.raises(RuntimeError, match="task failed"):  # noqa: SIM117
        with FastAcidEventWriter(stream, EMPLOYEE, rows_per_stripe=100, compression="none") as w:
            w.write_batch(_employee(250))
            raise RuntimeError("task failed")
    size = len(stream.data)
    del w
    import gc

    gc.collect()
    assert len(stream.data) == size  # pyarrow's writer did not append a footer when collected
    with pytest.raises(pyorc.ParseError):
        pyorc.Reader(io.BytesIO(bytes(stream.data)))
