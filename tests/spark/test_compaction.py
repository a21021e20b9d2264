"""Compaction end to end: the walkthrough's section 4 exactly, SHOW COMPACTIONS, the cleaner and read leases,
failures that leave the table unchanged, aborted files, the initiator's thresholds, partitions, the service."""

from __future__ import annotations

import json
import re
import socket
import time

import pytest

from hiveacid_sql.compactor import Compactor
from hiveacid_sql.compactor.housekeeper import housekeep
from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.txn.compactions import CompactionQueue
from tests.support.acid_files import events, listing, metadata

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
WALKTHROUGH_MERGE = """MERGE INTO employee AS a
USING employee_update AS b ON a.id = b.id
WHEN MATCHED THEN UPDATE SET salary = b.salary
WHEN NOT MATCHED THEN INSERT VALUES (b.id, b.name, b.salary)"""


def _after_merge(acid) -> None:
    acid.sql(f"CREATE TABLE employee (id int, name string, salary int) {ACID}")
    acid.sql("INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000)")
    acid.sql("CREATE TABLE employee_update (id int, name string, salary int)")
    acid.sql("INSERT INTO employee_update VALUES (2, 'Tom', 7000), (4, 'Mary', 9000)")
    acid.sql(WALKTHROUGH_MERGE)


def _with_ids(acid, table: str = "employee") -> list[tuple]:
    rows = acid.sql(f"SELECT row__id, * FROM {table}").collect()
    return sorted((r[0].writeid, r[0].bucketid, r[0].rowid, *r[1:]) for r in rows)


def _dirs(path) -> list[str]:
    return sorted({p.split("/")[0] for p in listing(path)})


WALKTHROUGH_ROWS = [
    (1, 536870912, 0, 1, "Jerry", 5000),
    (1, 536870912, 2, 3, "Kate", 6000),
    (2, 536870912, 0, 4, "Mary", 9000),
    (2, 536870913, 0, 2, "Tom", 7000),
]


def test_walkthrough_minor_then_major_exactly(acid, warehouse):
    _after_merge(acid)
    table = warehouse / "employee"
    assert _with_ids(acid) == WALKTHROUGH_ROWS
    result = acid.sql("ALTER TABLE employee COMPACT 'minor' AND WAIT").collect()
    assert [(r.compactionid, r.type, r.state) for r in result] == [(1, "MINOR", "ready for cleaning")]
    assert _dirs(table) == [
        "delete_delta_0000001_0000002", "delete_delta_0000002_0000002_0001", "delta_0000001_0000001_0000",
        "delta_0000001_0000002", "delta_0000002_0000002_0000", "delta_0000002_0000002_0001",
    ]
    assert listing(table / "delta_0000001_0000002") == ["_orc_acid_version", "bucket_00000"]
    # both versions of Tom in the minor delta, sorted; the delete event kept with its ids
    assert events(table / "delta_0000001_0000002/bucket_00000") == [
        {"operation": 0, "originalTransaction": 1, "bucket": 536870912, "rowId": 0, "currentTransaction": 1,
         "row": {"id": 1, "name": "Jerry", "salary": 5000}},
        {"operation": 0, "originalTransaction": 1, "bucket": 536870912, "rowId": 1, "currentTransaction": 1,
         "row": {"id": 2, "name": "Tom", "salary": 8000}},
        {"operation": 0, "originalTransaction": 1, "bucket": 536870912, "rowId": 2, "currentTransaction": 1,
         "row": {"id": 3, "name": "Kate", "salary": 6000}},
        {"operation": 0, "originalTransaction": 2, "bucket": 536870912, "rowId": 0, "currentTransaction": 2,
         "row": {"id": 4, "name": "Mary", "salary": 9000}},
        {"operation": 0, "originalTransaction": 2, "bucket": 536870913, "rowId": 0, "currentTransaction": 2,
         "row": {"id": 2, "name": "Tom", "salary": 7000}},
    ]
    assert events(table / "delete_delta_0000001_0000002/bucket_00000") == [
        {"operation": 2, "originalTransaction": 1, "bucket": 536870912, "rowId": 1, "currentTransaction": 2, "row": None}
    ]
    assert (table / "delta_0000001_0000002/_orc_acid_version").read_bytes() == b"2"
    assert not (table / "delta_0000001_0000002/_metadata_acid").exists()
    assert _with_ids(acid) == WALKTHROUGH_ROWS
    compactor = Compactor(acid.spark, acid.store)
    acid.ctx.release_leases()  # this test's own earlier SELECTs are finished
    assert compactor.clean() == [1]
    assert _dirs(table) == ["delete_delta_0000001_0000002", "delta_0000001_0000002"]
    assert _with_ids(acid) == WALKTHROUGH_ROWS

    acid.sql("ALTER TABLE employee COMPACT 'major' AND WAIT")
    assert "base_0000002" in _dirs(table)
    base_files = sorted(p for p in listing(table / "base_0000002") if p.startswith("bucket_"))
    base_events = [e for f in base_files for e in events(table / "base_0000002" / f)]
    assert sorted((e["originalTransaction"], e["bucket"], e["rowId"], e["row"]["name"]) for e in base_events) == [
        (1, 536870912, 0, "Jerry"), (1, 536870912, 2, "Kate"), (2, 536870912, 0, "Mary"), (2, 536870913, 0, "Tom")
    ]
    assert all(e["operation"] == 0 and e["currentTransaction"] == e["originalTransaction"] for e in base_events)
    assert json.loads((table / "base_0000002/_metadata_acid").read_text()) == {
        "thisFileVersion": "0", "dataFormat": "compacted"}
    assert (table / "base_0000002/_orc_acid_version").read_bytes() == b"2"
    assert metadata(table / "base_0000002" / base_files[0])["hive.acid.version"] == "2"
    assert _with_ids(acid) == WALKTHROUGH_ROWS
    acid.ctx.release_leases()
    assert compactor.clean() == [2]
    assert _dirs(table) == ["base_0000002"]
    assert _with_ids(acid) == WALKTHROUGH_ROWS
    shown = acid.sql("SHOW COMPACTIONS").collect()
    assert [(r.compactionid, r.dbname, r.tabname, r.partname, r.type, r.state) for r in shown] == [
        (1, "default", "employee", "---", "MINOR", "succeeded"),
        (2, "default", "employee", "---", "MAJOR", "succeeded"),
    ]
    assert all(r.starttime is not None and r.duration >= 0 and r.highestwriteid == 2 for r in shown)


def _queue(acid) -> CompactionQueue:
    return CompactionQueue(acid.store.engine)


def _release_session_reads(acid) -> None:
    acid.ctx.release_leases()


def test_reader_started_before_major_and_clean_gets_its_full_result(acid, warehouse):
    _after_merge(acid)
    table = warehouse / "employee"
    frame = acid.sql("SELECT row__id, * FROM employee")  # lazy: its files are chosen now, read later
    acid.sql("ALTER TABLE employee COMPACT 'major' AND WAIT")
    compactor = Compactor(acid.spark, acid.store)
    assert compactor.clean() == []  # the returned DataFrame's lease holds the old files
    assert "delta_0000001_0000001_0000" in _dirs(table)
    got = sorted((r[0].writeid, r[0].bucketid, r[0].rowid, *r[1:]) for r in frame.collect())
    assert got == WALKTHROUGH_ROWS
    _release_session_reads(acid)
    assert compactor.clean() == [1]
    assert _dirs(table) == ["base_0000002"]
    assert _with_ids(acid) == WALKTHROUGH_ROWS


def test_open_transaction_older_than_the_compaction_blocks_the_cleaner(acid, warehouse):
    _after_merge(acid)
    txn = acid.store.open_txn("someone", "somewhere")
    acid.sql("ALTER TABLE employee COMPACT 'minor' AND WAIT")
    compactor = Compactor(acid.spark, acid.store)
    _release_session_reads(acid)
    assert compactor.clean() == []
    acid.store.commit_txn(txn)
    assert compactor.clean() == [1]
    assert _dirs(warehouse / "employee") == ["delete_delta_0000001_0000002", "delta_0000001_0000002"]


def test_compaction_killed_midway_leaves_the_table_unchanged_and_is_finished_later(acid, warehouse, monkeypatch):
    _after_merge(acid)
    table = warehouse / "employee"
    before = listing(table)
    compactor = Compactor(acid.spark, acid.store, {"hive.compactor.worker.timeout": "0"})
    real_publish = Compactor._publish  # noqa: SLF001 - fault injection

    def killed(self, *args):  # the process dies after the job wrote its files, before they are moved
        raise KeyboardInterrupt

    monkeypatch.setattr(Compactor, "_publish", killed)
    cq_id, _ = _queue(acid).enqueue("default", "employee", None, "major")
    with pytest.raises(KeyboardInterrupt):
        compactor.work_one()
    visible = [p for p in listing(table) if not p.startswith("_tmp_")]
    assert visible == before  # only the hidden build directory was added
    assert any(p.startswith("_tmp_") for p in listing(table))
    assert _with_ids(acid) == WALKTHROUGH_ROWS
    assert _queue(acid).get(cq_id).state_name == "working"
    monkeypatch.setattr(Compactor, "_publish", real_publish)
    result = compactor.work_one()  # the worker timed out (timeout 0): the request is taken again
    assert result is not None and result.state == "r" and result.compaction.id == cq_id
    assert "base_0000002" in _dirs(table)
    assert _with_ids(acid) == WALKTHROUGH_ROWS


def test_failed_compaction_is_recorded_and_changes_nothing(acid, warehouse, monkeypatch):
    _after_merge(acid)
    table = warehouse / "employee"
    before = listing(table)

    def broken(self, *args):
        raise OSError("disk full")

    monkeypatch.setattr(Compactor, "_publish", broken)
    rows = acid.sql("ALTER TABLE employee COMPACT 'minor' AND WAIT").collect()
    assert [(r.state, r.message) for r in rows] == [("failed", "OSError: disk full")]
    assert listing(table) == before  # the build directory is gone too
    assert _with_ids(acid) == WALKTHROUGH_ROWS
    shown = acid.sql("SHOW COMPACTIONS").collect()
    assert [(r.state, r.errormessage) for r in shown] == [("failed", "OSError: disk full")]


def _write_delta(directory, write_id: int, rows: list[tuple[int, str]], rows_per_stripe: int = 500_000) -> None:
    """A delta as a writer that died would have left it (its own events, currentTransaction = its write id)."""
    import pyarrow as pa

    from hiveacid_sql.acid.hive_types import parse_hive_type
    from hiveacid_sql.acid.orc_fast_writer import open_event_writer

    directory.mkdir()
    (directory / "_orc_acid_version").write_bytes(b"2")
    n = len(rows)
    events = pa.table({
        "operation": pa.array([0] * n, pa.int32()),
        "originalTransaction": pa.array([write_id] * n, pa.int64()),
        "bucket": pa.array([536870912] * n, pa.int32()),
        "rowId": pa.array(range(n), pa.int64()),
        "currentTransaction": pa.array([write_id] * n, pa.int64()),
        "row": pa.array([{"id": i, "v": v} for i, v in rows], pa.struct([("id", pa.int32()), ("v", pa.string())])),
    })
    with open(directory / "bucket_00000", "wb") as f:
        writer = open_event_writer(
            f, [("id", parse_hive_type("int")), ("v", parse_hive_type("string"))], rows_per_stripe=rows_per_stripe,
            writer="pyorc",  # cuts its stripes exactly
        )
        for start in range(0, n, rows_per_stripe):
            writer.write_batch(events.slice(start, rows_per_stripe))
        writer.close()


def test_cleaner_removes_aborted_transactions_files(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int, v string) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    table = warehouse / "t"
    # a writer that died: its write id is allocated, its files are on disk, then its txn is aborted
    txn = acid.store.open_txn("crashed", "host")
    write_id = acid.store.allocate_write_id(txn, "default", "t")
    _write_delta(table / f"delta_{write_id:07d}_{write_id:07d}_0000", write_id, [(99, "zombie")])
    acid.store.abort_txn(txn)
    acid.sql("INSERT INTO t VALUES (3, 'c')")
    assert sorted(tuple(r) for r in acid.sql("SELECT * FROM t").collect()) == [(1, "a"), (2, "b"), (3, "c")]
    acid.sql("ALTER TABLE t COMPACT 'minor' AND WAIT")
    minor = [e["row"]["id"] for e in events(table / "delta_0000001_0000003/bucket_00000")]
    assert minor == [1, 2, 3]  # the aborted write id's event is dropped
    snap = acid.store.snapshot([("default", "t")])
    assert snap.txns.aborted == {txn} and snap.write_ids("default", "t").exceptions == (write_id,)
    assert housekeep(acid.store, aborted_for_s=0).kept_txns == 1  # its delta is still there
    _release_session_reads(acid)
    assert Compactor(acid.spark, acid.store).clean() == [1]
    assert _dirs(table) == ["delete_delta_0000001_0000003", "delta_0000001_0000003"]
    # the minor output spans its id (a streaming batch's delta of that name could hold its rows): kept
    assert housekeep(acid.store, aborted_for_s=0).kept_txns == 1
    acid.sql("ALTER TABLE t COMPACT 'major' AND WAIT")
    _release_session_reads(acid)
    assert Compactor(acid.spark, acid.store).clean() == [2]
    assert _dirs(table) == ["base_0000003"]
    assert Compactor(acid.spark, acid.store).housekeep().purged_txns == 0  # aborted < hive.txn.timeout ago
    assert housekeep(acid.store, aborted_for_s=0).purged_txns == 1  # only a compacted base left: forgotten
    snap = acid.store.snapshot([("default", "t")])
    assert snap.txns.exceptions == () and snap.write_ids("default", "t").exceptions == ()
    assert sorted(tuple(r) for r in acid.sql("SELECT * FROM t").collect()) == [(1, "a"), (2, "b"), (3, "c")]


def test_compact_refuses_bad_requests_and_changes_nothing(acid):
    acid.sql("CREATE TABLE plain (id int)")
    with pytest.raises(HiveAcidError, match="Compaction is not allowed on non-ACID table default.plain"):
        acid.sql("ALTER TABLE plain COMPACT 'major'")
    acid.sql(f"CREATE TABLE pt (id int) PARTITIONED BY (p string) {ACID}")
    acid.sql("INSERT INTO pt PARTITION (p='a') VALUES (1)")
    with pytest.raises(HiveAcidError, match="does not exist"):
        acid.sql("ALTER TABLE pt PARTITION (p='zz') COMPACT 'major'")
    with pytest.raises(HiveAcidError, match="not a partition column"):
        acid.sql("ALTER TABLE pt PARTITION (id=1) COMPACT 'major'")
    with pytest.raises(HiveAcidError):
        acid.sql("ALTER TABLE missing COMPACT 'major'")
    assert acid.sql("SHOW COMPACTIONS").count() == 0


def test_second_request_for_the_same_directory_returns_the_queued_one(acid):
    acid.sql(f"CREATE TABLE t (id int) {ACID}")
    acid.sql("INSERT INTO t VALUES (1)")
    first = acid.sql("ALTER TABLE t COMPACT 'major'").collect()
    second = acid.sql("ALTER TABLE t COMPACT 'minor'").collect()
    assert [(r.compactionid, r.state) for r in first] == [(1, "initiated")]
    assert [(r.compactionid, r.message) for r in second] == [(1, "Compaction already enqueued with id 1; State is initiated")]
    assert [(r.compactionid, r.type, r.state, r.workerid) for r in acid.sql("SHOW COMPACTIONS").collect()] == [
        (1, "MAJOR", "initiated", "---")
    ]


def test_partitioned_table_compacts_per_partition(acid, warehouse):
    acid.sql(f"CREATE TABLE pt (id int, v string) PARTITIONED BY (p string) {ACID}")
    acid.sql("INSERT INTO pt VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    acid.sql("INSERT INTO pt VALUES (3, 'c', 'x'), (4, 'd', 'y')")
    acid.sql("UPDATE pt SET v = 'B' WHERE id = 2")
    acid.sql("DELETE FROM pt WHERE id = 3")
    before = _with_ids(acid, "pt")
    one = acid.sql("ALTER TABLE pt PARTITION (p='x') COMPACT 'minor' AND WAIT").collect()
    assert [(r.partname, r.state) for r in one] == [("p=x", "ready for cleaning")]
    assert "delta_0000001_0000004" in _dirs(warehouse / "pt" / "p=x")
    assert not any(d.startswith("delta_0000001_0000004") for d in _dirs(warehouse / "pt" / "p=y"))
    assert _with_ids(acid, "pt") == before
    both = acid.sql("ALTER TABLE pt COMPACT 'major' AND WAIT").collect()
    assert sorted((r.partname, r.type, r.state) for r in both) == [
        ("p=x", "MAJOR", "ready for cleaning"), ("p=y", "MAJOR", "ready for cleaning")]
    assert _with_ids(acid, "pt") == before
    _release_session_reads(acid)
    assert sorted(Compactor(acid.spark, acid.store).clean()) == [1, 2, 3]
    assert _dirs(warehouse / "pt" / "p=x") == ["base_0000004"]
    assert _dirs(warehouse / "pt" / "p=y") == ["base_0000003"]
    assert _with_ids(acid, "pt") == before


def test_initiator_thresholds(acid):
    acid.sql(f"CREATE TABLE t (id int) {ACID}")
    for i in range(3):
        acid.sql(f"INSERT INTO t VALUES ({i})")
    compactor = Compactor(acid.spark, acid.store)
    table = acid.catalog.get_table("default", "t")
    assert compactor.compaction_type(table, None, 0) is None  # 3 deltas <= 10
    assert compactor.initiate() == []
    acid.sql("ALTER TABLE t SET TBLPROPERTIES ('compactorthreshold.hive.compactor.delta.num.threshold'='2')")
    table = acid.catalog.get_table("default", "t")
    assert compactor.compaction_type(table, None, 0) == "major"  # more deltas than 2, and no base yet
    acid.sql("ALTER TABLE t SET TBLPROPERTIES ('NO_AUTO_COMPACTION'='true')")
    assert compactor.initiate() == []
    acid.sql("ALTER TABLE t UNSET TBLPROPERTIES ('NO_AUTO_COMPACTION')")
    assert compactor.initiate() == [1]
    assert compactor.initiate() == []  # already queued
    compactor.work_all()
    _release_session_reads(acid)
    compactor.clean()
    for i in range(3, 6):
        acid.sql(f"INSERT INTO t VALUES ({i})")
    table = acid.catalog.get_table("default", "t")
    assert compactor.compaction_type(table, None, 0) == "major"  # delta bytes / base bytes > 0.1
    acid.sql("ALTER TABLE t SET TBLPROPERTIES ('compactorthreshold.hive.compactor.delta.pct.threshold'='50')")
    table = acid.catalog.get_table("default", "t")
    assert compactor.compaction_type(table, None, 0) == "minor"  # 3 deltas > 2 over a base
    assert Compactor(acid.spark, acid.store, {"hive.compactor.abortedtxn.threshold": "0"}).compaction_type(
        table, None, 1) == "major"
    assert compactor.compaction_type(table, None, 1) == "minor"  # 1 aborted txn <= 1000
    assert sorted(r[0] for r in acid.sql("SELECT id FROM t").collect()) == list(range(6))


def test_session_thread_initiates_works_and_cleans(acid):
    import time

    acid.sql(f"CREATE TABLE t (id int) {ACID} ")
    acid.sql("ALTER TABLE t SET TBLPROPERTIES ('compactorthreshold.hive.compactor.delta.num.threshold'='1')")
    acid.sql("INSERT INTO t VALUES (1)")
    acid.sql("INSERT INTO t VALUES (2)")
    acid.sql("SET hive.compactor.check.interval=1s")
    acid.sql("SET hive.compactor.cleaner.run.interval=200ms")
    acid.sql("SET hive.compactor.worker.threads=1")
    acid.sql("SET hive.compactor.initiator.on=true")
    deadline = time.monotonic() + 120
    states: list = []
    while time.monotonic() < deadline:
        states = [(r.type, r.state) for r in acid.sql("SHOW COMPACTIONS").collect()]
        if states == [("MAJOR", "succeeded")]:
            break
        time.sleep(0.5)
    _release_session_reads(acid)
    assert states == [("MAJOR", "succeeded")], acid.ctx.compactor_thread.last_error
    acid.sql("SET hive.compactor.initiator.on=false")
    acid.sql("SET hive.compactor.worker.threads=0")
    assert acid.ctx.compactor_thread is None
    assert sorted(r[0] for r in acid.sql("SELECT id FROM t").collect()) == [1, 2]


def test_compactor_command_rejects_bad_arguments(capsys):
    from hiveacid_sql.cli import main

    assert main(["compactor", "--conf", "nonsense"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ randomized
from hypothesis import HealthCheck, Phase, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_ids = st.integers(0, 12)
_insert = st.tuples(st.just("insert"), st.lists(st.tuples(_ids, st.integers(0, 99)), min_size=1, max_size=4))
_change = st.tuples(st.sampled_from(["update", "delete"]), st.integers(2, 4), st.integers(0, 3))
_merge = st.tuples(
    st.just("merge"), st.lists(st.tuples(_ids, st.integers(0, 99)), min_size=1, max_size=3, unique_by=lambda r: r[0])
)
_ops = st.lists(st.one_of(_insert, _change, _merge), min_size=1, max_size=4)
_counter = iter(range(1_000_000))


def _apply(acid, table: str, op) -> None:
    if op[0] == "insert":
        acid.sql(f"INSERT INTO {table} VALUES " + ", ".join(f"({i}, {v})" for i, v in op[1]))
    elif op[0] == "update":
        acid.sql(f"UPDATE {table} SET v = v + 1 WHERE id % {op[1]} = {op[2] % op[1]}")
    elif op[0] == "delete":
        acid.sql(f"DELETE FROM {table} WHERE id % {op[1]} = {op[2] % op[1]}")
    else:
        source = " UNION ALL ".join(f"SELECT {i} AS id, {v} AS v" for i, v in op[1])
        acid.sql(
            f"MERGE INTO {table} AS t USING ({source}) AS s ON t.id = s.id "
            "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)"
        )


@settings(
    max_examples=3, deadline=None, phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@example(first=[("insert", [(0, 0)])], second=[("insert", [(0, 0)])])  # a no-op minor, then a base above it
@given(first=_ops, second=_ops)
def test_random_histories_keep_rows_and_row_ids_through_minor_major_and_cleaning(acid, first, second):
    table = f"r{next(_counter)}"
    acid.sql(f"CREATE TABLE {table} (id int, v int) {ACID}")
    for op in first:
        _apply(acid, table, op)
    before = _with_ids(acid, table)
    acid.sql(f"ALTER TABLE {table} COMPACT 'minor' AND WAIT")
    assert _with_ids(acid, table) == before
    for op in second:
        _apply(acid, table, op)
    before = _with_ids(acid, table)
    acid.sql(f"ALTER TABLE {table} COMPACT 'minor' AND WAIT")
    assert _with_ids(acid, table) == before
    acid.sql(f"ALTER TABLE {table} COMPACT 'major' AND WAIT")
    assert _with_ids(acid, table) == before
    _release_session_reads(acid)
    Compactor(acid.spark, acid.store).clean()
    assert _with_ids(acid, table) == before
    assert all(c.state_name == "succeeded" for c in _queue(acid).list() if c.table == table)


def test_worker_dying_between_the_two_renames_of_a_minor_compaction(acid, warehouse, monkeypatch):
    _after_merge(acid)
    table = warehouse / "employee"
    compactor = Compactor(acid.spark, acid.store, {"hive.compactor.worker.timeout": "0"})
    real_publish = Compactor._publish  # noqa: SLF001 - fault injection

    def dies_after_first(self, fs, root, build, outputs):
        fs.move(f"{build}/{outputs[0]}", f"{root}/{outputs[0]}")  # the insert output is moved ...
        raise KeyboardInterrupt  # ... and the process dies

    monkeypatch.setattr(Compactor, "_publish", dies_after_first)
    cq_id, _ = _queue(acid).enqueue("default", "employee", None, "minor")
    with pytest.raises(KeyboardInterrupt):
        compactor.work_one()
    assert "delta_0000001_0000002" in _dirs(table) and "delete_delta_0000001_0000002" not in _dirs(table)
    assert _with_ids(acid) == WALKTHROUGH_ROWS  # the lone output is ignored: Tom's old row stays deleted
    monkeypatch.setattr(Compactor, "_publish", real_publish)
    result = compactor.work_one()  # the next attempt finishes the move, then finds nothing more to do
    assert result.compaction.id == cq_id and result.state == "r"
    assert {"delta_0000001_0000002", "delete_delta_0000001_0000002"} <= set(_dirs(table))
    assert _with_ids(acid) == WALKTHROUGH_ROWS


def test_initiator_records_a_failed_check_as_attempted_and_gives_up_after_two(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int) {ACID}")
    acid.sql("INSERT INTO t VALUES (1)")
    broken = warehouse / "t" / "base_0000001"
    broken.mkdir()
    (broken / "_metadata_acid").write_text("{not json")
    compactor = Compactor(acid.spark, acid.store)
    assert compactor.initiate() == []
    assert compactor.initiate() == []
    assert compactor.initiate() == []  # two in a row: the initiator leaves the table alone
    shown = acid.sql("SHOW COMPACTIONS").collect()
    assert [(r.state, r.errormessage.split(":")[0]) for r in shown] == [("attempted", "AcidFormatError")] * 2


def test_major_compaction_writes_out_original_files_synthetic_row_ids(acid, tmp_path, fixtures_dir):
    import shutil

    table = tmp_path / "dummy"
    shutil.copytree(fixtures_dir / "dummy_id_data_orc", table)
    acid.sql(f"CREATE TABLE dummy (id int, data string, comment string) STORED AS ORC LOCATION '{table}' "
             "TBLPROPERTIES ('transactional'='true')")
    before = _with_ids(acid, "dummy")
    assert {r[0] for r in before} == {0} and len(before) == 19
    acid.sql("ALTER TABLE dummy COMPACT 'major' AND WAIT")
    base = [d for d in _dirs(table) if d.startswith("base_")]
    assert len(base) == 1
    written = sorted(p for p in listing(table / base[0]) if p.startswith("bucket_"))
    assert written == ["bucket_00000", "bucket_00001", "bucket_00002"]
    rows = [e for f in written for e in events(table / base[0] / f)]
    assert sorted((e["originalTransaction"], e["bucket"], e["rowId"], e["row"]["id"]) for e in rows) == sorted(
        (r[0], r[1], r[2], r[3]) for r in before)
    assert _with_ids(acid, "dummy") == before
    _release_session_reads(acid)
    Compactor(acid.spark, acid.store).clean()
    assert _dirs(table) == base  # the original files and the delete delta are gone
    assert _with_ids(acid, "dummy") == before


def test_bucketed_table_compacts_bucket_by_bucket(acid, warehouse):
    acid.sql(f"CREATE TABLE b (id int, v string) CLUSTERED BY (id) INTO 2 BUCKETS {ACID}")
    acid.sql("INSERT INTO b VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    acid.sql("UPDATE b SET v = 'x' WHERE id IN (1, 2)")
    acid.sql("DELETE FROM b WHERE id = 3")
    before = _with_ids(acid, "b")
    acid.sql("ALTER TABLE b COMPACT 'minor' AND WAIT")
    table = warehouse / "b"
    assert listing(table / "delta_0000001_0000003") == ["_orc_acid_version", "bucket_00000", "bucket_00001"]
    for name in ("delta_0000001_0000003", "delete_delta_0000001_0000003"):
        for f in [p for p in listing(table / name) if p.startswith("bucket_")]:
            bucket_id = int(f.split("_")[1])
            assert {(e["bucket"] >> 16) & 0xFFF for e in events(table / name / f)} == {bucket_id}
    assert _with_ids(acid, "b") == before
    acid.sql("ALTER TABLE b COMPACT 'major' AND WAIT")
    assert _with_ids(acid, "b") == before


def test_compactor_command_runs_one_round(acid, spark, warehouse, capsys):
    from hiveacid_sql.cli.compactor import main

    _after_merge(acid)
    acid.sql("ALTER TABLE employee SET TBLPROPERTIES ('compactorthreshold.hive.compactor.delta.num.threshold'='1')")
    _release_session_reads(acid)
    assert main(["--once", "--warehouse", str(warehouse)], spark=spark) == 0
    assert "compactor: initiated [1] worked [1] cleaned [1]" in capsys.readouterr().out
    assert _dirs(warehouse / "employee") == ["base_0000002"]
    assert _with_ids(acid) == WALKTHROUGH_ROWS


def test_read_leases_of_queries_and_statements(acid, spark, warehouse):
    import hiveacid_sql
    from hiveacid_sql.txn.compactions import ReadLeases

    acid.sql(f"CREATE TABLE t (id int) {ACID}")
    acid.sql("INSERT INTO t VALUES (1), (2)")
    acid.sql("CREATE TABLE plain (id int)")
    leases = ReadLeases(acid.store.engine)
    assert leases.live() == []
    acid.sql("INSERT INTO plain SELECT id FROM t")  # held while the statement ran, released after
    assert leases.live() == []
    acid.sql("SET hiveacid.read.lease.seconds=120")
    frame = acid.sql("SELECT * FROM t JOIN plain USING (id)")  # a lease on the ACID table only
    live = leases.live()
    assert [(r["RL_DATABASE"], r["RL_TABLE"]) for r in live] == [("default", "t")]
    assert 119_000 <= live[0]["RL_EXPIRES"] - live[0]["RL_STARTED"] <= 120_000
    assert sorted(r[0] for r in frame.collect()) == [1, 2]
    # heartbeated by the connection: it lapses one hive.txn.timeout after the last beat, and the connection
    # keeps it alive for hiveacid.read.lease.seconds at most
    acid.ctx.release_leases()
    acid.sql("SET hive.txn.timeout=1s")
    acid.sql("SET hiveacid.read.lease.seconds=2")
    acid.sql("SELECT * FROM t")
    (lease,) = leases.live()
    assert lease["RL_EXPIRES"] - lease["RL_STARTED"] == 1000
    time.sleep(1.4)
    (beaten,) = leases.live()
    assert beaten["RL_ID"] == lease["RL_ID"] and beaten["RL_EXPIRES"] > lease["RL_EXPIRES"]
    assert beaten["RL_EXPIRES"] <= lease["RL_STARTED"] + 2000
    time.sleep(0.9)
    assert leases.live() == [] and acid.ctx.lease_ids == []
    acid.sql("SELECT * FROM t")
    other = hiveacid_sql.connect(spark=spark, warehouse=warehouse)
    acid.close()  # closing the session ends its leases
    assert ReadLeases(other.store.engine).live() == []
    other.close()


def test_compaction_keeps_every_type_and_files_written_before_add_columns(acid):
    acid.sql(
        "CREATE TABLE ty (id int, d decimal(10,2), dt date, ts timestamp, s varchar(5), c char(3), "
        f"a array<int>, m map<string,int>, st struct<x:int,y:string>, b binary) {ACID}"
    )
    acid.sql(
        "INSERT INTO ty SELECT 1, 12.34, DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:58.123456', 'abcdefg', 'x', "
        "array(1, NULL), map('k', 1), named_struct('x', 1, 'y', 'y'), cast('bin' AS binary)"
    )
    acid.sql("INSERT INTO ty SELECT 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL")
    acid.sql("ALTER TABLE ty ADD COLUMNS (extra string)")
    acid.sql("INSERT INTO ty SELECT 3, -0.5, DATE '2024-02-29', TIMESTAMP '2024-02-29 12:00:00', 'é', 'abc', "
             "array(), map(), named_struct('x', NULL, 'y', NULL), cast('' AS binary), 'new'")
    acid.sql("UPDATE ty SET extra = 'upd' WHERE id = 1")
    before = _with_ids(acid, "ty")
    acid.sql("ALTER TABLE ty COMPACT 'minor' AND WAIT")
    assert _with_ids(acid, "ty") == before
    acid.sql("ALTER TABLE ty COMPACT 'major' AND WAIT")
    assert _with_ids(acid, "ty") == before
    one = [r for r in before if r[3] == 1][0]
    assert str(one[4]) == "12.34" and one[7] == "abcde" and one[8] == "x  " and one[-1] == "upd"


def test_worker_dying_while_building_leaves_nothing_visible_and_the_retry_tidies_up(acid, warehouse, monkeypatch):
    _after_merge(acid)
    table = warehouse / "employee"
    before = listing(table)
    compactor = Compactor(acid.spark, acid.store, {"hive.compactor.worker.timeout": "0"})
    real_job = Compactor._run_job  # noqa: SLF001 - fault injection

    def dies_while_writing(self, table_def, fs, root, build, plan, write_ids):
        fs.create_dir(f"{build}/{plan.insert_dir}", recursive=True)
        with fs.open_output_stream(f"{build}/{plan.insert_dir}/bucket_00000") as out:
            out.write(b"half a file")
        raise KeyboardInterrupt

    monkeypatch.setattr(Compactor, "_run_job", dies_while_writing)
    _queue(acid).enqueue("default", "employee", None, "major")
    with pytest.raises(KeyboardInterrupt):
        compactor.work_one()
    stale = {p.split("/")[0] for p in listing(table) if p.startswith("_tmp_")}
    assert len(stale) == 1 and [p for p in listing(table) if not p.startswith("_tmp_")] == before
    assert _with_ids(acid) == WALKTHROUGH_ROWS
    monkeypatch.setattr(Compactor, "_run_job", real_job)
    assert compactor.work_one().state == "r"
    assert not stale & {p.split("/")[0] for p in listing(table)}
    assert _with_ids(acid) == WALKTHROUGH_ROWS


def test_compaction_stops_below_an_open_write_id_and_the_writer_commits_after(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int, v string) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    table = warehouse / "t"
    txn = acid.store.open_txn("writer", "host")  # a writer in the middle of its statement
    write_id = acid.store.allocate_write_id(txn, "default", "t")
    _write_delta(table / f"delta_{write_id:07d}_{write_id:07d}_0000", write_id, [(2, "b")])
    acid.sql("INSERT INTO t VALUES (3, 'c')")
    acid.sql("ALTER TABLE t COMPACT 'major' AND WAIT")
    assert "base_0000001" in _dirs(table)  # write id 3 is above the open 2: not folded in
    assert sorted(tuple(r) for r in acid.sql("SELECT * FROM t").collect()) == [(1, "a"), (3, "c")]
    acid.store.add_components(txn, "default", "t", write_id, "i")
    acid.store.commit_txn(txn)
    assert sorted(tuple(r) for r in acid.sql("SELECT * FROM t").collect()) == [(1, "a"), (2, "b"), (3, "c")]
    _release_session_reads(acid)
    assert Compactor(acid.spark, acid.store).clean() == [1]
    assert _dirs(table) == ["base_0000001", "delta_0000002_0000002_0000", "delta_0000003_0000003_0000"]
    assert sorted(tuple(r) for r in acid.sql("SELECT * FROM t").collect()) == [(1, "a"), (2, "b"), (3, "c")]


def test_aborted_writers_zero_byte_files_never_stop_a_compaction(acid, warehouse):
    # what a writer killed mid-UPDATE used to leave: its write id aborted, 0-byte bucket files under final names
    acid.sql(f"CREATE TABLE t (id int, v string) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    table = warehouse / "t"
    txn = acid.store.open_txn("killed", "host")
    write_id = acid.store.allocate_write_id(txn, "default", "t")
    for kind in ("delete_delta", "delta"):
        (table / f"{kind}_{write_id:07d}_{write_id:07d}_0000").mkdir()
        (table / f"{kind}_{write_id:07d}_{write_id:07d}_0000" / "bucket_00000").write_bytes(b"")
    acid.store.abort_txn(txn)
    acid.sql("UPDATE t SET v = 'B' WHERE id = 2")
    rows = acid.sql("ALTER TABLE t COMPACT 'major' AND WAIT").collect()
    assert [(r.state, r.message) for r in rows] == [("ready for cleaning", "Compaction enqueued with id 1")]
    assert "base_0000003" in _dirs(table)
    assert sorted(tuple(r) for r in acid.sql("SELECT * FROM t").collect()) == [(1, "a"), (2, "B")]
    _release_session_reads(acid)
    assert Compactor(acid.spark, acid.store).clean() == [1]
    assert _dirs(table) == ["base_0000003"]  # the aborted writer's directories went with the cleaning


def test_writer_files_appear_only_complete_and_leave_no_partial_files(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int, v string) {ACID}")
    acid.sql("SET hiveacid.driver.write.max.rows=0")  # through Spark tasks
    acid.sql("INSERT INTO t SELECT id, CAST(id AS string) FROM range(1000)")
    acid.sql("UPDATE t SET v = 'x' WHERE id < 10")
    names = listing(warehouse / "t")
    assert not [p for p in names if "_tmp_" in p]
    files = {p.rsplit("/", 1)[1] for p in names} - {"_orc_acid_version"}
    assert files and all(re.fullmatch(r"bucket_\d{5}", f) for f in files), files
    assert acid.sql("SELECT count(*) FROM t WHERE v = 'x'").collect()[0][0] == 10


def test_and_wait_takes_back_a_request_whose_worker_process_died(acid, warehouse, tmp_path):
    import subprocess
    import sys

    _after_merge(acid)
    cq_id, _ = _queue(acid).enqueue("default", "employee", None, "major")
    # another process claims the request as a worker and dies before finishing it (as a SIGKILLed worker does)
    script = (
        "import sys; from sqlalchemy import create_engine; "
        "from hiveacid_sql.compactor.worker import worker_name; "
        "from hiveacid_sql.txn.compactions import CompactionQueue; "
        "q = CompactionQueue(create_engine(sys.argv[1])); info = q.claim(worker_name(), int(sys.argv[2])); "
        "print(info.worker_id)"
    )
    url = acid.store.engine.url.render_as_string(hide_password=False)
    dead = subprocess.run([sys.executable, "-c", script, url, str(cq_id)], capture_output=True, text=True, check=True)
    assert _queue(acid).get(cq_id).worker_id == dead.stdout.strip()
    assert _queue(acid).get(cq_id).state_name == "working"
    rows = acid.sql("ALTER TABLE employee COMPACT 'major' AND WAIT").collect()  # Hive's default timeout: a day
    assert [(r.compactionid, r.state) for r in rows] == [(cq_id, "ready for cleaning")]
    assert _queue(acid).get(cq_id).worker_id != dead.stdout.strip()
    assert "base_0000002" in _dirs(warehouse / "employee")
    assert _with_ids(acid) == WALKTHROUGH_ROWS


def test_leases_of_a_process_that_exited_end_and_show_compactions_says_what_cleaning_waits_for(acid, warehouse):
    import subprocess
    import sys

    acid.sql(f"CREATE TABLE t (id int, v string) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    acid.sql("UPDATE t SET v = 'B' WHERE id = 2")
    # a script that read the table and exited without close(): its one-hour lease is left behind
    script = (
        "import os, sys; from sqlalchemy import create_engine; from hiveacid_sql.txn.compactions import ReadLeases; "
        "ReadLeases(create_engine(sys.argv[1])).acquire([('default', 't')], seconds=3600); print(os.getpid())"
    )
    url = acid.store.engine.url.render_as_string(hide_password=False)
    pid = subprocess.run([sys.executable, "-c", script, url], capture_output=True, text=True, check=True).stdout.strip()
    _release_session_reads(acid)
    acid.sql("ALTER TABLE t COMPACT 'major' AND WAIT")
    shown = acid.sql("SHOW COMPACTIONS").collect()
    assert [r.state for r in shown] == ["ready for cleaning"]
    assert shown[0].errormessage.startswith("waiting for 1 read lease(s) on the table (last ends ")
    assert shown[0].errormessage.endswith(f"hiveacid-sql pid {pid} on {socket.gethostname()})")
    # SHOW READ LEASES names the lease, its holder (gone) and the compaction it holds back
    leases = acid.sql("SHOW READ LEASES t").collect()
    assert [
        (r.database, r.table, r.hostname, r.agent_info, r.holder_state, r.blocks_cleaning) for r in leases
    ] == [("default", "t", socket.gethostname(), f"hiveacid-sql pid {pid}", "GONE", "compaction 1")]
    assert leases[0].expires_at - leases[0].acquired_at == 3_600_000
    assert acid.sql("SHOW READ LEASES").collect() == leases
    with pytest.raises(HiveAcidError, match="Table not found .default.nope."):
        acid.sql("SHOW READ LEASES nope")
    assert Compactor(acid.spark, acid.store).clean() == [1]  # the dead process's lease ended: cleaned at once
    assert acid.sql("SHOW READ LEASES").collect() == []
    assert _dirs(warehouse / "t") == ["base_0000002"]
    assert [r.state for r in acid.sql("SHOW COMPACTIONS").collect()] == ["succeeded"]


def _sorted_files(acid, root, table: str) -> None:
    """Every ACID file of the table is in Hive's order (tests/support/acid_invariants.py), and it reads the same."""
    from tests.support.acid_invariants import check_table

    assert check_table(root, 0, acid.store.snapshot([("default", table)]).write_ids("default", table)) == []


def test_major_compaction_merges_sorted_runs_without_shuffle_or_sort(acid, warehouse, tmp_path, fixtures_dir, monkeypatch):
    import shutil

    import pyorc

    from hiveacid_sql.exec import compact

    def no_sort(*args):
        raise AssertionError("a major compaction of sorted runs went through the sort")

    monkeypatch.setattr(compact, "_sort_and_write", no_sort)
    # a bucketed table: statements 0 and 1 of one transaction, an UPDATE, a DELETE
    acid.sql(f"CREATE TABLE b (id int, v string) CLUSTERED BY (id) INTO 2 BUCKETS {ACID}")
    acid.sql("INSERT INTO b VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    acid.begin()
    acid.sql("INSERT INTO b VALUES (5, 'e'), (8, 'h')")
    acid.sql("INSERT INTO b VALUES (6, 'f'), (7, 'g')")
    acid.commit()
    acid.sql("UPDATE b SET v = 'x' WHERE id IN (1, 6)")
    acid.sql("DELETE FROM b WHERE id = 3")
    before = _with_ids(acid, "b")
    acid.sql("ALTER TABLE b COMPACT 'major' AND WAIT")
    assert sorted(p for p in listing(warehouse / "b" / "base_0000004") if p.startswith("bucket_")) == [
        "bucket_00000", "bucket_00001"]
    assert _with_ids(acid, "b") == before
    _sorted_files(acid, warehouse / "b", "b")
    # a delta of five stripes between two of one row, some of its rows deleted
    acid.sql(f"CREATE TABLE m (id int, v string) {ACID}")
    acid.sql("INSERT INTO m VALUES (0, 'first')")
    txn = acid.store.open_txn("test", "host")
    write_id = acid.store.allocate_write_id(txn, "default", "m")
    stripes = warehouse / "m" / f"delta_{write_id:07d}_{write_id:07d}_0000"
    _write_delta(stripes, write_id, [(i, f"v{i}") for i in range(1, 2501)], rows_per_stripe=500)
    acid.store.commit_txn(txn)
    with open(stripes / "bucket_00000", "rb") as f:
        assert pyorc.Reader(f).num_of_stripes == 5
    acid.sql("DELETE FROM m WHERE id % 7 = 3")
    acid.sql("INSERT INTO m VALUES (9999, 'last')")
    before = _with_ids(acid, "m")
    acid.sql("ALTER TABLE m COMPACT 'major' AND WAIT")
    assert [e["row"]["id"] for e in events(warehouse / "m" / "base_0000004" / "bucket_00000")] == [
        0, *[i for i in range(1, 2501) if i % 7 != 3], 9999]
    assert _with_ids(acid, "m") == before
    _sorted_files(acid, warehouse / "m", "m")
    # original files of three buckets and a delete delta
    table = tmp_path / "dummy"
    shutil.copytree(fixtures_dir / "dummy_id_data_orc", table)
    acid.sql(f"CREATE TABLE dummy (id int, data string, comment string) STORED AS ORC LOCATION '{table}' "
             "TBLPROPERTIES ('transactional'='true')")
    before = _with_ids(acid, "dummy")
    acid.sql("ALTER TABLE dummy COMPACT 'major' AND WAIT")
    assert _with_ids(acid, "dummy") == before
    _release_session_reads(acid)
    Compactor(acid.spark, acid.store).clean()  # the fixture's delete delta has no _orc_acid_version: gone now
    _sorted_files(acid, table, "dummy")


def test_major_compaction_of_inputs_out_of_order_sorts_them(acid, warehouse, monkeypatch):
    from hiveacid_sql.exec import compact

    sorts = []
    real_sort, real_inputs = compact._sort_and_write, compact.merge_inputs  # noqa: SLF001 - fault injection

    def counted_sort(*args):
        sorts.append(1)
        return real_sort(*args)

    def reversed_inputs(*args):
        return [(bucket_id, inputs[::-1]) for bucket_id, inputs in real_inputs(*args)]

    monkeypatch.setattr(compact, "_sort_and_write", counted_sort)
    monkeypatch.setattr(compact, "merge_inputs", reversed_inputs)  # a delta's rows before the base's
    acid.sql(f"CREATE TABLE t (id int, v string) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    acid.sql("INSERT INTO t VALUES (3, 'c')")
    before = _with_ids(acid, "t")
    rows = acid.sql("ALTER TABLE t COMPACT 'major' AND WAIT").collect()
    assert [r.state for r in rows] == ["ready for cleaning"] and sorts == [1]
    assert [e["row"]["id"] for e in events(warehouse / "t" / "base_0000002" / "bucket_00000")] == [1, 2, 3]
    assert _with_ids(acid, "t") == before
    _sorted_files(acid, warehouse / "t", "t")


def _tasks_since(spark, last_job: int) -> int:
    """Tasks of the Spark jobs after ``last_job`` (Spark's status store, as exec/metrics.py reads it)."""
    store = spark.sparkContext._jsc.sc().statusStore()  # noqa: SLF001 - no Python API for the store
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty()  # noqa: SLF001
    jobs = store.jobsList(None)
    return sum(jobs.apply(i).numTasks() for i in range(jobs.length()) if jobs.apply(i).jobId() > last_job)


def test_insert_spread_over_two_writers_then_update_delete_minor_and_major_per_writer(acid, warehouse, monkeypatch):
    """A large INSERT .. SELECT into an un-bucketed table (here forced: 2 writers, chunks of 10 rows) from one
    input split is written by two tasks, bucket_00000 and bucket_00001 (writer id in the bucket property, row
    ids per file); UPDATE / DELETE of rows of either file, minor and major compaction keep every row and row id,
    and the major compaction writes one base file per writer id, one task each, without the sort."""
    import hiveacid_sql
    from hiveacid_sql.acid.codec import decode_bucket_id
    from hiveacid_sql.exec import compact, write
    from hiveacid_sql.exec.metrics import SparkWork

    spark = acid.spark
    assert write.append_writers(spark.range(10), 0, 1 << 20) == 1  # a small write: its input's own task
    assert write.append_writers(spark.range(10**6), 0, 1 << 20) == 2  # 8 MB: the cores (local[2])
    assert write.append_writers(spark.range(10**6), 0, 0) == 1  # off
    big = spark.range(10**6).crossJoin(spark.range(10**6))  # Spark's estimate: 16 TB, read in many tasks anyway
    assert write.append_writers(big, 2, 1 << 20) == 1
    monkeypatch.setattr(write, "SPREAD_CHUNK_ROWS", 10)
    acid.sql("SET hiveacid.write.max.writers=2")
    acid.sql("SET hiveacid.write.bytes.per.writer=1")
    acid.sql(f"CREATE TABLE t (id int, v string) {ACID}")
    result = acid.sql("INSERT INTO t SELECT CAST(id AS int), concat('v', id) FROM range(0, 45, 1, 1)")
    assert result.num_inserted_rows == 45 and result.num_files_written == 2
    table = warehouse / "t"
    delta = table / "delta_0000001_0000001_0000"
    assert listing(delta) == ["_orc_acid_version", "bucket_00000", "bucket_00001"]
    # chunks of 10 neighbouring rows dealt out in turn, each file in its input order, row ids 0..n-1
    for name, ids in (("bucket_00000", [*range(0, 10), *range(20, 30), *range(40, 45)]),
                      ("bucket_00001", [*range(10, 20), *range(30, 40)])):
        evs = events(delta / name)
        assert [e["row"]["id"] for e in evs] == ids
        assert [e["rowId"] for e in evs] == list(range(len(ids)))
        assert {decode_bucket_id(e["bucket"]) for e in evs} == {int(name[-1])}
    ids = acid.sql("SELECT row__id FROM t").collect()
    assert len({(r[0].writeid, r[0].bucketid, r[0].rowid) for r in ids}) == 45
    acid.sql("UPDATE t SET v = upper(v) WHERE id BETWEEN 12 AND 17")  # rows of bucket_00001
    acid.sql("DELETE FROM t WHERE id IN (3, 31, 44)")  # rows of both files
    assert listing(table / "delete_delta_0000003_0000003_0000") == ["_orc_acid_version", "bucket_00000", "bucket_00001"]
    before = _with_ids(acid, "t")
    assert len(before) == 42 and {r[4] for r in before if 12 <= r[3] <= 17} == {f"V{i}" for i in range(12, 18)}
    url = acid.store.engine.url.render_as_string(hide_password=False)
    arrow = hiveacid_sql.read_table("t", warehouse=str(warehouse), store_url=url, row_id=True).to_pylist()
    assert sorted((*r["row__id"].values(), r["id"], r["v"]) for r in arrow) == before  # pyarrow reads the same
    acid.sql("ALTER TABLE t COMPACT 'minor' AND WAIT")
    for name in ("delta_0000001_0000003", "delete_delta_0000001_0000003"):
        assert [p for p in listing(table / name) if p.startswith("bucket_")] == ["bucket_00000", "bucket_00001"]
    assert _with_ids(acid, "t") == before
    monkeypatch.setattr(compact, "_sort_and_write", lambda *a: pytest.fail("sorted runs went through the sort"))
    work = SparkWork(spark).start()
    last_job = work._last_job  # noqa: SLF001 - the jobs of the compaction only
    acid.sql("ALTER TABLE t COMPACT 'major' AND WAIT")
    assert work.finish().jobs == 1 and _tasks_since(spark, last_job) == 2  # one task per output file
    base = table / "base_0000003"
    assert [p for p in listing(base) if p.startswith("bucket_")] == ["bucket_00000", "bucket_00001"]
    for name in ("bucket_00000", "bucket_00001"):
        assert {decode_bucket_id(e["bucket"]) for e in events(base / name)} == {int(name[-1])}
    assert _with_ids(acid, "t") == before
    _sorted_files(acid, table, "t")
