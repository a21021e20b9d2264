# ruff: noqa: SIM300 - upper-case Hive column attributes look like constants to ruff
"""``hiveacid-sql upgrade-store URL``: a store of our old layout (schema version 1 or 2) onto Hive 3.1's tables.

The old layout (:mod:`~hiveacid_sql.txn.schema_v2`) used Hive's names for a simplified metastore, so its tables
stand where Hive's must go. The upgrade reads everything first, then replaces the old tables by Hive's and
writes the same content back as Hive rows: databases, tables (columns, partition keys, buckets, parameters,
comment, owner, create time), partitions with the write ids that created them, and every transaction table
(transactions, write ids, components, write sets, locks, compactions) row for row; our own ``HIVEACID_*`` tables
(read leases, write history) have not changed and stay as they are.

On PostgreSQL and SQLite, whose DDL is transactional, it is one database transaction: all or nothing. MariaDB
commits each DDL statement, so there the old tables are first renamed to ``HIVEACID_V2_*`` and dropped only
after the copy; a failed upgrade leaves them to be restored by hand (the message names them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from hiveacid_sql.acid.partitions import parse_partition_name
from hiveacid_sql.errors import TxnError
from hiveacid_sql.txn import bootstrap, hive31, schema_v2
from hiveacid_sql.txn import catalog as cat
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.db import make_engine
from hiveacid_sql.txn.ids import reserve_ids
from hiveacid_sql.txn.locations import to_metastore
from hiveacid_sql.txn.tabledef import Column, TableDef

#: Old tables whose rows move one for one into Hive's table of the same name (same columns).
_TXN_TABLES = (
    "TXNS", "NEXT_TXN_ID", "TXN_COMPONENTS", "COMPLETED_TXN_COMPONENTS", "NEXT_WRITE_ID", "TXN_TO_WRITE_ID",
    "WRITE_SET", "HIVE_LOCKS", "NEXT_LOCK_ID", "COMPACTION_QUEUE", "COMPLETED_COMPACTIONS",
    "NEXT_COMPACTION_QUEUE_ID",
)  # fmt: skip
#: Old tables that are replaced (the HIVEACID_* ones are kept).
_OLD = [t for t in schema_v2.metadata.sorted_tables if not t.name.startswith("HIVEACID_")]
_RENAMED = "HIVEACID_V2_"


@dataclass(frozen=True)
class UpgradeReport:
    """What an upgrade moved (for the command's one-line report)."""

    from_version: str
    databases: int
    tables: int
    partitions: int
    transactions: int
    write_ids: int

    def __str__(self) -> str:
        return (
            f"upgraded from hiveacid-sql schema version {self.from_version} to Hive {s.HIVE_SCHEMA_VERSION}: "
            f"{self.databases} databases, {self.tables} tables, {self.partitions} partitions, "
            f"{self.transactions} open or aborted transactions, {self.write_ids} write ids"
        )


def _read_old(conn: Connection) -> dict[str, list[dict[str, Any]]]:
    return {t.name: [dict(r) for r in conn.execute(sa.select(t)).mappings()] for t in _OLD}


def _tables(old: dict[str, list[dict[str, Any]]]) -> list[tuple[str, TableDef, list[dict[str, Any]]]]:
    """Each old table as a TableDef (with its database name) and its partitions."""
    db_names = {r["DB_ID"]: r["NAME"] for r in old["DBS"]}
    by_tbl: dict[str, dict[int, list[dict[str, Any]]]] = {
        name: {} for name in ("COLUMNS_V2", "PARTITION_KEYS", "BUCKETING_COLS", "TABLE_PARAMS", "PARTITIONS")
    }
    for name, rows in by_tbl.items():
        for r in old[name]:
            rows.setdefault(r["TBL_ID"], []).append(r)
    out = []
    for t in old["TBLS"]:
        tid = t["TBL_ID"]
        params = {p["PARAM_KEY"]: p["PARAM_VALUE"] or "" for p in by_tbl["TABLE_PARAMS"].get(tid, [])}
        td = TableDef(
            db=db_names[t["DB_ID"]],
            name=t["TBL_NAME"],
            columns=tuple(
                Column(c["COLUMN_NAME"], c["TYPE_NAME"], c["COMMENT"])
                for c in sorted(by_tbl["COLUMNS_V2"].get(tid, []), key=lambda c: c["INTEGER_IDX"])
            ),
            location=t["LOCATION"],
            storage_format=t["STORAGE_FORMAT"],
            table_type=t["TBL_TYPE"],
            params=params,
            partition_keys=tuple(
                Column(p["PKEY_NAME"], p["PKEY_TYPE"], p["PKEY_COMMENT"])
                for p in sorted(by_tbl["PARTITION_KEYS"].get(tid, []), key=lambda p: p["INTEGER_IDX"])
            ),
            bucket_cols=tuple(
                b["BUCKET_COL_NAME"]
                for b in sorted(by_tbl["BUCKETING_COLS"].get(tid, []), key=lambda b: b["INTEGER_IDX"])
            ),
            num_buckets=t["NUM_BUCKETS"],
            comment=t["COMMENT"],
            owner=t["OWNER"],
            create_time=t["CREATE_TIME"],
        )
        out.append((td.db, td, by_tbl["PARTITIONS"].get(tid, [])))
    return out


def _write_new(conn: Connection, old: dict[str, list[dict[str, Any]]]) -> None:
    """Hive's rows for the old content (the new tables exist and hold the script's seed rows)."""
    db_ids: dict[str, int] = {}
    for r in old["DBS"]:
        (db_id,) = reserve_ids(conn, "DBS")
        db_ids[r["NAME"]] = db_id
        conn.execute(
            sa.insert(s.DBS).values(
                DB_ID=db_id, NAME=r["NAME"], DESC=r["DESC"], DB_LOCATION_URI=to_metastore(r["DB_LOCATION_URI"]),
                OWNER_NAME=r["OWNER_NAME"], OWNER_TYPE=("ROLE" if r["NAME"] == "default" else "USER")
                if r["OWNER_NAME"] else None, CTLG_NAME=s.HIVE_CATALOG,
            )
        )
    for db, td, parts in _tables(old):
        cat._insert_table(conn, db_ids[db], td)  # noqa: SLF001 - the catalog's own row writer
        row = cat._tbl_row(conn, db, td.name)  # noqa: SLF001
        by_write_id: dict[int | None, dict[str, list[tuple[str, str | None]]]] = {}
        for p in parts:
            by_write_id.setdefault(p["WRITE_ID"], {})[p["PART_NAME"]] = parse_partition_name(p["PART_NAME"])
        for write_id, names in by_write_id.items():
            cat._insert_partitions(conn, row, names, write_id)  # noqa: SLF001
    for name in _TXN_TABLES:
        new = hive31.metadata.tables[name]
        rows = [{k: v for k, v in r.items() if k in new.c} for r in old[name]]
        if name in ("NEXT_TXN_ID", "NEXT_LOCK_ID", "NEXT_COMPACTION_QUEUE_ID"):
            conn.execute(sa.delete(new))  # the script's seed row gives way to the old counter
        if rows:
            conn.execute(sa.insert(new), rows)
    open_txns = sorted(r["TXN_ID"] for r in old["TXNS"] if r["TXN_STATE"] == "o")
    if open_txns:
        conn.execute(
            sa.insert(s.MIN_HISTORY_LEVEL),
            [{"MHL_TXNID": t, "MHL_MIN_OPEN_TXNID": open_txns[0]} for t in open_txns],
        )


def _old_version(conn: Connection) -> str | None:
    """1 or 2 for a store of our old layout (its TBLS has STORAGE_FORMAT, Hive's has not), else None."""
    insp = sa.inspect(conn)
    names = set(insp.get_table_names())
    if "VERSION" not in names or "TBLS" not in names:
        return None
    if "STORAGE_FORMAT" not in {c["name"] for c in insp.get_columns("TBLS")}:
        return None
    version = conn.execute(sa.select(schema_v2.VERSION.c.SCHEMA_VERSION)).scalar()
    return version if version in bootstrap.OLD_LAYOUTS else None


def upgrade_store(url: str) -> UpgradeReport:
    """Upgrade the store at ``url`` from our old layout to Hive 3.1's metastore; TxnError if it is not one."""
    engine = make_engine(url)
    where = sa.make_url(url).render_as_string(hide_password=True)
    try:
        with engine.connect() as conn:
            version = _old_version(conn)
            conn.rollback()
        if version is None:
            raise TxnError(f"transaction store {where} is not a hiveacid-sql store of schema version 1 or 2")
        dialect = engine.dialect.name
        if dialect in ("mysql", "mariadb"):
            return _upgrade_renaming(engine, version)
        with engine.begin() as conn:
            old = _read_old(conn)
            for table in reversed(_OLD):
                table.drop(conn)
            return _create_and_copy(conn, old, version)
    except sa.exc.DBAPIError as exc:
        raise TxnError(f"upgrading transaction store {where} failed: {str(exc.orig).splitlines()[0]}") from exc
    finally:
        engine.dispose()


def _create_and_copy(conn: Connection, old: dict[str, list[dict[str, Any]]], version: str) -> UpgradeReport:
    hive31.ddl_metadata(conn.dialect.name).create_all(conn)
    bootstrap._seed_hive(conn)  # noqa: SLF001 - the script's seed rows
    s.own_metadata.create_all(conn, checkfirst=True)
    _write_new(conn, old)
    bootstrap._seed_defaults(conn, bootstrap.DEFAULT_DB_LOCATION)  # noqa: SLF001 - only if it had no default
    return UpgradeReport(
        version, len(old["DBS"]), len(old["TBLS"]), len(old["PARTITIONS"]), len(old["TXNS"]),
        len(old["TXN_TO_WRITE_ID"]),
    )


def _upgrade_renaming(engine: sa.Engine, version: str) -> UpgradeReport:
    """MariaDB: move the old tables aside, create and fill Hive's, then drop the old ones."""
    with engine.begin() as conn:
        old = _read_old(conn)
    with engine.begin() as conn:
        for table in _OLD:
            conn.exec_driver_sql(f"ALTER TABLE `{table.name}` RENAME TO `{_RENAMED}{table.name}`")
    try:
        with engine.begin() as conn:
            report = _create_and_copy(conn, old, version)
    except Exception as exc:
        kept = ", ".join(_RENAMED + t.name for t in _OLD)
        raise TxnError(f"upgrade failed ({exc}); the old tables are kept as {kept}") from exc
    with engine.begin() as conn:
        for table in reversed(_OLD):
            conn.exec_driver_sql(f"DROP TABLE `{_RENAMED}{table.name}`")
    return report
