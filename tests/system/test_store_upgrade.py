"""``hiveacid-sql upgrade-store``: a store written by the schema-version-2 code moves onto Hive 3.1's tables.

``tests/fixtures/store-v2/txn-v2.db`` was written by that code (its ``make_v2_store.py``); on PostgreSQL and
MariaDB the same rows are copied into the frozen v2 tables first. After the upgrade every database, table,
partition, transaction, write id and history entry is there, read through today's store.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from hiveacid_sql.cli import main as cli_main
from hiveacid_sql.errors import TxnError
from hiveacid_sql.txn import Column, TxnStore, schema_v2
from hiveacid_sql.txn import schema as s
from tests.support.stores import BACKENDS, store_url

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "store-v2" / "txn-v2.db"


@contextmanager
def _v2_store(backend: str, tmp_path: Path) -> Iterator[str]:
    if backend == "sqlite":
        shutil.copy(FIXTURE, tmp_path / "txn.db")
        yield f"sqlite:///{tmp_path / 'txn.db'}"
        return
    source = sa.create_engine(f"sqlite:///{FIXTURE}", poolclass=sa.pool.NullPool)
    with store_url(backend, tmp_path) as url:
        target = sa.create_engine(url, poolclass=sa.pool.NullPool)
        schema_v2.metadata.create_all(target)
        with source.connect() as src, target.begin() as dst:
            for table in schema_v2.metadata.sorted_tables:
                rows = [dict(r) for r in src.execute(sa.select(table)).mappings()]
                if rows:
                    dst.execute(sa.insert(table), rows)
        target.dispose()
        yield url
    source.dispose()


@pytest.fixture(params=BACKENDS)
def v2_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with _v2_store(request.param, tmp_path) as url:
        yield url


def test_upgrade_keeps_tables_partitions_txns_write_ids_and_history(
    v2_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(TxnError, match="upgrade-store"):
        TxnStore(v2_url)
    assert cli_main(["upgrade-store", v2_url]) == 0
    assert capsys.readouterr().out.strip() == (
        "upgraded from hiveacid-sql schema version 2 to Hive 3.1.0: 2 databases, 2 tables, 4 partitions, "
        "2 open or aborted transactions, 4 write ids"
    )
    with TxnStore(v2_url) as store:
        cat = store.catalog
        assert cat.list_databases() == ["default", "sales"]
        assert cat.get_database("sales") == {
            "name": "sales", "comment": "money", "location": "/w/sales.db", "owner": "ann"
        }
        orders = cat.get_table("sales", "orders")
        assert orders.columns == (Column("id", "int", "key"), Column("amount", "decimal(10,2)"))
        assert orders.partition_keys == (Column("dt", "string"),)
        assert (orders.bucket_cols, orders.num_buckets, orders.storage_format) == (("id",), 2, "orc")
        assert (orders.comment, orders.owner, orders.create_time) == ("all orders", "ann", 1_700_000_000)
        assert orders.location == "/w/sales.db/orders" and orders.is_transactional
        assert orders.params["orc.compress"] == "SNAPPY"
        plain = cat.get_table("default", "plain")
        assert (plain.storage_format, plain.table_type, plain.owner) == ("parquet", "EXTERNAL_TABLE", "bob")
        assert cat.partition_write_ids("sales", "orders") == {
            "dt=2024-01-01": 1, "dt=2024-01-02": 1, "dt=__HIVE_DEFAULT_PARTITION__": 2, "dt=2024-02-01": None,
        }
        assert [p.values for p in cat.list_partitions("sales", "orders")] == [
            ("2024-01-01",), ("2024-01-02",), ("2024-02-01",), (None,),
        ]
        assert [store.txn_state(t) for t in (1, 2, 3, 4, 5)] == ["committed"] * 3 + ["aborted", "open"]
        ids = store.snapshot([("sales", "orders"), ("default", "adopted")]).tables
        assert ids["sales.orders"].high_watermark == 4 and ids["sales.orders"].exceptions == (4,)
        assert ids["default.adopted"].high_watermark == 5 and ids["default.adopted"].exceptions == ()
        assert [(h.write_id, h.operation) for h in store.table_history("sales", "orders")] == [
            (3, "UPDATE"), (2, "INSERT"), (1, "INSERT"),
        ]
        txn = store.open_txn("dan", "h")
        assert txn == 6
        assert store.allocate_write_id(txn, "sales", "orders") == 5
        with store.engine.connect() as conn:
            assert conn.execute(sa.select(s.MIN_HISTORY_LEVEL.c.MHL_TXNID).order_by(s.MIN_HISTORY_LEVEL.c.MHL_TXNID)).scalars().all() == [5, 6]
            assert conn.execute(sa.select(s.VERSION.c.SCHEMA_VERSION)).scalar() == "3.1.0"
            # locations in Hive's form (a Hadoop Path's string, with its scheme)
            stored = conn.execute(sa.select(s.SDS.c.LOCATION).where(s.SDS.c.LOCATION.is_not(None))).scalars().all()
            assert stored and all(loc.startswith("file:/w/") for loc in stored), stored
            assert conn.execute(sa.select(s.DBS.c.DB_LOCATION_URI).where(s.DBS.c.NAME == "sales")).scalar() == (
                "file:/w/sales.db")
        cat.create_table(orders.__class__("sales", "more", (Column("a", "int"),), "file:/w/sales.db/more"))
        assert cat.list_tables("sales") == ["more", "orders"]
    assert cli_main(["upgrade-store", v2_url]) == 1
    assert "is not a hiveacid-sql store of schema version 1 or 2" in capsys.readouterr().err
