# ruff: noqa: SIM300 - upper-case Hive column attributes look like constants to ruff
"""The store's garbage collection: Hive's ``AcidHouseKeeperService`` and the cleaner's store side.

Without it an aborted transaction's ``TXNS`` row stays for ever, so its id is an exception of every
ValidTxnList and its write ids exceptions of every table snapshot: snapshots (and the time to take them) grow
with every failed or killed statement. Hive's rules, adapted to where this store records what it knows:

* :func:`aborted_candidates` / :func:`purge_aborted` (Hive's ``cleanEmptyAbortedTxns``): an aborted
  transaction is forgotten once nothing it wrote is left on disk. Hive knows that from ``TXN_COMPONENTS``
  (written when locks are taken, emptied by the cleaner); here a statement records its components only at
  commit, so a killed writer's files have no component row. The caller (the compactor, which can list
  directories) therefore proves it from the files: no directory of any of the transaction's write ids is
  left. The purge deletes the ``TXNS`` row, its ``TXN_COMPONENTS`` and its ``TXN_TO_WRITE_ID`` rows: with no
  row its write ids count as committed, which is harmless because there is nothing of them to read.
* :func:`trim_write_ids` (Hive's ``cleanTxnToWriteIdTable``): ``TXN_TO_WRITE_ID`` rows of transactions below
  the lowest transaction still in ``TXNS`` (open or aborted) and below every open transaction's
  ``MIN_HISTORY_LEVEL`` are committed for every reader, present or future, so they are dropped.
* :func:`gc_write_set` (Hive's ``performWriteSetGC``): ``WRITE_SET`` rows committed before the oldest open
  transaction began can conflict with nobody.
* ``COMPLETED_TXN_COMPONENTS`` rows go when the cleaner finishes a compaction that covered them
  (``CompactionQueue.mark_cleaned``, as Hive's ``markCleaned``).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.db import peek_counter

#: Hive's ``TxnType``: DEFAULT is 0, COMPACTION (a compactor's transaction, Hive 4) is 3.
TXN_TYPE_COMPACTION = 3

ABORTED, OPEN = "a", "o"
_CHUNK = 500


@dataclass(frozen=True)
class AbortedCandidates:
    """Aborted transactions old enough to purge: ``no_writes`` hold no write id; ``write_ids`` maps
    ``(db, table)`` -> {write id: txn id} for the others (the caller checks their directories)."""

    no_writes: tuple[int, ...]
    write_ids: dict[tuple[str, str], dict[int, int]]

    @property
    def count(self) -> int:
        return len(self.no_writes) + len({t for ids in self.write_ids.values() for t in ids.values()})


def aborted_candidates(conn: Connection, aborted_before_ms: int) -> AbortedCandidates:
    """Aborted transactions last heard of (heartbeat or abort) before ``aborted_before_ms``, with their write ids.

    The delay protects against a writer that was aborted by the time-out while it still ran: it may still
    move a file into place, and a purge before that would make its write id count as committed.
    """
    txns, t2w = s.TXNS.c, s.TXN_TO_WRITE_ID.c
    ids = [
        int(t)
        for t in conn.execute(
            sa.select(txns.TXN_ID)
            .where(
                txns.TXN_STATE == ABORTED,
                # at or before (not only before): with a time-out of 0, an abort of this very millisecond counts
                sa.func.coalesce(txns.TXN_LAST_HEARTBEAT, 0) <= aborted_before_ms,
                # a compactor's transaction is never forgotten: a _v<txn> output it left would count as
                # committed (Hive 4 keeps TxnType.COMPACTION out of cleanEmptyAbortedAndCommittedTxns too)
                sa.func.coalesce(txns.TXN_TYPE, 0) != TXN_TYPE_COMPACTION,
            )
            .order_by(txns.TXN_ID)
        ).scalars()
    ]
    by_table: dict[tuple[str, str], dict[int, int]] = {}
    writers: set[int] = set()
    for i in range(0, len(ids), _CHUNK):
        chunk = ids[i : i + _CHUNK]
        for db, table, write_id, txn_id in conn.execute(
            sa.select(t2w.T2W_DATABASE, t2w.T2W_TABLE, t2w.T2W_WRITEID, t2w.T2W_TXNID).where(
                t2w.T2W_TXNID.in_(chunk)
            )
        ):
            by_table.setdefault((db, table), {})[int(write_id)] = int(txn_id)
            writers.add(int(txn_id))
    return AbortedCandidates(tuple(t for t in ids if t not in writers), by_table)


def purge_aborted(conn: Connection, txn_ids: list[int]) -> int:
    """Forget these aborted transactions (rows still aborted only; an id in another state is left alone)."""
    txns = s.TXNS.c
    purged = 0
    for i in range(0, len(txn_ids), _CHUNK):
        chunk = txn_ids[i : i + _CHUNK]
        mine = [
            int(t)
            for t in conn.execute(
                sa.select(txns.TXN_ID)
                .where(txns.TXN_ID.in_(chunk), txns.TXN_STATE == ABORTED)
                .with_for_update()
            ).scalars()
        ]
        if not mine:
            continue
        conn.execute(sa.delete(s.TXN_COMPONENTS).where(s.TXN_COMPONENTS.c.TC_TXNID.in_(mine)))
        conn.execute(sa.delete(s.TXN_TO_WRITE_ID).where(s.TXN_TO_WRITE_ID.c.T2W_TXNID.in_(mine)))
        purged += conn.execute(
            sa.delete(s.TXNS).where(txns.TXN_ID.in_(mine), txns.TXN_STATE == ABORTED)
        ).rowcount
    return purged


def min_uncommitted_txn(conn: Connection) -> int:
    """The lowest transaction id some reader may not see as committed: the oldest TXNS row (open or aborted),
    the oldest transaction any open transaction saw open (MIN_HISTORY_LEVEL), else the next id."""
    candidates = [
        peek_counter(conn, s.NEXT_TXN_ID.c.NTXN_NEXT),
        conn.execute(sa.select(sa.func.min(s.TXNS.c.TXN_ID))).scalar(),
        conn.execute(sa.select(sa.func.min(s.MIN_HISTORY_LEVEL.c.MHL_MIN_OPEN_TXNID))).scalar(),
    ]
    return min(int(c) for c in candidates if c is not None)


def trim_write_ids(conn: Connection) -> int:
    """Delete TXN_TO_WRITE_ID rows every reader sees as committed; returns how many went."""
    horizon = min_uncommitted_txn(conn)
    return conn.execute(sa.delete(s.TXN_TO_WRITE_ID).where(s.TXN_TO_WRITE_ID.c.T2W_TXNID < horizon)).rowcount


def gc_write_set(conn: Connection) -> int:
    """Delete WRITE_SET rows committed before the oldest open transaction began (nobody can conflict with them)."""
    txns, ws = s.TXNS.c, s.WRITE_SET.c
    min_open = conn.execute(sa.select(sa.func.min(txns.TXN_ID)).where(txns.TXN_STATE == OPEN)).scalar()
    horizon = min_open if min_open is not None else peek_counter(conn, s.NEXT_TXN_ID.c.NTXN_NEXT)
    return conn.execute(sa.delete(s.WRITE_SET).where(ws.WS_COMMIT_ID < horizon)).rowcount


def gc_completed_components(
    conn: Connection, db: str, table: str, partition: str | None, highest_write_id: int
) -> int:
    """A cleaned compaction's COMPLETED_TXN_COMPONENTS rows (its directory, write ids up to its highest)."""
    c = s.COMPLETED_TXN_COMPONENTS.c
    where = [c.CTC_DATABASE == db, c.CTC_TABLE == table, c.CTC_WRITEID <= highest_write_id]
    where.append(c.CTC_PARTITION.is_(None) if partition is None else c.CTC_PARTITION == partition)
    return conn.execute(sa.delete(s.COMPLETED_TXN_COMPONENTS).where(*where)).rowcount
