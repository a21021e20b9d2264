"""The store's tables: Hive 3.1's metastore tables (:mod:`~hiveacid_sql.txn.hive31`) plus our own ``HIVEACID_*``.

The transaction and catalog tables *are* Hive's (names, columns, value conventions), so a Hive 3.1 metastore
database is a store as it is, and hiveacid-sql is one more client of it. What Hive lacks lives beside them in
tables of our own, under the ``HIVEACID_`` prefix, in :data:`own_metadata`: they are created when missing and
are the only tables this project ever creates in a database that already holds a Hive metastore.
"""

from __future__ import annotations

import sqlalchemy as sa

from hiveacid_sql.txn import hive31
from hiveacid_sql.txn.hive31 import (
    AUX_TABLE,
    BUCKETING_COLS,
    CDS,
    COLUMNS_V2,
    COMPACTION_QUEUE,
    COMPLETED_COMPACTIONS,
    COMPLETED_TXN_COMPONENTS,
    CTLGS,
    DATABASE_PARAMS,
    DBS,
    HIVE_LOCKS,
    MIN_HISTORY_LEVEL,
    NEXT_COMPACTION_QUEUE_ID,
    NEXT_LOCK_ID,
    NEXT_TXN_ID,
    NEXT_WRITE_ID,
    NOTIFICATION_SEQUENCE,
    PARTITION_KEY_VALS,
    PARTITION_KEYS,
    PARTITION_PARAMS,
    PARTITIONS,
    SD_PARAMS,
    SDS,
    SEQUENCE_TABLE,
    SERDE_PARAMS,
    SERDES,
    SORT_COLS,
    TABLE_PARAMS,
    TBLS,
    TXN_COMPONENTS,
    TXN_TO_WRITE_ID,
    TXNS,
    VERSION,
    WRITE_SET,
)

#: The Hive metastore schema the store is (``VERSION.SCHEMA_VERSION``); any 3.1.x is used as it is.
HIVE_SCHEMA_VERSION = "3.1.0"
HIVE_VERSION_COMMENT = "Hive release version 3.1.0"
#: The layout version of hiveacid-sql's stores: 1 and 2 were our own simplified metastore
#: (:mod:`~hiveacid_sql.txn.schema_v2`), 3 is Hive 3.1's metastore plus the ``HIVEACID_*`` tables.
SCHEMA_VERSION = 3
#: The catalog name Hive 3 gives every database it creates (``CTLGS``/``DBS.CTLG_NAME``).
HIVE_CATALOG = "hive"

metadata = hive31.metadata
own_metadata = sa.MetaData()

_Db = sa.String(128)  # *_DATABASE columns
_Tbl = sa.String(256)  # *_TABLE columns

# Read leases (Hive 3 has MIN_HISTORY_LEVEL for transactions only): every snapshot read outside a
# transaction registers here, so the compaction cleaner never deletes files a running or returned query
# still reads. RL_ID comes from HIVEACID_NEXT_READ_LEASE_ID (a counter row, like NEXT_TXN_ID), so ids are
# handed out in commit order and "every lease older than a compaction" is one comparison.
HIVEACID_READ_LEASES = sa.Table(
    "HIVEACID_READ_LEASES",
    own_metadata,
    sa.Column("RL_ID", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("RL_DATABASE", _Db, nullable=False),
    sa.Column("RL_TABLE", _Tbl, nullable=False),
    sa.Column("RL_TXNID", sa.BigInteger),  # the reader's transaction, if it reads inside one
    sa.Column("RL_STARTED", sa.BigInteger, nullable=False),  # epoch millis
    sa.Column("RL_EXPIRES", sa.BigInteger, nullable=False),  # epoch millis; the cleaner ignores it after this
    sa.Column("RL_HOST", sa.String(128)),
    sa.Column("RL_AGENT_INFO", sa.String(128)),
    sa.Index("HIVEACID_READ_LEASES_IDX", "RL_DATABASE", "RL_TABLE"),
)

HIVEACID_NEXT_READ_LEASE_ID = sa.Table(
    "HIVEACID_NEXT_READ_LEASE_ID", own_metadata, sa.Column("NRL_NEXT", sa.BigInteger, nullable=False)
)

# One row per committed write id of a table: what DESCRIBE HISTORY shows. Hive keeps no such record
# (COMPLETED_TXN_COMPONENTS has no statement and is pruned by the cleaner), hence our own table, written in
# the same database transaction as the commit. Adopted write ids (data found on disk) have WH_TXNID NULL.
HIVEACID_WRITE_HISTORY = sa.Table(
    "HIVEACID_WRITE_HISTORY",
    own_metadata,
    sa.Column("WH_DATABASE", _Db, nullable=False),
    sa.Column("WH_TABLE", _Tbl, nullable=False),
    sa.Column("WH_WRITEID", sa.BigInteger, nullable=False),
    sa.Column("WH_TXNID", sa.BigInteger),
    sa.Column("WH_COMMIT_TIME", sa.BigInteger, nullable=False),  # epoch millis, as TXNS
    sa.Column("WH_USER", sa.String(128)),
    sa.Column("WH_OPERATION", sa.String(128), nullable=False),  # INSERT, UPDATE, ..., ADOPTED
    sa.Column("WH_STATEMENT", sa.Text),
    sa.Column("WH_ROWS_INSERTED", sa.BigInteger),
    sa.Column("WH_ROWS_UPDATED", sa.BigInteger),
    sa.Column("WH_ROWS_DELETED", sa.BigInteger),
    sa.Index("HIVEACID_WRITE_HISTORY_IDX", "WH_DATABASE", "WH_TABLE", "WH_WRITEID", unique=True),
)

# The write id whose commit created a partition (VERSION AS OF hides partitions that came later). Hive 3.1's
# PARTITIONS has no write id; keyed by PART_ID, which is never reused, so a row of a partition dropped by
# another client matches nothing.
HIVEACID_PARTITION_WRITE_IDS = sa.Table(
    "HIVEACID_PARTITION_WRITE_IDS",
    own_metadata,
    sa.Column("PW_PART_ID", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("PW_WRITEID", sa.BigInteger, nullable=False),
)

#: Txn-side tables that name a table by (db, table) columns: renamed and cleaned with it.
TABLE_NAME_COLUMNS: tuple[tuple[sa.Table, str, str], ...] = (
    (TXN_COMPONENTS, "TC_DATABASE", "TC_TABLE"),
    (COMPLETED_TXN_COMPONENTS, "CTC_DATABASE", "CTC_TABLE"),
    (NEXT_WRITE_ID, "NWI_DATABASE", "NWI_TABLE"),
    (TXN_TO_WRITE_ID, "T2W_DATABASE", "T2W_TABLE"),
    (WRITE_SET, "WS_DATABASE", "WS_TABLE"),
    (HIVE_LOCKS, "HL_DB", "HL_TABLE"),
    (COMPACTION_QUEUE, "CQ_DATABASE", "CQ_TABLE"),
    (COMPLETED_COMPACTIONS, "CC_DATABASE", "CC_TABLE"),
    (HIVEACID_READ_LEASES, "RL_DATABASE", "RL_TABLE"),
    (HIVEACID_WRITE_HISTORY, "WH_DATABASE", "WH_TABLE"),
)

__all__ = [
    "AUX_TABLE",
    "BUCKETING_COLS",
    "CDS",
    "COLUMNS_V2",
    "COMPACTION_QUEUE",
    "COMPLETED_COMPACTIONS",
    "COMPLETED_TXN_COMPONENTS",
    "CTLGS",
    "DATABASE_PARAMS",
    "DBS",
    "HIVE_LOCKS",
    "MIN_HISTORY_LEVEL",
    "NEXT_COMPACTION_QUEUE_ID",
    "NEXT_LOCK_ID",
    "NEXT_TXN_ID",
    "NEXT_WRITE_ID",
    "NOTIFICATION_SEQUENCE",
    "PARTITIONS",
    "PARTITION_KEYS",
    "PARTITION_KEY_VALS",
    "PARTITION_PARAMS",
    "SDS",
    "SD_PARAMS",
    "SEQUENCE_TABLE",
    "SERDES",
    "SERDE_PARAMS",
    "SORT_COLS",
    "TABLE_PARAMS",
    "TBLS",
    "TXNS",
    "TXN_COMPONENTS",
    "TXN_TO_WRITE_ID",
    "VERSION",
    "WRITE_SET",
]
