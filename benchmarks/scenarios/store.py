"""Scenario 7: transaction store throughput, on SQLite and on PostgreSQL.

Ours: N times open a transaction, allocate a write id for one table, commit (three short
database transactions, what every auto-commit INSERT pays in the store). The peer: a plain SQLAlchemy
INSERT of one row and COMMIT per transaction on the same database, the floor of any durable bookkeeping
there. The ratio says how many plain commits one of ours costs. No Spark is involved; N is
``--rows`` / 100, at least 20 and at most 300 (a store round trip costs about the same whatever the size).
PostgreSQL: ``HIVEACID_BENCH_PG_URL`` (default the test server), in a
database of its own that the scenario creates and drops.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path

import sqlalchemy as sa

from benchmarks.scenarios.base import OURS, Contender, Scenario, register

MAX_TRANSACTIONS = 300


def transactions_for(rows: int) -> int:
    """Transactions per run for a ``--rows`` size: tiny sizes stay quick, big ones stop at 300."""
    return max(20, min(MAX_TRANSACTIONS, rows // 100))


PG_ADMIN_URL = os.environ.get("HIVEACID_BENCH_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")

_peer = sa.MetaData()
PEER = sa.Table(
    "peer_commits",
    _peer,
    sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("payload", sa.String(64), nullable=False),
)


class _StoreThroughput(Scenario):
    def database_url(self) -> str:
        raise NotImplementedError

    def drop_database(self) -> None:
        """Remove what :meth:`database_url` created."""

    def setup(self) -> None:
        self.url = self.database_url()
        self.store = None
        self.peer = sa.create_engine(self.url)
        self.next_id = 0
        self.count = transactions_for(self.ctx.data.rows)
        self.ctx.notes["transactions_per_run"] = self.count

    def reset_ours(self) -> None:
        """An emptied store (not timed)."""
        from hiveacid_sql.txn import TxnStore

        if self.store is not None:
            self.store.close()
        engine = sa.create_engine(self.url)
        existing = sa.MetaData()
        existing.reflect(engine)  # every store table (Hive's and ours), whatever case the database gives them
        existing.drop_all(engine, tables=[t for t in existing.sorted_tables if t.name != PEER.name])
        engine.dispose()
        self.store = TxnStore(self.url)

    def reset_peer(self) -> None:
        """An emptied peer table (not timed)."""
        _peer.drop_all(self.peer)
        _peer.create_all(self.peer)
        self.next_id = 0

    def run_ours(self) -> None:
        for _ in range(self.count):
            txn = self.store.open_txn("bench", "localhost")
            self.store.allocate_write_id(txn, "default", "employee")
            self.store.commit_txn(txn)

    def run_peer(self) -> None:
        with self.peer.connect() as conn:
            for _ in range(self.count):
                self.next_id += 1
                conn.execute(sa.insert(PEER).values(id=self.next_id, payload="one row per transaction"))
                conn.commit()

    def ours_contents(self) -> dict:
        history = self.store.write_id_history("default", "employee")
        return {"transactions": sum(1 for h in history if h["state"] == "committed")}

    def peer_contents(self) -> dict:
        with self.peer.connect() as conn:
            return {"transactions": conn.execute(sa.select(sa.func.count()).select_from(PEER)).scalar_one()}

    def contenders(self) -> list[Contender]:
        # Each run adds ``count`` commits to an emptied store, so both end with the same count.
        return [
            Contender(OURS, run=self.run_ours, prepare=self.reset_ours, contents=self.ours_contents),
            Contender("sqlalchemy-insert-commit", run=self.run_peer, prepare=self.reset_peer,
                      contents=self.peer_contents),
        ]

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
        self.peer.dispose()
        self.drop_database()


@register
class StoreThroughputSqlite(_StoreThroughput):
    name = "store_sqlite"
    title = "7a. Store throughput, SQLite file: N x (open, allocate write id, commit)"

    def database_url(self) -> str:
        self._dir = tempfile.TemporaryDirectory(prefix="hiveacid-store-bench-")
        return f"sqlite:///{Path(self._dir.name) / 'txn.db'}"

    def drop_database(self) -> None:
        self._dir.cleanup()


@register
class StoreThroughputPostgres(_StoreThroughput):
    name = "store_postgres"
    title = "7b. Store throughput, PostgreSQL: N x (open, allocate write id, commit)"

    def database_url(self) -> str:
        self._name = f"hiveacid_bench_{uuid.uuid4().hex[:10]}"
        admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
        with admin.connect() as conn:
            conn.exec_driver_sql(f"CREATE DATABASE {self._name}")
        admin.dispose()
        return sa.make_url(PG_ADMIN_URL).set(database=self._name).render_as_string(hide_password=False)

    def drop_database(self) -> None:
        admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {self._name} WITH (FORCE)")
        admin.dispose()
