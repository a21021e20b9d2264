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

from hiveacid_sql.txn import hive31
from tests.support.stores import MARIADB_ADMIN_URL, PG_ADMIN_URL, _server_database, load_hive_script

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
