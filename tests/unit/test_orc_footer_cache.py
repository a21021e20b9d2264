"""The footer cache: a file listed again with the same size and modification time is not opened again; a file
replaced in place (new size or time) is read again; files without a known time are never cached."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.fs as pafs
import pyorc

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.orc_footer import FOOTERS, FooterCache, read_footer
from hiveacid_sql.acid.scan_files import snapshot_files
from hiveacid_sql.acid.writeids import ValidWriteIdList


def write_orc(path: Path, rows: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out, pyorc.Writer(out, "struct<id:int>") as writer:
        for i in range(rows):
            writer.write((i,))


def stat(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def test_same_size_and_time_is_read_once(tmp_path):
    f = tmp_path / "a.orc"
    write_orc(f, 3)
    fs, cache = pafs.LocalFileSystem(), FooterCache()
    first = cache.footer(fs, str(f), *stat(f))
    second = cache.footer(fs, str(f), *stat(f))
    assert second is first and first.num_rows == 3
    assert (cache.reads, cache.hits) == (1, 1)


def test_a_replaced_file_is_read_again(tmp_path):
    f = tmp_path / "a.orc"
    write_orc(f, 3)
    fs, cache = pafs.LocalFileSystem(), FooterCache()
    cache.footer(fs, str(f), *stat(f))
    write_orc(f, 500)  # another size
    assert cache.footer(fs, str(f), *stat(f)).num_rows == 500
    size, mtime = stat(f)
    os.utime(f, ns=(mtime + 10**9, mtime + 10**9))  # same size, another time
    assert cache.footer(fs, str(f), size, mtime + 10**9).num_rows == 500
    assert (cache.reads, cache.hits) == (3, 0)


def test_unknown_time_is_not_cached_and_the_cache_is_bounded(tmp_path):
    fs, cache = pafs.LocalFileSystem(), FooterCache(max_entries=2)
    paths = [tmp_path / f"{i}.orc" for i in range(3)]
    for p in paths:
        write_orc(p, 1)
    cache.footer(fs, str(paths[0]), os.path.getsize(paths[0]), None)
    cache.footer(fs, str(paths[0]), os.path.getsize(paths[0]), None)
    assert (cache.reads, cache.hits) == (2, 0)
    for p in paths:
        cache.footer(fs, str(p), *stat(p))
    cache.footer(fs, str(paths[0]), *stat(paths[0]))  # evicted by the third file: read again
    cache.footer(fs, str(paths[2]), *stat(paths[2]))
    assert (cache.reads, cache.hits) == (6, 1)


def test_a_snapshot_reads_each_footer_once_across_listings(tmp_path):
    for d in ("delta_0000001_0000001_0000", "delta_0000002_0000002_0000"):
        write_orc(tmp_path / d / "bucket_00000", 2)
    fs = pafs.LocalFileSystem()
    ids = ValidWriteIdList.all_committed("default.t", 2)
    files = snapshot_files(fs, str(tmp_path), ids)
    assert files.dirs[0].stats[files.data_files[0]] == stat(Path(files.data_files[0]))
    reads = FOOTERS.reads
    files.footers(fs, files.data_files)
    assert FOOTERS.reads == reads + 2
    again = snapshot_files(fs, str(tmp_path), ids)  # the next statement lists again: same files, no reads
    assert [f.num_rows for f in again.footers(fs, again.data_files)] == [2, 2]
    assert FOOTERS.reads == reads + 2


def test_field_names_with_spaces_and_hyphens_are_quoted(tmp_path):
    """pyorc prints field names bare (``struct<a b:int>``), which no type parser reads back; the footer's
    type string quotes them as ORC Java does, at every depth."""
    f = tmp_path / "q.orc"
    schema = "struct<id:int,`a b`:int,`c-d`:array<struct<`e f`:string>>,m:map<string,struct<`g-h`:int>>>"
    with f.open("wb") as out, pyorc.Writer(out, schema) as writer:
        writer.write((1, 2, [("x",)], {"k": (3,)}))
    footer = read_footer(pafs.LocalFileSystem(), str(f))
    assert footer.type_string == schema
    assert [n for n, _ in parse_hive_type(footer.type_string).fields] == ["id", "a b", "c-d", "m"]


def test_small_files_events_are_kept_per_file_version_and_filtered_per_snapshot(tmp_path):
    """The driver read of small event files (acid/small_events.py) keeps every event of a file with its
    ``currentTransaction``, keyed like the footers; each snapshot filters them by its own write ids, and the
    driver's anti join drops exactly the deleted keys of the same partition directory."""
    import pyarrow as pa

    from hiveacid_sql.acid.small_events import EventCache, SmallFile, live_events, without_deleted
    from tests.support.event_file_cases import (
        B0,
        EMPLOYEE,
        EMPLOYEE_ROW,
        delete_events,
        insert_events,
        write_file,
    )

    ins = tmp_path / "p=a" / "delta_0000001_0000002" / "bucket_00000"
    dels = tmp_path / "p=a" / "delete_delta_0000003_0000003" / "bucket_00000"
    ins.parent.mkdir(parents=True)
    dels.parent.mkdir(parents=True)
    rows = [{"id": i, "name": f"n{i}", "salary": i} for i in range(3)]
    events = insert_events(1, B0, rows, EMPLOYEE_ROW)
    two = pa.array([1, 2, 2], pa.int64())  # a delta of two write ids (as streaming writes them)
    events = events.set_column(1, "originalTransaction", two).set_column(4, "currentTransaction", two)
    write_file("pyorc", ins, EMPLOYEE, [events])
    write_file("pyorc", dels, EMPLOYEE, [delete_events([(1, B0, 0), (2, B0, 2)], 3, EMPLOYEE_ROW)])
    fs, cache = pafs.LocalFileSystem(), EventCache()

    def small(path: Path, part: str = "p=a") -> SmallFile:
        return SmallFile(read_footer(fs, str(path)), part, *stat(path))

    keys = pa.schema([("__part_dir", pa.string()), ("__owid", pa.int64()), ("__bucket", pa.int32()), ("__rowid", pa.int64())])
    schema = pa.schema([*keys, ("id", pa.int32()), ("name", pa.string()), ("salary", pa.int32())])
    all_valid = ValidWriteIdList("default.t", 3, ())
    two_aborted = ValidWriteIdList("default.t", 3, (2,))
    inserted = live_events(fs, [small(ins)], EMPLOYEE, all_valid, delete=False, part_dir_column="__part_dir", schema=schema, cache=cache)
    assert inserted.column("id").to_pylist() == [0, 1, 2]
    without_2 = live_events(fs, [small(ins)], EMPLOYEE, two_aborted, delete=False, part_dir_column="__part_dir", schema=schema, cache=cache)
    assert without_2.column("id").to_pylist() == [0]  # rows of write id 2 dropped, from the kept events
    assert (cache.reads, cache.hits) == (1, 1)
    deleted = live_events(fs, [small(dels)], (), all_valid, delete=True, part_dir_column="__part_dir", schema=keys, cache=cache)
    assert without_deleted(inserted, deleted, "__part_dir").column("id").to_pylist() == [1]
    elsewhere = live_events(fs, [small(dels, "p=b")], (), all_valid, delete=True, part_dir_column="__part_dir", schema=keys, cache=cache)
    assert without_deleted(inserted, elsewhere, "__part_dir").column("id").to_pylist() == [0, 1, 2]  # another partition
    size, mtime = stat(ins)
    os.utime(ins, ns=(mtime + 10**9, mtime + 10**9))  # the same path, another version: read again
    live_events(fs, [small(ins)], EMPLOYEE, all_valid, delete=False, part_dir_column="__part_dir", schema=schema, cache=cache)
    assert (cache.reads, cache.hits) == (3, 2)  # the delete file is read once for both partition directories
