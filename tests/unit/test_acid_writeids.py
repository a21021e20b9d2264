"""ValidWriteIdList / ValidTxnList: exact Hive semantics and string forms."""

from __future__ import annotations

import pytest

from hiveacid_sql.acid.writeids import LONG_MAX, RangeResponse, ValidTxnList, ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError

ALL, SOME, NONE = RangeResponse.ALL, RangeResponse.SOME, RangeResponse.NONE


def wil(hwm=10, open_=(), aborted=()):
    return ValidWriteIdList.create("default.t", hwm, open_, aborted)


def test_validity():
    v = wil(10, open_=(4, 7), aborted=(5,))
    assert v.exceptions == (4, 5, 7)
    assert v.min_open_write_id == 4
    assert [w for w in range(1, 13) if v.is_write_id_valid(w)] == [1, 2, 3, 6, 8, 9, 10]
    assert v.is_write_id_aborted(5) and not v.is_write_id_aborted(4)
    assert v.open_write_ids == (4, 7)


def test_is_valid_base():
    v = wil(10, open_=(4,))
    assert v.is_valid_base(3)
    assert not v.is_valid_base(4)
    assert not v.is_valid_base(5)
    aborted_only = wil(10, aborted=(4,))
    assert aborted_only.is_valid_base(10)  # aborted ids do not block a compacted base
    assert not aborted_only.is_valid_base(11)


def test_range_valid():
    v = wil(10, open_=(4,), aborted=(5,))
    assert v.is_write_id_range_valid(11, 20) is NONE
    assert v.is_write_id_range_valid(1, 3) is ALL
    assert v.is_write_id_range_valid(6, 10) is ALL
    assert v.is_write_id_range_valid(3, 6) is SOME
    assert v.is_write_id_range_valid(4, 5) is NONE
    assert v.is_write_id_range_valid(4, 4) is NONE
    assert v.is_write_id_range_valid(8, 12) is SOME  # part above the HWM
    assert wil(5).is_write_id_range_valid(1, 10) is SOME
    assert wil(5).is_write_id_range_valid(1, 5) is ALL


def test_range_aborted():
    v = wil(10, open_=(4,), aborted=(5, 6))
    assert v.is_write_id_range_aborted(5, 6) is ALL
    assert v.is_write_id_range_aborted(4, 6) is SOME
    assert v.is_write_id_range_aborted(4, 4) is NONE
    assert v.is_write_id_range_aborted(11, 12) is NONE


def test_to_string():
    assert ValidWriteIdList.all_committed("default.t", 5).to_string() == "default.t:5:9223372036854775807::"
    assert wil(10, open_=(7, 4), aborted=(5,)).to_string() == "default.t:10:4:4,7:5"
    assert wil(10, aborted=(5, 2)).to_string() == "default.t:10:9223372036854775807::2,5"
    assert ValidWriteIdList(None, 3).to_string() == "null:3:9223372036854775807::"


@pytest.mark.parametrize(
    "src",
    [
        "default.t:5:9223372036854775807::",
        "default.t:10:4:4,7:5",
        "default.t:10:9223372036854775807::2,5",
        "default.t:10:4:4,7:",
        "null:3:9223372036854775807::",
    ],
)
def test_round_trip(src):
    assert ValidWriteIdList.from_string(src).to_string() == src


def test_from_string_field_counts():
    three = ValidWriteIdList.from_string("default.t:5:9223372036854775807")
    assert three == ValidWriteIdList.all_committed("default.t", 5)
    four = ValidWriteIdList.from_string("db.t:10:4:4,7")
    assert four.exceptions == (4, 7) and four.aborted == frozenset() and four.min_open_write_id == 4
    five = ValidWriteIdList.from_string("db.t:10:9223372036854775807::3")
    assert five.exceptions == (3,) and five.aborted == {3} and five.min_open_write_id is None
    assert ValidWriteIdList.from_string("NULL:1:9223372036854775807").table_name is None
    everything = ValidWriteIdList.from_string("")
    assert everything.high_watermark == LONG_MAX and everything.is_write_id_valid(10**12)


@pytest.mark.parametrize("src", ["a:b", "t:x:1", "t:1:2:a", "t:1:2:3:4:5"])
def test_from_string_malformed(src):
    with pytest.raises(AcidFormatError):
        ValidWriteIdList.from_string(src)


def test_compactor_variant():
    v = wil(10, open_=(7,), aborted=(3, 8)).for_compactor()
    assert v.high_watermark == 6
    assert v.exceptions == (3,) and v.aborted == {3}
    assert v.is_write_id_range_valid(1, 6) is ALL  # aborted 3 inside: compactor filters rows
    assert v.is_write_id_range_valid(5, 7) is NONE
    assert not v.is_write_id_valid(3)
    no_open = wil(10, aborted=(3,)).for_compactor()
    assert no_open.high_watermark == 10


def test_txn_list():
    t = ValidTxnList.create(20, open_txns=(15, 12), aborted_txns=(13,))
    assert t.to_string() == "20:12:12,15:13"
    assert ValidTxnList.from_string("20:12:12,15:13") == t
    assert t.is_txn_valid(11) and not t.is_txn_valid(12) and not t.is_txn_valid(21)
    assert t.is_txn_aborted(13)
    assert t.is_txn_range_valid(12, 13) is NONE
    assert t.is_txn_range_aborted(13, 13) is ALL
    assert ValidTxnList.from_string("5:9223372036854775807") == ValidTxnList(5)
    assert ValidTxnList(5).to_string() == "5:9223372036854775807::"
    assert ValidTxnList.from_string("5:9223372036854775807::3").aborted == {3}
    with pytest.raises(AcidFormatError):
        ValidTxnList.from_string("x")
