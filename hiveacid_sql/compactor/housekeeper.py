"""Housekeeping after the cleaner (Hive's ``AcidHouseKeeperService``): forget aborted transactions whose
files are gone, trim ``TXN_TO_WRITE_ID`` and ``WRITE_SET``.

Every compactor round runs it (the session's thread and ``hiveacid-sql compactor``). The store rules are in
:mod:`hiveacid_sql.txn.housekeeping`; this module supplies what only a reader of the file system knows:
whether anything of an aborted write id is still on disk. Any delta directory whose write-id range includes
it may hold its rows (``delta_W_W_S`` of a killed statement, but also a streaming batch's ``delta_F_L``, which
holds rows of every write id of the batch and is named like a minor compaction's output), and so does an
aborted INSERT OVERWRITE's ``base_W`` (not a compaction's base, which never holds aborted rows). Such
directories go when the cleaner finishes a major compaction of their table or partition (a minor one's
output still spans the id); until then the transaction stays aborted in the store, and its write ids stay
exceptions of every snapshot.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from hiveacid_sql.acid.listing import discover_partitions, filesystem_for, list_acid_dir
from hiveacid_sql.acid.names import ParsedBase, ParsedDelta, parse_dir_name
from hiveacid_sql.errors import AcidFormatError, HiveAcidError
from hiveacid_sql.txn import TxnStore


@dataclass(frozen=True)
class HousekeepingReport:
    """What one housekeeping pass did: aborted transactions purged (and those kept because files of theirs
    are left), TXN_TO_WRITE_ID and WRITE_SET rows removed, and how long it took."""

    purged_txns: int
    kept_txns: int
    trimmed_write_ids: int
    write_set_rows: int
    seconds: float


def aborted_write_ids_on_disk(store: TxnStore, db: str, table: str) -> set[int]:
    """Aborted write ids of ``db.table`` that still have a directory (in any partition directory on disk,
    registered or not: a killed writer's new partition never reached the catalog)."""
    try:
        tdef = store.catalog.get_table(db, table)
    except HiveAcidError:
        return set()  # dropped: its directories went with it (and its TXN_TO_WRITE_ID rows)
    aborted = store.snapshot([(db, table)]).write_ids(db, table).aborted
    if not aborted or not tdef.location:
        return set()
    fs, location = filesystem_for(tdef.location)
    keys = [k.name for k in tdef.partition_keys]
    parts = discover_partitions(fs, location, keys) if keys else [""]
    held: set[int] = set()
    for part in parts:
        root = f"{location.rstrip('/')}/{part}" if part else location
        for entry in list_acid_dir(fs, root).dirs:
            try:
                parsed = parse_dir_name(entry.name)
            except AcidFormatError:
                continue
            if isinstance(parsed, ParsedBase):
                if parsed.write_id in aborted and not entry.is_compacted:
                    held.add(parsed.write_id)
            elif isinstance(parsed, ParsedDelta):
                # any delta over W may hold W's rows: a streaming batch's delta_<first>_<last> holds rows of
                # each of its write ids, aborted ones too, and is named like a minor compaction's output
                # (which drops aborted events); only a major compaction's base leaves them behind for sure
                held.update(w for w in aborted if parsed.min_write_id <= w <= parsed.max_write_id)
    return held


def housekeep(store: TxnStore, aborted_for_s: float) -> HousekeepingReport:
    """Purge aborted transactions aborted more than ``aborted_for_s`` ago with nothing left on disk, then trim
    TXN_TO_WRITE_ID and WRITE_SET. Safe to run from several processes at once (each step is one store
    transaction that only removes rows every reader already treats alike)."""
    started = time.monotonic()
    found = store.aborted_candidates(aborted_for_s)
    purgeable = set(found.no_writes)
    kept: set[int] = set()
    for (db, table), ids in found.write_ids.items():
        held = aborted_write_ids_on_disk(store, db, table)
        for write_id, txn_id in ids.items():
            (kept if write_id in held else purgeable).add(txn_id)
    purgeable -= kept  # a transaction that wrote several tables goes only when all of them are clean
    purged = store.purge_aborted(purgeable)
    trimmed = store.trim_write_ids()
    write_set = store.gc_write_set()
    return HousekeepingReport(purged, len(kept), trimmed, write_set, time.monotonic() - started)
