"""Compaction on a store without atomic rename (Hive 4's ``_v<txn>`` outputs): the planning and cleaning rules
that keep a compaction still writing (or aborted) invisible to the next compaction and to the cleaner."""

from __future__ import annotations

import pyarrow.fs as pafs

from hiveacid_sql.acid.compaction import (
    MAJOR,
    MINOR,
    aborted_dirs,
    obsolete_after,
    plan_compaction,
    without_unfinished_publish,
)
from hiveacid_sql.acid.listing import has_atomic_rename
from hiveacid_sql.acid.names import with_visibility
from hiveacid_sql.acid.state import DirEntry, FileEntry, TableListing
from hiveacid_sql.acid.writeids import ValidTxnList, ValidWriteIdList

DELTAS = ("delta_0000001_0000001_0000", "delta_0000002_0000002_0000", "delete_delta_0000002_0000002_0000")


def listing(*names: str) -> TableListing:
    return TableListing(tuple(DirEntry(n, (FileEntry(f"{n}/bucket_00000", 100),), False) for n in names))


def test_output_names_carry_the_compactors_transaction():
    assert with_visibility("base_0000002", 15) == "base_0000002_v0000015"
    plan = plan_compaction(listing(*DELTAS), ValidWriteIdList.all_committed("default.t", 2), MINOR)
    assert plan is not None
    plan = plan.visible_at(15)
    assert (plan.insert_dir, plan.delete_dir) == (
        "delta_0000001_0000002_v0000015",
        "delete_delta_0000001_0000002_v0000015",
    )
    major = plan_compaction(listing(*DELTAS), ValidWriteIdList.all_committed("default.t", 2), MAJOR)
    assert major is not None and major.visible_at(7).insert_dir == "base_0000002_v0000007"


def test_an_unfinished_output_is_no_input_and_makes_nothing_obsolete():
    half = "base_0000002_v0000015"  # compactor transaction 15 still writing it
    lst = listing(*DELTAS, half)
    running = ValidTxnList.create(20, open_txns=(15,))
    ids = ValidWriteIdList.all_committed("default.t", 2)
    plan = plan_compaction(lst, ids, MAJOR, txns=running)
    assert plan is not None and plan.state.base is None and set(plan.input_dirs) == set(DELTAS)
    assert obsolete_after(lst, 2, txns=running) == ()
    # once 15 committed, the base supersedes the deltas; without a list (a bare directory) it always does
    done = ValidTxnList.create(20)
    assert set(obsolete_after(lst, 2, txns=done)) == set(DELTAS)
    assert set(obsolete_after(lst, 2)) == set(DELTAS)
    # an aborted compactor's output is garbage for the cleaner
    failed = ValidTxnList.create(20, aborted_txns=(15,))
    assert half in aborted_dirs(lst, ids, txns=failed)
    assert half not in aborted_dirs(lst, ids, txns=running)


def test_a_v_output_pair_is_never_taken_for_half_a_rename():
    """A minor compaction's two ``_v`` outputs become visible in one commit, so they are never 'lone'."""
    lst = listing(
        "delta_0000001_0000001_0000",
        "delete_delta_0000002_0000002_0000",
        "delta_0000002_0000002_0000",
        "delta_0000001_0000002_v0000009",
    )
    assert without_unfinished_publish(lst) == lst


def test_atomic_rename_only_on_local_disk_and_hdfs():
    assert has_atomic_rename(pafs.LocalFileSystem())
    assert has_atomic_rename(pafs._MockFileSystem())  # noqa: SLF001 - pyarrow's in-memory test file system
    assert not has_atomic_rename(pafs.S3FileSystem(anonymous=True, region="us-east-1"))
