"""Dates and timestamps before the Gregorian cut-over (1582-10-15) read and write as Hive 3.1 does.

Hive 3.1 stores days and seconds counted in the proleptic Gregorian calendar (its ``Date``/``Timestamp``
are ``java.time`` values; ORC 1.5 converts nothing), and reads them back the same way: ``DATE
'0001-01-01'`` is day -719162 on disk and reads ``0001-01-01``. Hive 2 stored hybrid Julian/Gregorian
days; Hive 3.1 reads those raw, as proleptic days (ORC's ``orc.proleptic.gregorian.default`` description:
"Only Hive 3.1 and the C++ library wrote using the proleptic"). Files that declare their calendar (ORC
Java 1.5.9+: Spark, Hive 4) are read in the calendar they declare, as Hive 4 and Trino do.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyorc
import pytest

from hiveacid_sql.acid.orc_tail import (
    CALENDAR_JULIAN_GREGORIAN,
    CALENDAR_PROLEPTIC_GREGORIAN,
    patch_tail,
    read_tail,
)

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
DATES = ["0001-01-01", "1500-03-01", "1582-10-04", "1582-10-10", "1582-10-15", "1899-12-31", "9999-12-31"]


def _day(text: str) -> int:
    return (dt.date.fromisoformat(text) - dt.date(1970, 1, 1)).days


def _rows(acid, table: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(f"SELECT id, d, ts FROM {table} ORDER BY id").collect()]


def _expected() -> list[tuple]:
    return [
        (i, dt.date.fromisoformat(d), dt.datetime.fromisoformat(f"{d} 12:34:56.000001"))
        for i, d in enumerate(DATES)
    ]


def _values() -> str:
    return ", ".join(f"({i}, DATE '{d}', TIMESTAMP '{d} 12:34:56.000001')" for i, d in enumerate(DATES))


def _bucket_files(table_dir: Path) -> list[Path]:
    return sorted(p for p in table_dir.rglob("bucket_*") if p.is_file())


def _raw_days(path: Path) -> list[int]:
    class RawDate(pyorc.converters.DateConverter):
        @staticmethod
        def from_orc(days: int) -> int:
            return days

    with open(path, "rb") as f:
        reader = pyorc.Reader(f, converters={pyorc.TypeKind.DATE: RawDate}, struct_repr=pyorc.StructRepr.DICT)
        return [event["row"]["d"] for event in reader if event["row"] is not None]


@pytest.mark.parametrize("driver_rows", [10_000, 0], ids=["driver", "tasks"])
def test_pre_gregorian_values_survive_every_rewrite(acid, warehouse, driver_rows):
    """INSERT, UPDATE through Spark tasks or the driver, minor and major compaction: no value moves."""
    acid.sql(f"SET hiveacid.driver.write.max.rows={driver_rows}")
    acid.sql(f"CREATE TABLE t (id int, s string, d date, ts timestamp) {ACID}")
    acid.sql(f"INSERT INTO t SELECT id, 'x', d, ts FROM (VALUES {_values()}) AS v(id, d, ts)")
    assert _rows(acid, "t") == _expected()
    # the file holds Hive 3.1's proleptic day numbers and says so
    files = _bucket_files(warehouse / "t")
    assert sorted(day for f in files for day in _raw_days(f)) == sorted(_day(d) for d in DATES)
    assert {read_tail(f.read_bytes()).calendar for f in files} == {CALENDAR_PROLEPTIC_GREGORIAN}
    for _ in range(2):  # each rewrite used to add the shift again (0001-01-01 -> 01-03 -> 01-05)
        acid.sql("UPDATE t SET s = concat(s, 'y')")
    acid.sql("ALTER TABLE t COMPACT 'minor' AND WAIT")
    assert _rows(acid, "t") == _expected()
    acid.sql("ALTER TABLE t COMPACT 'major' AND WAIT")
    assert _rows(acid, "t") == _expected()
    assert acid.sql("SELECT count(*) FROM t WHERE d = DATE '1582-10-10'").collect()[0][0] == 1


def _write_raw_acid_file(path: Path, days: list[int], calendar: int | None) -> None:
    """An ACID insert-event file as another writer left it: raw day numbers, a given calendar field."""

    class RawDate(pyorc.converters.DateConverter):
        @staticmethod
        def to_orc(days: int) -> int:
            return days

    path.parent.mkdir(parents=True, exist_ok=True)
    schema = (
        "struct<operation:int,originalTransaction:bigint,bucket:int,rowId:bigint,currentTransaction:bigint,"
        "row:struct<id:int,d:date>>"
    )
    with open(path, "wb") as f:
        writer = pyorc.Writer(f, schema, converters={pyorc.TypeKind.DATE: RawDate})
        for i, day in enumerate(days):
            writer.write((0, 1, 536870912, i, 1, (i, day)))
        writer.set_user_metadata(**{"hive.acid.key.index": f"1,536870912,{len(days) - 1};".encode()})
        writer.close()
    if calendar is not None:
        path.write_bytes(patch_tail(path.read_bytes(), calendar=calendar))
    (path.parent / "_orc_acid_version").write_bytes(b"2")


def _julian_day_number(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a date in the Julian calendar (what Hive 2's hybrid calendar stores before 1582)."""
    a = (14 - m) // 12
    yy, mm = y + 4800 - a, m + 12 * a - 3
    return d + (153 * mm + 2) // 5 + 365 * yy + yy // 4 - 32083 - 2440588


@pytest.mark.parametrize(
    ("calendar", "expected"),
    [
        # Hive 2 wrote hybrid days and no calendar field; Hive 3.1 reads them as proleptic days (10 days on)
        (None, ["1500-03-20", "1582-10-14", "1582-10-15", "2020-02-29"]),
        # Spark 3+/Hive 4 (ORC Java 1.5.9+) declare JULIAN_GREGORIAN: read in the calendar they declare
        (CALENDAR_JULIAN_GREGORIAN, ["1500-03-10", "1582-10-04", "1582-10-15", "2020-02-29"]),
    ],
    ids=["hive2-undeclared", "declared-hybrid"],
)
def test_hybrid_calendar_files_read_as_hive_reads_them(acid, tmp_path, calendar, expected):
    days = [_julian_day_number(1500, 3, 10), _julian_day_number(1582, 10, 4), _day("1582-10-15"), _day("2020-02-29")]
    location = tmp_path / "legacy"
    _write_raw_acid_file(location / "delta_0000001_0000001_0000" / "bucket_00000", days, calendar)
    acid.sql(f"CREATE TABLE legacy (id int, d date) STORED AS ORC LOCATION '{location}' "
             "TBLPROPERTIES ('transactional'='true')")
    assert [r.d.isoformat() for r in acid.sql("SELECT d FROM legacy ORDER BY id").collect()] == expected


def test_plain_orc_tables_store_proleptic_days_hive_reads(acid, warehouse):
    acid.sql("CREATE TABLE p (id int, d date, ts timestamp) STORED AS ORC")
    kept = [d for d in DATES if d != "1582-10-10"]
    acid.sql("INSERT INTO p VALUES " + ", ".join(
        f"({i}, DATE '{d}', TIMESTAMP '{d} 12:34:56.000001')" for i, d in enumerate(kept)))
    assert [(r.d.isoformat(), r.ts) for r in acid.sql("SELECT d, ts FROM p ORDER BY id").collect()] == [
        (d, dt.datetime.fromisoformat(f"{d} 12:34:56.000001")) for d in kept
    ]
    files = [p for p in (warehouse / "p").iterdir() if p.suffix == ".orc"]
    # Spark's default would be hybrid days (JULIAN_GREGORIAN), which Hive 3.1 reads ten days off before 1582
    assert files and {read_tail(f.read_bytes()).calendar for f in files} == {CALENDAR_PROLEPTIC_GREGORIAN}


@pytest.mark.parametrize(
    ("fmt", "value"),
    [
        ("ORC", "TIMESTAMP '1969-12-31 23:59:59.999999'"),
        ("ORC", "TIMESTAMP '1969-12-31 23:59:59.001'"),
        ("ORC", "DATE '1582-10-10'"),
        ("ACID", "TIMESTAMP '1969-12-31 23:59:59.5'"),
    ],
)
def test_values_orc_cannot_hold_are_refused_and_nothing_is_written(acid, warehouse, fmt, value):
    """The last second before 1970 with a fraction of a millisecond or more reads one second later in every
    ORC reader (Hive 3.1 too: ORC Java stores seconds rounded towards zero); Spark's ORC writer turns
    1582-10-05..14 into 1582-10-15. Refused, in one line, rather than stored different."""
    kind = "date" if value.startswith("DATE") else "timestamp"
    storage = ACID if fmt == "ACID" else "STORED AS ORC"
    acid.sql(f"CREATE TABLE r (id int, v {kind}) {storage}")
    acid.sql("INSERT INTO r VALUES (0, NULL)")
    before = sorted(p.name for p in (warehouse / "r").iterdir())
    from hiveacid_sql.errors import HiveAcidError

    with pytest.raises(HiveAcidError) as err:
        acid.sql(f"INSERT INTO r VALUES (1, {value})")
    message = str(err.value)
    assert "\n" not in message and "column v" in message and "cannot store" in message
    assert "USER_RAISED_EXCEPTION" not in message and "SQLSTATE" not in message
    assert [tuple(r) for r in acid.sql("SELECT * FROM r").collect()] == [(0, None)]
    after = sorted(p.name for p in (warehouse / "r").iterdir() if not p.name.startswith((".", "_")))
    assert after == [n for n in before if not n.startswith((".", "_"))]


def test_values_next_to_the_orc_limits_are_kept(acid):
    acid.sql(f"CREATE TABLE k (id int, ts timestamp) {ACID}")
    acid.sql("CREATE TABLE kp (id int, ts timestamp) STORED AS ORC")
    values = ["1969-12-31 23:59:59", "1969-12-31 23:59:59.000999", "1970-01-01 00:00:00.999999", "1969-12-31 23:59:58.5"]
    rows = ", ".join(f"({i}, TIMESTAMP '{v}')" for i, v in enumerate(values))
    acid.sql(f"INSERT INTO k VALUES {rows}")
    acid.sql(f"INSERT INTO kp VALUES {rows}")
    for table in ("k", "kp"):
        got = [r.ts for r in acid.sql(f"SELECT ts FROM {table} ORDER BY id").collect()]
        assert got == [dt.datetime.fromisoformat(v) for v in values], table


def test_modern_files_skip_the_text_path(acid, warehouse):
    """Files whose statistics start after 1582 are read by Spark's reader as they are (cheaper); the others
    through the exact text path. Both give the same values."""
    import pyarrow.fs as pafs

    from hiveacid_sql.acid.orc_footer import read_footer

    acid.sql(f"CREATE TABLE m (id int, d date) {ACID}")
    acid.sql("INSERT INTO m VALUES (1, DATE '2020-01-01')")
    acid.sql("INSERT INTO m VALUES (2, DATE '1000-01-01')")
    modern, old = _bucket_files(warehouse / "m")
    fs = pafs.LocalFileSystem()
    assert not read_footer(fs, str(modern)).pre_gregorian and read_footer(fs, str(old)).pre_gregorian
    assert [r.d.isoformat() for r in acid.sql("SELECT d FROM m ORDER BY id").collect()] == ["2020-01-01", "1000-01-01"]
