# ruff: noqa: SIM300 - upper-case Hive-style column attributes look like constants to ruff
"""The write history of a table (``HIVEACID_WRITE_HISTORY``): one row per committed write id.

Rows are written by :meth:`TxnStore.commit_txn` in the same database transaction that commits, so a write
id is in the history exactly when it is committed; aborted write ids never appear. Write ids adopted with
data found on disk (:meth:`TxnStore.register_existing_write_ids`) get ``ADOPTED`` rows without text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from hiveacid_sql.txn import schema as s

#: The operation of write ids found on disk when a table was adopted (no statement, no counts).
ADOPTED = "ADOPTED"
#: At most this many ADOPTED rows per adoption (the highest write ids): a table written by Hive for years
#: can have millions of write ids, and one row each would be a cost with no reader.
MAX_ADOPTED_ROWS = 10_000
#: The longest statement text kept (the rest is cut, with a marker): 4 bytes a character stays within
#: MariaDB's 64 KiB TEXT.
MAX_STATEMENT_CHARS = 16_000


@dataclass(frozen=True)
class WriteRecord:
    """What one transaction did to one table under its write id: statement kinds, texts and row counts.

    Several statements of one transaction share the table's write id; their kinds and texts are joined
    (``"UPDATE; DELETE"``) and their counts summed.
    """

    db: str
    table: str
    write_id: int
    operation: str
    statement: str | None = None
    user: str | None = None
    rows_inserted: int = 0
    rows_updated: int = 0
    rows_deleted: int = 0


@dataclass(frozen=True)
class HistoryEntry:
    """One row of DESCRIBE HISTORY as the store holds it."""

    write_id: int
    txn_id: int | None
    commit_time_ms: int
    user: str | None
    operation: str
    statement: str | None
    rows_inserted: int | None
    rows_updated: int | None
    rows_deleted: int | None


def _cut(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_STATEMENT_CHARS:
        return text
    return text[:MAX_STATEMENT_CHARS] + " ..."


def insert_records(conn: Connection, txn_id: int | None, records: Sequence[WriteRecord], now_ms: int) -> None:
    """Write ``records`` as committed by ``txn_id`` at ``now_ms`` (inside the caller's transaction)."""
    if not records:
        return
    conn.execute(
        sa.insert(s.HIVEACID_WRITE_HISTORY),
        [
            {
                "WH_DATABASE": r.db.strip().lower(),
                "WH_TABLE": r.table.strip().lower(),
                "WH_WRITEID": r.write_id,
                "WH_TXNID": txn_id,
                "WH_COMMIT_TIME": now_ms,
                "WH_USER": (r.user or "")[:128] or None,
                "WH_OPERATION": r.operation[:128],
                "WH_STATEMENT": _cut(r.statement),
                "WH_ROWS_INSERTED": r.rows_inserted if r.operation != ADOPTED else None,
                "WH_ROWS_UPDATED": r.rows_updated if r.operation != ADOPTED else None,
                "WH_ROWS_DELETED": r.rows_deleted if r.operation != ADOPTED else None,
            }
            for r in records
        ],
    )


def adopted_records(conn: Connection, db: str, table: str, first: int, last: int) -> list[WriteRecord]:
    """``ADOPTED`` records for write ids ``first..last`` that have no history row yet (the highest
    :data:`MAX_ADOPTED_ROWS` of them)."""
    first = max(first, last - MAX_ADOPTED_ROWS + 1)
    if last < first:
        return []
    wh = s.HIVEACID_WRITE_HISTORY.c
    known = set(
        conn.execute(
            sa.select(wh.WH_WRITEID).where(
                wh.WH_DATABASE == db, wh.WH_TABLE == table, wh.WH_WRITEID >= first, wh.WH_WRITEID <= last
            )
        ).scalars()
    )
    return [WriteRecord(db, table, w, ADOPTED) for w in range(first, last + 1) if w not in known]


def read_history(conn: Connection, db: str, table: str) -> list[HistoryEntry]:
    """The table's history, newest write id first (as Delta's DESCRIBE HISTORY)."""
    wh = s.HIVEACID_WRITE_HISTORY.c
    rows = conn.execute(
        sa.select(
            wh.WH_WRITEID, wh.WH_TXNID, wh.WH_COMMIT_TIME, wh.WH_USER, wh.WH_OPERATION, wh.WH_STATEMENT,
            wh.WH_ROWS_INSERTED, wh.WH_ROWS_UPDATED, wh.WH_ROWS_DELETED,
        )
        .where(wh.WH_DATABASE == db.strip().lower(), wh.WH_TABLE == table.strip().lower())
        .order_by(wh.WH_WRITEID.desc())
    ).all()
    return [HistoryEntry(*row) for row in rows]
