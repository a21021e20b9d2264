# ruff: noqa: SIM300 - upper-case Hive column attributes look like constants to ruff
"""A commit whose reply is lost: the database committed, the client's connection dropped before the answer came
back. A TCP proxy between the store and the real PostgreSQL / MariaDB server (``tests/support/tcp_proxy.py``)
passes the COMMIT on, reads and drops the server's reply and closes the client's connection. The store must learn
the outcome on a new connection and report the commit as done (as Hive's idempotent ``commitTxn`` does for its
retrying client), never double-apply it on a retry and never half-apply it. SQLite has no reply to lose (the
database is a library in the process). Fast: the shared servers, no process or JVM of its own.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from hiveacid_sql.errors import CommitOutcomeUnknownError, TxnError
from hiveacid_sql.txn import TableCommit, TxnStore
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.history import WriteRecord
from tests.support.tcp_proxy import MYSQL_COMMIT, PG_COMMIT, losing_proxy

SERVERS = [
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    pytest.param("mariadb", id="mariadb", marks=pytest.mark.mariadb),
]


def _commit_message(url: str) -> bytes:
    return PG_COMMIT if url.startswith("postgresql") else MYSQL_COMMIT


def _count(store: TxnStore, table: sa.Table, where: sa.ColumnElement[bool]) -> int:
    with store.engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(table).where(where)).scalar_one())


@pytest.mark.parametrize("ready_url", SERVERS, indirect=True)
def test_a_commit_whose_reply_is_lost_is_seen_committed_once(ready_url):
    url = ready_url
    with losing_proxy(url) as proxy, TxnStore(proxy.url(url)) as store:
        txn = store.open_txn("u", "h")
        write_id = store.allocate_write_id(txn, "default", "t")
        proxy.lose_reply_to(_commit_message(url))
        store.commit_txn(  # no error: the store asked again on a new connection and found it committed
            txn,
            history=[WriteRecord("default", "t", write_id, "INSERT", "INSERT INTO t VALUES (1)", "u", 1)],
            writes=[TableCommit("default", "t", write_id, {None: "i"})],
        )
        assert proxy.lost == 1  # the reply really was lost
        assert store.txn_state(txn) == "committed"
        ctc = s.COMPLETED_TXN_COMPONENTS.c
        assert _count(store, s.COMPLETED_TXN_COMPONENTS, ctc.CTC_TXNID == txn) == 1  # applied once
        assert [h.write_id for h in store.table_history("default", "t")] == [write_id]
        assert write_id not in store.snapshot([("default", "t")]).write_ids("default", "t").exceptions
        with pytest.raises(TxnError, match=r"is already committed"):  # a second commit applies nothing
            store.commit_txn(txn, writes=[TableCommit("default", "t", write_id, {None: "i"})])
        assert _count(store, s.COMPLETED_TXN_COMPONENTS, ctc.CTC_TXNID == txn) == 1
        with pytest.raises(TxnError, match=r"is already committed"):  # and an abort cannot undo it
            store.abort_txn(txn)


@pytest.mark.parametrize("ready_url", SERVERS[:1], indirect=True)
def test_a_lost_reply_to_a_commit_that_aborted_on_a_write_conflict_reports_the_abort(
    ready_url
):
    url = ready_url
    with losing_proxy(url) as proxy, TxnStore(proxy.url(url)) as store:
        mine, theirs = store.open_txn("u", "h"), store.open_txn("u", "h")
        seen = store.valid_txns(mine)
        w_theirs, w_mine = store.allocate_write_id(theirs, "default", "t"), store.allocate_write_id(mine, "default", "t")
        store.commit_txn(theirs, writes=[TableCommit("default", "t", w_theirs, {None: "u"})])
        proxy.lose_reply_to(_commit_message(url))
        with pytest.raises(TxnError, match=r"^Transaction txnid:\d+ already aborted$") as aborted:
            store.commit_txn(mine, seen, writes=[TableCommit("default", "t", w_mine, {None: "u"})])
        assert type(aborted.value).__name__ == "TxnAbortedError"  # the engine removes an aborted write's files
        assert proxy.lost == 1
        assert store.txn_state(mine) == "aborted"


@pytest.mark.parametrize("ready_url", SERVERS[1:], indirect=True)
def test_a_lost_reply_with_the_store_gone_afterwards_says_the_outcome_is_unknown(
    ready_url
):
    url = ready_url
    with losing_proxy(url) as proxy, TxnStore(proxy.url(url)) as store:
        txn = store.open_txn("u", "h")
        write_id = store.allocate_write_id(txn, "default", "t")
        proxy.lose_reply_to(_commit_message(url))
        proxy.refuse_after_loss = True  # the store cannot be reached to ask
        with pytest.raises(CommitOutcomeUnknownError) as unknown:
            store.commit_txn(txn, writes=[TableCommit("default", "t", write_id, {None: "i"})])
        text = str(unknown.value)
        assert "\n" not in text
        assert f"whether txnid:{txn} committed is unknown (the store did not answer after the commit: " in text
        assert text.startswith("transaction store mysql+pymysql://")
        proxy.refuse_after_loss = False
        assert store.txn_state(txn) == "committed"  # it had committed: the files were right to stay


@pytest.mark.parametrize("ready_url", SERVERS[:1], indirect=True)
def test_a_streaming_commit_of_unknown_outcome_keeps_its_rows(ready_url, tmp_path):
    """A streaming transaction whose commit reply is lost while the store cannot be asked: the rows stay in the
    batch's later file versions (they committed here), so the next commit of the batch does not drop them."""
    from hiveacid_sql import read_table
    from hiveacid_sql.engine.streaming import StreamingConnection
    from hiveacid_sql.txn import Column, TableDef

    url = ready_url
    with losing_proxy(url) as proxy, TxnStore(proxy.url(url)) as store:
        store.catalog.create_table(
            TableDef("default", "s", (Column("id", "int"),), str(tmp_path / "s"), params={"transactional": "true"})
        )
        with StreamingConnection(store, store.catalog.get_table("default", "s"), transaction_batch_size=3) as conn:
            conn.begin_transaction()
            conn.write([(1,), (2,)])
            proxy.lose_reply_to(_commit_message(url), after=b"COMPLETED_TXN_COMPONENTS")
            proxy.refuse_after_loss = True
            with pytest.raises(CommitOutcomeUnknownError):
                conn.commit_transaction()
            proxy.refuse_after_loss = False
            conn.begin_transaction()
            conn.write([(3,)])
            conn.commit_transaction()
        assert proxy.lost == 1
        assert sorted(read_table("s", store_url=proxy.url(url))["id"].to_pylist()) == [1, 2, 3]
