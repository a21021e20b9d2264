"""Every error a user can see derives from :class:`HiveAcidError`.

One base class lets callers catch everything this package raises with one ``except``;
the subclasses say which layer refused the work, and every message is a single line.
"""

from __future__ import annotations


class HiveAcidError(Exception):
    """Base of all hiveacid-sql errors."""


class SqlError(HiveAcidError):
    """SQL text that cannot be parsed; carries the 1-based line and column."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None) -> None:
        self.description = message
        self.line = line
        self.col = col
        where = f"line {line}, col {col}: " if line is not None else ""
        super().__init__(f"{where}{message}")


class UnsupportedStatementError(SqlError):
    """A statement that parses but that hiveacid-sql does not (yet) run."""


class PlanError(HiveAcidError):
    """A statement that parses but is wrong for the catalog: unknown table, column, bad value count."""


class CatalogError(HiveAcidError):
    """Catalog rule violated (table exists, ACID table not ORC, EXTERNAL transactional, ...)."""


class NoSuchTableError(CatalogError):
    """The table does not exist."""


class NoSuchDatabaseError(CatalogError):
    """The database does not exist."""


class TxnError(HiveAcidError):
    """Transaction store refused an operation (unknown txn, txn not open, ...)."""


class TxnAbortedError(TxnError):
    """The transaction was aborted (by a failure, a timeout or a conflict)."""


class CommitOutcomeUnknownError(TxnError):
    """A commit's reply was lost and the store could not be asked afterwards whether it committed: the
    transaction may be committed or still open (SHOW TRANSACTIONS lists it while open; DESCRIBE HISTORY shows
    a committed write). Its files are kept: they are read exactly when it committed."""


class AcidFormatError(HiveAcidError):
    """A file or directory does not follow the Hive ACID layout."""


class NotEnoughHistoryError(AcidFormatError):
    """The snapshot needs write ids that compaction already folded into a base (Hive error 10327)."""


class ExecutionError(HiveAcidError):
    """A Spark job failed while running a statement; the statement's transaction was aborted."""


class WriteConflictError(TxnAbortedError):
    """Commit found another transaction's committed update/delete of the same partition (Hive's WRITE_SET)."""


class LockError(TxnError):
    """A lock could not be granted within ``hive.lock.numretries`` x ``hive.lock.sleep.between.retries``."""


class TxnStateError(TxnError):
    """A statement not allowed in the session's transaction state (nested BEGIN, COMMIT without BEGIN, DDL
    inside a transaction); it changes nothing."""


class CompactionError(HiveAcidError):
    """A compaction request refused (non-ACID table, bad partition, bad type) or a compaction that failed."""


class TimeTravelError(PlanError):
    """``VERSION AS OF`` asks for a version that does not exist or whose files are no longer there."""
