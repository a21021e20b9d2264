"""The port of AcidUtils.getAcidState on hand-built listings (§2.2/§2.3 of the format reference)."""

from __future__ import annotations

import pytest

from hiveacid_sql.acid.state import AcidState, DirEntry, FileEntry, TableListing, get_acid_state
from hiveacid_sql.acid.writeids import ValidTxnList, ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError, NotEnoughHistoryError


def d(name: str, compacted: bool = False, files: tuple[str, ...] = ("bucket_00000",)) -> DirEntry:
    return DirEntry(name, tuple(FileEntry(f"{name}/{f}", 100) for f in files), compacted)


def listing(*dirs: DirEntry | str, files: tuple[FileEntry, ...] = ()) -> TableListing:
    return TableListing(tuple(x if isinstance(x, DirEntry) else d(x) for x in dirs), files)


def committed(hwm: int) -> ValidWriteIdList:
    return ValidWriteIdList.all_committed("default.t", hwm)


def snap(hwm: int, open_=(), aborted=()) -> ValidWriteIdList:
    return ValidWriteIdList.create("default.t", hwm, open_, aborted)


def names(state: AcidState) -> tuple[str | None, list[str], list[str]]:
    return (
        state.base.name if state.base else None,
        [x.name for x in state.deltas],
        [x.name for x in state.delete_deltas],
    )


def test_walkthrough_example():
    lst = listing(
        "delta_0000001_0000001_0000",
        "delta_0000002_0000002_0000",
        "delta_0000001_0000002",
        d("base_0000002", compacted=True),
        "delete_delta_0000003_0000003_0000",
    )
    st = get_acid_state(lst, committed(3))
    assert names(st) == ("base_0000002", [], ["delete_delta_0000003_0000003_0000"])
    assert st.base_files == (FileEntry("base_0000002/bucket_00000", 100),)
    assert st.delta_files == {
        "delete_delta_0000003_0000003_0000": (
            FileEntry("delete_delta_0000003_0000003_0000/bucket_00000", 100),
        )
    }
    assert set(st.obsolete) == {
        "delta_0000001_0000001_0000",
        "delta_0000002_0000002_0000",
        "delta_0000001_0000002",
    }
    assert st.aborted == ()


def test_no_base_deltas_and_twins_in_order():
    lst = listing(
        "delta_0000002_0000002_0000",
        "delete_delta_0000002_0000002_0000",
        "delta_0000001_0000001_0000",
    )
    st = get_acid_state(lst, committed(2))
    assert names(st) == (
        None,
        ["delta_0000001_0000001_0000", "delta_0000002_0000002_0000"],
        ["delete_delta_0000002_0000002_0000"],
    )
    assert [x.name for x in st.all_deltas] == [
        "delta_0000001_0000001_0000",
        "delete_delta_0000002_0000002_0000",
        "delta_0000002_0000002_0000",
    ]


def test_multi_statement_deltas_of_one_txn_all_read():
    lst = listing(
        "delta_0000003_0000003_0000",
        "delta_0000003_0000003_0001",
        "delete_delta_0000003_0000003_0001",
        "delta_0000003_0000003_0002",
    )
    st = get_acid_state(lst, committed(3))
    assert names(st) == (
        None,
        ["delta_0000003_0000003_0000", "delta_0000003_0000003_0001", "delta_0000003_0000003_0002"],
        ["delete_delta_0000003_0000003_0001"],
    )
    assert st.obsolete == ()


def test_minor_compacted_delta_hides_per_statement_ones():
    lst = listing(
        "delta_0000005_0000020",
        "delete_delta_0000005_0000020",
        "delta_0000005_0000010",
        "delta_0000011_0000020",
        "delta_0000007_0000007_0000",
        "delta_0000020_0000020_0001",
        "delete_delta_0000009_0000009_0000",
        "delta_0000021_0000021_0000",
    )
    st = get_acid_state(lst, committed(21))
    assert names(st) == (
        None,
        ["delta_0000005_0000020", "delta_0000021_0000021_0000"],
        ["delete_delta_0000005_0000020"],
    )
    assert set(st.obsolete) == {
        "delta_0000005_0000010",
        "delta_0000011_0000020",
        "delta_0000007_0000007_0000",
        "delta_0000020_0000020_0001",
        "delete_delta_0000009_0000009_0000",
    }


def test_minor_compacted_then_same_max_stmt_delta_is_obsolete():
    # lastStmtId is -1 after a compacted delta, so a per-statement delta ending at the same id is not taken.
    st = get_acid_state(listing("delta_0000001_0000005", "delta_0000005_0000005_0000"), committed(5))
    assert names(st) == (None, ["delta_0000001_0000005"], [])
    assert st.obsolete == ("delta_0000005_0000005_0000",)


def test_base_hides_same_writeid_statement_deltas():
    st = get_acid_state(
        listing(
            d("base_0000005", compacted=True), "delta_0000005_0000005_0000", "delta_0000005_0000005_0001"
        ),
        committed(5),
    )
    assert names(st) == ("base_0000005", [], [])
    assert set(st.obsolete) == {"delta_0000005_0000005_0000", "delta_0000005_0000005_0001"}


def test_open_and_aborted_write_ids():
    lst = listing(
        "delta_0000001_0000001_0000",
        "delta_0000002_0000002_0000",  # open
        "delta_0000003_0000003_0000",  # aborted
        "delete_delta_0000003_0000003_0000",  # aborted
        "delta_0000004_0000004_0000",
        "delta_0000005_0000005_0000",  # above HWM
    )
    st = get_acid_state(lst, snap(4, open_=(2,), aborted=(3,)))
    assert names(st) == (None, ["delta_0000001_0000001_0000", "delta_0000004_0000004_0000"], [])
    assert set(st.aborted) == {"delta_0000003_0000003_0000", "delete_delta_0000003_0000003_0000"}


def test_open_write_id_inside_a_range_keeps_the_delta():
    # Only the range matters here; invalid ids inside are filtered at row level.
    st = get_acid_state(listing("delta_0000001_0000003", "delta_0000004_0000004_0000"), snap(4, open_=(2,)))
    assert names(st) == (None, ["delta_0000001_0000003", "delta_0000004_0000004_0000"], [])
    # range partly above the HWM: SOME, still read
    st = get_acid_state(listing("delta_0000001_0000003"), committed(2))
    assert names(st) == (None, ["delta_0000001_0000003"], [])
    # range entirely open/aborted: not read, not aborted (only partly aborted)
    st = get_acid_state(listing("delta_0000002_0000003"), snap(4, open_=(2,), aborted=(3,)))
    assert names(st) == (None, [], [])
    assert st.aborted == ()


def test_compacted_base_with_open_txn_below_not_usable():
    lst = listing(
        d("base_0000001", compacted=True),
        d("base_0000005", compacted=True),
        "delta_0000002_0000002_0000",
        "delta_0000003_0000003_0000",
        "delta_0000006_0000006_0000",
    )
    st = get_acid_state(lst, snap(6, open_=(3,)))
    assert names(st) == ("base_0000001", ["delta_0000002_0000002_0000", "delta_0000006_0000006_0000"], [])


def test_not_enough_history_when_oldest_base_is_compacted():
    lst = listing(d("base_0000005", compacted=True), "delta_0000006_0000006_0000")
    with pytest.raises(NotEnoughHistoryError) as err:
        get_acid_state(lst, snap(6, open_=(3,), aborted=(2,)))
    assert str(err.value) == "Not enough history available for (6,2).  Oldest available base: base_0000005"
    with pytest.raises(NotEnoughHistoryError, match=r"\(4,x\)"):
        get_acid_state(lst, committed(4))  # base above the HWM


def test_visibility_suffix_marks_compacted_base():
    lst = listing("base_0000005_v0000010", "delta_0000006_0000006_0000")
    assert names(get_acid_state(lst, committed(6))) == (
        "base_0000005_v0000010",
        ["delta_0000006_0000006_0000"],
        [],
    )
    with pytest.raises(NotEnoughHistoryError):
        get_acid_state(lst, snap(6, open_=(4,)))


@pytest.mark.parametrize(
    ("txns", "expected", "aborted"),
    [
        # the compactor's transaction 20 still open: its outputs do not exist yet for this reader
        (ValidTxnList.create(25, open_txns=(20,)), ("base_0000001", ["delta_0000002_0000002_0000",
          "delta_0000003_0000003_0000"], ["delete_delta_0000003_0000003_0000"]), []),
        # committed after this reader's snapshot (above its high watermark): invisible too
        (ValidTxnList.create(19), ("base_0000001", ["delta_0000002_0000002_0000", "delta_0000003_0000003_0000"],
          ["delete_delta_0000003_0000003_0000"]), []),
        # aborted (a failed compaction): garbage, never read
        (ValidTxnList.create(25, aborted_txns=(20,)), ("base_0000001", ["delta_0000002_0000002_0000",
          "delta_0000003_0000003_0000"], ["delete_delta_0000003_0000003_0000"]),
         ["base_0000003_v0000020", "delta_0000002_0000003_v0000020"]),
        # committed: the compacted directories win, the inputs are obsolete
        (ValidTxnList.create(25), ("base_0000003_v0000020", [], []), []),
        # no transaction list (a bare directory): every _v directory is usable, as in Trino
        (None, ("base_0000003_v0000020", [], []), []),
    ],
)
def test_hive4_visibility_suffix_needs_its_transaction_committed(txns, expected, aborted):
    lst = listing(
        "base_0000001", "delta_0000002_0000002_0000", "delta_0000003_0000003_0000", "delete_delta_0000003_0000003_0000",
        d("base_0000003_v0000020", compacted=True), "delta_0000002_0000003_v0000020",
    )
    state = get_acid_state(lst, committed(3), txns=txns)
    assert names(state) == expected
    assert sorted(a for a in state.aborted if "_v" in a) == aborted


def test_iow_base():
    # base without marker = INSERT OVERWRITE: usable iff its write id is committed, even with an open id below.
    lst = listing("delta_0000001_0000001_0000", "base_0000003", "delta_0000004_0000004_0000")
    st = get_acid_state(lst, snap(4, open_=(2,)))
    assert names(st) == ("base_0000003", ["delta_0000004_0000004_0000"], [])
    # IOW base still open or aborted: ignored, no history error
    for v in (snap(4, open_=(3,)), snap(4, aborted=(3,))):
        st = get_acid_state(lst, v)
        assert names(st) == (None, ["delta_0000001_0000001_0000", "delta_0000004_0000004_0000"], [])


def test_compacted_base_preferred_over_iow_base_of_same_id():
    lst = listing("base_0000005", d("base_0000005_v0000009"))
    assert get_acid_state(lst, committed(5)).base.name == "base_0000005_v0000009"
    lst = listing(d("base_0000005"), d("base_5", compacted=True))
    assert get_acid_state(lst, committed(5)).base.name == "base_5"


def test_long_min_base_always_valid():
    lst = listing(
        d("base_-9223372036854775808", compacted=True),
        "delta_0000001_0000001_0000",
        files=(FileEntry("000000_0", 10),),
    )
    st = get_acid_state(lst, snap(1, open_=(1,)))
    assert names(st) == ("base_-9223372036854775808", [], [])
    assert "000000_0" in st.obsolete and st.originals == ()


def test_highest_valid_base_wins_and_others_obsolete():
    lst = listing(d("base_0000002", True), d("base_0000004", True), d("base_0000009", True))
    st = get_acid_state(lst, committed(5))
    assert st.base.name == "base_0000004"
    assert st.obsolete == ("base_0000002",)


def test_originals_sorted_like_hive_and_empty_ignored():
    files = (
        FileEntry("000002_0_copy_2", 10),
        FileEntry("000001_0", 10),
        FileEntry("000002_0", 10),
        FileEntry("000002_0_copy_1", 10),
        FileEntry("000003_0", 0),
    )
    sub = DirEntry(
        "HIVE_UNION_SUBDIR_1",
        (FileEntry("HIVE_UNION_SUBDIR_1/000000_0", 5),),
        subdirs=(DirEntry("HIVE_UNION_SUBDIR_1/x", (FileEntry("HIVE_UNION_SUBDIR_1/x/000000_0", 5),)),),
    )
    st = get_acid_state(listing(sub, "delete_delta_0000001_0000001_0000", files=files), committed(1))
    assert [f.path for f in st.originals] == [
        "000001_0",
        "000002_0",
        "000002_0_copy_1",
        "000002_0_copy_2",
        "HIVE_UNION_SUBDIR_1/000000_0",
        "HIVE_UNION_SUBDIR_1/x/000000_0",
    ]
    assert names(st) == (None, [], ["delete_delta_0000001_0000001_0000"])


def test_originals_obsolete_with_base():
    sub = DirEntry("olddir", (FileEntry("olddir/000000_0", 5),))
    st = get_acid_state(
        listing(sub, d("base_0000001", True), files=(FileEntry("000000_0", 3),)), committed(1)
    )
    assert st.originals == ()
    assert set(st.obsolete) == {"000000_0", "olddir"}


def test_delta_files_exclude_side_and_hidden_files():
    entry = d(
        "delta_0000001_0000002",
        files=(
            "bucket_00000",
            "bucket_00000_flush_length",
            "_orc_acid_version",
            "bucket_00001_1",
            "000000_0",
        ),
    )
    st = get_acid_state(listing(entry), committed(2))
    assert [f.path for f in st.delta_files["delta_0000001_0000002"]] == [
        "delta_0000001_0000002/000000_0",
        "delta_0000001_0000002/bucket_00000",
        "delta_0000001_0000002/bucket_00001_1",
    ]


def test_nested_acid_dir_ignored_other_nested_file_rejected():
    nested = DirEntry(
        "delta_0000001_0000001",
        (FileEntry("delta_0000001_0000001/bucket_00000", 9),),
        subdirs=(
            DirEntry(
                "delta_0000001_0000001",
                (FileEntry("delta_0000001_0000001/delta_0000001_0000001/bucket_00000", 9),),
            ),
        ),
    )
    st = get_acid_state(listing(nested), committed(1))
    assert [f.path for f in st.delta_files["delta_0000001_0000001"]] == ["delta_0000001_0000001/bucket_00000"]
    bad = DirEntry(
        "base_0000001",
        (),
        subdirs=(DirEntry("sub", (FileEntry("base_0000001/sub/bucket_00000", 9),)),),
    )
    with pytest.raises(AcidFormatError, match="Found file in sub-directory of ACID directory"):
        get_acid_state(listing(bad), committed(1))
    # not read -> not inspected
    st = get_acid_state(listing(bad, d("base_0000002")), committed(2))
    assert st.base.name == "base_0000002"


def test_empty_listing():
    st = get_acid_state(TableListing(), committed(0))
    assert st == AcidState(None, (), (), (), {}, (), (), ())


def test_delete_delta_twin_without_stmt_is_obsolete():
    # fullacid_delete_delta_test: delete_delta_4_4 (no stmt) and delete_delta_4_4_0000
    lst = listing(
        "delete_delta_0000004_0000004",
        "delete_delta_0000004_0000004_0000",
        "delete_delta_0000007_0000007_0000",
    )
    st = get_acid_state(lst, committed(7))
    assert names(st) == (None, [], ["delete_delta_0000004_0000004", "delete_delta_0000007_0000007_0000"])
    assert st.obsolete == ("delete_delta_0000004_0000004_0000",)
