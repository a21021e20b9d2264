"""The Hive-client harness itself, on a database Apache Hive's 3.1 script created (PostgreSQL and MariaDB).

Before Hive's 2.3 metastore code can witness that hiveacid-sql writes Hive's rows (test_hive_client_*.py), it
must be shown to work on its own against the 3.1 schema: it creates databases, plain, transactional and
partitioned ORC tables, lists and describes them, and runs transactions and locks — and what it writes is in
the database's own rows (read back here with SQLAlchemy, not through Hive).
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import sqlalchemy as sa

from tests.support.hive_client import HiveClient, HiveClientError

pytestmark = pytest.mark.hive_client


def _name(prefix: str) -> str:
    """A database name of this test's own: the module's tests share one Hive database server-side."""
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def _rows(url: str, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    """Rows straight from the database. ``{NAME}`` in ``sql`` is a quoted catalog identifier (Hive's PostgreSQL
    script quotes its catalog tables and columns upper case); transaction tables are written unquoted."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            prep = conn.dialect.identifier_preparer
            names = {w: prep.quote_identifier(w) for w in _braced(sql)}
            return [tuple(r) for r in conn.execute(sa.text(sql.format(**names)), params)]
    finally:
        engine.dispose()


def _is_postgres(url: str) -> bool:
    return sa.make_url(url).get_backend_name() == "postgresql"


def _braced(sql: str) -> set[str]:
    import string

    return {field for _, field, _, _ in string.Formatter().parse(sql) if field}


def test_fresh_database_is_hive_31_and_hive_23_uses_it(hive: HiveClient, hive_db: str) -> None:
    """The script made a 3.1.0 metastore, and Hive 2.3's client created its default database in it (in the
    3.1 catalog 'hive', the column 2.3 does not know about filled by the script's default)."""
    assert _rows(hive_db, "SELECT {SCHEMA_VERSION} FROM {VERSION}") == [("3.1.0",)]
    assert "default" in hive.get_databases()
    assert _rows(hive_db, "SELECT {CTLG_NAME} FROM {DBS} WHERE {NAME} = 'default'") == [("hive",)]


def test_hive_creates_lists_and_describes_tables(hive: HiveClient, hive_db: str, hive_warehouse) -> None:
    db = _name("harness")
    hive.sql_many([
        f"CREATE DATABASE {db}",
        f"CREATE TABLE {db}.plain (id INT COMMENT 'the key', name STRING) STORED AS ORC",
        f"CREATE TABLE {db}.acid (id INT, amount DECIMAL(10,2)) CLUSTERED BY (id) INTO 2 BUCKETS STORED AS ORC "
        "TBLPROPERTIES ('transactional'='true')",
        f"CREATE TABLE {db}.parted (id INT) PARTITIONED BY (day STRING, hour INT) STORED AS ORC",
    ])
    assert sorted(r[1] for r in hive.sql(f"SHOW TABLES IN {db}")) == ["acid", "parted", "plain"]
    assert sorted(hive.get_tables(db)) == ["acid", "parted", "plain"]

    plain = hive.describe_formatted(f"{db}.plain")
    assert plain["columns"] == [("id", "int", "the key"), ("name", "string", None)]
    assert plain["details"]["Type"] == "MANAGED"
    assert plain["details"]["InputFormat"] == "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"
    assert plain["details"]["Location"] == f"file:{hive_warehouse}/{db}.db/plain"

    acid = hive.get_table(db, "acid")
    assert acid["table_type"] == "MANAGED_TABLE"
    assert acid["parameters"]["transactional"] == "true"
    assert acid["sd"]["num_buckets"] == 2 and acid["sd"]["bucket_cols"] == ["id"]
    assert acid["sd"]["cols"] == [("id", "int", None), ("amount", "decimal(10,2)", None)]
    assert acid["sd"]["serde"] == "org.apache.hadoop.hive.ql.io.orc.OrcSerde"
    assert hive.describe_formatted(f"{db}.acid")["details"]["Table Properties"]["transactional"] == "true"

    parted = hive.describe_formatted(f"{db}.parted")
    assert parted["columns"] == [("id", "int", None)]
    assert parted["partition_columns"] == [("day", "string", None), ("hour", "int", None)]

    # the rows are Hive's: TBLS -> SDS -> CDS/COLUMNS_V2, TABLE_PARAMS, PARTITION_KEYS
    cols = _rows(
        hive_db,
        "SELECT c.{COLUMN_NAME}, c.{TYPE_NAME} FROM {TBLS} t JOIN {DBS} d ON t.{DB_ID} = d.{DB_ID} "
        "JOIN {SDS} s ON t.{SD_ID} = s.{SD_ID} JOIN {COLUMNS_V2} c ON c.{CD_ID} = s.{CD_ID} "
        "WHERE d.{NAME} = :db AND t.{TBL_NAME} = 'acid' ORDER BY c.{INTEGER_IDX}",
        db=db,
    )
    assert cols == [("id", "int"), ("amount", "decimal(10,2)")]
    keys = _rows(
        hive_db,
        "SELECT k.{PKEY_NAME} FROM {PARTITION_KEYS} k JOIN {TBLS} t ON k.{TBL_ID} = t.{TBL_ID} "
        "JOIN {DBS} d ON t.{DB_ID} = d.{DB_ID} WHERE d.{NAME} = :db ORDER BY k.{INTEGER_IDX}",
        db=db,
    )
    assert keys == [("day",), ("hour",)]


def test_hive_adds_lists_and_fills_partitions(hive: HiveClient) -> None:
    db = _name("harness")
    out = hive.sql_many([
        f"CREATE DATABASE {db}",
        f"CREATE TABLE {db}.events (id INT, what STRING) PARTITIONED BY (day STRING) STORED AS ORC",
        f"ALTER TABLE {db}.events ADD PARTITION (day='2024-01-01')",
        f"INSERT INTO {db}.events PARTITION (day='2024-01-02') VALUES (1, 'a'), (2, 'b')",
        f"SHOW PARTITIONS {db}.events",
        f"SELECT id, what, day FROM {db}.events ORDER BY id",
    ])
    assert out[-2] == [("day=2024-01-01",), ("day=2024-01-02",)]
    assert out[-1] == [(1, "a", "2024-01-02"), (2, "b", "2024-01-02")]
    assert hive.get_partition_names(db, "events") == ["day=2024-01-01", "day=2024-01-02"]
    parts = hive.get_partitions(db, "events")
    assert [p["values"] for p in parts] == [["2024-01-01"], ["2024-01-02"]]
    assert parts[1]["sd"]["location"].endswith(f"/{db}.db/events/day=2024-01-02")


def test_hive_transactions_are_rows_of_txns(hive: HiveClient, hive_db: str) -> None:
    """openTxn/showTxns/commit/abort of the 2.3 TxnHandler run on the 3.1 tables, with Hive's state codes."""
    first = hive.open_txn("alice")
    second, third = hive.open_txns(2, user="bob")
    assert (second, third) == (first + 1, first + 2)
    shown = {t["id"]: t for t in hive.show_txns()}
    assert shown[first]["state"] == "OPEN" and shown[first]["user"] == "alice"
    assert _rows(hive_db, "SELECT TXN_STATE, TXN_USER FROM TXNS WHERE TXN_ID = :t", t=first) == [("o", "alice")]
    valid = hive.get_valid_txns()
    assert valid["high_watermark"] >= third and {first, second, third} <= set(valid["invalid"])

    if _is_postgres(hive_db):  # Hive 2.3 cannot commit on MariaDB's 3.1 schema: see the limits test
        hive.commit_txn(first)
    else:
        hive.abort_txn(first)
    hive.abort_txn(second)
    hive.abort_txn(third)
    shown = {t["id"]: t["state"] for t in hive.show_txns()}
    if _is_postgres(hive_db):
        assert first not in shown  # Hive deletes a committed transaction's row
    assert shown[second] == shown[third] == "ABORTED"
    assert _rows(hive_db, "SELECT TXN_STATE FROM TXNS WHERE TXN_ID = :t", t=second) == [("a",)]
    assert _rows(hive_db, "SELECT NTXN_NEXT FROM NEXT_TXN_ID") == [(third + 1,)]


def test_hive_locks_follow_hive_compatibility(hive: HiveClient, hive_db: str) -> None:
    """Shared read and shared write share a table; an exclusive lock waits for both and gets it after."""
    db = _name("locks")
    hive.sql(f"CREATE DATABASE {db}")
    reader = hive.open_txn("reader")
    writer = hive.open_txn("writer")
    read = hive.lock([{"type": "SHARED_READ", "db": db, "table": "t", "operation": "SELECT"}], reader)
    write = hive.lock([{"type": "SHARED_WRITE", "db": db, "table": "t", "operation": "SELECT"}], writer)
    excl = hive.lock([{"type": "EXCLUSIVE", "db": db, "table": "t", "operation": "NO_TXN", "acid": False}])
    assert (read["state"], write["state"], excl["state"]) == ("ACQUIRED", "ACQUIRED", "WAITING")
    mine = {(lk["lock_id"], lk["type"], lk["state"]) for lk in hive.show_locks() if lk["db"] == db}
    assert mine == {
        (read["lock_id"], "SHARED_READ", "ACQUIRED"),
        (write["lock_id"], "SHARED_WRITE", "ACQUIRED"),
        (excl["lock_id"], "EXCLUSIVE", "WAITING"),
    }
    assert _rows(hive_db, "SELECT HL_LOCK_STATE, HL_LOCK_TYPE FROM HIVE_LOCKS WHERE HL_LOCK_EXT_ID = :l",
                 l=excl["lock_id"]) == [("w", "e")]

    hive.abort_txn(reader)  # a transaction's locks go with it
    assert hive.check_lock(excl["lock_id"]) == "WAITING"
    hive.abort_txn(writer)
    assert hive.check_lock(excl["lock_id"]) == "ACQUIRED"
    hive.unlock(excl["lock_id"])
    assert [lk for lk in hive.show_locks() if lk["db"] == db] == []


def test_hive_23_commit_limits_on_the_31_schema(hive: HiveClient, hive_db: str) -> None:
    """Limits of the witness, pinned so the coexistence tests' choices stay explained. Hive 2.3's commit copies
    TXN_COMPONENTS into COMPLETED_TXN_COMPONENTS with ``INSERT .. SELECT`` of 2.3's columns only: PostgreSQL fills
    the missing ones with defaults, so a read-only commit works but a registered write (a SHARED_WRITE lock for
    an INSERT) hits Hive 3's NOT NULL ``CTC_UPDATE_DELETE``; MariaDB refuses the column count, so there no 2.3
    commit works at all. Abort works on both."""
    db = _name("limit")
    hive.sql(f"CREATE DATABASE {db}")
    reader, writer = hive.open_txns(2, user="limits")
    hive.lock([{"type": "SHARED_WRITE", "db": db, "table": "t", "operation": "INSERT"}], writer)
    if _is_postgres(hive_db):
        hive.commit_txn(reader)
        with pytest.raises(HiveClientError, match="(?i)ctc_update_delete"):
            hive.commit_txn(writer)
    else:
        for txn in (reader, writer):
            with pytest.raises(HiveClientError, match="Column count doesn't match"):
                hive.commit_txn(txn)
        hive.abort_txn(reader)
    hive.abort_txn(writer)
    shown = {t["id"]: t["state"] for t in hive.show_txns()}
    assert shown[writer] == "ABORTED" and shown.get(reader) in (None, "ABORTED")


def test_hive_queues_and_lists_compactions(hive: HiveClient, hive_db: str) -> None:
    db = _name("compact")
    hive.sql_many([
        f"CREATE DATABASE {db}",
        f"CREATE TABLE {db}.t (id INT) CLUSTERED BY (id) INTO 2 BUCKETS STORED AS ORC "
        "TBLPROPERTIES ('transactional'='true')",
    ])
    queued = hive.compact(db, "t", kind="MAJOR")
    assert queued["accepted"] and queued["state"] == "initiated"
    assert hive.compact(db, "t", kind="MAJOR")["id"] == queued["id"]  # one request per directory
    shown = [c for c in hive.show_compactions() if c["db"] == db]
    assert [(c["table"], c["partition"], c["type"], c["state"]) for c in shown] == [("t", None, "MAJOR", "initiated")]
    assert _rows(hive_db, "SELECT CQ_STATE, CQ_TYPE FROM COMPACTION_QUEUE WHERE CQ_ID = :i", i=queued["id"]) == [
        ("i", "a")]


@pytest.mark.parametrize("stored", ["ORC", "PARQUET", "TEXTFILE"])
def test_hive_serdes_read_the_plain_files_we_write(acid, hive: HiveClient, tmp_path, stored: str) -> None:
    """Files of our plain tables, read by Hive's own serdes (OrcSerde, ParquetHiveSerDe, LazySimpleSerDe and its
    ``\\N`` for NULL) through an external table over the same directory; '' and NULL stay apart."""
    data = tmp_path / "data"
    acid.sql(f"CREATE EXTERNAL TABLE t (id int, name string, amount decimal(5,2)) STORED AS {stored} "
             f"LOCATION '{data}'")
    acid.sql("INSERT INTO t VALUES (1, 'a', 1.50), (2, '', NULL), (3, NULL, 0)")
    db = _name("serde")
    hive.sql(f"CREATE DATABASE {db}")
    hive.sql(f"CREATE EXTERNAL TABLE {db}.t (id INT, name STRING, amount DECIMAL(5,2)) STORED AS {stored} "
             f"LOCATION 'file:{data}'")
    assert hive.sql(f"SELECT id, name, CAST(amount AS STRING) FROM {db}.t ORDER BY id") == [
        (1, "a", "1.50"), (2, "", None), (3, None, "0.00")]


@pytest.mark.parametrize("stored", ["ORC", "PARQUET", "TEXTFILE"])
def test_hive_serdes_read_the_timestamps_we_write(acid, hive: HiveClient, tmp_path, stored: str) -> None:
    """Timestamps of our plain ORC, Parquet (INT96, the only Parquet timestamp Hive's ParquetHiveSerDe reads) and
    text files are the wall-clock values Hive's serdes read."""
    data = tmp_path / "data"
    acid.sql(f"CREATE EXTERNAL TABLE t (id int, at timestamp) STORED AS {stored} LOCATION '{data}'")
    acid.sql("INSERT INTO t VALUES (1, TIMESTAMP '2024-01-02 03:04:05'), (2, NULL), "
             "(3, TIMESTAMP '1999-12-31 23:59:59.5')")
    db = _name("serde")
    hive.sql(f"CREATE DATABASE {db}")
    hive.sql(f"CREATE EXTERNAL TABLE {db}.t (id INT, at TIMESTAMP) STORED AS {stored} LOCATION 'file:{data}'")
    assert hive.sql(f"SELECT id, CAST(at AS STRING) FROM {db}.t ORDER BY id") == [
        (1, "2024-01-02 03:04:05"), (2, None), (3, "1999-12-31 23:59:59.5")]


def test_hive_errors_come_back_in_one_line(hive: HiveClient) -> None:
    with pytest.raises(HiveClientError) as err:
        hive.sql("DESCRIBE FORMATTED no_such_db_xyz.nothing")
    assert "no_such_db_xyz" in str(err.value) and "\n" not in str(err.value)
    assert hive.sql("SELECT 1") == [(1,)]  # the client survives its errors
