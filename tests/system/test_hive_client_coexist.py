"""hiveacid-sql and Hive's own metastore code as two clients of one Hive 3.1 metastore database (issue 15).

The store's database is made by Apache Hive's 3.1 script; hiveacid-sql connects to it with ``store_url`` and
Hive 2.3's metastore client (pyspark's ObjectStore/DataNucleus and TxnHandler, in its own JVM: see
``tests/support/hive_client.py``) connects to it over JDBC, as a Hive metastore sharing that database would.
Each side must see the other's catalog, transactions and locks by Hive's rules.

Hive 2.3 cannot commit a transaction that registered a write on the 3.1 schema, nor any commit on MariaDB
(``test_hive_client.py`` pins why); Hive's transactions here end with an abort, or a read-only commit.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import hiveacid_sql
from hiveacid_sql.errors import LockError
from tests.support.hive_client import HiveClient

pytestmark = [pytest.mark.hive_client, pytest.mark.usefixtures("hive_tidy")]

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
ORC = "org.apache.hadoop.hive.ql.io.orc"


def _name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


@pytest.fixture
def ours(spark, hive_db: str, hive_warehouse: Path) -> Iterator[Any]:
    """A hiveacid-sql connection on the Hive database Hive's client uses, sharing its warehouse."""
    session = hiveacid_sql.connect(spark=spark, warehouse=hive_warehouse, store_url=hive_db)
    session.sql("SET hive.lock.numretries=2")
    session.sql("SET hive.lock.sleep.between.retries=50ms")
    yield session
    session.close()


def _rows(frame: Any) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in frame.collect())


# -- the catalog: what we create, Hive lists and describes --------------------------------------------------------


def test_our_tables_are_listed_and_described_by_hive(ours: Any, hive: HiveClient, hive_warehouse: Path) -> None:
    db = _name("ours")
    ours.sql(f"CREATE DATABASE {db} COMMENT 'made by hiveacid-sql'")
    ours.sql(
        f"CREATE TABLE {db}.emp (id int COMMENT 'the key', name string, salary decimal(10,2)) COMMENT 'staff' "
        "STORED AS ORC TBLPROPERTIES ('transactional'='true', 'team'='data')"
    )
    ours.sql(f"CREATE TABLE {db}.plain (id int, name string) STORED AS ORC")
    ours.sql(f"CREATE TABLE {db}.ev (id int, what string) PARTITIONED BY (day string) "
             "CLUSTERED BY (id) INTO 2 BUCKETS " + ACID)
    ours.sql(f"INSERT INTO {db}.ev VALUES (1, 'a', '2024-01-01'), (2, 'b', '2024-01-02')")

    assert hive.get_database(db)["description"] == "made by hiveacid-sql"
    assert sorted(r[1] for r in hive.sql(f"SHOW TABLES IN {db}")) == ["emp", "ev", "plain"]

    emp = hive.describe_formatted(f"{db}.emp")
    assert emp["columns"] == [("id", "int", "the key"), ("name", "string", None), ("salary", "decimal(10,2)", None)]
    details = emp["details"]
    assert (details["Type"], details["Comment"]) == ("MANAGED", "staff")
    assert (details["InputFormat"], details["OutputFormat"], details["Serde Library"]) == (
        f"{ORC}.OrcInputFormat", f"{ORC}.OrcOutputFormat", f"{ORC}.OrcSerde")
    assert details["Location"].removeprefix("file:") == f"{hive_warehouse}/{db}.db/emp"
    assert {k: details["Table Properties"].get(k) for k in ("transactional", "team")} == {
        "transactional": "true", "team": "data"}
    props = dict(hive.sql(f"SHOW TBLPROPERTIES {db}.emp"))
    assert props["transactional"] == "true" and props["team"] == "data"
    assert props["transactional_properties"] == "default" and "transient_lastDdlTime" in props

    plain = hive.get_table(db, "plain")
    assert plain["table_type"] == "MANAGED_TABLE" and "transactional" not in plain["parameters"]
    assert plain["sd"]["cols"] == [("id", "int", None), ("name", "string", None)]

    ev = hive.get_table(db, "ev")
    assert ev["partition_keys"] == [("day", "string", None)]
    assert (ev["sd"]["num_buckets"], ev["sd"]["bucket_cols"]) == (2, ["id"])
    assert ev["parameters"]["bucketing_version"] == "2"
    assert hive.sql(f"SHOW PARTITIONS {db}.ev") == [("day=2024-01-01",), ("day=2024-01-02",)]
    parts = hive.get_partitions(db, "ev")
    assert [p["sd"]["location"].removeprefix("file:") for p in parts] == [
        f"{hive_warehouse}/{db}.db/ev/day=2024-01-01", f"{hive_warehouse}/{db}.db/ev/day=2024-01-02"]
    assert all(p["sd"]["input_format"] == f"{ORC}.OrcInputFormat" for p in parts)


def test_our_locations_are_the_ones_hive_writes(ours: Any, hive: HiveClient, hive_warehouse: Path) -> None:
    """Hive stores a location as a Hadoop Path's string, scheme included (``file:/..``); a bare path would be
    resolved by each client against its own default filesystem. What we store for a database, a table and its
    partitions is, character for character, the path Hive's ``Warehouse`` would have chosen, already in Hive's
    canonical form (``getDnsPath`` leaves it unchanged), and Hive's ``FileSystem`` lists our files there. A
    table Hive creates beside ours gets the same form."""
    db = _name("loc")
    ours.sql(f"CREATE DATABASE {db}")
    ours.sql(f"CREATE TABLE {db}.ev (id int) PARTITIONED BY (k string) {ACID}")
    ours.sql(f"INSERT INTO {db}.ev VALUES (1, 'a/b'), (2, 'x')")
    facts = hive.paths(db, "ev")
    assert facts["db_stored"] == facts["db_qualified"] == facts["hive_db_default"] == f"file:{hive_warehouse}/{db}.db"
    assert facts["stored"] == facts["qualified"] == facts["hive_default"] == f"file:{hive_warehouse}/{db}.db/ev"
    assert facts["filesystem"] == "file:///"
    assert facts["listing"] == ["k=a%2Fb", "k=x"]
    assert [p["stored"] for p in facts["partitions"]] == [
        f"file:{hive_warehouse}/{db}.db/ev/k=a%2Fb", f"file:{hive_warehouse}/{db}.db/ev/k=x"]
    assert all(p["stored"] == p["qualified"] == p["hive_default"] for p in facts["partitions"])
    hive.sql(f"CREATE TABLE {db}.theirs (id INT) PARTITIONED BY (k STRING) STORED AS ORC")
    hive.sql(f"ALTER TABLE {db}.theirs ADD PARTITION (k='a/b')")
    theirs = hive.paths(db, "theirs")
    assert theirs["stored"] == facts["stored"].removesuffix("/ev") + "/theirs"
    assert [p["stored"] for p in theirs["partitions"]] == [theirs["stored"] + "/k=a%2Fb"]
    # and we read what Hive's partition location names
    hive.sql(f"INSERT INTO {db}.theirs PARTITION (k='a/b') VALUES (7)")
    assert _rows(ours.sql(f"SELECT id, k FROM {db}.theirs")) == [(7, "a/b")]


@pytest.mark.parametrize("stored", ["ORC", "PARQUET", "TEXTFILE"])
def test_plain_tables_are_read_by_hive_serdes_both_ways(ours: Any, hive: HiveClient, stored: str) -> None:
    """Plain tables in each format, read by Hive's own serdes (OrcSerde, ParquetHiveSerDe, LazySimpleSerDe with
    its ``\\N`` for NULL) from files we wrote, and read by us from files Hive's serdes wrote; '' and NULL
    stay apart both ways."""
    db = _name("plain")
    ours.sql(f"CREATE DATABASE {db}")
    ours.sql(f"CREATE TABLE {db}.ours (id int, name string, amount decimal(5,2)) STORED AS {stored}")
    ours.sql(f"INSERT INTO {db}.ours VALUES (1, 'a', 1.50), (2, '', NULL), (3, NULL, 0)")
    expected = [(1, "a", Decimal("1.50")), (2, "", None), (3, None, Decimal("0.00"))]
    assert hive.sql(f"SELECT id, name, amount FROM {db}.ours ORDER BY id") == expected
    hive.sql(f"CREATE TABLE {db}.theirs (id INT, name STRING, amount DECIMAL(5,2)) STORED AS {stored}")
    hive.sql(f"INSERT INTO {db}.theirs VALUES (1, 'a', 1.50), (2, '', NULL), (3, NULL, 0)")
    assert _rows(ours.sql(f"SELECT id, name, amount FROM {db}.theirs ORDER BY id")) == expected


def test_partition_names_and_columns_agree_both_ways(ours: Any, hive: HiveClient) -> None:
    """Partition values Hive escapes in its names (``/``, ``:``, ``=``), NULL's default partition, and columns
    added later: one partition or column, whichever side made it."""
    db = _name("names")
    ours.sql(f"CREATE DATABASE {db}")
    ours.sql(f"CREATE TABLE {db}.ev (id int) PARTITIONED BY (k string, n int) {ACID}")
    ours.sql(f"INSERT INTO {db}.ev VALUES (1, 'a/b', 1), (2, 'x:y=z', 2), (3, NULL, 3)")
    expected = ["k=__HIVE_DEFAULT_PARTITION__/n=3", "k=a%2Fb/n=1", "k=x%3Ay%3Dz/n=2"]
    assert sorted(hive.get_partition_names(db, "ev")) == expected
    assert sorted(p["values"] for p in hive.get_partitions(db, "ev")) == [
        ["__HIVE_DEFAULT_PARTITION__", "3"], ["a/b", "1"], ["x:y=z", "2"]]
    # Hive adds a partition with the same value: the same partition, not a second one
    hive.sql(f"ALTER TABLE {db}.ev ADD IF NOT EXISTS PARTITION (k='a/b', n=1) PARTITION (k='q#r', n=4)")
    assert sorted(hive.get_partition_names(db, "ev")) == sorted([*expected, "k=q%23r/n=4"])
    ours.sql(f"INSERT INTO {db}.ev VALUES (4, 'q#r', 4), (5, 'a/b', 1)")
    assert sorted(tuple(r) for r in ours.sql(f"SHOW PARTITIONS {db}.ev").collect()) == sorted(
        (p,) for p in [*expected, "k=q%23r/n=4"])
    assert _rows(ours.sql(f"SELECT id, k, n FROM {db}.ev WHERE k = 'a/b'")) == [(1, "a/b", 1), (5, "a/b", 1)]

    ours.sql(f"ALTER TABLE {db}.ev ADD COLUMNS (note string COMMENT 'added by us')")
    assert hive.get_table(db, "ev")["sd"]["cols"] == [("id", "int", None), ("note", "string", "added by us")]
    hive.sql(f"CREATE TABLE {db}.plain (id INT) STORED AS ORC")
    hive.sql(f"INSERT INTO {db}.plain VALUES (1)")
    hive.sql(f"ALTER TABLE {db}.plain ADD COLUMNS (extra STRING)")
    assert _rows(ours.sql(f"SELECT id, extra FROM {db}.plain")) == [(1, None)]


def test_tables_dropped_by_one_are_gone_for_the_other(ours: Any, hive: HiveClient) -> None:
    db = _name("drop")
    ours.sql(f"CREATE DATABASE {db}")
    ours.sql(f"CREATE TABLE {db}.mine (id int) {ACID}")
    ours.sql(f"INSERT INTO {db}.mine VALUES (1)")
    hive.sql(f"CREATE TABLE {db}.theirs (id INT) STORED AS ORC")
    assert sorted(r.tab_name for r in ours.sql(f"SHOW TABLES IN {db}").collect()) == ["mine", "theirs"]
    ours.sql(f"DROP TABLE {db}.mine")
    hive.sql(f"DROP TABLE {db}.theirs")
    assert hive.sql(f"SHOW TABLES IN {db}") == []
    assert ours.sql(f"SHOW TABLES IN {db}").collect() == []


# -- the catalog: what Hive creates, we read and write ------------------------------------------------------------


def test_tables_hive_creates_are_read_and_written_by_us(ours: Any, hive: HiveClient, hive_warehouse: Path) -> None:
    db = _name("hive")
    hive.sql_many([
        f"CREATE DATABASE {db}",
        f"CREATE TABLE {db}.plain (id INT, name STRING) STORED AS ORC",
        f"INSERT INTO {db}.plain VALUES (1, 'from hive')",
        # Hive 2.3 accepts only bucketed transactional tables
        f"CREATE TABLE {db}.acid (id INT, name STRING) CLUSTERED BY (id) INTO 2 BUCKETS STORED AS ORC "
        "TBLPROPERTIES ('transactional'='true')",
        f"CREATE TABLE {db}.parted (id INT, name STRING) PARTITIONED BY (day STRING) CLUSTERED BY (id) "
        "INTO 2 BUCKETS STORED AS ORC TBLPROPERTIES ('transactional'='true')",
        f"ALTER TABLE {db}.parted ADD PARTITION (day='2024-01-01')",
    ])
    assert _rows(ours.sql(f"SELECT * FROM {db}.plain")) == [(1, "from hive")]
    ours.sql(f"INSERT INTO {db}.plain VALUES (2, 'from us')")
    assert hive.sql(f"SELECT id, name FROM {db}.plain ORDER BY id") == [(1, "from hive"), (2, "from us")]

    ours.sql(f"INSERT INTO {db}.acid VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    ours.sql(f"UPDATE {db}.acid SET name = 'B' WHERE id = 2")
    ours.sql(f"DELETE FROM {db}.acid WHERE id = 3")
    assert _rows(ours.sql(f"SELECT id, name FROM {db}.acid")) == [(1, "a"), (2, "B")]
    # our files are where Hive's catalog says the table is (Hive wrote the location as file:/..)
    location = hive.get_table(db, "acid")["sd"]["location"]
    assert location == f"file:{hive_warehouse}/{db}.db/acid"
    assert sorted(p.name for p in (hive_warehouse / f"{db}.db" / "acid").iterdir()) == [
        "delete_delta_0000002_0000002_0000", "delete_delta_0000003_0000003_0000",
        "delta_0000001_0000001_0000", "delta_0000002_0000002_0000"]

    ours.sql(f"INSERT INTO {db}.parted VALUES (1, 'a', '2024-01-01'), (2, 'b', '2024-01-02')")
    assert _rows(ours.sql(f"SELECT id, name, day FROM {db}.parted")) == [
        (1, "a", "2024-01-01"), (2, "b", "2024-01-02")]
    assert hive.sql(f"SHOW PARTITIONS {db}.parted") == [("day=2024-01-01",), ("day=2024-01-02",)]
    assert [tuple(r) for r in ours.sql(f"SHOW PARTITIONS {db}.parted").collect()] == [
        ("day=2024-01-01",), ("day=2024-01-02",)]
    # Hive still describes what it made the way it made it
    assert hive.get_table(db, "acid")["parameters"]["transactional"] == "true"
    assert hive.describe_formatted(f"{db}.parted")["partition_columns"] == [("day", "string", None)]


# -- transactions ---------------------------------------------------------------------------------------------


def test_hive_open_transaction_is_open_in_our_snapshots(ours: Any, hive: HiveClient) -> None:
    db = _name("snap")
    ours.sql(f"CREATE DATABASE {db}")
    ours.sql(f"CREATE TABLE {db}.t (id int, v string) {ACID}")
    ours.sql(f"INSERT INTO {db}.t VALUES (1, 'before')")
    theirs = hive.open_txn("hive_user")
    txns = ours.store.valid_txns()
    assert theirs in txns.open_txns and not txns.is_txn_valid(theirs)
    shown = {r["Transaction ID"]: r for r in ours.sql("SHOW TRANSACTIONS").collect()}
    assert shown[theirs]["Transaction State"] == "OPEN" and shown[theirs]["User"] == "hive_user"

    # the write Hive's transaction makes later (a write id allocated to it, its delta on disk) stays invisible
    write_id = ours.store.allocate_write_id(theirs, db, "t")
    table = Path(ours.catalog.get_table(db, "t").location.removeprefix("file:"))
    _write_delta(table / f"delta_{write_id:07d}_{write_id:07d}_0000", write_id, [(2, "hive's")])
    r = ours.sql(f"INSERT INTO {db}.t VALUES (3, 'after')")
    assert r.txn_id > theirs and r.write_id > write_id
    assert _rows(ours.sql(f"SELECT * FROM {db}.t")) == [(1, "before"), (3, "after")]
    hive.abort_txn(theirs)
    assert ours.store.txn_state(theirs) == "aborted"
    assert _rows(ours.sql(f"SELECT * FROM {db}.t")) == [(1, "before"), (3, "after")]


def test_our_transactions_are_listed_by_hive(ours: Any, hive: HiveClient) -> None:
    db = _name("ourtxn")
    ours.sql(f"CREATE DATABASE {db}")
    ours.sql(f"CREATE TABLE {db}.t (id int) {ACID}")
    ours.begin()
    r = ours.sql(f"INSERT INTO {db}.t VALUES (1)")
    shown = {t["id"]: t for t in hive.show_txns()}
    assert shown[r.txn_id]["state"] == "OPEN"
    assert r.txn_id in hive.get_valid_txns()["invalid"]
    ours.commit()
    assert r.txn_id not in {t["id"] for t in hive.show_txns()}  # committed: its row is gone, as Hive does
    assert r.txn_id not in hive.get_valid_txns()["invalid"]
    ours.begin()
    rolled = ours.sql(f"INSERT INTO {db}.t VALUES (2)")
    ours.rollback()
    assert {t["id"]: t["state"] for t in hive.show_txns()}[rolled.txn_id] == "ABORTED"


def test_transaction_ids_from_both_never_collide(ours: Any, hive: HiveClient) -> None:
    db = _name("ids")
    ours.sql(f"CREATE DATABASE {db}")
    ours.sql(f"CREATE TABLE {db}.t (id int) {ACID}")
    issued: list[int] = []
    hive_txns: list[int] = []
    for i in range(3):
        hive_txns += hive.open_txns(2, user="hive_user")
        issued += hive_txns[-2:]
        issued.append(ours.sql(f"INSERT INTO {db}.t VALUES ({i})").txn_id)
        issued.append(ours.store.open_txn("us", "here"))
        ours.store.abort_txn(issued[-1])
    assert issued == sorted(set(issued))  # distinct, and in the order they were handed out
    for txn in hive_txns:
        hive.abort_txn(txn)
    assert _rows(ours.sql(f"SELECT id FROM {db}.t")) == [(0,), (1,), (2,)]


# -- locks ----------------------------------------------------------------------------------------------------


def test_hive_exclusive_lock_blocks_our_writes_until_released(ours: Any, hive: HiveClient) -> None:
    db = _name("locks")
    ours.sql(f"CREATE DATABASE {db}")
    ours.sql(f"CREATE TABLE {db}.t (id int) {ACID}")
    excl = hive.lock([{"type": "EXCLUSIVE", "db": db, "table": "t", "operation": "NO_TXN", "acid": False}])
    assert excl["state"] == "ACQUIRED"
    with pytest.raises(LockError, match=f"lockid:{excl['lock_id']}"):
        ours.sql(f"INSERT INTO {db}.t VALUES (1)")
    shown = [(r.lock_type, r.lock_state) for r in ours.sql(f"SHOW LOCKS {db}.t").collect()]
    assert shown == [("EXCLUSIVE", "ACQUIRED")]
    hive.unlock(excl["lock_id"])
    assert ours.sql(f"INSERT INTO {db}.t VALUES (1)").num_inserted_rows == 1


def test_our_locks_block_hive_by_hive_rules(ours: Any, hive: HiveClient) -> None:
    db = _name("locks")
    ours.sql(f"CREATE DATABASE {db}")
    ours.sql(f"CREATE TABLE {db}.t (id int) {ACID}")
    ours.sql(f"INSERT INTO {db}.t VALUES (1)")
    ours.begin()
    r = ours.sql(f"DELETE FROM {db}.t WHERE id = 1")  # SHARED_WRITE, held until commit
    held = [lk for lk in hive.show_locks() if lk["db"] == db]
    assert [(lk["type"], lk["state"], lk["txn_id"]) for lk in held] == [("SHARED_WRITE", "ACQUIRED", r.txn_id)]
    reader = hive.open_txn("hive_reader")
    read = hive.lock([{"type": "SHARED_READ", "db": db, "table": "t", "operation": "SELECT"}], reader)
    excl = hive.lock([{"type": "EXCLUSIVE", "db": db, "table": "t", "operation": "NO_TXN", "acid": False}])
    assert (read["state"], excl["state"]) == ("ACQUIRED", "WAITING")
    ours.commit()
    assert hive.check_lock(excl["lock_id"]) == "WAITING"  # Hive's own reader still holds it off
    hive.abort_txn(reader)
    assert hive.check_lock(excl["lock_id"]) == "ACQUIRED"
    hive.unlock(excl["lock_id"])


def test_hive_shared_write_blocks_our_update_not_our_insert(ours: Any, hive: HiveClient) -> None:
    db = _name("locks")
    ours.sql(f"CREATE DATABASE {db}")
    ours.sql(f"CREATE TABLE {db}.t (id int, v string) {ACID}")
    ours.sql(f"INSERT INTO {db}.t VALUES (1, 'a')")
    writer = hive.open_txn("hive_writer")
    sw = hive.lock([{"type": "SHARED_WRITE", "db": db, "table": "t", "operation": "UPDATE"}], writer)
    assert sw["state"] == "ACQUIRED"
    with pytest.raises(LockError, match=f"txnid:{writer}"):
        ours.sql(f"UPDATE {db}.t SET v = 'b'")
    assert ours.sql(f"INSERT INTO {db}.t VALUES (2, 'c')").num_inserted_rows == 1  # SHARED_READ goes with it
    hive.abort_txn(writer)
    ours.sql(f"UPDATE {db}.t SET v = 'b' WHERE id = 1")
    assert _rows(ours.sql(f"SELECT * FROM {db}.t")) == [(1, "b"), (2, "c")]


# -- the cleaner ----------------------------------------------------------------------------------------------


def test_our_cleaner_waits_for_hive_open_transactions(ours: Any, hive: HiveClient) -> None:
    from hiveacid_sql.compactor import Compactor

    db = _name("clean")
    ours.sql(f"CREATE DATABASE {db}")
    ours.sql(f"CREATE TABLE {db}.t (id int) {ACID}")
    ours.sql(f"INSERT INTO {db}.t VALUES (1)")
    ours.sql(f"INSERT INTO {db}.t VALUES (2)")
    table = Path(ours.catalog.get_table(db, "t").location.removeprefix("file:"))
    theirs = hive.open_txn("hive_reader")  # might still be reading the deltas the compaction replaces
    compacted = ours.sql(f"ALTER TABLE {db}.t COMPACT 'major' AND WAIT").collect()
    ours.ctx.release_leases()  # our own reads are done
    compactor = Compactor(ours.spark, ours.store)
    assert compactor.clean() == []
    assert sorted(p.name for p in table.iterdir() if not p.name.startswith(".")) == [
        "base_0000002", "delta_0000001_0000001_0000", "delta_0000002_0000002_0000"]
    hive.abort_txn(theirs)
    assert compactor.clean() == [compacted[0].compactionid]
    assert sorted(p.name for p in table.iterdir() if not p.name.startswith(".")) == ["base_0000002"]
    assert _rows(ours.sql(f"SELECT * FROM {db}.t")) == [(1,), (2,)]


def test_compaction_requests_are_shared(ours: Any, hive: HiveClient) -> None:
    """Hive's request is worked by our compactor and Hive sees it done; ours is listed by Hive."""
    from hiveacid_sql.compactor import Compactor

    db = _name("queue")
    ours.sql(f"CREATE DATABASE {db}")
    for table in ("a", "b"):
        ours.sql(f"CREATE TABLE {db}.{table} (id int) {ACID}")
        ours.sql(f"INSERT INTO {db}.{table} VALUES (1)")
        ours.sql(f"INSERT INTO {db}.{table} VALUES (2)")
    theirs = hive.compact(db, "a", kind="MINOR")
    assert theirs["state"] == "initiated"
    ours_shown = {(r.dbname, r.tabname): r for r in ours.sql("SHOW COMPACTIONS").collect()}
    assert (ours_shown[(db, "a")].compactionid, ours_shown[(db, "a")].type) == (theirs["id"], "MINOR")
    worked = Compactor(ours.spark, ours.store).work_one(theirs["id"])
    assert worked is not None
    mine = ours.sql(f"ALTER TABLE {db}.b COMPACT 'major' AND WAIT").collect()[0]
    states = {(c["table"], c["type"]): c["state"] for c in hive.show_compactions() if c["db"] == db}
    assert states == {("a", "MINOR"): "ready for cleaning", ("b", "MAJOR"): "ready for cleaning"}
    assert mine.compactionid != theirs["id"]
    assert _rows(ours.sql(f"SELECT id FROM {db}.a")) == [(1,), (2,)]


def _write_delta(directory: Path, write_id: int, rows: list[tuple[int, str]]) -> None:
    """A delta as a writer in the middle of its statement leaves it (its own events, currentTransaction = its
    write id), for a transaction Hive's 2.3 client cannot write for itself."""
    import pyarrow as pa

    from hiveacid_sql.acid.hive_types import parse_hive_type
    from hiveacid_sql.acid.orc_fast_writer import open_event_writer

    directory.mkdir(parents=True)
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
        writer = open_event_writer(f, [("id", parse_hive_type("int")), ("v", parse_hive_type("string"))])
        writer.write_batch(events)
        writer.close()
