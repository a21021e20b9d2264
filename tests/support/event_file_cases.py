"""Event-file cases shared by the tests of both ACID event writers (pyorc and Arrow): the walkthrough's
``employee`` table, every Hive type with edge values, and the values a reader must get back.

Expected values are written out by hand (Hive semantics), never computed by the code under test.
"""

from __future__ import annotations

import copy
import datetime as dt
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as pa_orc
import pyorc
import pytest

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.orc_fast_writer import FastAcidEventWriter
from hiveacid_sql.acid.orc_writer import AcidEventWriter, EventFileStats

EMPLOYEE = [
    ("id", parse_hive_type("int")),
    ("name", parse_hive_type("string")),
    ("salary", parse_hive_type("int")),
]
EMPLOYEE_SCHEMA = (
    "struct<operation:int,originalTransaction:bigint,bucket:int,rowId:bigint,currentTransaction:bigint,"
    "row:struct<id:int,name:string,salary:int>>"
)


def bucket_value(bucket: int, stmt: int) -> int:
    """BucketCodec V1, inlined (the codec module belongs to another layer)."""
    return 1 << 29 | bucket << 16 | stmt


B0 = bucket_value(0, 0)


def read_all(path: Path) -> tuple[list[tuple], dict[str, bytes], str, int]:
    with path.open("rb") as f:
        r = pyorc.Reader(f)
        return list(r), dict(r.user_metadata), str(r.schema), r.num_of_stripes


ALL_TYPES = [
    ("c_tinyint", "tinyint"),
    ("c_smallint", "smallint"),
    ("c_int", "int"),
    ("c_bigint", "bigint"),
    ("c_float", "float"),
    ("c_double", "double"),
    ("c_decimal", "decimal(10,2)"),
    ("c_bigdec", "decimal(38,6)"),
    ("c_string", "string"),
    ("c_varchar", "varchar(3)"),
    ("c_char", "char(4)"),
    ("c_boolean", "boolean"),
    ("c_date", "date"),
    ("c_timestamp", "timestamp"),
    ("c_binary", "binary"),
    ("c_array", "array<struct<a:int,b:varchar(2)>>"),
    ("c_map", "map<string,decimal(4,1)>"),
    ("c_struct", "struct<x:array<int>,y:map<int,string>,z:struct<d:date,t:timestamp>>"),
]
ALL_COLUMNS = [(n, parse_hive_type(t)) for n, t in ALL_TYPES]

INPUT_ROWS = [
    {  # typical values, as pyarrow RecordBatch.to_pylist() yields them
        "c_tinyint": -128,
        "c_smallint": 32767,
        "c_int": -(2**31),
        "c_bigint": 2**63 - 1,
        "c_float": 1.5,
        "c_double": -2.25e300,
        "c_decimal": Decimal("12345678.125"),  # HALF_UP -> 12345678.13
        "c_bigdec": Decimal("-12345678901234567890123456789012.1234565"),
        "c_string": "héllo ☃",
        "c_varchar": "abcdef",
        "c_char": "ab",
        "c_boolean": True,
        "c_date": dt.date(1, 1, 1),
        "c_timestamp": dt.datetime(1900, 3, 4, 5, 6, 7, 891011),
        "c_binary": b"\x00\xffab",
        "c_array": [{"a": 1, "b": "xyz"}, None, {"a": None, "b": None}],
        "c_map": [("k1", Decimal("1.25")), ("k2", None)],
        "c_struct": {"x": [1, None, 3], "y": [(1, "one")], "z": {"d": dt.date(2020, 1, 1), "t": None}},
    },
    {  # far future / edge values
        "c_tinyint": 127,
        "c_smallint": -32768,
        "c_int": 2**31 - 1,
        "c_bigint": -(2**63),
        "c_float": -0.0,
        "c_double": 0.1,
        "c_decimal": Decimal("123456789.99"),  # 9 integer digits > 8 allowed -> NULL as Hive
        "c_bigdec": Decimal("0.0000005"),  # HALF_UP at scale 6 -> 0.000001
        "c_string": "",
        "c_varchar": "ab",
        "c_char": "abcdefg",
        "c_boolean": False,
        "c_date": dt.date(9999, 12, 31),
        "c_timestamp": dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
        "c_binary": b"",
        "c_array": [],
        "c_map": {},
        "c_struct": {"x": [], "y": {}, "z": {"d": None, "t": dt.datetime(1969, 12, 31, 23, 59, 59, 1)}},
    },
    {name: None for name, _ in ALL_TYPES},  # NULLs everywhere
    {  # rounding: a value that rounds up past the precision becomes NULL
        "c_decimal": Decimal("99999999.995"),
        "c_bigdec": 7,
        "c_timestamp": dt.datetime(1970, 1, 1),
        "c_struct": {"x": None, "y": None, "z": None},
    },
]

UTC = dt.timezone.utc

EXPECTED_PYORC = [
    (
        -128,
        32767,
        -(2**31),
        2**63 - 1,
        1.5,
        -2.25e300,
        Decimal("12345678.13"),
        Decimal("-12345678901234567890123456789012.123457"),
        "héllo ☃",
        "abc",
        "ab  ",
        True,
        dt.date(1, 1, 1),
        dt.datetime(1900, 3, 4, 5, 6, 7, 891011, tzinfo=UTC),
        b"\x00\xffab",
        [(1, "xy"), None, (None, None)],
        {"k1": Decimal("1.3"), "k2": None},
        ([1, None, 3], {1: "one"}, (dt.date(2020, 1, 1), None)),
    ),
    (
        127,
        -32768,
        2**31 - 1,
        -(2**63),
        -0.0,
        0.1,
        None,
        Decimal("0.000001"),
        "",
        "ab",
        "abcd",
        False,
        dt.date(9999, 12, 31),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        b"",
        [],
        {},
        ([], {}, (None, dt.datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=UTC))),
    ),
    tuple([None] * len(ALL_TYPES)),
    (
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        Decimal("7.000000"),
        None,
        None,
        None,
        None,
        None,
        dt.datetime(1970, 1, 1, tzinfo=UTC),
        None,
        None,
        None,
        (None, None, None),
    ),
]


def same(a, b) -> bool:
    """Equality that compares timestamps as instants and tolerates float32 rounding."""
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=1e-6)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return a == b and a.as_tuple().exponent == b.as_tuple().exponent
    return a == b and type(a) is type(b)


# -- Arrow input (what a Spark task hands to ``write_batch``), typed explicitly ---------------------------

EMPLOYEE_ROW = pa.struct([("id", pa.int32()), ("name", pa.string()), ("salary", pa.int32())])

#: ALL_TYPES as Spark would hand them over (plus a few other accepted Arrow types: large_string,
#: decimal256 wider than the column, decimals with more digits than the column scale).
ALL_ARROW_ROW = pa.struct(
    [
        ("c_tinyint", pa.int8()),
        ("c_smallint", pa.int16()),
        ("c_int", pa.int32()),
        ("c_bigint", pa.int64()),
        ("c_float", pa.float32()),
        ("c_double", pa.float64()),
        ("c_decimal", pa.decimal128(12, 3)),
        ("c_bigdec", pa.decimal256(40, 7)),
        ("c_string", pa.string()),
        ("c_varchar", pa.string()),
        ("c_char", pa.large_string()),
        ("c_boolean", pa.bool_()),
        ("c_date", pa.date32()),
        ("c_timestamp", pa.timestamp("us")),
        ("c_binary", pa.binary()),
        ("c_array", pa.list_(pa.struct([("a", pa.int32()), ("b", pa.string())]))),
        ("c_map", pa.map_(pa.string(), pa.decimal128(3, 2))),
        (
            "c_struct",
            pa.struct(
                [
                    ("x", pa.list_(pa.int32())),
                    ("y", pa.map_(pa.int32(), pa.string())),
                    ("z", pa.struct([("d", pa.date32()), ("t", pa.timestamp("us"))])),
                ]
            ),
        ),
    ]
)


def _with(rows: list, changes: dict) -> list:
    """A copy of ``rows`` with ``{(row index, column or path of nested keys): value}`` replaced."""
    out = copy.deepcopy(rows)
    for (i, key), value in changes.items():
        *parents, last = key if isinstance(key, tuple) else (key,)
        target = out[i]
        for k in parents:
            target = target[k]
        target[last] = value
    return out


#: INPUT_ROWS for Arrow, where no timestamp is before 1970 with a fraction of a second (the Arrow ORC
#: writer cannot store those; test_acid_orc_fast_writer covers them on their own) and 7 is a Decimal.
ARROW_INPUT_ROWS = _with(
    INPUT_ROWS,
    {
        (0, "c_timestamp"): dt.datetime(1900, 3, 4, 5, 6, 7),
        (1, ("c_struct", "z", "t")): dt.datetime(1970, 1, 1, 0, 0, 0, 1),
        (3, "c_bigdec"): Decimal(7),
    },
)

#: EXPECTED_PYORC for ARROW_INPUT_ROWS (pyorc's tuple form: struct -> tuple, map -> dict).
EXPECTED_ARROW = copy.deepcopy(EXPECTED_PYORC)
EXPECTED_ARROW[0] = (
    *EXPECTED_PYORC[0][:13],
    dt.datetime(1900, 3, 4, 5, 6, 7, tzinfo=UTC),
    *EXPECTED_PYORC[0][14:],
)
EXPECTED_ARROW[1] = (
    *EXPECTED_PYORC[1][:17],
    ([], {}, (None, dt.datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=UTC))),
)


def insert_events(
    write_id: int, bucket: int, rows: list[dict], row_type: pa.DataType, first_row_id: int = 0
) -> pa.Table:
    """Insert events for ``rows`` with row ids ``first_row_id``.. (as the Spark insert task builds them)."""
    n = len(rows)
    return pa.table(
        {
            "operation": pa.array([0] * n, pa.int32()),
            "originalTransaction": pa.array([write_id] * n, pa.int64()),
            "bucket": pa.array([bucket] * n, pa.int32()),
            "rowId": pa.array(range(first_row_id, first_row_id + n), pa.int64()),
            "currentTransaction": pa.array([write_id] * n, pa.int64()),
            "row": pa.array(rows, row_type),
        }
    )


def delete_events(
    keys: list[tuple[int, int, int]], current_write_id: int, row_type: pa.DataType | None = None
) -> pa.Table:
    """Delete events for the ROW__IDs ``keys`` by ``current_write_id``, with a NULL ``row`` (Arrow null type
    unless ``row_type`` is given)."""
    n = len(keys)
    return pa.table(
        {
            "operation": pa.array([2] * n, pa.int32()),
            "originalTransaction": pa.array([k[0] for k in keys], pa.int64()),
            "bucket": pa.array([k[1] for k in keys], pa.int32()),
            "rowId": pa.array([k[2] for k in keys], pa.int64()),
            "currentTransaction": pa.array([current_write_id] * n, pa.int64()),
            "row": pa.nulls(n, row_type or pa.null()),
        }
    )


# -- checks of written files, shared by both writers' tests ----------------------------------------------


def check_walkthrough_insert(path: Path, stats) -> None:
    """``delta_1_1_0000/bucket_00000`` of the walkthrough: Jerry, Tom and Kate, write id 1, row ids 0-2."""
    rows, meta, schema, stripes = read_all(path)
    assert rows == [
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
    assert (stats.path, stats.rows, stats.inserts, stats.deletes, stats.stripes) == (str(path), 3, 3, 0, 1)
    assert (stats.key_index, stats.first_key, stats.last_key) == ("1,536870912,2;", (1, B0, 0), (1, B0, 2))
    # a second reader accepts it
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
    with path.open("rb") as f:
        assert pyorc.Reader(f).writer_id in ("ORC_CPP_WRITER", "ORC_JAVA_WRITER")


def check_walkthrough_update(delete_path: Path, dstats, insert_path: Path, istats) -> None:
    """UPDATE employee SET salary = 7000 WHERE id = 2 (write id 2): delete (1, B0, 1), insert Tom again."""
    rows, meta, schema, _ = read_all(delete_path)
    assert rows == [(2, 1, 536870912, 1, 2, None)]
    assert meta == {
        "hive.acid.key.index": b"1,536870912,1;",
        "hive.acid.stats": b"0,0,1",
        "hive.acid.version": b"2",
    }
    assert schema == EMPLOYEE_SCHEMA
    assert (dstats.inserts, dstats.deletes, dstats.rows) == (0, 1, 1)

    rows, meta, schema, _ = read_all(insert_path)
    assert rows == [(0, 2, 536870912, 0, 2, (2, "Tom", 7000))]
    assert meta["hive.acid.key.index"] == b"2,536870912,0;"
    assert meta["hive.acid.stats"] == b"1,0,0"
    assert istats.key_index == "2,536870912,0;"

    table = pa_orc.ORCFile(str(delete_path)).read()
    assert table.column("row").to_pylist() == [None]
    assert table.column("currentTransaction").to_pylist() == [2]


#: (events, stripes, key index) of inserts (7, B0, 0..n-1) cut every 10 events.
STRIPE_CASES = [
    (25, 3, "7,536870912,9;7,536870912,19;7,536870912,24;"),
    (20, 2, "7,536870912,9;7,536870912,19;"),
    (10, 1, "7,536870912,9;"),
    (1, 1, "7,536870912,0;"),
]


def check_stripes(path: Path, stats, n: int, stripes: int, key_index: str) -> None:
    """A STRIPE_CASES file: stripes of 10 events and one key index entry per stripe."""
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


def check_deletes(path: Path, stats, keys: list[tuple[int, int, int]], per_stripe: int) -> None:
    """A delete file of ``keys`` by write id 9, ``per_stripe`` events in each stripe."""
    stripes = -(-len(keys) // per_stripe)
    assert stats.stripes == stripes and stats.deletes == len(keys)
    rows, meta, _, file_stripes = read_all(path)
    assert file_stripes == stripes
    assert [(r[1], r[2], r[3]) for r in rows] == keys
    assert all(r[0] == 2 and r[4] == 9 and r[5] is None for r in rows)
    last_keys = keys[per_stripe - 1 :: per_stripe]
    assert meta["hive.acid.key.index"].decode() == "".join(f"{o},{b},{r};" for o, b, r in last_keys)
    assert meta["hive.acid.stats"] == f"0,0,{len(keys)}".encode()


def check_empty(path: Path, stats) -> None:
    """A writer closed without events: a valid ORC file with no stripes and zero counts."""
    rows, meta, schema, stripes = read_all(path)
    assert rows == [] and stripes == 0 and schema == EMPLOYEE_SCHEMA
    assert meta == {"hive.acid.key.index": b"", "hive.acid.stats": b"0,0,0", "hive.acid.version": b"2"}
    assert stats.first_key is None and stats.last_key is None and stats.stripes == 0 and stats.rows == 0
    assert pa_orc.ORCFile(str(path)).read().num_rows == 0


def check_all_types(path: Path, expected: list[tuple]) -> None:
    """Every type read back by pyorc as ``expected`` (4 insert events of write id 4)."""
    rows, meta, schema, _ = read_all(path)
    assert schema == (
        "struct<operation:int,originalTransaction:bigint,bucket:int,rowId:bigint,currentTransaction:bigint,"
        "row:struct<" + ",".join(f"{n}:{t}" for n, t in ALL_TYPES) + ">>"
    )
    assert meta["hive.acid.key.index"] == b"4,536870912,3;"
    assert len(rows) == len(expected)
    for got, want in zip(rows, expected, strict=True):
        assert got[:5] == (0, 4, B0, got[3], 4)
        for i, (g, e) in enumerate(zip(got[5], want, strict=True)):
            assert same(g, e), (ALL_TYPES[i], g, e)


# -- both writers behind one call --------------------------------------------------------------------------

WRITERS = ["pyorc", "fast"]


def open_writer(kind: str, f, columns, *, rows_per_stripe: int | None = None, **kwargs):
    """A writer of ``kind``; a small ``rows_per_stripe`` also sets pyorc's batch size (it must divide it)."""
    if rows_per_stripe is not None:
        kwargs["rows_per_stripe"] = rows_per_stripe
        if kind == "pyorc":
            kwargs["batch_size"] = min(rows_per_stripe, 10_000)
    return (AcidEventWriter if kind == "pyorc" else FastAcidEventWriter)(f, columns, **kwargs)


def write_file(kind: str, path: Path, columns, batches: list, **kwargs) -> EventFileStats:
    with path.open("wb") as f:
        w = open_writer(kind, f, columns, path=str(path), **kwargs)
        for b in batches:
            w.write_batch(b)
        return w.close()


TS_ROW = pa.struct([("t", pa.timestamp("us"))])
TS_COLUMNS = [("t", parse_hive_type("timestamp"))]
