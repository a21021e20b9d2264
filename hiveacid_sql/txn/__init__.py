"""Transaction store and catalog: Hive 3.1 metastore tables on SQLAlchemy Core.

The only package that imports SQLAlchemy. :class:`TxnStore` hands out transaction and write ids
and consistent snapshots; ``TxnStore.catalog`` (:class:`Catalog`) holds databases and tables.
The value types (:class:`Snapshot`, :class:`TableDef`, ...) are plain frozen dataclasses.
"""

from hiveacid_sql.txn.catalog import Catalog
from hiveacid_sql.txn.schema import SCHEMA_VERSION
from hiveacid_sql.txn.snapshot import NO_MIN_OPEN, Snapshot, TableWriteIds, ValidTxnList
from hiveacid_sql.txn.store import TableCommit, TxnKeyValue, TxnState, TxnStore
from hiveacid_sql.txn.tabledef import Column, ConstraintDef, PartitionDef, TableDef

__all__ = [
    "NO_MIN_OPEN",
    "PartitionDef",
    "SCHEMA_VERSION",
    "Catalog",
    "Column",
    "ConstraintDef",
    "Snapshot",
    "TableCommit",
    "TxnKeyValue",
    "TableDef",
    "TableWriteIds",
    "TxnState",
    "TxnStore",
    "ValidTxnList",
]
