# ruff: noqa: SIM300 - upper-case Hive column attributes (TBLS.c.DB_ID) look like constants to ruff
"""The catalog: databases and tables in Hive-metastore-shaped tables of the store's database.

Keeping the catalog next to the transaction tables means a DDL change and the transaction
records it affects (write ids follow a renamed table, go away with a dropped one, as Hive's
``AcidEventListener`` does) change in one database transaction. Names are stored lower case.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from hiveacid_sql.acid.partitions import DEFAULT_PARTITION_NAME, parse_partition_name
from hiveacid_sql.errors import CatalogError, NoSuchDatabaseError, NoSuchTableError
from hiveacid_sql.txn import rules
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.db import Db
from hiveacid_sql.txn.tabledef import Column, PartitionDef, TableDef


def hive_pattern(pattern: str | None) -> Callable[[str], bool]:
    """Hive's SHOW ... LIKE pattern: ``*`` matches anything, ``|`` separates alternatives, no case."""
    if pattern is None:
        return lambda _name: True
    alternatives = [
        ".*".join(re.escape(part) for part in alt.strip().split("*")) for alt in pattern.split("|")
    ]
    regex = re.compile("|".join(f"(?:{a})" for a in alternatives), re.IGNORECASE)
    return lambda name: regex.fullmatch(name) is not None


def _table_not_found(db: str, name: str) -> NoSuchTableError:
    return NoSuchTableError(f"Table not found: {db}.{name}")


def _no_database(name: str) -> NoSuchDatabaseError:
    return NoSuchDatabaseError(f"Database does not exist: {name}")


class Catalog:
    """Databases and tables (``DBS``, ``TBLS``, ``COLUMNS_V2``, ...); every call is one short transaction."""

    def __init__(self, db: Db) -> None:
        self._db = db

    # ------------------------------------------------------------------ databases
    def create_database(
        self,
        name: str,
        *,
        location: str,
        comment: str | None = None,
        owner: str | None = None,
        if_not_exists: bool = False,
    ) -> bool:
        """CREATE DATABASE; False if it existed and ``if_not_exists``."""
        name = name.strip().lower()
        rules.check_object_name(name, "database")

        def run(conn: Connection) -> bool:
            if _db_id(conn, name) is not None:
                if if_not_exists:
                    return False
                raise CatalogError(f"Database already exists: {name}")
            conn.execute(
                sa.insert(s.DBS).values(NAME=name, DESC=comment, DB_LOCATION_URI=location, OWNER_NAME=owner)
            )
            return True

        try:
            return self._db.run_write(run)
        except sa.exc.IntegrityError:  # created concurrently
            if if_not_exists:
                return False
            raise CatalogError(f"Database already exists: {name}") from None

    def drop_database(self, name: str, *, if_exists: bool = False, cascade: bool = False) -> list[TableDef]:
        """DROP DATABASE; returns the tables dropped with it (CASCADE) so the caller can delete data."""
        name = name.strip().lower()
        if name == "default":
            raise CatalogError("Can not drop default database")

        def run(conn: Connection) -> list[TableDef]:
            db_id = _db_id(conn, name, lock=True)
            if db_id is None:
                if if_exists:
                    return []
                raise _no_database(name)
            rows = conn.execute(sa.select(s.TBLS).where(s.TBLS.c.DB_ID == db_id)).mappings().all()
            if rows and not cascade:
                raise CatalogError(f"Database {name} is not empty. One or more tables exist.")
            dropped = [_load(conn, name, row) for row in rows]
            for td in dropped:
                _delete_table(conn, td.db, td.name)
            conn.execute(sa.delete(s.DBS).where(s.DBS.c.DB_ID == db_id))
            return dropped

        return self._db.run_write(run)

    def list_databases(self, pattern: str | None = None) -> list[str]:
        match = hive_pattern(pattern)
        with self._db.read() as conn:
            names = conn.execute(sa.select(s.DBS.c.NAME)).scalars().all()
        return sorted(n for n in names if match(n))

    def database_exists(self, name: str) -> bool:
        with self._db.read() as conn:
            return _db_id(conn, name.strip().lower()) is not None

    def get_database(self, name: str) -> dict[str, Any]:
        """``{'name', 'comment', 'location', 'owner'}``; NoSuchDatabaseError if absent."""
        name = name.strip().lower()
        with self._db.read() as conn:
            row = conn.execute(sa.select(s.DBS).where(s.DBS.c.NAME == name)).mappings().first()
        if row is None:
            raise _no_database(name)
        return {
            "name": row["NAME"],
            "comment": row["DESC"],
            "location": row["DB_LOCATION_URI"],
            "owner": row["OWNER_NAME"],
        }

    # ------------------------------------------------------------------ tables
    def create_table(self, table: TableDef, *, if_not_exists: bool = False) -> bool:
        """CREATE TABLE after Hive's validation rules; False if it existed and ``if_not_exists``."""
        td = rules.normalize_new_table(table)

        def run(conn: Connection) -> bool:
            db_id = _db_id(conn, td.db)
            if db_id is None:
                raise _no_database(td.db)
            if _tbl_row(conn, td.db, td.name) is not None:
                if if_not_exists:
                    return False
                raise CatalogError(f"Table already exists: {td.qualified_name}")
            _insert_table(conn, db_id, td)
            return True

        try:
            return self._db.run_write(run)
        except sa.exc.IntegrityError:  # created concurrently
            if if_not_exists and self.table_exists(td.db, td.name):
                return False
            raise CatalogError(f"Table already exists: {td.qualified_name}") from None

    def get_table(self, db: str, name: str) -> TableDef:
        db, name = db.strip().lower(), name.strip().lower()
        with self._db.read() as conn:
            row = _tbl_row(conn, db, name)
            if row is None:
                raise _table_not_found(db, name)
            return _load(conn, db, row)

    def table_exists(self, db: str, name: str) -> bool:
        with self._db.read() as conn:
            return _tbl_row(conn, db.strip().lower(), name.strip().lower()) is not None

    def list_tables(self, db: str, pattern: str | None = None) -> list[str]:
        db = db.strip().lower()
        match = hive_pattern(pattern)
        with self._db.read() as conn:
            db_id = _db_id(conn, db)
            if db_id is None:
                raise _no_database(db)
            names = conn.execute(sa.select(s.TBLS.c.TBL_NAME).where(s.TBLS.c.DB_ID == db_id)).scalars().all()
        return sorted(n for n in names if match(n))

    def drop_table(self, db: str, name: str, *, if_exists: bool = False) -> TableDef | None:
        """DROP TABLE (catalog rows and the table's transaction records); returns what was dropped."""
        db, name = db.strip().lower(), name.strip().lower()

        def run(conn: Connection) -> TableDef | None:
            row = _tbl_row(conn, db, name, lock=True)
            if row is None:
                if if_exists:
                    return None
                raise _table_not_found(db, name)
            td = _load(conn, db, row)
            _delete_table(conn, db, name)
            return td

        return self._db.run_write(run)

    def rename_table(
        self, db: str, old: str, new_db: str, new_name: str, new_location: str | None = None
    ) -> TableDef:
        """ALTER TABLE RENAME; ``new_location`` None keeps the location (external tables)."""
        db, old = db.strip().lower(), old.strip().lower()
        new_db, new_name = new_db.strip().lower(), new_name.strip().lower()
        rules.check_object_name(new_name, "table")

        def run(conn: Connection) -> TableDef:
            row = _tbl_row(conn, db, old, lock=True)
            if row is None:
                raise _table_not_found(db, old)
            new_db_id = _db_id(conn, new_db)
            if new_db_id is None:
                raise _no_database(new_db)
            if _tbl_row(conn, new_db, new_name) is not None:
                raise CatalogError(f"Table already exists: {new_db}.{new_name}")
            values: dict[str, Any] = {"DB_ID": new_db_id, "TBL_NAME": new_name}
            if new_location is not None:
                values["LOCATION"] = new_location
            conn.execute(sa.update(s.TBLS).where(s.TBLS.c.TBL_ID == row["TBL_ID"]).values(**values))
            _touch(conn, row["TBL_ID"])
            _rename_txn_records(conn, (db, old), (new_db, new_name))
            return _load(conn, new_db, _tbl_row(conn, new_db, new_name))

        return self._db.run_write(run)

    def add_columns(self, db: str, name: str, cols: Iterable[Column]) -> TableDef:
        """ALTER TABLE ADD COLUMNS: appended after the existing data columns."""
        db, name = db.strip().lower(), name.strip().lower()
        new_cols = rules.normalize_columns(cols)

        def run(conn: Connection) -> TableDef:
            row = _tbl_row(conn, db, name, lock=True)
            if row is None:
                raise _table_not_found(db, name)
            td = _load(conn, db, row)
            existing = [c.name for c in td.columns + td.partition_keys]
            rules.check_new_columns(td, existing, new_cols)
            _insert_columns(conn, row["TBL_ID"], new_cols, start=len(td.columns))
            _touch(conn, row["TBL_ID"])
            return _load(conn, db, row)

        return self._db.run_write(run)

    def set_table_params(self, db: str, name: str, params: dict[str, str]) -> TableDef:
        """ALTER TABLE SET TBLPROPERTIES, refusing to turn an ACID table back into a plain one."""
        return self._alter_params(db, name, lambda td: rules.merge_params(td, params))

    def unset_table_params(
        self, db: str, name: str, keys: Iterable[str], *, if_exists: bool = True
    ) -> TableDef:
        """ALTER TABLE UNSET TBLPROPERTIES [IF EXISTS]; refuses the ACID markers of an ACID table."""
        keys = list(keys)

        def change(td: TableDef) -> dict[str, str]:
            rules.check_unset(td, keys)
            missing = [k for k in keys if k not in td.params]
            if missing and not if_exists:
                raise CatalogError(f"Property {missing[0]} does not exist in table {td.qualified_name}")
            return {k: v for k, v in td.params.items() if k not in keys}

        return self._alter_params(db, name, change)

    # ------------------------------------------------------------------ partitions
    def add_partitions(
        self, db: str, name: str, names: Iterable[str], *, if_not_exists: bool = True, write_id: int | None = None
    ) -> list[str]:
        """Register partitions by Hive name (``p=v/q=w``); returns the names that were new.

        Writers call this for every partition a statement wrote into (Hive's ``add_dynamic_partitions``);
        ``ALTER TABLE ADD PARTITION`` calls it with ``if_not_exists`` from the statement.
        """
        db, name = db.strip().lower(), name.strip().lower()
        wanted = list(dict.fromkeys(names))

        def run(conn: Connection) -> list[str]:
            row = _tbl_row(conn, db, name, lock=True)
            if row is None:
                raise _table_not_found(db, name)
            keys = _partition_key_names(conn, row["TBL_ID"])
            if not keys:
                raise CatalogError(f"Table {db}.{name} is not partitioned")
            existing = set(_partition_names(conn, row["TBL_ID"]))
            added = []
            for part in wanted:
                pairs = parse_partition_name(part)
                if [k for k, _ in pairs] != keys:
                    raise CatalogError(
                        f"Partition spec {part} does not match the partition columns ({', '.join(keys)}) of {db}.{name}"
                    )
                if part in existing:
                    if if_not_exists:
                        continue
                    raise CatalogError(f"Partition already exists: {db}.{name} {part}")
                result = conn.execute(
                    sa.insert(s.PARTITIONS).values(
                        TBL_ID=row["TBL_ID"], PART_NAME=part, CREATE_TIME=int(time.time()), WRITE_ID=write_id
                    )
                )
                part_id = result.inserted_primary_key[0]  # type: ignore[index]  # an INSERT has one
                conn.execute(
                    sa.insert(s.PARTITION_KEY_VALS),
                    [
                        {"PART_ID": part_id, "PART_KEY_VAL": DEFAULT_PARTITION_NAME if v is None else v, "INTEGER_IDX": i}
                        for i, (_k, v) in enumerate(pairs)
                    ],
                )
                existing.add(part)
                added.append(part)
            return added

        return self._db.run_write(run)

    def drop_partitions(self, db: str, name: str, names: Iterable[str]) -> list[str]:
        """Remove partitions from the catalog (not their files); returns the names that existed."""
        db, name = db.strip().lower(), name.strip().lower()
        wanted = list(dict.fromkeys(names))

        def run(conn: Connection) -> list[str]:
            row = _tbl_row(conn, db, name, lock=True)
            if row is None:
                raise _table_not_found(db, name)
            parts = s.PARTITIONS.c
            ids = dict(
                conn.execute(
                    sa.select(parts.PART_NAME, parts.PART_ID).where(
                        parts.TBL_ID == row["TBL_ID"], parts.PART_NAME.in_(wanted)
                    )
                ).all()
            )
            if ids:
                conn.execute(sa.delete(s.PARTITION_KEY_VALS).where(s.PARTITION_KEY_VALS.c.PART_ID.in_(list(ids.values()))))
                conn.execute(sa.delete(s.PARTITIONS).where(parts.PART_ID.in_(list(ids.values()))))
            return [p for p in wanted if p in ids]

        return self._db.run_write(run)

    def list_partitions(self, db: str, name: str) -> list[PartitionDef]:
        """Every partition of a table, by name (values unescaped, the default partition as None)."""
        db, name = db.strip().lower(), name.strip().lower()
        with self._db.read() as conn:
            row = _tbl_row(conn, db, name)
            if row is None:
                raise _table_not_found(db, name)
            names = _partition_names(conn, row["TBL_ID"])
        return [PartitionDef(n, tuple(v for _k, v in parse_partition_name(n))) for n in sorted(names)]

    def partition_write_ids(self, db: str, name: str) -> dict[str, int | None]:
        """Partition name -> the write id that created it (None: added by DDL or adopted from disk)."""
        db, name = db.strip().lower(), name.strip().lower()
        with self._db.read() as conn:
            row = _tbl_row(conn, db, name)
            if row is None:
                raise _table_not_found(db, name)
            p = s.PARTITIONS.c
            rows = conn.execute(sa.select(p.PART_NAME, p.WRITE_ID).where(p.TBL_ID == row["TBL_ID"])).all()
        return {part: write_id for part, write_id in rows}

    def _alter_params(self, db: str, name: str, change: Callable[[TableDef], dict[str, str]]) -> TableDef:
        db, name = db.strip().lower(), name.strip().lower()

        def run(conn: Connection) -> TableDef:
            row = _tbl_row(conn, db, name, lock=True)
            if row is None:
                raise _table_not_found(db, name)
            params = change(_load(conn, db, row))
            params[rules.DDL_TIME] = str(int(time.time()))
            tbl_id = row["TBL_ID"]
            conn.execute(sa.delete(s.TABLE_PARAMS).where(s.TABLE_PARAMS.c.TBL_ID == tbl_id))
            _insert_params(conn, tbl_id, params)
            return _load(conn, db, row)

        return self._db.run_write(run)


# ---------------------------------------------------------------------- row helpers
def _db_id(conn: Connection, name: str, *, lock: bool = False) -> int | None:
    query = sa.select(s.DBS.c.DB_ID).where(s.DBS.c.NAME == name)
    return conn.execute(query.with_for_update() if lock else query).scalar()


def _tbl_row(conn: Connection, db: str, name: str, *, lock: bool = False) -> Any:
    query = (
        sa.select(s.TBLS)
        .join(s.DBS, s.DBS.c.DB_ID == s.TBLS.c.DB_ID)
        .where(s.DBS.c.NAME == db, s.TBLS.c.TBL_NAME == name)
    )
    if lock:
        query = query.with_for_update(of=s.TBLS)
    return conn.execute(query).mappings().first()


def _partition_key_names(conn: Connection, tbl_id: int) -> list[str]:
    pk = s.PARTITION_KEYS.c
    return list(conn.execute(sa.select(pk.PKEY_NAME).where(pk.TBL_ID == tbl_id).order_by(pk.INTEGER_IDX)).scalars())


def _partition_names(conn: Connection, tbl_id: int) -> list[str]:
    parts = s.PARTITIONS.c
    return list(conn.execute(sa.select(parts.PART_NAME).where(parts.TBL_ID == tbl_id)).scalars())


def _load(conn: Connection, db: str, row: Any) -> TableDef:
    tbl_id = row["TBL_ID"]
    cols = conn.execute(
        sa.select(s.COLUMNS_V2).where(s.COLUMNS_V2.c.TBL_ID == tbl_id).order_by(s.COLUMNS_V2.c.INTEGER_IDX)
    ).mappings()
    pkeys = conn.execute(
        sa.select(s.PARTITION_KEYS)
        .where(s.PARTITION_KEYS.c.TBL_ID == tbl_id)
        .order_by(s.PARTITION_KEYS.c.INTEGER_IDX)
    ).mappings()
    buckets = conn.execute(
        sa.select(s.BUCKETING_COLS.c.BUCKET_COL_NAME)
        .where(s.BUCKETING_COLS.c.TBL_ID == tbl_id)
        .order_by(s.BUCKETING_COLS.c.INTEGER_IDX)
    ).scalars()
    params = conn.execute(
        sa.select(s.TABLE_PARAMS.c.PARAM_KEY, s.TABLE_PARAMS.c.PARAM_VALUE).where(
            s.TABLE_PARAMS.c.TBL_ID == tbl_id
        )
    ).all()
    return TableDef(
        db=db,
        name=row["TBL_NAME"],
        columns=tuple(Column(c["COLUMN_NAME"], c["TYPE_NAME"], c["COMMENT"]) for c in cols),
        location=row["LOCATION"],
        storage_format=row["STORAGE_FORMAT"],
        table_type=row["TBL_TYPE"],
        params={k: v if v is not None else "" for k, v in params},
        partition_keys=tuple(Column(p["PKEY_NAME"], p["PKEY_TYPE"], p["PKEY_COMMENT"]) for p in pkeys),
        bucket_cols=tuple(buckets),
        num_buckets=row["NUM_BUCKETS"],
        comment=row["COMMENT"],
        owner=row["OWNER"],
        create_time=row["CREATE_TIME"],
    )


def _insert_table(conn: Connection, db_id: int, td: TableDef) -> None:
    result = conn.execute(
        sa.insert(s.TBLS).values(
            DB_ID=db_id,
            TBL_NAME=td.name,
            TBL_TYPE=td.table_type,
            OWNER=td.owner,
            CREATE_TIME=td.create_time,
            LOCATION=td.location,
            STORAGE_FORMAT=td.storage_format,
            NUM_BUCKETS=td.num_buckets,
            COMMENT=td.comment,
        )
    )
    tbl_id = result.inserted_primary_key[0]  # type: ignore[index]  # an INSERT has one
    _insert_columns(conn, tbl_id, td.columns, start=0)
    if td.partition_keys:
        conn.execute(
            sa.insert(s.PARTITION_KEYS),
            [
                {
                    "TBL_ID": tbl_id,
                    "PKEY_NAME": c.name,
                    "PKEY_TYPE": c.type,
                    "PKEY_COMMENT": c.comment,
                    "INTEGER_IDX": i,
                }
                for i, c in enumerate(td.partition_keys)
            ],
        )
    if td.bucket_cols:
        conn.execute(
            sa.insert(s.BUCKETING_COLS),
            [
                {"TBL_ID": tbl_id, "BUCKET_COL_NAME": c, "INTEGER_IDX": i}
                for i, c in enumerate(td.bucket_cols)
            ],
        )
    _insert_params(conn, tbl_id, td.params)


def _insert_columns(conn: Connection, tbl_id: int, cols: Iterable[Column], *, start: int) -> None:
    rows = [
        {"TBL_ID": tbl_id, "COLUMN_NAME": c.name, "TYPE_NAME": c.type, "COMMENT": c.comment, "INTEGER_IDX": i}
        for i, c in enumerate(cols, start=start)
    ]
    if rows:
        conn.execute(sa.insert(s.COLUMNS_V2), rows)


def _insert_params(conn: Connection, tbl_id: int, params: dict[str, str]) -> None:
    if params:
        conn.execute(
            sa.insert(s.TABLE_PARAMS),
            [{"TBL_ID": tbl_id, "PARAM_KEY": k, "PARAM_VALUE": v} for k, v in params.items()],
        )


def _touch(conn: Connection, tbl_id: int) -> None:
    """Record the DDL time the way Hive does, in ``transient_lastDdlTime``."""
    key = rules.DDL_TIME
    conn.execute(
        sa.delete(s.TABLE_PARAMS).where(s.TABLE_PARAMS.c.TBL_ID == tbl_id, s.TABLE_PARAMS.c.PARAM_KEY == key)
    )
    conn.execute(
        sa.insert(s.TABLE_PARAMS).values(TBL_ID=tbl_id, PARAM_KEY=key, PARAM_VALUE=str(int(time.time())))
    )


def _delete_table(conn: Connection, db: str, name: str) -> None:
    row = _tbl_row(conn, db, name)
    tbl_id = row["TBL_ID"]
    part_ids = sa.select(s.PARTITIONS.c.PART_ID).where(s.PARTITIONS.c.TBL_ID == tbl_id)
    conn.execute(sa.delete(s.PARTITION_KEY_VALS).where(s.PARTITION_KEY_VALS.c.PART_ID.in_(part_ids)))
    for child in (s.PARTITIONS, s.TABLE_PARAMS, s.BUCKETING_COLS, s.PARTITION_KEYS, s.COLUMNS_V2):
        conn.execute(sa.delete(child).where(child.c.TBL_ID == tbl_id))
    conn.execute(sa.delete(s.TBLS).where(s.TBLS.c.TBL_ID == tbl_id))
    _delete_txn_records(conn, db, name)


def _delete_txn_records(conn: Connection, db: str, name: str) -> None:
    """A dropped table's write ids, components and compactions go with it (Hive ``cleanupRecords``)."""
    for table, db_col, tbl_col in s.TABLE_NAME_COLUMNS:
        conn.execute(sa.delete(table).where(table.c[db_col] == db, table.c[tbl_col] == name))


def _rename_txn_records(conn: Connection, old: tuple[str, str], new: tuple[str, str]) -> None:
    """Transaction records follow a renamed table (Hive ``TxnHandler.onRename``)."""
    _delete_txn_records(conn, *new)  # leftovers under the new name belong to no table
    for table, db_col, tbl_col in s.TABLE_NAME_COLUMNS:
        conn.execute(
            sa.update(table)
            .where(table.c[db_col] == old[0], table.c[tbl_col] == old[1])
            .values({db_col: new[0], tbl_col: new[1]})
        )


__all__ = ["Catalog", "hive_pattern"]
