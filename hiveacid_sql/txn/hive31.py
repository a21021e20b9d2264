"""Hive 3.1's metastore tables, defined once in SQLAlchemy (every table of Hive's own 3.1.0 scripts).

Transcribed from ``hive-schema-3.1.0.postgres.sql`` and ``hive-schema-3.1.0.mysql.sql`` (Apache Hive's
``standalone-metastore`` scripts, copies in ``tests/fixtures/hive-metastore/``) by that folder's
``transcribe.py``; ``tests/system/test_store_servers.py`` checks on every CI run that what these definitions create
on PostgreSQL and MariaDB is what the scripts create there. Do not edit by hand: transcribe again.

Naming as the scripts have it: on PostgreSQL the catalog tables are quoted upper case (``"TBLS"``) and the
transaction tables unquoted, so folded to lower case (``txns``); they are declared ``quote=False`` here, which
gives exactly that on PostgreSQL and upper case on MariaDB and SQLite. Code refers to every table and column by
its upper-case name (``TXNS.c.TXN_ID``) on every database.

:data:`metadata` carries columns, types, nullability and primary keys (what queries need); :func:`ddl_metadata`
adds, per dialect, what the two scripts create differently (index and constraint names, foreign keys, a few
nullabilities and the column order). SQLite has no Hive script: it gets the PostgreSQL shape.
"""

# ruff: noqa: E501 - generated table definitions
from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql

metadata = sa.MetaData()


def _my(generic: Any, mysql_type: Any) -> Any:
    """``generic`` everywhere, ``mysql_type`` on MySQL/MariaDB (where the MySQL script differs)."""
    return generic.with_variant(mysql_type, "mysql", "mariadb")

AUX_TABLE = sa.Table(
    'AUX_TABLE',
    metadata,
    sa.Column('MT_KEY1', sa.String(128), autoincrement=False, nullable=False, quote=False),
    sa.Column('MT_KEY2', sa.BigInteger(), autoincrement=False, nullable=False, quote=False),
    sa.Column('MT_COMMENT', sa.String(255), quote=False),
    sa.PrimaryKeyConstraint('MT_KEY1', 'MT_KEY2'),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

BUCKETING_COLS = sa.Table(
    'BUCKETING_COLS',
    metadata,
    sa.Column('SD_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('BUCKET_COL_NAME', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('INTEGER_IDX', _my(sa.BigInteger(), mysql.INTEGER()), autoincrement=False, nullable=False),
    sa.PrimaryKeyConstraint('SD_ID', 'INTEGER_IDX'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

CDS = sa.Table(
    'CDS',
    metadata,
    sa.Column('CD_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.PrimaryKeyConstraint('CD_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

COLUMNS_V2 = sa.Table(
    'COLUMNS_V2',
    metadata,
    sa.Column('CD_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('COMMENT', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('COLUMN_NAME', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767)), autoincrement=False, nullable=False),
    sa.Column('TYPE_NAME', _my(sa.Text(), mysql.MEDIUMTEXT())),
    sa.Column('INTEGER_IDX', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('CD_ID', 'COLUMN_NAME'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

COMPACTION_QUEUE = sa.Table(
    'COMPACTION_QUEUE',
    metadata,
    sa.Column('CQ_ID', sa.BigInteger(), autoincrement=False, nullable=False, quote=False),
    sa.Column('CQ_DATABASE', sa.String(128), nullable=False, quote=False),
    sa.Column('CQ_TABLE', sa.String(128), nullable=False, quote=False),
    sa.Column('CQ_PARTITION', sa.String(767), quote=False),
    sa.Column('CQ_STATE', sa.CHAR(1), nullable=False, quote=False),
    sa.Column('CQ_TYPE', sa.CHAR(1), nullable=False, quote=False),
    sa.Column('CQ_TBLPROPERTIES', sa.String(2048), quote=False),
    sa.Column('CQ_WORKER_ID', sa.String(128), quote=False),
    sa.Column('CQ_START', sa.BigInteger(), quote=False),
    sa.Column('CQ_RUN_AS', sa.String(128), quote=False),
    sa.Column('CQ_HIGHEST_WRITE_ID', sa.BigInteger(), quote=False),
    sa.Column('CQ_META_INFO', _my(sa.LargeBinary(), mysql.VARBINARY(length=2048)), quote=False),
    sa.Column('CQ_HADOOP_JOB_ID', sa.String(32), quote=False),
    sa.PrimaryKeyConstraint('CQ_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

COMPLETED_COMPACTIONS = sa.Table(
    'COMPLETED_COMPACTIONS',
    metadata,
    sa.Column('CC_ID', sa.BigInteger(), autoincrement=False, nullable=False, quote=False),
    sa.Column('CC_DATABASE', sa.String(128), nullable=False, quote=False),
    sa.Column('CC_TABLE', sa.String(128), nullable=False, quote=False),
    sa.Column('CC_PARTITION', sa.String(767), quote=False),
    sa.Column('CC_STATE', sa.CHAR(1), nullable=False, quote=False),
    sa.Column('CC_TYPE', sa.CHAR(1), nullable=False, quote=False),
    sa.Column('CC_TBLPROPERTIES', sa.String(2048), quote=False),
    sa.Column('CC_WORKER_ID', sa.String(128), quote=False),
    sa.Column('CC_START', sa.BigInteger(), quote=False),
    sa.Column('CC_END', sa.BigInteger(), quote=False),
    sa.Column('CC_RUN_AS', sa.String(128), quote=False),
    sa.Column('CC_HIGHEST_WRITE_ID', sa.BigInteger(), quote=False),
    sa.Column('CC_META_INFO', _my(sa.LargeBinary(), mysql.VARBINARY(length=2048)), quote=False),
    sa.Column('CC_HADOOP_JOB_ID', sa.String(32), quote=False),
    sa.PrimaryKeyConstraint('CC_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

COMPLETED_TXN_COMPONENTS = sa.Table(
    'COMPLETED_TXN_COMPONENTS',
    metadata,
    sa.Column('CTC_TXNID', sa.BigInteger(), nullable=False, quote=False),
    sa.Column('CTC_DATABASE', sa.String(128), nullable=False, quote=False),
    sa.Column('CTC_TABLE', sa.String(256), quote=False),
    sa.Column('CTC_PARTITION', sa.String(767), quote=False),
    sa.Column('CTC_TIMESTAMP', sa.TIMESTAMP(), nullable=False, server_default=sa.text("CURRENT_TIMESTAMP"), quote=False),
    sa.Column('CTC_WRITEID', sa.BigInteger(), quote=False),
    sa.Column('CTC_UPDATE_DELETE', sa.CHAR(1), nullable=False, quote=False),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

CTLGS = sa.Table(
    'CTLGS',
    metadata,
    sa.Column('CTLG_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('NAME', sa.String(256)),
    sa.Column('DESC', sa.String(4000)),
    sa.Column('LOCATION_URI', sa.String(4000), nullable=False),
    sa.PrimaryKeyConstraint('CTLG_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

DATABASE_PARAMS = sa.Table(
    'DATABASE_PARAMS',
    metadata,
    sa.Column('DB_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('PARAM_KEY', _my(sa.String(180), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=180)), autoincrement=False, nullable=False),
    sa.Column('PARAM_VALUE', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.PrimaryKeyConstraint('DB_ID', 'PARAM_KEY'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

DBS = sa.Table(
    'DBS',
    metadata,
    sa.Column('DB_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('DESC', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('DB_LOCATION_URI', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000)), nullable=False),
    sa.Column('NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('OWNER_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('OWNER_TYPE', _my(sa.String(10), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=10))),
    sa.Column('CTLG_NAME', sa.String(256), server_default="hive"),
    sa.PrimaryKeyConstraint('DB_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

DB_PRIVS = sa.Table(
    'DB_PRIVS',
    metadata,
    sa.Column('DB_GRANT_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CREATE_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('DB_ID', sa.BigInteger()),
    sa.Column('GRANT_OPTION', sa.SmallInteger(), nullable=False),
    sa.Column('GRANTOR', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('GRANTOR_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('DB_PRIV', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('AUTHORIZER', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.PrimaryKeyConstraint('DB_GRANT_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

DELEGATION_TOKENS = sa.Table(
    'DELEGATION_TOKENS',
    metadata,
    sa.Column('TOKEN_IDENT', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767)), autoincrement=False, nullable=False),
    sa.Column('TOKEN', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.PrimaryKeyConstraint('TOKEN_IDENT'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

FUNCS = sa.Table(
    'FUNCS',
    metadata,
    sa.Column('FUNC_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CLASS_NAME', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('CREATE_TIME', sa.Integer(), nullable=False),
    sa.Column('DB_ID', sa.BigInteger()),
    sa.Column('FUNC_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('FUNC_TYPE', sa.Integer(), nullable=False),
    sa.Column('OWNER_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('OWNER_TYPE', _my(sa.String(10), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=10))),
    sa.PrimaryKeyConstraint('FUNC_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

FUNC_RU = sa.Table(
    'FUNC_RU',
    metadata,
    sa.Column('FUNC_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('RESOURCE_TYPE', sa.Integer(), nullable=False),
    sa.Column('RESOURCE_URI', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('INTEGER_IDX', sa.Integer(), autoincrement=False, nullable=False),
    sa.PrimaryKeyConstraint('FUNC_ID', 'INTEGER_IDX'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

GLOBAL_PRIVS = sa.Table(
    'GLOBAL_PRIVS',
    metadata,
    sa.Column('USER_GRANT_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CREATE_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('GRANT_OPTION', sa.SmallInteger(), nullable=False),
    sa.Column('GRANTOR', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('GRANTOR_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('USER_PRIV', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('AUTHORIZER', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.PrimaryKeyConstraint('USER_GRANT_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

HIVE_LOCKS = sa.Table(
    'HIVE_LOCKS',
    metadata,
    sa.Column('HL_LOCK_EXT_ID', sa.BigInteger(), autoincrement=False, nullable=False, quote=False),
    sa.Column('HL_LOCK_INT_ID', sa.BigInteger(), autoincrement=False, nullable=False, quote=False),
    sa.Column('HL_TXNID', sa.BigInteger(), nullable=False, quote=False),
    sa.Column('HL_DB', sa.String(128), nullable=False, quote=False),
    sa.Column('HL_TABLE', sa.String(128), quote=False),
    sa.Column('HL_PARTITION', sa.String(767), quote=False),
    sa.Column('HL_LOCK_STATE', sa.CHAR(1), nullable=False, quote=False),
    sa.Column('HL_LOCK_TYPE', sa.CHAR(1), nullable=False, quote=False),
    sa.Column('HL_LAST_HEARTBEAT', sa.BigInteger(), nullable=False, quote=False),
    sa.Column('HL_ACQUIRED_AT', sa.BigInteger(), quote=False),
    sa.Column('HL_USER', sa.String(128), nullable=False, quote=False),
    sa.Column('HL_HOST', sa.String(128), nullable=False, quote=False),
    sa.Column('HL_HEARTBEAT_COUNT', sa.Integer(), quote=False),
    sa.Column('HL_AGENT_INFO', sa.String(128), quote=False),
    sa.Column('HL_BLOCKEDBY_EXT_ID', sa.BigInteger(), quote=False),
    sa.Column('HL_BLOCKEDBY_INT_ID', sa.BigInteger(), quote=False),
    sa.PrimaryKeyConstraint('HL_LOCK_EXT_ID', 'HL_LOCK_INT_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

IDXS = sa.Table(
    'IDXS',
    metadata,
    sa.Column('INDEX_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CREATE_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('DEFERRED_REBUILD', _my(sa.Boolean(), mysql.BIT(length=1)), nullable=False),
    sa.Column('INDEX_HANDLER_CLASS', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('INDEX_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('INDEX_TBL_ID', sa.BigInteger()),
    sa.Column('LAST_ACCESS_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('ORIG_TBL_ID', sa.BigInteger()),
    sa.Column('SD_ID', sa.BigInteger()),
    sa.PrimaryKeyConstraint('INDEX_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

INDEX_PARAMS = sa.Table(
    'INDEX_PARAMS',
    metadata,
    sa.Column('INDEX_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('PARAM_KEY', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256)), autoincrement=False, nullable=False),
    sa.Column('PARAM_VALUE', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.PrimaryKeyConstraint('INDEX_ID', 'PARAM_KEY'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

I_SCHEMA = sa.Table(
    'I_SCHEMA',
    metadata,
    sa.Column('SCHEMA_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('SCHEMA_TYPE', sa.Integer(), nullable=False),
    sa.Column('NAME', sa.String(256)),
    sa.Column('DB_ID', sa.BigInteger()),
    sa.Column('COMPATIBILITY', sa.Integer(), nullable=False),
    sa.Column('VALIDATION_LEVEL', sa.Integer(), nullable=False),
    sa.Column('CAN_EVOLVE', _my(sa.Boolean(), mysql.BIT(length=1)), nullable=False),
    sa.Column('SCHEMA_GROUP', sa.String(256)),
    sa.Column('DESCRIPTION', sa.String(4000)),
    sa.PrimaryKeyConstraint('SCHEMA_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

KEY_CONSTRAINTS = sa.Table(
    'KEY_CONSTRAINTS',
    metadata,
    sa.Column('CHILD_CD_ID', sa.BigInteger()),
    sa.Column('CHILD_INTEGER_IDX', _my(sa.BigInteger(), mysql.INTEGER())),
    sa.Column('CHILD_TBL_ID', sa.BigInteger()),
    sa.Column('PARENT_CD_ID', sa.BigInteger()),
    sa.Column('PARENT_INTEGER_IDX', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('PARENT_TBL_ID', sa.BigInteger(), nullable=False),
    sa.Column('POSITION', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CONSTRAINT_NAME', sa.String(400), autoincrement=False, nullable=False),
    sa.Column('CONSTRAINT_TYPE', sa.SmallInteger(), nullable=False),
    sa.Column('UPDATE_RULE', sa.SmallInteger()),
    sa.Column('DELETE_RULE', sa.SmallInteger()),
    sa.Column('ENABLE_VALIDATE_RELY', sa.SmallInteger(), nullable=False),
    sa.Column('DEFAULT_VALUE', sa.String(400)),
    sa.PrimaryKeyConstraint('CONSTRAINT_NAME', 'POSITION'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

MASTER_KEYS = sa.Table(
    'MASTER_KEYS',
    metadata,
    sa.Column('KEY_ID', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('MASTER_KEY', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.PrimaryKeyConstraint('KEY_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

MATERIALIZATION_REBUILD_LOCKS = sa.Table(
    'MATERIALIZATION_REBUILD_LOCKS',
    metadata,
    sa.Column('MRL_TXN_ID', sa.BigInteger(), autoincrement=False, nullable=False, quote=False),
    sa.Column('MRL_DB_NAME', sa.String(128), nullable=False, quote=False),
    sa.Column('MRL_TBL_NAME', sa.String(256), nullable=False, quote=False),
    sa.Column('MRL_LAST_HEARTBEAT', sa.BigInteger(), nullable=False, quote=False),
    sa.PrimaryKeyConstraint('MRL_TXN_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

METASTORE_DB_PROPERTIES = sa.Table(
    'METASTORE_DB_PROPERTIES',
    metadata,
    sa.Column('PROPERTY_KEY', sa.String(255), autoincrement=False, nullable=False),
    sa.Column('PROPERTY_VALUE', sa.String(1000), nullable=False),
    sa.Column('DESCRIPTION', sa.String(1000)),
    sa.PrimaryKeyConstraint('PROPERTY_KEY'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

MIN_HISTORY_LEVEL = sa.Table(
    'MIN_HISTORY_LEVEL',
    metadata,
    sa.Column('MHL_TXNID', sa.BigInteger(), autoincrement=False, nullable=False, quote=False),
    sa.Column('MHL_MIN_OPEN_TXNID', sa.BigInteger(), nullable=False, quote=False),
    sa.PrimaryKeyConstraint('MHL_TXNID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

MV_CREATION_METADATA = sa.Table(
    'MV_CREATION_METADATA',
    metadata,
    sa.Column('MV_CREATION_METADATA_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CAT_NAME', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256)), nullable=False),
    sa.Column('DB_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128)), nullable=False),
    sa.Column('TBL_NAME', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256)), nullable=False),
    sa.Column('TXN_LIST', sa.Text()),
    sa.Column('MATERIALIZATION_TIME', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('MV_CREATION_METADATA_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

MV_TABLES_USED = sa.Table(
    'MV_TABLES_USED',
    metadata,
    sa.Column('MV_CREATION_METADATA_ID', sa.BigInteger(), nullable=False),
    sa.Column('TBL_ID', sa.BigInteger(), nullable=False),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

NEXT_COMPACTION_QUEUE_ID = sa.Table(
    'NEXT_COMPACTION_QUEUE_ID',
    metadata,
    sa.Column('NCQ_NEXT', sa.BigInteger(), nullable=False, quote=False),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

NEXT_LOCK_ID = sa.Table(
    'NEXT_LOCK_ID',
    metadata,
    sa.Column('NL_NEXT', sa.BigInteger(), nullable=False, quote=False),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

NEXT_TXN_ID = sa.Table(
    'NEXT_TXN_ID',
    metadata,
    sa.Column('NTXN_NEXT', sa.BigInteger(), nullable=False, quote=False),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

NEXT_WRITE_ID = sa.Table(
    'NEXT_WRITE_ID',
    metadata,
    sa.Column('NWI_DATABASE', sa.String(128), nullable=False, quote=False),
    sa.Column('NWI_TABLE', sa.String(256), nullable=False, quote=False),
    sa.Column('NWI_NEXT', sa.BigInteger(), nullable=False, quote=False),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

NOTIFICATION_LOG = sa.Table(
    'NOTIFICATION_LOG',
    metadata,
    sa.Column('NL_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('EVENT_ID', sa.BigInteger(), nullable=False),
    sa.Column('EVENT_TIME', sa.Integer(), nullable=False),
    sa.Column('EVENT_TYPE', sa.String(32), nullable=False),
    sa.Column('CAT_NAME', sa.String(256)),
    sa.Column('DB_NAME', sa.String(128)),
    sa.Column('TBL_NAME', sa.String(256)),
    sa.Column('MESSAGE', _my(sa.Text(), mysql.LONGTEXT())),
    sa.Column('MESSAGE_FORMAT', sa.String(16)),
    sa.PrimaryKeyConstraint('NL_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

NOTIFICATION_SEQUENCE = sa.Table(
    'NOTIFICATION_SEQUENCE',
    metadata,
    sa.Column('NNI_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('NEXT_EVENT_ID', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('NNI_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

NUCLEUS_TABLES = sa.Table(
    'NUCLEUS_TABLES',
    metadata,
    sa.Column('CLASS_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128)), autoincrement=False, nullable=False),
    sa.Column('TABLE_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128)), nullable=False),
    sa.Column('TYPE', _my(sa.String(4), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4)), nullable=False),
    sa.Column('OWNER', _my(sa.String(2), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=2)), nullable=False),
    sa.Column('VERSION', _my(sa.String(20), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=20)), nullable=False),
    sa.Column('INTERFACE_NAME', _my(sa.String(255), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=255))),
    sa.PrimaryKeyConstraint('CLASS_NAME'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

PARTITIONS = sa.Table(
    'PARTITIONS',
    metadata,
    sa.Column('PART_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CREATE_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('LAST_ACCESS_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('PART_NAME', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.Column('SD_ID', sa.BigInteger()),
    sa.Column('TBL_ID', sa.BigInteger()),
    sa.PrimaryKeyConstraint('PART_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

PARTITION_EVENTS = sa.Table(
    'PARTITION_EVENTS',
    metadata,
    sa.Column('PART_NAME_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CAT_NAME', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('DB_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('EVENT_TIME', sa.BigInteger(), nullable=False),
    sa.Column('EVENT_TYPE', sa.Integer(), nullable=False),
    sa.Column('PARTITION_NAME', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.Column('TBL_NAME', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.PrimaryKeyConstraint('PART_NAME_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

PARTITION_KEYS = sa.Table(
    'PARTITION_KEYS',
    metadata,
    sa.Column('TBL_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('PKEY_COMMENT', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('PKEY_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128)), autoincrement=False, nullable=False),
    sa.Column('PKEY_TYPE', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767)), nullable=False),
    sa.Column('INTEGER_IDX', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.PrimaryKeyConstraint('TBL_ID', 'PKEY_NAME'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

PARTITION_KEY_VALS = sa.Table(
    'PARTITION_KEY_VALS',
    metadata,
    sa.Column('PART_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('PART_KEY_VAL', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('INTEGER_IDX', _my(sa.BigInteger(), mysql.INTEGER()), autoincrement=False, nullable=False),
    sa.PrimaryKeyConstraint('PART_ID', 'INTEGER_IDX'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

PARTITION_PARAMS = sa.Table(
    'PARTITION_PARAMS',
    metadata,
    sa.Column('PART_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('PARAM_KEY', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256)), autoincrement=False, nullable=False),
    sa.Column('PARAM_VALUE', _my(sa.Text(), mysql.MEDIUMTEXT(charset='latin1', collation='latin1_bin'))),
    sa.PrimaryKeyConstraint('PART_ID', 'PARAM_KEY'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

PART_COL_PRIVS = sa.Table(
    'PART_COL_PRIVS',
    metadata,
    sa.Column('PART_COLUMN_GRANT_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('COLUMN_NAME', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.Column('CREATE_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('GRANT_OPTION', sa.SmallInteger(), nullable=False),
    sa.Column('GRANTOR', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('GRANTOR_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PART_ID', sa.BigInteger()),
    sa.Column('PRINCIPAL_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PART_COL_PRIV', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('AUTHORIZER', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.PrimaryKeyConstraint('PART_COLUMN_GRANT_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

PART_COL_STATS = sa.Table(
    'PART_COL_STATS',
    metadata,
    sa.Column('CS_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CAT_NAME', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('DB_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('TABLE_NAME', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('PARTITION_NAME', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.Column('COLUMN_NAME', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.Column('COLUMN_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PART_ID', sa.BigInteger(), nullable=False),
    sa.Column('LONG_LOW_VALUE', sa.BigInteger()),
    sa.Column('LONG_HIGH_VALUE', sa.BigInteger()),
    sa.Column('DOUBLE_LOW_VALUE', _my(sa.Double(), mysql.DOUBLE(precision=53, scale=4, asdecimal=True))),
    sa.Column('DOUBLE_HIGH_VALUE', _my(sa.Double(), mysql.DOUBLE(precision=53, scale=4, asdecimal=True))),
    sa.Column('BIG_DECIMAL_LOW_VALUE', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('BIG_DECIMAL_HIGH_VALUE', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('NUM_NULLS', sa.BigInteger(), nullable=False),
    sa.Column('NUM_DISTINCTS', sa.BigInteger()),
    sa.Column('BIT_VECTOR', sa.LargeBinary()),
    sa.Column('AVG_COL_LEN', _my(sa.Double(), mysql.DOUBLE(precision=53, scale=4, asdecimal=True))),
    sa.Column('MAX_COL_LEN', sa.BigInteger()),
    sa.Column('NUM_TRUES', sa.BigInteger()),
    sa.Column('NUM_FALSES', sa.BigInteger()),
    sa.Column('LAST_ANALYZED', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('CS_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

PART_PRIVS = sa.Table(
    'PART_PRIVS',
    metadata,
    sa.Column('PART_GRANT_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CREATE_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('GRANT_OPTION', sa.SmallInteger(), nullable=False),
    sa.Column('GRANTOR', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('GRANTOR_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PART_ID', sa.BigInteger()),
    sa.Column('PRINCIPAL_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PART_PRIV', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('AUTHORIZER', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.PrimaryKeyConstraint('PART_GRANT_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

REPL_TXN_MAP = sa.Table(
    'REPL_TXN_MAP',
    metadata,
    sa.Column('RTM_REPL_POLICY', sa.String(256), autoincrement=False, nullable=False, quote=False),
    sa.Column('RTM_SRC_TXN_ID', sa.BigInteger(), autoincrement=False, nullable=False, quote=False),
    sa.Column('RTM_TARGET_TXN_ID', sa.BigInteger(), nullable=False, quote=False),
    sa.PrimaryKeyConstraint('RTM_REPL_POLICY', 'RTM_SRC_TXN_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

ROLES = sa.Table(
    'ROLES',
    metadata,
    sa.Column('ROLE_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CREATE_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('OWNER_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('ROLE_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.PrimaryKeyConstraint('ROLE_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

ROLE_MAP = sa.Table(
    'ROLE_MAP',
    metadata,
    sa.Column('ROLE_GRANT_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('ADD_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('GRANT_OPTION', sa.SmallInteger(), nullable=False),
    sa.Column('GRANTOR', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('GRANTOR_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('ROLE_ID', sa.BigInteger()),
    sa.PrimaryKeyConstraint('ROLE_GRANT_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

RUNTIME_STATS = sa.Table(
    'RUNTIME_STATS',
    metadata,
    sa.Column('RS_ID', sa.BigInteger(), autoincrement=False, nullable=False, quote=False),
    sa.Column('CREATE_TIME', sa.BigInteger(), nullable=False, quote=False),
    sa.Column('WEIGHT', sa.BigInteger(), nullable=False, quote=False),
    sa.Column('PAYLOAD', sa.LargeBinary(), quote=False),
    sa.PrimaryKeyConstraint('RS_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

SCHEMA_VERSION = sa.Table(
    'SCHEMA_VERSION',
    metadata,
    sa.Column('SCHEMA_VERSION_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('SCHEMA_ID', sa.BigInteger()),
    sa.Column('VERSION', sa.Integer(), nullable=False),
    sa.Column('CREATED_AT', sa.BigInteger(), nullable=False),
    sa.Column('CD_ID', sa.BigInteger()),
    sa.Column('STATE', sa.Integer(), nullable=False),
    sa.Column('DESCRIPTION', sa.String(4000)),
    sa.Column('SCHEMA_TEXT', _my(sa.Text(), mysql.MEDIUMTEXT())),
    sa.Column('FINGERPRINT', sa.String(256)),
    sa.Column('SCHEMA_VERSION_NAME', sa.String(256)),
    sa.Column('SERDE_ID', sa.BigInteger()),
    sa.PrimaryKeyConstraint('SCHEMA_VERSION_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

SDS = sa.Table(
    'SDS',
    metadata,
    sa.Column('SD_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('INPUT_FORMAT', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('IS_COMPRESSED', _my(sa.Boolean(), mysql.BIT(length=1)), nullable=False),
    sa.Column('LOCATION', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('NUM_BUCKETS', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('OUTPUT_FORMAT', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('SERDE_ID', sa.BigInteger()),
    sa.Column('CD_ID', sa.BigInteger()),
    sa.Column('IS_STOREDASSUBDIRECTORIES', _my(sa.Boolean(), mysql.BIT(length=1)), nullable=False),
    sa.PrimaryKeyConstraint('SD_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

SD_PARAMS = sa.Table(
    'SD_PARAMS',
    metadata,
    sa.Column('SD_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('PARAM_KEY', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256)), autoincrement=False, nullable=False),
    sa.Column('PARAM_VALUE', _my(sa.Text(), mysql.MEDIUMTEXT(charset='latin1', collation='latin1_bin'))),
    sa.PrimaryKeyConstraint('SD_ID', 'PARAM_KEY'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

SEQUENCE_TABLE = sa.Table(
    'SEQUENCE_TABLE',
    metadata,
    sa.Column('SEQUENCE_NAME', _my(sa.String(255), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=255)), autoincrement=False, nullable=False),
    sa.Column('NEXT_VAL', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('SEQUENCE_NAME'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

SERDES = sa.Table(
    'SERDES',
    metadata,
    sa.Column('SERDE_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('SLIB', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('DESCRIPTION', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('SERIALIZER_CLASS', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('DESERIALIZER_CLASS', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('SERDE_TYPE', sa.Integer()),
    sa.PrimaryKeyConstraint('SERDE_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

SERDE_PARAMS = sa.Table(
    'SERDE_PARAMS',
    metadata,
    sa.Column('SERDE_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('PARAM_KEY', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256)), autoincrement=False, nullable=False),
    sa.Column('PARAM_VALUE', _my(sa.Text(), mysql.MEDIUMTEXT(charset='latin1', collation='latin1_bin'))),
    sa.PrimaryKeyConstraint('SERDE_ID', 'PARAM_KEY'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

SKEWED_COL_NAMES = sa.Table(
    'SKEWED_COL_NAMES',
    metadata,
    sa.Column('SD_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('SKEWED_COL_NAME', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('INTEGER_IDX', _my(sa.BigInteger(), mysql.INTEGER()), autoincrement=False, nullable=False),
    sa.PrimaryKeyConstraint('SD_ID', 'INTEGER_IDX'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

SKEWED_COL_VALUE_LOC_MAP = sa.Table(
    'SKEWED_COL_VALUE_LOC_MAP',
    metadata,
    sa.Column('SD_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('STRING_LIST_ID_KID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('LOCATION', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.PrimaryKeyConstraint('SD_ID', 'STRING_LIST_ID_KID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

SKEWED_STRING_LIST = sa.Table(
    'SKEWED_STRING_LIST',
    metadata,
    sa.Column('STRING_LIST_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.PrimaryKeyConstraint('STRING_LIST_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

SKEWED_STRING_LIST_VALUES = sa.Table(
    'SKEWED_STRING_LIST_VALUES',
    metadata,
    sa.Column('STRING_LIST_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('STRING_LIST_VALUE', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('INTEGER_IDX', _my(sa.BigInteger(), mysql.INTEGER()), autoincrement=False, nullable=False),
    sa.PrimaryKeyConstraint('STRING_LIST_ID', 'INTEGER_IDX'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

SKEWED_VALUES = sa.Table(
    'SKEWED_VALUES',
    metadata,
    sa.Column('SD_ID_OID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('STRING_LIST_ID_EID', sa.BigInteger(), nullable=False),
    sa.Column('INTEGER_IDX', _my(sa.BigInteger(), mysql.INTEGER()), autoincrement=False, nullable=False),
    sa.PrimaryKeyConstraint('SD_ID_OID', 'INTEGER_IDX'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

SORT_COLS = sa.Table(
    'SORT_COLS',
    metadata,
    sa.Column('SD_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('COLUMN_NAME', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.Column('ORDER', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('INTEGER_IDX', _my(sa.BigInteger(), mysql.INTEGER()), autoincrement=False, nullable=False),
    sa.PrimaryKeyConstraint('SD_ID', 'INTEGER_IDX'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

TABLE_PARAMS = sa.Table(
    'TABLE_PARAMS',
    metadata,
    sa.Column('TBL_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('PARAM_KEY', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256)), autoincrement=False, nullable=False),
    sa.Column('PARAM_VALUE', _my(sa.Text(), mysql.MEDIUMTEXT(charset='latin1', collation='latin1_bin'))),
    sa.PrimaryKeyConstraint('TBL_ID', 'PARAM_KEY'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

TAB_COL_STATS = sa.Table(
    'TAB_COL_STATS',
    metadata,
    sa.Column('CS_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CAT_NAME', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('DB_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('TABLE_NAME', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('COLUMN_NAME', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.Column('COLUMN_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('TBL_ID', sa.BigInteger(), nullable=False),
    sa.Column('LONG_LOW_VALUE', sa.BigInteger()),
    sa.Column('LONG_HIGH_VALUE', sa.BigInteger()),
    sa.Column('DOUBLE_LOW_VALUE', _my(sa.Double(), mysql.DOUBLE(precision=53, scale=4, asdecimal=True))),
    sa.Column('DOUBLE_HIGH_VALUE', _my(sa.Double(), mysql.DOUBLE(precision=53, scale=4, asdecimal=True))),
    sa.Column('BIG_DECIMAL_LOW_VALUE', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('BIG_DECIMAL_HIGH_VALUE', _my(sa.String(4000), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=4000))),
    sa.Column('NUM_NULLS', sa.BigInteger(), nullable=False),
    sa.Column('NUM_DISTINCTS', sa.BigInteger()),
    sa.Column('BIT_VECTOR', sa.LargeBinary()),
    sa.Column('AVG_COL_LEN', _my(sa.Double(), mysql.DOUBLE(precision=53, scale=4, asdecimal=True))),
    sa.Column('MAX_COL_LEN', sa.BigInteger()),
    sa.Column('NUM_TRUES', sa.BigInteger()),
    sa.Column('NUM_FALSES', sa.BigInteger()),
    sa.Column('LAST_ANALYZED', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('CS_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

TBLS = sa.Table(
    'TBLS',
    metadata,
    sa.Column('TBL_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CREATE_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('DB_ID', sa.BigInteger()),
    sa.Column('LAST_ACCESS_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('OWNER', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.Column('OWNER_TYPE', _my(sa.String(10), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=10))),
    sa.Column('RETENTION', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('SD_ID', sa.BigInteger()),
    sa.Column('TBL_NAME', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('TBL_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('VIEW_EXPANDED_TEXT', _my(sa.Text(), mysql.MEDIUMTEXT())),
    sa.Column('VIEW_ORIGINAL_TEXT', _my(sa.Text(), mysql.MEDIUMTEXT())),
    sa.Column('IS_REWRITE_ENABLED', _my(sa.Boolean(), mysql.BIT(length=1)), nullable=False, server_default=sa.false()),
    sa.PrimaryKeyConstraint('TBL_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

TBL_COL_PRIVS = sa.Table(
    'TBL_COL_PRIVS',
    metadata,
    sa.Column('TBL_COLUMN_GRANT_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('COLUMN_NAME', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.Column('CREATE_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('GRANT_OPTION', sa.SmallInteger(), nullable=False),
    sa.Column('GRANTOR', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('GRANTOR_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('TBL_COL_PRIV', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('TBL_ID', sa.BigInteger()),
    sa.Column('AUTHORIZER', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.PrimaryKeyConstraint('TBL_COLUMN_GRANT_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

TBL_PRIVS = sa.Table(
    'TBL_PRIVS',
    metadata,
    sa.Column('TBL_GRANT_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('CREATE_TIME', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.Column('GRANT_OPTION', sa.SmallInteger(), nullable=False),
    sa.Column('GRANTOR', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('GRANTOR_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('PRINCIPAL_TYPE', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('TBL_PRIV', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('TBL_ID', sa.BigInteger()),
    sa.Column('AUTHORIZER', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.PrimaryKeyConstraint('TBL_GRANT_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

TXNS = sa.Table(
    'TXNS',
    metadata,
    sa.Column('TXN_ID', sa.BigInteger(), autoincrement=False, nullable=False, quote=False),
    sa.Column('TXN_STATE', sa.CHAR(1), nullable=False, quote=False),
    sa.Column('TXN_STARTED', sa.BigInteger(), nullable=False, quote=False),
    sa.Column('TXN_LAST_HEARTBEAT', sa.BigInteger(), nullable=False, quote=False),
    sa.Column('TXN_USER', sa.String(128), nullable=False, quote=False),
    sa.Column('TXN_HOST', sa.String(128), nullable=False, quote=False),
    sa.Column('TXN_AGENT_INFO', sa.String(128), quote=False),
    sa.Column('TXN_META_INFO', sa.String(128), quote=False),
    sa.Column('TXN_HEARTBEAT_COUNT', sa.Integer(), quote=False),
    sa.Column('TXN_TYPE', sa.Integer(), quote=False),
    sa.PrimaryKeyConstraint('TXN_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

TXN_COMPONENTS = sa.Table(
    'TXN_COMPONENTS',
    metadata,
    sa.Column('TC_TXNID', sa.BigInteger(), nullable=False, quote=False),
    sa.Column('TC_DATABASE', sa.String(128), nullable=False, quote=False),
    sa.Column('TC_TABLE', sa.String(128), quote=False),
    sa.Column('TC_PARTITION', sa.String(767), quote=False),
    sa.Column('TC_OPERATION_TYPE', sa.CHAR(1), nullable=False, quote=False),
    sa.Column('TC_WRITEID', sa.BigInteger(), quote=False),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

TXN_TO_WRITE_ID = sa.Table(
    'TXN_TO_WRITE_ID',
    metadata,
    sa.Column('T2W_TXNID', sa.BigInteger(), nullable=False, quote=False),
    sa.Column('T2W_DATABASE', sa.String(128), nullable=False, quote=False),
    sa.Column('T2W_TABLE', sa.String(256), nullable=False, quote=False),
    sa.Column('T2W_WRITEID', sa.BigInteger(), nullable=False, quote=False),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)

TYPES = sa.Table(
    'TYPES',
    metadata,
    sa.Column('TYPES_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('TYPE_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128))),
    sa.Column('TYPE1', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.Column('TYPE2', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767))),
    sa.PrimaryKeyConstraint('TYPES_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

TYPE_FIELDS = sa.Table(
    'TYPE_FIELDS',
    metadata,
    sa.Column('TYPE_NAME', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('COMMENT', _my(sa.String(256), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=256))),
    sa.Column('FIELD_NAME', _my(sa.String(128), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=128)), autoincrement=False, nullable=False),
    sa.Column('FIELD_TYPE', _my(sa.String(767), mysql.VARCHAR(charset='latin1', collation='latin1_bin', length=767)), nullable=False),
    sa.Column('INTEGER_IDX', _my(sa.BigInteger(), mysql.INTEGER()), nullable=False),
    sa.PrimaryKeyConstraint('TYPE_NAME', 'FIELD_NAME'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

VERSION = sa.Table(
    'VERSION',
    metadata,
    sa.Column('VER_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('SCHEMA_VERSION', sa.String(127), nullable=False),
    sa.Column('VERSION_COMMENT', sa.String(255), nullable=False),
    sa.PrimaryKeyConstraint('VER_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

WM_MAPPING = sa.Table(
    'WM_MAPPING',
    metadata,
    sa.Column('MAPPING_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('RP_ID', sa.BigInteger(), nullable=False),
    sa.Column('ENTITY_TYPE', sa.String(128), nullable=False),
    sa.Column('ENTITY_NAME', sa.String(128), nullable=False),
    sa.Column('POOL_ID', sa.BigInteger()),
    sa.Column('ORDERING', sa.Integer()),
    sa.PrimaryKeyConstraint('MAPPING_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

WM_POOL = sa.Table(
    'WM_POOL',
    metadata,
    sa.Column('POOL_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('RP_ID', sa.BigInteger(), nullable=False),
    sa.Column('PATH', _my(sa.String(1024), mysql.VARCHAR(length=767)), nullable=False),
    sa.Column('ALLOC_FRACTION', sa.Double()),
    sa.Column('QUERY_PARALLELISM', sa.Integer()),
    sa.Column('SCHEDULING_POLICY', _my(sa.String(1024), mysql.VARCHAR(length=767))),
    sa.PrimaryKeyConstraint('POOL_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

WM_POOL_TO_TRIGGER = sa.Table(
    'WM_POOL_TO_TRIGGER',
    metadata,
    sa.Column('POOL_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('TRIGGER_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.PrimaryKeyConstraint('POOL_ID', 'TRIGGER_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

WM_RESOURCEPLAN = sa.Table(
    'WM_RESOURCEPLAN',
    metadata,
    sa.Column('RP_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('NAME', sa.String(128), nullable=False),
    sa.Column('QUERY_PARALLELISM', sa.Integer()),
    sa.Column('STATUS', sa.String(20), nullable=False),
    sa.Column('DEFAULT_POOL_ID', sa.BigInteger()),
    sa.PrimaryKeyConstraint('RP_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

WM_TRIGGER = sa.Table(
    'WM_TRIGGER',
    metadata,
    sa.Column('TRIGGER_ID', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('RP_ID', sa.BigInteger(), nullable=False),
    sa.Column('NAME', sa.String(128), nullable=False),
    sa.Column('TRIGGER_EXPRESSION', sa.String(1024)),
    sa.Column('ACTION_EXPRESSION', sa.String(1024)),
    sa.Column('IS_IN_UNMANAGED', _my(sa.SmallInteger(), mysql.BIT(length=1)), nullable=False, server_default=sa.text("0")),
    sa.PrimaryKeyConstraint('TRIGGER_ID'),
    mysql_engine="InnoDB",
    mysql_charset="latin1",
)

WRITE_SET = sa.Table(
    'WRITE_SET',
    metadata,
    sa.Column('WS_DATABASE', sa.String(128), nullable=False, quote=False),
    sa.Column('WS_TABLE', sa.String(128), nullable=False, quote=False),
    sa.Column('WS_PARTITION', sa.String(767), quote=False),
    sa.Column('WS_TXNID', sa.BigInteger(), nullable=False, quote=False),
    sa.Column('WS_COMMIT_ID', sa.BigInteger(), nullable=False, quote=False),
    sa.Column('WS_OPERATION_TYPE', sa.CHAR(1), nullable=False, quote=False),
    mysql_engine="InnoDB",
    mysql_charset="latin1", quote=False,
)


#: What the two scripts create differently per dialect (SQLite follows PostgreSQL).
_DDL: dict[str, dict[str, dict[str, Any]]] = {
    'postgresql': {
        'AUX_TABLE': {'pk_name': 'aux_table_pkey'},
        'BUCKETING_COLS': {'pk_name': 'BUCKETING_COLS_pkey', 'fks': [('BUCKETING_COLS_SD_ID_fkey', ['SD_ID'], 'SDS', ['SD_ID'], True)], 'indexes': [('BUCKETING_COLS_N49', ['SD_ID'], False, None)]},
        'CDS': {'pk_name': 'CDS_pkey'},
        'COLUMNS_V2': {'pk_name': 'COLUMNS_V2_pkey', 'fks': [('COLUMNS_V2_CD_ID_fkey', ['CD_ID'], 'CDS', ['CD_ID'], True)]},
        'COMPACTION_QUEUE': {'pk_name': 'compaction_queue_pkey'},
        'COMPLETED_COMPACTIONS': {'pk_name': 'completed_compactions_pkey'},
        'COMPLETED_TXN_COMPONENTS': {'indexes': [('completed_txn_components_index', ['CTC_DATABASE', 'CTC_TABLE', 'CTC_PARTITION'], False, None)]},
        'CTLGS': {'pk_name': 'CTLGS_pkey', 'uniques': [('CTLGS_NAME_key', ['NAME'])]},
        'DATABASE_PARAMS': {'pk_name': 'DATABASE_PARAMS_pkey', 'fks': [('DATABASE_PARAMS_DB_ID_fkey', ['DB_ID'], 'DBS', ['DB_ID'], True)], 'indexes': [('DATABASE_PARAMS_N49', ['DB_ID'], False, None)]},
        'DBS': {'pk_name': 'DBS_pkey', 'fks': [('DBS_FK1', ['CTLG_NAME'], 'CTLGS', ['NAME'], False)], 'uniques': [('UNIQUE_DATABASE', ['NAME', 'CTLG_NAME'])]},
        'DB_PRIVS': {'pk_name': 'DB_PRIVS_pkey', 'fks': [('DB_PRIVS_DB_ID_fkey', ['DB_ID'], 'DBS', ['DB_ID'], True)], 'uniques': [('DBPRIVILEGEINDEX', ['AUTHORIZER', 'DB_ID', 'PRINCIPAL_NAME', 'PRINCIPAL_TYPE', 'DB_PRIV', 'GRANTOR', 'GRANTOR_TYPE'])], 'indexes': [('DB_PRIVS_N49', ['DB_ID'], False, None)]},
        'DELEGATION_TOKENS': {'pk_name': 'DELEGATION_TOKENS_pkey'},
        'FUNCS': {'pk_name': 'FUNCS_pkey', 'fks': [('FUNCS_FK1', ['DB_ID'], 'DBS', ['DB_ID'], True)], 'indexes': [('FUNCS_N49', ['DB_ID'], False, None), ('UNIQUEFUNCTION', ['FUNC_NAME', 'DB_ID'], True, None)]},
        'FUNC_RU': {'pk_name': 'FUNC_RU_pkey', 'fks': [('FUNC_RU_FK1', ['FUNC_ID'], 'FUNCS', ['FUNC_ID'], True)], 'indexes': [('FUNC_RU_N49', ['FUNC_ID'], False, None)]},
        'GLOBAL_PRIVS': {'pk_name': 'GLOBAL_PRIVS_pkey', 'uniques': [('GLOBALPRIVILEGEINDEX', ['AUTHORIZER', 'PRINCIPAL_NAME', 'PRINCIPAL_TYPE', 'USER_PRIV', 'GRANTOR', 'GRANTOR_TYPE'])]},
        'HIVE_LOCKS': {'pk_name': 'hive_locks_pkey', 'indexes': [('hl_txnid_index', ['HL_TXNID'], False, None)]},
        'IDXS': {'pk_name': 'IDXS_pkey', 'fks': [('IDXS_INDEX_TBL_ID_fkey', ['INDEX_TBL_ID'], 'TBLS', ['TBL_ID'], True), ('IDXS_ORIG_TBL_ID_fkey', ['ORIG_TBL_ID'], 'TBLS', ['TBL_ID'], True), ('IDXS_SD_ID_fkey', ['SD_ID'], 'SDS', ['SD_ID'], True)], 'uniques': [('UNIQUEINDEX', ['INDEX_NAME', 'ORIG_TBL_ID'])], 'indexes': [('IDXS_N49', ['ORIG_TBL_ID'], False, None), ('IDXS_N50', ['INDEX_TBL_ID'], False, None), ('IDXS_N51', ['SD_ID'], False, None)]},
        'INDEX_PARAMS': {'pk_name': 'INDEX_PARAMS_pkey', 'fks': [('INDEX_PARAMS_INDEX_ID_fkey', ['INDEX_ID'], 'IDXS', ['INDEX_ID'], True)], 'indexes': [('INDEX_PARAMS_N49', ['INDEX_ID'], False, None)]},
        'I_SCHEMA': {'pk_name': 'I_SCHEMA_pkey', 'fks': [('I_SCHEMA_DB_ID_fkey', ['DB_ID'], 'DBS', ['DB_ID'], False)], 'uniques': [('I_SCHEMA_NAME_key', ['NAME'])]},
        'KEY_CONSTRAINTS': {'pk_name': 'KEY_CONSTRAINTS_pkey', 'indexes': [('CONSTRAINTS_CONSTRAINT_TYPE_INDEX', ['CONSTRAINT_TYPE'], False, None), ('CONSTRAINTS_PARENT_TBLID_INDEX', ['PARENT_TBL_ID'], False, None)]},
        'MASTER_KEYS': {'pk_name': 'MASTER_KEYS_pkey'},
        'MATERIALIZATION_REBUILD_LOCKS': {'pk_name': 'materialization_rebuild_locks_pkey'},
        'METASTORE_DB_PROPERTIES': {'pk_name': 'PROPERTY_KEY_PK'},
        'MIN_HISTORY_LEVEL': {'pk_name': 'min_history_level_pkey', 'indexes': [('min_history_level_idx', ['MHL_MIN_OPEN_TXNID'], False, None)]},
        'MV_CREATION_METADATA': {'pk_name': 'MV_CREATION_METADATA_PK', 'indexes': [('MV_UNIQUE_TABLE', ['TBL_NAME', 'DB_NAME'], False, None)]},
        'MV_TABLES_USED': {'fks': [('MV_TABLES_USED_FK1', ['MV_CREATION_METADATA_ID'], 'MV_CREATION_METADATA', ['MV_CREATION_METADATA_ID'], True), ('MV_TABLES_USED_FK2', ['TBL_ID'], 'TBLS', ['TBL_ID'], True)]},
        'NEXT_WRITE_ID': {'indexes': [('next_write_id_idx', ['NWI_DATABASE', 'NWI_TABLE'], True, None)]},
        'NOTIFICATION_LOG': {'pk_name': 'NOTIFICATION_LOG_pkey'},
        'NOTIFICATION_SEQUENCE': {'pk_name': 'NOTIFICATION_SEQUENCE_pkey'},
        'NUCLEUS_TABLES': {'pk_name': 'NUCLEUS_TABLES_pkey'},
        'PARTITIONS': {'pk_name': 'PARTITIONS_pkey', 'fks': [('PARTITIONS_SD_ID_fkey', ['SD_ID'], 'SDS', ['SD_ID'], True), ('PARTITIONS_TBL_ID_fkey', ['TBL_ID'], 'TBLS', ['TBL_ID'], True)], 'uniques': [('UNIQUEPARTITION', ['PART_NAME', 'TBL_ID'])], 'indexes': [('PARTITIONS_N49', ['TBL_ID'], False, None), ('PARTITIONS_N50', ['SD_ID'], False, None)]},
        'PARTITION_EVENTS': {'pk_name': 'PARTITION_EVENTS_pkey', 'indexes': [('PARTITIONEVENTINDEX', ['PARTITION_NAME'], False, None)]},
        'PARTITION_KEYS': {'pk_name': 'PARTITION_KEYS_pkey', 'fks': [('PARTITION_KEYS_TBL_ID_fkey', ['TBL_ID'], 'TBLS', ['TBL_ID'], True)], 'indexes': [('PARTITION_KEYS_N49', ['TBL_ID'], False, None)]},
        'PARTITION_KEY_VALS': {'pk_name': 'PARTITION_KEY_VALS_pkey', 'fks': [('PARTITION_KEY_VALS_PART_ID_fkey', ['PART_ID'], 'PARTITIONS', ['PART_ID'], True)], 'indexes': [('PARTITION_KEY_VALS_N49', ['PART_ID'], False, None)]},
        'PARTITION_PARAMS': {'pk_name': 'PARTITION_PARAMS_pkey', 'fks': [('PARTITION_PARAMS_PART_ID_fkey', ['PART_ID'], 'PARTITIONS', ['PART_ID'], True)], 'indexes': [('PARTITION_PARAMS_N49', ['PART_ID'], False, None)]},
        'PART_COL_PRIVS': {'pk_name': 'PART_COL_PRIVS_pkey', 'fks': [('PART_COL_PRIVS_PART_ID_fkey', ['PART_ID'], 'PARTITIONS', ['PART_ID'], True)], 'indexes': [('PARTITIONCOLUMNPRIVILEGEINDEX', ['AUTHORIZER', 'PART_ID', 'COLUMN_NAME', 'PRINCIPAL_NAME', 'PRINCIPAL_TYPE', 'PART_COL_PRIV', 'GRANTOR', 'GRANTOR_TYPE'], False, None), ('PART_COL_PRIVS_N49', ['PART_ID'], False, None)]},
        'PART_COL_STATS': {'pk_name': 'PART_COL_STATS_pkey', 'fks': [('PART_COL_STATS_fkey', ['PART_ID'], 'PARTITIONS', ['PART_ID'], True)], 'indexes': [('PART_COL_STATS_N49', ['PART_ID'], False, None), ('PCS_STATS_IDX', ['CAT_NAME', 'DB_NAME', 'TABLE_NAME', 'COLUMN_NAME', 'PARTITION_NAME'], False, None)]},
        'PART_PRIVS': {'pk_name': 'PART_PRIVS_pkey', 'fks': [('PART_PRIVS_PART_ID_fkey', ['PART_ID'], 'PARTITIONS', ['PART_ID'], True)], 'indexes': [('PARTPRIVILEGEINDEX', ['AUTHORIZER', 'PART_ID', 'PRINCIPAL_NAME', 'PRINCIPAL_TYPE', 'PART_PRIV', 'GRANTOR', 'GRANTOR_TYPE'], False, None), ('PART_PRIVS_N49', ['PART_ID'], False, None)]},
        'REPL_TXN_MAP': {'pk_name': 'repl_txn_map_pkey'},
        'ROLES': {'pk_name': 'ROLES_pkey', 'uniques': [('ROLEENTITYINDEX', ['ROLE_NAME'])]},
        'ROLE_MAP': {'pk_name': 'ROLE_MAP_pkey', 'fks': [('ROLE_MAP_ROLE_ID_fkey', ['ROLE_ID'], 'ROLES', ['ROLE_ID'], True)], 'uniques': [('USERROLEMAPINDEX', ['PRINCIPAL_NAME', 'ROLE_ID', 'GRANTOR', 'GRANTOR_TYPE'])], 'indexes': [('ROLE_MAP_N49', ['ROLE_ID'], False, None)]},
        'RUNTIME_STATS': {'pk_name': 'runtime_stats_pkey', 'indexes': [('idx_runtime_stats_create_time', ['CREATE_TIME'], False, None)]},
        'SCHEMA_VERSION': {'pk_name': 'SCHEMA_VERSION_pkey', 'fks': [('SCHEMA_VERSION_CD_ID_fkey', ['CD_ID'], 'CDS', ['CD_ID'], False), ('SCHEMA_VERSION_SCHEMA_ID_fkey', ['SCHEMA_ID'], 'I_SCHEMA', ['SCHEMA_ID'], False), ('SCHEMA_VERSION_SERDE_ID_fkey', ['SERDE_ID'], 'SERDES', ['SERDE_ID'], False)], 'uniques': [('SCHEMA_VERSION_SCHEMA_ID_VERSION_key', ['SCHEMA_ID', 'VERSION'])]},
        'SDS': {'pk_name': 'SDS_pkey', 'fks': [('SDS_CD_ID_fkey', ['CD_ID'], 'CDS', ['CD_ID'], True), ('SDS_SERDE_ID_fkey', ['SERDE_ID'], 'SERDES', ['SERDE_ID'], True)], 'indexes': [('SDS_N49', ['SERDE_ID'], False, None)]},
        'SD_PARAMS': {'pk_name': 'SD_PARAMS_pkey', 'fks': [('SD_PARAMS_SD_ID_fkey', ['SD_ID'], 'SDS', ['SD_ID'], True)], 'indexes': [('SD_PARAMS_N49', ['SD_ID'], False, None)]},
        'SEQUENCE_TABLE': {'pk_name': 'SEQUENCE_TABLE_pkey'},
        'SERDES': {'pk_name': 'SERDES_pkey'},
        'SERDE_PARAMS': {'pk_name': 'SERDE_PARAMS_pkey', 'fks': [('SERDE_PARAMS_SERDE_ID_fkey', ['SERDE_ID'], 'SERDES', ['SERDE_ID'], True)], 'indexes': [('SERDE_PARAMS_N49', ['SERDE_ID'], False, None)]},
        'SKEWED_COL_NAMES': {'pk_name': 'SKEWED_COL_NAMES_pkey', 'fks': [('SKEWED_COL_NAMES_fkey', ['SD_ID'], 'SDS', ['SD_ID'], True)]},
        'SKEWED_COL_VALUE_LOC_MAP': {'pk_name': 'SKEWED_COL_VALUE_LOC_MAP_pkey', 'fks': [('SKEWED_COL_VALUE_LOC_MAP_fkey1', ['SD_ID'], 'SDS', ['SD_ID'], True), ('SKEWED_COL_VALUE_LOC_MAP_fkey2', ['STRING_LIST_ID_KID'], 'SKEWED_STRING_LIST', ['STRING_LIST_ID'], True)]},
        'SKEWED_STRING_LIST': {'pk_name': 'SKEWED_STRING_LIST_pkey'},
        'SKEWED_STRING_LIST_VALUES': {'pk_name': 'SKEWED_STRING_LIST_VALUES_pkey', 'fks': [('SKEWED_STRING_LIST_VALUES_fkey', ['STRING_LIST_ID'], 'SKEWED_STRING_LIST', ['STRING_LIST_ID'], True)]},
        'SKEWED_VALUES': {'pk_name': 'SKEWED_VALUES_pkey', 'fks': [('SKEWED_VALUES_fkey1', ['STRING_LIST_ID_EID'], 'SKEWED_STRING_LIST', ['STRING_LIST_ID'], True), ('SKEWED_VALUES_fkey2', ['SD_ID_OID'], 'SDS', ['SD_ID'], True)]},
        'SORT_COLS': {'pk_name': 'SORT_COLS_pkey', 'fks': [('SORT_COLS_SD_ID_fkey', ['SD_ID'], 'SDS', ['SD_ID'], True)], 'indexes': [('SORT_COLS_N49', ['SD_ID'], False, None)]},
        'TABLE_PARAMS': {'pk_name': 'TABLE_PARAMS_pkey', 'fks': [('TABLE_PARAMS_TBL_ID_fkey', ['TBL_ID'], 'TBLS', ['TBL_ID'], True)], 'indexes': [('TABLE_PARAMS_N49', ['TBL_ID'], False, None)]},
        'TAB_COL_STATS': {'pk_name': 'TAB_COL_STATS_pkey', 'fks': [('TAB_COL_STATS_fkey', ['TBL_ID'], 'TBLS', ['TBL_ID'], True)], 'indexes': [('TAB_COL_STATS_IDX', ['CAT_NAME', 'DB_NAME', 'TABLE_NAME', 'COLUMN_NAME'], False, None), ('TAB_COL_STATS_N49', ['TBL_ID'], False, None)]},
        'TBLS': {'pk_name': 'TBLS_pkey', 'fks': [('TBLS_DB_ID_fkey', ['DB_ID'], 'DBS', ['DB_ID'], True), ('TBLS_SD_ID_fkey', ['SD_ID'], 'SDS', ['SD_ID'], True)], 'uniques': [('UNIQUETABLE', ['TBL_NAME', 'DB_ID'])], 'indexes': [('TBLS_N49', ['DB_ID'], False, None), ('TBLS_N50', ['SD_ID'], False, None)]},
        'TBL_COL_PRIVS': {'pk_name': 'TBL_COL_PRIVS_pkey', 'fks': [('TBL_COL_PRIVS_TBL_ID_fkey', ['TBL_ID'], 'TBLS', ['TBL_ID'], True)], 'indexes': [('TABLECOLUMNPRIVILEGEINDEX', ['AUTHORIZER', 'TBL_ID', 'COLUMN_NAME', 'PRINCIPAL_NAME', 'PRINCIPAL_TYPE', 'TBL_COL_PRIV', 'GRANTOR', 'GRANTOR_TYPE'], False, None), ('TBL_COL_PRIVS_N49', ['TBL_ID'], False, None)]},
        'TBL_PRIVS': {'pk_name': 'TBL_PRIVS_pkey', 'fks': [('TBL_PRIVS_TBL_ID_fkey', ['TBL_ID'], 'TBLS', ['TBL_ID'], True)], 'indexes': [('TABLEPRIVILEGEINDEX', ['AUTHORIZER', 'TBL_ID', 'PRINCIPAL_NAME', 'PRINCIPAL_TYPE', 'TBL_PRIV', 'GRANTOR', 'GRANTOR_TYPE'], False, None), ('TBL_PRIVS_N49', ['TBL_ID'], False, None)]},
        'TXNS': {'pk_name': 'txns_pkey'},
        'TXN_COMPONENTS': {'fks': [('txn_components_tc_txnid_fkey', ['TC_TXNID'], 'TXNS', ['TXN_ID'], False)], 'indexes': [('tc_txnid_index', ['TC_TXNID'], False, None)]},
        'TXN_TO_WRITE_ID': {'indexes': [('tbl_to_txn_id_idx', ['T2W_DATABASE', 'T2W_TABLE', 'T2W_TXNID'], True, None), ('tbl_to_write_id_idx', ['T2W_DATABASE', 'T2W_TABLE', 'T2W_WRITEID'], True, None)]},
        'TYPES': {'pk_name': 'TYPES_pkey', 'uniques': [('UNIQUE_TYPE', ['TYPE_NAME'])]},
        'TYPE_FIELDS': {'pk_name': 'TYPE_FIELDS_pkey', 'fks': [('TYPE_FIELDS_TYPE_NAME_fkey', ['TYPE_NAME'], 'TYPES', ['TYPES_ID'], True)], 'indexes': [('TYPE_FIELDS_N49', ['TYPE_NAME'], False, None)]},
        'VERSION': {'pk_name': 'VERSION_pkey'},
        'WM_MAPPING': {'pk_name': 'WM_MAPPING_pkey', 'fks': [('WM_MAPPING_FK1', ['RP_ID'], 'WM_RESOURCEPLAN', ['RP_ID'], True), ('WM_MAPPING_FK2', ['POOL_ID'], 'WM_POOL', ['POOL_ID'], True)], 'uniques': [('UNIQUE_WM_MAPPING', ['RP_ID', 'ENTITY_TYPE', 'ENTITY_NAME'])]},
        'WM_POOL': {'pk_name': 'WM_POOL_pkey', 'fks': [('WM_POOL_FK1', ['RP_ID'], 'WM_RESOURCEPLAN', ['RP_ID'], True)], 'uniques': [('UNIQUE_WM_POOL', ['RP_ID', 'PATH'])]},
        'WM_POOL_TO_TRIGGER': {'pk_name': 'WM_POOL_TO_TRIGGER_pkey', 'fks': [('WM_POOL_TO_TRIGGER_FK1', ['POOL_ID'], 'WM_POOL', ['POOL_ID'], True), ('WM_POOL_TO_TRIGGER_FK2', ['TRIGGER_ID'], 'WM_TRIGGER', ['TRIGGER_ID'], True)]},
        'WM_RESOURCEPLAN': {'pk_name': 'WM_RESOURCEPLAN_pkey', 'fks': [('WM_RESOURCEPLAN_FK1', ['DEFAULT_POOL_ID'], 'WM_POOL', ['POOL_ID'], True)], 'uniques': [('UNIQUE_WM_RESOURCEPLAN', ['NAME'])]},
        'WM_TRIGGER': {'pk_name': 'WM_TRIGGER_pkey', 'fks': [('WM_TRIGGER_FK1', ['RP_ID'], 'WM_RESOURCEPLAN', ['RP_ID'], True)], 'uniques': [('UNIQUE_WM_TRIGGER', ['RP_ID', 'NAME'])]},
    },
    'mysql': {
        'BUCKETING_COLS': {'fks': [('BUCKETING_COLS_FK1', ['SD_ID'], 'SDS', ['SD_ID'], False)], 'indexes': [('BUCKETING_COLS_N49', ['SD_ID'], False, None)]},
        'COLUMNS_V2': {'fks': [('COLUMNS_V2_FK1', ['CD_ID'], 'CDS', ['CD_ID'], False)], 'indexes': [('COLUMNS_V2_N49', ['CD_ID'], False, None)]},
        'CTLGS': {'indexes': [('UNIQUE_CATALOG', ['NAME'], True, None)]},
        'DATABASE_PARAMS': {'fks': [('DATABASE_PARAMS_FK1', ['DB_ID'], 'DBS', ['DB_ID'], False)], 'indexes': [('DATABASE_PARAMS_N49', ['DB_ID'], False, None)]},
        'DBS': {'fks': [('CTLG_FK1', ['CTLG_NAME'], 'CTLGS', ['NAME'], False)], 'indexes': [('UNIQUE_DATABASE', ['NAME', 'CTLG_NAME'], True, None)], 'nullable': {'CTLG_NAME': False}},
        'DB_PRIVS': {'fks': [('DB_PRIVS_FK1', ['DB_ID'], 'DBS', ['DB_ID'], False)], 'indexes': [('DBPRIVILEGEINDEX', ['AUTHORIZER', 'DB_ID', 'PRINCIPAL_NAME', 'PRINCIPAL_TYPE', 'DB_PRIV', 'GRANTOR', 'GRANTOR_TYPE'], True, None), ('DB_PRIVS_N49', ['DB_ID'], False, None)]},
        'FUNCS': {'fks': [('FUNCS_FK1', ['DB_ID'], 'DBS', ['DB_ID'], False)], 'indexes': [('FUNCS_N49', ['DB_ID'], False, None), ('UNIQUEFUNCTION', ['FUNC_NAME', 'DB_ID'], True, None)]},
        'FUNC_RU': {'fks': [('FUNC_RU_FK1', ['FUNC_ID'], 'FUNCS', ['FUNC_ID'], False)]},
        'GLOBAL_PRIVS': {'indexes': [('GLOBALPRIVILEGEINDEX', ['AUTHORIZER', 'PRINCIPAL_NAME', 'PRINCIPAL_TYPE', 'USER_PRIV', 'GRANTOR', 'GRANTOR_TYPE'], True, None)]},
        'HIVE_LOCKS': {'indexes': [('HIVE_LOCK_TXNID_INDEX', ['HL_TXNID'], False, None), ('HL_TXNID_IDX', ['HL_TXNID'], False, None)]},
        'IDXS': {'fks': [('IDXS_FK1', ['ORIG_TBL_ID'], 'TBLS', ['TBL_ID'], False), ('IDXS_FK2', ['SD_ID'], 'SDS', ['SD_ID'], False), ('IDXS_FK3', ['INDEX_TBL_ID'], 'TBLS', ['TBL_ID'], False)], 'indexes': [('IDXS_N49', ['ORIG_TBL_ID'], False, None), ('IDXS_N50', ['INDEX_TBL_ID'], False, None), ('IDXS_N51', ['SD_ID'], False, None), ('UNIQUEINDEX', ['INDEX_NAME', 'ORIG_TBL_ID'], True, None)]},
        'INDEX_PARAMS': {'fks': [('INDEX_PARAMS_FK1', ['INDEX_ID'], 'IDXS', ['INDEX_ID'], False)], 'indexes': [('INDEX_PARAMS_N49', ['INDEX_ID'], False, None)]},
        'I_SCHEMA': {'fks': [('I_SCHEMA_ibfk_1', ['DB_ID'], 'DBS', ['DB_ID'], False)], 'indexes': [('DB_ID', ['DB_ID'], False, None), ('UNIQUE_NAME', ['NAME'], False, None)]},
        'KEY_CONSTRAINTS': {'indexes': [('CONSTRAINTS_CONSTRAINT_TYPE_INDEX', ['CONSTRAINT_TYPE'], False, None), ('CONSTRAINTS_PARENT_TABLE_ID_INDEX', ['PARENT_TBL_ID'], False, None)]},
        'MIN_HISTORY_LEVEL': {'indexes': [('MIN_HISTORY_LEVEL_IDX', ['MHL_MIN_OPEN_TXNID'], False, None)]},
        'MV_CREATION_METADATA': {'indexes': [('MV_UNIQUE_TABLE', ['TBL_NAME', 'DB_NAME'], False, None)]},
        'MV_TABLES_USED': {'fks': [('MV_TABLES_USED_FK1', ['MV_CREATION_METADATA_ID'], 'MV_CREATION_METADATA', ['MV_CREATION_METADATA_ID'], False), ('MV_TABLES_USED_FK2', ['TBL_ID'], 'TBLS', ['TBL_ID'], False)]},
        'NEXT_WRITE_ID': {'indexes': [('NEXT_WRITE_ID_IDX', ['NWI_DATABASE', 'NWI_TABLE'], True, None)]},
        'PART_COL_PRIVS': {'indexes': [('PART_COL_PRIVS_N49', ['PART_ID'], False, None)]},
        'PART_COL_STATS': {'indexes': [('PART_COL_STATS_FK', ['PART_ID'], False, None)], 'nullable': {'CAT_NAME': False, 'DB_NAME': False, 'TABLE_NAME': False, 'PARTITION_NAME': False, 'COLUMN_NAME': False, 'COLUMN_TYPE': False}, 'order': ['CS_ID', 'CAT_NAME', 'DB_NAME', 'TABLE_NAME', 'PARTITION_NAME', 'COLUMN_NAME', 'COLUMN_TYPE', 'PART_ID', 'LONG_LOW_VALUE', 'LONG_HIGH_VALUE', 'DOUBLE_HIGH_VALUE', 'DOUBLE_LOW_VALUE', 'BIG_DECIMAL_LOW_VALUE', 'BIG_DECIMAL_HIGH_VALUE', 'NUM_NULLS', 'NUM_DISTINCTS', 'BIT_VECTOR', 'AVG_COL_LEN', 'MAX_COL_LEN', 'NUM_TRUES', 'NUM_FALSES', 'LAST_ANALYZED']},
        'PART_PRIVS': {'indexes': [('PARTPRIVILEGEINDEX', ['AUTHORIZER', 'PART_ID', 'PRINCIPAL_NAME', 'PRINCIPAL_TYPE', 'PART_PRIV', 'GRANTOR', 'GRANTOR_TYPE'], False, None), ('PART_PRIVS_N49', ['PART_ID'], False, None)]},
        'ROLES': {'indexes': [('ROLEENTITYINDEX', ['ROLE_NAME'], True, None)]},
        'ROLE_MAP': {'fks': [('ROLE_MAP_FK1', ['ROLE_ID'], 'ROLES', ['ROLE_ID'], False)], 'indexes': [('ROLE_MAP_N49', ['ROLE_ID'], False, None), ('USERROLEMAPINDEX', ['PRINCIPAL_NAME', 'ROLE_ID', 'GRANTOR', 'GRANTOR_TYPE'], True, None)]},
        'RUNTIME_STATS': {'indexes': [('IDX_RUNTIME_STATS_CREATE_TIME', ['CREATE_TIME'], False, None)]},
        'SCHEMA_VERSION': {'fks': [('SCHEMA_VERSION_ibfk_1', ['SCHEMA_ID'], 'I_SCHEMA', ['SCHEMA_ID'], False), ('SCHEMA_VERSION_ibfk_2', ['CD_ID'], 'CDS', ['CD_ID'], False), ('SCHEMA_VERSION_ibfk_3', ['SERDE_ID'], 'SERDES', ['SERDE_ID'], False)], 'indexes': [('CD_ID', ['CD_ID'], False, None), ('SERDE_ID', ['SERDE_ID'], False, None), ('UNIQUE_VERSION', ['SCHEMA_ID', 'VERSION'], False, None)]},
        'SDS': {'fks': [('SDS_FK1', ['SERDE_ID'], 'SERDES', ['SERDE_ID'], False), ('SDS_FK2', ['CD_ID'], 'CDS', ['CD_ID'], False)], 'indexes': [('SDS_N49', ['SERDE_ID'], False, None), ('SDS_N50', ['CD_ID'], False, None)], 'order': ['SD_ID', 'CD_ID', 'INPUT_FORMAT', 'IS_COMPRESSED', 'IS_STOREDASSUBDIRECTORIES', 'LOCATION', 'NUM_BUCKETS', 'OUTPUT_FORMAT', 'SERDE_ID']},
        'SD_PARAMS': {'fks': [('SD_PARAMS_FK1', ['SD_ID'], 'SDS', ['SD_ID'], False)], 'indexes': [('SD_PARAMS_N49', ['SD_ID'], False, None)]},
        'SERDE_PARAMS': {'fks': [('SERDE_PARAMS_FK1', ['SERDE_ID'], 'SERDES', ['SERDE_ID'], False)], 'indexes': [('SERDE_PARAMS_N49', ['SERDE_ID'], False, None)]},
        'SKEWED_COL_NAMES': {'fks': [('SKEWED_COL_NAMES_FK1', ['SD_ID'], 'SDS', ['SD_ID'], False)], 'indexes': [('SKEWED_COL_NAMES_N49', ['SD_ID'], False, None)]},
        'SKEWED_COL_VALUE_LOC_MAP': {'fks': [('SKEWED_COL_VALUE_LOC_MAP_FK1', ['SD_ID'], 'SDS', ['SD_ID'], False), ('SKEWED_COL_VALUE_LOC_MAP_FK2', ['STRING_LIST_ID_KID'], 'SKEWED_STRING_LIST', ['STRING_LIST_ID'], False)], 'indexes': [('SKEWED_COL_VALUE_LOC_MAP_N49', ['STRING_LIST_ID_KID'], False, None), ('SKEWED_COL_VALUE_LOC_MAP_N50', ['SD_ID'], False, None)]},
        'SKEWED_STRING_LIST_VALUES': {'fks': [('SKEWED_STRING_LIST_VALUES_FK1', ['STRING_LIST_ID'], 'SKEWED_STRING_LIST', ['STRING_LIST_ID'], False)], 'indexes': [('SKEWED_STRING_LIST_VALUES_N49', ['STRING_LIST_ID'], False, None)]},
        'SKEWED_VALUES': {'fks': [('SKEWED_VALUES_FK1', ['SD_ID_OID'], 'SDS', ['SD_ID'], False), ('SKEWED_VALUES_FK2', ['STRING_LIST_ID_EID'], 'SKEWED_STRING_LIST', ['STRING_LIST_ID'], False)], 'indexes': [('SKEWED_VALUES_N49', ['STRING_LIST_ID_EID'], False, None), ('SKEWED_VALUES_N50', ['SD_ID_OID'], False, None)]},
        'SORT_COLS': {'fks': [('SORT_COLS_FK1', ['SD_ID'], 'SDS', ['SD_ID'], False)], 'indexes': [('SORT_COLS_N49', ['SD_ID'], False, None)]},
        'TABLE_PARAMS': {'fks': [('TABLE_PARAMS_FK1', ['TBL_ID'], 'TBLS', ['TBL_ID'], False)], 'indexes': [('TABLE_PARAMS_N49', ['TBL_ID'], False, None)]},
        'TAB_COL_STATS': {'fks': [('TAB_COL_STATS_FK', ['TBL_ID'], 'TBLS', ['TBL_ID'], False)], 'indexes': [('TAB_COL_STATS_IDX', ['CAT_NAME', 'DB_NAME', 'TABLE_NAME', 'COLUMN_NAME'], False, None)], 'nullable': {'CAT_NAME': False, 'DB_NAME': False, 'TABLE_NAME': False, 'COLUMN_NAME': False, 'COLUMN_TYPE': False}, 'order': ['CS_ID', 'CAT_NAME', 'DB_NAME', 'TABLE_NAME', 'COLUMN_NAME', 'COLUMN_TYPE', 'TBL_ID', 'LONG_LOW_VALUE', 'LONG_HIGH_VALUE', 'DOUBLE_HIGH_VALUE', 'DOUBLE_LOW_VALUE', 'BIG_DECIMAL_LOW_VALUE', 'BIG_DECIMAL_HIGH_VALUE', 'NUM_NULLS', 'NUM_DISTINCTS', 'BIT_VECTOR', 'AVG_COL_LEN', 'MAX_COL_LEN', 'NUM_TRUES', 'NUM_FALSES', 'LAST_ANALYZED']},
        'TBLS': {'fks': [('TBLS_FK1', ['SD_ID'], 'SDS', ['SD_ID'], False), ('TBLS_FK2', ['DB_ID'], 'DBS', ['DB_ID'], False)], 'indexes': [('TBLS_N49', ['DB_ID'], False, None), ('TBLS_N50', ['SD_ID'], False, None), ('UNIQUETABLE', ['TBL_NAME', 'DB_ID'], True, None)]},
        'TBL_COL_PRIVS': {'fks': [('TBL_COL_PRIVS_FK1', ['TBL_ID'], 'TBLS', ['TBL_ID'], False)], 'indexes': [('TABLECOLUMNPRIVILEGEINDEX', ['AUTHORIZER', 'TBL_ID', 'COLUMN_NAME', 'PRINCIPAL_NAME', 'PRINCIPAL_TYPE', 'TBL_COL_PRIV', 'GRANTOR', 'GRANTOR_TYPE'], False, None), ('TBL_COL_PRIVS_N49', ['TBL_ID'], False, None)]},
        'TBL_PRIVS': {'fks': [('TBL_PRIVS_FK1', ['TBL_ID'], 'TBLS', ['TBL_ID'], False)], 'indexes': [('TABLEPRIVILEGEINDEX', ['AUTHORIZER', 'TBL_ID', 'PRINCIPAL_NAME', 'PRINCIPAL_TYPE', 'TBL_PRIV', 'GRANTOR', 'GRANTOR_TYPE'], False, None), ('TBL_PRIVS_N49', ['TBL_ID'], False, None)]},
        'TXN_COMPONENTS': {'fks': [('TXN_COMPONENTS_ibfk_1', ['TC_TXNID'], 'TXNS', ['TXN_ID'], False)], 'indexes': [('TC_TXNID_INDEX', ['TC_TXNID'], False, None)]},
        'TXN_TO_WRITE_ID': {'indexes': [('TBL_TO_TXN_ID_IDX', ['T2W_DATABASE', 'T2W_TABLE', 'T2W_TXNID'], True, None), ('TBL_TO_WRITE_ID_IDX', ['T2W_DATABASE', 'T2W_TABLE', 'T2W_WRITEID'], True, None)]},
        'TYPES': {'indexes': [('UNIQUE_TYPE', ['TYPE_NAME'], True, None)]},
        'TYPE_FIELDS': {'fks': [('TYPE_FIELDS_FK1', ['TYPE_NAME'], 'TYPES', ['TYPES_ID'], False)], 'indexes': [('TYPE_FIELDS_N49', ['TYPE_NAME'], False, None)]},
        'VERSION': {'nullable': {'VERSION_COMMENT': True}},
        'WM_MAPPING': {'fks': [('WM_MAPPING_FK1', ['RP_ID'], 'WM_RESOURCEPLAN', ['RP_ID'], False), ('WM_MAPPING_FK2', ['POOL_ID'], 'WM_POOL', ['POOL_ID'], False)], 'indexes': [('UNIQUE_WM_MAPPING', ['RP_ID', 'ENTITY_TYPE', 'ENTITY_NAME'], True, None)]},
        'WM_POOL': {'fks': [('WM_POOL_FK1', ['RP_ID'], 'WM_RESOURCEPLAN', ['RP_ID'], False)], 'indexes': [('UNIQUE_WM_POOL', ['RP_ID', 'PATH'], True, None)]},
        'WM_POOL_TO_TRIGGER': {'fks': [('WM_POOL_TO_TRIGGER_FK1', ['POOL_ID'], 'WM_POOL', ['POOL_ID'], False), ('WM_POOL_TO_TRIGGER_FK2', ['TRIGGER_ID'], 'WM_TRIGGER', ['TRIGGER_ID'], False)]},
        'WM_RESOURCEPLAN': {'fks': [('WM_RESOURCEPLAN_FK1', ['DEFAULT_POOL_ID'], 'WM_POOL', ['POOL_ID'], False)], 'indexes': [('UNIQUE_WM_RESOURCEPLAN', ['NAME'], True, None)]},
        'WM_TRIGGER': {'fks': [('WM_TRIGGER_FK1', ['RP_ID'], 'WM_RESOURCEPLAN', ['RP_ID'], False)], 'indexes': [('UNIQUE_WM_TRIGGER', ['RP_ID', 'NAME'], True, None)]},
    },
}


#: Tables the PostgreSQL script creates unquoted (lower case there).
LOWER_CASE_ON_POSTGRESQL: frozenset[str] = frozenset(t.name for t in metadata.tables.values() if getattr(t.name, "quote", None) is False)


def flavor(dialect_name: str) -> str:
    """The script a dialect follows: ``mysql`` for MySQL/MariaDB, ``postgresql`` for PostgreSQL and SQLite."""
    return "mysql" if dialect_name in ("mysql", "mariadb") else "postgresql"


def physical_name(table: sa.Table, dialect_name: str) -> str:
    """The name a table has in the database's catalog (what the inspector lists)."""
    if dialect_name == "postgresql" and table.name in LOWER_CASE_ON_POSTGRESQL:
        return table.name.lower()
    return table.name


def ddl_metadata(dialect_name: str, tables: Any = None) -> sa.MetaData:
    """A MetaData that creates the tables (default: all of them) as Hive's script for ``dialect_name`` does."""
    kind = flavor(dialect_name)
    out = sa.MetaData()
    wanted = list(metadata.tables.values()) if tables is None else list(tables)
    names = {t.name for t in wanted}
    for table in wanted:
        extra = _DDL[kind].get(table.name, {})
        nullable = extra.get("nullable", {})
        order = extra.get("order") or [c.name for c in table.columns]
        cols = []
        for name in order:
            col = table.c[name]._copy()  # noqa: SLF001 - SQLAlchemy's way to reuse a Column in another Table
            if name in nullable:
                col.nullable = nullable[name]
            cols.append(col)
        items: list[Any] = []
        pk_cols = [c.name for c in table.primary_key.columns]
        if pk_cols:
            for col in cols:
                col.primary_key = False
            items.append(sa.PrimaryKeyConstraint(*pk_cols, name=extra.get("pk_name")))
        for name, cols_, ref, ref_cols, deferrable in extra.get("fks", []):
            if ref not in names:
                continue
            items.append(sa.ForeignKeyConstraint(
                cols_, [f"{ref}.{c}" for c in ref_cols], name=name, deferrable=deferrable or None,
            ))
        for name, cols_ in extra.get("uniques", []):
            items.append(sa.UniqueConstraint(*cols_, name=name))
        new = sa.Table(table.name, out, *cols, *items, quote=getattr(table.name, "quote", None), **table.kwargs)
        for name, cols_, unique, lengths in extra.get("indexes", []):
            kw = {"mysql_length": lengths} if lengths else {}
            sa.Index(name, *(new.c[c] for c in cols_), unique=unique, **kw)
    return out
