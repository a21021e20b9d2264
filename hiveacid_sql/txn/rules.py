"""Catalog rules applied when a table is created or its TBLPROPERTIES change, as pure functions.

They follow Hive's ``TransactionalValidationListener`` (hive3): a full-ACID table must be ORC
and managed, ``transactional_properties`` is normalised to ``default``, and ``transactional``
can never go from true back to false. Messages copy Hive's so users can search for them.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Iterable

from hiveacid_sql.errors import CatalogError
from hiveacid_sql.txn.tabledef import (
    ORC_COMPRESS,
    ORC_COMPRESSIONS,
    STORAGE_FORMATS,
    TABLE_TYPES,
    Column,
    TableDef,
)

TRANSACTIONAL = "transactional"
TRANSACTIONAL_PROPERTIES = "transactional_properties"
DDL_TIME = "transient_lastDdlTime"
_CASE_INSENSITIVE_KEYS = (TRANSACTIONAL, TRANSACTIONAL_PROPERTIES)


def normalize_params(params: dict[str, str]) -> dict[str, str]:
    """Lower-case the keys Hive matches case-insensitively (and their values)."""
    out: dict[str, str] = {}
    for key, value in params.items():
        if key.lower() in _CASE_INSENSITIVE_KEYS:
            out[key.lower()] = str(value).lower()
        else:
            out[key] = str(value)
    return out


#: Storage formats an insert-only table may have here: those whose plain files we read and write (Hive
#: allows any format; a format outside this set is refused by CREATE as any table of it is).
INSERT_ONLY_FORMATS = frozenset({"orc", "parquet", "textfile", "csv", "json", "avro"})


def _check_acid_allowed(td: TableDef, storage_format: str, table_type: str, *, insert_only: bool = False) -> None:
    """Hive's ``TransactionalValidationListener``: no EXTERNAL table is transactional; a full-ACID table must
    be ORC (an insert-only one need not: "INSERT_ONLY tables don't have to conform to ACID requirement")."""
    if insert_only and storage_format not in INSERT_ONLY_FORMATS:
        raise CatalogError(
            f"Insert-only transactional tables are stored as ORC, PARQUET, TEXTFILE or AVRO here, not "
            f"{storage_format.upper()}: {td.qualified_name}"
        )
    if not insert_only and storage_format != "orc":
        raise CatalogError(
            f"The table must be stored using an ACID compliant format (such as ORC): {td.qualified_name}"
        )
    if table_type == "EXTERNAL_TABLE":
        raise CatalogError(
            f"{td.qualified_name} cannot be declared transactional because it's an external table"
        )


def _check_orc_compress(td: TableDef, params: dict[str, str]) -> None:
    value = next((v for k, v in params.items() if k.lower() == ORC_COMPRESS), None)
    if value is not None and value.strip().lower() not in ORC_COMPRESSIONS:
        raise CatalogError(
            f"Unsupported {ORC_COMPRESS} {value!r} for {td.qualified_name}: one of "
            + ", ".join(c.upper() for c in ORC_COMPRESSIONS)
        )


def _normalize_acid_params(td: TableDef, params: dict[str, str]) -> dict[str, str]:
    """Validate the 'transactional' pair (and ``orc.compress``); fill in ``transactional_properties=default``."""
    _check_orc_compress(td, params)
    value = params.get(TRANSACTIONAL)
    if value is not None and value not in ("true", "false"):
        raise CatalogError(
            f"'transactional' property of TBLPROPERTIES may only have value 'true': {td.qualified_name}"
        )
    if value != "true":
        return params
    props = params.get(TRANSACTIONAL_PROPERTIES, "default") or "default"
    if props not in ("default", "insert_only"):
        raise CatalogError(
            f"Invalid transactional properties specified for {td.qualified_name} with the error unknown value "
            f"{props} for transactional_properties"
        )
    return {**params, TRANSACTIONAL_PROPERTIES: props}


def _is_insert_only(params: dict[str, str]) -> bool:
    return params.get(TRANSACTIONAL) == "true" and params.get(TRANSACTIONAL_PROPERTIES) == "insert_only"


def normalize_columns(cols: Iterable[Column]) -> tuple[Column, ...]:
    return tuple(Column(c.name.strip().lower(), c.type.strip().lower(), c.comment) for c in cols)


def check_new_columns(td: TableDef, existing: Iterable[str], new: Iterable[Column]) -> None:
    """Column names are unique across data and partition columns (Hive: 'Duplicate column name')."""
    seen = set(existing)
    for col in new:
        if not col.name or not col.type:
            raise CatalogError(f"Column name and type must not be empty in {td.qualified_name}")
        if col.name in seen:
            raise CatalogError(f"Duplicate column name: {col.name}")
        check_column_name(col.name)
        seen.add(col.name)


def check_column_name(name: str) -> None:
    """Hive 1.2+ refuses '.' and ':' in a column name (HIVE-10120), even backquoted.

    Why: a '.' reads as a struct field or table qualifier when the column is referenced, and a ':' splits the
    ``name:type`` pairs of the ``columns.types``/ORC struct strings; such a table could be created but not
    queried. Any other character (space, '-', '/') is allowed, as in Hive.
    """
    if "." in name or ":" in name:
        raise CatalogError(f"Invalid column name '{name}' in the table definition")


_OBJECT_NAME = re.compile(r"[A-Za-z0-9_]+")


def check_object_name(name: str, kind: str) -> None:
    """Hive's ``MetaStoreUtils.validateName``: database and table names are letters, digits and ``_``.

    The name becomes a directory under the warehouse, so this rule is also what keeps ``../x``, ``/abs``,
    ``.`` or ``a/b`` from placing (and later dropping) data outside it.
    """
    if not _OBJECT_NAME.fullmatch(name):
        raise CatalogError(f"{name!r} is not a valid {kind} name: use letters, digits and _ only")


def normalize_new_table(td: TableDef, *, now: int | None = None) -> TableDef:
    """The definition to store for CREATE TABLE, or CatalogError if Hive would refuse it."""
    db, name = td.db.strip().lower(), td.name.strip().lower()
    if not db or not name:
        raise CatalogError("Database and table names must not be empty")
    check_object_name(name, "table")
    storage_format = td.storage_format.lower()
    table_type = td.table_type.upper()
    td = dataclasses.replace(td, db=db, name=name)
    if storage_format not in STORAGE_FORMATS:
        raise CatalogError(f"Unsupported storage format {td.storage_format!r} for {td.qualified_name}")
    if table_type not in TABLE_TYPES:
        raise CatalogError(f"Unsupported table type {td.table_type!r} for {td.qualified_name}")
    columns = normalize_columns(td.columns)
    partition_keys = normalize_columns(td.partition_keys)
    if not columns:
        raise CatalogError(f"At least one column must be specified for the table {td.qualified_name}")
    check_new_columns(td, (), columns + partition_keys)
    bucket_cols = tuple(c.strip().lower() for c in td.bucket_cols)
    names = {c.name for c in columns}
    for col in bucket_cols:
        if col not in names:
            raise CatalogError(f"Bucket column {col} is not a column of {td.qualified_name}")
    num_buckets = td.num_buckets if bucket_cols else -1
    sort_cols = tuple((c.strip().lower(), int(o)) for c, o in td.sort_cols) if bucket_cols else ()
    for col, _order in sort_cols:
        if col not in names:
            raise CatalogError(f"Sort column {col} is not a column of {td.qualified_name}")
    if bucket_cols and num_buckets <= 0:
        raise CatalogError(f"Bucketed table {td.qualified_name} needs a positive number of buckets")
    params = _normalize_acid_params(td, normalize_params(td.params))
    if params.get(TRANSACTIONAL) == "true":
        _check_acid_allowed(td, storage_format, table_type, insert_only=_is_insert_only(params))
    create_time = td.create_time or int(now if now is not None else time.time())
    params.setdefault("bucketing_version", "2")
    params[DDL_TIME] = str(create_time)
    return dataclasses.replace(
        td,
        columns=columns,
        partition_keys=partition_keys,
        bucket_cols=bucket_cols,
        num_buckets=num_buckets,
        sort_cols=sort_cols,
        storage_format=storage_format,
        table_type=table_type,
        params=params,
        create_time=create_time,
    )


def merge_params(td: TableDef, changes: dict[str, str]) -> dict[str, str]:
    """ALTER TABLE SET TBLPROPERTIES: the new full parameter map, or CatalogError."""
    changes = normalize_params(changes)
    merged = {**td.params, **changes}
    _check_orc_compress(td, changes)
    if td.is_transactional:
        if merged.get(TRANSACTIONAL) != "true":
            raise CatalogError(
                f"TBLPROPERTIES with 'transactional'='true' cannot be unset: {td.qualified_name}"
            )
        old_props = td.params.get(TRANSACTIONAL_PROPERTIES)
        new_props = changes.get(TRANSACTIONAL_PROPERTIES, old_props)
        if td.is_insert_only and (new_props or "").lower() == "default":
            # Hive 4: an insert-only table becomes full ACID; its plain files are read as Hive reads "raw"
            # base/delta files (synthetic row ids), so only ORC qualifies (TransactionalValidationListener).
            _check_acid_allowed(td, td.storage_format, td.table_type)
            merged[TRANSACTIONAL_PROPERTIES] = "default"
            return merged
        if TRANSACTIONAL_PROPERTIES in changes and changes[TRANSACTIONAL_PROPERTIES] != old_props:
            raise CatalogError(
                "TBLPROPERTIES with 'transactional_properties' cannot be altered after the table is "
                f"created: {td.qualified_name}"
            )
        return merged
    merged = _normalize_acid_params(td, merged)
    if merged.get(TRANSACTIONAL) == "true":  # converting a plain table to full ACID
        _check_acid_allowed(td, td.storage_format, td.table_type)
    return merged


def check_unset(td: TableDef, keys: Iterable[str]) -> None:
    """ALTER TABLE UNSET TBLPROPERTIES must not drop the ACID markers of an ACID table."""
    if not td.is_transactional:
        return
    for key in keys:
        if key.lower() in _CASE_INSENSITIVE_KEYS:
            raise CatalogError(
                f"TBLPROPERTIES with '{key.lower()}'='{td.params.get(key.lower(), 'true')}' cannot be unset: "
                f"{td.qualified_name}"
            )
