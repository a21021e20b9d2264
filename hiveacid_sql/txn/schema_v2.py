"""The store's tables, named and shaped after the Hive 3.1 metastore.

Upper-case names and Hive's column names (``hive-schema-3.1.0.derby.sql``) let an operator
who knows Hive read the database directly. The catalog part is a simplified metastore: the
storage descriptor (``SDS``) is folded into ``TBLS`` (``LOCATION``, ``STORAGE_FORMAT``,
``NUM_BUCKETS``) and ``COLUMNS_V2``/``BUCKETING_COLS`` hang off ``TBL_ID`` instead of ``CD_ID``/``SD_ID``.

Sizes stay within MariaDB's 3072-byte utf8mb4 index limit, which is why a few indexes Hive
has over ``*_PARTITION`` columns are narrower here.
"""

from __future__ import annotations

import sqlalchemy as sa

#: Bump when the tables change; a store written by a newer version refuses to open. Version 2 added the
#: read leases (HIVEACID_READ_LEASES, HIVEACID_NEXT_READ_LEASE_ID) and the write history
#: (HIVEACID_WRITE_HISTORY): tables only, so a version-1 store is upgraded by creating them.
SCHEMA_VERSION = 2
SCHEMA_COMMENT = "hiveacid-sql transaction store and catalog (Hive 3.1 metastore subset)"

metadata = sa.MetaData()

# BIGINT ids; SQLite only auto-increments an INTEGER PRIMARY KEY, hence the variant.
_AutoId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_Db = sa.String(128)  # *_DATABASE columns
_Tbl = sa.String(256)  # *_TABLE columns
_Part = sa.String(767)  # *_PARTITION columns ("p=1/q=a")
_Ch = sa.String(1)  # Hive's char(1) state / type codes

VERSION = sa.Table(
    "VERSION",
    metadata,
    sa.Column("VER_ID", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("SCHEMA_VERSION", sa.String(127), nullable=False),
    sa.Column("VERSION_COMMENT", sa.String(255)),
)

# --------------------------------------------------------------------------- transactions
TXNS = sa.Table(
    "TXNS",
    metadata,
    sa.Column("TXN_ID", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("TXN_STATE", _Ch, nullable=False),  # 'o' open, 'a' aborted; committed rows are deleted
    sa.Column("TXN_STARTED", sa.BigInteger, nullable=False),  # epoch millis, as Hive
    sa.Column("TXN_LAST_HEARTBEAT", sa.BigInteger, nullable=False),
    sa.Column("TXN_USER", sa.String(128), nullable=False),
    sa.Column("TXN_HOST", sa.String(128), nullable=False),
    sa.Column("TXN_AGENT_INFO", sa.String(128)),
    sa.Column("TXN_META_INFO", sa.String(128)),
    sa.Column("TXN_HEARTBEAT_COUNT", sa.Integer),
    sa.Column("TXN_TYPE", sa.Integer),
)

NEXT_TXN_ID = sa.Table("NEXT_TXN_ID", metadata, sa.Column("NTXN_NEXT", sa.BigInteger, nullable=False))

TXN_COMPONENTS = sa.Table(
    "TXN_COMPONENTS",
    metadata,
    sa.Column("TC_TXNID", sa.BigInteger, sa.ForeignKey("TXNS.TXN_ID"), nullable=False),
    sa.Column("TC_DATABASE", _Db, nullable=False),
    sa.Column("TC_TABLE", _Tbl),
    sa.Column("TC_PARTITION", _Part),
    sa.Column("TC_OPERATION_TYPE", _Ch, nullable=False),  # 'i' 'u' 'd' ('s' select)
    sa.Column("TC_WRITEID", sa.BigInteger),
    sa.Index("TC_TXNID_INDEX", "TC_TXNID"),
)

COMPLETED_TXN_COMPONENTS = sa.Table(
    "COMPLETED_TXN_COMPONENTS",
    metadata,
    sa.Column("CTC_TXNID", sa.BigInteger, nullable=False),
    sa.Column("CTC_DATABASE", _Db, nullable=False),
    sa.Column("CTC_TABLE", _Tbl),
    sa.Column("CTC_PARTITION", _Part),
    sa.Column("CTC_TIMESTAMP", sa.DateTime, nullable=False, server_default=sa.func.current_timestamp()),
    sa.Column("CTC_WRITEID", sa.BigInteger),
    sa.Column("CTC_UPDATE_DELETE", _Ch, nullable=False),  # 'Y' if the txn updated or deleted
    sa.Index("COMPLETED_TXN_COMPONENTS_IDX", "CTC_DATABASE", "CTC_TABLE"),
)

NEXT_WRITE_ID = sa.Table(
    "NEXT_WRITE_ID",
    metadata,
    sa.Column("NWI_DATABASE", _Db, nullable=False),
    sa.Column("NWI_TABLE", _Tbl, nullable=False),
    sa.Column("NWI_NEXT", sa.BigInteger, nullable=False),
    sa.Index("NEXT_WRITE_ID_IDX", "NWI_DATABASE", "NWI_TABLE", unique=True),
)

TXN_TO_WRITE_ID = sa.Table(
    "TXN_TO_WRITE_ID",
    metadata,
    sa.Column("T2W_TXNID", sa.BigInteger, nullable=False),
    sa.Column("T2W_DATABASE", _Db, nullable=False),
    sa.Column("T2W_TABLE", _Tbl, nullable=False),
    sa.Column("T2W_WRITEID", sa.BigInteger, nullable=False),
    sa.Index("TBL_TO_TXN_ID_IDX", "T2W_DATABASE", "T2W_TABLE", "T2W_TXNID", unique=True),
    sa.Index("TBL_TO_WRITE_ID_IDX", "T2W_DATABASE", "T2W_TABLE", "T2W_WRITEID", unique=True),
)

# Created now, used by the lock / conflict / compaction work that follows.
WRITE_SET = sa.Table(
    "WRITE_SET",
    metadata,
    sa.Column("WS_DATABASE", _Db, nullable=False),
    sa.Column("WS_TABLE", _Tbl, nullable=False),
    sa.Column("WS_PARTITION", _Part),
    sa.Column("WS_TXNID", sa.BigInteger, nullable=False),
    sa.Column("WS_COMMIT_ID", sa.BigInteger, nullable=False),
    sa.Column("WS_OPERATION_TYPE", _Ch, nullable=False),
)

HIVE_LOCKS = sa.Table(
    "HIVE_LOCKS",
    metadata,
    sa.Column("HL_LOCK_EXT_ID", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("HL_LOCK_INT_ID", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("HL_TXNID", sa.BigInteger, nullable=False),
    sa.Column("HL_DB", _Db, nullable=False),
    sa.Column("HL_TABLE", _Tbl),
    sa.Column("HL_PARTITION", _Part),
    sa.Column("HL_LOCK_STATE", _Ch, nullable=False),
    sa.Column("HL_LOCK_TYPE", _Ch, nullable=False),
    sa.Column("HL_LAST_HEARTBEAT", sa.BigInteger, nullable=False),
    sa.Column("HL_ACQUIRED_AT", sa.BigInteger),
    sa.Column("HL_USER", sa.String(128), nullable=False),
    sa.Column("HL_HOST", sa.String(128), nullable=False),
    sa.Column("HL_HEARTBEAT_COUNT", sa.Integer),
    sa.Column("HL_AGENT_INFO", sa.String(128)),
    sa.Column("HL_BLOCKEDBY_EXT_ID", sa.BigInteger),
    sa.Column("HL_BLOCKEDBY_INT_ID", sa.BigInteger),
    sa.Index("HL_TXNID_INDEX", "HL_TXNID"),
)

NEXT_LOCK_ID = sa.Table("NEXT_LOCK_ID", metadata, sa.Column("NL_NEXT", sa.BigInteger, nullable=False))


def _compaction_columns(prefix: str, *, with_end: bool) -> list[sa.Column]:
    """COMPACTION_QUEUE and COMPLETED_COMPACTIONS share their columns (``CQ_*`` / ``CC_*``)."""
    cols: list[sa.Column] = [
        sa.Column(f"{prefix}_ID", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column(f"{prefix}_DATABASE", _Db, nullable=False),
        sa.Column(f"{prefix}_TABLE", _Tbl, nullable=False),
        sa.Column(f"{prefix}_PARTITION", _Part),
        sa.Column(f"{prefix}_STATE", _Ch, nullable=False),
        sa.Column(f"{prefix}_TYPE", _Ch, nullable=False),
        sa.Column(f"{prefix}_TBLPROPERTIES", sa.String(2048)),
        sa.Column(f"{prefix}_WORKER_ID", sa.String(128)),
        sa.Column(f"{prefix}_START", sa.BigInteger),
    ]
    if with_end:
        cols.append(sa.Column(f"{prefix}_END", sa.BigInteger))
    cols += [
        sa.Column(f"{prefix}_RUN_AS", sa.String(128)),
        sa.Column(f"{prefix}_HIGHEST_WRITE_ID", sa.BigInteger),
        sa.Column(f"{prefix}_META_INFO", sa.LargeBinary),
        sa.Column(f"{prefix}_HADOOP_JOB_ID", sa.String(32)),
    ]
    return cols


COMPACTION_QUEUE = sa.Table("COMPACTION_QUEUE", metadata, *_compaction_columns("CQ", with_end=False))
COMPLETED_COMPACTIONS = sa.Table("COMPLETED_COMPACTIONS", metadata, *_compaction_columns("CC", with_end=True))
NEXT_COMPACTION_QUEUE_ID = sa.Table(
    "NEXT_COMPACTION_QUEUE_ID", metadata, sa.Column("NCQ_NEXT", sa.BigInteger, nullable=False)
)

# Read leases (ours; Hive 3 has MIN_HISTORY_LEVEL for transactions only): every snapshot read outside a
# transaction registers here, so the compaction cleaner never deletes files a running or returned query
# still reads. RL_ID comes from HIVEACID_NEXT_READ_LEASE_ID (a counter row, like NEXT_TXN_ID), so ids are
# handed out in commit order and "every lease older than a compaction" is one comparison.
HIVEACID_READ_LEASES = sa.Table(
    "HIVEACID_READ_LEASES",
    metadata,
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
    "HIVEACID_NEXT_READ_LEASE_ID", metadata, sa.Column("NRL_NEXT", sa.BigInteger, nullable=False)
)

# --------------------------------------------------------------------------- catalog
DBS = sa.Table(
    "DBS",
    metadata,
    sa.Column("DB_ID", _AutoId, primary_key=True, autoincrement=True),
    sa.Column("NAME", sa.String(128), nullable=False),
    sa.Column("DESC", sa.String(4000)),  # a reserved word; SQLAlchemy quotes it
    sa.Column("DB_LOCATION_URI", sa.String(4000), nullable=False),
    sa.Column("OWNER_NAME", sa.String(128)),
    sa.UniqueConstraint("NAME", name="UNIQUE_DATABASE"),
)

TBLS = sa.Table(
    "TBLS",
    metadata,
    sa.Column("TBL_ID", _AutoId, primary_key=True, autoincrement=True),
    sa.Column("DB_ID", _AutoId, sa.ForeignKey("DBS.DB_ID"), nullable=False),
    sa.Column("TBL_NAME", sa.String(256), nullable=False),
    sa.Column("TBL_TYPE", sa.String(128), nullable=False),  # MANAGED_TABLE / EXTERNAL_TABLE
    sa.Column("OWNER", sa.String(767)),
    sa.Column("CREATE_TIME", sa.Integer, nullable=False),  # epoch seconds, as Hive
    sa.Column("LOCATION", sa.String(4000), nullable=False),
    sa.Column("STORAGE_FORMAT", sa.String(32), nullable=False),  # orc / parquet / textfile
    sa.Column("NUM_BUCKETS", sa.Integer, nullable=False, server_default="-1"),
    sa.Column("COMMENT", sa.String(4000)),
    sa.UniqueConstraint("TBL_NAME", "DB_ID", name="UNIQUETABLE"),
)


def _tbl_fk() -> sa.Column:
    return sa.Column("TBL_ID", _AutoId, sa.ForeignKey("TBLS.TBL_ID"), nullable=False, primary_key=True)


# Primary key (TBL_ID, INTEGER_IDX): a key over a 767-char name would not fit MariaDB's limit;
# name uniqueness is checked by the catalog.
COLUMNS_V2 = sa.Table(
    "COLUMNS_V2",
    metadata,
    _tbl_fk(),
    sa.Column("COLUMN_NAME", sa.String(767), nullable=False),
    sa.Column("TYPE_NAME", sa.Text, nullable=False),
    sa.Column("COMMENT", sa.String(256)),
    sa.Column("INTEGER_IDX", sa.Integer, primary_key=True, autoincrement=False),
)

PARTITION_KEYS = sa.Table(
    "PARTITION_KEYS",
    metadata,
    _tbl_fk(),
    sa.Column("PKEY_NAME", sa.String(128), primary_key=True),
    sa.Column("PKEY_TYPE", sa.String(767), nullable=False),
    sa.Column("PKEY_COMMENT", sa.String(4000)),
    sa.Column("INTEGER_IDX", sa.Integer, nullable=False),
)

BUCKETING_COLS = sa.Table(
    "BUCKETING_COLS",
    metadata,
    _tbl_fk(),
    sa.Column("BUCKET_COL_NAME", sa.String(256), nullable=False),
    sa.Column("INTEGER_IDX", sa.Integer, primary_key=True, autoincrement=False),
)

# Partitions of a partitioned table (Hive's PARTITIONS / PARTITION_KEY_VALS, storage descriptor folded
# in: a partition always lives at ``<table location>/<PART_NAME>``). PART_NAME is Hive's escaped
# ``p=v/q=w``; the key values are stored unescaped, NULL values as the default partition name.
PARTITIONS = sa.Table(
    "PARTITIONS",
    metadata,
    sa.Column("PART_ID", _AutoId, primary_key=True, autoincrement=True),
    sa.Column("TBL_ID", _AutoId, sa.ForeignKey("TBLS.TBL_ID"), nullable=False),
    sa.Column("PART_NAME", sa.String(767), nullable=False),
    sa.Column("CREATE_TIME", sa.Integer, nullable=False),
    sa.Column("WRITE_ID", sa.BigInteger),
    sa.Index("UNIQUEPARTITION", "TBL_ID", "PART_NAME", unique=True, mysql_length={"PART_NAME": 700}),
)

PARTITION_KEY_VALS = sa.Table(
    "PARTITION_KEY_VALS",
    metadata,
    sa.Column("PART_ID", _AutoId, sa.ForeignKey("PARTITIONS.PART_ID"), primary_key=True),
    sa.Column("PART_KEY_VAL", sa.String(256)),
    sa.Column("INTEGER_IDX", sa.Integer, primary_key=True, autoincrement=False),
)

TABLE_PARAMS = sa.Table(
    "TABLE_PARAMS",
    metadata,
    _tbl_fk(),
    sa.Column("PARAM_KEY", sa.String(256), primary_key=True),
    sa.Column("PARAM_VALUE", sa.Text),
)

# --------------------------------------------------------------------------- history (ours)
# One row per committed write id of a table: what DESCRIBE HISTORY shows. Hive keeps no such record
# (COMPLETED_TXN_COMPONENTS has no statement and is pruned by the cleaner), hence our own table, written in
# the same database transaction as the commit. Adopted write ids (data found on disk) have WH_TXNID NULL.
HIVEACID_WRITE_HISTORY = sa.Table(
    "HIVEACID_WRITE_HISTORY",
    metadata,
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
