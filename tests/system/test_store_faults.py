# ruff: noqa: SIM300 - upper-case Hive column attributes look like constants to ruff
"""Store faults: the store's PostgreSQL server stopped (as a crash: ``pg_ctl stop -m immediate``) in the middle
of a commit, and unreachable afterwards. The commit fails in one line naming the store, and the transaction is
exactly as before it (open: nothing of the commit landed), so the time-out reaps it to aborted; a commit never
lands half. The server is a throwaway cluster of this test (``tests/support/pg_cluster.py``), never the shared
one.
"""

from __future__ import annotations

import threading
import time

import pytest
import sqlalchemy as sa

from hiveacid_sql.errors import TxnError
from hiveacid_sql.txn import TableCommit, TxnStore
from hiveacid_sql.txn import schema as s
from tests.support.pg_cluster import throwaway_postgres

pytestmark = pytest.mark.postgres


def _count(store: TxnStore, table: sa.Table) -> int:
    with store.engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())


def _one_line_store_error(err: BaseException, port: int) -> None:
    assert isinstance(err, TxnError), repr(err)
    text = str(err)
    assert "\n" not in text
    assert text.startswith(f"transaction store postgresql+psycopg://postgres@127.0.0.1:{port}/store: "), text


def test_server_stopped_in_the_middle_of_a_commit_leaves_the_txn_as_before():
    with throwaway_postgres() as pg:
        admin = sa.create_engine(pg.url(), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql("CREATE DATABASE store")
        admin.dispose()
        store = TxnStore(pg.url("store"))
        try:
            done = store.open_txn("u", "h")  # a commit before the fault stays committed
            store.commit_txn(
                done,
                writes=[
                    TableCommit("default", "t", store.allocate_write_id(done, "default", "t"), {None: "i"})
                ],
            )
            txn = store.open_txn("u", "h")
            write_id = store.allocate_write_id(txn, "default", "t")
            # Hold the transaction's TXNS row so that its commit is inside its database transaction, waiting,
            # when the server goes away.
            blocker = sa.create_engine(pg.url("store"))
            held = blocker.connect()
            held.begin()
            held.execute(sa.select(s.TXNS.c.TXN_ID).where(s.TXNS.c.TXN_ID == txn).with_for_update())
            outcome: dict[str, BaseException] = {}

            def commit() -> None:
                try:
                    store.commit_txn(txn, writes=[TableCommit("default", "t", write_id, {None: "u"})])
                except BaseException as exc:  # noqa: BLE001 - handed to the test thread
                    outcome["error"] = exc

            worker = threading.Thread(target=commit)
            worker.start()
            deadline = time.monotonic() + 30
            with blocker.connect() as probe:  # wait until the commit is blocked on the row lock
                while time.monotonic() < deadline:
                    waiting = probe.exec_driver_sql(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    ).scalar_one()
                    if waiting:
                        break
                    time.sleep(0.05)
                assert waiting, "the commit never reached the row lock"
            pg.stop("immediate")
            worker.join(60)
            assert not worker.is_alive()
            _one_line_store_error(outcome["error"], pg.port)
            with pytest.raises(TxnError) as unreachable:  # while the server is down: one line, no hang
                store.commit_txn(txn)
            _one_line_store_error(unreachable.value, pg.port)
            held.invalidate()
            blocker.dispose()

            pg.start()
            assert store.txn_state(done) == "committed"
            assert store.txn_state(txn) == "open"  # nothing of the cut commit landed
            assert _count(store, s.TXN_COMPONENTS) == 0
            assert _count(store, s.WRITE_SET) == 0
            assert _count(store, s.COMPLETED_TXN_COMPONENTS) == 1  # the earlier commit's only
            assert write_id in store.snapshot([("default", "t")]).write_ids("default", "t").exceptions
            # its writer is gone: the time-out aborts it, and its write id stays invisible
            assert store.abort_timed_out(0, now_ms=int(time.time() * 1000) + 60_000) == [txn]
            ids = store.snapshot([("default", "t")]).write_ids("default", "t")
            assert write_id in ids.aborted
            nxt = store.open_txn("u", "h")  # the next writer succeeds
            store.commit_txn(
                nxt,
                writes=[
                    TableCommit("default", "t", store.allocate_write_id(nxt, "default", "t"), {None: "u"})
                ],
            )
            assert store.txn_state(nxt) == "committed"
        finally:
            store.close()
