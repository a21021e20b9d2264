"""Reading ORC files into Arrow (``acid/arrow_scan.py``) outside pyarrow's nanosecond range."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyorc
import pytest

from hiveacid_sql.acid.arrow_scan import read_orc_file, to_table_values, writer_offset_seconds
from hiveacid_sql.acid.hive_types import parse_hive_type

UTC = dt.timezone.utc
TS = parse_hive_type("timestamp")


def _write(path: Path, values: list[dt.datetime | None], zone: str) -> None:
    with (
        path.open("wb") as f,
        pyorc.Writer(
            f, "struct<t:timestamp>", struct_repr=pyorc.StructRepr.TUPLE, timezone=zoneinfo.ZoneInfo(zone)
        ) as writer,
    ):
        for v in values:
            writer.write((v,))


def _read(path: Path) -> list[dt.datetime | None]:
    fs = pafs.LocalFileSystem()
    table = read_orc_file(fs, str(path))
    offset = writer_offset_seconds(fs, str(path))
    arr = to_table_values(table.column("t").combine_chunks(), TS, TS, offset)
    assert arr.type == pa.timestamp("us")
    return arr.to_pylist()


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Tokyo"])
def test_timestamps_before_1677_read_as_the_rest(tmp_path: Path, zone: str) -> None:
    """A file holding a timestamp pyarrow cannot hold in nanoseconds is read through pyorc; values near the
    epoch with a fraction read the same on both paths (ORC Java's rule), whatever zone the writer recorded."""
    near_epoch = [
        dt.datetime(1969, 12, 31, 22, 0, 0, 500_000, tzinfo=UTC),  # within a western writer's offset of 1970
        dt.datetime(1970, 1, 1, 5, 0, 0, 250_000, tzinfo=UTC),  # within an eastern writer's offset of 1970
        dt.datetime(1969, 12, 31, 23, 59, 58, 999_999, tzinfo=UTC),
        None,
    ]
    old = [dt.datetime(2, 1, 1, tzinfo=UTC), dt.datetime(1500, 3, 1, 12, 0, 0, 123_456, tzinfo=UTC)]
    _write(tmp_path / "fast", near_epoch, zone)
    _write(tmp_path / "slow", old + near_epoch, zone)
    fs = pafs.LocalFileSystem()
    assert read_orc_file(fs, str(tmp_path / "fast")).schema.field("t").type == pa.timestamp("ns")  # pyarrow
    assert read_orc_file(fs, str(tmp_path / "slow")).schema.field("t").type == pa.timestamp("us")  # pyorc
    fast, slow = _read(tmp_path / "fast"), _read(tmp_path / "slow")
    assert slow[2:] == fast
    if zone == "UTC":
        assert slow[:2] == [dt.datetime(2, 1, 1), dt.datetime(1500, 3, 1, 12, 0, 0, 123_456)]
        assert fast == [None if v is None else v.replace(tzinfo=None) for v in near_epoch]
