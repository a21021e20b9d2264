# ruff: noqa: SIM300 - upper-case Hive column attributes (TBLS.c.DB_ID) look like constants to ruff
"""The transaction store: Hive 3.1 metastore transaction semantics on SQLAlchemy Core.

Every method is one short database transaction. Ids come from counter rows read and bumped
under a row lock (``SELECT ... FOR UPDATE``; on SQLite the ``BEGIN IMMEDIATE`` write lock), so
several processes can share one store. State changes are compare-and-swaps on ``TXN_STATE``
whose row count decides who won. As in Hive 3.1, a committed transaction's ``TXNS`` row is
deleted and an aborted one's stays, so aborted ids remain exceptions for every reader.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from hiveacid_sql.errors import CommitOutcomeUnknownError, TxnAbortedError, TxnError, WriteConflictError
from hiveacid_sql.txn import housekeeping
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.bootstrap import DEFAULT_DB_LOCATION, ensure_schema
from hiveacid_sql.txn.catalog import Catalog, mark_stats_stale, register_partitions, set_txn_key_value
from hiveacid_sql.txn.db import Db, RetryTxn, StoreError, make_engine, next_counter, peek_counter, store_error
from hiveacid_sql.txn.history import HistoryEntry, WriteRecord, adopted_records, insert_records, read_history
from hiveacid_sql.txn.locks import LockManager
from hiveacid_sql.txn.snapshot import Snapshot, TableWriteIds, ValidTxnList

TxnState = Literal["open", "aborted", "committed"]


@dataclass(frozen=True)
class TableCommit:
    """What a transaction wrote to one table, handed to :meth:`TxnStore.commit_txn`.

    ``partitions``: partition name (None for an unpartitioned table) -> operation ('i', 'u', 'd'), the
    TXN_COMPONENTS rows; ``new_partitions``: partition names to register in the catalog (those that do not
    exist yet are added, created by ``write_id``).
    """

    db: str
    table: str
    write_id: int
    partitions: Mapping[str | None, str]
    new_partitions: Sequence[str] = ()


@dataclass(frozen=True)
class TxnKeyValue:
    """A key/value a commit stores in its table's ``TABLE_PARAMS`` atomically with the commit (Hive 3's
    ``CommitTxnRequest.keyValue``): a streaming source keeps its offsets this way. The key starts with
    ``_meta``."""

    db: str
    table: str
    key: str
    value: str


OPEN, ABORTED = "o", "a"
WRITE_OPERATIONS = frozenset({"i", "u", "d"})
_STATE_NAMES: dict[str, TxnState] = {OPEN: "open", ABORTED: "aborted"}


def _now_ms() -> int:
    return int(time.time() * 1000)


def _txn(txn_id: int) -> str:
    """Hive's ``JavaUtils.txnIdToString``."""
    return f"txnid:{txn_id}"


def _key(db: str, table: str) -> tuple[str, str]:
    return db.strip().lower(), table.strip().lower()


class TxnStore:
    """Transactions, write ids and snapshots; the catalog is :attr:`catalog`.

    Creates the tables on first use. ``default_db_location`` is only used when this call
    creates the store (it becomes the location of database ``default``).
    """

    def __init__(self, url: str, *, echo: bool = False, default_db_location: str | None = None) -> None:
        self.url = url
        self._db = Db(make_engine(url, echo=echo))
        try:
            ensure_schema(self._db, default_db_location=default_db_location or DEFAULT_DB_LOCATION, url=url)
        except sa.exc.DBAPIError as exc:
            self._db.dispose()
            raise store_error(exc, url) from exc
        except BaseException:
            self._db.dispose()
            raise
        self.catalog = Catalog(self._db)
        self.locks = LockManager(self._db)

    @classmethod
    def sqlite(cls, path: str | Path, **kwargs: Any) -> TxnStore:
        """A store in a SQLite file (created with its parent directory if missing)."""
        path = Path(path).expanduser().resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(f"sqlite:///{path}", **kwargs)

    @property
    def engine(self) -> sa.Engine:
        return self._db.engine

    def close(self) -> None:
        self._db.dispose()

    def __enter__(self) -> TxnStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"TxnStore({self._db.engine.url!r})"

    # ------------------------------------------------------------------ transactions
    def open_txn(self, user: str, host: str, agent_info: str = "hiveacid-sql", *, compaction: bool = False) -> int:
        """Open a transaction (TXNS row in state 'o') and return its id. ``compaction``: a compactor's own
        transaction (Hive 4's ``TxnType.COMPACTION``), whose ``_v<txn>`` outputs it makes visible; once
        aborted, housekeeping keeps it (a purged id would count as committed and a leftover output with it)."""

        def run(conn: Connection) -> int:
            txn_id = next_counter(conn, s.NEXT_TXN_ID.c.NTXN_NEXT)
            now = _now_ms()
            conn.execute(
                _Q.insert_txn,
                {
                    "TXN_ID": txn_id, "TXN_STATE": OPEN, "TXN_STARTED": now, "TXN_LAST_HEARTBEAT": now,
                    "TXN_USER": user[:128], "TXN_HOST": host[:128], "TXN_AGENT_INFO": agent_info[:128],
                    "TXN_HEARTBEAT_COUNT": 0, "TXN_TYPE": housekeeping.TXN_TYPE_COMPACTION if compaction else 0,
                },
            )
            conn.execute(_Q.insert_min_history, {"txn_id": txn_id})
            return txn_id

        return self._db.run_write(run)

    def open_txn_batch(
        self, count: int, db: str, table: str, user: str, host: str, agent_info: str = "hiveacid-sql"
    ) -> list[tuple[int, int]]:
        """Open ``count`` transactions and allocate each a write id of ``db.table``, in one database
        transaction: ``[(txn_id, write_id), ...]`` with consecutive write ids (Hive streaming's
        ``openTxns`` + ``allocateTableWriteIds`` for a transaction batch). Consecutive matters: the batch
        writes one ``delta_<first>_<last>`` directory, and a write id of another writer inside that range
        would have its own delta hidden as covered by the wider one."""
        if count < 1:
            raise TxnError(f"A transaction batch needs at least one transaction, not {count}")
        db, table = _key(db, table)

        def run(conn: Connection) -> list[tuple[int, int]]:
            out = []
            now = _now_ms()
            for _ in range(count):
                txn_id = next_counter(conn, s.NEXT_TXN_ID.c.NTXN_NEXT)
                conn.execute(
                    _Q.insert_txn,
                    {
                        "TXN_ID": txn_id, "TXN_STATE": OPEN, "TXN_STARTED": now, "TXN_LAST_HEARTBEAT": now,
                        "TXN_USER": user[:128], "TXN_HOST": host[:128], "TXN_AGENT_INFO": agent_info[:128],
                        "TXN_HEARTBEAT_COUNT": 0, "TXN_TYPE": 0,
                    },
                )
                conn.execute(_Q.insert_min_history, {"txn_id": txn_id})
                write_id = _next_write_id(conn, db, table)
                conn.execute(
                    _Q.insert_t2w,
                    {"T2W_TXNID": txn_id, "T2W_DATABASE": db, "T2W_TABLE": table, "T2W_WRITEID": write_id},
                )
                out.append((txn_id, write_id))
            return out

        return self._db.run_write(run)

    def txn_key_value(self, db: str, table: str, key: str) -> str | None:
        """The value last committed for ``key`` with a :class:`TxnKeyValue` (None if never)."""
        db, table = _key(db, table)
        return self.catalog.get_table(db, table).params.get(key)

    def allocate_write_id(self, txn_id: int, db: str, table: str) -> int:
        """The write id of ``txn_id`` for ``db.table``: allocated once, the same id on every later call."""
        db, table = _key(db, table)
        return self._db.run_write(lambda conn: _allocate_write_id(conn, txn_id, db, table))

    def add_components(
        self,
        txn_id: int,
        db: str,
        table: str,
        write_id: int,
        operation: str,
        partitions: Sequence[str | None] = (None,),
    ) -> None:
        """Record what the txn writes (TXN_COMPONENTS); ``None`` partition = un-partitioned table."""
        if operation not in WRITE_OPERATIONS:
            raise TxnError(f"Operation type must be one of 'i', 'u', 'd', not {operation!r}")
        parts = list(partitions)

        def run(conn: Connection) -> None:
            _lock_open(conn, txn_id)
            _insert_components(conn, txn_id, db, table, write_id, {p: operation for p in parts})

        self._db.run_write(run)

    def commit_txn(
        self,
        txn_id: int,
        seen: ValidTxnList | None = None,
        history: Sequence[WriteRecord] = (),
        writes: Sequence[TableCommit] = (),
        key_value: TxnKeyValue | None = None,
    ) -> None:
        """Commit: components move to COMPLETED_TXN_COMPONENTS and the TXNS row is deleted.

        ``writes``: what the transaction wrote, per table: its new partitions are registered in the catalog
        and its components recorded in the same database transaction as the commit (one store call, so a
        statement's partitions, components and commit land together or not at all).

        ``history``: what the transaction did per table (HIVEACID_WRITE_HISTORY), written in the same
        database transaction, so the history holds exactly the committed write ids.

        A transaction that updated or deleted is first checked against WRITE_SET (Hive 3.1
        ``commitTxn``): if a transaction that committed after this one started updated or deleted
        the same partition (U/U, U/D, D/U; D/D and inserts never conflict), this one is aborted
        instead and :class:`WriteConflictError` says who won. Otherwise its u/d components join
        WRITE_SET with the commit id ``NEXT_TXN_ID - 1``.

        ``seen``: the ValidTxnList the transaction read at (when it took its one snapshot after its
        locks, or pinned it at BEGIN). Then only writers *not committed in it* conflict, so a statement
        that waited for a writer's lock and then read that writer's commit is not aborted for it.
        Without it, Hive's rule: every writer that committed after this transaction opened.

        ``key_value``: stored in its table's parameters in the same database transaction (Hive 3's
        ``commitTxn`` with a key/value), so it changes exactly when the commit happens.
        """

        def run(conn: Connection) -> str | None:
            # The TXNS row locked and the components recorded so far, in one statement
            tc = s.TXN_COMPONENTS.c
            rows = conn.execute(_Q.lock_with_components, {"txn_id": txn_id}).mappings().all()
            if not rows or rows[0]["TXN_STATE"] != OPEN:
                raise _state_error(conn, txn_id)
            comps: Sequence[Any] = [r for r in rows if r["TC_TXNID"] is not None]
            if writes:
                for w in writes:
                    if w.new_partitions:
                        register_partitions(conn, w.db, w.table, w.new_partitions, True, w.write_id)
                    _insert_components(conn, txn_id, w.db, w.table, w.write_id, w.partitions)
                comps = conn.execute(sa.select(s.TXN_COMPONENTS).where(tc.TC_TXNID == txn_id)).mappings().all()
            conflict = _record_write_set(conn, txn_id, comps, seen)
            if conflict is not None:  # abort instead (and keep the abort: this transaction commits)
                conn.execute(
                    sa.update(s.TXNS).where(s.TXNS.c.TXN_ID == txn_id).values(TXN_STATE=ABORTED, TXN_LAST_HEARTBEAT=_now_ms())
                )
                conn.execute(sa.delete(s.HIVE_LOCKS).where(s.HIVE_LOCKS.c.HL_TXNID == txn_id))
                conn.execute(sa.delete(s.MIN_HISTORY_LEVEL).where(s.MIN_HISTORY_LEVEL.c.MHL_TXNID == txn_id))
                return conflict
            insert_records(conn, txn_id, history, _now_ms())
            if key_value is not None:
                set_txn_key_value(conn, key_value.db, key_value.table, key_value.key, key_value.value)
            written: dict[tuple[str, str], list[str | None]] = {}
            for c in comps:
                written.setdefault((c["TC_DATABASE"], c["TC_TABLE"]), []).append(c["TC_PARTITION"])
            for (db, table), parts in written.items():
                mark_stats_stale(conn, db, table, parts)
            if comps:
                update_delete = "Y" if any(c["TC_OPERATION_TYPE"] in ("u", "d") for c in comps) else "N"
                now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)
                conn.execute(
                    sa.insert(s.COMPLETED_TXN_COMPONENTS),
                    [
                        {
                            "CTC_TXNID": txn_id,
                            "CTC_DATABASE": c["TC_DATABASE"],
                            "CTC_TABLE": c["TC_TABLE"],
                            "CTC_PARTITION": c["TC_PARTITION"],
                            "CTC_TIMESTAMP": now,
                            "CTC_WRITEID": c["TC_WRITEID"],
                            "CTC_UPDATE_DELETE": update_delete,
                        }
                        for c in comps
                    ],
                )
                conn.execute(sa.delete(s.TXN_COMPONENTS).where(tc.TC_TXNID == txn_id))
            conn.execute(_Q.delete_locks, {"txn_id": txn_id})
            conn.execute(_Q.delete_min_history, {"txn_id": txn_id})
            done = conn.execute(_Q.delete_open_txn, {"txn_id": txn_id})
            if done.rowcount != 1:  # the compare-and-swap lost; the row lock makes this a bug
                raise _state_error(conn, txn_id)
            return None

        try:
            conflict = self._db.run_write(run)
        except StoreError as exc:
            if not exc.at_commit:
                raise  # failed before COMMIT was sent: the server rolled it back, the transaction is still open
            self._settle_lost_commit(txn_id, exc, proof_expected=bool(writes or history))
            return
        if conflict is not None:
            raise WriteConflictError(conflict)

    def _settle_lost_commit(self, txn_id: int, error: TxnError, *, proof_expected: bool) -> None:
        """The database's COMMIT failed: the connection dropped, the server went away or did not answer after
        it was sent. The transaction may have committed although the client never got the reply, so ask
        again, on a new connection, as Hive's client retries its
        idempotent ``commitTxn`` (``TxnHandler.commitTxn``: "Nth commitTxn", a no-op once committed):

        * still open: nothing of the commit landed (one database transaction) -> the original error;
        * aborted (timed out, or the write-set check aborted it) -> :class:`TxnAbortedError`;
        * no TXNS row and its commit's marks are there (COMPLETED_TXN_COMPONENTS, the write history, as
          Hive's ``findTxnState``), or it had nothing to mark -> committed: return, the statement succeeded;
        * the marks it should have are missing, or the store cannot be asked -> :class:`CommitOutcomeUnknownError`.

        Retrying a commit that is still open is left to the user (the statement failed and wrote nothing
        visible): a store that just dropped a connection is not one to hide a failure from.
        """
        try:
            with self._db.read() as conn:
                state = conn.execute(sa.select(s.TXNS.c.TXN_STATE).where(s.TXNS.c.TXN_ID == txn_id)).scalar()
                marked = state is None and (
                    conn.execute(
                        sa.select(s.COMPLETED_TXN_COMPONENTS.c.CTC_TXNID)
                        .where(s.COMPLETED_TXN_COMPONENTS.c.CTC_TXNID == txn_id).limit(1)
                    ).first() is not None
                    or conn.execute(
                        sa.select(s.HIVEACID_WRITE_HISTORY.c.WH_TXNID)
                        .where(s.HIVEACID_WRITE_HISTORY.c.WH_TXNID == txn_id).limit(1)
                    ).first() is not None
                )
        except TxnError as again:
            raise CommitOutcomeUnknownError(
                f"{error}; whether {_txn(txn_id)} committed is unknown (the store did not answer after the "
                f"commit: {str(again).split(': ', 1)[-1]}); SHOW TRANSACTIONS lists it while it is open"
            ) from error
        if state == OPEN:
            raise error
        if state == ABORTED:
            raise TxnAbortedError(f"Transaction {_txn(txn_id)} already aborted") from error
        if state is not None or (proof_expected and not marked):
            raise CommitOutcomeUnknownError(
                f"{error}; whether {_txn(txn_id)} committed is unknown (no TXNS row and no record of its commit)"
            ) from error
        # committed: the reply was lost, the commit was not

    def abort_txn(self, txn_id: int) -> None:
        """Abort: 'o' -> 'a'. The TXNS row and TXN_COMPONENTS stay (readers and the cleaner need them) until
        housekeeping finds nothing of the transaction left on disk. TXN_LAST_HEARTBEAT becomes the abort time:
        housekeeping waits a time-out after it (a writer aborted behind its back may still be finishing)."""

        def run(conn: Connection) -> None:
            done = conn.execute(
                sa.update(s.TXNS)
                .where(s.TXNS.c.TXN_ID == txn_id, s.TXNS.c.TXN_STATE == OPEN)
                .values(TXN_STATE=ABORTED, TXN_LAST_HEARTBEAT=_now_ms())
            )
            if done.rowcount != 1:
                raise _state_error(conn, txn_id)
            conn.execute(sa.delete(s.HIVE_LOCKS).where(s.HIVE_LOCKS.c.HL_TXNID == txn_id))
            conn.execute(sa.delete(s.MIN_HISTORY_LEVEL).where(s.MIN_HISTORY_LEVEL.c.MHL_TXNID == txn_id))

        self._db.run_write(run)

    def heartbeat(self, txn_id: int) -> None:
        """Keep an open txn alive; TxnAbortedError tells the writer it was aborted meanwhile."""

        def run(conn: Connection) -> None:
            txns = s.TXNS.c
            done = conn.execute(
                sa.update(s.TXNS)
                .where(txns.TXN_ID == txn_id, txns.TXN_STATE == OPEN)
                .values(
                    TXN_LAST_HEARTBEAT=_now_ms(),
                    TXN_HEARTBEAT_COUNT=sa.func.coalesce(txns.TXN_HEARTBEAT_COUNT, 0) + 1,
                )
            )
            if done.rowcount != 1:
                raise _state_error(conn, txn_id)

        self._db.run_write(run)

    def heartbeat_holder(
        self, txn_ids: Iterable[int], leases: Mapping[int, int], lease_seconds: float
    ) -> dict[int, TxnError]:
        """One heartbeat of everything a process holds, in one database transaction: its open transactions
        (as :meth:`heartbeat`) and its read leases (lease id -> the end its holder gives it, epoch millis;
        each expires ``lease_seconds`` from now at the latest: see ``compactions.extend_leases``). Returns why
        each transaction that is no longer open is not (aborted meanwhile, ...); the others and the leases
        are kept alive all the same."""
        from hiveacid_sql.txn.compactions import extend_leases

        ids = sorted(set(txn_ids))

        def run(conn: Connection) -> dict[int, TxnError]:
            txns = s.TXNS.c
            now = _now_ms()
            gone: dict[int, TxnError] = {}
            if ids:
                done = conn.execute(
                    sa.update(s.TXNS)
                    .where(txns.TXN_ID.in_(ids), txns.TXN_STATE == OPEN)
                    .values(
                        TXN_LAST_HEARTBEAT=now,
                        TXN_HEARTBEAT_COUNT=sa.func.coalesce(txns.TXN_HEARTBEAT_COUNT, 0) + 1,
                    )
                )
                if done.rowcount != len(ids):
                    still = set(
                        conn.execute(
                            sa.select(txns.TXN_ID).where(txns.TXN_ID.in_(ids), txns.TXN_STATE == OPEN)
                        ).scalars()
                    )
                    gone = {t: _state_error(conn, t) for t in ids if t not in still}
            if leases:
                extend_leases(conn, leases, now + int(lease_seconds * 1000))
            return gone

        return self._db.run_write(run)

    def abort_txns(self, txn_ids: Iterable[int]) -> dict[int, str]:
        """ABORT TRANSACTIONS: abort each open one (releasing its locks); id -> 'aborted', or why not.

        As Hive, ids that are not open are reported, not an error (they may have ended meanwhile).
        """
        outcome: dict[int, str] = {}
        for txn_id in dict.fromkeys(txn_ids):
            try:
                self.abort_txn(txn_id)
                outcome[txn_id] = "aborted"
            except TxnError as exc:
                outcome[txn_id] = str(exc)
        return outcome

    def abort_timed_out(self, timeout_s: float, now_ms: int | None = None) -> list[int]:
        """Housekeeping (Hive's ``performTimeOuts`` and WRITE_SET reaper): abort open transactions whose
        last heartbeat is older than ``timeout_s`` (their locks go with them), drop locks of no
        transaction that were not heartbeated in that time, and forget WRITE_SET rows no open
        transaction can conflict with. Returns the aborted transaction ids."""
        now = _now_ms() if now_ms is None else now_ms
        cutoff = now - int(timeout_s * 1000)
        txns, hl = s.TXNS.c, s.HIVE_LOCKS.c

        def run(conn: Connection) -> list[int]:
            stale = [
                int(t) for t in conn.execute(
                    sa.select(txns.TXN_ID)
                    .where(txns.TXN_STATE == OPEN, txns.TXN_LAST_HEARTBEAT < cutoff)
                    .order_by(txns.TXN_ID)
                    .with_for_update()
                ).scalars()
            ]
            if stale:
                conn.execute(sa.update(s.TXNS).where(txns.TXN_ID.in_(stale), txns.TXN_STATE == OPEN)
                             .values(TXN_STATE=ABORTED, TXN_LAST_HEARTBEAT=now))
                conn.execute(sa.delete(s.HIVE_LOCKS).where(hl.HL_TXNID.in_(stale)))
                conn.execute(sa.delete(s.MIN_HISTORY_LEVEL).where(s.MIN_HISTORY_LEVEL.c.MHL_TXNID.in_(stale)))
            conn.execute(sa.delete(s.HIVE_LOCKS).where(hl.HL_TXNID == 0, hl.HL_LAST_HEARTBEAT < cutoff))
            housekeeping.gc_write_set(conn)
            return stale

        return self._db.run_write(run)

    # ------------------------------------------------------------------ housekeeping
    def aborted_candidates(self, older_than_s: float, now_ms: int | None = None) -> housekeeping.AbortedCandidates:
        """Aborted transactions aborted (or last heartbeated) more than ``older_than_s`` ago, with their
        write ids per table: what :meth:`purge_aborted` may forget once their directories are gone."""
        now = _now_ms() if now_ms is None else now_ms
        with self._db.read() as conn:
            return housekeeping.aborted_candidates(conn, now - int(older_than_s * 1000))

    def purge_aborted(self, txn_ids: Iterable[int]) -> int:
        """Forget aborted transactions whose data is gone (Hive's ``cleanEmptyAbortedTxns``): their TXNS,
        TXN_COMPONENTS and TXN_TO_WRITE_ID rows. The caller must have checked that no directory of their write
        ids is left, since their write ids count as committed afterwards. Returns how many were purged."""
        ids = sorted(set(txn_ids))
        return self._db.run_write(lambda conn: housekeeping.purge_aborted(conn, ids)) if ids else 0

    def trim_write_ids(self) -> int:
        """Hive's ``cleanTxnToWriteIdTable``: drop TXN_TO_WRITE_ID rows below the lowest uncommitted txn."""
        return self._db.run_write(housekeeping.trim_write_ids)

    def gc_write_set(self) -> int:
        """Hive's ``performWriteSetGC``: drop WRITE_SET rows no open transaction can conflict with."""
        return self._db.run_write(housekeeping.gc_write_set)

    def txn_state(self, txn_id: int) -> TxnState:
        """'open', 'aborted' or 'committed' (no TXNS row but the id was handed out)."""
        with self._db.read() as conn:
            state = conn.execute(sa.select(s.TXNS.c.TXN_STATE).where(s.TXNS.c.TXN_ID == txn_id)).scalar()
            if state is not None:
                return _STATE_NAMES[state]
            if 0 < txn_id < peek_counter(conn, s.NEXT_TXN_ID.c.NTXN_NEXT):
                return "committed"
        raise TxnError(f"No such transaction {_txn(txn_id)}")

    def list_txns(self) -> list[dict[str, Any]]:
        """Open and aborted transactions (what SHOW TRANSACTIONS lists), by id."""
        with self._db.read() as conn:
            rows = conn.execute(sa.select(s.TXNS).order_by(s.TXNS.c.TXN_ID)).mappings().all()
        return [
            {
                "txn_id": r["TXN_ID"],
                "state": _STATE_NAMES[r["TXN_STATE"]],
                "started": r["TXN_STARTED"],
                "last_heartbeat": r["TXN_LAST_HEARTBEAT"],
                "user": r["TXN_USER"],
                "host": r["TXN_HOST"],
                "agent_info": r["TXN_AGENT_INFO"],
                "meta_info": r["TXN_META_INFO"],
            }
            for r in rows
        ]

    # ------------------------------------------------------------------ write ids
    def register_existing_write_ids(self, db: str, table: str, max_write_id: int) -> None:
        """Adopt ACID data already on disk: write ids up to ``max_write_id`` count as committed.

        They get no TXN_TO_WRITE_ID rows, which is exactly what makes them valid in every
        snapshot; the next allocated write id is ``max_write_id + 1`` (never lowered).
        """
        db, table = _key(db, table)
        if max_write_id < 0:
            raise TxnError(f"Write id must not be negative: {max_write_id}")

        def run(conn: Connection) -> None:
            nwi = s.NEXT_WRITE_ID.c
            where = (nwi.NWI_DATABASE == db, nwi.NWI_TABLE == table)
            current = conn.execute(sa.select(nwi.NWI_NEXT).where(*where).with_for_update()).scalar()
            if current is None:
                _insert_counter(conn, db, table, max_write_id + 1)
            elif current <= max_write_id:
                conn.execute(sa.update(s.NEXT_WRITE_ID).where(*where).values(NWI_NEXT=max_write_id + 1))
            insert_records(conn, None, adopted_records(conn, db, table, current or 1, max_write_id), _now_ms())

        self._db.run_write(run)

    def table_history(self, db: str, table: str) -> list[HistoryEntry]:
        """The committed write ids of ``db.table`` with what wrote them, newest first (DESCRIBE HISTORY)."""
        db, table = _key(db, table)
        with self._db.read() as conn:
            return read_history(conn, db, table)

    def open_write_ids_below(self, txn_id: int, db: str, table: str, write_id: int) -> list[tuple[int, int]]:
        """(txn id, write id) of the other open transactions holding a write id of the table below ``write_id``.

        What an overwrite (INSERT OVERWRITE, TRUNCATE: a ``base_<write_id>``) must not commit over: a write id
        below the base that commits later is hidden under it. Ordinary writers hold a lock the overwrite's
        EXCLUSIVE waits for; a streaming transaction batch allocates its write ids up front and locks each
        transaction only while it runs, so between two of its transactions these are its remaining ones."""
        db, table = _key(db, table)
        t2w, txns = s.TXN_TO_WRITE_ID.c, s.TXNS.c
        with self._db.read() as conn:
            rows = conn.execute(
                sa.select(t2w.T2W_TXNID, t2w.T2W_WRITEID)
                .select_from(s.TXN_TO_WRITE_ID.join(s.TXNS, txns.TXN_ID == t2w.T2W_TXNID))
                .where(
                    t2w.T2W_DATABASE == db, t2w.T2W_TABLE == table, t2w.T2W_WRITEID < write_id,
                    t2w.T2W_TXNID != txn_id, txns.TXN_STATE == OPEN,
                )
                .order_by(t2w.T2W_WRITEID)
            ).all()
        return [(int(t), int(w)) for t, w in rows]

    def refuse_overwrite_below_open(self, txn_id: int, db: str, table: str, write_id: int, statement: str) -> None:
        """An overwrite's ``base_<write_id>`` hides every write id below it, also one that commits after it: refuse
        it (one line, before a file is written) while another transaction holds such a write id open, which only
        a streaming transaction batch does (:meth:`open_write_ids_below`)."""
        below = self.open_write_ids_below(txn_id, db, table, write_id)
        if below:
            txns = ", ".join(_txn(t) for t, _ in below[:5]) + (", ..." if len(below) > 5 else "")
            raise TxnError(
                f"{statement} of {db.lower()}.{table.lower()} refused: open transaction(s) {txns} (a streaming "
                f"transaction batch) hold write ids {below[0][1]}..{below[-1][1]} of the table, below this "
                f"statement's {write_id}; committed after it, their rows would be hidden under its base. Close the "
                f"streaming connection (or let its batch end) and run it again"
            )

    def write_id_history(self, db: str, table: str) -> list[dict[str, Any]]:
        """Every allocated write id of the table with its txn, state and (if committed) commit time.

        Write ids adopted by :meth:`register_existing_write_ids` have no transaction and are not listed.
        """
        db, table = _key(db, table)
        t2w, txns, ctc = s.TXN_TO_WRITE_ID.c, s.TXNS.c, s.COMPLETED_TXN_COMPONENTS.c
        with self._db.read() as conn:
            rows = conn.execute(
                sa.select(t2w.T2W_WRITEID, t2w.T2W_TXNID, txns.TXN_STATE)
                .select_from(s.TXN_TO_WRITE_ID.outerjoin(s.TXNS, txns.TXN_ID == t2w.T2W_TXNID))
                .where(t2w.T2W_DATABASE == db, t2w.T2W_TABLE == table)
                .order_by(t2w.T2W_WRITEID)
            ).all()
            completed = conn.execute(
                sa.select(ctc.CTC_WRITEID, ctc.CTC_TIMESTAMP, ctc.CTC_UPDATE_DELETE, ctc.CTC_PARTITION).where(
                    ctc.CTC_DATABASE == db, ctc.CTC_TABLE == table
                )
            ).all()
        commits: dict[int, dict[str, Any]] = {}
        for write_id, stamp, upd, part in completed:
            info = commits.setdefault(
                write_id, {"commit_time": stamp, "update_delete": upd == "Y", "partitions": []}
            )
            if part is not None:
                info["partitions"].append(part)
        history = []
        for write_id, txn_id, state in rows:
            info = commits.get(write_id, {"commit_time": None, "update_delete": None, "partitions": []})
            history.append(
                {
                    "write_id": write_id,
                    "txn_id": txn_id,
                    "state": _STATE_NAMES[state] if state is not None else "committed",
                    "commit_time": info["commit_time"],
                    "update_delete": info["update_delete"],
                    "partitions": sorted(info["partitions"]),
                }
            )
        return history

    # ------------------------------------------------------------------ snapshots
    def valid_txns(self, txn_id: int | None = None) -> ValidTxnList:
        """The ValidTxnList of this moment, as seen by ``txn_id`` (pinned by a multi-statement txn)."""
        with self._db.read() as conn:
            return _valid_txns(conn, txn_id)

    def snapshot(
        self, tables: Iterable[tuple[str, str]], txn_id: int | None = None, txns: ValidTxnList | None = None
    ) -> Snapshot:
        """One consistent ValidTxnList plus valid write ids for ``tables`` (Hive 3.1 rules).

        ``txn_id`` is the reader's own transaction: it is left out of the exceptions, so the
        transaction sees its own earlier writes. ``txns``: a ValidTxnList taken earlier (at BEGIN of
        a multi-statement transaction); the write ids are then those valid in it, as Hive's
        ``getValidWriteIds(tables, validTxnList)`` computes them.
        """
        keys = list(dict.fromkeys(_key(db, table) for db, table in tables))
        with self._db.read() as conn:
            return _snapshot(conn, keys, txn_id, txns)

    def snapshot_and_write_id(
        self, tables: Iterable[tuple[str, str]], txn_id: int, txns: ValidTxnList | None, db: str, table: str
    ) -> tuple[Snapshot, int]:
        """:meth:`snapshot` of ``tables`` for ``txn_id``, then :meth:`allocate_write_id` of ``db.table``, in one
        database transaction: a DML statement's two store calls once its locks are held. The write id is taken
        after the snapshot is read, as when they were two calls (then another writer could come between them;
        here none can), so the snapshot holds it only if the transaction had it already; the rows written are
        the same (TXN_TO_WRITE_ID, NEXT_WRITE_ID)."""
        keys = list(dict.fromkeys(_key(d, t) for d, t in tables))
        db, table = _key(db, table)

        def run(conn: Connection) -> tuple[Snapshot, int]:
            snapshot = _snapshot(conn, keys, txn_id, txns)
            return snapshot, _allocate_write_id(conn, txn_id, db, table)

        return self._db.run_write(run, consistent=True)


# ---------------------------------------------------------------------- helpers (one conn each)
class _Q:
    """The statements of every transaction's open, write id and commit, built once (building a statement
    costs more CPU than SQLite takes to run it); values are bound at execution."""

    _txn = sa.bindparam("txn_id", type_=sa.BigInteger)
    _t2w, _tc, _nwi = s.TXN_TO_WRITE_ID.c, s.TXN_COMPONENTS.c, s.NEXT_WRITE_ID.c
    insert_txn = sa.insert(s.TXNS)
    # Hive 3.1 openTxns: the oldest transaction open when this one started (itself at least), for the cleaner
    insert_min_history = sa.insert(s.MIN_HISTORY_LEVEL).from_select(
        ["MHL_TXNID", "MHL_MIN_OPEN_TXNID"],
        sa.select(_txn, sa.func.min(s.TXNS.c.TXN_ID)).where(s.TXNS.c.TXN_STATE == OPEN),
    )
    # the TXNS row locked, with what the transaction has already recorded, in one statement
    lock_with_write_id = (
        sa.select(s.TXNS.c.TXN_STATE, _t2w.T2W_WRITEID)
        .select_from(
            s.TXNS.outerjoin(
                s.TXN_TO_WRITE_ID,
                sa.and_(
                    _t2w.T2W_TXNID == s.TXNS.c.TXN_ID,
                    _t2w.T2W_DATABASE == sa.bindparam("db"),
                    _t2w.T2W_TABLE == sa.bindparam("table"),
                ),
            )
        )
        .where(s.TXNS.c.TXN_ID == _txn)
        .with_for_update(of=s.TXNS)
    )
    lock_with_components = (
        sa.select(s.TXNS.c.TXN_STATE, s.TXN_COMPONENTS)
        .select_from(s.TXNS.outerjoin(s.TXN_COMPONENTS, _tc.TC_TXNID == s.TXNS.c.TXN_ID))
        .where(s.TXNS.c.TXN_ID == _txn)
        .with_for_update(of=s.TXNS)
    )
    insert_t2w = sa.insert(s.TXN_TO_WRITE_ID)
    bump_write_id = (
        sa.update(s.NEXT_WRITE_ID)
        .where(_nwi.NWI_DATABASE == sa.bindparam("db"), _nwi.NWI_TABLE == sa.bindparam("table"))
        .values(NWI_NEXT=_nwi.NWI_NEXT + 1)
        .returning(_nwi.NWI_NEXT)
    )
    delete_locks = sa.delete(s.HIVE_LOCKS).where(s.HIVE_LOCKS.c.HL_TXNID == _txn)
    delete_min_history = sa.delete(s.MIN_HISTORY_LEVEL).where(s.MIN_HISTORY_LEVEL.c.MHL_TXNID == _txn)
    delete_open_txn = sa.delete(s.TXNS).where(s.TXNS.c.TXN_ID == _txn, s.TXNS.c.TXN_STATE == OPEN)


def _insert_components(
    conn: Connection, txn_id: int, db: str, table: str, write_id: int, partitions: Mapping[str | None, str]
) -> None:
    """TXN_COMPONENTS rows (partition -> operation) of a write id the transaction owns, each once."""
    db, table = _key(db, table)
    for operation in partitions.values():
        if operation not in WRITE_OPERATIONS:
            raise TxnError(f"Operation type must be one of 'i', 'u', 'd', not {operation!r}")
    t2w = s.TXN_TO_WRITE_ID.c
    owned = conn.execute(
        sa.select(t2w.T2W_WRITEID).where(t2w.T2W_TXNID == txn_id, t2w.T2W_DATABASE == db, t2w.T2W_TABLE == table)
    ).scalar()
    if owned != write_id:
        raise TxnError(f"Write id {write_id} of {db}.{table} was not allocated to {_txn(txn_id)}")
    tc = s.TXN_COMPONENTS.c
    recorded = {
        tuple(row)
        for row in conn.execute(
            sa.select(tc.TC_PARTITION, tc.TC_OPERATION_TYPE).where(
                tc.TC_TXNID == txn_id, tc.TC_DATABASE == db, tc.TC_TABLE == table
            )
        )
    }
    rows = [
        {"TC_TXNID": txn_id, "TC_DATABASE": db, "TC_TABLE": table, "TC_PARTITION": part,
         "TC_OPERATION_TYPE": op, "TC_WRITEID": write_id}
        for part, op in partitions.items()
        if (part, op) not in recorded
    ]
    if rows:
        conn.execute(sa.insert(s.TXN_COMPONENTS), rows)


def _snapshot(
    conn: Connection, keys: Sequence[tuple[str, str]], txn_id: int | None, txns: ValidTxnList | None
) -> Snapshot:
    """:meth:`TxnStore.snapshot` in ``conn`` (``keys``: (db, table) as the store spells them)."""
    txns = _valid_txns(conn, txn_id) if txns is None else txns
    states = {t: st for t, st in _exception_states(conn, txns)}
    write_ids = {f"{db}.{table}": _table_write_ids(conn, db, table, txns, states, txn_id) for db, table in keys}
    return Snapshot(txn_id=txn_id, txns=txns, tables=write_ids)


def _allocate_write_id(conn: Connection, txn_id: int, db: str, table: str) -> int:
    """:meth:`TxnStore.allocate_write_id` in ``conn``."""
    # The TXNS row locked and the write id already allocated, in one statement
    row = conn.execute(_Q.lock_with_write_id, {"txn_id": txn_id, "db": db, "table": table}).first()
    if row is None or row[0] != OPEN:
        raise _state_error(conn, txn_id)
    if row[1] is not None:
        return int(row[1])
    write_id = _next_write_id(conn, db, table)
    conn.execute(_Q.insert_t2w, {"T2W_TXNID": txn_id, "T2W_DATABASE": db, "T2W_TABLE": table, "T2W_WRITEID": write_id})
    return write_id


def _insert_counter(conn: Connection, db: str, table: str, next_value: int) -> None:
    try:
        conn.execute(sa.insert(s.NEXT_WRITE_ID).values(NWI_DATABASE=db, NWI_TABLE=table, NWI_NEXT=next_value))
    except sa.exc.IntegrityError as exc:
        # Another transaction created the counter first; rerun, and this time lock its row.
        raise RetryTxn(f"NEXT_WRITE_ID for {db}.{table} created concurrently") from exc


def _next_write_id(conn: Connection, db: str, table: str) -> int:
    nwi = s.NEXT_WRITE_ID.c
    where = (nwi.NWI_DATABASE == db, nwi.NWI_TABLE == table)
    if conn.dialect.update_returning:  # bump and read in one statement (the UPDATE locks the row)
        bumped_to = conn.execute(_Q.bump_write_id, {"db": db, "table": table}).scalar()
        if bumped_to is not None:
            return int(bumped_to) - 1
    current = conn.execute(sa.select(nwi.NWI_NEXT).where(*where).with_for_update()).scalar()
    if current is None:
        _insert_counter(conn, db, table, 2)
        return 1
    conn.execute(sa.update(s.NEXT_WRITE_ID).where(*where).values(NWI_NEXT=current + 1))
    return int(current)


def _state_error(conn: Connection, txn_id: int) -> TxnError:
    """Why ``txn_id`` is not open, as Hive words it (``TxnHandler.ensureValidTxn``)."""
    state = conn.execute(sa.select(s.TXNS.c.TXN_STATE).where(s.TXNS.c.TXN_ID == txn_id)).scalar()
    if state == ABORTED:
        return TxnAbortedError(f"Transaction {_txn(txn_id)} already aborted")
    if state == OPEN:
        return TxnError(f"Transaction {_txn(txn_id)} changed state concurrently")
    if 0 < txn_id < peek_counter(conn, s.NEXT_TXN_ID.c.NTXN_NEXT):
        return TxnError(f"Transaction {_txn(txn_id)} is already committed")
    return TxnError(f"No such transaction {_txn(txn_id)}")


def _lock_open(conn: Connection, txn_id: int) -> None:
    """Lock the txn's TXNS row for this transaction, or raise if it is not open."""
    state = conn.execute(
        sa.select(s.TXNS.c.TXN_STATE).where(s.TXNS.c.TXN_ID == txn_id).with_for_update()
    ).scalar()
    if state != OPEN:
        raise _state_error(conn, txn_id)


def _record_write_set(conn: Connection, txn_id: int, comps: Sequence[Any], seen: ValidTxnList | None) -> str | None:
    """Hive 3.1 ``commitTxn``'s write-set step: None (u/d components recorded in WRITE_SET), or the
    conflict message when a transaction that committed after ``txn_id`` started wrote the same place."""
    mine = {
        (c["TC_DATABASE"], c["TC_TABLE"], c["TC_PARTITION"], c["TC_OPERATION_TYPE"])
        for c in comps
        if c["TC_OPERATION_TYPE"] in ("u", "d")
    }
    if not mine:
        return None
    # The commit id; the row lock also serialises committing writers, so each sees the other's rows.
    commit_id = int(conn.execute(sa.select(s.NEXT_TXN_ID.c.NTXN_NEXT).with_for_update()).scalar_one()) - 1
    ws = s.WRITE_SET.c
    tables = sorted({(db, table) for db, table, _p, _o in mine})
    committed = conn.execute(
        sa.select(ws.WS_TXNID, ws.WS_COMMIT_ID, ws.WS_DATABASE, ws.WS_TABLE, ws.WS_PARTITION, ws.WS_OPERATION_TYPE)
        .where(
            sa.or_(*(sa.and_(ws.WS_DATABASE == db, ws.WS_TABLE == table) for db, table in tables)),
            ws.WS_COMMIT_ID >= txn_id,
            ws.WS_TXNID != txn_id,
        )
        .order_by(ws.WS_COMMIT_ID, ws.WS_TXNID)
    ).all()
    for other, other_commit, db, table, part, other_op in committed:
        if seen is not None and seen.is_txn_valid(other):
            continue  # its commit was in this transaction's snapshot: no lost update
        for my_db, my_table, my_part, my_op in sorted(mine, key=lambda m: (m[0], m[1], m[2] or "", m[3])):
            same = (my_db, my_table, my_part) == (db, table, part)
            if same and "u" in (my_op, other_op):
                where = f"{db}/{table}" + (f"/{part}" if part is not None else "")
                return (
                    f"Aborting [{_txn(txn_id)},{commit_id}] due to a write conflict on {where} "
                    f"committed by [{_txn(other)},{other_commit}] {my_op}/{other_op}"
                )
    conn.execute(sa.insert(s.WRITE_SET), [
        {"WS_DATABASE": db, "WS_TABLE": table, "WS_PARTITION": part, "WS_TXNID": txn_id,
         "WS_COMMIT_ID": commit_id, "WS_OPERATION_TYPE": op}
        for db, table, part, op in sorted(mine, key=lambda m: (m[0], m[1], m[2] or "", m[3]))
    ])
    return None


def _valid_txns(conn: Connection, own: int | None) -> ValidTxnList:
    hwm = peek_counter(conn, s.NEXT_TXN_ID.c.NTXN_NEXT) - 1
    txns = s.TXNS.c
    rows = conn.execute(
        sa.select(txns.TXN_ID, txns.TXN_STATE).where(txns.TXN_ID <= hwm).order_by(txns.TXN_ID)
    ).all()
    exceptions = [t for t, _ in rows if t != own]
    aborted = frozenset(t for t, st in rows if st == ABORTED and t != own)
    min_open = next((t for t in exceptions if t not in aborted), None)
    return ValidTxnList(hwm, tuple(exceptions), aborted, min_open)


def _exception_states(conn: Connection, txns: ValidTxnList) -> Iterable[tuple[int, str]]:
    return ((t, ABORTED if t in txns.aborted else OPEN) for t in txns.exceptions)


def _table_write_ids(
    conn: Connection,
    db: str,
    table: str,
    txns: ValidTxnList,
    states: dict[int, str],
    own: int | None,
) -> TableWriteIds:
    nwi, t2w, tx = s.NEXT_WRITE_ID.c, s.TXN_TO_WRITE_ID.c, s.TXNS.c
    next_write_id = conn.execute(
        sa.select(nwi.NWI_NEXT).where(nwi.NWI_DATABASE == db, nwi.NWI_TABLE == table)
    ).scalar()
    hwm = (next_write_id or 1) - 1
    # Only write ids of txns that still have a TXNS row (open/aborted), that are newer than the
    # snapshot, or that were open when the snapshot was taken (a pinned one: they may have committed
    # since) can be exceptions; committed txns have no TXNS row.
    open_then = sorted(t for t in txns.exceptions if t not in txns.aborted and t != own)
    maybe = [tx.TXN_ID.is_not(None), t2w.T2W_TXNID > txns.high_watermark]
    if open_then:
        maybe.append(t2w.T2W_TXNID.in_(open_then) if len(open_then) <= 500 else t2w.T2W_TXNID >= open_then[0])
    rows = conn.execute(
        sa.select(t2w.T2W_WRITEID, t2w.T2W_TXNID)
        .select_from(s.TXN_TO_WRITE_ID.outerjoin(s.TXNS, tx.TXN_ID == t2w.T2W_TXNID))
        .where(
            t2w.T2W_DATABASE == db,
            t2w.T2W_TABLE == table,
            t2w.T2W_WRITEID <= hwm,
            sa.or_(*maybe),
        )
    ).all()
    exceptions: list[int] = []
    aborted: set[int] = set()
    for write_id, txn_id in rows:
        if txn_id == own:
            continue
        if txn_id > txns.high_watermark or txn_id in states:
            exceptions.append(write_id)
            if states.get(txn_id) == ABORTED:
                aborted.add(write_id)
    exceptions.sort()
    min_open = next((w for w in exceptions if w not in aborted), None)
    return TableWriteIds(f"{db}.{table}", hwm, tuple(exceptions), frozenset(aborted), min_open)
