"""One store transaction as the engine sees it: its id, snapshots, write ids, statement ids and writes.

Hive's protocol (format reference section 9.2): open a transaction, take each statement's snapshot,
allocate each written table's write id once, number the statements (legs) that write, record the
components written (one per table partition, with the operation), register new partitions, commit. Any
failure aborts; an aborted write id is an exception in every later snapshot, so its files are never read,
and the directories it wrote are removed once the abort is recorded (never when the outcome is unknown).

A statement outside ``BEGIN ... COMMIT`` runs in a transaction of its own (auto-commit); the statement ids
of a transaction keep counting across its statements, as Hive's ``DbTxnManager.stmtId`` does.
"""

from __future__ import annotations

import contextlib
import getpass
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field

from hiveacid_sql.acid.listing import filesystem_for, find_directories
from hiveacid_sql.acid.names import (
    MAX_STATEMENTS_PER_TXN,
    base_dir_name,
    delete_delta_dir_name,
    delta_dir_name,
)
from hiveacid_sql.errors import TxnError
from hiveacid_sql.txn import Snapshot, TableDef, TxnStore

#: Operation types of TXN_COMPONENTS, strongest last: a partition both updated and inserted into is 'u'.
_OPERATION_RANK = {"i": 0, "d": 1, "u": 2}


@dataclass
class TableWrites:
    """What one transaction wrote into one table: partitions with their operation, and directory names."""

    table: TableDef
    write_id: int
    partitions: dict[str, str] = field(default_factory=dict)  # partition dir ('' = none) -> 'i' | 'u' | 'd'
    directories: set[str] = field(default_factory=set)  # relative to the table
    statement_ids: set[int] = field(default_factory=set)
    overwrite: bool = False


class Transaction:
    """An open store transaction; :meth:`commit` or :meth:`abort` ends it."""

    def __init__(self, store: TxnStore, *, agent: str = "hiveacid-sql") -> None:
        self.store = store
        self.txn_id = store.open_txn(getpass.getuser(), socket.gethostname(), agent)
        self._next_statement = 0
        self._writes: dict[str, TableWrites] = {}
        self.state = "open"

    def snapshot(self, tables: Iterable[TableDef]) -> Snapshot:
        """What a statement of this transaction sees: committed data plus the transaction's own writes."""
        return self.store.snapshot(sorted({(t.db, t.name) for t in tables}), self.txn_id)

    def write_id(self, table: TableDef) -> int:
        """The table's write id in this transaction (allocated on first use, as Hive does)."""
        writes = self._writes.get(table.qualified_name)
        if writes is None:
            write_id = self.store.allocate_write_id(self.txn_id, table.db, table.name)
            writes = self._writes[table.qualified_name] = TableWrites(table, write_id)
        return writes.write_id

    def statement_ids(self, count: int) -> list[int]:
        """``count`` new statement ids (one per writing leg), continuing the transaction's sequence."""
        first = self._next_statement
        if first + count > MAX_STATEMENTS_PER_TXN:
            raise TxnError(f"Too many statements in transaction txnid:{self.txn_id} (max {MAX_STATEMENTS_PER_TXN})")
        self._next_statement += count
        return list(range(first, first + count))

    def record(
        self,
        table: TableDef,
        partitions: dict[str, str],
        directories: Iterable[str],
        statement_ids: Iterable[int],
        *,
        overwrite: bool = False,
    ) -> None:
        """Note what a statement wrote (``partitions``: partition dir -> operation) for commit and cleanup."""
        writes = self._writes[table.qualified_name]
        for part, op in partitions.items():
            known = writes.partitions.get(part)
            if known is None or _OPERATION_RANK[op] > _OPERATION_RANK[known]:
                writes.partitions[part] = op
        writes.directories.update(directories)
        writes.statement_ids.update(statement_ids)
        writes.overwrite = writes.overwrite or overwrite

    def expect(self, table: TableDef, statement_ids: Iterable[int], *, overwrite: bool = False) -> None:
        """Before writing: remember which directory names a failure would have to clean up."""
        self.record(table, {}, (), statement_ids, overwrite=overwrite)

    def commit(self) -> None:
        """Register new partitions, record the components, commit."""
        self._check_open()
        catalog = self.store.catalog
        for writes in self._writes.values():
            table = writes.table
            parts = {p: op for p, op in writes.partitions.items()}
            if table.is_partitioned and parts:
                catalog.add_partitions(table.db, table.name, sorted(parts), write_id=writes.write_id)
            by_op: dict[str, list[str | None]] = {}
            for part, op in sorted(parts.items()):
                by_op.setdefault(op, []).append(part or None)
            for op, names in by_op.items():
                self.store.add_components(self.txn_id, table.db, table.name, writes.write_id, op, names)
        self.store.commit_txn(self.txn_id)
        self.state = "committed"

    def abort(self) -> None:
        """Abort in the store; then (the abort being recorded) remove every directory this transaction wrote."""
        if self.state != "open":
            return
        try:
            self.store.abort_txn(self.txn_id)
        except Exception:  # noqa: BLE001 - the outcome is unknown: leave the files, the txn times out
            return
        finally:
            self.state = "aborted"
        for writes in self._writes.values():
            # Best effort: the abort is recorded, so whatever stays is never read. A failure here (the table
            # directory gone, a file where it was, a read-only disk) must not hide the error that caused the abort.
            with contextlib.suppress(OSError):
                _remove_directories(writes)

    def _check_open(self) -> None:
        if self.state != "open":
            raise TxnError(f"Transaction txnid:{self.txn_id} is {self.state}")


def _remove_directories(writes: TableWrites) -> None:
    """Delete the directories of an aborted write: the ones we know, and any the failed tasks created in
    partitions we never heard back from (found by their names, which only this write id can have)."""
    w = writes.write_id
    names = {delta_dir_name(w, w, s) for s in writes.statement_ids}
    names |= {delete_delta_dir_name(w, w, s) for s in writes.statement_ids}
    if writes.overwrite:
        names.add(base_dir_name(w))
    fs, root = filesystem_for(writes.table.location)
    depth = len(writes.table.partition_keys)
    found = set(writes.directories) | set(find_directories(fs, root, depth, names))
    for rel in found:
        with contextlib.suppress(FileNotFoundError, OSError):
            fs.delete_dir(f"{root.rstrip('/')}/{rel}")
