"""What a reader may see: Hive's ValidTxnList and per-table valid write ids, as pure values.

These are plain frozen dataclasses (no SQLAlchemy) so that the engine, the tests and Spark
executors can pass them around, pickle them and print them in Hive's string form. The store
fills them in one consistent database read (:meth:`TxnStore.snapshot`).

The lists themselves are ``hiveacid_sql.acid.writeids``' ``ValidTxnList`` and
``ValidWriteIdList`` (``TableWriteIds`` is an alias kept for the store's vocabulary).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hiveacid_sql.acid.names import LONG_MAX
from hiveacid_sql.acid.writeids import ValidTxnList, ValidWriteIdList

#: What Hive prints for "no open transaction / write id" (Java ``Long.MAX_VALUE``).
NO_MIN_OPEN = LONG_MAX

#: The store hands out the format layer's own lists, so one implementation of Hive's rules
#: (validity, ranges, string forms) serves both the store and the readers.
TableWriteIds = ValidWriteIdList


@dataclass(frozen=True)
class Snapshot:
    """A consistent picture for one statement: the txn list plus each requested table's write ids.

    ``txn_id`` is the reader's own transaction (None for a read outside any transaction); its
    own writes are valid to it. ``tables`` is keyed by ``"db.table"`` (lower case).
    """

    txn_id: int | None
    txns: ValidTxnList
    tables: dict[str, TableWriteIds] = field(default_factory=dict)

    def write_ids(self, db: str, table: str) -> TableWriteIds:
        """The write ids of ``db.table``; KeyError if the snapshot was not taken for it."""
        return self.tables[f"{db.lower()}.{table.lower()}"]
