# ruff: noqa: SIM300 - upper-case Hive column attributes look like constants to ruff
"""Locks (HIVE_LOCKS, Hive 3.1's compatibility), write-write conflicts (WRITE_SET) and time-outs.

Store-level tests run on SQLite, PostgreSQL and MariaDB (the ``store`` fixture); the engine-level ones run
two real connections (one Spark) on one store, a SQLite file and a PostgreSQL database.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

import hiveacid_sql
from hiveacid_sql.errors import LockError, TxnAbortedError, WriteConflictError
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.locks import EXCLUSIVE, SHARED_READ, SHARED_WRITE, LockComponent
from tests.support.acid_files import listing
from tests.support.stores import store_url

R, W, E = SHARED_READ, SHARED_WRITE, EXCLUSIVE


def table_lock(kind: str, table: str = "t", db: str = "default", partition: str | None = None) -> list[LockComponent]:
    return [LockComponent(db, table, partition, kind)]


def open_txn(store) -> int:
    return store.open_txn("me", "here")


# Hive 3.1 jump table, acquired locks: (held, requested) -> granted?
MATRIX = [
    (R, R, True), (R, W, True), (R, E, False),
    (W, R, True), (W, W, False), (W, E, False),
    (E, R, False), (E, W, False), (E, E, False),
]


@pytest.mark.parametrize(("held", "wanted", "granted"), MATRIX, ids=[f"{h}-{w}" for h, w, _ in MATRIX])
def test_compatibility_matrix(store, held, wanted, granted):
    first, second = open_txn(store), open_txn(store)
    assert store.locks.lock(first, table_lock(held), "me", "here").acquired
    response = store.locks.lock(second, table_lock(wanted), "you", "there")
    assert response.acquired is granted
    if not granted:
        assert response.blocker["HL_TXNID"] == first
        locks = store.locks.show_locks("default", "t")
        assert [(lk["txn_id"], lk["state"]) for lk in locks] == [(first, "ACQUIRED"), (second, "WAITING")]
        assert locks[1]["blocked_by"] == f"{locks[0]['lock_id']}.1"
        store.commit_txn(first)  # releases its locks; the waiter gets through on its next check
        assert store.locks.check_lock(response.lock_id).acquired
        assert store.locks.show_locks()[0]["blocked_by"] is None


def test_scope_same_txn_other_tables_partitions_and_databases(store):
    a, b = open_txn(store), open_txn(store)
    assert store.locks.lock(a, table_lock(E), "me", "here").acquired
    assert store.locks.lock(a, table_lock(W), "me", "here").acquired  # own locks never block
    assert store.locks.lock(b, table_lock(E, "u"), "you", "there").acquired  # another table
    assert store.locks.lock(b, table_lock(E, "t", db="other"), "you", "there").acquired  # another database
    c = open_txn(store)
    # partitions: different partitions are independent, a table lock covers every partition
    assert store.locks.lock(c, table_lock(W, "p", partition="x=1"), "c", "h").acquired
    d = open_txn(store)
    assert store.locks.lock(d, table_lock(W, "p", partition="x=2"), "d", "h").acquired
    assert not store.locks.lock(d, table_lock(W, "p", partition="x=1"), "d", "h").acquired
    assert not store.locks.lock(d, table_lock(E, "p"), "d", "h").acquired
    # a database lock covers its tables; Hive lets a database SHARED_READ pass a table EXCLUSIVE
    e = open_txn(store)
    assert not store.locks.lock(e, [LockComponent("other", None, None, E)], "e", "h").acquired
    assert store.locks.lock(open_txn(store), [LockComponent("other", None, None, R)], "f", "h").acquired


def test_waiting_order_and_all_or_nothing(store):
    reader, writer, late, last = open_txn(store), open_txn(store), open_txn(store), open_txn(store)
    assert store.locks.lock(reader, table_lock(R), "r", "h").acquired
    excl = store.locks.lock(writer, table_lock(E), "w", "h")
    assert not excl.acquired
    # Hive 3.1 sorts waiting locks by type before age: a later SHARED_READ passes the waiting EXCLUSIVE ...
    assert store.locks.lock(late, table_lock(R, "t"), "l", "h").acquired
    # ... a later EXCLUSIVE queues behind it; a request waits as a whole (its lock on u stays WAITING too)
    queued = store.locks.lock(last, table_lock(E, "u") + table_lock(E), "q", "h")
    assert not queued.acquired and queued.blocker["HL_TXNID"] in (reader, late, writer)
    assert {(lk["table"], lk["state"]) for lk in store.locks.show_locks() if lk["txn_id"] == last} == {
        ("t", "WAITING"), ("u", "WAITING"),
    }
    store.abort_txn(reader)
    store.commit_txn(late)
    assert store.locks.check_lock(excl.lock_id).acquired
    assert not store.locks.check_lock(queued.lock_id).acquired
    store.commit_txn(writer)
    assert store.locks.check_lock(queued.lock_id).acquired


def test_acquire_gives_up_naming_the_blocker_and_withdraws_its_request(store):
    holder, waiter = open_txn(store), open_txn(store)
    held = store.locks.acquire(holder, table_lock(W), "h", "host", retries=0, sleep_s=0)
    with pytest.raises(LockError) as err:
        store.locks.acquire(waiter, table_lock(W), "w", "host", retries=2, sleep_s=0.01)
    message = str(err.value)
    assert message.startswith("Lock acquisition failed: ")
    assert f"is blocked by lockid:{held}.1 (SHARED_WRITE on default.t, ACQUIRED, txnid:{holder})" in message
    assert [lk["txn_id"] for lk in store.locks.show_locks()] == [holder]
    # locks of no transaction (DDL) are released by unlock
    store.abort_txn(holder)
    ddl = store.locks.acquire(0, table_lock(E), "ddl", "host", retries=0, sleep_s=0)
    assert store.locks.show_locks()[0]["txn_id"] == 0
    store.locks.unlock(ddl)
    assert store.locks.show_locks() == []


def write(store, txn: int, op: str, table: str = "t", partition: str | None = None) -> None:
    write_id = store.allocate_write_id(txn, "default", table)
    store.add_components(txn, "default", table, write_id, op, [partition])


def test_write_conflict_message_and_outcome(store):
    first, second = open_txn(store), open_txn(store)
    write(store, second, "u")
    store.commit_txn(second)
    write(store, first, "u")
    with pytest.raises(WriteConflictError) as err:
        store.commit_txn(first)
    assert str(err.value) == (
        f"Aborting [txnid:{first},{second}] due to a write conflict on default/t "
        f"committed by [txnid:{second},{second}] u/u"
    )
    assert store.txn_state(first) == "aborted"
    with store.engine.connect() as conn:
        ws = conn.execute(sa.select(s.WRITE_SET.c.WS_TXNID, s.WRITE_SET.c.WS_OPERATION_TYPE)).all()
    assert ws == [(second, "u")]  # the loser's write set is not recorded


@pytest.mark.parametrize(
    ("mine", "theirs", "conflict"),
    [("u", "d", True), ("d", "u", True), ("d", "d", False), ("u", "i", False), ("i", "u", False)],
)
def test_which_operations_conflict(store, mine, theirs, conflict):
    first, second = open_txn(store), open_txn(store)
    write(store, second, theirs)
    store.commit_txn(second)
    write(store, first, mine)
    if conflict:
        with pytest.raises(WriteConflictError, match=f" {mine}/{theirs}$"):
            store.commit_txn(first)
    else:
        store.commit_txn(first)
        assert store.txn_state(first) == "committed"


def test_no_conflict_across_partitions_after_the_fact_or_with_what_was_seen(store):
    a, b = open_txn(store), open_txn(store)
    write(store, b, "u", "p", "x=1")
    store.commit_txn(b)
    write(store, a, "u", "p", "x=2")
    store.commit_txn(a)  # another partition
    c = open_txn(store)  # opened after b committed: no overlap
    write(store, c, "u", "p", "x=1")
    store.commit_txn(c)
    d, e = open_txn(store), open_txn(store)
    write(store, e, "u")
    store.commit_txn(e)
    seen = store.valid_txns(d)  # d read after e's commit (it waited for e's lock)
    write(store, d, "u")
    store.commit_txn(d, seen)
    assert store.txn_state(d) == "committed"


def test_abort_timed_out_releases_locks_and_reaps_the_write_set(store):
    stale, fresh = open_txn(store), open_txn(store)
    store.locks.lock(stale, table_lock(W), "s", "h")
    write(store, fresh, "u")
    store.commit_txn(fresh)
    later = int(time.time() * 1000) + 10_000
    keeper = open_txn(store)
    with store.engine.begin() as conn:  # keeper heartbeated "just now" in the future clock
        conn.execute(sa.update(s.TXNS).where(s.TXNS.c.TXN_ID == keeper).values(TXN_LAST_HEARTBEAT=later))
    assert store.abort_timed_out(5.0, now_ms=later) == [stale]
    assert store.txn_state(stale) == "aborted" and store.txn_state(keeper) == "open"
    assert store.locks.show_locks() == []
    with store.engine.connect() as conn:  # fresh's commit id is below every open txn: nobody can conflict
        assert conn.execute(sa.select(sa.func.count()).select_from(s.WRITE_SET)).scalar() == 0
    with pytest.raises(TxnAbortedError):
        store.heartbeat(stale)


# ---------------------------------------------------------------------------------------------- engine
CREATE = "CREATE TABLE t (id int, name string) STORED AS ORC TBLPROPERTIES ('transactional'='true')"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def two(request, spark, tmp_path: Path) -> Iterator[tuple]:
    """Two connections (two drivers) on one warehouse and one store."""
    warehouse = tmp_path / "warehouse"
    with store_url(request.param, tmp_path) as url:
        a = hiveacid_sql.connect(spark=spark, warehouse=warehouse, store_url=url)
        b = hiveacid_sql.connect(spark=spark, warehouse=warehouse, store_url=url)
        for session in (a, b):
            session.sql("SET hive.lock.numretries=2")
            session.sql("SET hive.lock.sleep.between.retries=50ms")
        try:
            yield a, b, warehouse
        finally:
            a.close()
            b.close()


def names(acid) -> list[tuple]:
    return [tuple(r) for r in acid.sql("SELECT id, name FROM t ORDER BY id").collect()]


def test_interleaved_updates_lose_to_the_first_committer(two):
    a, b, warehouse = two
    a.sql(CREATE)
    a.sql("INSERT INTO t VALUES (1, 'x'), (2, 'y')")
    a.begin()
    b.begin()
    ra = a.sql("UPDATE t SET name = 'from a' WHERE id = 1")
    a.commit()
    rb = b.sql("UPDATE t SET name = 'from b' WHERE id = 2")  # a's lock is gone; b reads as of its BEGIN
    with pytest.raises(TxnAbortedError) as err:
        b.commit()
    assert str(err.value) == (
        f"Transaction manager has aborted the transaction txnid:{rb.txn_id}.  Reason: Aborting "
        f"[txnid:{rb.txn_id},{rb.txn_id}] due to a write conflict on default/t committed by "
        f"[txnid:{ra.txn_id},{rb.txn_id}] u/u"
    )
    assert not b.in_transaction
    assert names(b) == [(1, "from a"), (2, "y")]  # b's update is lost, visibly, not silently
    assert not any(f"_{rb.write_id:07d}_" in f for f in listing(warehouse / "t"))
    assert b.store.txn_state(rb.txn_id) == "aborted"


def test_a_writer_waits_for_a_transactions_lock_then_fails_naming_it(two):
    a, b, _ = two
    a.sql(CREATE)
    a.sql("INSERT INTO t VALUES (1, 'x')")
    a.begin()
    ra = a.sql("DELETE FROM t WHERE id = 1")
    locks = b.sql("SHOW LOCKS t").collect()
    assert [(r.lock_type, r.lock_state, r.transaction_id, r.table) for r in locks] == [
        ("SHARED_WRITE", "ACQUIRED", ra.txn_id, "t")
    ]
    assert b.sql("SHOW LOCKS EXTENDED").columns[:7] == [
        "lockid", "database", "table", "partition", "lock_state", "blocked_by", "lock_type",
    ]
    with pytest.raises(LockError, match=rf"Lock acquisition failed: .* blocked by lockid:\S+ \(SHARED_WRITE on "
                                        rf"default.t, ACQUIRED, txnid:{ra.txn_id}\)"):
        b.sql("UPDATE t SET name = 'z'")
    with pytest.raises(LockError, match="EXCLUSIVE on default.t"):
        b.sql("DROP TABLE t")
    assert b.sql("INSERT INTO t VALUES (2, 'y')").num_inserted_rows == 1  # SHARED_READ goes with SHARED_WRITE
    a.commit()
    assert names(b) == [(2, "y")]
    assert b.sql("SHOW LOCKS").count() == 0
    b.sql("DROP TABLE t")  # nothing holds it now
    assert b.catalog.list_tables("default") == []


def test_a_reading_transaction_holds_off_drop_table(two):
    a, b, _ = two
    a.sql(CREATE)
    with a.atomic():
        a.sql("SELECT * FROM t").collect()
        assert [(r.lock_type, r.lock_state) for r in b.sql("SHOW LOCKS").collect()] == [("SHARED_READ", "ACQUIRED")]
        with pytest.raises(LockError):
            b.sql("DROP TABLE t")
    b.sql("DROP TABLE t")


# ----------------------------------------------------------------------------- partitions, interleavings
PARTITIONED = (
    "CREATE TABLE pt (id int, name string) PARTITIONED BY (p int) STORED AS ORC TBLPROPERTIES ('transactional'='true')"
)


def _pt(acid) -> list[tuple]:
    return [tuple(r) for r in acid.sql("SELECT p, id, name FROM pt ORDER BY p, id").collect()]


@pytest.mark.parametrize("two", ["sqlite"], indirect=True)
def test_writers_of_different_partitions_do_not_wait_and_an_unpruned_one_locks_the_table(two):
    a, b, _ = two
    a.sql(PARTITIONED)
    a.sql("INSERT INTO pt VALUES (1, 'x', 1), (2, 'y', 2), (3, 'z', 3)")
    a.begin()
    ra = a.sql("UPDATE pt SET name = 'a' WHERE p = 1")
    locks = [(r.lock_type, r.partition, r.transaction_id) for r in b.sql("SHOW LOCKS pt").collect()]
    assert sorted(locks, key=str) == sorted(
        [("SHARED_READ", None, ra.txn_id), ("SHARED_WRITE", "p=1", ra.txn_id)], key=str
    )
    rb = b.sql("DELETE FROM pt WHERE p = 2")  # another partition: granted at once, auto-committed
    assert rb.num_deleted_rows == 1
    b.sql("MERGE INTO pt t USING (SELECT 3 AS id) s ON t.id = s.id AND t.p = 3 WHEN MATCHED THEN UPDATE SET name = 'b'")
    with pytest.raises(LockError, match=r"SHARED_WRITE on default\.pt/p=1, ACQUIRED, txnid:"):
        b.sql("UPDATE pt SET name = 'c' WHERE p IN (1, 3)")  # overlaps a's partition
    with pytest.raises(LockError, match=r"blocked by lockid:\S+ \(SHARED_WRITE on default\.pt/p=1"):
        b.sql("DELETE FROM pt WHERE id = 1")  # no partition predicate: the whole table, which holds p=1
    with pytest.raises(LockError):
        b.sql("INSERT OVERWRITE TABLE pt PARTITION (p = 2) VALUES (9, 'o')")  # EXCLUSIVE on the table
    assert b.sql("INSERT INTO pt VALUES (4, 'w', 4)").num_inserted_rows == 1  # SHARED_READ goes with all
    a.commit()  # different partitions: no write conflict either
    assert _pt(b) == [(1, 1, "a"), (3, 3, "b"), (4, 4, "w")]
    assert b.sql("SHOW LOCKS").count() == 0


# Hive's TestDbTxnManager2 write-set cases, stepped in one thread: both transactions open (the second reads, so
# its snapshot is taken), the first writes and commits, then the second writes and commits. (first, second, the
# second's conflict suffix or None). CI runs three; `--long` all.
_R = [pytest.mark.release]
INTERLEAVINGS = [
    pytest.param("UPDATE pt SET name = 'a' WHERE p = 1", "UPDATE pt SET name = 'b' WHERE p = 1", "u/u", id="U-U", marks=_R),
    pytest.param("DELETE FROM pt WHERE p = 1 AND id = 1", "UPDATE pt SET name = 'b' WHERE p = 1", "u/d", id="D-U"),
    pytest.param("UPDATE pt SET name = 'a' WHERE p = 1", "DELETE FROM pt WHERE p = 1", "d/u", id="U-D", marks=_R),
    pytest.param("DELETE FROM pt WHERE p = 1 AND id = 1", "DELETE FROM pt WHERE p = 1", None, id="D-D"),
    pytest.param(
        "UPDATE pt SET name = 'a' WHERE p = 1", "UPDATE pt SET name = 'b' WHERE p = 2", None, id="U-U-other-partition",
        marks=_R,
    ),
    pytest.param("INSERT INTO pt VALUES (5, 'i', 1)", "UPDATE pt SET name = 'b' WHERE p = 1", None, id="I-U", marks=_R),
    pytest.param("UPDATE pt SET name = 'a' WHERE p = 1", "INSERT INTO pt VALUES (5, 'i', 1)", None, id="U-I", marks=_R),
    pytest.param(
        "MERGE INTO pt t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE",
        "UPDATE pt SET name = 'b' WHERE p = 1",
        "u/d",
        id="MERGE-delete-U",
    ),
    pytest.param(
        "MERGE INTO pt t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE",
        "DELETE FROM pt WHERE p = 1",
        None,
        id="MERGE-delete-D",
        marks=_R,
    ),
]


@pytest.mark.parametrize("two", ["sqlite"], indirect=True)
@pytest.mark.parametrize(("first", "second", "conflict"), INTERLEAVINGS)
def test_write_conflict_matrix_stepped_statement_by_statement(two, first, second, conflict):
    a, b, _ = two
    a.sql(PARTITIONED)
    a.sql("INSERT INTO pt VALUES (1, 'x', 1), (2, 'y', 1), (3, 'z', 2)")
    a.begin()
    b.begin()
    b.sql("SELECT count(*) FROM pt").collect()  # b's snapshot: before a's write
    ra = a.sql(first)
    a.commit()
    expected_after_a = _pt(a)
    rb = b.sql(second)
    if conflict is None:
        b.commit()
        assert b.store.txn_state(rb.txn_id) == "committed"
        return
    with pytest.raises(TxnAbortedError) as err:
        b.commit()
    assert str(err.value) == (
        f"Transaction manager has aborted the transaction txnid:{rb.txn_id}.  Reason: Aborting "
        f"[txnid:{rb.txn_id},{rb.txn_id}] due to a write conflict on default/pt/p=1 committed by "
        f"[txnid:{ra.txn_id},{rb.txn_id}] {conflict}"
    )
    assert not b.in_transaction
    assert _pt(b) == expected_after_a  # the loser changed nothing
