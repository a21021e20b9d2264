"""Housekeeping (Hive's AcidHouseKeeperService rules) on the real store backends, with table directories made
by hand: aborted transactions are forgotten only once nothing of theirs is on disk, TXN_TO_WRITE_ID is trimmed
below the lowest uncommitted transaction, WRITE_SET and COMPLETED_TXN_COMPONENTS are collected."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from hiveacid_sql.compactor.housekeeper import housekeep
from hiveacid_sql.txn import Column, TableDef, TxnStore
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.compactions import CompactionQueue


def _count(store: TxnStore, table: sa.Table) -> int:
    with store.engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())


def _table(store: TxnStore, where: Path, name: str = "t", partitioned: bool = False) -> Path:
    location = where / name
    store.catalog.create_table(
        TableDef(
            db="default",
            name=name,
            columns=(Column("id", "int"),),
            partition_keys=(Column("p", "int"),) if partitioned else (),
            location=location.as_uri(),
            storage_format="orc",
            table_type="MANAGED_TABLE",
            params={"transactional": "true"},
        )
    )
    return location


def _aborted_write(store: TxnStore, table: str = "t") -> tuple[int, int]:
    txn = store.open_txn("u", "h")
    write_id = store.allocate_write_id(txn, "default", table)
    store.abort_txn(txn)
    return txn, write_id


def _committed_write(store: TxnStore, table: str = "t", op: str = "i", partition: str | None = None) -> int:
    txn = store.open_txn("u", "h")
    write_id = store.allocate_write_id(txn, "default", table)
    store.add_components(txn, "default", table, write_id, op, [partition])
    store.commit_txn(txn)
    return write_id


def test_aborted_txns_are_purged_only_when_their_directories_are_gone(
    store: TxnStore, tmp_path: Path
) -> None:
    location = _table(store, tmp_path, partitioned=True)
    _committed_write(store, partition="p=1")
    left, w_left = _aborted_write(store)  # a killed writer's delta, in a partition the catalog never heard of
    (location / "p=9" / f"delta_{w_left:07d}_{w_left:07d}_0000").mkdir(parents=True)
    gone, w_gone = _aborted_write(store)  # rolled back: its files already removed
    idle = store.open_txn("u", "h")
    store.abort_txn(idle)  # no write id at all
    base, w_base = _aborted_write(store)  # an aborted INSERT OVERWRITE's base_W
    (location / "p=1" / f"base_{w_base:07d}").mkdir(parents=True)
    before = store.snapshot([("default", "t")])
    assert set(before.txns.aborted) == {left, gone, idle, base}
    assert before.write_ids("default", "t").aborted == {w_left, w_gone, w_base}

    # aborted just now: a writer aborted behind its back may still be finishing
    assert housekeep(store, aborted_for_s=3600).purged_txns == 0
    report = housekeep(store, aborted_for_s=0)
    assert (report.purged_txns, report.kept_txns) == (2, 2)
    after = store.snapshot([("default", "t")])
    assert set(after.txns.aborted) == {left, base}
    assert after.write_ids("default", "t").aborted == {w_left, w_base}
    assert store.txn_state(left) == "aborted"

    (location / "p=9" / f"delta_{w_left:07d}_{w_left:07d}_0000").rmdir()  # the cleaner removed them
    (location / "p=1" / f"base_{w_base:07d}").rmdir()
    assert housekeep(store, aborted_for_s=0).purged_txns == 2
    final = store.snapshot([("default", "t")])
    assert final.txns.exceptions == () and final.write_ids("default", "t").exceptions == ()
    assert _count(store, s.TXNS) == 0 and _count(store, s.TXN_TO_WRITE_ID) == 0


def test_any_delta_over_an_aborted_id_holds_it_until_a_compacted_base_replaces_it(
    store: TxnStore, tmp_path: Path
) -> None:
    location = _table(store, tmp_path)
    w1 = _committed_write(store)
    txn, w2 = _aborted_write(store)
    w3 = _committed_write(store)
    # a streaming batch's delta holds rows of each of its write ids, the aborted one's too; a minor
    # compaction's output has the same name, so neither lets the aborted id go
    span = location / f"delta_{w1:07d}_{w3:07d}"
    span.mkdir(parents=True)
    assert housekeep(store, aborted_for_s=0).kept_txns == 1
    span.rmdir()
    base = location / f"base_{w3:07d}"  # a major compaction's base: only valid rows
    base.mkdir()
    (base / "_metadata_acid").write_text('{"thisFileVersion":"0","dataFormat":"compacted"}')
    assert housekeep(store, aborted_for_s=0).purged_txns == 1
    assert store.snapshot([("default", "t")]).write_ids("default", "t").exceptions == ()
    assert txn not in store.valid_txns().exceptions


def test_a_txn_writing_two_tables_goes_when_both_are_clean(store: TxnStore, tmp_path: Path) -> None:
    a, b = _table(store, tmp_path, "a"), _table(store, tmp_path, "b")
    txn = store.open_txn("u", "h")
    wa, wb = store.allocate_write_id(txn, "default", "a"), store.allocate_write_id(txn, "default", "b")
    store.abort_txn(txn)
    (b / f"delta_{wb:07d}_{wb:07d}_0000").mkdir(parents=True)
    a.mkdir()
    assert housekeep(store, aborted_for_s=0).purged_txns == 0
    assert store.snapshot([("default", "a")]).write_ids("default", "a").aborted == {wa}  # a alone is clean
    (b / f"delta_{wb:07d}_{wb:07d}_0000").rmdir()
    assert housekeep(store, aborted_for_s=0).purged_txns == 1


def test_txn_to_write_id_is_trimmed_below_the_oldest_uncommitted_txn(store: TxnStore, tmp_path: Path) -> None:
    _table(store, tmp_path)
    _committed_write(store)
    reader = store.open_txn("u", "h")  # open: everything from it on must stay
    pinned = store.valid_txns(reader)
    writer = store.open_txn("u", "h")
    w = store.allocate_write_id(writer, "default", "t")
    store.commit_txn(writer)  # committed, but open for the reader's pinned snapshot
    assert _count(store, s.TXN_TO_WRITE_ID) == 2
    assert housekeep(store, aborted_for_s=0).trimmed_write_ids == 1
    # the pinned reader still sees the writer's write id as open
    seen = store.snapshot([("default", "t")], txn_id=reader, txns=pinned)
    assert w in seen.write_ids("default", "t").exceptions
    store.commit_txn(reader)
    assert housekeep(store, aborted_for_s=0).trimmed_write_ids == 1
    assert _count(store, s.TXN_TO_WRITE_ID) == 0
    assert store.snapshot([("default", "t")]).write_ids("default", "t").high_watermark == w


def test_write_set_and_completed_components_are_collected(store: TxnStore, tmp_path: Path) -> None:
    _table(store, tmp_path, partitioned=True)
    keeper = store.open_txn("u", "h")  # open since before the updates: may still conflict with them
    w1 = _committed_write(store, op="u", partition="p=1")
    w2 = _committed_write(store, op="u", partition="p=2")
    assert housekeep(store, aborted_for_s=0).write_set_rows == 0
    store.commit_txn(keeper)
    assert housekeep(store, aborted_for_s=0).write_set_rows == 2
    assert _count(store, s.WRITE_SET) == 0

    queue = CompactionQueue(store.engine)
    cq, _ = queue.enqueue("default", "t", "p=1", "major")
    queue.claim("w", cq)
    queue.mark_compacted(cq, max(w1, w2))
    assert _count(store, s.COMPLETED_TXN_COMPONENTS) == 2
    queue.mark_cleaned(cq)  # Hive's markCleaned: that partition's rows up to the compaction's write id
    with store.engine.connect() as conn:
        left = conn.execute(sa.select(s.COMPLETED_TXN_COMPONENTS.c.CTC_PARTITION)).scalars().all()
    assert left == ["p=2"]


def test_an_aborted_compactor_transaction_is_never_forgotten(store: TxnStore, tmp_path: Path) -> None:
    """A compactor's own transaction (Hive's TxnType.COMPACTION) makes its ``_v<txn>`` outputs visible by
    committing; forgotten once aborted, its id would count as committed and a leftover output with it."""
    _table(store, tmp_path)
    compactor = store.open_txn("u", "h", compaction=True)
    store.abort_txn(compactor)
    idle = store.open_txn("u", "h")
    store.abort_txn(idle)
    assert housekeep(store, aborted_for_s=0).purged_txns == 1
    assert store.txn_state(compactor) == "aborted"
    assert store.txn_state(idle) == "committed"  # forgotten: an id below NEXT_TXN_ID that is not in TXNS
