"""The store's Hive 3.1 tables (``txn/hive31.py``) are what Apache Hive's own 3.1.0 scripts create.

On a fresh PostgreSQL and MariaDB database, one database gets the official script and another our definitions;
both are reflected and compared: table names (PostgreSQL's quoted upper-case catalog tables and unquoted
lower-case transaction tables), columns in order with their types, nullability, primary keys, unique keys,
indexes and foreign keys. SQLite, for which Hive has no script, gets the same tables from the same definitions.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from hiveacid_sql.errors import TxnError
from hiveacid_sql.txn import Column, TableDef, TxnStore, hive31, schema_v2
from hiveacid_sql.txn import schema as s
from tests.support.stores import (
    MARIADB_ADMIN_URL,
    PG_ADMIN_URL,
    _server_database,
    hive_store_url,
    load_hive_script,
)

_WIDTH = re.compile(r"^(BIGINT|INTEGER|SMALLINT|TINYINT)\(\d+\)")


def _type(t: Any, dialect: sa.Dialect) -> str:
    """A reflected type as the server declares it (MariaDB's display widths left out)."""
    text = _WIDTH.sub(r"\1", t.compile(dialect=dialect))
    for attr in ("charset", "collation"):
        if getattr(t, attr, None):
            text += f" {attr}={getattr(t, attr)}"
    return text


def _shape(url: str) -> dict[str, Any]:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        insp = sa.inspect(engine)
        out: dict[str, Any] = {}
        for name in insp.get_table_names():
            pk = insp.get_pk_constraint(name)
            out[name] = {
                "columns": [
                    (c["name"], _type(c["type"], engine.dialect), c["nullable"]) for c in insp.get_columns(name)
                ],
                "primary_key": pk["constrained_columns"],
                "unique": sorted((u["name"], tuple(u["column_names"])) for u in insp.get_unique_constraints(name)),
                "indexes": sorted(
                    (i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in insp.get_indexes(name)
                ),
                "foreign_keys": sorted(
                    (f["name"], tuple(f["constrained_columns"]), f["referred_table"], tuple(f["referred_columns"]))
                    for f in insp.get_foreign_keys(name)
                ),
            }
        return out
    finally:
        engine.dispose()


def _create_ours(url: str) -> None:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        hive31.ddl_metadata(engine.dialect.name).create_all(engine)
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "admin",
    [
        pytest.param(PG_ADMIN_URL, id="postgres", marks=pytest.mark.postgres),
        pytest.param(MARIADB_ADMIN_URL, id="mariadb", marks=pytest.mark.mariadb),
    ],
)
def test_definitions_create_what_hive_script_creates(admin: str) -> None:
    with _server_database(admin) as official, _server_database(admin) as ours:
        load_hive_script(official)
        _create_ours(ours)
        expected, got = _shape(official), _shape(ours)
    assert len(expected) == 74
    assert sorted(got) == sorted(expected)
    for name in sorted(expected):
        assert got[name] == expected[name], name


def test_postgres_names_follow_the_script() -> None:
    """Catalog tables quoted upper case, transaction tables lower case, as ``hive-schema-3.1.0.postgres.sql``."""
    assert hive31.physical_name(hive31.metadata.tables["TBLS"], "postgresql") == "TBLS"
    assert hive31.physical_name(hive31.metadata.tables["TXNS"], "postgresql") == "txns"
    assert hive31.physical_name(hive31.metadata.tables["TXNS"], "sqlite") == "TXNS"
    assert {"TXNS", "NEXT_TXN_ID", "HIVE_LOCKS", "TXN_TO_WRITE_ID", "AUX_TABLE"} <= hive31.LOWER_CASE_ON_POSTGRESQL
    assert "SEQUENCE_TABLE" not in hive31.LOWER_CASE_ON_POSTGRESQL


def test_sqlite_gets_the_same_tables(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'hms.db'}"
    _create_ours(url)
    got = _shape(url)
    assert sorted(got) == sorted(hive31.metadata.tables)
    for table in hive31.metadata.tables.values():
        assert [c[0] for c in got[table.name]["columns"]] == [c.name for c in table.columns]
        assert [c[2] for c in got[table.name]["columns"]] == [c.nullable for c in table.columns]
        assert got[table.name]["primary_key"] == [c.name for c in table.primary_key.columns]


# ---------------------------------------------------------------------- opening databases
_SERVERS = [
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    pytest.param("mariadb", id="mariadb", marks=pytest.mark.mariadb),
]


def _hive_tables_shape(url: str) -> dict[str, Any]:
    return {k: v for k, v in _shape(url).items() if not k.upper().startswith("HIVEACID_")}


@pytest.mark.parametrize("backend", _SERVERS)
def test_a_database_made_by_hives_script_is_used_as_it_is(backend: str) -> None:
    """No DDL on Hive's tables: our own tables are added, ``default`` is created as Hive's start-up creates it,
    ids come from SEQUENCE_TABLE after what another metastore process reserved."""
    with hive_store_url(backend) as url:
        before = _hive_tables_shape(url)
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        with engine.begin() as conn:  # as if Hive's metastore had reserved table ids up to 99
            conn.execute(sa.insert(s.SEQUENCE_TABLE).values(
                SEQUENCE_NAME="org.apache.hadoop.hive.metastore.model.MTable", NEXT_VAL=100))
        with TxnStore(url) as store:
            store.catalog.create_table(TableDef("default", "t", (Column("id", "int"),), "file:/w/t",
                                                params={"transactional": "true"}))
            txn = store.open_txn("u", "h")
            assert store.allocate_write_id(txn, "default", "t") == 1
            store.commit_txn(txn)
        assert _hive_tables_shape(url) == before
        names = {n.upper() for n in _shape(url)}
        assert {t.upper() for t in s.own_metadata.tables} <= names
        with engine.connect() as conn:
            assert conn.execute(sa.select(s.TBLS.c.TBL_ID, s.TBLS.c.TBL_NAME)).all() == [(100, "t")]
            seq = dict(conn.execute(sa.select(s.SEQUENCE_TABLE.c.SEQUENCE_NAME, s.SEQUENCE_TABLE.c.NEXT_VAL)).all())
            assert seq["org.apache.hadoop.hive.metastore.model.MTable"] == 101
            assert conn.execute(sa.select(s.DBS.c.NAME, s.DBS.c.CTLG_NAME)).all() == [("default", "hive")]
            assert conn.execute(sa.select(s.VERSION.c.SCHEMA_VERSION)).scalar() == "3.1.0"
        engine.dispose()


def test_a_half_created_schema_is_refused_writing_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'half.db'}"
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    hive31.ddl_metadata("sqlite", [s.TXNS, s.NEXT_TXN_ID]).create_all(engine)
    with pytest.raises(TxnError, match=r"holds a half-created Hive metastore schema \(2 of 74 tables, no VERSION row\)"):
        TxnStore(url)
    assert sorted(sa.inspect(engine).get_table_names()) == ["NEXT_TXN_ID", "TXNS"]
    hive31.ddl_metadata("sqlite", [s.VERSION]).create_all(engine)
    with engine.begin() as conn:
        conn.execute(sa.insert(s.VERSION).values(VER_ID=1, SCHEMA_VERSION="3.1.0", VERSION_COMMENT="x"))
    with pytest.raises(TxnError, match=r"half-created Hive 3\.1\.0 metastore schema: missing AUX_TABLE, BUCKETING_COLS, "):
        TxnStore(url)
    assert len(sa.inspect(engine).get_table_names()) == 3
    engine.dispose()


def test_a_store_of_our_old_layout_is_refused_naming_the_upgrade(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'v2.db'}"
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    schema_v2.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(sa.insert(schema_v2.VERSION).values(VER_ID=1, SCHEMA_VERSION="2"))
    before = sorted(sa.inspect(engine).get_table_names())
    with pytest.raises(TxnError, match=rf"laid out by hiveacid-sql schema version 2, not Hive 3.1's metastore: "
                                       rf"upgrade it with `hiveacid-sql upgrade-store sqlite:///{tmp_path}/v2.db`$"):
        TxnStore(url)
    assert sorted(sa.inspect(engine).get_table_names()) == before
    engine.dispose()
