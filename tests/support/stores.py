"""Helpers for the txn-store tests: a throw-away store per test on every backend.

Two kinds of database, for two kinds of test:

* :func:`store_url` - a brand-new, empty database. Opening a store on it creates all 74 tables of Hive's 3.1
  metastore: that is the test for tests of the bootstrap, and it takes seconds on MariaDB (DDL is slow there).
* :class:`ReadyStores` - a database in exactly the state a brand-new store has just after its bootstrap, for the
  many tests that only use a store. The bootstrap runs once per test run and backend; before each test the
  database is put back into that state (every table emptied, the seed rows the bootstrap wrote put back), which
  takes milliseconds instead of the seconds of a new schema.

PostgreSQL and MariaDB are used for real. A server that cannot be reached makes the test fail
(no skip): CI runs both servers, so a silent skip would hide a broken backend. The admin URLs
can be overridden with ``HIVEACID_TEST_PG_URL`` / ``HIVEACID_TEST_MARIADB_URL``.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import sqlalchemy as sa

if TYPE_CHECKING:
    from hiveacid_sql.txn import TxnStore

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


class _ReadyServerDatabase:
    """One database on a server holding a store bootstrapped once, reset to that state on every :meth:`use`."""

    def __init__(self, admin_url: str) -> None:
        self._admin_url = admin_url
        self._create()

    def _create(self) -> None:
        """A new database, a store bootstrapped in it, and what the bootstrap left remembered."""
        from hiveacid_sql.txn import TxnStore

        self._cm = _server_database(self._admin_url)
        self.url = self._cm.__enter__()
        self._engine = sa.create_engine(self.url, poolclass=sa.pool.NullPool)
        TxnStore(self.url).close()
        meta = sa.MetaData()
        with self._engine.connect() as conn:
            meta.reflect(conn)
            # Parents before children (as the seed rows go back in); Hive's WM_POOL and WM_RESOURCEPLAN refer
            # to each other (both stay empty in every test): sort_tables_and_constraints sets that cycle aside
            # where MetaData.sorted_tables would warn (from this thread, past pytest's warning filters).
            ordered = [
                t for t, _ in sa.schema.sort_tables_and_constraints(meta.tables.values()) if t is not None
            ]
            #: children before parents, so that deleting in this order never breaks a foreign key
            self._tables = list(reversed(ordered))
            self._names = sorted(t.name for t in self._tables)
            self._seeds = {t.name: [dict(r) for r in conn.execute(sa.select(t)).mappings()] for t in ordered}
        self._seeds = {name: rows for name, rows in self._seeds.items() if rows}
        self._by_name = {t.name: t for t in self._tables}

    def use(self) -> str:
        """The database's URL, its contents put back to what the bootstrap left (its tables too, if a test
        changed them: then it is made again from scratch)."""
        with self._engine.begin() as conn:
            if sorted(sa.inspect(conn).get_table_names()) == self._names:
                if conn.dialect.name != "postgresql":
                    conn.exec_driver_sql("SET FOREIGN_KEY_CHECKS=0")
                for table in self._tables:
                    conn.execute(sa.delete(table))
                for name, rows in self._seeds.items():
                    conn.execute(sa.insert(self._by_name[name]), rows)
                if conn.dialect.name != "postgresql":
                    conn.exec_driver_sql("SET FOREIGN_KEY_CHECKS=1")
                return self.url
        self.close()
        self._create()
        return self.url

    def close(self) -> None:
        self._engine.dispose()
        self._cm.__exit__(None, None, None)


def _locate_default_database(url: str, location: str | None) -> None:
    from hiveacid_sql.txn import schema as s

    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            conn.execute(sa.update(s.DBS).where(s.DBS.c.NAME == "default").values(DB_LOCATION_URI=location))
    finally:
        engine.dispose()


class ReadyStores:
    """Stores ready for use, one template per backend for a whole test run (see the module's docstring).

    SQLite copies a file bootstrapped once; PostgreSQL and MariaDB reuse one database each, reset per test.
    :meth:`prepare` starts the servers' bootstraps in the background (the run's first tests need no store, and
    a bootstrap mostly waits for the server's DDL), :meth:`url` waits for it.
    """

    def __init__(self) -> None:
        self._scratch = Path(tempfile.mkdtemp(prefix="hiveacid-ready-"))
        self._pool = ThreadPoolExecutor(2, thread_name_prefix="ready-store")
        self._servers: dict[str, Future[_ReadyServerDatabase]] = {}
        self._sqlite: Path | None = None

    def prepare(self, backends: Iterable[str]) -> None:
        """Start bootstrapping the template of each server backend (``postgres``, ``mariadb``) in the background."""
        for backend in backends:
            if backend != "sqlite" and backend not in self._servers:
                admin = PG_ADMIN_URL if backend == "postgres" else MARIADB_ADMIN_URL
                self._servers[backend] = self._pool.submit(_ReadyServerDatabase, admin)

    def url(self, backend: str, tmp_path: Path) -> str:
        """The URL of a store in the state a new store has after its bootstrap, nothing else in it, its database
        ``default`` in ``tmp_path/warehouse`` (a bootstrap's own default, ``/user/hive/warehouse``, would be one
        directory shared by every test and run on the machine: a table created there adopts an earlier run's
        files)."""
        url = self._url(backend, tmp_path / "txn.db")
        _locate_default_database(url, f"file:{tmp_path / 'warehouse'}")
        return url

    def warehouse_store(self, warehouse: Path) -> None:
        """Put the store ``connect(warehouse=warehouse)`` would create (``<warehouse>/.hiveacid/txn.db``, its
        database ``default`` in the warehouse) in place, copied from the template: a bootstrap creates Hive's
        74 tables, ~65 ms per test that connects; a copy takes about 1 ms. A store already there is kept."""
        from hiveacid_sql.txn.locations import to_metastore

        target = warehouse / ".hiveacid" / "txn.db"
        if target.exists():  # a warehouse restored from a template of its own (tests/support/templates.py)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        _locate_default_database(self._url("sqlite", target), to_metastore(str(warehouse.resolve())))

    def _url(self, backend: str, sqlite_file: Path) -> str:
        if backend == "sqlite":
            if self._sqlite is None:
                from hiveacid_sql.txn import TxnStore

                template = self._scratch / "template-txn.db"
                TxnStore(f"sqlite:///{template}").close()
                self._sqlite = template
            shutil.copyfile(self._sqlite, sqlite_file)
            return f"sqlite:///{sqlite_file}"
        self.prepare([backend])
        return self._servers[backend].result().use()

    def close(self) -> None:
        """Drop the servers' databases (waiting for a bootstrap still running) and the SQLite template."""
        try:
            for future in self._servers.values():
                if future.exception() is None:
                    future.result().close()
        finally:
            self._servers.clear()
            self._pool.shutdown()
            shutil.rmtree(self._scratch, ignore_errors=True)


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
    script = (
        "hive-schema-3.1.0.postgres.sql"
        if engine.dialect.name == "postgresql"
        else "hive-schema-3.1.0.mysql.sql"
    )
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


def _rows(store: TxnStore, table: sa.Table) -> list[dict]:
    with store.engine.connect() as conn:
        return [dict(r) for r in conn.execute(sa.select(table)).mappings()]


def check_new_store(store: TxnStore) -> None:
    """What opening a store on an empty database must leave: Hive's tables and ours, Hive's seed rows, ``default``."""
    from hiveacid_sql.txn import SCHEMA_VERSION
    from hiveacid_sql.txn import schema as s

    names = {n.upper() for n in sa.inspect(store.engine).get_table_names()}
    for name in ("TXNS", "NEXT_TXN_ID", "TXN_COMPONENTS", "COMPLETED_TXN_COMPONENTS", "NEXT_WRITE_ID",
                 "TXN_TO_WRITE_ID", "WRITE_SET", "HIVE_LOCKS", "NEXT_LOCK_ID", "COMPACTION_QUEUE",
                 "COMPLETED_COMPACTIONS", "NEXT_COMPACTION_QUEUE_ID", "DBS", "TBLS", "SDS", "SERDES", "CDS",
                 "COLUMNS_V2", "PARTITION_KEYS", "BUCKETING_COLS", "TABLE_PARAMS", "SEQUENCE_TABLE", "VERSION",
                 "HIVEACID_READ_LEASES", "HIVEACID_WRITE_HISTORY"):  # fmt: skip
        assert name in names
    assert len(names) == 74 + len(s.own_metadata.tables)
    (version,) = _rows(store, s.VERSION)
    assert version == {
        "VER_ID": 1,
        "SCHEMA_VERSION": "3.1.0",
        "VERSION_COMMENT": "Hive release version 3.1.0",
    }
    assert SCHEMA_VERSION == 3
    assert _rows(store, s.NEXT_TXN_ID) == [{"NTXN_NEXT": 1}]
    assert _rows(store, s.NEXT_LOCK_ID) == [{"NL_NEXT": 1}]
    assert _rows(store, s.NEXT_COMPACTION_QUEUE_ID) == [{"NCQ_NEXT": 1}]
    assert [(r["CTLG_ID"], r["NAME"]) for r in _rows(store, s.CTLGS)] == [(1, "hive")]
    (default,) = _rows(store, s.DBS)
    assert (default["NAME"], default["CTLG_NAME"], default["OWNER_NAME"]) == ("default", "hive", "public")


_WIDTH = re.compile(r"^(BIGINT|INTEGER|SMALLINT|TINYINT)\(\d+\)")


def _type(t: Any, dialect: sa.Dialect) -> str:
    """A reflected type as the server declares it (MariaDB's display widths left out)."""
    text = _WIDTH.sub(r"\1", t.compile(dialect=dialect))
    for attr in ("charset", "collation"):
        if getattr(t, attr, None):
            text += f" {attr}={getattr(t, attr)}"
    return text


def schema_shape(url: str) -> dict[str, Any]:
    """Every table of the database at ``url`` as the server reflects it: columns in order with their types and
    nullability, primary key, unique keys, indexes and foreign keys."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        insp = sa.inspect(engine)
        out: dict[str, Any] = {}
        for name in insp.get_table_names():
            pk = insp.get_pk_constraint(name)
            out[name] = {
                "columns": [
                    (c["name"], _type(c["type"], engine.dialect), c["nullable"])
                    for c in insp.get_columns(name)
                ],
                "primary_key": pk["constrained_columns"],
                "unique": sorted(
                    (u["name"], tuple(u["column_names"])) for u in insp.get_unique_constraints(name)
                ),
                "indexes": sorted(
                    (i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in insp.get_indexes(name)
                ),
                "foreign_keys": sorted(
                    (
                        f["name"],
                        tuple(f["constrained_columns"]),
                        f["referred_table"],
                        tuple(f["referred_columns"]),
                    )
                    for f in insp.get_foreign_keys(name)
                ),
            }
        return out
    finally:
        engine.dispose()


def create_hive_tables(url: str) -> None:
    """Our definitions of Hive's 74 metastore tables (``txn/hive31.py``), created in the database at ``url``."""
    from hiveacid_sql.txn import hive31

    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        hive31.ddl_metadata(engine.dialect.name).create_all(engine)
    finally:
        engine.dispose()
