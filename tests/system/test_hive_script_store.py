"""The store on a database Apache Hive's own 3.1.0 script created (not our bootstrap): the walkthrough runs to
the same rows, row ids and directories as on the embedded SQLite store, and two connections keep Hive's
write-set rule there. PostgreSQL and MariaDB (Hive has no SQLite script; the walkthrough, with
``pytest --long`` only: CI's 25-minute budget)."""

from __future__ import annotations

from pathlib import Path

import pytest

import hiveacid_sql
from hiveacid_sql.cli.script import statements_of
from hiveacid_sql.errors import TxnAbortedError
from tests.support.stores import hive_store_url

ROOT = Path(__file__).resolve().parents[2]
HIVE_SCRIPT_BACKENDS = [
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    pytest.param("mariadb", id="mariadb", marks=pytest.mark.mariadb),
]


def _walkthrough(spark, warehouse: Path, url: str | None) -> tuple[list[tuple], list[str], list[tuple]]:
    """Run examples/walkthrough.sql; the final rows with their row ids, the table's directories, the history."""
    acid = hiveacid_sql.connect(spark=spark, warehouse=warehouse, store_url=url)
    try:
        for statement in statements_of((ROOT / "examples" / "walkthrough.sql").read_text()):
            result = acid.sql(statement.text)
            if hasattr(result, "collect"):  # a query's DataFrame is lazy: run it (DML returns its result)
                result.collect()
        rows = [
            (r[0].writeid, r[0].bucketid, r[0].rowid, r.id, r.name, r.salary)
            for r in acid.sql("SELECT row__id, id, name, salary FROM employee ORDER BY id").collect()
        ]
        history = [
            (r.write_id, r.operation, r.num_inserted_rows, r.num_updated_rows, r.num_deleted_rows)
            for r in acid.sql("DESCRIBE HISTORY employee").collect()
        ]
    finally:
        acid.close()
    dirs = sorted(p.name for p in (warehouse / "employee").iterdir())
    return rows, dirs, history


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param("postgres", id="postgres", marks=[pytest.mark.postgres, pytest.mark.release]),
        pytest.param("mariadb", id="mariadb", marks=[pytest.mark.mariadb, pytest.mark.release]),
    ],
)
def test_walkthrough_on_a_database_made_by_hives_script(backend, spark, tmp_path):
    expected = _walkthrough(spark, tmp_path / "sqlite", None)
    assert expected[0], "the walkthrough ends with rows"
    with hive_store_url(backend) as url:
        assert _walkthrough(spark, tmp_path / backend, url) == expected


@pytest.mark.parametrize("backend", HIVE_SCRIPT_BACKENDS)
def test_write_conflict_between_two_connections_on_hives_database(backend, spark, tmp_path):
    with hive_store_url(backend) as url:
        a = hiveacid_sql.connect(spark=spark, warehouse=tmp_path / "wh", store_url=url)
        b = hiveacid_sql.connect(spark=spark, warehouse=tmp_path / "wh", store_url=url)
        try:
            a.sql("CREATE TABLE t (id int, v string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
            a.sql("INSERT INTO t VALUES (1, 'x'), (2, 'y')")
            a.begin()
            b.begin()
            a.sql("UPDATE t SET v = 'a' WHERE id = 1")
            a.commit()
            b.sql("UPDATE t SET v = 'b' WHERE id = 2")
            with pytest.raises(TxnAbortedError, match=r"due to a write conflict on default/t committed by .* u/u$"):
                b.commit()
            assert sorted(tuple(r) for r in b.sql("SELECT * FROM t").collect()) == [(1, "a"), (2, "y")]
        finally:
            a.close()
            b.close()
