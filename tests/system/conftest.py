"""Fixtures of the Hive-client tests (``-m hive_client``): a database made by Apache Hive's own 3.1 script and
Hive 2.3's metastore client on it, one of each per test module and backend (starting that JVM takes seconds).

The servers must be up: a missing server or JDBC driver fails the test, never skips it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.hive_client import HiveClient
from tests.support.stores import hive_store_url

#: the backends Hive's client runs on (no SQLite: Hive has no SQLite schema and 2.3 no SQLite support).
#: CI runs them on PostgreSQL; MariaDB's run (a second Hive JVM and schema, ~4 min of CI) is ``--long``.
HIVE_BACKENDS = [
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    pytest.param("mariadb", id="mariadb", marks=[pytest.mark.mariadb, pytest.mark.release]),
]


@pytest.fixture(scope="module", params=HIVE_BACKENDS)
def hive_db(request: pytest.FixtureRequest) -> Iterator[str]:
    """The SQLAlchemy URL of a brand-new database that Apache Hive's 3.1.0 script created (dropped after)."""
    with hive_store_url(request.param) as url:
        yield url


@pytest.fixture(scope="module")
def hive_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The warehouse directory both clients share (Hive's managed tables go under it)."""
    return tmp_path_factory.mktemp("hive-warehouse")


@pytest.fixture(scope="module")
def hive(hive_db: str, hive_warehouse: Path) -> Iterator[HiveClient]:
    """Hive 2.3's metastore client on ``hive_db``, in its own process and JVM, shared by the module's tests."""
    client = HiveClient(hive_db, hive_warehouse)
    yield client
    client.close()


@pytest.fixture
def hive_tidy(hive: HiveClient) -> Iterator[HiveClient]:
    """After a test, abort what is left open and release Hive's locks of no transaction, so that a test
    failing midway cannot hold off the module's next tests (an open transaction blocks the cleaner)."""
    yield hive
    for txn in hive.show_txns():
        if txn["state"] == "OPEN":
            hive.abort_txn(txn["id"])
    for lock in hive.show_locks():
        if lock["txn_id"] == 0:
            hive.unlock(lock["lock_id"])
