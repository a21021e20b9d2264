"""Open a store's database: use a Hive 3.1 metastore as it is, create one in an empty database, refuse the rest.

* A database holding a Hive 3.1 metastore (``VERSION.SCHEMA_VERSION`` 3.1.x, every table we use present) is
  used as it is: no DDL on Hive's tables, ever. Our own ``HIVEACID_*`` tables are created when missing, and the
  rows Hive's own start-up adds (database ``default``) when missing.
* An empty database gets exactly what Hive's 3.1.0 script creates (:func:`hive31.ddl_metadata`, SQLite too),
  with the script's seed rows, plus our tables.
* Anything else is refused in one line, writing nothing: another Hive schema version, a half-created schema,
  or a store laid out by hiveacid-sql before version 3 (naming ``hiveacid-sql upgrade-store``).

Several processes may open a brand-new database at once: creation runs under a bootstrap lock (an advisory
lock on PostgreSQL, where the DDL is also one transaction; a named lock on MariaDB, named after the database;
SQLite's write lock), and whoever comes second finds the work done.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from hiveacid_sql.errors import TxnError
from hiveacid_sql.txn import hive31
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.db import Db
from hiveacid_sql.txn.ids import reserve_ids
from hiveacid_sql.txn.locations import to_metastore

#: Location of the ``default`` database until the engine configures a warehouse.
DEFAULT_DB_LOCATION = "file:/user/hive/warehouse"
_LOCK_KEY = 7_310_202_615  # pg_advisory_xact_lock key ("hiveacid bootstrap")
#: MariaDB's named locks are server-wide: the name carries the database (hashed: names are at most 64 characters),
#: so that stores in two databases of one server do not wait for each other's bootstrap.
_MYSQL_LOCK = "CONCAT('hiveacid_sql_bootstrap.', MD5(COALESCE(DATABASE(), '')))"
#: Our layouts before Hive's (VERSION.SCHEMA_VERSION of hiveacid-sql 0.x stores).
OLD_LAYOUTS = ("1", "2")

#: The Hive tables the store reads and writes: all must be there for a metastore to be used.
REQUIRED = (
    s.VERSION, s.CTLGS, s.DBS, s.TBLS, s.SDS, s.SERDES, s.SERDE_PARAMS, s.CDS, s.COLUMNS_V2, s.PARTITION_KEYS,
    s.PARTITIONS, s.PARTITION_KEY_VALS, s.PARTITION_PARAMS, s.BUCKETING_COLS, s.SORT_COLS, s.TABLE_PARAMS,
    s.SEQUENCE_TABLE, s.TXNS, s.NEXT_TXN_ID, s.TXN_COMPONENTS, s.COMPLETED_TXN_COMPONENTS, s.NEXT_WRITE_ID,
    s.TXN_TO_WRITE_ID, s.WRITE_SET, s.HIVE_LOCKS, s.NEXT_LOCK_ID, s.COMPACTION_QUEUE, s.COMPLETED_COMPACTIONS,
    s.NEXT_COMPACTION_QUEUE_ID, s.MIN_HISTORY_LEVEL, s.AUX_TABLE,
)  # fmt: skip


def upgrade_hint(url: str) -> str:
    shown = sa.make_url(url).render_as_string(hide_password=True)
    return f"hiveacid-sql upgrade-store {shown}"


def _names(conn: Connection) -> dict[str, str]:
    """Tables in the database, by lower-case name (PostgreSQL folds Hive's unquoted names)."""
    return {n.lower(): n for n in sa.inspect(conn).get_table_names()}


def _version(conn: Connection) -> str | None:
    return conn.execute(sa.select(s.VERSION.c.SCHEMA_VERSION).order_by(s.VERSION.c.VER_ID)).scalars().first()


def _where(url: str) -> str:
    return f"transaction store {sa.make_url(url).render_as_string(hide_password=True)}"


def _state(conn: Connection, url: str) -> str:
    """'ready' (a complete Hive 3.1 metastore with our tables), 'hive' (ours missing) or 'empty'; else TxnError."""
    dialect = conn.dialect.name
    names = _names(conn)
    hive = {hive31.physical_name(t, dialect).lower() for t in hive31.metadata.tables.values()}
    found = hive & names.keys()
    version = _version(conn) if "version" in names else None
    if version in OLD_LAYOUTS:
        raise TxnError(
            f"{_where(url)} is laid out by hiveacid-sql schema version {version}, not Hive 3.1's metastore: "
            f"upgrade it with `{upgrade_hint(url)}`"
        )
    if version is not None and not version.startswith("3.1."):
        raise TxnError(f"{_where(url)} holds a Hive metastore of schema version {version}; hiveacid-sql uses 3.1.x")
    missing = sorted(
        hive31.physical_name(t, dialect) for t in REQUIRED if hive31.physical_name(t, dialect).lower() not in names
    )
    if version is None:
        if not found:
            return "empty"
        raise TxnError(
            f"{_where(url)} holds a half-created Hive metastore schema ({len(found)} of {len(hive)} tables, "
            "no VERSION row): finish it with Hive's schematool or use an empty database"
        )
    if missing:
        raise TxnError(
            f"{_where(url)} holds a half-created Hive {version} metastore schema: missing {', '.join(missing)}"
        )
    own = {t.name.lower() for t in s.own_metadata.tables.values()}
    return "ready" if own <= names.keys() else "hive"


@contextmanager
def bootstrap_lock(db: Db) -> Iterator[Connection]:
    """A connection in a transaction that holds the store's bootstrap lock."""
    with db.engine.connect() as conn:
        if db.backend in ("mysql", "mariadb"):
            got = conn.exec_driver_sql(f"SELECT GET_LOCK({_MYSQL_LOCK}, 120)").scalar()
            conn.commit()  # a session lock: it outlives this (auto-begun) transaction
            if got != 1:
                raise TxnError("Timed out waiting for another process creating the transaction store")
            try:
                with conn.begin():
                    yield conn
            finally:
                conn.exec_driver_sql(f"SELECT RELEASE_LOCK({_MYSQL_LOCK})")
                conn.commit()
            return
        with conn.begin():
            if db.backend == "postgresql":
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_LOCK_KEY})")
            yield conn


def _seed_hive(conn: Connection) -> None:
    """The rows Hive's 3.1.0 script inserts into a new metastore."""
    conn.execute(
        sa.insert(s.CTLGS).values(CTLG_ID=1, NAME=s.HIVE_CATALOG, DESC="Default catalog for Hive", LOCATION_URI="TBD")
    )
    conn.execute(
        sa.insert(s.SEQUENCE_TABLE).values(
            SEQUENCE_NAME="org.apache.hadoop.hive.metastore.model.MNotificationLog", NEXT_VAL=1
        )
    )
    conn.execute(sa.insert(s.NOTIFICATION_SEQUENCE).values(NNI_ID=1, NEXT_EVENT_ID=1))
    conn.execute(sa.insert(s.NEXT_TXN_ID).values(NTXN_NEXT=1))
    conn.execute(sa.insert(s.NEXT_LOCK_ID).values(NL_NEXT=1))
    conn.execute(sa.insert(s.NEXT_COMPACTION_QUEUE_ID).values(NCQ_NEXT=1))
    conn.execute(
        sa.insert(s.VERSION).values(
            VER_ID=1, SCHEMA_VERSION=s.HIVE_SCHEMA_VERSION, VERSION_COMMENT=s.HIVE_VERSION_COMMENT
        )
    )


def _seed_defaults(conn: Connection, default_db_location: str) -> None:
    """What Hive's metastore adds when it starts on a new database: the ``default`` database."""
    dbs = s.DBS.c
    if conn.execute(sa.select(dbs.DB_ID).where(dbs.NAME == "default")).first() is not None:
        return
    (db_id,) = reserve_ids(conn, "DBS")
    conn.execute(
        sa.insert(s.DBS).values(
            DB_ID=db_id, NAME="default", DESC="Default Hive database", DB_LOCATION_URI=to_metastore(default_db_location),
            OWNER_NAME="public", OWNER_TYPE="ROLE", CTLG_NAME=s.HIVE_CATALOG,
        )
    )


def ensure_schema(db: Db, *, default_db_location: str = DEFAULT_DB_LOCATION, url: str = "") -> None:
    """Make the database usable as a store, or raise :class:`TxnError` in one line having written nothing."""
    url = url or db.engine.url.render_as_string(hide_password=True)
    try:  # the common case, without the lock: a complete store
        with db.read() as conn:
            state = _state(conn, url)
    except TxnError:
        state = "check again under the lock"  # e.g. half-created by a process creating it right now (MariaDB)
    if state == "ready":
        with db.read() as conn:
            has_default = conn.execute(sa.select(s.DBS.c.DB_ID).where(s.DBS.c.NAME == "default")).first()
        if has_default is not None:
            return
    for attempt in range(1, 5):
        try:
            with bootstrap_lock(db) as conn:
                state = _state(conn, url)  # again, under the lock: another process may have done it
                if state == "empty":
                    hive31.ddl_metadata(conn.dialect.name).create_all(conn)
                    _seed_hive(conn)
                s.own_metadata.create_all(conn, checkfirst=True)
                _seed_defaults(conn, default_db_location)
            return
        except sa.exc.IntegrityError:
            if attempt == 4:
                raise
            time.sleep(0.05 * attempt)  # lost a race on a seed row (another bootstrapper without the lock)
