# ruff: noqa: SIM300 - upper-case Hive column attributes (TBLS.c.DB_ID) look like constants to ruff
"""The catalog: databases, tables and partitions as rows of Hive 3.1's metastore, written as Hive writes them.

A table is a ``TBLS`` row (owner, ``MANAGED_TABLE``/``EXTERNAL_TABLE``) with its storage descriptor (``SDS``:
location, Hive's input/output format classes, bucket count) and serde (``SERDES``/``SERDE_PARAMS``), its columns
under a column descriptor (``CDS``/``COLUMNS_V2``), ``PARTITION_KEYS``, ``BUCKETING_COLS``/``SORT_COLS`` by storage
descriptor and ``TABLE_PARAMS`` (the table comment is the ``comment`` parameter, as in Hive). A partition is a
``PARTITIONS`` row with its own storage descriptor and serde (sharing the table's column descriptor),
``PARTITION_KEY_VALS`` and ``PARTITION_PARAMS``. Object ids come from DataNucleus' ``SEQUENCE_TABLE``
(:mod:`~hiveacid_sql.txn.ids`), so Hive's metastore and this catalog can write one database.

Keeping the catalog next to the transaction tables means a DDL change and the transaction
records it affects (write ids follow a renamed table, go away with a dropped one, as Hive's
``AcidEventListener`` does) change in one database transaction. Names are stored lower case.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from hiveacid_sql.acid.partitions import DEFAULT_PARTITION_NAME, parse_partition_name
from hiveacid_sql.errors import CatalogError, HiveAcidError, NoSuchDatabaseError, NoSuchTableError
from hiveacid_sql.txn import hive31, rules
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.db import Db
from hiveacid_sql.txn.ids import reserve_ids
from hiveacid_sql.txn.locations import from_metastore, to_metastore
from hiveacid_sql.txn.tabledef import (
    CONSTRAINT_TYPES,
    STORAGE_CLASSES,
    VIRTUAL_VIEW,
    Column,
    ConstraintDef,
    PartitionDef,
    TableDef,
    storage_format_of,
)

#: Hive's table parameter holding the table comment.
COMMENT = "comment"


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
            (db_id,) = reserve_ids(conn, "DBS")
            conn.execute(
                sa.insert(s.DBS).values(
                    DB_ID=db_id, NAME=name, DESC=comment, DB_LOCATION_URI=to_metastore(location), OWNER_NAME=owner,
                    OWNER_TYPE="USER" if owner else None, CTLG_NAME=s.HIVE_CATALOG,
                )
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
            rows = conn.execute(_table_query().where(s.TBLS.c.DB_ID == db_id)).mappings().all()
            if rows and not cascade:
                raise CatalogError(f"Database {name} is not empty. One or more tables exist.")
            dropped = [_load(conn, name, row) for row in rows]
            for td in dropped:
                _delete_table(conn, td.db, td.name)
            for child in (s.DATABASE_PARAMS, hive31.DB_PRIVS):
                conn.execute(sa.delete(child).where(child.c.DB_ID == db_id))
            conn.execute(sa.delete(s.DBS).where(s.DBS.c.DB_ID == db_id))
            return dropped

        return self._db.run_write(run)

    def list_databases(self, pattern: str | None = None) -> list[str]:
        match = hive_pattern(pattern)
        with self._db.read() as conn:
            names = conn.execute(sa.select(s.DBS.c.NAME).where(_in_catalog())).scalars().all()
        return sorted(n for n in names if match(n))

    def database_exists(self, name: str) -> bool:
        with self._db.read() as conn:
            return _db_id(conn, name.strip().lower()) is not None

    def get_database(self, name: str) -> dict[str, Any]:
        """``{'name', 'comment', 'location', 'owner'}``; NoSuchDatabaseError if absent."""
        name = name.strip().lower()
        with self._db.read() as conn:
            row = conn.execute(sa.select(s.DBS).where(s.DBS.c.NAME == name, _in_catalog())).mappings().first()
        if row is None:
            raise _no_database(name)
        return {
            "name": row["NAME"],
            "comment": row["DESC"],
            "location": from_metastore(row["DB_LOCATION_URI"]),
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

    def create_view(self, view: TableDef, *, replace: bool = False, if_not_exists: bool = False) -> bool:
        """CREATE [OR REPLACE] VIEW [IF NOT EXISTS]: a ``VIRTUAL_VIEW`` row as Hive stores one (no location,
        the sequence-file classes, its columns, ``VIEW_ORIGINAL_TEXT`` and ``VIEW_EXPANDED_TEXT``). False if
        it existed and ``if_not_exists``; ``replace`` swaps an existing view (never a table)."""
        db, name = view.db.strip().lower(), view.name.strip().lower()
        rules.check_object_name(name, "table")
        columns = rules.normalize_columns(view.columns)
        params = dict(view.params)
        params[rules.DDL_TIME] = str(view.create_time or int(time.time()))
        td = dataclasses.replace(
            view, db=db, name=name, columns=columns, table_type=VIRTUAL_VIEW, location="", params=params,
            create_time=view.create_time or int(time.time()),
        )

        def run(conn: Connection) -> bool:
            db_id = _db_id(conn, db)
            if db_id is None:
                raise _no_database(db)
            row = _tbl_row(conn, db, name, lock=True)
            if row is not None:
                if if_not_exists:
                    return False
                if not replace:
                    raise CatalogError(f"Table already exists: {db}.{name}")
                if row["TBL_TYPE"] != VIRTUAL_VIEW:
                    raise CatalogError(f"Existing table is not a view: {db}.{name}")
                _delete_table(conn, db, name)
            _insert_table(conn, db_id, td)
            return True

        return self._db.run_write(run)

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

    def list_tables(self, db: str, pattern: str | None = None, *, table_type: str | None = None) -> list[str]:
        """Names of the tables (views included, as Hive's SHOW TABLES) of ``db``; ``table_type``: only those
        of that type (``VIRTUAL_VIEW`` for SHOW VIEWS)."""
        db = db.strip().lower()
        match = hive_pattern(pattern)
        with self._db.read() as conn:
            db_id = _db_id(conn, db)
            if db_id is None:
                raise _no_database(db)
            query = sa.select(s.TBLS.c.TBL_NAME).where(s.TBLS.c.DB_ID == db_id)
            if table_type is not None:
                query = query.where(s.TBLS.c.TBL_TYPE == table_type)
            names = conn.execute(query).scalars().all()
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
            conn.execute(
                sa.update(s.TBLS).where(s.TBLS.c.TBL_ID == row["TBL_ID"]).values(DB_ID=new_db_id, TBL_NAME=new_name)
            )
            if new_location is not None:
                _move_locations(conn, row, new_location)
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
            _insert_columns(conn, row["CD_ID"], new_cols, start=len(td.columns))
            _touch(conn, row["TBL_ID"])
            return _load(conn, db, row)

        return self._db.run_write(run)

    def add_constraints(self, db: str, name: str, constraints: Iterable[ConstraintDef]) -> TableDef:
        """ALTER TABLE ADD CONSTRAINT: rows in ``KEY_CONSTRAINTS`` as CREATE TABLE writes them."""
        db, name = db.strip().lower(), name.strip().lower()
        new = tuple(constraints)

        def run(conn: Connection) -> TableDef:
            row = _tbl_row(conn, db, name, lock=True)
            if row is None:
                raise _table_not_found(db, name)
            td = _load(conn, db, row)
            if any(c.kind == "primary_key" for c in new) and any(c.kind == "primary_key" for c in td.constraints):
                raise CatalogError(f" Primary key already exists for: hive.{db}.{name}")
            _insert_constraints(conn, row["TBL_ID"], row["CD_ID"], dataclasses.replace(td, constraints=new))
            _touch(conn, row["TBL_ID"])
            return _load(conn, db, row)

        return self._db.run_write(run)

    def drop_constraint(self, db: str, name: str, constraint: str) -> TableDef:
        """ALTER TABLE DROP CONSTRAINT: the table's constraint of that name (its own or its foreign key)."""
        db, name, constraint = db.strip().lower(), name.strip().lower(), constraint.strip().lower()

        def run(conn: Connection) -> TableDef:
            row = _tbl_row(conn, db, name, lock=True)
            if row is None:
                raise _table_not_found(db, name)
            kc = hive31.KEY_CONSTRAINTS.c
            mine = sa.or_(kc.PARENT_TBL_ID == row["TBL_ID"], kc.CHILD_TBL_ID == row["TBL_ID"])
            gone = conn.execute(sa.delete(hive31.KEY_CONSTRAINTS).where(kc.CONSTRAINT_NAME == constraint, mine)).rowcount
            if not gone:
                raise CatalogError(
                    f"The constraint: {constraint} does not exist for the associated table: {db}.{name}"
                )
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
        self, db: str, name: str, names: Iterable[str], *, if_not_exists: bool = True, write_id: int | None = None,
        locations: dict[str, str] | None = None,
    ) -> list[str]:
        """Register partitions by Hive name (``p=v/q=w``); returns the names that were new.

        Writers call this for every partition a statement wrote into (Hive's ``add_dynamic_partitions``);
        ``ALTER TABLE ADD PARTITION`` calls it with ``if_not_exists`` from the statement. ``locations``: a
        partition's own location (``ADD PARTITION .. LOCATION``) instead of ``<table>/<name>``.
        """
        wanted = list(names)
        return self._db.run_write(
            lambda conn: register_partitions(conn, db, name, wanted, if_not_exists, write_id, locations)
        )

    def mark_stats_stale(self, db: str, name: str, partitions: Iterable[str | None] | None) -> None:
        """After a write outside a transaction (plain tables): Hive's statistics of what was written no longer
        hold (:func:`mark_stats_stale`; ``partitions`` None: every partition)."""
        wanted = None if partitions is None else list(partitions)
        self._db.run_write(lambda conn: mark_stats_stale(conn, db, name, wanted))

    def record_plain_write(self, db: str, name: str, partitions: Iterable[str], *, whole_table: bool) -> None:
        """After a plain (non-ACID) table's INSERT: register the partitions it wrote into and clear Hive's
        statistics of what it wrote, in one database transaction (one round trip per statement, not two)."""
        names = list(partitions)
        stale = None if whole_table else names

        def work(conn: Connection) -> None:
            if names:
                register_partitions(conn, db, name, names, True, None, None)
            mark_stats_stale(conn, db, name, stale)

        self._db.run_write(work)

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
            _delete_partitions(conn, list(ids.values()))
            return [p for p in wanted if p in ids]

        return self._db.run_write(run)

    def list_partitions(self, db: str, name: str) -> list[PartitionDef]:
        """Every partition of a table, by name (values unescaped, the default partition as None)."""
        db, name = db.strip().lower(), name.strip().lower()
        with self._db.read() as conn:
            row = _tbl_row(conn, db, name)
            if row is None:
                raise _table_not_found(db, name)
            parts, sds = s.PARTITIONS.c, s.SDS.c
            rows = conn.execute(
                sa.select(parts.PART_NAME, sds.LOCATION)
                .select_from(s.PARTITIONS.outerjoin(s.SDS, sds.SD_ID == parts.SD_ID))
                .where(parts.TBL_ID == row["TBL_ID"])
            ).all()
        return [
            PartitionDef(n, tuple(v for _k, v in parse_partition_name(n)), from_metastore(location))
            for n, location in sorted(rows, key=lambda r: r[0])
        ]

    def partition_write_ids(self, db: str, name: str) -> dict[str, int | None]:
        """Partition name -> the write id that created it (None: added by DDL or adopted from disk)."""
        db, name = db.strip().lower(), name.strip().lower()
        with self._db.read() as conn:
            row = _tbl_row(conn, db, name)
            if row is None:
                raise _table_not_found(db, name)
            p, pw = s.PARTITIONS.c, s.HIVEACID_PARTITION_WRITE_IDS.c
            rows = conn.execute(
                sa.select(p.PART_NAME, pw.PW_WRITEID)
                .select_from(s.PARTITIONS.outerjoin(s.HIVEACID_PARTITION_WRITE_IDS, pw.PW_PART_ID == p.PART_ID))
                .where(p.TBL_ID == row["TBL_ID"])
            ).all()
        return {part: write_id for part, write_id in rows}

    def _alter_params(self, db: str, name: str, change: Callable[[TableDef], dict[str, str]]) -> TableDef:
        db, name = db.strip().lower(), name.strip().lower()

        def run(conn: Connection) -> TableDef:
            row = _tbl_row(conn, db, name, lock=True)
            if row is None:
                raise _table_not_found(db, name)
            td = _load(conn, db, row)
            params = change(td)
            params[rules.DDL_TIME] = str(int(time.time()))
            comment = params.pop(COMMENT, td.comment)
            if comment is not None:
                params[COMMENT] = comment
            tbl_id = row["TBL_ID"]
            conn.execute(sa.delete(s.TABLE_PARAMS).where(s.TABLE_PARAMS.c.TBL_ID == tbl_id))
            _insert_params(conn, tbl_id, params)
            return _load(conn, db, row)

        return self._db.run_write(run)


def register_partitions(
    conn: Connection, db: str, name: str, names: Iterable[str], if_not_exists: bool = True, write_id: int | None = None,
    locations: dict[str, str] | None = None,
) -> list[str]:
    """:meth:`Catalog.add_partitions` inside the caller's database transaction (the store's commit)."""
    db, name = db.strip().lower(), name.strip().lower()
    wanted = list(dict.fromkeys(names))
    row = _tbl_row(conn, db, name, lock=True)
    if row is None:
        raise _table_not_found(db, name)
    keys = _partition_key_names(conn, row["TBL_ID"])
    if not keys:
        raise CatalogError(f"Table {db}.{name} is not partitioned")
    existing = set(_partition_names(conn, row["TBL_ID"]))
    added: dict[str, list[tuple[str, str | None]]] = {}
    for part in wanted:
        pairs = parse_partition_name(part)
        if [k for k, _ in pairs] != keys:
            raise CatalogError(
                f"Partition spec {part} does not match the partition columns ({', '.join(keys)}) of {db}.{name}"
            )
        if part in existing or part in added:
            if if_not_exists:
                continue
            raise CatalogError(f"Partition already exists: {db}.{name} {part}")
        added[part] = pairs
    _insert_partitions(conn, row, added, write_id, locations or {})
    return list(added)


#: Hive's ``TxnStore.TXN_KEY_START``: a key committed with a transaction (``commitTxn``'s key/value) must
#: start with it, so it can never overwrite a table property a user or Hive set.
TXN_KEY_START = "_meta"


def set_txn_key_value(conn: Connection, db: str, name: str, key: str, value: str) -> None:
    """Store ``key`` = ``value`` in the table's ``TABLE_PARAMS`` inside the caller's database transaction (the
    store's commit), as Hive's ``updateKeyValueAssociatedWithTxn`` does. Hive updates a row the caller
    created beforehand and fails otherwise; here a missing row is inserted, so no set-up step is needed."""
    if not key.startswith(TXN_KEY_START):
        raise CatalogError(f"key should start with {TXN_KEY_START}: {key!r}")
    row = _tbl_row(conn, db.strip().lower(), name.strip().lower(), lock=True)
    if row is None:
        raise _table_not_found(db, name)
    tp = s.TABLE_PARAMS.c
    done = conn.execute(
        sa.update(s.TABLE_PARAMS).where(tp.TBL_ID == row["TBL_ID"], tp.PARAM_KEY == key).values(PARAM_VALUE=value)
    )
    if done.rowcount == 0:
        conn.execute(sa.insert(s.TABLE_PARAMS).values(TBL_ID=row["TBL_ID"], PARAM_KEY=key, PARAM_VALUE=value))


#: Hive's flag that a table's or partition's statistics match its data (``StatsSetupConst.COLUMN_STATS_ACCURATE``)
STATS_ACCURATE = "COLUMN_STATS_ACCURATE"


def mark_stats_stale(conn: Connection, db: str, name: str, partitions: Iterable[str | None] | None) -> None:
    """Drop ``COLUMN_STATS_ACCURATE`` of a table we wrote and of the partitions written (a ``None`` name: the
    table itself; ``partitions`` None: all of them), inside the caller's database transaction.

    Why: Hive with ``hive.compute.query.using.stats`` (its default) answers ``count(*)``, ``min`` and ``max``
    from statistics flagged accurate instead of reading the files; we keep no statistics, so a flag left from
    Hive's last ``ANALYZE`` or stats-gathering insert would make Hive answer from the data as it was before our
    write. With the flag absent Hive treats the numbers as estimates (``StatsSetupConst.areBasicStatsUptoDate``
    is false) and reads the data. The table-level flag goes too when a partition is written: a partitioned
    table's own flag describes the table as a whole."""
    row = _tbl_row(conn, db.strip().lower(), name.strip().lower())
    if row is None:
        return
    tp = s.TABLE_PARAMS.c
    conn.execute(sa.delete(s.TABLE_PARAMS).where(tp.TBL_ID == row["TBL_ID"], tp.PARAM_KEY == STATS_ACCURATE))
    part_ids = sa.select(s.PARTITIONS.c.PART_ID).where(s.PARTITIONS.c.TBL_ID == row["TBL_ID"])
    if partitions is not None:
        names = sorted({p for p in partitions if p})
        if not names:
            return
        part_ids = part_ids.where(s.PARTITIONS.c.PART_NAME.in_(names))
    pp = s.PARTITION_PARAMS.c
    conn.execute(sa.delete(s.PARTITION_PARAMS).where(pp.PART_ID.in_(part_ids), pp.PARAM_KEY == STATS_ACCURATE))


# ---------------------------------------------------------------------- row helpers
def _in_catalog() -> Any:
    """Databases of Hive's catalog ``hive`` (the one Hive 3 and every Hive 2 client use)."""
    return sa.func.coalesce(s.DBS.c.CTLG_NAME, s.HIVE_CATALOG) == s.HIVE_CATALOG


def _db_id(conn: Connection, name: str, *, lock: bool = False) -> int | None:
    query = sa.select(s.DBS.c.DB_ID).where(s.DBS.c.NAME == name, _in_catalog())
    return conn.execute(query.with_for_update() if lock else query).scalar()


def _table_query() -> sa.Select:
    """A table's TBLS row with its storage descriptor and serde library (one row per table)."""
    t, sd, se = s.TBLS.c, s.SDS.c, s.SERDES.c
    return (
        sa.select(
            t.TBL_ID, t.TBL_NAME, t.TBL_TYPE, t.OWNER, t.CREATE_TIME, t.SD_ID, t.DB_ID,
            t.VIEW_ORIGINAL_TEXT, t.VIEW_EXPANDED_TEXT,
            sd.LOCATION, sd.INPUT_FORMAT, sd.OUTPUT_FORMAT, sd.NUM_BUCKETS, sd.CD_ID, sd.SERDE_ID, se.SLIB,
        )
        .select_from(
            s.TBLS.outerjoin(s.SDS, sd.SD_ID == t.SD_ID).outerjoin(s.SERDES, se.SERDE_ID == sd.SERDE_ID)
        )
    )


def _tbl_row(conn: Connection, db: str, name: str, *, lock: bool = False) -> Any:
    query = (
        _table_query()
        .join(s.DBS, s.DBS.c.DB_ID == s.TBLS.c.DB_ID)
        .where(s.DBS.c.NAME == db, _in_catalog(), s.TBLS.c.TBL_NAME == name)
    )
    row = conn.execute(query).mappings().first()
    if row is not None and lock:  # lock the TBLS row alone (an outer join cannot be locked everywhere)
        conn.execute(sa.select(s.TBLS.c.TBL_ID).where(s.TBLS.c.TBL_ID == row["TBL_ID"]).with_for_update())
    return row


def _partition_key_names(conn: Connection, tbl_id: int) -> list[str]:
    pk = s.PARTITION_KEYS.c
    return list(conn.execute(sa.select(pk.PKEY_NAME).where(pk.TBL_ID == tbl_id).order_by(pk.INTEGER_IDX)).scalars())


def _partition_names(conn: Connection, tbl_id: int) -> list[str]:
    parts = s.PARTITIONS.c
    return list(conn.execute(sa.select(parts.PART_NAME).where(parts.TBL_ID == tbl_id)).scalars())


def _load(conn: Connection, db: str, row: Any) -> TableDef:
    tbl_id = row["TBL_ID"]
    cols = conn.execute(
        sa.select(s.COLUMNS_V2).where(s.COLUMNS_V2.c.CD_ID == row["CD_ID"]).order_by(s.COLUMNS_V2.c.INTEGER_IDX)
    ).mappings()
    pkeys = conn.execute(
        sa.select(s.PARTITION_KEYS)
        .where(s.PARTITION_KEYS.c.TBL_ID == tbl_id)
        .order_by(s.PARTITION_KEYS.c.INTEGER_IDX)
    ).mappings()
    buckets = conn.execute(
        sa.select(s.BUCKETING_COLS.c.BUCKET_COL_NAME)
        .where(s.BUCKETING_COLS.c.SD_ID == row["SD_ID"])
        .order_by(s.BUCKETING_COLS.c.INTEGER_IDX)
    ).scalars()
    params = {
        k: v if v is not None else ""
        for k, v in conn.execute(
            sa.select(s.TABLE_PARAMS.c.PARAM_KEY, s.TABLE_PARAMS.c.PARAM_VALUE).where(s.TABLE_PARAMS.c.TBL_ID == tbl_id)
        ).all()
    }
    comment = params.pop(COMMENT, None)
    storage_format = storage_format_of(row["INPUT_FORMAT"], row["SLIB"])
    serde_params = _serde_params(conn, row["SERDE_ID"])
    columns = tuple(Column(c["COLUMN_NAME"], c["TYPE_NAME"] or "", c["COMMENT"]) for c in cols)
    if not columns and storage_format == "avro":
        columns = _avro_schema_columns(f"{db}.{row['TBL_NAME']}", {**serde_params, **params})
    return TableDef(
        db=db,
        name=row["TBL_NAME"],
        columns=columns,
        location=from_metastore(row["LOCATION"]) or "",
        storage_format=storage_format,
        table_type=row["TBL_TYPE"] or "MANAGED_TABLE",
        params=params,
        partition_keys=tuple(Column(p["PKEY_NAME"], p["PKEY_TYPE"], p["PKEY_COMMENT"]) for p in pkeys),
        bucket_cols=tuple(buckets),
        sort_cols=_sort_cols(conn, row["SD_ID"]),
        num_buckets=int(row["NUM_BUCKETS"]) if row["NUM_BUCKETS"] is not None else -1,
        comment=comment,
        owner=row["OWNER"],
        create_time=int(row["CREATE_TIME"]),
        view_original_text=row["VIEW_ORIGINAL_TEXT"],
        view_expanded_text=row["VIEW_EXPANDED_TEXT"],
        serde_params=serde_params,
        constraints=_load_constraints(conn, tbl_id),
    )


def _avro_schema_columns(qualified: str, props: dict[str, str]) -> tuple[Column, ...]:
    """The columns of an Avro table whose metastore row lists none (Hive leaves the schema to its
    ``avro.schema.literal``): the schema's fields, as Hive's AvroSerDe gives them; none when there is no
    literal or it cannot be read (the table then fails where it is used, not where tables are listed)."""
    from hiveacid_sql.acid.avro import SCHEMA_LITERAL, schema_columns

    literal = {k.lower(): v for k, v in props.items()}.get(SCHEMA_LITERAL)
    if not literal:
        return ()
    try:
        return tuple(Column(n, t, doc) for n, t, doc in schema_columns(literal, qualified))
    except HiveAcidError:
        return ()


_CONSTRAINT_KINDS = {code: kind for kind, code in CONSTRAINT_TYPES.items()}


def _column_name(conn: Connection, tbl_id: int, cd_id: int | None, index: int) -> str:
    """The column a ``KEY_CONSTRAINTS`` row points at: ``INTEGER_IDX`` among the column descriptor's columns,
    or among the table's partition keys when the row has no column descriptor (as Hive's ObjectStore)."""
    if cd_id is None:
        pk = s.PARTITION_KEYS.c
        query = sa.select(pk.PKEY_NAME).where(pk.TBL_ID == tbl_id, pk.INTEGER_IDX == index)
    else:
        cv = s.COLUMNS_V2.c
        query = sa.select(cv.COLUMN_NAME).where(cv.CD_ID == cd_id, cv.INTEGER_IDX == index)
    return conn.execute(query).scalar() or f"_col{index}"


def _load_constraints(conn: Connection, tbl_id: int) -> tuple[ConstraintDef, ...]:
    """The table's constraints from ``KEY_CONSTRAINTS``: its own keys (parent rows) and its foreign keys
    (child rows), one :class:`ConstraintDef` per constraint name, columns in ``POSITION`` order."""
    kc = hive31.KEY_CONSTRAINTS.c
    rows = conn.execute(
        sa.select(hive31.KEY_CONSTRAINTS)
        .where(
            sa.or_(
                sa.and_(kc.PARENT_TBL_ID == tbl_id, kc.CONSTRAINT_TYPE != CONSTRAINT_TYPES["foreign_key"]),
                sa.and_(kc.CHILD_TBL_ID == tbl_id, kc.CONSTRAINT_TYPE == CONSTRAINT_TYPES["foreign_key"]),
            )
        )
        .order_by(kc.CONSTRAINT_NAME, kc.POSITION)
    ).mappings().all()
    grouped: dict[str, list[Any]] = {}
    for r in rows:
        grouped.setdefault(r["CONSTRAINT_NAME"], []).append(r)
    out = []
    for name, group in grouped.items():
        first = group[0]
        kind = _CONSTRAINT_KINDS.get(int(first["CONSTRAINT_TYPE"]), "check")
        flags = int(first["ENABLE_VALIDATE_RELY"] or 0)
        ref_db = ref_table = None
        ref_columns: tuple[str, ...] = ()
        if kind == "foreign_key":
            columns = tuple(_column_name(conn, tbl_id, r["CHILD_CD_ID"], int(r["CHILD_INTEGER_IDX"])) for r in group)
            parent = conn.execute(
                sa.select(s.DBS.c.NAME, s.TBLS.c.TBL_NAME)
                .join(s.DBS, s.DBS.c.DB_ID == s.TBLS.c.DB_ID)
                .where(s.TBLS.c.TBL_ID == first["PARENT_TBL_ID"])
            ).first()
            if parent is not None:
                ref_db, ref_table = parent[0], parent[1]
            ref_columns = tuple(
                _column_name(conn, first["PARENT_TBL_ID"], r["PARENT_CD_ID"], int(r["PARENT_INTEGER_IDX"])) for r in group
            )
        else:  # a row pointing at no column (index -1): a table-level CHECK
            columns = tuple(
                _column_name(conn, tbl_id, r["PARENT_CD_ID"], int(r["PARENT_INTEGER_IDX"]))
                for r in group if int(r["PARENT_INTEGER_IDX"]) >= 0
            )
        out.append(
            ConstraintDef(
                name=name, kind=kind, columns=columns, enable=bool(flags & 4), validate=bool(flags & 2),
                rely=bool(flags & 1), default_value=first["DEFAULT_VALUE"], ref_db=ref_db, ref_table=ref_table,
                ref_columns=ref_columns,
            )
        )
    return tuple(out)


def _insert_constraints(conn: Connection, tbl_id: int, cd_id: int, td: TableDef) -> None:
    """``KEY_CONSTRAINTS`` rows as Hive 3.1's ObjectStore writes them: keys, NOT NULL and DEFAULT point at
    this table (``PARENT_*``: its column descriptor and the column's index, or no descriptor and the
    partition key's index); a foreign key's child is this table and its parent the referenced one.
    Constraint names are unique in the whole metastore (the table's primary key is name and position)."""
    if not td.constraints:
        return
    kc = hive31.KEY_CONSTRAINTS.c
    names = [c.name for c in td.constraints]
    taken = conn.execute(sa.select(kc.CONSTRAINT_NAME).where(kc.CONSTRAINT_NAME.in_(names)).limit(1)).scalar()
    if taken is not None:
        raise CatalogError(f"Constraint name already exists: {taken}")
    data = [c.name for c in td.columns]
    keys = [c.name for c in td.partition_keys]

    def where(columns: list[str], parts: list[str], cd: int | None, column: str | None) -> tuple[int | None, int]:
        if column is None:  # a table-level CHECK: Hive's ObjectStore finds no column (no descriptor, index -1)
            return None, -1
        return (cd, columns.index(column)) if column in columns else (None, parts.index(column))

    rows = []
    for c in td.constraints:
        for position, column in enumerate(c.columns or (None,), start=1):
            row: dict[str, Any] = {
                "CONSTRAINT_NAME": c.name, "POSITION": position, "CONSTRAINT_TYPE": CONSTRAINT_TYPES[c.kind],
                "ENABLE_VALIDATE_RELY": c.enable_validate_rely, "DEFAULT_VALUE": c.default_value,
                "UPDATE_RULE": None, "DELETE_RULE": None, "CHILD_CD_ID": None, "CHILD_INTEGER_IDX": None,
                "CHILD_TBL_ID": None,
            }
            own_cd, own_idx = where(data, keys, cd_id, column)
            if c.kind == "foreign_key":
                parent = _tbl_row(conn, c.ref_db or td.db, c.ref_table or "")
                if parent is None:
                    raise CatalogError(f"Parent table not found: {c.ref_table}")
                parent_td = _load(conn, c.ref_db or td.db, parent)
                parent_keys = [k.columns for k in parent_td.constraints if k.kind in ("primary_key", "unique")]
                if not parent_keys:
                    raise CatalogError(
                        "Trying to define foreign key but there are no primary keys or unique keys for referenced table"
                    )
                if position == 1 and c.ref_columns not in parent_keys:
                    raise CatalogError(
                        f"Foreign key references {', '.join(c.ref_columns)} of {parent_td.qualified_name} but no "
                        f"corresponding primary key or unique key exists. Possible keys: {[', '.join(k) for k in parent_keys]}"
                    )
                parent_cd, parent_idx = where(
                    [x.name for x in parent_td.columns], [x.name for x in parent_td.partition_keys],
                    parent["CD_ID"], c.ref_columns[position - 1],
                )
                row.update(
                    CHILD_CD_ID=own_cd, CHILD_INTEGER_IDX=own_idx, CHILD_TBL_ID=tbl_id, PARENT_CD_ID=parent_cd,
                    PARENT_INTEGER_IDX=parent_idx, PARENT_TBL_ID=parent["TBL_ID"], UPDATE_RULE=0, DELETE_RULE=0,
                )
            else:
                row.update(PARENT_CD_ID=own_cd, PARENT_INTEGER_IDX=own_idx, PARENT_TBL_ID=tbl_id)
            rows.append(row)
    conn.execute(sa.insert(hive31.KEY_CONSTRAINTS), rows)


def _insert_serde(conn: Connection, serde_id: int, serde_lib: str, params: dict[str, str] | None = None) -> None:
    """A serde row and its parameters (Hive's ``serialization.format``=1 when none are given)."""
    conn.execute(sa.insert(s.SERDES).values(SERDE_ID=serde_id, NAME=None, SLIB=serde_lib))
    rows = [{"SERDE_ID": serde_id, "PARAM_KEY": k, "PARAM_VALUE": v} for k, v in (params or {"serialization.format": "1"}).items()]
    conn.execute(sa.insert(s.SERDE_PARAMS), rows)


def _serde_params(conn: Connection, serde_id: int | None) -> dict[str, str]:
    if serde_id is None:
        return {}
    sp = s.SERDE_PARAMS.c
    return {k: v or "" for k, v in conn.execute(sa.select(sp.PARAM_KEY, sp.PARAM_VALUE).where(sp.SERDE_ID == serde_id)).all()}


def _insert_sd(
    conn: Connection, sd_id: int, serde_id: int, cd_id: int, location: str | None, storage_format: str,
    num_buckets: int, bucket_cols: Iterable[str], *, serde: bool = True, serde_params: dict[str, str] | None = None,
    sort_cols: Iterable[tuple[str, int]] = (),
) -> None:
    """A storage descriptor as Hive writes one (its serde first: SDS refers to it); a view's has no
    location and a serde without a library (``serde`` False), as Hive's ``CreateViewDesc`` leaves them."""
    input_format, output_format, serde_lib = STORAGE_CLASSES[storage_format]
    if serde:
        _insert_serde(conn, serde_id, serde_lib, serde_params)
    else:
        conn.execute(sa.insert(s.SERDES).values(SERDE_ID=serde_id, NAME=None, SLIB=None))
    conn.execute(
        sa.insert(s.SDS).values(
            SD_ID=sd_id, CD_ID=cd_id, SERDE_ID=serde_id, LOCATION=location, INPUT_FORMAT=input_format,
            OUTPUT_FORMAT=output_format, IS_COMPRESSED=False, IS_STOREDASSUBDIRECTORIES=False,
            NUM_BUCKETS=num_buckets,
        )
    )
    rows = [{"SD_ID": sd_id, "BUCKET_COL_NAME": c, "INTEGER_IDX": i} for i, c in enumerate(bucket_cols)]
    if rows:
        conn.execute(sa.insert(s.BUCKETING_COLS), rows)
    sorts = [{"SD_ID": sd_id, "COLUMN_NAME": c, "ORDER": o, "INTEGER_IDX": i} for i, (c, o) in enumerate(sort_cols)]
    if sorts:
        conn.execute(sa.insert(s.SORT_COLS), sorts)


def _sort_cols(conn: Connection, sd_id: int | None) -> tuple[tuple[str, int], ...]:
    """A storage descriptor's ``SORT_COLS``: (column, order), in order."""
    sc = s.SORT_COLS.c
    rows = conn.execute(sa.select(sc.COLUMN_NAME, sc.ORDER).where(sc.SD_ID == sd_id).order_by(sc.INTEGER_IDX)).all()
    return tuple((str(name), int(order)) for name, order in rows)


def _insert_table(conn: Connection, db_id: int, td: TableDef) -> None:
    (tbl_id,) = reserve_ids(conn, "TBLS")
    (sd_id,) = reserve_ids(conn, "SDS")
    (serde_id,) = reserve_ids(conn, "SERDES")
    (cd_id,) = reserve_ids(conn, "CDS")
    conn.execute(sa.insert(s.CDS).values(CD_ID=cd_id))
    view = td.table_type == VIRTUAL_VIEW
    _insert_sd(
        conn, sd_id, serde_id, cd_id, None if view else to_metastore(td.location), "sequencefile" if view else td.storage_format,
        td.num_buckets, td.bucket_cols, serde=not view, serde_params=td.serde_params, sort_cols=td.sort_cols,
    )
    conn.execute(
        sa.insert(s.TBLS).values(
            TBL_ID=tbl_id, CREATE_TIME=td.create_time, DB_ID=db_id, LAST_ACCESS_TIME=0, OWNER=td.owner,
            OWNER_TYPE="USER" if td.owner else None, RETENTION=0, SD_ID=sd_id, TBL_NAME=td.name,
            TBL_TYPE=td.table_type, VIEW_EXPANDED_TEXT=td.view_expanded_text, VIEW_ORIGINAL_TEXT=td.view_original_text,
            IS_REWRITE_ENABLED=False,
        )
    )
    _insert_columns(conn, cd_id, td.columns, start=0)
    _insert_constraints(conn, tbl_id, cd_id, td)
    if td.partition_keys:
        conn.execute(
            sa.insert(s.PARTITION_KEYS),
            [
                {"TBL_ID": tbl_id, "PKEY_NAME": c.name, "PKEY_TYPE": c.type, "PKEY_COMMENT": c.comment, "INTEGER_IDX": i}
                for i, c in enumerate(td.partition_keys)
            ],
        )
    params = dict(td.params)
    if td.comment is not None:
        params[COMMENT] = td.comment
    _insert_params(conn, tbl_id, params)


def _insert_partitions(
    conn: Connection, row: Any, parts: dict[str, list[tuple[str, str | None]]], write_id: int | None,
    locations: dict[str, str] | None = None,
) -> None:
    """PARTITIONS rows with their own storage descriptors (the table's columns, formats and buckets), key
    values and ``transient_lastDdlTime``, as Hive's ``add_partitions`` writes them."""
    if not parts:
        return
    count = len(parts)
    part_ids, sd_ids, serde_ids = (reserve_ids(conn, t, count) for t in ("PARTITIONS", "SDS", "SERDES"))
    buckets = list(
        conn.execute(
            sa.select(s.BUCKETING_COLS.c.BUCKET_COL_NAME)
            .where(s.BUCKETING_COLS.c.SD_ID == row["SD_ID"])
            .order_by(s.BUCKETING_COLS.c.INTEGER_IDX)
        ).scalars()
    )
    storage_format = storage_format_of(row["INPUT_FORMAT"], row["SLIB"])
    if storage_format not in STORAGE_CLASSES:
        raise CatalogError(f"Cannot add partitions to a table stored as {storage_format}")
    now = int(time.time())
    location = (to_metastore(row["LOCATION"]) or "").rstrip("/")
    serde_params = _serde_params(conn, row["SERDE_ID"])  # a partition's serde is the table's, as Hive copies it
    sorts = _sort_cols(conn, row["SD_ID"])
    for sd_id, serde_id, part in zip(sd_ids, serde_ids, parts, strict=True):
        _insert_sd(
            conn, sd_id, serde_id, row["CD_ID"], to_metastore((locations or {}).get(part)) or f"{location}/{part}",
            storage_format,
            int(row["NUM_BUCKETS"] if row["NUM_BUCKETS"] is not None else -1), buckets, serde_params=serde_params,
            sort_cols=sorts,
        )
    conn.execute(
        sa.insert(s.PARTITIONS),
        [
            {"PART_ID": pid, "CREATE_TIME": now, "LAST_ACCESS_TIME": 0, "PART_NAME": part, "SD_ID": sd, "TBL_ID": row["TBL_ID"]}
            for pid, sd, part in zip(part_ids, sd_ids, parts, strict=True)
        ],
    )
    conn.execute(
        sa.insert(s.PARTITION_KEY_VALS),
        [
            {"PART_ID": pid, "PART_KEY_VAL": DEFAULT_PARTITION_NAME if v is None else v, "INTEGER_IDX": i}
            for pid, pairs in zip(part_ids, parts.values(), strict=True)
            for i, (_k, v) in enumerate(pairs)
        ],
    )
    conn.execute(
        sa.insert(s.PARTITION_PARAMS),
        [{"PART_ID": pid, "PARAM_KEY": rules.DDL_TIME, "PARAM_VALUE": str(now)} for pid in part_ids],
    )
    if write_id is not None:
        conn.execute(
            sa.insert(s.HIVEACID_PARTITION_WRITE_IDS),
            [{"PW_PART_ID": pid, "PW_WRITEID": write_id} for pid in part_ids],
        )


def _insert_columns(conn: Connection, cd_id: int, cols: Iterable[Column], *, start: int) -> None:
    rows = [
        {"CD_ID": cd_id, "COLUMN_NAME": c.name, "TYPE_NAME": c.type, "COMMENT": c.comment, "INTEGER_IDX": i}
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


def _move_locations(conn: Connection, row: Any, new_location: str) -> None:
    """A renamed managed table moves: its storage descriptor and those of partitions under it (Hive's
    ``alterTable`` rewrites partition locations that start with the old table location)."""
    old = (to_metastore(row["LOCATION"]) or "").rstrip("/")
    new_location = to_metastore(new_location) or new_location
    conn.execute(sa.update(s.SDS).where(s.SDS.c.SD_ID == row["SD_ID"]).values(LOCATION=new_location))
    parts = conn.execute(
        sa.select(s.SDS.c.SD_ID, s.SDS.c.LOCATION)
        .join(s.PARTITIONS, s.PARTITIONS.c.SD_ID == s.SDS.c.SD_ID)
        .where(s.PARTITIONS.c.TBL_ID == row["TBL_ID"])
    ).all()
    for sd_id, stored in parts:
        location = to_metastore(stored)
        if old and location and (location == old or location.startswith(old + "/")):
            moved = new_location.rstrip("/") + location[len(old):]
            conn.execute(sa.update(s.SDS).where(s.SDS.c.SD_ID == sd_id).values(LOCATION=moved))


def _delete_sds(conn: Connection, sd_ids: list[int]) -> None:
    """Storage descriptors with their serdes, bucketing/sort columns and parameters; then the column
    descriptors nobody refers to any more."""
    if not sd_ids:
        return
    rows = conn.execute(sa.select(s.SDS.c.SERDE_ID, s.SDS.c.CD_ID).where(s.SDS.c.SD_ID.in_(sd_ids))).all()
    serde_ids = sorted({r[0] for r in rows if r[0] is not None})
    cd_ids = sorted({r[1] for r in rows if r[1] is not None})
    for child in (s.BUCKETING_COLS, s.SORT_COLS, s.SD_PARAMS, hive31.SKEWED_COL_NAMES, hive31.SKEWED_COL_VALUE_LOC_MAP):
        conn.execute(sa.delete(child).where(child.c.SD_ID.in_(sd_ids)))
    conn.execute(sa.delete(hive31.SKEWED_VALUES).where(hive31.SKEWED_VALUES.c.SD_ID_OID.in_(sd_ids)))
    conn.execute(sa.delete(s.SDS).where(s.SDS.c.SD_ID.in_(sd_ids)))
    if serde_ids:
        conn.execute(sa.delete(s.SERDE_PARAMS).where(s.SERDE_PARAMS.c.SERDE_ID.in_(serde_ids)))
        conn.execute(sa.delete(s.SERDES).where(s.SERDES.c.SERDE_ID.in_(serde_ids)))
    if cd_ids:
        used = set(conn.execute(sa.select(s.SDS.c.CD_ID).where(s.SDS.c.CD_ID.in_(cd_ids))).scalars())
        unused = [c for c in cd_ids if c not in used]
        if unused:
            conn.execute(sa.delete(s.COLUMNS_V2).where(s.COLUMNS_V2.c.CD_ID.in_(unused)))
            conn.execute(sa.delete(s.CDS).where(s.CDS.c.CD_ID.in_(unused)))


def _delete_partitions(conn: Connection, part_ids: list[int]) -> None:
    if not part_ids:
        return
    sd_ids = [
        sd for sd in conn.execute(sa.select(s.PARTITIONS.c.SD_ID).where(s.PARTITIONS.c.PART_ID.in_(part_ids))).scalars()
        if sd is not None
    ]
    for child in (s.PARTITION_KEY_VALS, s.PARTITION_PARAMS, hive31.PART_PRIVS, hive31.PART_COL_PRIVS):
        conn.execute(sa.delete(child).where(child.c.PART_ID.in_(part_ids)))
    conn.execute(sa.delete(hive31.PART_COL_STATS).where(hive31.PART_COL_STATS.c.PART_ID.in_(part_ids)))
    conn.execute(sa.delete(s.HIVEACID_PARTITION_WRITE_IDS).where(s.HIVEACID_PARTITION_WRITE_IDS.c.PW_PART_ID.in_(part_ids)))
    conn.execute(sa.delete(s.PARTITIONS).where(s.PARTITIONS.c.PART_ID.in_(part_ids)))
    _delete_sds(conn, sd_ids)


def _delete_table(conn: Connection, db: str, name: str) -> None:
    row = _tbl_row(conn, db, name)
    tbl_id = row["TBL_ID"]
    part_ids = list(conn.execute(sa.select(s.PARTITIONS.c.PART_ID).where(s.PARTITIONS.c.TBL_ID == tbl_id)).scalars())
    _delete_partitions(conn, part_ids)
    kc = hive31.KEY_CONSTRAINTS.c  # the table's constraints and the foreign keys naming it (Hive's dropTable)
    conn.execute(sa.delete(hive31.KEY_CONSTRAINTS).where(sa.or_(kc.PARENT_TBL_ID == tbl_id, kc.CHILD_TBL_ID == tbl_id)))
    for child in (s.TABLE_PARAMS, s.PARTITION_KEYS, hive31.TBL_PRIVS, hive31.TBL_COL_PRIVS, hive31.TAB_COL_STATS):
        conn.execute(sa.delete(child).where(child.c.TBL_ID == tbl_id))
    conn.execute(sa.delete(s.TBLS).where(s.TBLS.c.TBL_ID == tbl_id))
    if row["SD_ID"] is not None:
        _delete_sds(conn, [row["SD_ID"]])
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


__all__ = ["STATS_ACCURATE", "Catalog", "hive_pattern", "mark_stats_stale", "register_partitions"]
