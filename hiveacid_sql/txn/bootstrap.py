"""Create the tables on first use, seed their single-row counters, and check the schema version.

Several processes may open a brand-new store at once. Table creation tolerates losing that
race (a second ``create_all`` sees the tables), and seeding is keyed on the ``VERSION`` row's
primary key: whoever inserts it also seeds the counters in the same transaction, and everyone
else gets a duplicate-key error and knows the work is done.
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from hiveacid_sql.errors import TxnError
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.db import Db

#: Location of the ``default`` database until the engine configures a warehouse.
DEFAULT_DB_LOCATION = "file:/user/hive/warehouse"


def _create_tables(db: Db, attempts: int = 4) -> None:
    for attempt in range(1, attempts + 1):
        try:
            s.metadata.create_all(db.engine, checkfirst=True)
            return
        except sa.exc.DBAPIError:
            # Another process created a table between our check and our CREATE; look again.
            if attempt == attempts:
                raise
            time.sleep(0.05 * attempt)


def _stored_version(conn: Connection) -> str | None:
    return conn.execute(sa.select(s.VERSION.c.SCHEMA_VERSION).where(s.VERSION.c.VER_ID == 1)).scalar()


def _check_version(stored: str) -> None:
    try:
        version = int(stored)
    except ValueError:
        raise TxnError(f"Unrecognised transaction store schema version {stored!r}") from None
    if version > s.SCHEMA_VERSION:
        raise TxnError(
            f"Transaction store schema version {version} is newer than this hiveacid-sql "
            f"understands ({s.SCHEMA_VERSION}); upgrade hiveacid-sql"
        )


def _seed(conn: Connection, default_db_location: str) -> None:
    conn.execute(
        sa.insert(s.VERSION).values(
            VER_ID=1, SCHEMA_VERSION=str(s.SCHEMA_VERSION), VERSION_COMMENT=s.SCHEMA_COMMENT
        )
    )
    conn.execute(sa.insert(s.NEXT_TXN_ID).values(NTXN_NEXT=1))
    conn.execute(sa.insert(s.NEXT_LOCK_ID).values(NL_NEXT=1))
    conn.execute(sa.insert(s.NEXT_COMPACTION_QUEUE_ID).values(NCQ_NEXT=1))
    conn.execute(sa.insert(s.HIVEACID_NEXT_READ_LEASE_ID).values(NRL_NEXT=1))
    conn.execute(
        sa.insert(s.DBS).values(
            NAME="default",
            DESC="Default Hive database",
            DB_LOCATION_URI=default_db_location,
            OWNER_NAME="public",
        )
    )


def _upgrade(db: Db, stored: int) -> None:
    """An older store: every change since version 1 only added tables (created just before), so the upgrade
    is recording the new version, which keeps an older hiveacid-sql from writing without them (it would skip
    the read leases the cleaner relies on and the write history)."""
    with db.write() as conn:
        conn.execute(
            sa.update(s.VERSION)
            .where(s.VERSION.c.VER_ID == 1, s.VERSION.c.SCHEMA_VERSION.in_([str(stored)]))
            .values(SCHEMA_VERSION=str(s.SCHEMA_VERSION))
        )


def ensure_schema(db: Db, *, default_db_location: str = DEFAULT_DB_LOCATION) -> None:
    """Make the store usable: version not newer than ours, tables exist, counters seeded.

    The version is checked before anything is created so that an old hiveacid-sql never adds
    tables to (or seeds) a store laid out by a newer one.
    """
    existing = set(sa.inspect(db.engine).get_table_names())
    stored: str | None = None
    if s.VERSION.name in existing:
        with db.read() as conn:
            stored = _stored_version(conn)
        if stored is not None:
            _check_version(stored)
    if not set(s.metadata.tables) <= existing:
        _create_tables(db)
    if stored is not None and int(stored) < s.SCHEMA_VERSION:
        _upgrade(db, int(stored))
    if stored is None:
        try:
            with db.write() as conn:
                _seed(conn, default_db_location)
        except sa.exc.IntegrityError:
            pass  # another process seeded it first
        with db.read() as conn:
            stored = _stored_version(conn)
        if stored is None:  # pragma: no cover - only if the seeding transaction vanished
            raise TxnError("Transaction store has no VERSION row after initialisation")
        _check_version(stored)
