"""TxnStore against SQLite, PostgreSQL and MariaDB: ids, commit/abort CAS, snapshots, concurrency."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from hiveacid_sql.errors import TxnAbortedError, TxnError
from hiveacid_sql.txn import NO_MIN_OPEN, Snapshot, TableWriteIds, TxnStore, ValidTxnList
from hiveacid_sql.txn import schema as s
from tests.support.stores import check_new_store


def _rows(store: TxnStore, table: sa.Table) -> list[dict]:
    with store.engine.connect() as conn:
        return [dict(r) for r in conn.execute(sa.select(table)).mappings()]


def _wid(store: TxnStore, *tables: str, txn: int | None = None) -> dict[str, TableWriteIds]:
    return store.snapshot([("default", t) for t in tables], txn).tables


# ---------------------------------------------------------------------- schema
@pytest.mark.parametrize("url", ["sqlite"], indirect=True)
def test_creates_hive_tables_and_version_row(url: str) -> None:
    """From scratch on SQLite here; ``tests/system/test_store_servers.py`` does it on PostgreSQL and MariaDB."""
    with TxnStore(url) as store:
        check_new_store(store)


def test_a_mariadb_url_without_a_database_is_refused_in_one_line() -> None:
    """MariaDB has no default database: the URL must name one (it used to end in SQLAlchemy's AttributeError)."""
    with pytest.raises(TxnError, match=r"^transaction store mysql\+pymysql://root:\*\*\*@127\.0\.0\.1:3306/ names no "
                                       r"database: add it to the URL \(mysql\+pymysql://root:\*\*\*@127\.0\.0\.1:3306/NAME\)$"):
        TxnStore("mysql+pymysql://root:secret@127.0.0.1:3306/")


def test_reopening_keeps_data_and_does_not_reseed(ready_url: str) -> None:
    with TxnStore(ready_url) as first:
        t1 = first.open_txn("alice", "h1")
        w1 = first.allocate_write_id(t1, "default", "t")
        first.commit_txn(t1)
        t2 = first.open_txn("alice", "h1")
    with TxnStore(ready_url) as second:
        assert second.txn_state(t1) == "committed"
        assert second.txn_state(t2) == "open"
        assert second.open_txn("bob", "h2") == t2 + 1
        assert _rows(second, s.NEXT_TXN_ID) == [{"NTXN_NEXT": t2 + 2}]
        assert len(_rows(second, s.VERSION)) == 1
        assert len(_rows(second, s.DBS)) == 1
        assert second.catalog.list_databases() == ["default"]
        assert _wid(second, "t")["default.t"].high_watermark == w1


def test_other_hive_schema_version_is_refused(ready_url: str) -> None:
    with TxnStore(ready_url) as st, st.engine.begin() as conn:
        conn.execute(sa.update(s.VERSION).values(SCHEMA_VERSION="4.0.0"))
    with pytest.raises(
        TxnError, match=r"holds a Hive metastore of schema version 4\.0\.0; hiveacid-sql uses 3\.1\.x$"
    ):
        TxnStore(ready_url)


def test_min_history_level_follows_open_transactions(store: TxnStore) -> None:
    """Hive 3.1 ``openTxns``: each open transaction records the oldest transaction open when it started;
    commit and abort remove the row."""
    t1 = store.open_txn("u", "h")
    t2 = store.open_txn("u", "h")
    rows = sorted((r["MHL_TXNID"], r["MHL_MIN_OPEN_TXNID"]) for r in _rows(store, s.MIN_HISTORY_LEVEL))
    assert rows == [(t1, t1), (t2, t1)]
    store.commit_txn(t1)
    store.abort_txn(t2)
    assert _rows(store, s.MIN_HISTORY_LEVEL) == []


# ---------------------------------------------------------------------- ids
def test_txn_ids_are_monotonic(store: TxnStore) -> None:
    ids = [store.open_txn("u", "h") for _ in range(5)]
    assert ids == [1, 2, 3, 4, 5]
    store.commit_txn(ids[0])
    store.abort_txn(ids[1])
    assert store.open_txn("u", "h") == 6


def test_write_ids_per_table_per_txn(store: TxnStore) -> None:
    t1, t2 = store.open_txn("u", "h"), store.open_txn("u", "h")
    assert store.allocate_write_id(t1, "default", "a") == 1
    assert store.allocate_write_id(t1, "default", "a") == 1  # idempotent
    assert store.allocate_write_id(t1, "DEFAULT", "A") == 1  # names are case-insensitive
    assert store.allocate_write_id(t2, "default", "a") == 2
    assert store.allocate_write_id(t2, "default", "b") == 1  # tables are independent
    assert store.allocate_write_id(t1, "other", "a") == 1  # so are databases
    rows = sorted((r["T2W_TXNID"], r["T2W_DATABASE"], r["T2W_TABLE"], r["T2W_WRITEID"])
                  for r in _rows(store, s.TXN_TO_WRITE_ID))  # fmt: skip
    assert rows == [
        (t1, "default", "a", 1),
        (t1, "other", "a", 1),
        (t2, "default", "a", 2),
        (t2, "default", "b", 1),
    ]


def test_write_id_needs_an_open_txn(store: TxnStore) -> None:
    committed, aborted = store.open_txn("u", "h"), store.open_txn("u", "h")
    store.commit_txn(committed)
    store.abort_txn(aborted)
    with pytest.raises(TxnError, match=f"Transaction txnid:{committed} is already committed"):
        store.allocate_write_id(committed, "default", "t")
    with pytest.raises(TxnAbortedError, match=f"txnid:{aborted} already aborted"):
        store.allocate_write_id(aborted, "default", "t")
    with pytest.raises(TxnError, match="No such transaction txnid:99"):
        store.allocate_write_id(99, "default", "t")


# ---------------------------------------------------------------------- commit / abort
def test_commit_moves_components_and_deletes_txn_row(store: TxnStore) -> None:
    txn = store.open_txn("u", "h")
    w = store.allocate_write_id(txn, "default", "t")
    store.add_components(txn, "default", "t", w, "i", ["p=1", "p=2"])
    store.add_components(txn, "default", "t", w, "d", ["p=1"])
    store.add_components(txn, "default", "t", w, "i", ["p=1"])  # repeated: recorded once
    assert len(_rows(store, s.TXN_COMPONENTS)) == 3
    store.commit_txn(txn)
    assert _rows(store, s.TXNS) == []
    assert _rows(store, s.TXN_COMPONENTS) == []
    done = _rows(store, s.COMPLETED_TXN_COMPONENTS)
    assert sorted(r["CTC_PARTITION"] for r in done) == ["p=1", "p=1", "p=2"]
    assert {(r["CTC_TXNID"], r["CTC_WRITEID"], r["CTC_UPDATE_DELETE"]) for r in done} == {(txn, w, "Y")}
    assert len(_rows(store, s.TXN_TO_WRITE_ID)) == 1  # kept for history
    assert store.txn_state(txn) == "committed"


def test_insert_only_commit_is_not_update_delete(store: TxnStore) -> None:
    txn = store.open_txn("u", "h")
    w = store.allocate_write_id(txn, "default", "t")
    store.add_components(txn, "default", "t", w, "i")
    store.commit_txn(txn)
    (row,) = _rows(store, s.COMPLETED_TXN_COMPONENTS)
    assert row["CTC_UPDATE_DELETE"] == "N"
    assert row["CTC_PARTITION"] is None


def test_commit_and_abort_are_compare_and_swap(store: TxnStore) -> None:
    t1, t2 = store.open_txn("u", "h"), store.open_txn("u", "h")
    store.commit_txn(t1)
    with pytest.raises(TxnError, match="already committed") as err:
        store.commit_txn(t1)
    assert not isinstance(err.value, TxnAbortedError)
    with pytest.raises(TxnError, match="already committed"):
        store.abort_txn(t1)
    store.abort_txn(t2)
    with pytest.raises(TxnAbortedError, match=f"txnid:{t2} already aborted"):
        store.commit_txn(t2)
    with pytest.raises(TxnAbortedError):
        store.abort_txn(t2)
    with pytest.raises(TxnError, match="No such transaction txnid:1000"):
        store.commit_txn(1000)
    assert store.txn_state(t2) == "aborted"


def test_abort_keeps_txn_row_and_components(store: TxnStore) -> None:
    txn = store.open_txn("u", "h")
    w = store.allocate_write_id(txn, "default", "t")
    store.add_components(txn, "default", "t", w, "u", ["p=1"])
    store.abort_txn(txn)
    assert [(r["TXN_ID"], r["TXN_STATE"]) for r in _rows(store, s.TXNS)] == [(txn, "a")]
    assert [r["TC_OPERATION_TYPE"] for r in _rows(store, s.TXN_COMPONENTS)] == ["u"]
    assert _rows(store, s.COMPLETED_TXN_COMPONENTS) == []


def test_add_components_checks_its_arguments(store: TxnStore) -> None:
    txn = store.open_txn("u", "h")
    w = store.allocate_write_id(txn, "default", "t")
    with pytest.raises(TxnError, match="Operation type"):
        store.add_components(txn, "default", "t", w, "x")
    with pytest.raises(TxnError, match="was not allocated"):
        store.add_components(txn, "default", "t", w + 1, "i")
    with pytest.raises(TxnError, match="was not allocated"):
        store.add_components(txn, "default", "other", w, "i")


def _race(store: TxnStore, txn: int, op: str, barrier: threading.Barrier, outcomes: list[str]) -> None:
    barrier.wait()
    try:
        (store.commit_txn if op == "commit" else store.abort_txn)(txn)
        outcomes.append(op)
    except TxnError:
        outcomes.append("lost")


def test_racing_commit_and_abort_exactly_one_wins(store: TxnStore) -> None:
    for _ in range(5):
        txn = store.open_txn("u", "h")
        barrier = threading.Barrier(2)
        outcomes: list[str] = []
        threads = [
            threading.Thread(target=_race, args=(store, txn, op, barrier, outcomes))
            for op in ("commit", "abort")
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) in (["commit", "lost"], ["abort", "lost"])
        assert store.txn_state(txn) == ("committed" if "commit" in outcomes else "aborted")


def test_two_handles_on_one_store(ready_url: str) -> None:
    with TxnStore(ready_url) as a, TxnStore(ready_url) as b:
        txn = a.open_txn("u", "h")
        assert b.open_txn("u", "h") == txn + 1
        b.commit_txn(txn)
        with pytest.raises(TxnError, match="already committed"):
            a.commit_txn(txn)


# ---------------------------------------------------------------------- heartbeat / listing
def test_heartbeat_and_list_txns(store: TxnStore) -> None:
    t1, t2 = store.open_txn("alice", "host-a", "agent-x"), store.open_txn("bob", "host-b")
    before = {r["TXN_ID"]: r for r in _rows(store, s.TXNS)}
    store.heartbeat(t1)
    after = {r["TXN_ID"]: r for r in _rows(store, s.TXNS)}
    assert after[t1]["TXN_LAST_HEARTBEAT"] >= before[t1]["TXN_LAST_HEARTBEAT"]
    assert after[t1]["TXN_HEARTBEAT_COUNT"] == 1
    store.abort_txn(t2)
    with pytest.raises(TxnAbortedError):
        store.heartbeat(t2)
    listed = store.list_txns()
    assert [(t["txn_id"], t["state"], t["user"], t["host"]) for t in listed] == [
        (t1, "open", "alice", "host-a"),
        (t2, "aborted", "bob", "host-b"),
    ]
    assert listed[0]["agent_info"] == "agent-x"
    assert listed[0]["started"] > 0
    store.commit_txn(t1)
    with pytest.raises(TxnError, match="already committed"):
        store.heartbeat(t1)
    with pytest.raises(TxnError, match="No such transaction"):
        store.txn_state(77)


# ---------------------------------------------------------------------- snapshots
def test_empty_store_snapshot(store: TxnStore) -> None:
    snap = store.snapshot([("default", "t")])
    assert snap == Snapshot(None, ValidTxnList(0), {"default.t": TableWriteIds("default.t", 0)})
    assert snap.txns.to_string() == f"0:{NO_MIN_OPEN}::"
    assert snap.tables["default.t"].to_string() == "default.t:0:9223372036854775807::"


def test_snapshot_open_aborted_committed(store: TxnStore) -> None:
    committed, aborted, open_ = (store.open_txn("u", "h") for _ in range(3))
    w_c = store.allocate_write_id(committed, "default", "t")
    w_a = store.allocate_write_id(aborted, "default", "t")
    w_o = store.allocate_write_id(open_, "default", "t")
    store.commit_txn(committed)
    store.abort_txn(aborted)

    snap = store.snapshot([("default", "t"), ("DEFAULT", "T")])
    assert list(snap.tables) == ["default.t"]
    txns = snap.txns
    assert (txns.high_watermark, txns.exceptions, txns.aborted, txns.min_open_txn) == (
        3, (aborted, open_), frozenset({aborted}), open_,
    )  # fmt: skip
    assert txns.is_txn_valid(committed) and not txns.is_txn_valid(aborted) and not txns.is_txn_valid(open_)
    assert txns.to_string() == f"3:{open_}:{open_}:{aborted}"
    t = snap.tables["default.t"]
    assert (t.high_watermark, t.exceptions, t.aborted, t.min_open_write_id) == (3, (2, 3), frozenset({2}), 3)
    assert t.is_write_id_valid(w_c)
    assert not t.is_write_id_valid(w_a) and not t.is_write_id_valid(w_o)
    assert not t.is_write_id_valid(4)
    assert t.to_string() == "default.t:3:3:3:2"

    store.commit_txn(open_)
    t = _wid(store, "t")["default.t"]
    assert (t.exceptions, t.aborted, t.min_open_write_id) == ((2,), frozenset({2}), None)
    assert t.to_string() == "default.t:3:9223372036854775807::2"
    assert t.is_write_id_valid(w_o)


def test_txn_opened_after_snapshot_is_invisible(store: TxnStore) -> None:
    t1 = store.open_txn("u", "h")
    store.allocate_write_id(t1, "default", "t")
    store.commit_txn(t1)
    before = store.snapshot([("default", "t")])
    t2 = store.open_txn("u", "h")
    w2 = store.allocate_write_id(t2, "default", "t")
    store.commit_txn(t2)
    assert not before.txns.is_txn_valid(t2)
    assert not before.tables["default.t"].is_write_id_valid(w2)
    assert before.tables["default.t"].to_string() == "default.t:1:9223372036854775807::"
    assert store.snapshot([("default", "t")]).tables["default.t"].is_write_id_valid(w2)


def test_own_txn_sees_own_writes(store: TxnStore) -> None:
    other = store.open_txn("u", "h")
    mine = store.open_txn("u", "h")
    w_other = store.allocate_write_id(other, "default", "t")
    w_mine = store.allocate_write_id(mine, "default", "t")
    snap = store.snapshot([("default", "t")], txn_id=mine)
    assert snap.txn_id == mine
    assert snap.txns.exceptions == (other,) and snap.txns.is_txn_valid(mine)
    t = snap.tables["default.t"]
    assert t.is_write_id_valid(w_mine) and not t.is_write_id_valid(w_other)
    assert t.to_string() == f"default.t:2:{w_other}:{w_other}:"
    # everyone else sees both as open
    assert _wid(store, "t")["default.t"].exceptions == (w_other, w_mine)


def test_snapshot_and_write_id_in_one_database_transaction(store: TxnStore) -> None:
    """A DML statement's snapshot and write id in one store call: the snapshot is read before the write id
    is taken (it does not hold the new id), the rows are allocate_write_id's, and one database transaction
    does it (a one-row UPDATE made six, now five: tests/spark/test_statement_metrics.py)."""
    other = store.open_txn("u", "h")
    w_other = store.allocate_write_id(other, "default", "t")
    mine = store.open_txn("u", "h")
    begun: list[object] = []

    def on_begin(conn: object) -> None:
        begun.append(conn)

    sa.event.listen(store.engine, "begin", on_begin)
    try:
        snap, w_mine = store.snapshot_and_write_id([("default", "t"), ("default", "u")], mine, None, "DEFAULT", "T")
    finally:
        sa.event.remove(store.engine, "begin", on_begin)
    assert len(begun) == 1
    assert w_mine == w_other + 1
    assert snap.txn_id == mine and snap.txns.exceptions == (other,)
    assert snap.tables["default.t"].to_string() == f"default.t:{w_other}:{w_other}:{w_other}:"
    assert snap.tables["default.u"].to_string() == "default.u:0:9223372036854775807::"
    again, w_again = store.snapshot_and_write_id([("default", "t")], mine, snap.txns, "default", "t")
    assert w_again == w_mine  # allocated once, as allocate_write_id
    assert again.tables["default.t"].is_write_id_valid(w_mine)  # its own write id, once it has it
    rows = sorted((r["T2W_TXNID"], r["T2W_TABLE"], r["T2W_WRITEID"]) for r in _rows(store, s.TXN_TO_WRITE_ID))
    assert rows == [(other, "t", w_other), (mine, "t", w_mine)]
    store.commit_txn(mine)
    with pytest.raises(TxnError, match=f"Transaction txnid:{mine} is already committed"):
        store.snapshot_and_write_id([("default", "t")], mine, None, "default", "t")


def test_register_existing_write_ids(store: TxnStore) -> None:
    store.register_existing_write_ids("default", "adopted", 5)
    t = _wid(store, "adopted")["default.adopted"]
    assert t.to_string() == "default.adopted:5:9223372036854775807::"
    assert all(t.is_write_id_valid(w) for w in range(1, 6))
    txn = store.open_txn("u", "h")
    assert store.allocate_write_id(txn, "default", "adopted") == 6
    store.register_existing_write_ids("default", "adopted", 3)  # never lowers the counter
    store.register_existing_write_ids("default", "adopted", 9)
    assert store.allocate_write_id(store.open_txn("u", "h"), "default", "adopted") == 10
    t = _wid(store, "adopted")["default.adopted"]
    assert (t.high_watermark, t.exceptions, t.min_open_write_id) == (10, (6, 10), 6)
    assert t.is_write_id_valid(8)
    with pytest.raises(TxnError):
        store.register_existing_write_ids("default", "adopted", -1)


def test_write_id_history(store: TxnStore) -> None:
    t1, t2, t3 = (store.open_txn("u", "h") for _ in range(3))
    for txn, op in ((t1, "i"), (t2, "u"), (t3, "i")):
        w = store.allocate_write_id(txn, "default", "t")
        store.add_components(txn, "default", "t", w, op, ["p=1"])
    store.commit_txn(t1)
    store.commit_txn(t2)
    store.abort_txn(t3)
    hist = store.write_id_history("default", "t")
    assert [(h["write_id"], h["txn_id"], h["state"], h["update_delete"]) for h in hist] == [
        (1, t1, "committed", False),
        (2, t2, "committed", True),
        (3, t3, "aborted", None),
    ]
    assert hist[0]["commit_time"] is not None and hist[0]["partitions"] == ["p=1"]
    assert hist[2]["commit_time"] is None
    assert store.write_id_history("default", "never") == []


def test_sqlite_busy_timeout_is_set_by_the_url(tmp_path):
    import sqlite3

    path = tmp_path / "txn.db"
    TxnStore(f"sqlite:///{path}").close()
    with pytest.raises(TxnError, match=r"timeout must be a number of seconds, not 'soon'$"):
        TxnStore(f"sqlite:///{path}?timeout=soon")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    try:
        with TxnStore(f"sqlite:///{path}?timeout=0.2") as store:
            raw = store.engine.raw_connection()
            try:
                assert raw.cursor().execute("PRAGMA busy_timeout").fetchone()[0] == 200
            finally:
                raw.close()
            with pytest.raises(TxnError) as err:
                store.open_txn("u", "h")
            assert str(err.value) == f"transaction store sqlite:///{path}: database is locked"
    finally:
        holder.execute("ROLLBACK")
        holder.close()
