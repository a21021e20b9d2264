"""Directory and file names: builders emit Hive 3.1 names, parsers accept what Hive 3/4 and Trino write."""

from __future__ import annotations

import pytest

from hiveacid_sql.acid.names import (
    ACID_VERSION_CONTENT,
    ACID_VERSION_FILE,
    COMPACTED_METADATA,
    METADATA_FILE,
    ParsedBase,
    ParsedDelta,
    base_dir_name,
    bucket_file_name,
    delete_delta_dir_name,
    delta_dir_name,
    is_hidden,
    original_file_name,
    parse_bucket_file,
    parse_dir_name,
    parse_original_file,
)
from hiveacid_sql.errors import AcidFormatError


def test_constants():
    assert ACID_VERSION_FILE == "_orc_acid_version"
    assert ACID_VERSION_CONTENT == b"2"
    assert METADATA_FILE == "_metadata_acid"
    assert COMPACTED_METADATA == b'{"thisFileVersion":"0","dataFormat":"compacted"}'


def test_builders_match_hive_format():
    assert base_dir_name(12) == "base_0000012"
    assert delta_dir_name(5, 5, 0) == "delta_0000005_0000005_0000"
    assert delta_dir_name(1, 2, None) == "delta_0000001_0000002"
    assert delta_dir_name(1, 2, -1) == "delta_0000001_0000002"
    assert delete_delta_dir_name(7, 7, 1) == "delete_delta_0000007_0000007_0001"
    assert delta_dir_name(12345678, 12345678, 3) == "delta_12345678_12345678_0003"
    assert bucket_file_name(0) == "bucket_00000"
    assert bucket_file_name(123456) == "bucket_123456"
    assert base_dir_name(-(2**63)) == "base_-9223372036854775808"


@pytest.mark.parametrize(
    "call",
    [
        lambda: delta_dir_name(3, 2, 0),
        lambda: delta_dir_name(-1, 2, 0),
        lambda: delta_dir_name(1, 1, 10000),
        lambda: base_dir_name(-5),
        lambda: bucket_file_name(-1),
    ],
)
def test_builders_reject_bad_ids(call):
    with pytest.raises(AcidFormatError):
        call()


def test_round_trips():
    for w in (0, 1, 9_999_999, 10_000_001, 2**63 - 1, -(2**63)):
        assert parse_dir_name(base_dir_name(w)) == ParsedBase(w, 0, base_dir_name(w))
    for lo, hi, stmt in ((1, 1, 0), (1, 20, None), (10_000_001, 10_000_001, 9999)):
        name = delta_dir_name(lo, hi, stmt)
        assert parse_dir_name(name) == ParsedDelta(lo, hi, stmt, False, 0, name)
        name = delete_delta_dir_name(lo, hi, stmt)
        assert parse_dir_name(name) == ParsedDelta(lo, hi, stmt, True, 0, name)
    for b in (0, 1, 4095, 99999):
        assert parse_bucket_file(bucket_file_name(b)) == b


def test_parse_lenient_widths_and_visibility_suffix():
    assert parse_dir_name("base_5") == ParsedBase(5, 0, "base_5")
    assert parse_dir_name("base_0000012_v0000345") == ParsedBase(12, 345, "base_0000012_v0000345")
    assert parse_dir_name("base_0000012_v0000345").has_visibility_suffix
    assert not parse_dir_name("base_0000012_v0000000").has_visibility_suffix
    assert parse_dir_name("delta_1_2") == ParsedDelta(1, 2, None, False, 0, "delta_1_2")
    assert parse_dir_name("delta_1_2_v77") == ParsedDelta(1, 2, None, False, 77, "delta_1_2_v77")
    assert parse_dir_name("delete_delta_0000003_0000003_0002_v0000010") == ParsedDelta(
        3, 3, 2, True, 10, "delete_delta_0000003_0000003_0002_v0000010"
    )


@pytest.mark.parametrize(
    "name", ["000000_0", "p=1", "HIVE_UNION_SUBDIR_1", "bucket_00000", "deltas", "based"]
)
def test_non_acid_names(name):
    assert parse_dir_name(name) is None


@pytest.mark.parametrize("name", ["base_x", "delta_1", "delta_a_b", "delete_delta_1_2_3_4", "delta_2_1_0000"])
def test_malformed_acid_names_raise(name):
    with pytest.raises(AcidFormatError):
        parse_dir_name(name)


def test_sort_key_hive_order():
    names = [
        "delta_0000002_0000002_0000",
        "delta_0000001_0000002",
        "delta_0000001_0000001_0001",
        "delete_delta_0000001_0000001_0000",
        "delta_0000001_0000001_0000",
        "delta_0000001_0000001",
        "delta_0000001_0000005",
    ]
    parsed = sorted((parse_dir_name(n) for n in names), key=ParsedDelta.sort_key)
    assert [p.name for p in parsed] == [
        "delta_0000001_0000005",
        "delta_0000001_0000002",
        "delta_0000001_0000001",
        "delete_delta_0000001_0000001_0000",
        "delta_0000001_0000001_0000",
        "delta_0000001_0000001_0001",
        "delta_0000002_0000002_0000",
    ]


def test_bucket_files():
    assert parse_bucket_file("bucket_00003") == 3
    assert parse_bucket_file("bucket_00003_1") == 3  # hive4 direct insert attempt suffix
    assert parse_bucket_file("bucket_00003_flush_length") is None
    assert parse_bucket_file("000000_0") is None
    assert parse_bucket_file("bucket_") is None


def test_original_files():
    assert parse_original_file("000000_0") == (0, 0)
    assert parse_original_file("000002_0_copy_1") == (2, 1)
    assert parse_original_file("000002_0_copy_12") == (2, 12)
    assert parse_original_file("00000_0") == (0, 0)
    assert parse_original_file("bucket_00000") is None
    assert parse_original_file("000000_0.orc") is None
    assert parse_original_file("000000_0_copy_") is None


def test_original_file_names_as_hive_names_bucket_files():
    assert original_file_name(0) == "000000_0"
    assert original_file_name(3, 2) == "000003_0_copy_2"
    assert original_file_name(1234567) == "1234567_0"  # %06d, wider ids as they are
    for bucket, copy in [(0, 0), (6, 1), (4095, 12)]:
        assert parse_original_file(original_file_name(bucket, copy)) == (bucket, copy)
    with pytest.raises(AcidFormatError):
        original_file_name(-1)


def test_hidden():
    assert is_hidden("_orc_acid_version")
    assert is_hidden(".hive-staging_hive_x")
    assert is_hidden("_tmp_1234")
    assert not is_hidden("bucket_00000")
