"""The store under concurrent drivers: threads and processes (spawned, each its own engine) get unique
transaction and write ids, and several processes opening a brand-new store at once end with one schema.
On SQLite, PostgreSQL and MariaDB; processes make this a system test (seconds each, not unit-test speed)."""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pytest
import sqlalchemy as sa

from hiveacid_sql.txn import NO_MIN_OPEN, TxnStore
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.bootstrap import bootstrap_lock
from hiveacid_sql.txn.db import Db
from tests.support.stores import check_new_store, hive_store_url, open_and_commit, store_url


def _rows(store: TxnStore, table: sa.Table) -> list[dict]:
    with store.engine.connect() as conn:
        return [dict(r) for r in conn.execute(sa.select(table)).mappings()]


def _churn(store: TxnStore, count: int) -> list[tuple[int, int]]:
    out = []
    for _ in range(count):
        txn = store.open_txn("worker", threading.current_thread().name)
        w = store.allocate_write_id(txn, "default", "shared")
        store.add_components(txn, "default", "shared", w, "i")
        store.commit_txn(txn)
        out.append((txn, w))
    return out


def _check_unique(store: TxnStore, results: list[list[tuple[int, int]]], total: int) -> None:
    txns = [t for r in results for t, _ in r]
    writes = [w for r in results for _, w in r]
    assert sorted(txns) == list(range(1, total + 1))
    assert sorted(writes) == list(range(1, total + 1))
    for r in results:  # each worker sees its own ids increase
        assert [t for t, _ in r] == sorted(t for t, _ in r)
    snap = store.snapshot([("default", "shared")])
    assert snap.txns.to_string() == f"{total}:{NO_MIN_OPEN}::"
    assert snap.tables["default.shared"].to_string() == f"default.shared:{total}:{NO_MIN_OPEN}::"


def test_concurrent_threads_get_unique_ids(store: TxnStore) -> None:
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: _churn(store, 50), range(4)))
    _check_unique(store, results, 200)


def test_concurrent_processes_get_unique_ids(ready_url: str) -> None:
    # the schema is there already, so the workers race on ids, not on DDL
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(4, mp_context=ctx) as pool:
        results = list(pool.map(open_and_commit, [ready_url] * 4, [50] * 4))
    with TxnStore(ready_url) as store:
        _check_unique(store, results, 200)


def test_concurrent_first_open_of_a_new_store(url: str) -> None:
    """Several processes creating the schema at once must all end up with one seeded store."""
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(3, mp_context=ctx) as pool:
        results = list(pool.map(open_and_commit, [url] * 3, [2] * 3))
    with TxnStore(url) as store:
        _check_unique(store, results, 6)
        assert len(_rows(store, s.VERSION)) == 1
        assert len(_rows(store, s.NEXT_TXN_ID)) == 1


@pytest.mark.mariadb
def test_bootstrap_lock_of_one_mariadb_database_does_not_hold_up_another(tmp_path: Path) -> None:
    """MariaDB's named locks are server-wide: while one database's bootstrap lock is held (another process creating
    that store), a store in another database of the same server still opens (it used to wait 120 s, then fail)."""
    with store_url("mariadb", tmp_path) as busy, store_url("mariadb", tmp_path) as other:
        db = Db(sa.create_engine(busy, poolclass=sa.pool.NullPool))
        try:
            with bootstrap_lock(db), TxnStore(other) as store:
                check_new_store(store)
        finally:
            db.dispose()


def _on_hives_database(backend: str, processes: int, per_process: int, threads: int, per_thread: int) -> None:
    """Processes opening a database Apache Hive's 3.1 script made, all at once (each adds our own tables and
    ``default`` if missing, with no DDL on Hive's), then threads of one store: unique ids, one set of our tables."""
    with hive_store_url(backend) as url:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(processes, mp_context=ctx) as pool:
            results = list(pool.map(open_and_commit, [url] * processes, [per_process] * processes))
        with TxnStore(url) as store:
            _check_unique(store, results, processes * per_process)
            assert [r["NAME"] for r in _rows(store, s.DBS)] == ["default"]
            assert [r["SCHEMA_VERSION"] for r in _rows(store, s.VERSION)] == ["3.1.0"]
            with ThreadPoolExecutor(threads) as tpool:
                more = list(tpool.map(lambda _: _churn(store, per_thread), range(threads)))
            first = processes * per_process
            assert sorted(t for r in more for t, _ in r) == list(range(first + 1, first + threads * per_thread + 1))


@pytest.mark.postgres
def test_concurrent_ids_on_a_database_made_by_hives_script() -> None:
    _on_hives_database("postgres", processes=3, per_process=5, threads=3, per_thread=10)


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.release]),
        pytest.param("mariadb", marks=[pytest.mark.mariadb, pytest.mark.release]),
    ],
)
def test_concurrent_ids_on_a_database_made_by_hives_script_long(backend: str) -> None:
    _on_hives_database(backend, processes=4, per_process=50, threads=4, per_thread=50)
