"""DESCRIBE HISTORY (HIVEACID_WRITE_HISTORY, written with each commit) and time travel (VERSION AS OF)."""

from __future__ import annotations

import getpass
import shutil

import pytest

from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.errors import PlanError, TimeTravelError
from hiveacid_sql.exec.timetravel import VersionRequest, as_of
from hiveacid_sql.txn import TxnStore
from hiveacid_sql.txn.history import ADOPTED, HistoryEntry, WriteRecord
from tests.support.acid_files import listing

CREATE = (
    "CREATE TABLE employee (id int, name string, salary int) "
    "STORED AS ORC TBLPROPERTIES ('transactional' = 'true')"
)
INSERT = "INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000)"
UPDATE = "UPDATE employee SET salary = 7000 WHERE id = 2"
MERGE = (
    "MERGE INTO employee AS a USING employee_update AS b ON a.id = b.id "
    "WHEN MATCHED THEN UPDATE SET salary = b.salary "
    "WHEN NOT MATCHED THEN INSERT VALUES (b.id, b.name, b.salary)"
)
STEP_1 = [(1, "Jerry", 5000), (2, "Tom", 8000), (3, "Kate", 6000)]
STEP_2 = [(1, "Jerry", 5000), (2, "Tom", 7000), (3, "Kate", 6000)]
STEP_3 = [(1, "Jerry", 5000), (2, "Tom", 7500), (3, "Kate", 6000), (4, "Mary", 9000)]


def rows(acid, sql: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(sql).collect()]


def history(acid, table: str = "employee") -> list[tuple]:
    """(write_id, txn_id, user, operation, statement, inserted, updated, deleted), newest first."""
    df = acid.sql(f"DESCRIBE HISTORY {table}")
    assert df.columns == [
        "write_id", "txn_id", "commit_time", "user", "operation", "statement",
        "num_inserted_rows", "num_updated_rows", "num_deleted_rows",
    ]
    out = df.collect()
    times = [r.commit_time for r in out if r.operation != ADOPTED]
    assert all(t is not None for t in times) and times == sorted(times, reverse=True)
    return [(r.write_id, r.txn_id, r.user, r.operation, r.statement, r.num_inserted_rows,
             r.num_updated_rows, r.num_deleted_rows) for r in out]


@pytest.fixture()
def walkthrough(acid):
    """Walkthrough steps 1-3 as write ids 1 (INSERT), 2 (UPDATE), 3 (MERGE)."""
    acid.sql(CREATE)
    acid.sql("CREATE TABLE employee_update (id int, name string, salary int)")
    acid.sql("INSERT INTO employee_update VALUES (2, 'Tom', 7500), (4, 'Mary', 9000)")
    acid.sql(INSERT)
    acid.sql(UPDATE)
    result = acid.sql(MERGE)
    assert result.write_id == 3
    return acid


def test_versions_of_the_walkthrough_and_its_history(walkthrough, warehouse):
    acid = walkthrough
    user = getpass.getuser()
    assert history(acid) == [
        (3, 3, user, "MERGE", MERGE, 1, 1, 0),
        (2, 2, user, "UPDATE", UPDATE, 0, 1, 0),
        (1, 1, user, "INSERT", INSERT, 3, 0, 0),
    ]
    before = listing(warehouse / "employee")
    for version, expected in ((1, STEP_1), (2, STEP_2), (3, STEP_3)):
        assert rows(acid, f"SELECT id, name, salary FROM employee VERSION AS OF {version} ORDER BY id") == expected
        assert rows(acid, f"SELECT * FROM employee FOR SYSTEM_VERSION AS OF {version} ORDER BY id") == expected
    assert rows(acid, "SELECT * FROM employee VERSION AS OF 0") == []
    # row ids of a version are the ones it had (Tom's original row at version 1)
    assert rows(acid, "SELECT row__id.writeid, row__id.rowid FROM employee VERSION AS OF 1 WHERE id = 2") == [(1, 1)]
    # a version joined with the current table, and with another version
    assert rows(
        acid,
        "SELECT a.id, a.salary, b.salary FROM employee VERSION AS OF 1 a "
        "JOIN employee b ON a.id = b.id ORDER BY a.id",
    ) == [(1, 5000, 5000), (2, 8000, 7500), (3, 6000, 6000)]
    assert rows(
        acid,
        "SELECT b.id FROM employee VERSION AS OF 2 a RIGHT JOIN employee FOR SYSTEM_VERSION AS OF 3 b "
        "ON a.id = b.id WHERE a.id IS NULL",
    ) == [(4,)]
    # a version inside a DML statement on the same table (dry run: what would be deleted)
    dry = acid.sql("DELETE FROM employee WHERE id NOT IN (SELECT id FROM employee VERSION AS OF 1)", dry_run=True)
    assert [(r.action, r.old_id, r.old_name) for r in dry.collect()] == [("delete", 4, "Mary")]
    assert listing(warehouse / "employee") == before  # reading old versions changes nothing


def test_overwrite_makes_older_versions_unavailable(walkthrough, warehouse):
    acid = walkthrough
    # restore version 1 (the old deltas are still there, so it reads), as INSERT OVERWRITE: base_0000004
    acid.sql("INSERT OVERWRITE TABLE employee SELECT * FROM employee VERSION AS OF 1")
    assert (warehouse / "employee" / "base_0000004").is_dir()
    assert rows(acid, "SELECT * FROM employee ORDER BY id") == STEP_1
    assert rows(acid, "SELECT * FROM employee VERSION AS OF 4 ORDER BY id") == STEP_1
    for version in (1, 2, 3):
        with pytest.raises(TimeTravelError, match=f"Version {version} of default.employee is no longer available.*"
                           "base_0000004.*the oldest version available is 4"):
            acid.sql(f"SELECT * FROM employee VERSION AS OF {version}")
    with pytest.raises(TimeTravelError, match="Version 5 of default.employee does not exist: the latest write id is 4"):
        acid.sql("SELECT * FROM employee VERSION AS OF 5")
    acid.sql("TRUNCATE TABLE employee")
    assert rows(acid, "SELECT * FROM employee VERSION AS OF 5") == []
    # base_0000004 is still there (no cleaner ran): version 4 reads from it; version 3 still needs what it hid
    assert rows(acid, "SELECT * FROM employee VERSION AS OF 4 ORDER BY id") == STEP_1
    with pytest.raises(TimeTravelError, match="the oldest version available is 4"):
        acid.sql("SELECT * FROM employee VERSION AS OF 3")
    ops = [(h[0], h[3], h[5]) for h in history(acid)]
    assert ops[:2] == [(5, "TRUNCATE", 0), (4, "INSERT OVERWRITE", 3)]


def test_aborted_write_is_not_history_and_not_a_version(acid):
    acid.sql(CREATE)
    acid.sql(INSERT)
    acid.sql("CREATE TABLE dup (id int, salary int)")
    acid.sql("INSERT INTO dup VALUES (2, 1), (2, 2)")
    with pytest.raises(Exception, match="Cardinality Violation"):
        acid.sql("MERGE INTO employee t USING dup s ON t.id = s.id WHEN MATCHED THEN UPDATE SET salary = s.salary")
    acid.sql("DELETE FROM employee WHERE id = 1")  # write id 3
    assert [(h[0], h[3], h[7]) for h in history(acid)] == [(3, "DELETE", 1), (1, "INSERT", 0)]
    assert rows(acid, "SELECT id FROM employee VERSION AS OF 2 ORDER BY id") == [(1,), (2,), (3,)]
    assert rows(acid, "SELECT id FROM employee VERSION AS OF 3 ORDER BY id") == [(2,), (3,)]


def test_partitioned_versions(acid, warehouse):
    acid.sql(
        "CREATE TABLE sales (id int, amount int) PARTITIONED BY (p int) "
        "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
    )
    acid.sql("INSERT INTO sales PARTITION (p=1) VALUES (1, 10), (2, 20)")  # 1
    acid.sql("INSERT INTO sales PARTITION (p=2) VALUES (3, 30)")  # 2
    acid.sql("INSERT OVERWRITE TABLE sales PARTITION (p=3) SELECT 4, 40")  # 3: new partition, base_3
    acid.sql("UPDATE sales SET amount = amount + 1 WHERE p = 1")  # 4
    q = "SELECT id, amount, p FROM sales VERSION AS OF {} ORDER BY id"
    assert rows(acid, q.format(1)) == [(1, 10, 1), (2, 20, 1)]  # p=3 (created by write id 3) is skipped
    assert rows(acid, q.format(2)) == [(1, 10, 1), (2, 20, 1), (3, 30, 2)]
    assert rows(acid, q.format(4)) == [(1, 11, 1), (2, 21, 1), (3, 30, 2), (4, 40, 3)]
    acid.sql("INSERT OVERWRITE TABLE sales PARTITION (p=1) SELECT 5, 50")  # 5: p=1 rewritten
    with pytest.raises(TimeTravelError, match="partition p=1 of default.sales.*oldest version available is 5"):
        acid.sql(q.format(4))
    # partitions the query does not read do not matter: p=2 at version 2 is still there
    assert rows(acid, "SELECT id FROM sales VERSION AS OF 2 WHERE p = 2") == [(3,)]
    assert rows(acid, q.format(5)) == [(3, 30, 2), (4, 40, 3), (5, 50, 1)]


def test_restore_a_version_into_another_table(walkthrough):
    acid = walkthrough
    acid.sql("CREATE TABLE snap (id int, name string, salary int) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO snap SELECT * FROM employee VERSION AS OF 2")
    assert rows(acid, "SELECT * FROM snap ORDER BY id") == STEP_2
    assert history(acid, "snap")[0][3:] == ("INSERT", "INSERT INTO snap SELECT * FROM employee VERSION AS OF 2", 3, 0, 0)


def test_bad_requests(walkthrough):
    acid = walkthrough
    with pytest.raises(PlanError, match="VERSION AS OF needs a transactional table; default.employee_update"):
        acid.sql("SELECT * FROM employee_update VERSION AS OF 1")
    with pytest.raises(PlanError, match="DESCRIBE HISTORY needs a transactional table"):
        acid.sql("DESCRIBE HISTORY employee_update")
    with pytest.raises(TimeTravelError, match="No version of default.employee at or before '2020-01-01': its first"):
        acid.sql("SELECT * FROM employee TIMESTAMP AS OF '2020-01-01'")
    with pytest.raises(TimeTravelError, match="TIMESTAMP AS OF needs a timestamp such as"):
        acid.sql("SELECT * FROM employee TIMESTAMP AS OF 'yesterday'")
    with pytest.raises(TimeTravelError, match="needs a write id"):
        acid.sql("SELECT * FROM employee VERSION AS OF 'x'")
    with pytest.raises(PlanError, match="Table not found 'default.nope'"):
        acid.sql("DESCRIBE HISTORY nope")
    assert rows(acid, "SELECT count(*) FROM employee") == [(4,)]


def test_adopted_write_ids_show_as_adopted(walkthrough, warehouse, tmp_path):
    acid = walkthrough
    copy = tmp_path / "copied"
    shutil.copytree(warehouse / "employee", copy)
    acid.sql(
        f"CREATE TABLE adopted (id int, name string, salary int) STORED AS ORC LOCATION '{copy}' "
        "TBLPROPERTIES ('transactional'='true')"
    )
    acid.sql("INSERT INTO adopted VALUES (9, 'Ann', 1)")
    got = history(acid, "adopted")
    assert got[0][0] == 4 and got[0][3] == "INSERT"
    assert [h[:2] + h[3:] for h in got[1:]] == [
        (w, None, ADOPTED, None, None, None, None) for w in (3, 2, 1)
    ]
    assert rows(acid, "SELECT id, salary FROM adopted VERSION AS OF 2 ORDER BY id") == [(1, 5000), (2, 7000), (3, 6000)]


# ---------------------------------------------------------------------- store level, every backend
def test_store_history_round_trip(store: TxnStore) -> None:
    t1 = store.open_txn("alice", "h")
    w1 = store.allocate_write_id(t1, "default", "t")
    store.add_components(t1, "default", "t", w1, "i")
    store.commit_txn(t1, history=[WriteRecord("default", "t", w1, "INSERT", "INSERT INTO t VALUES (1)", "alice", 1, 0, 0)])
    t2 = store.open_txn("bob", "h")
    w2 = store.allocate_write_id(t2, "default", "t")
    store.abort_txn(t2)
    t3 = store.open_txn("bob", "h")
    w3 = store.allocate_write_id(t3, "default", "t")
    long_text = "UPDATE t SET c = 1 -- " + "é" * 200_000
    store.commit_txn(t3, history=[WriteRecord("default", "t", w3, "UPDATE; DELETE", long_text, "bob", 0, 2, 1)])
    got = store.table_history("default", "t")
    assert [(e.write_id, e.txn_id, e.user, e.operation, e.rows_inserted, e.rows_updated, e.rows_deleted) for e in got] == [
        (w3, t3, "bob", "UPDATE; DELETE", 0, 2, 1),
        (w1, t1, "alice", "INSERT", 1, 0, 0),
    ]
    assert w2 not in [e.write_id for e in got]
    assert got[0].statement.startswith("UPDATE t SET c = 1") and got[0].statement.endswith(" ...")
    assert len(got[0].statement) == 16_004
    assert got[0].commit_time_ms >= got[1].commit_time_ms > 0
    # adoption records the write ids found on disk, once
    store.register_existing_write_ids("default", "u", 2)
    store.register_existing_write_ids("default", "u", 3)
    assert [(e.write_id, e.txn_id, e.operation, e.statement) for e in store.table_history("default", "u")] == [
        (3, None, ADOPTED, None), (2, None, ADOPTED, None), (1, None, ADOPTED, None),
    ]


def test_timestamp_as_of_reads_what_was_committed_then(walkthrough):
    acid = walkthrough
    times = {r.write_id: r.commit_time for r in acid.sql("DESCRIBE HISTORY employee").collect()}
    for write_id, expected in ((1, STEP_1), (2, STEP_2), (3, STEP_3)):
        stamp = times[write_id].strftime("%Y-%m-%d %H:%M:%S.%f")
        assert rows(acid, f"SELECT * FROM employee TIMESTAMP AS OF '{stamp}' ORDER BY id") == expected
    assert rows(acid, "SELECT count(*) FROM employee FOR SYSTEM_TIME AS OF '2999-01-01 00:00:00'") == [(4,)]


def _entry(write_id: int, ms: int) -> HistoryEntry:
    return HistoryEntry(write_id, write_id + 10, ms, "u", "INSERT", None, 1, 0, 0)


def test_as_of_leaves_out_lower_write_ids_that_committed_later():
    # write ids 1..5: 2 committed after 3 (a longer transaction), 4 aborted, 5 still open
    now = ValidWriteIdList("d.t", 5, (4, 5), frozenset({4}), 5)
    history = [_entry(1, 100), _entry(2, 400), _entry(3, 300)]
    at3 = as_of(now, VersionRequest("VERSION", 3), "d.t", history)
    assert (at3.high_watermark, at3.exceptions, at3.min_open_write_id) == (3, (2,), 2)
    assert not at3.is_write_id_valid(2) and at3.is_write_id_valid(1) and at3.is_write_id_valid(3)
    at4 = as_of(now, 4, "d.t", history)  # the aborted write id: everything committed by then
    assert (at4.exceptions, at4.aborted) == ((4,), frozenset({4}))
    by_time = as_of(now, VersionRequest("TIMESTAMP", 350), "d.t", history)
    assert (by_time.high_watermark, by_time.exceptions) == (3, (2,))
    assert as_of(now, VersionRequest("TIMESTAMP", 400), "d.t", history).exceptions == ()
    assert as_of(now, 3, "d.t", []).exceptions == ()  # no history: write ids count as committed in order
    with pytest.raises(TimeTravelError, match="Version 6 of d.t does not exist: the latest write id is 5"):
        as_of(now, 6, "d.t", history)


def test_versions_survive_minor_compaction_not_major(walkthrough, warehouse):
    """Minor compaction keeps every write id's rows (filtered row by row), so all versions read the same once
    the cleaner removed the original deltas; a major compaction's base hides them: older versions refused."""
    from hiveacid_sql.compactor import Compactor

    acid = walkthrough
    compactor = Compactor(acid.spark, acid.store)
    acid.sql("ALTER TABLE employee COMPACT 'minor' AND WAIT")
    acid.ctx.release_leases()  # this test's earlier reads are finished
    assert compactor.clean() == [1]
    assert sorted(p.name for p in (warehouse / "employee").iterdir()) == [
        "delete_delta_0000001_0000003", "delta_0000001_0000003",
    ]
    for version, expected in ((1, STEP_1), (2, STEP_2), (3, STEP_3)):
        assert rows(acid, f"SELECT * FROM employee VERSION AS OF {version} ORDER BY id") == expected
    acid.sql("ALTER TABLE employee COMPACT 'major' AND WAIT")
    acid.ctx.release_leases()
    assert compactor.clean() == [2]
    assert sorted(p.name for p in (warehouse / "employee").iterdir()) == ["base_0000003"]
    assert rows(acid, "SELECT * FROM employee VERSION AS OF 3 ORDER BY id") == STEP_3
    with pytest.raises(TimeTravelError, match="rewritten by base_0000003 .*the oldest version available is 3"):
        acid.sql("SELECT * FROM employee VERSION AS OF 2")
    assert [h[0] for h in history(acid)] == [3, 2, 1]  # compaction writes no history row


def test_one_history_row_per_write_id_of_a_multi_statement_transaction(acid):
    acid.sql(CREATE)
    acid.sql(INSERT)
    acid.sql("BEGIN")
    acid.sql(UPDATE)
    acid.sql("DELETE FROM employee WHERE id = 3")
    acid.sql("INSERT INTO employee VALUES (7, 'Eve', 1)")
    acid.sql("COMMIT")
    acid.sql("BEGIN")
    acid.sql("DELETE FROM employee")
    acid.sql("ROLLBACK")  # write id 3 aborted: no history, no version
    got = history(acid)
    assert [h[:1] + h[3:] for h in got] == [
        (2, "UPDATE; DELETE; INSERT",
         f"{UPDATE};\nDELETE FROM employee WHERE id = 3;\nINSERT INTO employee VALUES (7, 'Eve', 1)", 1, 1, 1),
        (1, "INSERT", INSERT, 3, 0, 0),
    ]
    expected = [(1, "Jerry", 5000), (2, "Tom", 7000), (7, "Eve", 1)]
    assert rows(acid, "SELECT * FROM employee VERSION AS OF 2 ORDER BY id") == expected
    assert rows(acid, "SELECT * FROM employee VERSION AS OF 3 ORDER BY id") == expected


def test_describe_history_shows_a_long_statement_shortened(acid):
    acid.sql("CREATE TABLE big (id int) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    values = ", ".join(f"({i})" for i in range(1000))
    acid.sql(f"INSERT INTO big VALUES {values}")
    shown = acid.sql("DESCRIBE HISTORY big").first()["statement"]
    stored = acid.store.table_history("default", "big")[0].statement
    assert len(stored) > 5000
    assert shown == f"{stored[:200].rstrip()} ... ({len(stored)} characters)"
