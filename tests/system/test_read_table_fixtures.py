"""Every Hive-written fixture read through ``hiveacid_sql.read_table`` (pyarrow only, no Spark).

The expected results are those of the fixture README (from the Trino / Impala tests that use the files),
the same as ``tests/test_hive_fixtures.py`` checks for the Spark reader. Each test copies what it needs into
``tmp_path`` and reads that directory as a bare table location (every write id on disk committed); snapshots
with open or aborted write ids are read with :func:`hiveacid_sql.acid.arrow_scan.scan_snapshot` at a
hand-made ``ValidWriteIdList``.
"""

from __future__ import annotations

import shutil
import zoneinfo
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyorc
import pytest

from hiveacid_sql import read_table
from hiveacid_sql.acid.arrow_scan import scan_snapshot
from hiveacid_sql.acid.scan_files import snapshot_files
from hiveacid_sql.acid.writeids import ValidWriteIdList
from tests.system.test_hive_fixtures import (
    BUCKET_0,
    BUCKET_1,
    BUCKET_2,
    DUMMY,
    IMPALA_ALLTYPES,
    NATION,
    NATIONS,
    _delete_test_table,
    columns_of,
    place,
)

UTC = zoneinfo.ZoneInfo("UTC")
ALLTYPES = (
    "ctinyint tinyint, csmallint smallint, cint int, cbigint bigint, cfloat float, cdouble double, "
    "cstring1 string, cstring2 string, ctimestamp1 timestamp, ctimestamp2 timestamp, "
    "cboolean1 boolean, cboolean2 boolean"
)


def rows_at(location: Path, ddl: str, write_ids: ValidWriteIdList, **kwargs) -> list[tuple]:
    """Live rows of a table directory at ``write_ids`` (sorted), through the Arrow scan."""
    fs = pafs.LocalFileSystem()
    files = snapshot_files(fs, str(location), write_ids)
    table = scan_snapshot(fs, files, columns_of(ddl), [], write_ids, **kwargs)
    return sorted(tuple(r.values()) for r in table.to_pylist())


def row_ids(table) -> list[tuple]:
    return [(r["writeid"], r["bucketid"], r["rowid"]) for r in table.column("row__id").to_pylist()]


@pytest.fixture()
def nation_dir(tmp_path: Path, fixtures_dir: Path) -> Path:
    table = tmp_path / "nation"
    place(fixtures_dir / "nationFile25kRowsSortedOnNationKey/bucket_00000", table / "delta_0000002_0000002_0000/bucket_00000")
    return table


def test_nation_25k_insert_delta(nation_dir):
    t = read_table(nation_dir, schema=NATION, row_id=True)
    assert t.num_rows == 25000
    # rowId = position in the file: nation k holds rowIds k*1000 .. k*1000+999, write 2, bucket 0.
    ids = row_ids(t)
    keys = t.column("n_nationkey").to_pylist()
    assert sorted(zip(keys, ids, strict=True)) == [(i // 1000, (2, BUCKET_0, i)) for i in range(25000)]
    five = read_table(nation_dir, schema=NATION, filter=pc.field("n_nationkey") == 5)
    assert five.num_rows == 1000 and set(five.column("n_name").to_pylist()) == {"ETHIOPIA"}
    assert read_table(nation_dir, schema=NATION, filter=[("n_nationkey", "=", 100)]).num_rows == 0


def test_nation_with_delete_deltas(nation_dir, fixtures_dir):
    for d in ("delete_delta_0000003_0000003_0000", "delete_delta_0000004_0000004_0000"):
        place(fixtures_dir / "nation_delete_deltas" / d / "bucket_00000", nation_dir / d / "bucket_00000")
    t = read_table(nation_dir, schema=NATION, columns=["n_name"])
    counts = t.group_by("n_name").aggregate([([], "count_all")]).to_pylist()
    assert sorted((r["n_name"], r["count_all"]) for r in counts) == sorted(
        (n, 1000) for k, n in enumerate(NATIONS) if k not in (5, 19)
    )
    # Write 4 still open: only the write-3 delete applies, ROMANIA is still there.
    at3 = rows_at(nation_dir, NATION, ValidWriteIdList.create("default.nation", 4, [4]))
    assert len(at3) == 24000 and sum(r[0] == 19 for r in at3) == 1000 and not any(r[0] == 5 for r in at3)


def test_fullacid_delete_delta_test(tmp_path, fixtures_dir):
    dirs = ("delete_delta_0000004_0000004", "delete_delta_0000004_0000004_0000", "delete_delta_0000007_0000007_0000")
    table = _delete_test_table(tmp_path, fixtures_dir, dirs)
    t = read_table(table, schema="col int", row_id=True)
    assert sorted(t.column("col").to_pylist()) == [0, 1, 3, 4, 5, 7, 8, 9, *range(10, 20)]
    assert row_ids(t.filter(pc.field("col") == 8)) == [(8, BUCKET_0, 0)]
    # Write 7 still open: only the write-4 delete applies.
    at4 = rows_at(table, "col int", ValidWriteIdList.create("default.t", 20, [7]))
    assert [r[0] for r in at4] == [0, 1, 3, 4, 5, 6, 7, 8, 9, *range(10, 20)]


def test_fullacid_delete_delta_without_statement_id_alone(tmp_path, fixtures_dir):
    table = _delete_test_table(tmp_path, fixtures_dir, ("delete_delta_0000004_0000004",))
    assert sorted(read_table(table, schema="col int").column("col").to_pylist()) == [0, 1, 3, 4, 5, 6, 7, 8, 9, *range(10, 20)]


def test_fullacid_nation_with_original_files(tmp_path, fixtures_dir):
    table = tmp_path / "nation"
    shutil.copytree(fixtures_dir / "fullacidNationTableWithOriginalFiles", table)
    t = read_table(table, schema=NATION, row_id=True).sort_by("n_nationkey")
    # 24 rows, (24, 'UNITED STATES') deleted; synthetic row__id (0, bucket 0, position in the file).
    assert list(zip(row_ids(t), t.column("n_nationkey").to_pylist(), t.column("n_name").to_pylist(), strict=True)) == [
        ((0, BUCKET_0, k), k, NATIONS[k]) for k in range(24)
    ]
    # Without schema=: the columns are those of the original file itself.
    assert read_table(table).num_rows == 24


def test_dummy_id_data_original_files(tmp_path, fixtures_dir):
    table = tmp_path / "dummy"
    shutil.copytree(fixtures_dir / "dummy_id_data_orc", table)
    t = read_table(table, schema=DUMMY, row_id=True).sort_by("id")
    # Within a bucket, rowIds continue over 000002_0, _copy_1, _copy_2 (the _copy_2 rows start at rowId 8);
    # id 3 (bucket 0, rowId 2) is deleted; there never was an id 2.
    expected = (
        [(0, BUCKET_0, 0, 0), (1, BUCKET_0, 1, 1), (4, BUCKET_0, 3, 4)]
        + [(i, BUCKET_1, i - 5, i) for i in range(5, 9)]
        + [(i, BUCKET_2, i - 9, i) for i in range(9, 21)]
    )
    got = [(i, b, r, int(d[4:])) for i, (_w, b, r), d in zip(t.column("id").to_pylist(), row_ids(t), t.column("data").to_pylist(), strict=True)]
    assert got == expected
    assert {w for w, _b, _r in row_ids(t)} == {0}


def test_impala_alltypes_non_acid_as_original(tmp_path, fixtures_dir):
    table = tmp_path / "alltypes"
    place(fixtures_dir / "impala/alltypes_non_acid.orc", table / "000000_0")
    t = read_table(table, schema=IMPALA_ALLTYPES, row_id=True)
    assert t.num_rows == 7300
    first = t.filter(pc.field("id") < 10).sort_by("id")
    assert row_ids(first) == [(0, BUCKET_0, 4030 + i) for i in range(10)]
    with open(table / "000000_0", "rb") as f:
        reader = pyorc.Reader(f, column_names=("id", "int_col", "string_col", "timestamp_col"), timezone=UTC)
        expected = sorted((i, n, s, ts.replace(tzinfo=None)) for i, n, s, ts in reader)
    got = read_table(table, schema=IMPALA_ALLTYPES, columns=["id", "int_col", "string_col", "timestamp_col"])
    assert sorted(tuple(r.values()) for r in got.to_pylist()) == expected


def test_acid_version_hive_3_file(tmp_path, fixtures_dir):
    table = tmp_path / "v"
    place(fixtures_dir / "acid_version_validation/acid_version_hive_3/00000_0", table / "delta_0000001_0000001_0000/bucket_00002")
    t = read_table(table, row_id=True)
    assert [(r["a"], tuple(r["row__id"].values())) for r in t.to_pylist()] == [(10, (1, BUCKET_2, 0))]


def test_plain_orc_file_in_a_delta_reads_as_hive_4_reads_raw_files(tmp_path, fixtures_dir):
    """As Spark's reader (tests/system/test_hive_fixtures.py): Hive 4's raw file, with synthetic row ids."""
    table = tmp_path / "p"
    place(fixtures_dir / "acid_version_validation/no_orc_acid_version_in_metadata/00000_0", table / "delta_0000001_0000001_0000/bucket_00000")
    t = read_table(table, schema=DUMMY, row_id=True)
    assert sorted((tuple(r["row__id"].values()), r["id"], r["data"]) for r in t.to_pylist()) == [
        ((1, BUCKET_0, rowid), i, f"test{i}") for rowid, i in enumerate([0, 1, 3, 4])
    ]


def test_impala_streaming_two_write_ids_in_one_file(tmp_path, fixtures_dir):
    table = tmp_path / "s"
    place(fixtures_dir / "impala/streaming.orc", table / "delta_0000001_0000002/bucket_00000")
    ddl = "a string, b string"
    assert rows_at(table, ddl, ValidWriteIdList.create("default.s", 0)) == []
    only_1 = [("a1", "b2"), ("a3", "b4")]
    assert rows_at(table, ddl, ValidWriteIdList.create("default.s", 1)) == only_1
    # Write 2 open (or aborted) below the high watermark: the delta is read, its write-2 rows filtered out.
    assert rows_at(table, ddl, ValidWriteIdList.create("default.s", 2, [2])) == only_1
    assert rows_at(table, ddl, ValidWriteIdList.create("default.s", 2, [], [2])) == only_1
    t = read_table(table, schema=ddl).sort_by("a")
    assert [tuple(r.values()) for r in t.to_pylist()] == [*only_1, ("a5", "b6"), ("a7", "b8")]
    # Time travel on a bare location: version 1 is write id 1 alone.
    assert sorted(tuple(r.values()) for r in read_table(table, schema=ddl, version=1).to_pylist()) == only_1


def test_impala_full_acid_schema_without_acid_version(tmp_path, fixtures_dir):
    table = tmp_path / "f"
    place(fixtures_dir / "impala/full_acid_schema_but_no_acid_version.orc", table / "bucket_00000")
    # Recognised as ACID events (lower-case field names) by schema: the rows are i = 1, 2, 3.
    assert sorted(read_table(table, schema="i int").column("i").to_pylist()) == [1, 2, 3]


def test_impala_full_acid_schema_in_a_delta(tmp_path, fixtures_dir):
    table = tmp_path / "f"
    place(fixtures_dir / "impala/full_acid_schema_but_no_acid_version.orc", table / "delta_0000001_0000003/bucket_00000")
    t = read_table(table, schema="i int", row_id=True).sort_by("i")
    assert list(zip(t.column("i").to_pylist(), row_ids(t), strict=True)) == [(i, (i, BUCKET_0, 0)) for i in (1, 2, 3)]


def test_alltypesorc_wall_clock_timestamps(tmp_path, fixtures_dir):
    table = tmp_path / "alltypes"
    place(fixtures_dir / "hive-source/alltypesorc", table / "000000_0")
    t = read_table(table, schema=ALLTYPES)
    with open(table / "000000_0", "rb") as f:
        raw = list(pyorc.Reader(f, timezone=UTC))
    assert t.num_rows == 12288
    expected = [tuple(v.replace(tzinfo=None) if hasattr(v, "tzinfo") else v for v in r) for r in raw]
    key = lambda r: tuple((v is None, v) for v in r)  # noqa: E731 - NULLs sort together
    assert sorted((tuple(r.values()) for r in t.to_pylist()), key=key) == sorted(expected, key=key)
