"""``read_table`` keeps a SQLite store open for the next read of the process (fixed cost of a read: a new
engine, its statements compiled again, the schema check, a WAL checkpoint at close), and never reads a
replaced store through the kept one. No Spark: the stores are made by ``connect()``, whose CREATE TABLE
starts no JVM (tests/unit/test_lazy_spark.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import hiveacid_sql
from hiveacid_sql import reader


def _warehouse(path: Path, table: str) -> Path:
    with hiveacid_sql.connect(warehouse=path) as acid:
        acid.sql(f"CREATE TABLE {table} (id int, name string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    return path


def test_a_kept_store_serves_the_next_read_and_a_replaced_store_is_opened_anew(tmp_path: Path) -> None:
    wh = _warehouse(tmp_path / "wh", "first")
    assert hiveacid_sql.read_table("first", warehouse=wh).column_names == ["id", "name"]
    kept = list(reader._KEPT_STORES.values())  # noqa: SLF001 - the cache is what is tested
    assert hiveacid_sql.read_table("first", warehouse=wh).num_rows == 0
    assert list(reader._KEPT_STORES.values()) == kept  # noqa: SLF001 - the same store object served the read
    shutil.rmtree(wh)
    _warehouse(wh, "second")  # a new store file at the same path
    assert hiveacid_sql.read_table("second", warehouse=wh).column_names == ["id", "name"]
    with pytest.raises(hiveacid_sql.HiveAcidError, match="first"):  # the replaced store's table is gone
        hiveacid_sql.read_table("first", warehouse=wh)
    for i in range(6):
        hiveacid_sql.read_table("t", warehouse=_warehouse(tmp_path / f"w{i}", "t"))
    assert len(reader._KEPT_STORES) == 4  # noqa: SLF001 - bounded: the oldest are closed
