"""Engine set-up and the two kinds of short transaction the store runs.

* :meth:`Db.write` - a read-write transaction. PostgreSQL and MariaDB run it at READ COMMITTED
  (what Hive's metastore uses) and take row locks with ``SELECT ... FOR UPDATE``; SQLite starts
  it with ``BEGIN IMMEDIATE`` so the write lock is taken up front and two writers never deadlock
  on a lock upgrade (SQLAlchemy's documented pysqlite recipe).
* :meth:`Db.read` - a read-only transaction that sees one consistent picture: REPEATABLE READ on
  PostgreSQL/MariaDB, a deferred ``BEGIN`` on SQLite (WAL gives readers a stable snapshot).

:meth:`Db.run_write` retries a write transaction that the server rolled back because of a
deadlock or a serialisation failure, or that asked for a retry (:class:`RetryTxn`); nothing
else is retried, because only then is it certain that nothing landed.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from hiveacid_sql.errors import TxnError

T = TypeVar("T")

#: Seconds a SQLite writer waits for the database lock before giving up.
#: Seconds a SQLite store waits for another process's write lock, unless the URL says ``?timeout=N``.
SQLITE_BUSY_TIMEOUT_S = 30
_READ_OPTION = "hiveacid_read_only"
_MAX_ATTEMPTS = 8

# Server error codes meaning "the transaction was rolled back, run it again".
_PG_RETRY_SQLSTATES = {"40001", "40P01"}  # serialization_failure, deadlock_detected
_MYSQL_RETRY_CODES = {1213, 1020}  # deadlock; "record has changed since last read" (snapshot isolation)


class RetryTxn(Exception):  # noqa: N818 - a control-flow signal, not an error the user sees
    """Raised inside a write transaction to roll it back and run it again (e.g. lost insert race)."""


def next_counter(conn: Connection, column: sa.Column) -> int:
    """Read-and-bump a single-row counter (NEXT_TXN_ID, NEXT_COMPACTION_QUEUE_ID, ...) under its row lock.

    A counter row a store lacks (a table added by a newer schema to an older store) starts at 1. Where the
    database has ``UPDATE .. RETURNING`` (PostgreSQL, SQLite) the bump and the read are one statement (the
    UPDATE takes the same row lock); elsewhere it is Hive's ``SELECT .. FOR UPDATE`` then ``UPDATE``."""
    if conn.dialect.update_returning:
        bumped_to = conn.execute(_bump(column)).scalar()
        if bumped_to is not None:
            return int(bumped_to) - 1
    value = conn.execute(sa.select(column).with_for_update()).scalar()
    if value is None:
        conn.execute(sa.insert(column.table).values({column.name: 2}))
        return 1
    bumped = conn.execute(sa.update(column.table).where(column == value).values({column.name: value + 1}))
    if bumped.rowcount != 1:  # somebody moved it although we held the lock: start over
        raise RetryTxn(f"{column.table.name} changed concurrently")
    return int(value)


@functools.cache
def _bump(column: sa.Column) -> sa.Update:
    """``UPDATE counter SET n = n + 1 RETURNING n``, built once per counter."""
    return sa.update(column.table).values({column.name: column + 1}).returning(column)


def peek_counter(conn: Connection, column: sa.Column) -> int:
    """The value a counter would hand out next (1 for a missing counter row), without taking it."""
    value = conn.execute(sa.select(column)).scalar()
    return int(value) if value is not None else 1


def _setup_sqlite(engine: Engine, busy_timeout_s: float) -> None:
    """WAL, busy timeout, foreign keys, and explicit BEGIN [IMMEDIATE] (pysqlite recipe)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Stop pysqlite from emitting its own BEGIN/COMMIT; we issue BEGIN ourselves below.
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        try:
            cur.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
            cur.execute("PRAGMA journal_mode = WAL")
            cur.execute("PRAGMA foreign_keys = ON")
            cur.execute("PRAGMA synchronous = NORMAL")  # durable enough under WAL, much faster
        finally:
            cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        read_only = conn.get_execution_options().get(_READ_OPTION, False)
        conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def make_engine(url: str, *, echo: bool = False) -> Engine:
    """An engine configured for the store's transaction discipline on its backend."""
    sa_url = sa.make_url(url)
    backend = sa_url.get_backend_name()
    if backend == "sqlite":
        # ``sqlite:///txn.db?timeout=5``: how long a statement waits for another process's write lock
        # before it fails (one line: "database is locked"); 30 s by default.
        text = sa_url.query.get("timeout", str(SQLITE_BUSY_TIMEOUT_S))
        try:
            busy = float(text if isinstance(text, str) else text[-1])
        except ValueError:
            raise TxnError(f"transaction store {url}: timeout must be a number of seconds, not {text!r}") from None
        if busy < 0:
            raise TxnError(f"transaction store {url}: timeout must be a number of seconds, not {text!r}")
        sa_url = sa_url.difference_update_query(["timeout"])
        engine = sa.create_engine(sa_url, echo=echo, connect_args={"timeout": busy}, pool_pre_ping=False)
        _setup_sqlite(engine, busy)
        return engine
    if backend == "mysql" and not sa_url.database:  # MariaDB has no default database to put the tables in
        shown = sa_url.render_as_string(hide_password=True)
        raise TxnError(f"transaction store {shown} names no database: add it to the URL ({shown.rstrip('/')}/NAME)")
    if backend == "mysql" and "charset" not in sa_url.query:
        sa_url = sa_url.update_query_dict({"charset": "utf8mb4"})
    return sa.create_engine(sa_url, echo=echo, isolation_level="READ COMMITTED", pool_pre_ping=True)


def _is_retryable(exc: sa.exc.DBAPIError) -> bool:
    orig = exc.orig
    sqlstate = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if sqlstate in _PG_RETRY_SQLSTATES:
        return True
    args: tuple = getattr(orig, "args", ())
    return len(args) > 0 and isinstance(args[0], int) and args[0] in _MYSQL_RETRY_CODES


class StoreError(TxnError):
    """A database failure of the store, in one line. ``at_commit``: it happened while the database committed
    (the COMMIT was sent, no reply came back), so the transaction may have committed anyway."""

    def __init__(self, message: str, *, at_commit: bool = False) -> None:
        super().__init__(message)
        self.at_commit = at_commit


def store_error(exc: sa.exc.DBAPIError, url: sa.URL | str, *, at_commit: bool = False) -> StoreError:
    """A database failure of the store (locked, read-only, corrupt, unreachable) as one line naming the store.

    SQLAlchemy's own text spans several lines (the SQL, a link); the driver's first line says what happened.
    """
    text = str(exc.orig if exc.orig is not None else exc).strip().splitlines()
    where = sa.make_url(url).render_as_string(hide_password=True) if url else "the transaction store"
    return StoreError(f"transaction store {where}: {text[0] if text else type(exc).__name__}", at_commit=at_commit)


class Db:
    """An engine plus the store's transaction helpers; shared by the txn store and the catalog."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.backend = engine.dialect.name  # 'sqlite', 'postgresql', 'mysql'/'mariadb'

    @contextmanager
    def write(self, *, consistent: bool = False) -> Iterator[Connection]:
        """One short read-write transaction; commits on success, rolls back on any exception. A failure of the
        COMMIT itself is a :class:`StoreError` with ``at_commit`` (the outcome is the server's to tell).
        ``consistent``: its reads see one state of the database, as :meth:`read`'s do (REPEATABLE READ on the
        servers; SQLite's write transaction is serial anyway); a write that collides with a change made since
        fails there and :meth:`run_write` runs it again."""
        committing = False
        try:
            with self._begin(consistent) as conn:
                yield conn
                committing = True  # the body is done: what fails from here on is the COMMIT
        except sa.exc.DBAPIError as exc:
            if not committing and (_is_retryable(exc) or isinstance(exc, sa.exc.IntegrityError)):
                raise  # run_write tries again; callers handle a lost insert race
            raise store_error(exc, self.engine.url, at_commit=committing) from exc

    @contextmanager
    def _begin(self, consistent: bool) -> Iterator[Connection]:
        if not consistent or self.backend == "sqlite":
            with self.engine.begin() as conn:
                yield conn
            return
        with self.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """One read-only transaction that sees a single consistent state of the database."""
        try:  # connecting may fail too (the server gone): one line as well
            with self.engine.connect() as conn:
                if self.backend == "sqlite":
                    conn = conn.execution_options(**{_READ_OPTION: True})
                elif self.backend == "postgresql":
                    conn = conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
                else:
                    conn = conn.execution_options(isolation_level="REPEATABLE READ")
                with conn.begin():
                    yield conn
        except sa.exc.DBAPIError as exc:
            raise store_error(exc, self.engine.url) from exc

    def run_write(self, fn: Callable[[Connection], T], *, consistent: bool = False) -> T:
        """Run ``fn`` in a write transaction (``consistent``: see :meth:`write`), again if the server rolled it
        back (deadlock, serialization failure)."""
        for attempt in range(1, _MAX_ATTEMPTS + 1):
            try:
                with self.write(consistent=consistent) as conn:
                    return fn(conn)
            except RetryTxn as exc:
                if attempt == _MAX_ATTEMPTS:
                    raise TxnError(f"Gave up after {attempt} attempts: {exc}") from exc
            except sa.exc.DBAPIError as exc:
                if isinstance(exc, sa.exc.IntegrityError):
                    raise
                if attempt == _MAX_ATTEMPTS or not _is_retryable(exc):
                    raise store_error(exc, self.engine.url) from exc
            # Jittered back-off so that colliding writers do not collide again.
            time.sleep(random.uniform(0, 0.01 * 2**attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def dispose(self) -> None:
        self.engine.dispose()
