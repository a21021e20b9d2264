"""Snapshots and failures: what a statement sees, and what an aborted or failed statement leaves behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from hiveacid_sql.acid.codec import encode_bucket
from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.names import delta_dir_name
from hiveacid_sql.errors import ExecutionError, HiveAcidError
from tests.support.acid_files import listing
from tests.support.row_events import RowEventWriter

CREATE = "CREATE TABLE t (id int, name string) STORED AS ORC TBLPROPERTIES ('transactional'='true')"
COLUMNS = [("id", parse_hive_type("int")), ("name", parse_hive_type("string"))]


def write_delta_by_hand(table_dir: Path, write_id: int, rows: list[tuple[int, str]]) -> None:
    """What a concurrent writer (another driver, Hive) leaves on disk before it commits."""
    delta = table_dir / delta_dir_name(write_id, write_id, 0)
    delta.mkdir(parents=True)
    (delta / "_orc_acid_version").write_bytes(b"2")
    with open(delta / "bucket_00000", "wb") as f:
        writer = RowEventWriter(f, COLUMNS)
        for i, row in enumerate(rows):
            writer.insert(write_id, encode_bucket(0, 0), i, row)
        writer.close()


def ids(acid, sql: str = "SELECT id FROM t ORDER BY id") -> list[int]:
    return [r.id for r in acid.sql(sql).collect()]


def test_snapshot_ignores_a_transaction_that_commits_after_it_starts(acid, warehouse):
    acid.sql(CREATE)
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    other = acid.store.open_txn("other", "elsewhere")
    write_id = acid.store.allocate_write_id(other, "default", "t")
    assert write_id == 2
    write_delta_by_hand(warehouse / "t", write_id, [(2, "b")])
    before = acid.sql("SELECT id FROM t")  # snapshot taken while `other` is open
    acid.store.add_components(other, "default", "t", write_id, "i")
    acid.store.commit_txn(other)
    assert sorted(r.id for r in before.collect()) == [1]  # the DataFrame stays on its snapshot
    assert ids(acid) == [1, 2]  # a new statement sees the commit


def test_files_of_an_aborted_transaction_never_show(acid, warehouse):
    acid.sql(CREATE)
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    other = acid.store.open_txn("other", "elsewhere")
    write_id = acid.store.allocate_write_id(other, "default", "t")
    write_delta_by_hand(warehouse / "t", write_id, [(2, "b"), (3, "c")])
    assert ids(acid) == [1]  # open: invisible
    acid.store.abort_txn(other)
    acid.sql("INSERT INTO t VALUES (4, 'd')")  # later write ids commit around the aborted one
    assert ids(acid) == [1, 4]  # aborted: invisible for good, though its files are on disk
    assert (warehouse / "t" / delta_dir_name(write_id, write_id, 0) / "bucket_00000").exists()
    assert ids(acid, "SELECT id FROM t WHERE name IN ('b', 'c')") == []


def test_failed_update_leaves_the_table_as_it_was(acid, warehouse):
    acid.sql(CREATE)
    acid.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    files_before = listing(warehouse / "t")
    with pytest.raises(ExecutionError) as err:
        acid.sql("UPDATE t SET name = raise_error('boom') WHERE id >= 2")
    assert "boom" in str(err.value) and "\n" not in str(err.value)
    assert listing(warehouse / "t") == files_before  # the aborted statement's directories are gone
    assert [(r.id, r.name) for r in acid.sql("SELECT id, name FROM t ORDER BY id").collect()] == [
        (1, "a"), (2, "b"), (3, "c"),
    ]
    txns = acid.store.list_txns()
    assert any(t["state"] in ("a", "aborted") for t in txns)
    result = acid.sql("UPDATE t SET name = 'z' WHERE id = 2")  # the next statement works normally
    assert result.write_id == 3 and result.num_updated_rows == 1
    assert [r.name for r in acid.sql("SELECT name FROM t ORDER BY id").collect()] == ["a", "z", "c"]


def test_failed_insert_select_leaves_nothing_visible(acid, warehouse):
    acid.sql(CREATE)
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    with pytest.raises(HiveAcidError):
        acid.sql("INSERT INTO t SELECT id + 10, assert_true(id > 5) FROM t")
    assert ids(acid) == [1]
    assert listing(warehouse / "t") == [
        "delta_0000001_0000001_0000/_orc_acid_version",
        "delta_0000001_0000001_0000/bucket_00000",
    ]


def test_every_acid_table_of_a_statement_is_read_at_one_snapshot(acid):
    acid.sql(CREATE)
    acid.sql("CREATE TABLE u (id int, name string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    acid.sql("INSERT INTO u VALUES (2, 'x')")
    acid.sql("DELETE FROM t WHERE id IN (SELECT id FROM u)")
    assert ids(acid) == [1]
    joined = acid.sql("SELECT t.id, u.name FROM t JOIN u ON t.id + 1 = u.id").collect()
    assert [(r.id, r.name) for r in joined] == [(1, "x")]


def test_write_ids_are_per_table_and_txn_ids_grow(acid):
    acid.sql(CREATE)
    acid.sql("CREATE TABLE u (id int, name string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    r1 = acid.sql("INSERT INTO t VALUES (1, 'a')")
    r2 = acid.sql("INSERT INTO u VALUES (1, 'a')")
    r3 = acid.sql("INSERT INTO t VALUES (2, 'b')")
    assert (r1.write_id, r2.write_id, r3.write_id) == (1, 1, 2)
    assert r1.txn_id < r2.txn_id < r3.txn_id
