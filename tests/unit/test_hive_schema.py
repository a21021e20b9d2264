"""The store's Hive 3.1 tables (``txn/hive31.py``) on SQLite, and the databases a store refuses to open.

SQLite, for which Hive has no script, gets the same tables from the same definitions. The comparison with what
Apache Hive's own 3.1.0 scripts create on PostgreSQL and MariaDB (74 tables of DDL per database: seconds each)
is in ``tests/system/test_store_servers.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from hiveacid_sql.errors import TxnError
from hiveacid_sql.txn import TxnStore, hive31, schema_v2
from hiveacid_sql.txn import schema as s
from tests.support.stores import create_hive_tables, schema_shape


def test_postgres_names_follow_the_script() -> None:
    """Catalog tables quoted upper case, transaction tables lower case, as ``hive-schema-3.1.0.postgres.sql``."""
    assert hive31.physical_name(hive31.metadata.tables["TBLS"], "postgresql") == "TBLS"
    assert hive31.physical_name(hive31.metadata.tables["TXNS"], "postgresql") == "txns"
    assert hive31.physical_name(hive31.metadata.tables["TXNS"], "sqlite") == "TXNS"
    assert {
        "TXNS",
        "NEXT_TXN_ID",
        "HIVE_LOCKS",
        "TXN_TO_WRITE_ID",
        "AUX_TABLE",
    } <= hive31.LOWER_CASE_ON_POSTGRESQL
    assert "SEQUENCE_TABLE" not in hive31.LOWER_CASE_ON_POSTGRESQL


def test_sqlite_gets_the_same_tables(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'hms.db'}"
    create_hive_tables(url)
    got = schema_shape(url)
    assert sorted(got) == sorted(hive31.metadata.tables)
    for table in hive31.metadata.tables.values():
        assert [c[0] for c in got[table.name]["columns"]] == [c.name for c in table.columns]
        assert [c[2] for c in got[table.name]["columns"]] == [c.nullable for c in table.columns]
        assert got[table.name]["primary_key"] == [c.name for c in table.primary_key.columns]


def test_a_half_created_schema_is_refused_writing_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'half.db'}"
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    hive31.ddl_metadata("sqlite", [s.TXNS, s.NEXT_TXN_ID]).create_all(engine)
    with pytest.raises(
        TxnError, match=r"holds a half-created Hive metastore schema \(2 of 74 tables, no VERSION row\)"
    ):
        TxnStore(url)
    assert sorted(sa.inspect(engine).get_table_names()) == ["NEXT_TXN_ID", "TXNS"]
    hive31.ddl_metadata("sqlite", [s.VERSION]).create_all(engine)
    with engine.begin() as conn:
        conn.execute(sa.insert(s.VERSION).values(VER_ID=1, SCHEMA_VERSION="3.1.0", VERSION_COMMENT="x"))
    with pytest.raises(
        TxnError, match=r"half-created Hive 3\.1\.0 metastore schema: missing AUX_TABLE, BUCKETING_COLS, "
    ):
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
    with pytest.raises(
        TxnError,
        match=rf"laid out by hiveacid-sql schema version 2, not Hive 3.1's metastore: "
        rf"upgrade it with `hiveacid-sql upgrade-store sqlite:///{tmp_path}/v2.db`$",
    ):
        TxnStore(url)
    assert sorted(sa.inspect(engine).get_table_names()) == before
    engine.dispose()
