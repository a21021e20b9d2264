"""One store transaction as the engine sees it: its id, snapshots, write ids, statement ids and writes.

Hive's protocol (format reference section 9.2): open a transaction, take each statement's snapshot,
allocate each written table's write id once, number the statements (legs) that write, record the
components written (one per table partition, with the operation), register new partitions, commit. Any
failure aborts; an aborted write id is an exception in every later snapshot, so its files are never read,
and the directories it wrote are removed once the abort is recorded (never when the outcome is unknown).

A statement outside ``BEGIN ... COMMIT`` runs in a transaction of its own (auto-commit); the statement ids
of a transaction keep counting across its statements, as Hive's ``DbTxnManager.stmtId`` does.

A multi-statement transaction (``pinned``) takes its ValidTxnList at BEGIN: every statement reads committed
data as of BEGIN plus the transaction's own writes. An auto-commit transaction reads at the snapshot its one
statement takes after its locks. Either way that list goes to commit, where the write-set check aborts the
transaction if a writer it did not see updated or deleted the same partition. Each statement first takes
its locks (Hive 3.1 lock types, :func:`lock_components`), held until the transaction ends. A daemon thread
(the connection's, which carries its read leases too) heartbeats the open transaction so the store's
housekeeping does not time it out.
"""

from __future__ import annotations

import contextlib
import getpass
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from hiveacid_sql.acid.listing import filesystem_for, find_directories
from hiveacid_sql.acid.names import (
    MAX_STATEMENTS_PER_TXN,
    base_dir_name,
    delete_delta_dir_name,
    delta_dir_name,
)
from hiveacid_sql.errors import TxnAbortedError, TxnError
from hiveacid_sql.plan.model import Plan
from hiveacid_sql.txn import Snapshot, TableCommit, TableDef, TxnStore, ValidTxnList
from hiveacid_sql.txn.heartbeat import Heartbeater
from hiveacid_sql.txn.history import WriteRecord
from hiveacid_sql.txn.locks import EXCLUSIVE, SHARED_READ, SHARED_WRITE, LockComponent

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
    # (operation, statement text, inserted, updated, deleted) per statement, for the write history
    statements: list[tuple[str, str | None, int, int, int]] = field(default_factory=list)


_LOCK_RANK = {SHARED_READ: 0, SHARED_WRITE: 1, EXCLUSIVE: 2}


def lock_components(plan: Plan, target_partitions: Sequence[str] | None = None) -> list[LockComponent]:
    """Hive 3.1's locks for a statement (``AcidUtils.makeLockComponents``), one per table, the strongest
    where a table is both read and written: reads SHARED_READ; INSERT into an ACID table SHARED_READ;
    UPDATE / DELETE / MERGE SHARED_WRITE; INSERT OVERWRITE (``hive.txn.xlock.iow``) and TRUNCATE EXCLUSIVE.

    ``target_partitions``: the partitions the statement can write, when known before it runs (an UPDATE,
    DELETE or MERGE without INSERT clauses whose predicate prunes the target's partitions): then the target
    takes SHARED_WRITE on each of them and SHARED_READ on the table (which keeps DDL and INSERT OVERWRITE's
    EXCLUSIVE out), so writers of other partitions do not wait. None: the target is locked whole."""
    wanted: dict[tuple[str, str], str] = {}
    partition_locks: list[LockComponent] = []

    def want(table: TableDef, lock_type: str) -> None:
        key = (table.db, table.name)
        if _LOCK_RANK[lock_type] >= _LOCK_RANK.get(wanted.get(key, SHARED_READ), 0):
            wanted[key] = lock_type

    for table in plan.reads.tables:
        want(table, SHARED_READ)
    target = plan.target
    if target is not None and plan.target_lock is not None:
        if target_partitions is not None:
            want(target, SHARED_READ)
            partition_locks = [
                LockComponent(target.db, target.name, p, plan.target_lock) for p in sorted(set(target_partitions))
            ]
        else:
            want(target, plan.target_lock)
    whole = [LockComponent(db, table, None, lock_type) for (db, table), lock_type in sorted(wanted.items())]
    return whole + partition_locks


class Transaction:
    """An open store transaction; :meth:`commit` or :meth:`abort` ends it.

    ``pinned``: a multi-statement transaction, whose statements all read at the ValidTxnList of BEGIN.
    ``heartbeat_s``: heartbeat from a daemon thread of its own this often (None: no heartbeats);
    ``heartbeat``: instead, the connection's heartbeat thread carries it (with the connection's read leases).
    """

    def __init__(
        self,
        store: TxnStore,
        *,
        agent: str = "hiveacid-sql",
        pinned: bool = False,
        heartbeat_s: float | None = None,
        heartbeat: Heartbeater | None = None,
    ) -> None:
        self.store = store
        self.user, self.host, self.agent = getpass.getuser(), socket.gethostname(), agent
        self.txn_id = store.open_txn(self.user, self.host, agent)
        self._next_statement = 0
        self._writes: dict[str, TableWrites] = {}
        self.state = "open"
        self.pinned = pinned
        self.seen: ValidTxnList | None = store.valid_txns(self.txn_id) if pinned else None
        self.lock_ids: list[int] = []
        self._shared_heartbeat = heartbeat is not None
        self.heartbeater = heartbeat or (Heartbeater(store, self.txn_id, heartbeat_s) if heartbeat_s else None)
        if heartbeat is not None:
            heartbeat.add_txn(self.txn_id)

    def snapshot(self, tables: Iterable[TableDef]) -> Snapshot:
        """What a statement of this transaction sees: committed data plus the transaction's own writes
        (as of BEGIN for a multi-statement transaction)."""
        snapshot = self.store.snapshot(sorted({(t.db, t.name) for t in tables}), self.txn_id, self.seen)
        if self.seen is None:
            self.seen = snapshot.txns  # what the write-set check at commit compares against
        return snapshot

    def snapshot_and_write_id(self, tables: Iterable[TableDef], target: TableDef) -> tuple[Snapshot, int]:
        """:meth:`snapshot` and then :meth:`write_id` of ``target``, in one store call (one database
        transaction instead of two: a DML statement's store work once its locks are held)."""
        writes = self._writes.get(target.qualified_name)
        if writes is not None:  # a later statement of the transaction: the write id is known
            return self.snapshot(tables), writes.write_id
        snapshot, write_id = self.store.snapshot_and_write_id(
            sorted({(t.db, t.name) for t in tables}), self.txn_id, self.seen, target.db, target.name
        )
        if self.seen is None:
            self.seen = snapshot.txns
        self._writes[target.qualified_name] = TableWrites(target, write_id)
        return snapshot, write_id

    def lock(self, components: list[LockComponent], *, retries: int, sleep_s: float) -> None:
        """Take a statement's locks (held until the transaction ends); LockError if they stay blocked."""
        if components:
            self.lock_ids.append(
                self.store.locks.acquire(
                    self.txn_id, components, self.user, self.host, retries=retries, sleep_s=sleep_s,
                    agent_info=self.agent,
                )
            )

    def written_write_id(self, table: TableDef) -> int | None:
        """The table's write id if this transaction already wrote it (EXPLAIN shows it)."""
        writes = self._writes.get(table.qualified_name)
        return writes.write_id if writes is not None else None

    @property
    def next_statement_id(self) -> int:
        return self._next_statement

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

    def note_statement(
        self, table: TableDef, operation: str, text: str | None, *, inserted: int = 0, updated: int = 0, deleted: int = 0
    ) -> None:
        """Note a finished statement on ``table`` for the write history written at commit."""
        writes = self._writes.get(table.qualified_name)
        if writes is not None:
            writes.statements.append((operation, text, inserted, updated, deleted))

    def history(self) -> list[WriteRecord]:
        """One history record per table written: its statements' kinds and texts joined, counts summed."""
        out = []
        for writes in self._writes.values():
            stmts = writes.statements
            ops = list(dict.fromkeys(op for op, *_ in stmts)) or ["WRITE"]
            texts = [t for _, t, *_ in stmts if t]
            out.append(
                WriteRecord(
                    writes.table.db,
                    writes.table.name,
                    writes.write_id,
                    "; ".join(ops),
                    ";\n".join(texts) or None,
                    self.user,
                    sum(s[2] for s in stmts),
                    sum(s[3] for s in stmts),
                    sum(s[4] for s in stmts),
                )
            )
        return out

    def expect(self, table: TableDef, statement_ids: Iterable[int], *, overwrite: bool = False) -> None:
        """Before writing: remember which directory names a failure would have to clean up."""
        self.record(table, {}, (), statement_ids, overwrite=overwrite)

    def commit(self) -> None:
        """Register new partitions, record the components, commit."""
        self._check_open()
        commits = [
            TableCommit(
                writes.table.db,
                writes.table.name,
                writes.write_id,
                {part or None: op for part, op in sorted(writes.partitions.items())},
                sorted(writes.partitions) if writes.table.is_partitioned else (),
            )
            for writes in self._writes.values()
        ]
        try:  # new partitions, components and the commit: one store call, one database transaction
            self.store.commit_txn(self.txn_id, self.seen, self.history(), commits)
        except TxnAbortedError:  # a write conflict (or a time-out) aborted it: its files go
            self._stop_heartbeat()
            self.state = "aborted"
            self._remove_all()
            raise
        self._stop_heartbeat()
        self.state = "committed"

    def abort(self) -> None:
        """Abort in the store; then (the abort being recorded) remove every directory this transaction wrote."""
        if self.state != "open":
            return
        self._stop_heartbeat()
        try:
            self.store.abort_txn(self.txn_id)
        except TxnAbortedError:
            pass  # aborted already (timed out, ABORT TRANSACTIONS): the files can go
        except Exception:  # noqa: BLE001 - the outcome is unknown: leave the files, the txn times out
            return
        finally:
            self.state = "aborted"
        self._remove_all()

    def _remove_all(self) -> None:
        for writes in self._writes.values():
            # Best effort: the abort is recorded, so whatever stays is never read. A failure here (the table
            # directory gone, a file where it was, a read-only disk) must not hide the error that caused the abort.
            with contextlib.suppress(OSError):
                _remove_directories(writes)

    def _stop_heartbeat(self) -> None:
        if self.heartbeater is None:
            return
        if self._shared_heartbeat:
            self.heartbeater.drop_txn(self.txn_id)
        else:
            self.heartbeater.stop()

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
