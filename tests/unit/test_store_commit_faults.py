# ruff: noqa: SIM300 - upper-case Hive column attributes look like constants to ruff
"""Store faults inside a commit on the shared servers and on SQLite (fast: no server or JVM of their own; the
PostgreSQL crash is ``tests/system/test_store_faults.py``, a lost reply ``test_store_lost_reply.py``).

* PostgreSQL / MariaDB: the commit's session is killed from a second connection (``pg_terminate_backend`` /
  ``KILL CONNECTION``) while its database transaction is half done: the TXNS row locked, its components
  inserted, waiting for the NEXT_TXN_ID row lock of the write-set step.
* SQLite: another process holds the write lock when the commit starts; the disk is full when the COMMIT writes
  the WAL (a small tmpfs; root only).

Every time: one line naming the store, and the transaction exactly as before the commit (open, nothing of the
commit in any table), so committing it again applies it once and the time-out would reap it instead.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from hiveacid_sql.errors import TxnError
from hiveacid_sql.txn import TableCommit, TxnStore
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.history import WriteRecord
from tests.support.mounts import tmpfs


def _count(store: TxnStore, table: sa.Table, where: sa.ColumnElement[bool] | None = None) -> int:
    query = sa.select(sa.func.count()).select_from(table)
    with store.engine.connect() as conn:
        return int(conn.execute(query if where is None else query.where(where)).scalar_one())


def _commit_args(write_id: int) -> dict:
    return {
        "history": [WriteRecord("default", "t", write_id, "UPDATE", "UPDATE t SET v = 1", "u", 0, 1)],
        "writes": [TableCommit("default", "t", write_id, {None: "u"})],
    }


def _as_before(store: TxnStore, txn: int, write_id: int) -> None:
    """Nothing of the cut commit landed; committing again applies it exactly once."""
    assert store.txn_state(txn) == "open"
    for table, column in ((s.TXN_COMPONENTS, s.TXN_COMPONENTS.c.TC_TXNID), (s.WRITE_SET, s.WRITE_SET.c.WS_TXNID),
                          (s.COMPLETED_TXN_COMPONENTS, s.COMPLETED_TXN_COMPONENTS.c.CTC_TXNID),
                          (s.HIVEACID_WRITE_HISTORY, s.HIVEACID_WRITE_HISTORY.c.WH_TXNID)):
        assert _count(store, table, column == txn) == 0, table.name
    assert write_id in store.snapshot([("default", "t")]).write_ids("default", "t").exceptions
    store.commit_txn(txn, **_commit_args(write_id))
    assert store.txn_state(txn) == "committed"
    assert _count(store, s.COMPLETED_TXN_COMPONENTS, s.COMPLETED_TXN_COMPONENTS.c.CTC_TXNID == txn) == 1
    assert [h.write_id for h in store.table_history("default", "t")] == [write_id]


def _one_line(err: BaseException, url: str) -> str:
    assert isinstance(err, TxnError), repr(err)
    text = str(err)
    assert "\n" not in text
    shown = sa.make_url(url).difference_update_query(["timeout"]).render_as_string(hide_password=True)
    assert text.startswith(f"transaction store {shown}"), text
    return text


# (what finds the session waiting for a row lock, how to kill it)
_KILLERS = {
    "postgresql": (
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
        "SELECT pg_terminate_backend({})",
    ),
    # the server is shared: only a session of this test's database (never another test's)
    "mysql": (
        "SELECT t.trx_mysql_thread_id FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p "
        "ON p.ID = t.trx_mysql_thread_id WHERE t.trx_state = 'LOCK WAIT' AND p.DB = DATABASE()",
        "KILL CONNECTION {}",
    ),
}


@pytest.mark.parametrize(
    "ready_url",
    [pytest.param("postgres", marks=pytest.mark.postgres), pytest.param("mariadb", marks=pytest.mark.mariadb)],
    indirect=True,
)
def test_the_commits_session_killed_in_the_middle_leaves_the_txn_as_before(ready_url):
    with TxnStore(ready_url) as store:
        txn = store.open_txn("u", "h")
        write_id = store.allocate_write_id(txn, "default", "t")
        find, kill = _KILLERS[store.engine.dialect.name]
        other = sa.create_engine(ready_url, poolclass=sa.pool.NullPool)
        try:
            with other.connect() as blocker, other.connect() as probe:
                blocker.begin()  # holds NEXT_TXN_ID: the commit stops after its components, at the write-set step
                blocker.execute(sa.select(s.NEXT_TXN_ID.c.NTXN_NEXT).with_for_update())
                outcome: dict[str, BaseException] = {}

                def commit() -> None:
                    try:
                        store.commit_txn(txn, **_commit_args(write_id))
                    except BaseException as exc:  # noqa: BLE001 - handed to the test thread
                        outcome["error"] = exc

                worker = threading.Thread(target=commit)
                worker.start()
                deadline, waiting = time.monotonic() + 30, []
                while not waiting and time.monotonic() < deadline:
                    waiting = probe.exec_driver_sql(find).scalars().all()
                    probe.rollback()  # a fresh snapshot of the server's sessions each time
                    # InnoDB refreshes its INNODB_TRX cache only when it was last read more than 0.1 s ago:
                    # a faster poll keeps reading the cache of before the commit began (seen on a quiet machine)
                    time.sleep(0.2)
                assert len(waiting) == 1, "the commit never waited for the row lock"
                probe.exec_driver_sql(kill.format(int(waiting[0])))
                worker.join(30)
                assert not worker.is_alive()
                text = _one_line(outcome["error"], ready_url)
                blocker.rollback()
        finally:
            other.dispose()
        assert "whether" not in text  # cut before COMMIT: known not committed, not 'unknown'
        _as_before(store, txn, write_id)


def test_sqlite_store_locked_when_the_commit_starts(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'txn.db'}?timeout=0.2"
    with TxnStore(url) as store:
        txn = store.open_txn("u", "h")
        write_id = store.allocate_write_id(txn, "default", "t")
        holder = sqlite3.connect(tmp_path / "txn.db", isolation_level=None)
        try:
            holder.execute("BEGIN EXCLUSIVE")  # another process's write lock
            with pytest.raises(TxnError) as locked:
                store.commit_txn(txn, **_commit_args(write_id))
            assert _one_line(locked.value, url).endswith(": database is locked")
            holder.execute("ROLLBACK")
        finally:
            holder.close()
        _as_before(store, txn, write_id)


def test_sqlite_store_disk_full_at_the_commit(tmp_path: Path):
    """The WAL cannot grow when the COMMIT writes it: the failure is the COMMIT's own (the outcome is the
    database's to tell), so the store asks again, finds the transaction open and reports the error."""
    with tmpfs(tmp_path / "small", "8M") as small:  # a new store is about 1.5 MB with its WAL
        url = f"sqlite:///{small / 'txn.db'}"
        with TxnStore(url) as store:
            txn = store.open_txn("u", "h")
            write_id = store.allocate_write_id(txn, "default", "t")
            with contextlib.closing(sqlite3.connect(small / "txn.db", isolation_level=None)) as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the commit's frames need new space
            stat = os.statvfs(small)
            filler = small / "filler"
            with open(filler, "wb") as f, contextlib.suppress(OSError):
                f.write(b"\0" * (stat.f_bavail * stat.f_frsize))
            with pytest.raises(TxnError) as full:
                store.commit_txn(txn, **_commit_args(write_id))
            assert _one_line(full.value, url).endswith(": database or disk is full")
            assert getattr(full.value, "at_commit", False)  # the COMMIT itself failed, and was settled
            filler.unlink()
            _as_before(store, txn, write_id)
