"""Listing real directories (tmp_path and the Hive-written fixtures) over pyarrow.fs."""

from __future__ import annotations

from pathlib import Path

import pyarrow.fs as pafs
import pytest

from hiveacid_sql.acid.listing import (
    filesystem_for,
    is_uri,
    list_acid_dir,
    max_write_id_on_disk,
    parse_metadata_acid,
)
from hiveacid_sql.acid.names import ACID_VERSION_CONTENT, ACID_VERSION_FILE, COMPACTED_METADATA, METADATA_FILE
from hiveacid_sql.acid.state import FileEntry, TableListing, get_acid_state
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError
from tests.support.fixtures import HIVE_WRITTEN as FIXTURES


def write(path: Path, data: bytes = b"x" * 10) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def committed(hwm: int) -> ValidWriteIdList:
    return ValidWriteIdList.all_committed("default.t", hwm)


def test_missing_dir_is_empty(tmp_path):
    fs, root = filesystem_for(str(tmp_path / "nope"))
    assert list_acid_dir(fs, root) == TableListing()
    assert max_write_id_on_disk(TableListing()) == 0


def test_location_is_a_file(tmp_path):
    write(tmp_path / "f")
    fs, root = filesystem_for(str(tmp_path / "f"))
    with pytest.raises(AcidFormatError):
        list_acid_dir(fs, root)


def test_layout(tmp_path):
    t = tmp_path / "t"
    write(t / "delta_0000001_0000001_0000" / "bucket_00000")
    write(t / "delta_0000001_0000001_0000" / ACID_VERSION_FILE, ACID_VERSION_CONTENT)
    write(t / "delete_delta_0000003_0000003_0000" / "bucket_00000")
    write(t / "base_0000002" / "bucket_00000", b"y" * 7)
    write(t / "base_0000002" / METADATA_FILE, COMPACTED_METADATA)
    write(t / "base_0000001" / "bucket_00000")  # IOW base: no marker
    write(t / "_tmp_1234" / "base_0000003" / "bucket_00000")
    write(t / ".hive-staging_hive_1" / "x")
    write(t / "_SUCCESS", b"")
    write(t / "000000_0")
    write(t / "sub" / "000001_0")
    write(t / "sub" / "deeper" / "000001_0_copy_1")
    fs, root = filesystem_for(str(t))
    lst = list_acid_dir(fs, root)
    by_name = {x.name: x for x in lst.dirs}
    assert sorted(by_name) == [
        "base_0000001",
        "base_0000002",
        "delete_delta_0000003_0000003_0000",
        "delta_0000001_0000001_0000",
        "sub",
    ]
    assert by_name["base_0000002"].is_compacted
    assert not by_name["base_0000001"].is_compacted
    assert by_name["base_0000002"].files == (FileEntry("base_0000002/bucket_00000", 7),)
    assert by_name["delta_0000001_0000001_0000"].files == (
        FileEntry("delta_0000001_0000001_0000/bucket_00000", 10),
    )
    assert lst.files == (FileEntry("000000_0", 10),)
    assert [f.path for f in by_name["sub"].all_files()] == ["sub/000001_0", "sub/deeper/000001_0_copy_1"]
    assert max_write_id_on_disk(lst) == 3

    st = get_acid_state(lst, committed(3))
    assert st.base.name == "base_0000002"
    assert [x.name for x in st.delete_deltas] == ["delete_delta_0000003_0000003_0000"]
    # with write id 2 open, the compacted base_2 is unusable, the IOW base_1 is used
    st = get_acid_state(lst, ValidWriteIdList.create("default.t", 3, open_write_ids=(2,)))
    assert st.base.name == "base_0000001"


def test_originals_when_no_base(tmp_path):
    t = tmp_path / "t"
    write(t / "000000_0")
    write(t / "empty_0", b"")
    write(t / "sub" / "000001_0")
    st = get_acid_state(list_acid_dir(*filesystem_for(str(t))), committed(0))
    assert [f.path for f in st.originals] == ["000000_0", "sub/000001_0"]


def test_nested_dir_inside_delta(tmp_path):
    t = tmp_path / "t"
    write(t / "delta_0000001_0000001" / "bucket_00000")
    write(t / "delta_0000001_0000001" / "delta_0000001_0000001" / "bucket_00000")
    lst = list_acid_dir(*filesystem_for(str(t)))
    st = get_acid_state(lst, committed(1))
    assert [f.path for f in st.delta_files["delta_0000001_0000001"]] == ["delta_0000001_0000001/bucket_00000"]
    write(t / "delta_0000001_0000001" / "other" / "bucket_00000")
    with pytest.raises(AcidFormatError, match="sub-directory of ACID directory"):
        get_acid_state(list_acid_dir(*filesystem_for(str(t))), committed(1))


def test_bad_metadata_file(tmp_path):
    t = tmp_path / "t"
    write(t / "base_0000001" / METADATA_FILE, b'{"thisFileVersion":"1","dataFormat":"compacted"}')
    with pytest.raises(AcidFormatError, match="thisFileVersion"):
        list_acid_dir(*filesystem_for(str(t)))


def test_parse_metadata_acid():
    assert parse_metadata_acid(COMPACTED_METADATA)
    assert not parse_metadata_acid(b'{"thisFileVersion":"0","dataFormat":"truncated"}')
    for bad in (
        b"",
        b"[]",
        b"{",
        b'{"thisFileVersion":"0","dataFormat":"other"}',
        b'{"dataFormat":"compacted"}',
    ):
        with pytest.raises(AcidFormatError):
            parse_metadata_acid(bad)


def test_filesystem_for(tmp_path):
    fs, p = filesystem_for(str(tmp_path))
    assert isinstance(fs, pafs.LocalFileSystem) and p == str(tmp_path)
    fs, p = filesystem_for(f"file://{tmp_path}/a%20b")
    assert isinstance(fs, pafs.LocalFileSystem) and p == f"{tmp_path}/a b"
    fs, p = filesystem_for("relative/dir")
    assert p == str(Path("relative/dir").absolute())
    with pytest.raises(AcidFormatError):
        filesystem_for("file://otherhost/x")


def test_filesystem_for_hadoop_local_paths(tmp_path):
    """Hive's metastore stores local locations as Hadoop writes them, ``file:/path``, with partition names
    escaped by Hive (``%2F`` is part of the directory's name): taken as that local path, never relative."""
    fs, p = filesystem_for(f"file:{tmp_path}/t/k=a%2Fb")
    assert isinstance(fs, pafs.LocalFileSystem) and p == f"{tmp_path}/t/k=a%2Fb"
    assert filesystem_for("file:/")[1] == "/"
    assert is_uri("file:/x") and is_uri("hdfs://nn:8020/x") and not is_uri("relative/file:x")
    assert not is_uri("/abs/path") and not is_uri("C:\\data")


def test_fixture_dummy_id_data_orc():
    lst = list_acid_dir(*filesystem_for(str(FIXTURES / "dummy_id_data_orc")))
    assert max_write_id_on_disk(lst) == 10000001
    st = get_acid_state(lst, committed(10000001))
    assert st.base is None and st.deltas == ()
    assert [x.name for x in st.delete_deltas] == ["delete_delta_10000001_10000001_0000"]
    assert [f.path for f in st.originals] == [
        "000000_0",
        "000001_0",
        "000002_0",
        "000002_0_copy_1",
        "000002_0_copy_2",
    ]
    assert st.delta_files["delete_delta_10000001_10000001_0000"][0].path == (
        "delete_delta_10000001_10000001_0000/bucket_00000"
    )


def test_fixture_fullacid_delete_delta_test():
    lst = list_acid_dir(*filesystem_for(f"file://{FIXTURES}/fullacid_delete_delta_test"))
    assert max_write_id_on_disk(lst) == 7
    st = get_acid_state(lst, committed(7))
    assert [x.name for x in st.delete_deltas] == [
        "delete_delta_0000004_0000004",
        "delete_delta_0000007_0000007_0000",
    ]
    assert st.obsolete == ("delete_delta_0000004_0000004_0000",)
    st = get_acid_state(lst, committed(5))
    assert [x.name for x in st.delete_deltas] == ["delete_delta_0000004_0000004"]


def test_fixture_nation_with_original_files():
    lst = list_acid_dir(*filesystem_for(str(FIXTURES / "fullacidNationTableWithOriginalFiles")))
    st = get_acid_state(lst, committed(10000001))
    assert [f.path for f in st.originals] == ["000000_0"]
    assert [x.name for x in st.delete_deltas] == ["delete_delta_10000001_10000001_0000"]
    # a snapshot before the delete: originals only
    st = get_acid_state(lst, committed(5))
    assert st.delete_deltas == () and [f.path for f in st.originals] == ["000000_0"]
