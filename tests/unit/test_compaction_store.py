"""The compaction queue and read leases on the real store backends (SQLite, PostgreSQL, MariaDB), and the
storage rules of compaction on hand-built directory listings (no Spark)."""

from __future__ import annotations

import time

import pytest

from hiveacid_sql.acid.compaction import (
    determine_compaction_type,
    no_auto_compaction,
    obsolete_after,
    plan_compaction,
)
from hiveacid_sql.acid.state import DirEntry, FileEntry, TableListing, get_acid_state
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.errors import TxnError
from hiveacid_sql.txn.compactions import CompactionQueue, ReadLeases


# ------------------------------------------------------------------------------------------------ queue
def test_queue_life_cycle_in_hive_states(store):
    queue = CompactionQueue(store.engine)
    assert queue.enqueue("Default", "T", None, "minor", properties={"k": "v"}, run_as="me") == (1, True)
    assert queue.enqueue("default", "t", None, "major") == (1, False)  # already initiated
    assert queue.enqueue("default", "t", "p=1", "major") == (2, True)  # another directory
    info = queue.claim("worker-1")
    assert (info.id, info.state_name, info.kind, info.worker_id, info.properties) == (
        1, "working", "minor", "worker-1", {"k": "v"})
    assert info.start is not None
    assert queue.enqueue("default", "t", None, "major") == (1, False)  # working counts too
    assert queue.claim("worker-2", cq_id=1) is None
    queue.update_meta(1, build_dir="_tmp_x")
    queue.mark_compacted(1, 7)
    ready = queue.get(1)
    assert (ready.state_name, ready.highest_write_id, ready.meta["build_dir"]) == ("ready for cleaning", 7, "_tmp_x")
    assert ready.meta["next_txn_id"] == 1 and ready.meta["next_lease_id"] == 1
    with pytest.raises(TxnError):
        queue.mark_compacted(1, 7)  # no longer working
    queue.mark_cleaned(1)
    done = queue.get(1)
    assert (done.state_name, done.highest_write_id) == ("succeeded", 7)
    assert done.end >= done.start
    second = queue.claim("worker-2")
    assert second.id == 2
    queue.mark_failed(2, "boom")
    assert [(c.id, c.state_name, c.error) for c in queue.list()] == [(1, "succeeded", None), (2, "failed", "boom")]
    assert queue.recent_failures("default", "t", "p=1", 2) == 1
    assert queue.recent_failures("default", "t", None, 2) == 0
    attempt = queue.record_attempt("default", "t", None, "major", "no")
    assert queue.get(attempt).state_name == "attempted"


def test_timed_out_worker_is_revoked(store):
    queue = CompactionQueue(store.engine)
    queue.enqueue("default", "t", None, "major")
    queue.claim("dead-worker")
    assert queue.revoke_timed_out(3_600_000) == []
    time.sleep(0.01)
    assert queue.revoke_timed_out(0) == [1]
    again = queue.claim("live-worker")
    assert (again.id, again.worker_id) == (1, "live-worker")


def test_cleaner_waits_for_older_transactions_and_leases(store):
    queue, leases = CompactionQueue(store.engine), ReadLeases(store.engine)
    old_txn = store.open_txn("u", "h")
    old_lease = leases.acquire([("default", "t"), ("default", "other")], seconds=60)
    other_table = leases.acquire([("default", "u")], seconds=60)
    queue.enqueue("default", "t", None, "major")
    queue.claim("w")
    queue.mark_compacted(1, 3)
    newer_txn = store.open_txn("u", "h")
    newer_lease = leases.acquire([("default", "t")], seconds=60)
    info = queue.get(1)
    assert not queue.readers_done(info)
    store.commit_txn(old_txn)
    assert not queue.readers_done(info)  # the lease taken before the compaction is still live
    leases.release(old_lease)
    assert queue.readers_done(info)  # newer readers, and readers of other tables, do not count
    expired = leases.acquire([("default", "t")], seconds=0)
    assert [r["RL_ID"] for r in leases.live()] == [*other_table, *newer_lease]
    leases.release(expired + expired)
    store.abort_txn(newer_txn)


def test_show_read_leases_names_holders_and_the_compactions_they_hold_back(store):
    import socket
    import subprocess
    import sys

    queue, leases = CompactionQueue(store.engine), ReadLeases(store.engine)
    mine = leases.acquire([("Default", "T")], seconds=60, txn_id=None)
    exited = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(exited.stdout)  # a process of this host that has ended
    gone = leases.acquire([("default", "t")], seconds=60, agent=f"hiveacid-sql pid {dead_pid}")
    remote = leases.acquire([("default", "u")], seconds=60, host="elsewhere", agent="hiveacid-sql pid 1")
    leases.acquire([("default", "t")], seconds=0)  # expired: not listed
    queue.enqueue("default", "t", None, "major")
    queue.claim("w")
    queue.mark_compacted(1, 3)  # 'ready for cleaning', waiting for the two leases of t taken before it
    later = leases.acquire([("default", "t")], seconds=60)
    shown = leases.show()
    assert [(r.lease_id, r.db, r.table, r.holder, r.blocks_cleaning) for r in shown] == [
        (mine[0], "default", "t", "RUNNING", [1]),
        (gone[0], "default", "t", "GONE", [1]),
        (remote[0], "default", "u", "UNKNOWN", []),
        (later[0], "default", "t", "RUNNING", []),
    ]
    first = shown[0]
    assert (first.host, first.txn_id) == (socket.gethostname(), None)
    assert first.expires - first.started == 60_000
    assert [r.lease_id for r in leases.show("default", "U")] == remote
    assert leases.show("other") == []
    leases.reap_dead()  # what the cleaner does first: the exited process's lease ends
    assert [r.lease_id for r in leases.show("default", "t")] == [mine[0], later[0]]


def test_heartbeats_keep_a_live_holders_leases_and_a_silent_holders_lapse_on_any_host(store):
    import socket

    from hiveacid_sql.txn.compactions import now_ms
    from hiveacid_sql.txn.heartbeat import Heartbeater

    queue, leases = CompactionQueue(store.engine), ReadLeases(store.engine)
    # another host's process that stopped heartbeating (its pid cannot be checked from here), and ours
    remote = leases.acquire(
        [("default", "t"), ("default", "u")], seconds=0.8, host="elsewhere", agent="hiveacid-sql pid 1"
    )
    ours = leases.acquire([("default", "t")], seconds=0.8)
    for table in ("t", "u"):
        queue.enqueue("default", table, None, "major")
        queue.claim("w")
    queue.mark_compacted(1, 3)
    queue.mark_compacted(2, 3)
    on_t, on_u = queue.get(1), queue.get(2)
    txn = store.open_txn("u", "h")  # newer than the compactions: it holds nothing back
    beating = Heartbeater(store, txn, 0.2, lease_s=1.0)  # the transaction and our lease, one store call a beat
    beating.hold_leases(ours)
    assert [r["RL_ID"] for r in leases.live()] == [*remote, *ours]
    assert "2 read lease(s)" in queue.cleaning_waits_for(on_t) and not queue.readers_done(on_u)
    leases.reap_dead()  # the cleaner's first step cannot end another host's lease
    time.sleep(1.2)
    assert [r["RL_ID"] for r in leases.live()] == ours  # the silent holder's leases lapsed after 0.8 s
    assert queue.readers_done(on_u)  # the cleaner proceeds on u
    waits = queue.cleaning_waits_for(on_t)
    assert "1 read lease(s)" in waits and socket.gethostname() in waits
    assert store.abort_timed_out(0.8) == []  # the transaction was heartbeated by the same beats
    assert beating.beats >= 3
    beating.stop()  # our process "dies": nothing extends its lease any more
    (expires,) = [r["RL_EXPIRES"] for r in leases.live()]
    assert expires <= now_ms() + 1000
    deadline = time.monotonic() + 5
    while not queue.readers_done(on_t) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert queue.readers_done(on_t) and leases.live() == []
    store.abort_txn(txn)


def test_a_heartbeat_keeps_a_lease_until_its_end_at_most_and_never_revives_one(store):
    from hiveacid_sql.errors import TxnAbortedError
    from hiveacid_sql.txn.compactions import now_ms
    from hiveacid_sql.txn.heartbeat import UNTIL_DROPPED, Heartbeater

    leases = ReadLeases(store.engine)
    ending, long, released, lapsed = (leases.acquire([("default", n)], seconds=s) for n, s in
                                      (("a", 60), ("b", 1), ("c", 60), ("d", 0)))
    leases.release(released)
    aborted = store.open_txn("u", "h")
    store.abort_txn(aborted)
    end = now_ms() + 5_000
    before = now_ms()
    gone = store.heartbeat_holder(
        [aborted], {ending[0]: end, long[0]: UNTIL_DROPPED, released[0]: UNTIL_DROPPED, lapsed[0]: UNTIL_DROPPED}, 30
    )
    assert list(gone) == [aborted] and isinstance(gone[aborted], TxnAbortedError)
    live = {r["RL_ID"]: r["RL_EXPIRES"] for r in leases.live()}
    assert set(live) == {ending[0], long[0]}  # released stays gone, lapsed stays lapsed
    assert live[ending[0]] == end  # it ends before the next expiry: at its end
    assert before + 30_000 <= live[long[0]] <= now_ms() + 30_000
    # the holder forgets a lease past its end, whose row lapsed at that end
    beating = Heartbeater(store, None, 0.05, lease_s=60)
    short = leases.acquire([("default", "e")], seconds=0.3)
    beating.hold_leases(short, now_ms() + 300)
    assert beating.held_leases() == short
    time.sleep(0.5)
    assert beating.held_leases() == [] and short[0] not in {r["RL_ID"] for r in leases.live()}
    beating.stop()


def test_aborted_transactions_are_counted_per_table(store):
    queue = CompactionQueue(store.engine)
    for _ in range(3):
        txn = store.open_txn("u", "h")
        store.allocate_write_id(txn, "default", "t")
        store.abort_txn(txn)
    committed = store.open_txn("u", "h")
    store.allocate_write_id(committed, "default", "t")
    store.commit_txn(committed)
    assert queue.aborted_txn_count("default", "t") == 3
    assert queue.aborted_txn_count("default", "u") == 0


# ------------------------------------------------------------------------------------------------ rules
def _d(name: str, size: int = 100, compacted: bool = False) -> DirEntry:
    return DirEntry(name, (FileEntry(f"{name}/bucket_00000", size),), compacted)


WALKTHROUGH = TableListing((
    _d("delta_0000001_0000001_0000"), _d("delta_0000002_0000002_0000"),
    _d("delete_delta_0000002_0000002_0001"), _d("delta_0000002_0000002_0001"),
))


def test_plan_minor_and_major_names():
    ids = ValidWriteIdList.all_committed("default.employee", 2)
    minor = plan_compaction(WALKTHROUGH, ids, "minor")
    assert (minor.insert_dir, minor.delete_dir, minor.highest_write_id) == (
        "delta_0000001_0000002", "delete_delta_0000001_0000002", 2)
    assert minor.input_dirs == (
        "delta_0000001_0000001_0000", "delta_0000002_0000002_0000", "delete_delta_0000002_0000002_0001",
        "delta_0000002_0000002_0001")
    major = plan_compaction(WALKTHROUGH, ids, "major")
    assert (major.insert_dir, major.delete_dir) == ("base_0000002", None)


def test_plan_stops_below_the_lowest_open_write_id():
    listing = TableListing(tuple(_d(f"delta_{w:07d}_{w:07d}_0000") for w in range(1, 6)))
    ids = ValidWriteIdList.create("default.t", 5, open_write_ids=[4], aborted_write_ids=[2])
    minor = plan_compaction(listing, ids, "minor")
    assert (minor.insert_dir, minor.highest_write_id) == ("delta_0000001_0000003", 3)
    assert plan_compaction(listing, ids, "major").insert_dir == "base_0000003"
    one = TableListing((_d("delta_0000001_0000001_0000"),))
    assert plan_compaction(one, ValidWriteIdList.all_committed("t", 1), "minor") is None
    assert plan_compaction(TableListing((_d("base_0000001", compacted=True),)), ids, "major") is None
    with pytest.raises(ValueError):
        plan_compaction(one, ids, "rebalance")


def test_aborted_writers_directories_are_never_compaction_inputs():
    # a writer killed mid-UPDATE left a 0-byte file under write id 3, later aborted: no compaction may read it
    listing = TableListing((
        _d("delta_0000001_0000001_0000"), _d("delete_delta_0000003_0000003_0000", size=0),
        _d("delta_0000003_0000003_0000", size=0), _d("delta_0000004_0000004_0000"),
    ))
    ids = ValidWriteIdList.create("default.t", 4, aborted_write_ids=[3])
    aborted = {"delete_delta_0000003_0000003_0000", "delta_0000003_0000003_0000"}
    for kind in ("minor", "major"):
        plan = plan_compaction(listing, ids, kind)
        assert not aborted & set(plan.input_dirs), kind
        assert set(plan.state.aborted) == aborted  # left for the cleaner
    assert plan_compaction(listing, ids, "minor").insert_dir == "delta_0000001_0000004"
    # only aborted deltas beside one committed delta: nothing to compact, the cleaner still removes them
    lone = TableListing((_d("delta_0000001_0000001_0000"), _d("delta_0000002_0000002_0000", size=0)))
    assert plan_compaction(lone, ValidWriteIdList.create("default.t", 2, aborted_write_ids=[2]), "minor") is None


def test_major_of_original_files_and_what_becomes_obsolete():
    listing = TableListing((_d("delta_0000001_0000001_0000"),), (FileEntry("000000_0", 50),))
    plan = plan_compaction(listing, ValidWriteIdList.all_committed("t", 1), "major")
    assert plan.insert_dir == "base_0000001" and [f.path for f in plan.state.originals] == ["000000_0"]
    after = TableListing(listing.dirs + (_d("base_0000001", compacted=True),), listing.files)
    assert sorted(obsolete_after(after, 1)) == ["000000_0", "delta_0000001_0000001_0000"]
    # a reader whose snapshot predates write id 1 cannot use the base: the old files are what it reads
    with pytest.raises(Exception, match="Not enough history"):
        get_acid_state(TableListing((_d("base_0000001", compacted=True),)), ValidWriteIdList.create("t", 1, open_write_ids=[1]))


def test_initiator_rules():
    ids = ValidWriteIdList.all_committed("t", 20)
    many = TableListing(tuple(_d(f"delta_{w:07d}_{w:07d}_0000", 10) for w in range(1, 12)))
    sizes = {d.name: 10 for d in many.dirs}
    state = get_acid_state(many, ids)
    assert determine_compaction_type(state, sizes, 0, {}, {}) == "major"  # 11 > 10 deltas, no base
    assert determine_compaction_type(state, sizes, 0, {}, {"hive.compactor.delta.num.threshold": "11"}) is None
    based = TableListing((_d("base_0000001", 1000, True),) + many.dirs[1:])
    sizes = {d.name: sum(f.size for f in d.files) for d in based.dirs}
    state = get_acid_state(based, ids)
    assert determine_compaction_type(state, sizes, 0, {}, {}) is None  # 10 deltas, 100/1000 bytes = 0.1
    assert determine_compaction_type(state, sizes, 0, {"compactorthreshold.hive.compactor.delta.pct.threshold": "0.05"}, {}) == "major"
    assert determine_compaction_type(state, sizes, 0, {"COMPACTORTHRESHOLD.hive.compactor.delta.num.threshold": "9"}, {}) == "minor"
    assert determine_compaction_type(state, sizes, 1001, {}, {}) == "major"
    assert determine_compaction_type(state, sizes, 1000, {}, {}) is None
    assert no_auto_compaction({"NO_AUTO_COMPACTION": "TRUE"}) and not no_auto_compaction({"no_auto_compaction": "false"})


def test_a_half_published_minor_compaction_is_ignored_until_complete():
    from hiveacid_sql.acid.compaction import without_unfinished_publish

    ids = ValidWriteIdList.all_committed("t", 2)
    insert_only = TableListing(WALKTHROUGH.dirs + (_d("delta_0000001_0000002"),))
    assert without_unfinished_publish(insert_only) == WALKTHROUGH
    delete_only = TableListing(WALKTHROUGH.dirs + (_d("delete_delta_0000001_0000002"),))
    assert without_unfinished_publish(delete_only) == WALKTHROUGH
    both = TableListing(insert_only.dirs + (_d("delete_delta_0000001_0000002"),))
    assert without_unfinished_publish(both) == both
    chosen = get_acid_state(without_unfinished_publish(both), ids)
    assert [d.name for d in chosen.all_deltas] == ["delete_delta_0000001_0000002", "delta_0000001_0000002"]
    # Hive writes no delete_delta when the range had no deletes: a lone output without delete inputs stays
    no_deletes = TableListing((_d("delta_0000001_0000001_0000"), _d("delta_0000002_0000002_0000"),
                               _d("delta_0000001_0000002")))
    assert without_unfinished_publish(no_deletes) == no_deletes
    cleaned = TableListing((_d("delta_0000001_0000002"),))
    assert without_unfinished_publish(cleaned) == cleaned


def test_history_keeps_hives_retention_per_directory_and_state(store):
    queue = CompactionQueue(store.engine)
    for part in ("p=1", "p=2"):
        for n in range(5):
            cq_id, _ = queue.enqueue("default", "t", part, "major")
            queue.claim("w")
            if n % 2:
                queue.mark_failed(cq_id, "no")
            else:
                queue.mark_compacted(cq_id, 1)
                queue.mark_cleaned(cq_id)
    assert queue.purge_history({"s": 2, "f": 1, "a": 2}) == 4
    kept = [(c.partition, c.id, c.state_name) for c in queue.list()]
    assert kept == [
        ("p=1", 3, "succeeded"), ("p=1", 4, "failed"), ("p=1", 5, "succeeded"),
        ("p=2", 8, "succeeded"), ("p=2", 9, "failed"), ("p=2", 10, "succeeded"),
    ]


def test_insert_only_compaction_rules():
    """Insert-only directories: nested files (HIVE_UNION_SUBDIR_n) are inputs, a minor compaction has no
    delete delta output, and the initiator asks major where a full-ACID table would get minor."""
    union = DirEntry(
        "delta_0000002_0000002_0000", (),
        subdirs=(DirEntry("HIVE_UNION_SUBDIR_1", (FileEntry("delta_0000002_0000002_0000/HIVE_UNION_SUBDIR_1/000000_0", 10),)),),
    )
    mm = TableListing((DirEntry("base_0000001", (FileEntry("base_0000001/000000_0", 1000),)), union,
                       DirEntry("delta_0000003_0000003_0000", (FileEntry("delta_0000003_0000003_0000/000000_0", 10),))))
    ids = ValidWriteIdList.all_committed("t", 3)
    minor = plan_compaction(mm, ids, "minor", insert_only=True)
    assert minor is not None and minor.insert_dir == "delta_0000002_0000003" and minor.delete_dir is None
    assert [f.path for f in minor.state.delta_files["delta_0000002_0000002_0000"]] == [
        "delta_0000002_0000002_0000/HIVE_UNION_SUBDIR_1/000000_0"
    ]
    major = plan_compaction(mm, ids, "major", insert_only=True)
    assert major is not None and major.insert_dir == "base_0000003" and major.delete_dir is None
    state = get_acid_state(mm, ids, nested_files=True)
    sizes = {"base_0000001": 1000, "delta_0000002_0000002_0000": 10, "delta_0000003_0000003_0000": 10}
    table = {"compactorthreshold.hive.compactor.delta.num.threshold": "1"}
    assert determine_compaction_type(state, sizes, 0, table, {}) == "minor"
    assert determine_compaction_type(state, sizes, 0, table, {}, insert_only=True) == "major"
    assert sorted(obsolete_after(mm, 3, insert_only=True)) == []
