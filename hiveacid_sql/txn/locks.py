# ruff: noqa: SIM300 - upper-case Hive column attributes (HIVE_LOCKS.c.HL_DB) look like constants to ruff
"""The lock manager: Hive 3.1's HIVE_LOCKS semantics (``TxnHandler.lock`` / ``checkLock``).

A lock request is one external lock id with one row per component (internal id 1, 2, ...), all
entered WAITING and then checked together: either every component is granted (ACQUIRED) or the
request waits, with ``HL_BLOCKEDBY_*`` naming the first lock in its way. Checking follows Hive's
jump table over the locks in front of the request: the same database, and the same table and
partition where both name one (a database lock covers its tables, a table lock its partitions),
sorted acquired first, then SHARED_READ < SHARED_WRITE < EXCLUSIVE, then by id. Only locks entered
before the request can be in front of it; as in Hive 3.1, a waiting lock is passed by later requests
of a weaker type (readers can pass a waiting EXCLUSIVE), never of its own or a stronger one. Locks of
the same transaction never block each other. Checks are serialised as Hive serialises them, by a row
lock on Hive's ``CheckLock`` mutex in ``AUX_TABLE``.

Transaction locks are released by commit/abort (:class:`~hiveacid_sql.txn.store.TxnStore`); locks
of no transaction (txn id 0, DDL) by :meth:`LockManager.unlock`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from hiveacid_sql.errors import LockError, TxnAbortedError, TxnError
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.db import Db, RetryTxn

SHARED_READ, SHARED_WRITE, EXCLUSIVE = "r", "w", "e"
ACQUIRED, WAITING = "a", "w"
LOCK_TYPE_NAMES = {SHARED_READ: "SHARED_READ", SHARED_WRITE: "SHARED_WRITE", EXCLUSIVE: "EXCLUSIVE"}
LOCK_STATE_NAMES = {ACQUIRED: "ACQUIRED", WAITING: "WAITING"}
_TYPE_RANK = {SHARED_READ: 0, SHARED_WRITE: 1, EXCLUSIVE: 2}

_ACQUIRE, _WAIT, _KEEP_LOOKING = "acquire", "wait", "keep_looking"
#: Hive 3.1 ``buildJumpTable``: (requested type, existing type, existing state) -> action.
_JUMP: dict[tuple[str, str, str], str] = {}
for _state in (ACQUIRED, WAITING):
    _JUMP[SHARED_READ, SHARED_READ, _state] = _ACQUIRE if _state == ACQUIRED else _KEEP_LOOKING
    _JUMP[SHARED_READ, SHARED_WRITE, _state] = _ACQUIRE if _state == ACQUIRED else _KEEP_LOOKING
    _JUMP[SHARED_READ, EXCLUSIVE, _state] = _WAIT
    _JUMP[SHARED_WRITE, SHARED_READ, _state] = _KEEP_LOOKING
    _JUMP[SHARED_WRITE, SHARED_WRITE, _state] = _WAIT
    _JUMP[SHARED_WRITE, EXCLUSIVE, _state] = _WAIT
    for _existing in (SHARED_READ, SHARED_WRITE, EXCLUSIVE):
        _JUMP[EXCLUSIVE, _existing, _state] = _WAIT


@dataclass(frozen=True)
class LockComponent:
    """One thing to lock: a database (``table`` None), a table (``partition`` None) or a partition."""

    db: str
    table: str | None
    partition: str | None
    lock_type: str  # SHARED_READ / SHARED_WRITE / EXCLUSIVE

    def describe(self) -> str:
        what = ".".join(p for p in (self.db, self.table) if p)
        if self.partition:
            what += f"/{self.partition}"
        return f"{LOCK_TYPE_NAMES[self.lock_type]} on {what}"


@dataclass(frozen=True)
class LockResponse:
    """The outcome of a lock request or check: ACQUIRED, or WAITING behind ``blocker``."""

    lock_id: int
    state: str  # ACQUIRED / WAITING
    blocker: dict[str, Any] | None = None  # the HIVE_LOCKS row in the way, when WAITING

    @property
    def acquired(self) -> bool:
        return self.state == ACQUIRED


@dataclass(frozen=True)
class _Info:
    ext: int
    int_id: int
    txn: int
    db: str
    table: str | None
    partition: str | None
    state: str
    type: str

    def sort_key(self) -> tuple[int, int, int, int]:
        return (0 if self.state == ACQUIRED else 1, _TYPE_RANK[self.type], self.ext, self.int_id)

    def overlaps(self, other: _Info) -> bool:
        if self.db != other.db:
            return False
        if self.table is not None and other.table is not None and self.table != other.table:
            return False
        return self.partition is None or other.partition is None or self.partition == other.partition

    def is_db_lock(self) -> bool:
        return self.table is None

    def is_table_lock(self) -> bool:
        return self.table is not None and self.partition is None


def _ignore_conflict(wanted: _Info, existing: _Info) -> bool:
    """Hive's ``ignoreConflict``: a transaction's own locks, and a db-level SHARED_READ against a table
    EXCLUSIVE (creating a table in a database read by someone else), never block."""
    if wanted.txn != 0 and wanted.txn == existing.txn:
        return True
    if wanted.txn == 0 and wanted.ext == existing.ext:
        return True
    return (wanted.is_db_lock() and wanted.type == SHARED_READ and existing.is_table_lock()
            and existing.type == EXCLUSIVE) or (
        existing.is_db_lock() and existing.type == SHARED_READ and wanted.is_table_lock()
        and wanted.type == EXCLUSIVE)


def _decide(mine: list[_Info], others: list[_Info]) -> _Info | None:
    """None if every component of the request can be granted, else the lock the first one waits for."""
    ordered = sorted([*mine, *others], key=_Info.sort_key)
    for info in sorted(mine, key=_Info.sort_key):
        if info.state == ACQUIRED:
            continue
        index = ordered.index(info)
        for other in reversed(ordered[:index]):
            if other.ext == info.ext or not info.overlaps(other):
                continue
            action = _JUMP[info.type, other.type, other.state]
            if action == _WAIT and not _ignore_conflict(info, other):
                return other
            if action == _ACQUIRE:
                break
    return None


def _lock_text(info: _Info | dict[str, Any]) -> str:
    if isinstance(info, dict):
        info = _info(info)
    what = ".".join(p for p in (info.db, info.table) if p) + (f"/{info.partition}" if info.partition else "")
    owner = f"txnid:{info.txn}" if info.txn else "no transaction"
    return (f"lockid:{info.ext}.{info.int_id} ({LOCK_TYPE_NAMES[info.type]} on {what}, "
            f"{LOCK_STATE_NAMES[info.state]}, {owner})")


def _info(row: Any) -> _Info:
    return _Info(
        ext=int(row["HL_LOCK_EXT_ID"]), int_id=int(row["HL_LOCK_INT_ID"]), txn=int(row["HL_TXNID"]),
        db=row["HL_DB"], table=row["HL_TABLE"], partition=row["HL_PARTITION"],
        state=row["HL_LOCK_STATE"], type=row["HL_LOCK_TYPE"],
    )


def _now_ms() -> int:
    return int(time.time() * 1000)


class LockManager:
    """HIVE_LOCKS on the store's database; every method is one short database transaction."""

    def __init__(self, db: Db) -> None:
        self._db = db

    def lock(
        self,
        txn_id: int,
        components: Sequence[LockComponent],
        user: str,
        host: str,
        agent_info: str = "hiveacid-sql",
    ) -> LockResponse:
        """Enter a lock request (all components WAITING) and check it at once."""
        if not components:
            raise TxnError("A lock request needs at least one component")

        def run(conn: Connection) -> LockResponse:
            if txn_id:
                _require_open(conn, txn_id)
            nl = s.NEXT_LOCK_ID.c.NL_NEXT
            ext = int(conn.execute(sa.select(nl).with_for_update()).scalar_one())
            conn.execute(sa.update(s.NEXT_LOCK_ID).values(NL_NEXT=ext + 1))
            now = _now_ms()
            conn.execute(sa.insert(s.HIVE_LOCKS), [
                {
                    "HL_LOCK_EXT_ID": ext, "HL_LOCK_INT_ID": i, "HL_TXNID": txn_id,
                    "HL_DB": c.db.lower(), "HL_TABLE": c.table.lower() if c.table else None,
                    "HL_PARTITION": c.partition, "HL_LOCK_STATE": WAITING, "HL_LOCK_TYPE": c.lock_type,
                    # Hive: a transaction's locks live by the transaction's heartbeat (0 here)
                    "HL_LAST_HEARTBEAT": 0 if txn_id else now, "HL_USER": user[:128], "HL_HOST": host[:128],
                    "HL_HEARTBEAT_COUNT": 0, "HL_AGENT_INFO": agent_info[:128],
                }
                for i, c in enumerate(components, start=1)
            ])
            return _check(conn, ext)

        return self._db.run_write(run)

    def check_lock(self, lock_id: int) -> LockResponse:
        """Check a waiting request again (Hive's ``checkLock``)."""
        return self._db.run_write(lambda conn: _check(conn, lock_id))

    def acquire(
        self,
        txn_id: int,
        components: Sequence[LockComponent],
        user: str,
        host: str,
        *,
        retries: int,
        sleep_s: float,
        agent_info: str = "hiveacid-sql",
    ) -> int:
        """Lock, polling ``retries`` times ``sleep_s`` apart while the request waits; the lock id.

        A request still waiting after that is withdrawn and :class:`LockError` names the blocker.
        """
        response = self.lock(txn_id, components, user, host, agent_info)
        for _ in range(max(retries, 0)):
            if response.acquired:
                break
            time.sleep(sleep_s)
            response = self.check_lock(response.lock_id)
        if response.acquired:
            return response.lock_id
        self.unlock(response.lock_id)
        wanted = "; ".join(c.describe() for c in components)
        blocker = _lock_text(response.blocker) if response.blocker else "another lock"
        raise LockError(
            f"Lock acquisition failed: lockid:{response.lock_id} ({wanted}) for "
            f"{f'txnid:{txn_id}' if txn_id else 'no transaction'} is blocked by {blocker} "
            f"after {max(retries, 0)} retries {sleep_s:g}s apart (hive.lock.numretries, "
            "hive.lock.sleep.between.retries)"
        )

    def unlock(self, lock_id: int) -> None:
        """Release a lock request (all its components)."""
        self._db.run_write(
            lambda conn: conn.execute(sa.delete(s.HIVE_LOCKS).where(s.HIVE_LOCKS.c.HL_LOCK_EXT_ID == lock_id))
        )

    def show_locks(
        self, db: str | None = None, table: str | None = None, partition: str | None = None
    ) -> list[dict[str, Any]]:
        """Locks, optionally of one database / table / partition, in lock id order (SHOW LOCKS)."""
        hl = s.HIVE_LOCKS.c
        query = sa.select(s.HIVE_LOCKS).order_by(hl.HL_LOCK_EXT_ID, hl.HL_LOCK_INT_ID)
        if db is not None:
            query = query.where(hl.HL_DB == db.lower())
        if table is not None:
            query = query.where(hl.HL_TABLE == table.lower())
        if partition is not None:
            query = query.where(hl.HL_PARTITION == partition)
        with self._db.read() as conn:
            rows = conn.execute(query).mappings().all()
        return [
            {
                "lock_id": r["HL_LOCK_EXT_ID"], "lock_int_id": r["HL_LOCK_INT_ID"], "db": r["HL_DB"],
                "table": r["HL_TABLE"], "partition": r["HL_PARTITION"],
                "state": LOCK_STATE_NAMES[r["HL_LOCK_STATE"]], "type": LOCK_TYPE_NAMES[r["HL_LOCK_TYPE"]],
                "txn_id": r["HL_TXNID"], "last_heartbeat": r["HL_LAST_HEARTBEAT"],
                "acquired_at": r["HL_ACQUIRED_AT"], "user": r["HL_USER"], "host": r["HL_HOST"],
                "agent_info": r["HL_AGENT_INFO"],
                "blocked_by": (f"{r['HL_BLOCKEDBY_EXT_ID']}.{r['HL_BLOCKEDBY_INT_ID']}"
                               if r["HL_BLOCKEDBY_EXT_ID"] is not None else None),
            }
            for r in rows
        ]


def _require_open(conn: Connection, txn_id: int) -> None:
    state = conn.execute(sa.select(s.TXNS.c.TXN_STATE).where(s.TXNS.c.TXN_ID == txn_id)).scalar()
    if state != "o":
        if state == "a":
            raise TxnAbortedError(f"Transaction txnid:{txn_id} already aborted")
        raise TxnError(f"Transaction txnid:{txn_id} is not open")


def mutex(conn: Connection, key: str) -> None:
    """Hold Hive's mutex ``key`` (an ``AUX_TABLE`` row, locked ``FOR UPDATE`` as Hive's ``MutexAPI`` does) until
    this transaction ends; the row is created the first time, as Hive creates it."""
    aux = s.AUX_TABLE.c
    query = sa.select(aux.MT_KEY1).where(aux.MT_KEY1 == key, aux.MT_KEY2 == 0).with_for_update()
    if conn.execute(query).first() is None:
        try:
            conn.execute(sa.insert(s.AUX_TABLE).values(MT_KEY1=key, MT_KEY2=0, MT_COMMENT=""))
        except sa.exc.IntegrityError as exc:  # another process created it first: lock it on the next try
            raise RetryTxn(f"AUX_TABLE row {key} created concurrently") from exc


def _check(conn: Connection, lock_id: int) -> LockResponse:
    hl = s.HIVE_LOCKS.c
    # Hive's CheckLock mutex: one checker at a time, so two requests never both see the other waiting.
    mutex(conn, "CheckLock")
    mine = [_info(r) for r in conn.execute(
        sa.select(s.HIVE_LOCKS).where(hl.HL_LOCK_EXT_ID == lock_id)).mappings()]
    if not mine:
        raise TxnError(f"No such lock lockid:{lock_id}")
    dbs = sorted({i.db for i in mine})
    others = [_info(r) for r in conn.execute(
        sa.select(s.HIVE_LOCKS).where(hl.HL_DB.in_(dbs), hl.HL_LOCK_EXT_ID < lock_id)).mappings()]
    blocker = _decide(mine, others)
    if blocker is None:
        conn.execute(
            sa.update(s.HIVE_LOCKS)
            .where(hl.HL_LOCK_EXT_ID == lock_id, hl.HL_LOCK_STATE == WAITING)
            .values(HL_LOCK_STATE=ACQUIRED, HL_ACQUIRED_AT=_now_ms(),
                    HL_BLOCKEDBY_EXT_ID=None, HL_BLOCKEDBY_INT_ID=None)
        )
        return LockResponse(lock_id, ACQUIRED)
    conn.execute(
        sa.update(s.HIVE_LOCKS)
        .where(hl.HL_LOCK_EXT_ID == lock_id)
        .values(HL_BLOCKEDBY_EXT_ID=blocker.ext, HL_BLOCKEDBY_INT_ID=blocker.int_id)
    )
    row = {
        "HL_LOCK_EXT_ID": blocker.ext, "HL_LOCK_INT_ID": blocker.int_id, "HL_TXNID": blocker.txn,
        "HL_DB": blocker.db, "HL_TABLE": blocker.table, "HL_PARTITION": blocker.partition,
        "HL_LOCK_STATE": blocker.state, "HL_LOCK_TYPE": blocker.type,
    }
    return LockResponse(lock_id, WAITING, row)
