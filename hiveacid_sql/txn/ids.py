# ruff: noqa: SIM300 - upper-case Hive column attributes look like constants to ruff
"""Object ids of catalog rows, taken from DataNucleus' ``SEQUENCE_TABLE`` the way Hive's metastore takes them.

Every metastore process sharing a database (Hive's ObjectStore over DataNucleus, and this store) reserves ids
from one row per model class: read ``NEXT_VAL`` under a row lock, hand out ``NEXT_VAL .. NEXT_VAL+n-1``, store
``NEXT_VAL+n``. So ids are never handed out twice and never reused. The reservation runs inside the caller's
database transaction; a row that is missing (or behind the table, e.g. rows copied in by an upgrade) starts
after the highest id already in the table.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.db import RetryTxn

_MODEL = "org.apache.hadoop.hive.metastore.model."
#: DataNucleus' sequence name (the model class) and the id column of each table whose ids it hands out.
SEQUENCES: dict[str, tuple[str, sa.Column]] = {
    "CTLGS": (_MODEL + "MCatalog", s.CTLGS.c.CTLG_ID),
    "DBS": (_MODEL + "MDatabase", s.DBS.c.DB_ID),
    "TBLS": (_MODEL + "MTable", s.TBLS.c.TBL_ID),
    "SDS": (_MODEL + "MStorageDescriptor", s.SDS.c.SD_ID),
    "SERDES": (_MODEL + "MSerDeInfo", s.SERDES.c.SERDE_ID),
    "CDS": (_MODEL + "MColumnDescriptor", s.CDS.c.CD_ID),
    "PARTITIONS": (_MODEL + "MPartition", s.PARTITIONS.c.PART_ID),
}


def reserve_ids(conn: Connection, table: str, count: int = 1) -> list[int]:
    """``count`` fresh ids for rows of ``table`` (a key of :data:`SEQUENCES`), reserved in this transaction."""
    if count <= 0:
        return []
    name, id_col = SEQUENCES[table]
    seq = s.SEQUENCE_TABLE.c
    stored = conn.execute(
        sa.select(seq.NEXT_VAL).where(seq.SEQUENCE_NAME == name).with_for_update()
    ).scalar()
    highest = conn.execute(sa.select(sa.func.max(id_col))).scalar()
    start = max(int(stored or 1), int(highest or 0) + 1)
    if stored is None:
        try:
            conn.execute(sa.insert(s.SEQUENCE_TABLE).values(SEQUENCE_NAME=name, NEXT_VAL=start + count))
        except sa.exc.IntegrityError as exc:  # another process created the row first: lock it next time
            raise RetryTxn(f"SEQUENCE_TABLE row {name} created concurrently") from exc
    else:
        conn.execute(
            sa.update(s.SEQUENCE_TABLE).where(seq.SEQUENCE_NAME == name).values(NEXT_VAL=start + count)
        )
    return list(range(start, start + count))
