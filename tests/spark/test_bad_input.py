"""The bad-input catalogue: every failure a user can cause, its message, and proof that nothing changed.

"Nothing changed" is checked three ways after each failing statement: the rows of every table, the listing
of every file under the warehouse, and the transaction store (no transaction left open; a failed DML
statement's transaction is aborted). Where Hive does not fail (a value that does not fit the column, a
division by zero) the test asserts Hive's result instead.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
import sqlalchemy as sa

import hiveacid_sql
from hiveacid_sql.errors import (
    AcidFormatError,
    CatalogError,
    ExecutionError,
    HiveAcidError,
    PlanError,
    TxnError,
)
from tests.support.acid_files import listing
from tests.support.mounts import tmpfs
from tests.support.templates import WarehouseTemplate

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def _build(acid) -> None:
    acid.sql(f"CREATE TABLE t (id int, name string, v varchar(3), d date, n decimal(4,1)) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 'a', 'x', DATE '2020-01-01', 1.5), (2, 'b', 'y', NULL, NULL)")
    acid.sql(f"CREATE TABLE src (id int, name string) {ACID}")
    acid.sql("INSERT INTO src VALUES (1, 'p'), (1, 'q')")
    acid.sql("CREATE TABLE plain (id int) STORED AS ORC")
    acid.sql("INSERT INTO plain VALUES (7)")


@pytest.fixture(scope="module")
def template(spark, tmp_path_factory: pytest.TempPathFactory) -> WarehouseTemplate:
    return WarehouseTemplate(tmp_path_factory.mktemp("bad-input"), spark, _build)


@pytest.fixture()
def warehouse(template: WarehouseTemplate) -> Path:
    """This module's warehouse: the template's, restored for each test (so ``acid`` opens it)."""
    return template.restore()


@pytest.fixture()
def wh(acid, warehouse: Path):
    """A warehouse with an ACID table ``t``, a source ``src`` with a duplicate key and a plain table."""
    return acid


def txns(warehouse: Path) -> list[tuple[int, str]]:
    """(txn id, state) rows of the store's TXNS table, read with SQLite directly."""
    with contextlib.closing(sqlite3.connect(warehouse / ".hiveacid" / "txn.db")) as conn:
        return conn.execute("SELECT TXN_ID, TXN_STATE FROM TXNS ORDER BY TXN_ID").fetchall()


def state(acid, warehouse: Path) -> tuple:
    """Everything a failed statement must leave alone (the store's TXNS aside: see :func:`fails`)."""
    rows = {}
    for t in acid.catalog.list_tables("default"):
        # pyarrow's reader (no Spark job: this runs twice per failing statement) as an independent reader
        try:
            rows[t] = sorted(map(str, hiveacid_sql.read_table(t, warehouse=warehouse).to_pylist()))
        except HiveAcidError as exc:  # a table the test broke on purpose: its error must not change either
            rows[t] = str(exc)
    files = [f for f in listing(warehouse.parent) if ".hiveacid" not in f]
    return rows, files


def fails(acid, warehouse: Path, sql: str, error: type[HiveAcidError], *fragments: str) -> str:
    """Run ``sql``: it must raise ``error`` with a one-line message holding ``fragments``, change no table or
    file, and leave no open transaction (a transaction it opened is aborted)."""
    before = state(acid, warehouse)
    before_txns = txns(warehouse)
    with pytest.raises(error) as info:
        acid.sql(sql)
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message, message
    for fragment in fragments:
        assert fragment in message, message
    assert state(acid, warehouse) == before
    after_txns = txns(warehouse)
    assert all(s == "a" for _id, s in after_txns), after_txns  # nothing left open
    new = [t for t in after_txns if t not in before_txns]
    assert all(s == "a" for _id, s in new)
    return message


# -- names: unknown table, database, column -------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM nosuch",
        "INSERT INTO nosuch VALUES (1)",
        "UPDATE nosuch SET id = 1",
        "DELETE FROM nosuch",
        "MERGE INTO nosuch USING src ON nosuch.id = src.id WHEN MATCHED THEN DELETE",
        "MERGE INTO t USING nosuch ON t.id = nosuch.id WHEN MATCHED THEN DELETE",
    ],
)
def test_unknown_table(wh, warehouse, sql):
    fails(wh, warehouse, sql, PlanError, "Table not found 'default.nosuch'")


def test_unknown_database(wh, warehouse):
    fails(wh, warehouse, "SELECT * FROM nodb.t", PlanError, "Table not found 'nodb.t'")
    fails(wh, warehouse, "INSERT INTO nodb.t VALUES (1)", PlanError, "Table not found 'nodb.t'")
    fails(wh, warehouse, "USE nodb", PlanError, "Database does not exist: nodb")
    fails(wh, warehouse, "CREATE TABLE nodb.x (id int)", PlanError, "Database does not exist: nodb")


def test_unknown_column_in_set(wh, warehouse):
    fails(wh, warehouse, "UPDATE t SET nosuchcol = 1", PlanError, "line 1, col 14", "nosuchcol")


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE t SET name = 'z' WHERE nosuchcol = 1",
        "DELETE FROM t WHERE nosuchcol = 1",
        "MERGE INTO t USING src ON t.id = src.id WHEN MATCHED AND src.nosuchcol = 1 THEN DELETE",
        "MERGE INTO t USING src ON t.id = src.nosuchcol WHEN MATCHED THEN DELETE",
    ],
)
def test_unknown_column_in_generated_sql(wh, warehouse, sql):
    """Spark's position points into the SQL we generate, and its suggestions list our internal columns:
    neither may reach the user."""
    message = fails(wh, warehouse, sql, PlanError, "nosuchcol", "cannot be resolved")
    assert " pos " not in message, message
    assert "__" not in message, message


# -- values ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        "(1, 'a')",
        "(1, 'a', 'x', DATE '2020-01-01', 1.5, 7)",
    ],
)
def test_wrong_value_count(wh, warehouse, values):
    fails(wh, warehouse, f"INSERT INTO t VALUES {values}", PlanError, "column number/types are different",
          "has 5 columns")


def test_wrong_value_count_with_column_list(wh, warehouse):
    fails(wh, warehouse, "INSERT INTO t (id, name) VALUES (1)", PlanError)


def _row(acid, id_: int) -> tuple:
    rows = acid.sql(f"SELECT * FROM t WHERE id = {id_}").collect()
    assert len(rows) == 1, rows
    return tuple(rows[0])


def test_values_that_do_not_fit_are_stored_as_hive_stores_them(wh):
    """Hive does not fail these: an int out of range wraps (Java's (int) cast), a string that is no date and a
    decimal too wide for its precision become NULL, a string longer than varchar(n) is truncated, and an
    impossible date is resolved LENIENT as Hive 3.1's Date.valueOf does (month 13, day 45 roll over)."""
    wh.sql("INSERT INTO t VALUES (3000000000, 'a', 'x', DATE '2020-01-01', 1.5)")
    assert _row(wh, 3000000000 - 2**32)[0] == -1294967296
    wh.sql("INSERT INTO t VALUES (3, 'a', 'xxxxxx', 'not a date', 123456.5)")
    _id, _name, v, d, n = _row(wh, 3)
    assert (v, d, n) == ("xxx", None, None)
    wh.sql("INSERT INTO t VALUES (4, 'a', 'x', '2020-13-45', 1.5)")
    assert _row(wh, 4)[3] == datetime.date(2021, 2, 14)


def test_division_by_zero_in_update_is_null(wh):
    """Hive's ``/`` returns NULL for a zero divisor; the UPDATE succeeds."""
    wh.sql("UPDATE t SET n = n / 0, id = id + 10 WHERE id = 1")
    row = _row(wh, 11)
    assert row[4] is None


# -- statements the table kind does not allow -------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE plain SET id = 1",
        "DELETE FROM plain",
        "MERGE INTO plain USING src ON plain.id = src.id WHEN MATCHED THEN DELETE",
    ],
)
def test_update_delete_on_plain_table(wh, warehouse, sql):
    fails(wh, warehouse, sql, PlanError, "not transactional (Hive error 10297)")


def test_merge_cardinality_violation(wh, warehouse):
    fails(
        wh, warehouse, "MERGE INTO t USING src ON t.id = src.id WHEN MATCHED THEN UPDATE SET name = src.name",
        ExecutionError, "Cardinality Violation in Merge statement", "matched by 2 source rows",
    )


# -- names that try to leave the warehouse ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["`../evil`", "`..`", "`.`", "`/abs`", "`a/b`", "`a\\b`", "`x y`", "`tab\tname`"])
def test_table_names_that_would_leave_the_warehouse(wh, warehouse, name):
    message = fails(wh, warehouse, f"CREATE TABLE {name} (id int) {ACID}", CatalogError, "is not a valid table name")
    assert not (warehouse.parent / "evil").exists() and not Path("/abs").exists()
    fails(wh, warehouse, f"CREATE TABLE {name} AS SELECT 1 AS id", CatalogError, "is not a valid table name")
    fails(wh, warehouse, f"ALTER TABLE t RENAME TO {name}", CatalogError, "is not a valid table name")
    assert message


@pytest.mark.parametrize("name", ["`../evildb`", "`x/y`", "`..`", "`/abs`"])
def test_database_names_that_would_leave_the_warehouse(wh, warehouse, name):
    fails(wh, warehouse, f"CREATE DATABASE {name}", CatalogError, "is not a valid database name")
    assert not (warehouse.parent / "evildb.db").exists()


def test_partition_values_and_column_names_stay_inside(wh, warehouse):
    """Partition keys and values are escaped (Hive's FileUtils.escapePathName), so they cannot leave."""
    wh.sql(f"CREATE TABLE pt (id int) PARTITIONED BY (`p/q` string) {ACID}")
    wh.sql("INSERT INTO pt VALUES (1, '../../x'), (2, '/abs')")
    assert sorted(os.listdir(warehouse / "pt")) == ["p%2Fq=%2Fabs", "p%2Fq=..%2F..%2Fx"]
    assert sorted(tuple(r) for r in wh.sql("SELECT * FROM pt").collect()) == [(1, "../../x"), (2, "/abs")]


# -- the table directory changed behind the store's back ----------------------------------------------------


def _delta_files(warehouse: Path, table: str) -> list[Path]:
    return sorted(p for p in (warehouse / table).rglob("bucket_*"))


def test_data_file_deleted(wh, warehouse):
    """Hive ACID has no file manifest: a deleted file's rows are simply gone (deleted rows come back when a
    delete delta goes), for Hive and Trino as for us. What must hold: the other files still read, and the next
    statements work on what is there."""
    wh.sql("DELETE FROM t WHERE id = 2")
    wh.sql("INSERT INTO t (id) VALUES (3)")
    delete_file = next(p for p in _delta_files(warehouse, "t") if p.parent.name.startswith("delete_delta_"))
    delete_file.unlink()
    assert sorted(r[0] for r in wh.sql("SELECT id FROM t").collect()) == [1, 2, 3]
    first_insert = next(p for p in _delta_files(warehouse, "t") if p.parent.name.startswith("delta_0000001_"))
    first_insert.unlink()
    assert sorted(r[0] for r in wh.sql("SELECT id FROM t").collect()) == [3]
    wh.sql("UPDATE t SET id = 4")
    assert sorted(r[0] for r in wh.sql("SELECT id FROM t").collect()) == [4]


def test_stray_file_in_delta_is_ignored(wh, warehouse):
    """Hive reads only ``bucket_N`` files of base/delta dirs; other files there are not data."""
    delta = _delta_files(warehouse, "t")[0].parent
    (delta / "README").write_text("stray")
    assert wh.sql("SELECT count(*) FROM t").collect()[0][0] == 2


def test_stray_file_in_table_dir(wh, warehouse):
    """A file directly in the table dir is an "original" (pre-ACID) data file to Hive (getAcidState), so a
    file that is not ORC makes every read fail, naming the file."""
    (warehouse / "t" / "notes.txt").write_text("hello")
    for sql in ("SELECT * FROM t", "DELETE FROM t WHERE id = 1"):
        fails(wh, warehouse, sql, AcidFormatError, "notes.txt: Not an ORC file")


def test_garbage_bucket_file(wh, warehouse):
    delta = _delta_files(warehouse, "t")[0].parent
    (delta / "bucket_00001").write_bytes(b"this is not an ORC file")
    for sql in ("SELECT * FROM t", "UPDATE t SET id = 5", "DELETE FROM t WHERE id = 1"):
        fails(wh, warehouse, sql, HiveAcidError, "bucket_00001")


def test_unparseable_directory_name(wh, warehouse):
    (warehouse / "t" / "delta_abc_def").mkdir()
    for sql in ("SELECT * FROM t", "UPDATE t SET id = 3", "DELETE FROM t"):
        fails(wh, warehouse, sql, AcidFormatError, "Malformed ACID delta directory name 'delta_abc_def'")


def test_table_directory_replaced_by_a_file(wh, warehouse):
    """A file where the table directory should be (works as root, unlike chmod)."""
    for p in sorted((warehouse / "t").rglob("*"), reverse=True):
        p.rmdir() if p.is_dir() else p.unlink()
    (warehouse / "t").rmdir()
    (warehouse / "t").write_text("not a directory")
    fails(wh, warehouse, "INSERT INTO t (id) VALUES (9)", ExecutionError, "Not a directory")
    fails(wh, warehouse, "SELECT * FROM t", AcidFormatError, "ACID table location is not a directory")


# -- the transaction store ----------------------------------------------------------------------------------


def test_store_locked(wh, warehouse):
    """Another process holds the SQLite store's write lock: a clear one-line error after the busy timeout
    (``?timeout=1`` in the store's URL: one second instead of 30)."""
    store = warehouse / ".hiveacid" / "txn.db"
    acid = hiveacid_sql.connect(spark=wh.spark, warehouse=warehouse, store_url=f"sqlite:///{store}?timeout=1")
    holder = sqlite3.connect(store, isolation_level=None)
    try:
        before = [f for f in listing(warehouse) if ".hiveacid" not in f]
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(TxnError) as info:
            acid.sql("INSERT INTO t (id) VALUES (9)")
        assert "\n" not in str(info.value) and "locked" in str(info.value), str(info.value)
        holder.execute("ROLLBACK")
        assert [f for f in listing(warehouse) if ".hiveacid" not in f] == before
    finally:
        holder.close()
        acid.close()
    assert wh.sql("SELECT count(*) FROM t").collect()[0][0] == 2


def test_store_corrupt(spark, tmp_path):
    store = tmp_path / "wh" / ".hiveacid" / "txn.db"
    store.parent.mkdir(parents=True)
    store.write_bytes(b"not a sqlite database" * 100)
    with pytest.raises(TxnError) as info:
        hiveacid_sql.connect(spark=spark, warehouse=tmp_path / "wh")
    assert "\n" not in str(info.value) and "txn.db" in str(info.value), str(info.value)


def test_store_read_only(spark, tmp_path):
    """The store on a read-only file system: reads work, a write fails with one line and changes nothing."""
    with tmpfs(tmp_path / "ro", "8M") as ro:  # a new store is Hive's 74 tables: about 1.5 MB with its WAL
        warehouse = tmp_path / "wh"
        url = f"sqlite:///{ro}/txn.db"
        with hiveacid_sql.connect(spark=spark, warehouse=warehouse, store_url=url) as acid:
            acid.sql(f"CREATE TABLE t (id int) {ACID}")
            acid.sql("INSERT INTO t VALUES (1)")
        subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
        before = listing(warehouse)
        with pytest.raises(HiveAcidError) as info:
            acid = hiveacid_sql.connect(spark=spark, warehouse=warehouse, store_url=url)
            try:
                acid.sql("INSERT INTO t VALUES (2)")
            finally:
                acid.close()
        assert "\n" not in str(info.value), str(info.value)
        assert listing(warehouse) == before


def test_warehouse_read_only(spark, tmp_path):
    """The warehouse on a read-only file system (the store elsewhere): the INSERT fails, its txn is aborted."""
    with tmpfs(tmp_path / "ro") as ro:
        url = f"sqlite:///{tmp_path}/txn.db"
        with hiveacid_sql.connect(spark=spark, warehouse=ro, store_url=url) as acid:
            acid.sql(f"CREATE TABLE t (id int) {ACID}")
            acid.sql("INSERT INTO t VALUES (1)")
            subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
            before = listing(ro)
            with pytest.raises(HiveAcidError) as info:
                acid.sql("INSERT INTO t VALUES (2)")
            assert "\n" not in str(info.value) and "Read-only file system" in str(info.value), str(info.value)
            assert listing(ro) == before
            assert [tuple(r) for r in acid.sql("SELECT * FROM t").collect()] == [(1,)]
            engine = sa.create_engine(url)
            with engine.connect() as conn:
                assert [r[0] for r in conn.execute(sa.text("SELECT TXN_STATE FROM TXNS"))] == ["a"]
            engine.dispose()


def test_warehouse_full(spark, tmp_path):
    """A 1 MiB warehouse: an INSERT that does not fit fails with one line, its files are removed, its txn
    aborted, and the table still reads its earlier rows."""
    with tmpfs(tmp_path / "small", "1M") as small:
        url = f"sqlite:///{tmp_path}/txn.db"
        with hiveacid_sql.connect(spark=spark, warehouse=small, store_url=url) as acid:
            acid.sql(f"CREATE TABLE t (id int, s string) {ACID}")
            acid.sql("INSERT INTO t VALUES (1, 'a')")
            before = listing(small)
            with pytest.raises(HiveAcidError) as info:
                acid.sql("INSERT INTO t SELECT id, uuid() FROM range(200000)")
            assert "\n" not in str(info.value) and "No space left" in str(info.value), str(info.value)
            assert listing(small) == before
            assert [tuple(r) for r in acid.sql("SELECT * FROM t").collect()] == [(1, "a")]
