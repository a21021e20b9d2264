"""The store on PostgreSQL and MariaDB from scratch: what creating Hive's 74 metastore tables there must give.

These tests run DDL for whole metastore schemas (seconds per database on MariaDB), so they live here rather than
in the unit tier, whose store tests start from a database bootstrapped once per run (``tests/support/stores.py``):

* our definitions (``txn/hive31.py``) create what Apache Hive's own 3.1.0 scripts create: one fresh database gets
  the official script and another our definitions; both are reflected and compared (table names - PostgreSQL's
  quoted upper-case catalog tables and unquoted lower-case transaction tables -, columns in order with their types,
  nullability, primary keys, unique keys, indexes and foreign keys);
* a store opened on an empty server database creates Hive's tables, its seed rows and ``default``;
* a database made by Hive's own script is used as it is.
"""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from hiveacid_sql.txn import Column, TableDef, TxnStore
from hiveacid_sql.txn import schema as s
from tests.support.stores import (
    MARIADB_ADMIN_URL,
    PG_ADMIN_URL,
    _server_database,
    check_new_store,
    create_hive_tables,
    hive_store_url,
    load_hive_script,
    schema_shape,
)


@pytest.mark.parametrize(
    "admin",
    [
        pytest.param(PG_ADMIN_URL, id="postgres", marks=pytest.mark.postgres),
        # CI budget: Hive's script is a minute of DDL on MariaDB; CI compares on PostgreSQL
        pytest.param(MARIADB_ADMIN_URL, id="mariadb", marks=[pytest.mark.mariadb, pytest.mark.release]),
    ],
)
def test_definitions_create_what_hive_script_creates(admin: str) -> None:
    with _server_database(admin) as official, _server_database(admin) as ours:
        load_hive_script(official)
        create_hive_tables(ours)
        expected, got = schema_shape(official), schema_shape(ours)
    assert len(expected) == 74
    assert sorted(got) == sorted(expected)
    for name in sorted(expected):
        assert got[name] == expected[name], name


# ---------------------------------------------------------------------- opening databases
_SERVERS = [
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    pytest.param("mariadb", id="mariadb", marks=pytest.mark.mariadb),
]


@pytest.mark.parametrize("url", _SERVERS, indirect=True)
def test_creates_hive_tables_and_version_row(url: str) -> None:
    """The SQLite case is ``tests/unit/test_txn_store.py``'s."""
    with TxnStore(url) as store:
        check_new_store(store)


def _hive_tables_shape(url: str) -> dict[str, Any]:
    return {k: v for k, v in schema_shape(url).items() if not k.upper().startswith("HIVEACID_")}


@pytest.mark.parametrize(
    "backend",
    # MariaDB's variant (28 s of DDL) with --long only: CI's 25-minute budget
    [pytest.param(b.values[0], id=b.id, marks=[*b.marks, pytest.mark.release] if b.id == "mariadb" else b.marks)
     for b in _SERVERS],
)
def test_a_database_made_by_hives_script_is_used_as_it_is(backend: str) -> None:
    """No DDL on Hive's tables: our own tables are added, ``default`` is created as Hive's start-up creates it,
    ids come from SEQUENCE_TABLE after what another metastore process reserved."""
    with hive_store_url(backend) as url:
        before = _hive_tables_shape(url)
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        with engine.begin() as conn:  # as if Hive's metastore had reserved table ids up to 99
            conn.execute(
                sa.insert(s.SEQUENCE_TABLE).values(
                    SEQUENCE_NAME="org.apache.hadoop.hive.metastore.model.MTable", NEXT_VAL=100
                )
            )
        with TxnStore(url) as store:
            store.catalog.create_table(
                TableDef(
                    "default", "t", (Column("id", "int"),), "file:/w/t", params={"transactional": "true"}
                )
            )
            txn = store.open_txn("u", "h")
            assert store.allocate_write_id(txn, "default", "t") == 1
            store.commit_txn(txn)
        assert _hive_tables_shape(url) == before
        names = {n.upper() for n in schema_shape(url)}
        assert {t.upper() for t in s.own_metadata.tables} <= names
        with engine.connect() as conn:
            assert conn.execute(sa.select(s.TBLS.c.TBL_ID, s.TBLS.c.TBL_NAME)).all() == [(100, "t")]
            seq = dict(
                conn.execute(sa.select(s.SEQUENCE_TABLE.c.SEQUENCE_NAME, s.SEQUENCE_TABLE.c.NEXT_VAL)).all()
            )
            assert seq["org.apache.hadoop.hive.metastore.model.MTable"] == 101
            assert conn.execute(sa.select(s.DBS.c.NAME, s.DBS.c.CTLG_NAME)).all() == [("default", "hive")]
            assert conn.execute(sa.select(s.VERSION.c.SCHEMA_VERSION)).scalar() == "3.1.0"
        engine.dispose()
