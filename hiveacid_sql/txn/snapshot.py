"""What a reader may see: Hive's ValidTxnList and per-table valid write ids, as pure values.

These are plain frozen dataclasses (no SQLAlchemy) so that the engine, the tests and Spark
executors can pass them around, pickle them and print them in Hive's string form. The store
fills them in one consistent database read (:meth:`TxnStore.snapshot`).

``hiveacid_sql.acid.writeids`` holds the full ``ValidWriteIdList`` (range checks, base
validity); :class:`TableWriteIds` stays minimal and exposes exactly the fields that module
converts from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

#: What Hive prints for "no open transaction / write id" (Java ``Long.MAX_VALUE``).
NO_MIN_OPEN = 9223372036854775807


def _hive_lists(exceptions: Iterable[int], aborted: frozenset[int]) -> str:
    """``open1,open2:aborted1,aborted2`` as Hive's ``writeToString`` lays them out."""
    excs = list(exceptions)
    open_ids = ",".join(str(i) for i in excs if i not in aborted)
    aborted_ids = ",".join(str(i) for i in excs if i in aborted)
    return f"{open_ids}:{aborted_ids}"


@dataclass(frozen=True)
class ValidTxnList:
    """Hive's ``ValidReadTxnList``: which transaction ids a reader treats as committed.

    ``exceptions`` are the open and aborted ids at or below ``high_watermark`` (sorted),
    ``aborted`` is the subset that aborted, ``min_open_txn`` the smallest still-open id.
    """

    high_watermark: int
    exceptions: tuple[int, ...] = ()
    aborted: frozenset[int] = field(default_factory=frozenset)
    min_open_txn: int | None = None

    def __post_init__(self) -> None:
        # Sorted like Hive's arrays; the set makes per-row validity checks O(1).
        object.__setattr__(self, "exceptions", tuple(sorted(self.exceptions)))
        object.__setattr__(self, "aborted", frozenset(self.aborted))
        object.__setattr__(self, "_lookup", frozenset(self.exceptions))

    def is_txn_valid(self, txn_id: int) -> bool:
        """Committed as far as this reader knows: at or below the HWM and not an exception."""
        return txn_id <= self.high_watermark and txn_id not in self._lookup

    def is_txn_aborted(self, txn_id: int) -> bool:
        return txn_id in self.aborted

    def to_string(self) -> str:
        """Hive's string form ``HWM:minOpenTxn:open,..:aborted,..`` (conf ``hive.txn.valid.txns``)."""
        min_open = NO_MIN_OPEN if self.min_open_txn is None else self.min_open_txn
        return f"{self.high_watermark}:{min_open}:{_hive_lists(self.exceptions, self.aborted)}"


@dataclass(frozen=True)
class TableWriteIds:
    """One table's valid write ids (Hive's ``ValidReaderWriteIdList``), kept minimal.

    ``table`` is ``"db.table"``; ``exceptions`` are the open and aborted write ids at or below
    ``high_watermark`` (sorted); ``min_open_write_id`` is None when nothing is open.
    """

    table: str
    high_watermark: int
    exceptions: tuple[int, ...] = ()
    aborted: frozenset[int] = field(default_factory=frozenset)
    min_open_write_id: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "exceptions", tuple(sorted(self.exceptions)))
        object.__setattr__(self, "aborted", frozenset(self.aborted))
        object.__setattr__(self, "_lookup", frozenset(self.exceptions))

    def is_write_id_valid(self, write_id: int) -> bool:
        """Hive's ``isWriteIdValid``: ``w <= HWM`` and not an exception."""
        return write_id <= self.high_watermark and write_id not in self._lookup

    def to_string(self) -> str:
        """Hive's string form ``db.table:HWM:minOpen:open,..:aborted,..`` (``hive.txn.valid.writeids``)."""
        min_open = NO_MIN_OPEN if self.min_open_write_id is None else self.min_open_write_id
        lists = _hive_lists(self.exceptions, self.aborted)
        return f"{self.table}:{self.high_watermark}:{min_open}:{lists}"


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
