# ruff: noqa: SIM300 - upper-case Hive column attributes look like constants to ruff
"""The compaction queue (COMPACTION_QUEUE / COMPLETED_COMPACTIONS) and the read leases, on the store.

Hive 3.1's ``CompactionTxnHandler`` life cycle, one short database transaction per step:

``enqueue`` -> state 'i' (initiated) -> ``claim`` by a worker -> 'w' (working) -> ``mark_compacted`` -> 'r'
(ready for cleaning) -> ``mark_cleaned`` -> row moved to COMPLETED_COMPACTIONS as 's' (succeeded); a failure
moves it there as 'f' (failed). ``revoke_timed_out`` puts a 'w' row whose worker went silent past
``hive.compactor.worker.timeout`` back to 'i' (``revokeTimedoutWorkers``).

Hive 3 has no column for "which readers may still need the old files". We keep it in ``CQ_META_INFO`` (a
small JSON document): ``next_txn_id`` and ``next_lease_id`` as of the moment the compaction's output became
visible, plus the hidden build directory and the error message. The cleaner may delete once no transaction
older than ``next_txn_id`` is open and no live read lease older than ``next_lease_id`` is held on the table
(Hive 4's ``CQ_NEXT_TXN_ID`` rule, extended to reads outside transactions).
"""

from __future__ import annotations

import builtins
import json
import os
import socket
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from hiveacid_sql.errors import TxnError
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.db import Db, RetryTxn, next_counter, peek_counter
from hiveacid_sql.txn.housekeeping import gc_completed_components

INITIATED, WORKING, READY_FOR_CLEANING = "i", "w", "r"
FAILED, SUCCEEDED, ATTEMPTED = "f", "s", "a"
MAJOR_TYPE, MINOR_TYPE = "a", "i"
#: ``TxnHandler.showCompact``'s state texts (Hive 3).
STATE_NAMES = {
    INITIATED: "initiated",
    WORKING: "working",
    READY_FOR_CLEANING: "ready for cleaning",
    FAILED: "failed",
    SUCCEEDED: "succeeded",
    ATTEMPTED: "attempted",
}
TYPE_NAMES = {MAJOR_TYPE: "MAJOR", MINOR_TYPE: "MINOR"}
TYPE_CODES = {"major": MAJOR_TYPE, "minor": MINOR_TYPE}


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class CompactionInfo:
    """One queue or history row, with Hive's codes turned into words where SHOW COMPACTIONS prints them."""

    id: int
    db: str
    table: str
    partition: str | None
    state: str  # one-letter code
    type: str  # 'a' major / 'i' minor
    properties: dict[str, str]
    worker_id: str | None
    start: int | None
    end: int | None
    run_as: str | None
    highest_write_id: int | None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """'major' or 'minor'."""
        return "major" if self.type == MAJOR_TYPE else "minor"

    @property
    def state_name(self) -> str:
        return STATE_NAMES.get(self.state, self.state)

    @property
    def error(self) -> str | None:
        return self.meta.get("error")


def _meta_bytes(meta: dict[str, Any]) -> bytes:
    return json.dumps(meta, sort_keys=True).encode("utf-8")


def _meta(raw: bytes | None) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        value = json.loads(bytes(raw).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _info(row: Any, prefix: str) -> CompactionInfo:
    get = row._mapping
    return CompactionInfo(
        id=int(get[f"{prefix}_ID"]),
        db=get[f"{prefix}_DATABASE"],
        table=get[f"{prefix}_TABLE"],
        partition=get[f"{prefix}_PARTITION"],
        state=get[f"{prefix}_STATE"],
        type=get[f"{prefix}_TYPE"],
        properties=json.loads(get[f"{prefix}_TBLPROPERTIES"]) if get[f"{prefix}_TBLPROPERTIES"] else {},
        worker_id=get[f"{prefix}_WORKER_ID"],
        start=get[f"{prefix}_START"],
        end=get.get(f"{prefix}_END"),
        run_as=get[f"{prefix}_RUN_AS"],
        highest_write_id=get[f"{prefix}_HIGHEST_WRITE_ID"],
        meta=_meta(get[f"{prefix}_META_INFO"]),
    )


class CompactionQueue:
    """The queue, the history and the cleaner's safety test, over one store's database."""

    def __init__(self, engine: sa.Engine) -> None:
        self._db = Db(engine)

    # ------------------------------------------------------------------ initiating
    def enqueue(
        self,
        db: str,
        table: str,
        partition: str | None,
        kind: str,
        *,
        properties: dict[str, str] | None = None,
        run_as: str | None = None,
    ) -> tuple[int, bool]:
        """Queue a request; returns ``(id, accepted)``. A request for a directory that already has one
        initiated or working is not queued again: its id comes back with ``accepted`` False (Hive 3.1)."""
        db, table = db.lower(), table.lower()
        q = s.COMPACTION_QUEUE.c

        def run(conn: Connection) -> tuple[int, bool]:
            where = [q.CQ_DATABASE == db, q.CQ_TABLE == table, q.CQ_STATE.in_([INITIATED, WORKING])]
            where.append(q.CQ_PARTITION.is_(None) if partition is None else q.CQ_PARTITION == partition)
            existing = conn.execute(sa.select(q.CQ_ID).where(*where).order_by(q.CQ_ID)).scalar()
            if existing is not None:
                return int(existing), False
            cq_id = next_counter(conn, s.NEXT_COMPACTION_QUEUE_ID.c.NCQ_NEXT)
            conn.execute(
                sa.insert(s.COMPACTION_QUEUE).values(
                    CQ_ID=cq_id,
                    CQ_DATABASE=db,
                    CQ_TABLE=table,
                    CQ_PARTITION=partition,
                    CQ_STATE=INITIATED,
                    CQ_TYPE=TYPE_CODES[kind],
                    CQ_TBLPROPERTIES=json.dumps(properties or {}, sort_keys=True),
                    CQ_RUN_AS=(run_as or "")[:128] or None,
                    CQ_META_INFO=_meta_bytes({"enqueue_time": now_ms()}),
                )
            )
            return cq_id, True

        return self._db.run_write(run)

    def record_attempt(self, db: str, table: str, partition: str | None, kind: str, reason: str) -> int:
        """A request the initiator gave up on before queueing: straight into the history as 'a' (attempted)."""

        def run(conn: Connection) -> int:
            cq_id = next_counter(conn, s.NEXT_COMPACTION_QUEUE_ID.c.NCQ_NEXT)
            t = now_ms()
            conn.execute(
                sa.insert(s.COMPLETED_COMPACTIONS).values(
                    CC_ID=cq_id, CC_DATABASE=db.lower(), CC_TABLE=table.lower(), CC_PARTITION=partition,
                    CC_STATE=ATTEMPTED, CC_TYPE=TYPE_CODES[kind], CC_START=t, CC_END=t,
                    CC_META_INFO=_meta_bytes({"error": reason[:1500]}),
                )
            )
            return cq_id

        return self._db.run_write(run)

    # ------------------------------------------------------------------ working
    def claim(self, worker_id: str, cq_id: int | None = None) -> CompactionInfo | None:
        """``findNextToCompact``: the oldest initiated request (or request ``cq_id``) whose directory nobody is
        working on -> 'w'."""
        q = s.COMPACTION_QUEUE.c

        def run(conn: Connection) -> CompactionInfo | None:
            rows = conn.execute(
                sa.select(s.COMPACTION_QUEUE).where(q.CQ_STATE.in_([INITIATED, WORKING])).order_by(q.CQ_ID)
            ).all()
            busy = {(r.CQ_DATABASE, r.CQ_TABLE, r.CQ_PARTITION) for r in rows if r.CQ_STATE == WORKING}
            for r in rows:
                if r.CQ_STATE != INITIATED or (r.CQ_DATABASE, r.CQ_TABLE, r.CQ_PARTITION) in busy:
                    continue
                if cq_id is not None and r.CQ_ID != cq_id:
                    continue
                done = conn.execute(
                    sa.update(s.COMPACTION_QUEUE)
                    .where(q.CQ_ID == r.CQ_ID, q.CQ_STATE == INITIATED)
                    .values(CQ_STATE=WORKING, CQ_WORKER_ID=worker_id[:128], CQ_START=now_ms())
                )
                if done.rowcount != 1:
                    raise RetryTxn("compaction claimed concurrently")
                return _info(conn.execute(sa.select(s.COMPACTION_QUEUE).where(q.CQ_ID == r.CQ_ID)).one(), "CQ")
            return None

        return self._db.run_write(run)

    def update_meta(self, cq_id: int, **changes: Any) -> None:
        """Merge ``changes`` into the request's CQ_META_INFO (the worker notes its build directory there)."""
        q = s.COMPACTION_QUEUE.c

        def run(conn: Connection) -> None:
            raw = conn.execute(sa.select(q.CQ_META_INFO).where(q.CQ_ID == cq_id).with_for_update()).scalar()
            meta = _meta(raw)
            meta.update(changes)
            conn.execute(sa.update(s.COMPACTION_QUEUE).where(q.CQ_ID == cq_id).values(CQ_META_INFO=_meta_bytes(meta)))

        self._db.run_write(run)

    def mark_compacted(self, cq_id: int, highest_write_id: int, **meta: Any) -> None:
        """'w' -> 'r': the output is in place. Records which transactions and leases may still need the old files."""
        q = s.COMPACTION_QUEUE.c

        def run(conn: Connection) -> None:
            row = conn.execute(sa.select(s.COMPACTION_QUEUE).where(q.CQ_ID == cq_id).with_for_update()).one_or_none()
            if row is None or row.CQ_STATE != WORKING:
                raise TxnError(f"Compaction {cq_id} is not working")
            info = _meta(row.CQ_META_INFO)
            info.update(meta)
            info["next_txn_id"] = peek_counter(conn, s.NEXT_TXN_ID.c.NTXN_NEXT)
            info["next_lease_id"] = peek_counter(conn, s.HIVEACID_NEXT_READ_LEASE_ID.c.NRL_NEXT)
            info["compacted_time"] = now_ms()
            conn.execute(
                sa.update(s.COMPACTION_QUEUE)
                .where(q.CQ_ID == cq_id)
                .values(CQ_STATE=READY_FOR_CLEANING, CQ_HIGHEST_WRITE_ID=highest_write_id, CQ_META_INFO=_meta_bytes(info))
            )

        self._db.run_write(run)

    def mark_failed(self, cq_id: int, error: str) -> None:
        """The request ends as 'f' in the history, with the reason."""
        self._finish(cq_id, FAILED, error=error[:1500])

    def mark_cleaned(self, cq_id: int) -> None:
        """The cleaner is done: the request ends as 's' (succeeded) in the history, and the
        COMPLETED_TXN_COMPONENTS rows its output covers go (Hive's ``markCleaned``)."""
        self._finish(cq_id, SUCCEEDED)

    def _finish(self, cq_id: int, state: str, **meta: Any) -> None:
        q = s.COMPACTION_QUEUE.c

        def run(conn: Connection) -> None:
            row = conn.execute(sa.select(s.COMPACTION_QUEUE).where(q.CQ_ID == cq_id).with_for_update()).one_or_none()
            if row is None:
                raise TxnError(f"No such compaction {cq_id}")
            if state == SUCCEEDED and row.CQ_HIGHEST_WRITE_ID is not None:
                gc_completed_components(conn, row.CQ_DATABASE, row.CQ_TABLE, row.CQ_PARTITION, row.CQ_HIGHEST_WRITE_ID)
            info = _meta(row.CQ_META_INFO)
            info.update(meta)
            values = {f"CC_{k[3:]}": v for k, v in row._mapping.items()}
            values.update(CC_STATE=state, CC_END=now_ms(), CC_META_INFO=_meta_bytes(info))
            conn.execute(sa.insert(s.COMPLETED_COMPACTIONS).values(**values))
            conn.execute(sa.delete(s.COMPACTION_QUEUE).where(q.CQ_ID == cq_id))

        self._db.run_write(run)

    def revoke_timed_out(self, timeout_ms: int) -> list[int]:
        """'w' requests started more than ``timeout_ms`` ago go back to 'i' (their worker died)."""
        q = s.COMPACTION_QUEUE.c

        def run(conn: Connection) -> list[int]:
            limit = now_ms() - timeout_ms
            ids = [
                int(i)
                for i in conn.execute(
                    sa.select(q.CQ_ID).where(q.CQ_STATE == WORKING, q.CQ_START < limit)
                ).scalars()
            ]
            if ids:
                conn.execute(
                    sa.update(s.COMPACTION_QUEUE)
                    .where(q.CQ_ID.in_(ids), q.CQ_STATE == WORKING)
                    .values(CQ_STATE=INITIATED, CQ_WORKER_ID=None, CQ_START=None)
                )
            return ids

        return self._db.run_write(run)

    def revoke(self, cq_id: int, worker_id: str) -> bool:
        """Put request ``cq_id`` back to 'i' if it is still 'w' under ``worker_id`` (a worker known to be dead)."""
        q = s.COMPACTION_QUEUE.c

        def run(conn: Connection) -> bool:
            done = conn.execute(
                sa.update(s.COMPACTION_QUEUE)
                .where(q.CQ_ID == cq_id, q.CQ_STATE == WORKING, q.CQ_WORKER_ID == worker_id)
                .values(CQ_STATE=INITIATED, CQ_WORKER_ID=None, CQ_START=None)
            )
            return bool(done.rowcount)

        return self._db.run_write(run)

    # ------------------------------------------------------------------ reading the queue
    def get(self, cq_id: int) -> CompactionInfo | None:
        """A request by id, from the queue or the history."""
        with self._db.read() as conn:
            row = conn.execute(
                sa.select(s.COMPACTION_QUEUE).where(s.COMPACTION_QUEUE.c.CQ_ID == cq_id)
            ).one_or_none()
            if row is not None:
                return _info(row, "CQ")
            row = conn.execute(
                sa.select(s.COMPLETED_COMPACTIONS).where(s.COMPLETED_COMPACTIONS.c.CC_ID == cq_id)
            ).one_or_none()
            return _info(row, "CC") if row is not None else None

    def list(self) -> list[CompactionInfo]:
        """Queue and history, by id (what SHOW COMPACTIONS prints)."""
        with self._db.read() as conn:
            queued = [_info(r, "CQ") for r in conn.execute(sa.select(s.COMPACTION_QUEUE))]
            done = [_info(r, "CC") for r in conn.execute(sa.select(s.COMPLETED_COMPACTIONS))]
        return sorted(queued + done, key=lambda c: c.id)

    def in_state(self, *states: str) -> builtins.list[CompactionInfo]:
        """Queue rows in any of ``states``, oldest first."""
        q = s.COMPACTION_QUEUE.c
        with self._db.read() as conn:
            rows = conn.execute(sa.select(s.COMPACTION_QUEUE).where(q.CQ_STATE.in_(states)).order_by(q.CQ_ID)).all()
        return [_info(r, "CQ") for r in rows]

    def recent_failures(self, db: str, table: str, partition: str | None, limit: int) -> int:
        """How many of the directory's last ``limit`` finished compactions failed (or were attempted) in a row
        (Hive's ``checkFailedCompactions``: the initiator stops after
        ``hive.compactor.initiator.failed.compacts.threshold``)."""
        c = s.COMPLETED_COMPACTIONS.c
        where = [c.CC_DATABASE == db.lower(), c.CC_TABLE == table.lower()]
        where.append(c.CC_PARTITION.is_(None) if partition is None else c.CC_PARTITION == partition)
        with self._db.read() as conn:
            states = conn.execute(sa.select(c.CC_STATE).where(*where).order_by(c.CC_ID.desc()).limit(limit)).scalars()
            count = 0
            for st in states:
                if st not in (FAILED, ATTEMPTED):
                    break
                count += 1
        return count

    def purge_history(self, keep: dict[str, int]) -> int:
        """Keep the newest ``keep[state]`` finished compactions per directory and state (Hive's
        ``purgeCompactionHistory``: ``hive.compactor.history.retention.succeeded/failed/attempted``, 3/3/2)."""
        c = s.COMPLETED_COMPACTIONS.c

        def run(conn: Connection) -> int:
            rows = conn.execute(
                sa.select(c.CC_ID, c.CC_DATABASE, c.CC_TABLE, c.CC_PARTITION, c.CC_STATE).order_by(c.CC_ID.desc())
            ).all()
            seen: dict[tuple, int] = {}
            doomed = []
            for cc_id, db, table, part, state in rows:
                key = (db, table, part, state)
                seen[key] = seen.get(key, 0) + 1
                if seen[key] > keep.get(state, 1 << 30):
                    doomed.append(cc_id)
            for i in range(0, len(doomed), 500):
                conn.execute(sa.delete(s.COMPLETED_COMPACTIONS).where(c.CC_ID.in_(doomed[i : i + 500])))
            return len(doomed)

        return self._db.run_write(run)

    # ------------------------------------------------------------------ the cleaner's test
    def readers_done(self, info: CompactionInfo) -> bool:
        """No open transaction older than the compaction's output and no live read lease on the table taken
        before it: nobody can still be reading the files the output made obsolete."""
        return self.cleaning_waits_for(info) is None

    def cleaning_waits_for(self, info: CompactionInfo) -> str | None:
        """What keeps a request 'ready for cleaning' from being cleaned, in words (None: nothing): the open
        transactions older than its output and the live read leases on its table taken before it."""
        next_txn = int(info.meta.get("next_txn_id", 1 << 62))
        next_lease = int(info.meta.get("next_lease_id", 1 << 62))
        txns, leases = s.TXNS.c, s.HIVEACID_READ_LEASES.c
        with self._db.read() as conn:
            open_txns = conn.execute(
                sa.select(txns.TXN_ID).where(txns.TXN_STATE == "o", txns.TXN_ID < next_txn).order_by(txns.TXN_ID)
            ).scalars().all()
            live = conn.execute(
                sa.select(leases.RL_HOST, leases.RL_AGENT_INFO, leases.RL_EXPIRES)
                .where(
                    leases.RL_DATABASE == info.db,
                    leases.RL_TABLE == info.table,
                    leases.RL_ID < next_lease,
                    leases.RL_EXPIRES > now_ms(),
                )
                .order_by(leases.RL_EXPIRES)
            ).all()
        reasons = []
        if open_txns:
            reasons.append(f"{len(open_txns)} open transaction(s) older than it (first: txnid {open_txns[0]})")
        if live:
            host, agent, expires = live[-1]
            until = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(expires / 1000))
            reasons.append(f"{len(live)} read lease(s) on the table (last ends {until} UTC, {agent or '?'} on {host or '?'})")
        return "waiting for " + " and ".join(reasons) if reasons else None

    def aborted_txn_count(self, db: str, table: str) -> int:
        """Aborted transactions that hold a write id of the table (``tooManyAborts``' count)."""
        t2w, txns = s.TXN_TO_WRITE_ID.c, s.TXNS.c
        with self._db.read() as conn:
            return int(
                conn.execute(
                    sa.select(sa.func.count())
                    .select_from(s.TXN_TO_WRITE_ID.join(s.TXNS, txns.TXN_ID == t2w.T2W_TXNID))
                    .where(t2w.T2W_DATABASE == db.lower(), t2w.T2W_TABLE == table.lower(), txns.TXN_STATE == "a")
                ).scalar_one()
            )


@dataclass(frozen=True)
class LeaseInfo:
    """One live read lease as SHOW READ LEASES prints it.

    ``holder``: ``RUNNING`` (its process of this host runs), ``GONE`` (it exited: the cleaner's next round ends
    the lease) or ``UNKNOWN`` (another host's, or not ours: it lasts until ``expires``). ``blocks_cleaning``:
    the ids of the compactions 'ready for cleaning' on its table that wait for it (taken before they finished).
    """

    lease_id: int
    db: str
    table: str
    txn_id: int | None
    started: int  # epoch millis
    expires: int  # epoch millis
    host: str | None
    agent_info: str | None
    holder: str
    blocks_cleaning: list[int]


class ReadLeases:
    """Read leases: a snapshot read registers the tables it reads before it lists a single file."""

    def __init__(self, engine: sa.Engine) -> None:
        self._db = Db(engine)

    def acquire(
        self,
        tables: Iterable[tuple[str, str]],
        *,
        seconds: float,
        txn_id: int | None = None,
        host: str | None = None,
        agent: str | None = None,
    ) -> builtins.list[int]:
        """One lease per table, valid for ``seconds``; returns their ids (to :meth:`release`).

        The lease names its holder: this host and ``hiveacid-sql pid <n>``, so that :meth:`reap_dead` can end
        the leases of a process that exited without releasing them long before they expire.
        """
        host = socket.gethostname() if host is None else host
        agent = f"{LEASE_AGENT} pid {os.getpid()}" if agent is None else agent
        keys = sorted({(db.lower(), t.lower()) for db, t in tables})
        if not keys:
            return []

        def run(conn: Connection) -> list[int]:
            start = now_ms()
            ids = []
            for db, table in keys:
                lease_id = next_counter(conn, s.HIVEACID_NEXT_READ_LEASE_ID.c.NRL_NEXT)
                conn.execute(
                    sa.insert(s.HIVEACID_READ_LEASES).values(
                        RL_ID=lease_id, RL_DATABASE=db, RL_TABLE=table, RL_TXNID=txn_id, RL_STARTED=start,
                        RL_EXPIRES=start + int(seconds * 1000), RL_HOST=host[:128], RL_AGENT_INFO=agent[:128],
                    )
                )
                ids.append(lease_id)
            return ids

        return self._db.run_write(run)

    def release(self, ids: Iterable[int]) -> None:
        """End leases (unknown ids are ignored: releasing twice is harmless)."""
        ids = list(ids)
        if not ids:
            return

        def run(conn: Connection) -> None:
            conn.execute(sa.delete(s.HIVEACID_READ_LEASES).where(s.HIVEACID_READ_LEASES.c.RL_ID.in_(ids)))
            conn.execute(sa.delete(s.HIVEACID_READ_LEASES).where(s.HIVEACID_READ_LEASES.c.RL_EXPIRES < now_ms()))

        self._db.run_write(run)

    def reap_dead(self) -> builtins.list[int]:
        """End the leases of processes of this host that are gone (a script that exited, a killed kernel);
        returns their ids. Leases of other hosts lapse at their expiry only."""
        rl = s.HIVEACID_READ_LEASES.c
        me = socket.gethostname()
        with self._db.read() as conn:
            rows = conn.execute(
                sa.select(rl.RL_ID, rl.RL_AGENT_INFO).where(rl.RL_HOST == me, rl.RL_EXPIRES > now_ms())
            ).all()
        dead = [int(i) for i, agent in rows if not _holder_alive(agent)]
        if dead:
            self._db.run_write(
                lambda conn: conn.execute(sa.delete(s.HIVEACID_READ_LEASES).where(rl.RL_ID.in_(dead)))
            )
        return dead

    def show(self, db: str | None = None, table: str | None = None) -> builtins.list[LeaseInfo]:
        """The live leases (of one table, or all), by id, each with whether its holder still runs and which
        compactions 'ready for cleaning' it holds back (SHOW READ LEASES): what a user needs to see why the
        cleaner waits. An expired lease is not listed: the cleaner ignores it already."""
        rl, q = s.HIVEACID_READ_LEASES.c, s.COMPACTION_QUEUE.c
        query = sa.select(s.HIVEACID_READ_LEASES).where(rl.RL_EXPIRES > now_ms()).order_by(rl.RL_ID)
        waiting = sa.select(q.CQ_ID, q.CQ_DATABASE, q.CQ_TABLE, q.CQ_META_INFO).where(q.CQ_STATE == READY_FOR_CLEANING)
        if db is not None:
            query, waiting = query.where(rl.RL_DATABASE == db.lower()), waiting.where(q.CQ_DATABASE == db.lower())
        if table is not None:
            query, waiting = query.where(rl.RL_TABLE == table.lower()), waiting.where(q.CQ_TABLE == table.lower())
        with self._db.read() as conn:
            leases = conn.execute(query).mappings().all()
            cleaning = conn.execute(waiting.order_by(q.CQ_ID)).all()
        me = socket.gethostname()
        out = []
        for r in leases:
            blocks = [
                int(cq_id)
                for cq_id, cq_db, cq_table, meta in cleaning
                if (cq_db, cq_table) == (r["RL_DATABASE"], r["RL_TABLE"])
                and r["RL_ID"] < int(_meta(meta).get("next_lease_id", 1 << 62))
            ]
            pid = _holder_pid(r["RL_AGENT_INFO"])
            if r["RL_HOST"] != me or pid is None:
                holder = "UNKNOWN"  # another host's process, or a holder not ours: the lease lapses at expiry
            else:
                holder = "GONE" if pid != os.getpid() and process_gone(me, pid) else "RUNNING"
            out.append(
                LeaseInfo(
                    int(r["RL_ID"]), r["RL_DATABASE"], r["RL_TABLE"], r["RL_TXNID"], int(r["RL_STARTED"]),
                    int(r["RL_EXPIRES"]), r["RL_HOST"], r["RL_AGENT_INFO"], holder, blocks,
                )
            )
        return out

    def live(self) -> list[dict[str, Any]]:
        """Leases not yet expired, by id."""
        rl = s.HIVEACID_READ_LEASES.c
        with self._db.read() as conn:
            rows = conn.execute(
                sa.select(s.HIVEACID_READ_LEASES).where(rl.RL_EXPIRES > now_ms()).order_by(rl.RL_ID)
            ).mappings().all()
        return [dict(r) for r in rows]


def extend_leases(conn: Connection, leases: Mapping[int, int], expires_ms: int) -> None:
    """A heartbeat of read leases (lease id -> the end its holder gives it, epoch millis): each one not yet
    lapsed now expires at ``expires_ms`` or at its own end, whichever comes first. A lapsed lease stays lapsed
    (the cleaner may have removed its files meanwhile), and a released one stays gone (its row is deleted)."""
    rl = s.HIVEACID_READ_LEASES.c
    now = now_ms()
    whole = sorted(i for i, end in leases.items() if end >= expires_ms)
    for i in range(0, len(whole), 500):
        conn.execute(
            sa.update(s.HIVEACID_READ_LEASES)
            .where(rl.RL_ID.in_(whole[i : i + 500]), rl.RL_EXPIRES > now)
            .values(RL_EXPIRES=expires_ms)
        )
    for lease_id, end in sorted(leases.items()):  # the few that end before the next expiry
        if end < expires_ms:
            conn.execute(
                sa.update(s.HIVEACID_READ_LEASES)
                .where(rl.RL_ID == lease_id, rl.RL_EXPIRES > now)
                .values(RL_EXPIRES=end)
            )


#: RL_AGENT_INFO of our leases: ``hiveacid-sql pid <n>``.
LEASE_AGENT = "hiveacid-sql"


def _holder_pid(agent: str | None) -> int | None:
    """The pid a lease's agent names (``hiveacid-sql pid <n>``), None for any other form."""
    prefix = f"{LEASE_AGENT} pid "
    if not agent or not agent.startswith(prefix) or not agent[len(prefix):].isdigit():
        return None
    return int(agent[len(prefix):])


def _holder_alive(agent: str | None) -> bool:
    """Whether the process named by a lease's agent (``hiveacid-sql pid <n>``, this host) still runs; any other
    form counts as alive (it lapses at its expiry)."""
    pid = _holder_pid(agent)
    return pid is None or pid == os.getpid() or not process_gone(socket.gethostname(), pid)


def process_gone(host: str, pid: int) -> bool:
    """Whether process ``pid`` of ``host`` is known to have ended: only a process of this host can be checked;
    one of another host (or of another user here) is never declared gone."""
    if host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
