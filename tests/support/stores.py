"""Helpers for the txn-store tests: a fresh, throw-away database per test on every backend.

PostgreSQL and MariaDB are used for real. A server that cannot be reached makes the test fail
(no skip): CI runs both servers, so a silent skip would hide a broken backend. The admin URLs
can be overridden with ``HIVEACID_TEST_PG_URL`` / ``HIVEACID_TEST_MARIADB_URL``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

PG_ADMIN_URL = os.environ.get("HIVEACID_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
MARIADB_ADMIN_URL = os.environ.get("HIVEACID_TEST_MARIADB_URL", "mysql+pymysql://root@127.0.0.1:3306/test")

#: ``@pytest.fixture(params=BACKENDS)``: every store test runs on all three backends.
BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    pytest.param("mariadb", id="mariadb", marks=pytest.mark.mariadb),
]


@contextmanager
def _server_database(admin_url: str) -> Iterator[str]:
    """CREATE DATABASE hatest_<random> on the server, yield its URL, DROP it afterwards."""
    name = f"hatest_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    is_pg = admin.dialect.name == "postgresql"
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"CREATE DATABASE {name}")
        try:
            yield sa.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as conn:
                force = " WITH (FORCE)" if is_pg else ""
                conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}{force}")
    finally:
        admin.dispose()


@contextmanager
def store_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A URL for a brand-new, empty store on ``backend`` ('sqlite', 'postgres', 'mariadb')."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'txn.db'}"
    elif backend == "postgres":
        with _server_database(PG_ADMIN_URL) as url:
            yield url
    elif backend == "mariadb":
        with _server_database(MARIADB_ADMIN_URL) as url:
            yield url
    else:  # pragma: no cover
        raise ValueError(backend)


def open_and_commit(url: str, count: int) -> list[tuple[int, int]]:
    """Worker for the multi-process test: open, allocate a write id, commit, ``count`` times."""
    from hiveacid_sql.txn import TxnStore

    store = TxnStore(url)
    try:
        ids = []
        for _ in range(count):
            txn = store.open_txn("worker", f"pid{os.getpid()}")
            write_id = store.allocate_write_id(txn, "default", "shared")
            store.add_components(txn, "default", "shared", write_id, "i")
            store.commit_txn(txn)
            ids.append((txn, write_id))
        return ids
    finally:
        store.close()


HIVE_SCRIPTS = Path(__file__).resolve().parent.parent / "fixtures" / "hive-metastore"


def load_hive_script(url: str) -> None:
    """Run Apache Hive's own 3.1.0 schema script (``tests/fixtures/hive-metastore``) on the empty database ``url``.

    Statements are run one by one over SQLAlchemy's driver (no psql/mariadb client needed); the scripts'
    comments, ``SET`` lines and MySQL's ``/*!..*/`` version comments are skipped.
    """
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    script = "hive-schema-3.1.0.postgres.sql" if engine.dialect.name == "postgresql" else "hive-schema-3.1.0.mysql.sql"
    text = (HIVE_SCRIPTS / script).read_text()
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("--") and not ln.startswith("/*!")]
    try:
        with engine.begin() as conn:
            if engine.dialect.name != "postgresql":  # the script creates tables before those they reference
                conn.exec_driver_sql("SET FOREIGN_KEY_CHECKS=0")
            for stmt in "\n".join(lines).split(";\n"):
                stmt = stmt.strip().rstrip(";")
                if not stmt or stmt.upper().startswith("SET "):
                    continue
                conn.exec_driver_sql(stmt.replace("%", "%%"))
    finally:
        engine.dispose()


@contextmanager
def hive_store_url(backend: str) -> Iterator[str]:
    """A fresh database on ``backend`` ('postgres' or 'mariadb') holding what Hive's own 3.1.0 script creates."""
    admin = PG_ADMIN_URL if backend == "postgres" else MARIADB_ADMIN_URL
    with _server_database(admin) as url:
        load_hive_script(url)
        yield url
