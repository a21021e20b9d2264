"""The Spark Connect tier: the DML subset through a Connect server started from the pyspark installation
(`sbin/start-connect-server.sh`), with ``hiveacid_sql.connect(spark=<a Connect session>)``.

Why a tier: over Connect a DataFrame is an unresolved plan that the server analyses at every action, and
this process has no driver JVM (no ``sparkContext``). A SELECT's result must stay valid after ``acid.sql``
returned (no temporary view that disappears under it), and nothing may reach for the JVM. The server is
started once for the module and stopped at its end; a server that cannot start fails every test here.

PySpark marks the whole process as Connect once a Connect session exists (``SPARK_CONNECT_MODE_ENABLED``:
``pyspark.sql.functions`` then build Connect columns), so the fixture removes that mark when the module is
done and the classic session of the other tests is unaffected.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hiveacid_sql.errors import HiveAcidError
from tests.support import dml_subset
from tests.support.spark_servers import ConnectServer


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """A Spark Connect session on a server of its own (stopped, and the process's Connect mark removed, after)."""
    from pyspark.sql import SparkSession

    server = ConnectServer(tmp_path_factory.mktemp("connect-server"))
    marked = "SPARK_CONNECT_MODE_ENABLED" in os.environ
    try:
        # create(), not getOrCreate(): the classic session of the other tests lives in this process too
        session = SparkSession.builder.remote(server.url).create()
        yield session
        session.stop()
    finally:
        server.stop()
        if not marked:
            os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)


@pytest.fixture()
def acid_remote(remote, tmp_path: Path) -> Iterator:
    import hiveacid_sql

    session = hiveacid_sql.connect(spark=remote, warehouse=tmp_path / "warehouse")
    yield session
    session.close()


def test_connect_session_is_remote(acid_remote):
    from hiveacid_sql.exec.session import is_connect

    assert is_connect(acid_remote.spark)
    assert not hasattr(acid_remote.spark, "_jsparkSession")


def test_walkthrough(acid_remote, tmp_path: Path):
    dml_subset.walkthrough(acid_remote, tmp_path / "warehouse")


def test_update_delete_merge_lazy_results_and_compaction(acid_remote, remote, tmp_path: Path):
    dml_subset.update_delete_merge(acid_remote, remote)
    # nothing of ours is left in the server session's catalog
    assert [t.name for t in remote.catalog.listTables() if t.isTemporary] == []
    dml_subset.compaction(acid_remote, tmp_path / "warehouse")


def test_multi_statement_transaction(acid_remote):
    dml_subset.transaction(acid_remote)


def test_dataframe_api_with_sql_text_and_columns_refused_in_one_line(acid_remote, remote):
    """The DataFrame API works over Connect with SQL text; its Columns need classic PySpark and are refused."""
    from pyspark.sql import functions as F

    acid_remote.sql("CREATE TABLE c (id int, v int) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    table = acid_remote.table("c")
    assert table.insert(remote.createDataFrame([(1, 10), (2, 20)], "id int, v int")).num_inserted_rows == 2
    snapshot = table.to_df()
    with pytest.raises(HiveAcidError) as err:
        table.update(set={"v": F.col("v") + 1}, where="id = 1")
    assert "\n" not in str(err.value) and "Spark Connect" in str(err.value)
    assert table.update(set={"v": "v + 1"}, where="id = 1").num_updated_rows == 1
    assert [tuple(r) for r in acid_remote.sql("SELECT id, v FROM c ORDER BY id").collect()] == [
        (1, 11),
        (2, 20),
    ]
    assert sorted(tuple(r) for r in snapshot.collect()) == [(1, 10), (2, 20)]  # to_df() before the UPDATE
