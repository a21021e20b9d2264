"""BEGIN / COMMIT / ROLLBACK: one transaction over several statements, its snapshot, its failures, its end."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

import hiveacid_sql
from hiveacid_sql.errors import TxnAbortedError, TxnStateError
from tests.support.acid_files import events, listing

CREATE = "CREATE TABLE t (id int, name string) STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def rows(acid, sql: str = "SELECT id, name FROM t ORDER BY id") -> list[tuple]:
    return [tuple(r) for r in acid.sql(sql).collect()]


@pytest.fixture()
def other(spark, warehouse) -> Iterator:
    """A second connection on the same warehouse and store (another driver)."""
    session = hiveacid_sql.connect(spark=spark, warehouse=warehouse)
    yield session
    session.close()


def test_statements_of_a_transaction_share_txn_and_write_id_and_count_statement_ids(acid, other, warehouse):
    acid.sql(CREATE)
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    acid.sql("BEGIN")
    assert acid.in_transaction
    r1 = acid.sql("INSERT INTO t VALUES (2, 'b'), (3, 'c')")
    r2 = acid.sql("UPDATE t SET name = 'B' WHERE id = 2")  # updates a row written by this transaction
    r3 = acid.sql("DELETE FROM t WHERE id = 1")
    assert r1.txn_id == r2.txn_id == r3.txn_id
    assert r1.write_id == r2.write_id == r3.write_id == 2
    assert r2.num_updated_rows == 1 and r3.num_deleted_rows == 1
    # the transaction sees its own writes; nobody else does before COMMIT
    assert rows(acid) == [(2, "B"), (3, "c")]
    assert rows(other) == [(1, "a")]
    acid.sql("COMMIT")
    assert not acid.in_transaction
    assert rows(other) == [(2, "B"), (3, "c")]
    files = [f for f in listing(warehouse / "t") if f.endswith("bucket_00000")]
    assert files == [
        "delete_delta_0000002_0000002_0001/bucket_00000",
        "delete_delta_0000002_0000002_0002/bucket_00000",
        "delta_0000001_0000001_0000/bucket_00000",
        "delta_0000002_0000002_0000/bucket_00000",
        "delta_0000002_0000002_0001/bucket_00000",
    ]
    # the update's delete event points at the row statement 0 wrote (bucket property of stmt 0)
    deleted = events(warehouse / "t" / "delete_delta_0000002_0000002_0001" / "bucket_00000")
    assert [(e["originalTransaction"], e["bucket"], e["currentTransaction"]) for e in deleted] == [
        (2, 536870912, 2)
    ]
    assert acid.store.txn_state(r1.txn_id) == "committed"


def test_snapshot_is_pinned_at_begin(acid, other):
    acid.sql(CREATE)
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    acid.begin()
    other.sql("INSERT INTO t VALUES (2, 'b')")  # commits after BEGIN
    assert rows(other) == [(1, "a"), (2, "b")]
    assert rows(acid) == [(1, "a")]  # not in the transaction's snapshot
    acid.sql("INSERT INTO t VALUES (3, 'c')")
    assert rows(acid) == [(1, "a"), (3, "c")]  # own writes, still without the later commit
    acid.commit()
    assert rows(acid) == [(1, "a"), (2, "b"), (3, "c")]


def test_rollback_makes_the_writes_invisible_and_removes_their_files(acid, warehouse):
    acid.sql(CREATE)
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    before = listing(warehouse / "t")
    acid.sql("START TRANSACTION")
    r = acid.sql("INSERT INTO t VALUES (2, 'b')")
    acid.sql("UPDATE t SET name = 'z'")
    assert rows(acid) == [(1, "z"), (2, "z")]
    acid.sql("ROLLBACK")
    assert not acid.in_transaction
    assert rows(acid) == [(1, "a")]
    assert listing(warehouse / "t") == before
    assert acid.store.txn_state(r.txn_id) == "aborted"
    nxt = acid.sql("INSERT INTO t VALUES (4, 'd')")  # the aborted write id stays an exception
    assert nxt.write_id == 3 and rows(acid) == [(1, "a"), (4, "d")]


def test_hive_errors_for_nested_begin_and_commit_or_rollback_without_begin(acid):
    acid.sql(CREATE)
    with pytest.raises(TxnStateError, match="Operation COMMIT is not allowed since there is no active transaction"):
        acid.sql("COMMIT")
    with pytest.raises(TxnStateError, match="Operation ROLLBACK is not allowed"):
        acid.rollback()
    acid.sql("BEGIN")
    txn_id = acid.current_transaction.txn_id
    with pytest.raises(TxnStateError, match=rf"Operation START TRANSACTION is not allowed in a transaction.  "
                                            rf"TransactionID=txnid:{txn_id}\."):
        acid.sql("BEGIN")
    acid.sql("INSERT INTO t VALUES (1, 'a')")  # the refused BEGIN changed nothing
    acid.sql("COMMIT")
    assert rows(acid) == [(1, "a")]


def test_ddl_is_refused_inside_a_transaction_and_changes_nothing(acid):
    acid.sql(CREATE)
    acid.begin()
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    for ddl in ("CREATE TABLE u (x int)", "DROP TABLE t", "ALTER TABLE t ADD COLUMNS (x int)", "TRUNCATE TABLE t",
                "ABORT TRANSACTIONS 1"):
        with pytest.raises(TxnStateError, match=r"is not allowed in a transaction\.  TransactionID=txnid:\d+"):
            acid.sql(ddl)
    acid.commit()
    assert rows(acid) == [(1, "a")]
    assert acid.catalog.list_tables("default") == ["t"]


def test_writing_a_plain_table_inside_a_transaction_is_refused(acid):
    acid.sql(CREATE)
    acid.sql("CREATE TABLE plain (x int) STORED AS ORC")
    with acid.atomic():
        with pytest.raises(TxnStateError, match="non-transactional table default.plain"):
            acid.sql("INSERT INTO plain VALUES (1)")
        acid.sql("INSERT INTO t VALUES (1, 'a')")
    assert rows(acid) == [(1, "a")] and acid.sql("SELECT * FROM plain").count() == 0


def test_a_failing_statement_aborts_the_whole_transaction(acid, warehouse):
    acid.sql(CREATE)
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    before = listing(warehouse / "t")
    acid.begin()
    first = acid.sql("INSERT INTO t VALUES (2, 'b')")
    with pytest.raises(TxnAbortedError, match=rf"txnid:{first.txn_id} was aborted because a statement failed: .*boom"):
        acid.sql("UPDATE t SET name = raise_error('boom') WHERE id = 1")
    assert acid.in_transaction
    with pytest.raises(TxnAbortedError, match="only ROLLBACK"):
        acid.sql("SELECT * FROM t")
    assert acid.store.txn_state(first.txn_id) == "aborted"
    assert listing(warehouse / "t") == before  # the first statement's files went too
    acid.sql("ROLLBACK")
    assert not acid.in_transaction
    assert rows(acid) == [(1, "a")]


def test_commit_after_a_failure_says_nothing_was_committed(acid):
    acid.sql(CREATE)
    acid.begin()
    with pytest.raises(TxnAbortedError):
        acid.sql("INSERT INTO t SELECT 1, assert_true(false)")
    with pytest.raises(TxnAbortedError, match="nothing was committed"):
        acid.commit()
    assert not acid.in_transaction
    acid.sql("INSERT INTO t VALUES (5, 'e')")
    assert rows(acid) == [(5, "e")]


def test_atomic_commits_at_the_end_and_rolls_back_on_exception(acid):
    acid.sql(CREATE)
    with acid.atomic():
        acid.sql("INSERT INTO t VALUES (1, 'a')")
        acid.sql("INSERT INTO t VALUES (2, 'b')")
    assert rows(acid) == [(1, "a"), (2, "b")]
    with pytest.raises(ZeroDivisionError), acid.atomic():
        acid.sql("DELETE FROM t WHERE id = 1")
        _ = 1 / 0
    assert not acid.in_transaction
    assert rows(acid) == [(1, "a"), (2, "b")]


def test_closing_a_session_rolls_its_transaction_back(spark, warehouse, acid):
    acid.sql(CREATE)
    session = hiveacid_sql.connect(spark=spark, warehouse=warehouse)
    session.begin()
    r = session.sql("INSERT INTO t VALUES (1, 'a')")
    session.close()
    assert acid.store.txn_state(r.txn_id) == "aborted"
    assert rows(acid) == [] and listing(warehouse / "t") == []


def test_explain_inside_a_transaction_uses_its_snapshot_write_id_and_statement_id(acid, other):
    acid.sql(CREATE)
    acid.begin()
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    other.sql("INSERT INTO t VALUES (2, 'b')")  # write id 2, after BEGIN
    text = "\n".join(r[0] for r in acid.sql("EXPLAIN UPDATE t SET name = 'x'").collect())
    pinned = acid.current_transaction.seen.to_string()
    assert f"Snapshot: valid txns {pinned}" in text
    assert "Write default.t as write id 1 " in text
    assert "delete_delta_0000001_0000001_0001" in text and "delta_0000001_0000001_0001" in text
    assert "t at write ids default.t:2:" in text  # write id 2 is an exception to this transaction
    acid.rollback()


def test_show_transactions_and_abort_transactions(acid, other):
    acid.sql(CREATE)
    other.begin()
    r = other.sql("INSERT INTO t VALUES (1, 'a')")
    shown = acid.sql("SHOW TRANSACTIONS")
    assert shown.columns == ["Transaction ID", "Transaction State", "Started Time", "Last Heartbeat Time",
                             "User", "Hostname"]
    listed = {row["Transaction ID"]: row["Transaction State"] for row in shown.collect()}
    assert listed == {r.txn_id: "OPEN"}
    result = {row.txnid: row.result for row in acid.sql(f"ABORT TRANSACTIONS {r.txn_id} 999").collect()}
    assert result[r.txn_id] == "aborted" and "999" in result[999]
    assert {row["Transaction ID"]: row["Transaction State"] for row in acid.sql("SHOW TRANSACTIONS").collect()} == {
        r.txn_id: "ABORTED"
    }
    with pytest.raises(TxnAbortedError, match=rf"txnid:{r.txn_id} already aborted"):
        other.sql("INSERT INTO t VALUES (2, 'b')")
    other.rollback()
    assert rows(acid) == []


def test_heartbeats_keep_an_open_transaction_alive_and_time_outs_abort_silent_ones(acid, other):
    acid.sql(CREATE)
    acid.sql("SET hive.txn.timeout=2s")
    acid.begin()  # heartbeats every second
    silent = acid.store.open_txn("ghost", "nowhere")  # opened, never heartbeated
    time.sleep(2.5)
    aborted = other.store.abort_timed_out(2.0)
    assert aborted == [silent]
    assert acid.current_transaction.heartbeater.beats >= 2
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    acid.commit()
    assert rows(other) == [(1, "a")]
    assert other.store.txn_state(silent) == "aborted"


def test_commit_of_a_transaction_timed_out_meanwhile_fails_and_removes_its_files(acid, other, warehouse):
    acid.sql(CREATE)
    acid.begin()
    r = acid.sql("INSERT INTO t VALUES (1, 'a')")
    assert listing(warehouse / "t") != []
    far_future = int(time.time() * 1000) + 3_600_000
    assert other.store.abort_timed_out(300, now_ms=far_future) == [r.txn_id]
    with pytest.raises(TxnAbortedError, match=rf"Transaction manager has aborted the transaction txnid:{r.txn_id}\."
                                              rf"  Reason: Transaction txnid:{r.txn_id} already aborted"):
        acid.commit()
    assert not acid.in_transaction
    assert listing(warehouse / "t") == [] and rows(other) == []
