"""BucketCodec V0/V1 and ROW__ID ordering (hive BucketCodec, RecordIdentifier)."""

from __future__ import annotations

import pytest

from hiveacid_sql.acid.codec import (
    RecordIdentifier,
    codec_version,
    decode_bucket_id,
    decode_statement_id,
    encode_bucket,
)
from hiveacid_sql.errors import AcidFormatError


def test_known_values():
    assert encode_bucket(0, 0) == 536870912 == 0x20000000
    assert encode_bucket(1, 0) == 536936448
    assert encode_bucket(0, 1) == 536870913
    assert encode_bucket(0, -1) == 536870912
    assert encode_bucket(4095, 4095) == (1 << 29) | (4095 << 16) | 4095


def test_round_trip():
    for b in (0, 1, 17, 4095):
        for s in (0, 1, 4095):
            prop = encode_bucket(b, s)
            assert codec_version(prop) == 1
            assert decode_bucket_id(prop) == b
            assert decode_statement_id(prop) == s


@pytest.mark.parametrize("b,s", [(-1, 0), (4096, 0), (0, 4096), (0, -2)])
def test_range_checks(b, s):
    with pytest.raises(AcidFormatError):
        encode_bucket(b, s)


def test_v0():
    assert codec_version(5) == 0
    assert decode_bucket_id(5) == 5
    assert decode_statement_id(5) == 0


def test_illegal_version():
    with pytest.raises(AcidFormatError, match="Version=2"):
        codec_version(2 << 29)
    with pytest.raises(AcidFormatError):
        decode_bucket_id(-1)  # 0xFFFFFFFF -> version 7


def test_record_identifier_order():
    a = RecordIdentifier(1, 536870912, 5)
    b = RecordIdentifier(1, 536936448, 0)
    c = RecordIdentifier(2, 536870912, 0)
    d = RecordIdentifier(1, 536870912, 6)
    assert sorted([c, b, d, a]) == [a, d, b, c]
    assert a.bucket_id == 0 and b.bucket_id == 1 and a.statement_id == 0


def test_record_identifier_bucket_is_signed():
    hi = RecordIdentifier(1, 0x80000000, 0)
    assert hi.bucket == -(2**31)
    assert hi < RecordIdentifier(1, 0, 0)
