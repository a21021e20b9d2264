"""Every Hive-written fixture of ``shared/fixtures/hive-written`` read through the public API.

The expected results are those of the fixture README (taken from the Trino / Impala tests that use the
files). The fixture directory is never touched: each test copies what it needs into ``tmp_path`` and
registers a table over that copy (a table created over existing ACID data counts every write id on disk as
committed). Snapshots that no SQL statement can produce (a write id still open, a delete delta not yet
committed) are read with :func:`hiveacid_sql.exec.scan.scan_location` at a hand-made ``ValidWriteIdList``.
"""

from __future__ import annotations

import datetime as dt
import shutil
import zoneinfo
from pathlib import Path

import pyorc
import pytest
from pyspark.sql import functions as F

from hiveacid_sql.acid.hive_types import acid_event_schema, parse_hive_type
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.exec.scan import scan_location

UTC = zoneinfo.ZoneInfo("UTC")
BUCKET_0 = 536870912  # BucketCodec V1: bucket 0, statement 0
BUCKET_1 = 536936448
BUCKET_2 = 537001984

NATION = "n_nationkey int, n_name string, n_regionkey int, n_comment string"
NATIONS = [
    "ALGERIA",
    "ARGENTINA",
    "BRAZIL",
    "CANADA",
    "EGYPT",
    "ETHIOPIA",
    "FRANCE",
    "GERMANY",
    "INDIA",
    "INDONESIA",
    "IRAN",
    "IRAQ",
    "JAPAN",
    "JORDAN",
    "KENYA",
    "MOROCCO",
    "MOZAMBIQUE",
    "PERU",
    "CHINA",
    "ROMANIA",
    "SAUDI ARABIA",
    "VIETNAM",
    "RUSSIA",
    "UNITED KINGDOM",
    "UNITED STATES",
]
DUMMY = "id int, data string, comment string"
ALLTYPES = (
    "ctinyint tinyint, csmallint smallint, cint int, cbigint bigint, cfloat float, cdouble double, "
    "cstring1 string, cstring2 string, ctimestamp1 timestamp, ctimestamp2 timestamp, "
    "cboolean1 boolean, cboolean2 boolean"
)
IMPALA_ALLTYPES = (
    "id int, bool_col boolean, tinyint_col tinyint, smallint_col smallint, int_col int, bigint_col bigint, "
    "float_col float, double_col double, date_string_col string, string_col string, timestamp_col timestamp, "
    "year int, month int"
)


# -- helpers ---------------------------------------------------------------------------------------------------
def place(src: Path, dst: Path) -> Path:
    """Copy one fixture file to ``dst`` (parents created); the fixture itself stays untouched."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    return dst


def adopt_file(acid, tmp_path: Path, name: str, columns: str, fixture: Path, rel: str) -> Path:
    """Copy one fixture file to ``<tmp>/<name>/<rel>`` and register that directory as ACID table ``name``."""
    table = tmp_path / name
    place(fixture, table / rel)
    acid_table(acid, name, columns, table)
    return table


def acid_table(acid, name: str, columns: str, location: Path) -> None:
    acid.sql(
        f"CREATE TABLE {name} ({columns}) STORED AS ORC LOCATION '{location}' "
        "TBLPROPERTIES ('transactional'='true')"
    )


def columns_of(ddl: str) -> list[tuple[str, object]]:
    out = []
    for part in ddl.split(","):
        name, type_ = part.split()
        out.append((name, parse_hive_type(type_)))
    return out


def snapshot_rows(spark, location: Path, ddl: str, write_ids: ValidWriteIdList) -> list[tuple]:
    """Live rows of the table directory at ``write_ids`` (sorted), through the engine's own scan."""
    cols = columns_of(ddl)
    df = scan_location(spark, str(location), cols, write_ids)
    return sorted(tuple(r) for r in df.select(*[n for n, _ in cols]).collect())


def row_ids(acid, sql: str) -> list[tuple]:
    return [(r.row__id.writeid, r.row__id.bucketid, r.row__id.rowid) for r in acid.sql(sql).collect()]


# (row__id.rowid alone is not recognised as a row__id reference by the planner: see the report; a
# subquery selecting row__id itself is.)
PER_NATION = (
    "SELECT n_nationkey, n_name, count(*), min(rid.writeid), max(rid.bucketid), min(rid.rowid), max(rid.rowid) "
    "FROM (SELECT row__id AS rid, n_nationkey, n_name FROM nation) GROUP BY 1, 2 ORDER BY 1"
)


@pytest.fixture()
def nation_dir(tmp_path: Path, fixtures_dir: Path) -> Path:
    table = tmp_path / "nation"
    place(
        fixtures_dir / "nationFile25kRowsSortedOnNationKey/bucket_00000",
        table / "delta_0000002_0000002_0000/bucket_00000",
    )
    return table


# -- nationFile25kRowsSortedOnNationKey (+ nation_delete_deltas) -------------------------------------------------
def test_nation_25k_insert_delta(acid, nation_dir):
    acid_table(acid, "nation", NATION, nation_dir)
    # 25 000 rows, each nation 1000 times; rowId = position in the file (5 stripes of 5000 rows), so
    # nation k holds the 1000 distinct rowIds k*1000 .. k*1000+999, all of write 2, bucket 0.
    per_nation = acid.sql(PER_NATION).collect()
    assert [tuple(r) for r in per_nation] == [
        (k, NATIONS[k], 1000, 2, BUCKET_0, k * 1000, k * 1000 + 999) for k in range(25)
    ]
    five = acid.sql(
        "SELECT n_nationkey, n_name, n_regionkey, count(*) FROM nation WHERE n_nationkey = 5 GROUP BY 1, 2, 3"
    )
    assert [tuple(r) for r in five.collect()] == [(5, "ETHIOPIA", 0, 1000)]
    assert acid.sql("SELECT count(*) FROM nation WHERE n_nationkey = 100").collect()[0][0] == 0


def test_nation_with_delete_deltas(acid, nation_dir, fixtures_dir, spark):
    for d in ("delete_delta_0000003_0000003_0000", "delete_delta_0000004_0000004_0000"):
        place(fixtures_dir / "nation_delete_deltas" / d / "bucket_00000", nation_dir / d / "bucket_00000")
    acid_table(acid, "nation", NATION, nation_dir)
    # 23 000 rows: every nation x1000 but ETHIOPIA (5) and ROMANIA (19).
    per_nation = acid.sql(PER_NATION).collect()
    assert [tuple(r) for r in per_nation] == [
        (k, NATIONS[k], 1000, 2, BUCKET_0, k * 1000, k * 1000 + 999) for k in range(25) if k not in (5, 19)
    ]
    # Write 4 still open: only the write-3 delete applies, ROMANIA is still there.
    at3 = scan_location(
        spark,
        str(nation_dir),
        columns_of(NATION),
        ValidWriteIdList.create("default.nation", 4, [4]),
    )
    counts = at3.agg(
        F.count("*"), F.count_if(F.col("n_nationkey") == 5), F.count_if(F.col("n_nationkey") == 19)
    )
    assert tuple(counts.collect()[0]) == (24000, 0, 1000)


# -- fullacid_delete_delta_test ---------------------------------------------------------------------------------
def _write_col_rows(path: Path, original_txns: range, current_txn: int) -> None:
    """Insert events ``(col = originalTransaction)`` at (originalTransaction, bucket 0, rowId 0), all of
    ``current_txn`` (AcidEventWriter always writes currentTransaction = originalTransaction, so pyorc)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    schema = acid_event_schema(columns_of("col int"))
    with open(path, "wb") as f, pyorc.Writer(f, schema, struct_repr=pyorc.StructRepr.TUPLE) as writer:
        for t in original_txns:
            writer.write((0, t, BUCKET_0, 0, current_txn, (t,)))


def _delete_test_table(tmp_path: Path, fixtures_dir: Path, delete_dirs: tuple[str, ...]) -> Path:
    table = tmp_path / "t"
    # One insert delta of write 20 holding rows with originalTransaction 0..19.
    _write_col_rows(table / "delta_0000020_0000020_0000/bucket_00000", range(20), 20)
    for d in delete_dirs:
        place(fixtures_dir / "fullacid_delete_delta_test" / d / "bucket_00000", table / d / "bucket_00000")
    return table


def test_fullacid_delete_delta_test(acid, tmp_path, fixtures_dir, spark):
    table = _delete_test_table(
        tmp_path,
        fixtures_dir,
        (
            "delete_delta_0000004_0000004",
            "delete_delta_0000004_0000004_0000",
            "delete_delta_0000007_0000007_0000",
        ),
    )
    acid_table(acid, "t", "col int", table)
    rows = acid.sql("SELECT col FROM t").collect()
    assert sorted(r.col for r in rows) == [0, 1, 3, 4, 5, 7, 8, 9, *range(10, 20)]
    assert row_ids(acid, "SELECT row__id FROM t WHERE col = 8") == [(8, BUCKET_0, 0)]
    # Snapshot with write 7 still open: only the write-4 delete applies.
    at4 = snapshot_rows(spark, table, "col int", ValidWriteIdList.create("default.t", 20, [7]))
    assert [r[0] for r in at4] == [0, 1, 3, 4, 5, 6, 7, 8, 9, *range(10, 20)]


def test_fullacid_delete_delta_without_statement_id_alone(acid, tmp_path, fixtures_dir):
    table = _delete_test_table(tmp_path, fixtures_dir, ("delete_delta_0000004_0000004",))
    acid_table(acid, "t", "col int", table)
    rows = acid.sql("SELECT col FROM t WHERE col < 10").collect()
    assert sorted(r.col for r in rows) == [0, 1, 3, 4, 5, 6, 7, 8, 9]
    assert acid.sql("SELECT count(*) FROM t WHERE col >= 10").collect()[0][0] == 10


# -- original files ---------------------------------------------------------------------------------------------
def test_fullacid_nation_with_original_files(acid, tmp_path, fixtures_dir):
    table = tmp_path / "nation"
    shutil.copytree(fixtures_dir / "fullacidNationTableWithOriginalFiles", table)
    acid_table(acid, "nation", NATION, table)
    # 24 rows, (24, 'UNITED STATES') deleted; synthetic row__id (0, bucket 0, position in the file).
    rows = acid.sql("SELECT row__id, n_nationkey, n_name FROM nation ORDER BY n_nationkey").collect()
    assert [(tuple(r.row__id), r.n_nationkey, r.n_name) for r in rows] == [
        ((0, BUCKET_0, k), k, NATIONS[k]) for k in range(24)
    ]


def test_dummy_id_data_original_files(acid, tmp_path, fixtures_dir):
    table = tmp_path / "dummy"
    shutil.copytree(fixtures_dir / "dummy_id_data_orc", table)
    acid_table(acid, "dummy", DUMMY, table)
    rows = acid.sql("SELECT row__id, id, data FROM dummy ORDER BY id").collect()
    # Bucket id from the file name; within a bucket, rowIds continue over 000002_0, _copy_1, _copy_2, so the
    # _copy_2 rows (17..20) start at rowId 8. Id 3 (bucket 0, rowId 2) is deleted; there never was an id 2.
    expected = (
        [(0, BUCKET_0, 0, 0), (1, BUCKET_0, 1, 1), (4, BUCKET_0, 3, 4)]
        + [(i, BUCKET_1, i - 5, i) for i in range(5, 9)]
        + [(i, BUCKET_2, i - 9, i) for i in range(9, 21)]
    )
    assert [(r.id, r.row__id.bucketid, r.row__id.rowid, int(r.data[4:])) for r in rows] == expected
    assert {r.row__id.writeid for r in rows} == {0}


def test_impala_alltypes_non_acid_as_original(acid, tmp_path, fixtures_dir):
    table = adopt_file(acid, tmp_path, "alltypes", IMPALA_ALLTYPES, fixtures_dir / "impala/alltypes_non_acid.orc", "000000_0")
    assert acid.sql("SELECT count(*) FROM alltypes").collect()[0][0] == 7300
    rows = acid.sql("SELECT row__id, id FROM alltypes WHERE id < 10 ORDER BY id").collect()
    assert [(r.id, r.row__id.writeid, r.row__id.bucketid, r.row__id.rowid) for r in rows] == [
        (i, 0, BUCKET_0, 4030 + i) for i in range(10)
    ]
    # Same values as the file itself (read independently with pyorc), not just the same count.
    with open(table / "000000_0", "rb") as f:
        reader = pyorc.Reader(f, column_names=("id", "int_col", "string_col", "timestamp_col"), timezone=UTC)
        expected = sorted((i, n, s, t.replace(tzinfo=None)) for i, n, s, t in reader)
    got = acid.sql("SELECT id, int_col, string_col, timestamp_col FROM alltypes").collect()
    assert sorted(tuple(r) for r in got) == expected


# -- acid_version_validation ------------------------------------------------------------------------------------
def test_acid_version_hive_3_file(acid, tmp_path, fixtures_dir):
    # Its bucket property says bucket 2, so it goes where Hive would have written it.
    fixture = fixtures_dir / "acid_version_validation/acid_version_hive_3/00000_0"
    adopt_file(acid, tmp_path, "v", "a bigint", fixture, "delta_0000001_0000001_0000/bucket_00002")
    rows = acid.sql("SELECT row__id, a FROM v").collect()
    assert [(r.a, tuple(r.row__id)) for r in rows] == [(10, (1, BUCKET_2, 0))]


def test_plain_orc_file_in_a_delta_reads_as_hive_4_reads_raw_files(acid, tmp_path, fixtures_dir):
    """A plain ORC file (no ACID columns, no ``hive.acid.version``) inside a delta directory: Hive 4 reads it as a
    raw file (``AcidUtils.MetaDataFile.isRawFormat``: what an insert-only table converted to full ACID leaves),
    with synthetic row ids: the delta's write id, its bucket and statement id, the row's position (Trino refuses
    such a file; the conversion needs Hive 4's reading, see tests/spark/test_mm_to_acid.py)."""
    fixture = fixtures_dir / "acid_version_validation/no_orc_acid_version_in_metadata/00000_0"
    adopt_file(acid, tmp_path, "p", DUMMY, fixture, "delta_0000001_0000001_0000/bucket_00000")
    rows = acid.sql("SELECT row__id, id, data FROM p").collect()
    assert sorted((tuple(r.row__id), r.id, r.data) for r in rows) == [
        ((1, BUCKET_0, rowid), i, f"test{i}") for rowid, i in enumerate([0, 1, 3, 4])
    ]


# -- impala ---------------------------------------------------------------------------------------------------
def test_impala_streaming_two_write_ids_in_one_file(acid, tmp_path, fixtures_dir, spark):
    table = tmp_path / "s"
    place(fixtures_dir / "impala/streaming.orc", table / "delta_0000001_0000002/bucket_00000")
    ddl = "a string, b string"
    assert snapshot_rows(spark, table, ddl, ValidWriteIdList.create("default.s", 0)) == []
    only_1 = [("a1", "b2"), ("a3", "b4")]
    assert snapshot_rows(spark, table, ddl, ValidWriteIdList.create("default.s", 1)) == only_1
    # Write 2 open below the high watermark: the delta is read but its write-2 rows are filtered out.
    assert snapshot_rows(spark, table, ddl, ValidWriteIdList.create("default.s", 2, [2])) == only_1
    assert snapshot_rows(spark, table, ddl, ValidWriteIdList.create("default.s", 2, [], [2])) == only_1
    acid_table(acid, "s", ddl, table)
    rows = acid.sql("SELECT a, b FROM s ORDER BY a").collect()
    assert [tuple(r) for r in rows] == [*only_1, ("a5", "b6"), ("a7", "b8")]


def test_impala_full_acid_schema_without_acid_version(acid, tmp_path, fixtures_dir):
    # Where Impala's test puts it: at the table root, named like a bucket file.
    adopt_file(acid, tmp_path, "f", "i int", fixtures_dir / "impala/full_acid_schema_but_no_acid_version.orc", "bucket_00000")
    assert acid.sql("SELECT count(*) FROM f").collect()[0][0] == 3
    # Recognised as ACID events (lower-case field names) by schema: the rows are i = 1, 2, 3, not `operation`.
    assert sorted(r.i for r in acid.sql("SELECT i FROM f").collect()) == [1, 2, 3]


def test_impala_full_acid_schema_in_a_delta(acid, tmp_path, fixtures_dir):
    fixture = fixtures_dir / "impala/full_acid_schema_but_no_acid_version.orc"
    adopt_file(acid, tmp_path, "f", "i int", fixture, "delta_0000001_0000003/bucket_00000")
    rows = acid.sql("SELECT row__id, i FROM f ORDER BY i").collect()
    assert [(r.i, tuple(r.row__id)) for r in rows] == [(i, (i, BUCKET_0, 0)) for i in (1, 2, 3)]


# -- hive-source/alltypesorc ------------------------------------------------------------------------------------
def _wall_clock(value: dt.datetime | None) -> str | None:
    if value is None:
        return None
    text = value.replace(tzinfo=None).isoformat(sep=" ")
    if "." in text:
        text = text.rstrip("0")
    return text


def test_alltypesorc_as_source_of_insert_update_delete(acid, tmp_path, fixtures_dir):
    source = tmp_path / "alltypesorc"
    shutil.copytree(fixtures_dir / "hive-source", source)
    acid.sql(f"CREATE EXTERNAL TABLE alltypes ({ALLTYPES}) STORED AS ORC LOCATION '{source}'")
    acid_table(acid, "alltypes_acid", ALLTYPES, tmp_path / "warehouse_acid")
    result = acid.sql("INSERT INTO alltypes_acid SELECT * FROM alltypes")
    assert result.num_inserted_rows == 12288

    # The file itself, read with pyorc in UTC (Hive timestamps are wall-clock values).
    with open(source / "alltypesorc", "rb") as f:
        reader = pyorc.Reader(f, column_names=("cint", "cstring1", "ctimestamp1"), timezone=UTC)
        raw = list(reader)
    stamps = [t for _, _, t in raw if t is not None]
    expected = (
        12288,
        sum(c for c, _, _ in raw if c is not None),
        sum(1 for _, s, _ in raw if s is None),
        _wall_clock(min(stamps)),
        _wall_clock(max(stamps)),
    )
    aggregates = (
        "SELECT count(*), sum(cint), count_if(cstring1 IS NULL), "
        "CAST(min(ctimestamp1) AS string), CAST(max(ctimestamp1) AS string) FROM {}"
    )
    plain = tuple(acid.sql(aggregates.format("alltypes")).collect()[0])
    acid_aggs = tuple(acid.sql(aggregates.format("alltypes_acid")).collect()[0])
    assert plain == expected
    assert acid_aggs == expected
    # Whole rows equal, not only aggregates.
    diff = acid.sql("SELECT * FROM alltypes_acid EXCEPT ALL SELECT * FROM alltypes").count()
    assert diff == 0

    # Expected counts from the plain table; rows with ctinyint = 1 get cint = -1, so they leave the NULLs.
    n_tiny_1, n_null_cint = acid.sql(
        "SELECT count_if(ctinyint = 1), count_if(cint IS NULL AND NOT (ctinyint <=> 1)) FROM alltypes"
    ).collect()[0]
    assert n_tiny_1 > 0 and n_null_cint > 0
    updated = acid.sql("UPDATE alltypes_acid SET cstring1 = 'updated', cint = -1 WHERE ctinyint = 1")
    assert updated.num_updated_rows == n_tiny_1
    after_update = acid.sql(
        "SELECT count(*), count_if(cstring1 = 'updated' AND cint = -1 AND ctinyint = 1) FROM alltypes_acid"
    ).collect()[0]
    assert tuple(after_update) == (12288, n_tiny_1)

    deleted = acid.sql("DELETE FROM alltypes_acid WHERE cint IS NULL")
    assert deleted.num_deleted_rows == n_null_cint
    after_delete = acid.sql("SELECT count(*), count_if(cint IS NULL) FROM alltypes_acid").collect()[0]
    assert tuple(after_delete) == (12288 - n_null_cint, 0)
