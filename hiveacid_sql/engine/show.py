"""SHOW / DESCRIBE output as small Spark DataFrames with Hive's column names."""

from __future__ import annotations

import fnmatch
import time
from typing import TYPE_CHECKING

from hiveacid_sql.engine.constraints import constraint_clauses, key_clauses
from hiveacid_sql.txn import ConstraintDef, TableDef
from hiveacid_sql.txn.tabledef import STORAGE_CLASSES

if TYPE_CHECKING:

    from hiveacid_sql.engine.context import StatementContext
    from hiveacid_sql.exec.frames import LocalFrame


def rows_frame(ctx: StatementContext, rows: list[tuple], schema: str) -> LocalFrame:
    return ctx.rows(rows, schema)


def hive_like(pattern: str | None, names: list[str]) -> list[str]:
    """Hive's SHOW ... LIKE: '*' wildcard and '|' alternatives, case-insensitive."""
    if not pattern:
        return sorted(names)
    alternatives = [p.strip().lower() for p in pattern.split("|")]
    return sorted(n for n in names if any(fnmatch.fnmatchcase(n.lower(), a) for a in alternatives))


def show_databases(ctx: StatementContext, pattern: str | None) -> LocalFrame:
    names = hive_like(pattern, ctx.catalog.list_databases())
    return rows_frame(ctx, [(n,) for n in names], "database_name string")


def show_tables(ctx: StatementContext, db: str, pattern: str | None) -> LocalFrame:
    names = hive_like(pattern, ctx.catalog.list_tables(db))
    return rows_frame(ctx, [(n,) for n in names], "tab_name string")


def show_tblproperties(ctx: StatementContext, table: TableDef, key: str | None) -> LocalFrame:
    params = dict(table.params)
    if key is not None:
        value = params.get(key, f"Table {table.qualified_name} does not have property: {key}")
        return rows_frame(ctx, [(key, value)], "prpt_name string, prpt_value string")
    return rows_frame(ctx, sorted(params.items()), "prpt_name string, prpt_value string")


def describe(ctx: StatementContext, table: TableDef, style: str | None) -> LocalFrame:
    """DESCRIBE [EXTENDED|FORMATTED]: columns, then (extended) the table's details as Hive lists them."""
    rows: list[tuple[str, str, str]] = [(c.name, c.type, c.comment or "") for c in table.all_columns]
    if table.partition_keys:
        rows += [("", "", ""), ("# Partition Information", "", ""), ("# col_name", "data_type", "comment")]
        rows += [(c.name, c.type, c.comment or "") for c in table.partition_keys]
    if style:
        rows += [
            ("", "", ""),
            ("# Detailed Table Information", "", ""),
            ("Database:", table.db, ""),
            ("Table:", table.name, ""),
            ("Owner:", table.owner or "", ""),
            ("CreateTime:", time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime(table.create_time or 0)), ""),
            *([] if table.is_view else [("Location:", table.location, "")]),
            ("Table Type:", table.table_type, ""),
            ("Table Parameters:", "", ""),
        ]
        rows += [("", k, v) for k, v in sorted(table.params.items())]
        if table.comment:
            rows.append(("", "comment", table.comment))
        rows += [
            ("", "", ""),
            ("# Storage Information", "", ""),
            ("InputFormat:", _input_format(table), ""),
            ("OutputFormat:", _output_format(table), ""),
            ("SerDe Library:", _serde(table), ""),
            ("Num Buckets:", str(table.num_buckets), ""),
            ("Bucket Columns:", "[" + ", ".join(table.bucket_cols) + "]", ""),
            ("Sort Columns:", "[" + ", ".join(f"Order(col:{c}, order:{o})" for c, o in table.sort_cols) + "]", ""),
        ]
        if table.serde_params and not table.is_view:
            rows.append(("Storage Desc Params:", "", ""))
            rows += [("", k, v) for k, v in sorted(table.serde_params.items())]
        if table.is_view:  # Hive 3.1's DESCRIBE FORMATTED of a view
            rows += [
                ("", "", ""),
                ("# View Information", "", ""),
                ("View Original Text:", table.view_original_text or "", ""),
                ("View Expanded Text:", table.view_expanded_text or "", ""),
                ("View Rewrite Enabled:", "No", ""),
            ]
        if table.constraints:
            rows += constraint_rows(table)
    return rows_frame(ctx, rows, "col_name string, data_type string, comment string")


_SECTIONS = (
    ("primary_key", "# Primary Key"), ("foreign_key", "# Foreign Keys"), ("unique", "# Unique Constraints"),
    ("not_null", "# Not Null Constraints"), ("default", "# Default Constraints"), ("check", "# Check Constraints"),
)


def constraint_rows(table: TableDef) -> list[tuple[str, str, str]]:
    """DESCRIBE FORMATTED's ``# Constraints`` part as Hive 3.1's ``MetaDataFormatUtils.getConstraintsInformation``
    prints it (each tab-separated line one row): a section per kind, constraints by name."""
    rows: list[tuple[str, str, str]] = [("", "", ""), ("# Constraints", "", "")]
    for kind, title in _SECTIONS:
        group = sorted((c for c in table.constraints if c.kind == kind), key=lambda c: c.name)
        if not group:
            continue
        rows += [("", "", ""), (title, "", ""), ("Table:", table.qualified_name, "")]
        for c in group:
            rows += _constraint_lines(c)
    return rows


def _constraint_lines(c: ConstraintDef) -> list[tuple[str, str, str]]:
    if c.kind == "primary_key":
        return [("Constraint Name:", c.name, ""), ("Column Names:", c.columns[0], "\t".join(c.columns[1:]))]
    rows = [("Constraint Name:", c.name, "")]
    if c.kind == "not_null":
        return [*rows, ("Column Name:", c.columns[0], ""), ("", "", "")]
    if c.kind == "default":
        return [*rows, (f"Column Name:{c.columns[0]}", f"Default Value:{c.default_value}", ""), ("", "", "")]
    if c.kind == "check":  # Hive 3.1's getCheckConstraintsInformation
        column = c.columns[0] if c.columns else "null"  # a table-level CHECK has no column: Java prints null
        return [*rows, (f"Column Name:{column}", f"Check Value:{c.default_value}", ""), ("", "", "")]
    for i, col in enumerate(c.columns):
        if c.kind == "foreign_key":
            parent = f"Parent Column Name:{c.ref_db}.{c.ref_table}.{c.ref_columns[i]}"
            rows.append((parent, f"Column Name:{col}", f"Key Sequence:{i + 1}"))
        else:
            rows.append((f"Column Name:{col}", f"Key Sequence:{i + 1}", ""))
    return [*rows, ("", "", "")]


def _classes(table: TableDef) -> tuple[str, str, str]:
    """(input format, output format, serde) as the catalog records them for the table's storage format
    (text's classes for a format without an entry, as Hive's default)."""
    return STORAGE_CLASSES.get(table.storage_format, STORAGE_CLASSES["textfile"])


def _serde(table: TableDef) -> str:
    return "null" if table.is_view else _classes(table)[2]  # a view's serde has no library


def _input_format(table: TableDef) -> str:
    return _classes(table)[0]


def _output_format(table: TableDef) -> str:
    return _classes(table)[1]


def _quote(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def create_table_text(table: TableDef) -> str:
    """SHOW CREATE TABLE: Hive DDL that recreates the table (Hive's layout, STORED AS form); for a view
    Hive's ``CREATE VIEW `v` AS <expanded text>``."""
    if table.is_view:
        return f"CREATE VIEW `{table.db}`.`{table.name}` AS {table.view_expanded_text or ''}"
    external = "EXTERNAL " if table.table_type == "EXTERNAL_TABLE" else ""
    lines = [f"CREATE {external}TABLE `{table.db}`.`{table.name}`("]
    cols = []
    for c in table.columns:
        comment = f" COMMENT {_quote(c.comment)}" if c.comment else ""
        cols.append(f"  `{c.name}` {c.type}{constraint_clauses(table.constraints, c.name)}{comment}")
    cols += key_clauses(table.constraints)
    lines.append(",\n".join(cols) + ")")
    if table.comment:
        lines.append(f"COMMENT {_quote(table.comment)}")
    if table.partition_keys:
        keys = [f"  `{c.name}` {c.type}" + (f" COMMENT {_quote(c.comment)}" if c.comment else "") for c in table.partition_keys]
        lines.append("PARTITIONED BY (")
        lines.append(",\n".join(keys) + ")")
    if table.is_bucketed:
        lines.append("CLUSTERED BY (")
        lines.append(",\n".join(f"  {c}" for c in table.bucket_cols) + ")")
        if table.sort_cols:
            lines.append("SORTED BY (")
            lines.append(",\n".join(f"  {c} {'ASC' if o else 'DESC'}" for c, o in table.sort_cols) + ")")
        lines.append(f"INTO {table.num_buckets} BUCKETS")
    serde = {k: v for k, v in table.serde_params.items() if (k, v) != ("serialization.format", "1")}
    csv = table.storage_format in ("csv", "json")  # OpenCSVSerde, JsonSerDe: the serde named, over text files
    avro = table.storage_format == "avro"  # Hive 3.1 shows the serde and its container formats
    if serde or csv or avro:
        lines.append(f"ROW FORMAT SERDE\n  {_quote(_serde(table))}")
    if serde:
        serde_props = ", ".join(f"{_quote(k)}={_quote(v)}" for k, v in sorted(serde.items()))
        lines.append(f"WITH SERDEPROPERTIES (\n  {serde_props})")
    if avro:
        inp, out, _lib = STORAGE_CLASSES["avro"]
        lines.append(f"STORED AS INPUTFORMAT\n  {_quote(inp)}\nOUTPUTFORMAT\n  {_quote(out)}")
    else:
        lines.append(f"STORED AS {'TEXTFILE' if csv else table.storage_format.upper()}")
    lines.append("LOCATION")
    lines.append(f"  {_quote(table.location)}")
    props = [f"  {_quote(k)}={_quote(v)}" for k, v in sorted(table.params.items())]
    if props:
        lines.append("TBLPROPERTIES (")
        lines.append(",\n".join(props) + ")")
    return "\n".join(lines)


def show_create_table(ctx: StatementContext, table: TableDef) -> LocalFrame:
    return rows_frame(ctx, [(create_table_text(table),)], "createtab_stmt string")
