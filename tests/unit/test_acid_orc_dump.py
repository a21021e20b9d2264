"""The ORC event dumper prints what ``orc-tools data`` prints, for our files and Hive-written fixtures."""

from __future__ import annotations

import datetime as dt
import io
import json
from decimal import Decimal
from pathlib import Path

import pyorc
import pytest

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.orc_dump import (
    check_acid_schema,
    dump_events,
    dump_path,
    format_timestamp,
    is_acid_schema,
    user_metadata,
)
from hiveacid_sql.acid.orc_writer import row_converter
from hiveacid_sql.errors import AcidFormatError
from tests.support.fixtures import HIVE_WRITTEN as FIXTURES
from tests.support.row_events import RowEventWriter

B0 = 1 << 29 | 0 << 16 | 0
EMPLOYEE = [
    ("id", parse_hive_type("int")),
    ("name", parse_hive_type("string")),
    ("salary", parse_hive_type("int")),
]


def write_employee(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f, RowEventWriter(f, EMPLOYEE) as w:
        for i, row in enumerate([(1, "Jerry", 5000), (2, "Tom", 8000), (3, "Kate", 6000)]):
            w.insert(1, B0, i, row)


def test_walkthrough_lines(tmp_path: Path) -> None:
    delta = tmp_path / "employee" / "delta_0000001_0000001_0000" / "bucket_00000"
    write_employee(delta)
    (delta.parent / "_orc_acid_version").write_bytes(b"2")
    dd = tmp_path / "employee" / "delete_delta_0000002_0000002_0000" / "bucket_00000"
    dd.parent.mkdir()
    with dd.open("wb") as f, RowEventWriter(f, EMPLOYEE) as w:
        w.delete(1, B0, 1, 2)
    (dd.parent / "_orc_acid_version").write_bytes(b"2")

    lines = [json.dumps(e, separators=(",", ":")) for e in dump_events(delta)]
    assert lines == [
        '{"operation":0,"originalTransaction":1,"bucket":536870912,"rowId":0,"currentTransaction":1,"row":{"id":1,"name":"Jerry","salary":5000}}',
        '{"operation":0,"originalTransaction":1,"bucket":536870912,"rowId":1,"currentTransaction":1,"row":{"id":2,"name":"Tom","salary":8000}}',
        '{"operation":0,"originalTransaction":1,"bucket":536870912,"rowId":2,"currentTransaction":1,"row":{"id":3,"name":"Kate","salary":6000}}',
    ]
    assert user_metadata(delta) == {
        "hive.acid.key.index": "1,536870912,2;",
        "hive.acid.stats": "3,0,0",
        "hive.acid.version": "2",
    }

    out = list(dump_path(tmp_path / "employee"))
    headers = [json.loads(line) for line in out if line.startswith('{"file"')]
    # sorted: delete_delta_... before delta_...; _orc_acid_version skipped
    assert [h["file"] for h in headers] == [str(dd), str(delta)]
    assert headers[0]["acid"] is True and headers[0]["rows"] == 1 and headers[0]["stripes"] == 1
    assert headers[0]["metadata"]["hive.acid.stats"] == "0,0,1"
    assert out[1] == (
        '{"operation":2,"originalTransaction":1,"bucket":536870912,"rowId":1,"currentTransaction":2,"row":null}'
    )
    assert len(out) == 2 + 1 + 3

    # one file, as a file object too
    assert list(dump_path(delta))[1:] == lines
    with delta.open("rb") as f:
        assert len(list(dump_events(f, acid=True))) == 3
        assert not f.closed


def test_value_rendering() -> None:
    columns = [
        (n, parse_hive_type(t))
        for n, t in [
            ("d", "date"),
            ("t", "timestamp"),
            ("t0", "timestamp"),
            ("dec", "decimal(10,3)"),
            ("dec0", "decimal(10,3)"),
            ("b", "binary"),
            ("m", "map<string,int>"),
            ("a", "array<date>"),
            ("c", "char(3)"),
            ("f", "double"),
        ]
    ]
    row = {
        "d": dt.date(2020, 1, 1),
        "t": dt.datetime(2020, 1, 1, 12, 30, 5, 123456),
        "t0": dt.datetime(1960, 6, 1, 0, 0, 0),
        "dec": Decimal("5.1"),
        "dec0": Decimal("100"),
        "b": b"\x01\xff",
        "m": [("k", 1)],
        "a": [dt.date(1999, 12, 31), None],
        "c": "x",
        "f": 2.5,
    }
    buf = io.BytesIO()
    with RowEventWriter(buf, columns) as w:
        w.insert(1, B0, 0, row_converter(columns)(row))
    buf.seek(0)
    (event,) = list(dump_events(buf))
    assert event["row"] == {
        "d": "2020-01-01",
        "t": "2020-01-01 12:30:05.123456",
        "t0": "1960-06-01 00:00:00.0",
        "dec": "5.1",
        "dec0": "100",
        "b": [1, 255],
        "m": [{"_key": "k", "_value": 1}],
        "a": ["1999-12-31", None],
        "c": "x  ",
        "f": 2.5,
    }


def test_format_timestamp() -> None:
    assert format_timestamp(dt.datetime(2020, 1, 1, 12, 30, 5, 120000)) == "2020-01-01 12:30:05.12"
    assert format_timestamp(dt.datetime(5, 1, 1)) == "0005-01-01 00:00:00.0"
    assert format_timestamp(dt.datetime(2020, 1, 1, 1, tzinfo=dt.timezone.utc)) == "2020-01-01 01:00:00.0"


def test_schema_checks() -> None:
    acid = (
        "struct<operation:int,originalTransaction:bigint,bucket:int,rowId:bigint,currentTransaction:bigint,"
        "row:struct<a:int>>"
    )
    assert is_acid_schema(acid)
    assert is_acid_schema(acid.lower())
    assert is_acid_schema(pyorc.TypeDescription.from_string(acid))
    assert not is_acid_schema("struct<id:int,data:string>")
    assert not is_acid_schema("int")
    check_acid_schema(acid.lower())
    with pytest.raises(AcidFormatError, match="is not an ACID event file"):
        check_acid_schema("struct<a:int>", "f")
    with pytest.raises(AcidFormatError, match="bucket.*expected int"):
        check_acid_schema(acid.replace("bucket:int", "bucket:bigint"), "f")


def test_not_orc(tmp_path: Path) -> None:
    junk = tmp_path / "d" / "bucket_00000"
    junk.parent.mkdir()
    junk.write_bytes(b"hello")
    (tmp_path / "d" / "bucket_00000_flush_length").write_bytes(b"\0" * 8)
    (tmp_path / "d" / ".hidden").write_bytes(b"x")
    with pytest.raises(AcidFormatError, match="not a readable ORC file"):
        list(dump_events(junk))
    assert [json.loads(x) for x in dump_path(tmp_path / "d")] == [
        {"file": str(junk), "error": "not an ORC file"}
    ]
    with pytest.raises(AcidFormatError, match="no such file"):
        list(dump_path(tmp_path / "missing"))


def test_hive_delete_delta() -> None:
    path = FIXTURES / "nation_delete_deltas" / "delete_delta_0000003_0000003_0000" / "bucket_00000"
    events = list(dump_events(path, acid=True))
    assert len(events) == 1000
    assert all(
        e["operation"] == 2
        and e["originalTransaction"] == 2
        and e["bucket"] == 536870912
        and e["row"] is None
        for e in events
    )
    assert [e["rowId"] for e in events] == list(range(5000, 6000))
    assert {e["currentTransaction"] for e in events} == {3}
    assert user_metadata(path)["hive.acid.key.index"] == "2,536870912,5999;"


def test_hive_insert_delta_and_plain_file() -> None:
    events = list(dump_events(FIXTURES / "nationFile25kRowsSortedOnNationKey" / "bucket_00000", acid=True))
    assert len(events) == 25000
    assert events[0]["row"]["n_name"] == "ALGERIA" and events[24999]["rowId"] == 24999

    rows = list(dump_events(FIXTURES / "hive-source" / "alltypesorc"))
    assert len(rows) == 12288
    assert rows[0]["ctimestamp1"] == "1969-12-31 15:59:46.674"


def test_plain_file_read_as_acid_is_a_clear_error() -> None:
    path = FIXTURES / "acid_version_validation" / "no_orc_acid_version_in_metadata" / "00000_0"
    assert len(list(dump_events(path))) == 4  # fine as a plain file
    with pytest.raises(AcidFormatError, match=r"00000_0 is not an ACID event file: .*struct<id:int"):
        list(dump_events(path, acid=True))


def test_lower_case_acid_names_accepted() -> None:
    path = FIXTURES / "impala" / "full_acid_schema_but_no_acid_version.orc"
    events = list(dump_events(path, acid=True))
    assert [e["row"] for e in events] == [{"i": 1}, {"i": 2}, {"i": 3}]
    assert [e["originaltransaction"] for e in events] == [1, 2, 3]
    assert user_metadata(path) == {}


def test_dump_fixture_directory() -> None:
    lines = list(dump_path(FIXTURES / "fullacid_delete_delta_test"))
    headers = [json.loads(x) for x in lines if x.startswith('{"file"')]
    assert [Path(h["file"]).parent.name for h in headers] == [
        "delete_delta_0000004_0000004",
        "delete_delta_0000004_0000004_0000",
        "delete_delta_0000007_0000007_0000",
    ]
    assert all(h["acid"] and h["metadata"]["hive.acid.version"] == "2" for h in headers)
    assert len(lines) == 6
