"""Column and table constraints of CREATE TABLE, checked as Hive 3.1's ``BaseSemanticAnalyzer`` checks them.

Hive 3 keeps constraints in the metastore's ``KEY_CONSTRAINTS``. ``DEFAULT`` and ``NOT NULL`` are used by
every write (enabled by default); ``PRIMARY KEY``, ``UNIQUE`` and ``FOREIGN KEY`` are informational only and
must say ``DISABLE [NOVALIDATE]`` (Hive: "ENABLE/ENFORCED feature not supported yet"). A DEFAULT's type must
be the column's exactly (Hive types each literal: ``5`` int, ``5Y`` tinyint, ``1.5`` decimal(2,1), ..) and it
may only be a constant, a cast of one, NULL or ``current_date()``/``current_timestamp()``/``current_user()``.
Messages are Hive's (``ErrorMsg.INVALID_CSTR_SYNTAX`` and friends).
"""

from __future__ import annotations

import time
import zlib
from decimal import Decimal, InvalidOperation

from sqlglot import exp

from hiveacid_sql.errors import PlanError, UnsupportedStatementError
from hiveacid_sql.plan.target import check_columns_of
from hiveacid_sql.plan.types import hive_type_of
from hiveacid_sql.sql.tree import table_names, where_is
from hiveacid_sql.txn import Column, ConstraintDef

_SYNTAX = "Invalid Constraint syntax "
_FK_SYNTAX = "Invalid Foreign Key syntax "
#: the metastore's width of DEFAULT_VALUE and CONSTRAINT_NAME (Hive refuses longer ones)
_MAX_LENGTH = 255
#: Hive's suffix of a generated constraint name, by kind (ObjectStore.generateConstraintName; CHECK and DEFAULT
#: share ObjectStore.addConstraint, which names both ``dc``)
_SUFFIX = {"primary_key": "pk", "foreign_key": "fk", "unique": "uk", "not_null": "nn", "default": "dc", "check": "dc"}


def _generated_name(db: str, table: str, column: str | None, kind: str, counter: int) -> str:
    """A name as Hive 3.1's ObjectStore makes one for an unnamed constraint: ``<kind>_<hash>_<millis>_<n>``."""
    digest = zlib.crc32(f"[{db}, {table}, {column}, {_SUFFIX[kind]}]".encode()) & 0xFFFFFFF
    return f"{_SUFFIX[kind]}_{digest}_{int(time.time() * 1000)}_{counter}"


def _options(node: exp.Expr, kind: str) -> tuple[bool, bool, bool]:
    """(enable, validate, rely) from Hive's option words, with Hive's defaults and refusals."""
    foreign = kind == "foreign_key"
    enable, validate, rely = True, foreign, False
    for word in node.meta.get("hive_options") or []:
        if word in ("ENABLE", "ENFORCED"):
            enable, validate = True, foreign
        elif word in ("DISABLE", "NOT_ENFORCED"):
            enable, validate = False, False
        elif word == "VALIDATE":
            validate = True
        elif word == "NOVALIDATE":
            validate = False
        elif word in ("RELY", "NORELY"):
            rely = word == "RELY"
    where = where_is(node)
    if foreign:
        if enable:
            raise PlanError(
                f"{where}{_FK_SYNTAX}ENABLE feature not supported yet. Please use DISABLE instead."
            )
        if validate:
            raise PlanError(
                f"{where}{_FK_SYNTAX}VALIDATE feature not supported yet. Please use NOVALIDATE instead."
            )
        return enable, validate, rely
    if enable and kind not in ("not_null", "default", "check"):
        raise PlanError(
            f"{where}{_SYNTAX}ENABLE/ENFORCED feature not supported yet. Please use DISABLE/NOT ENFORCED instead."
        )
    if validate:
        raise PlanError(f"{where}{_SYNTAX}VALIDATE feature not supported yet. Please use NOVALIDATE instead.")
    return enable, validate, rely


def literal_type(node: exp.Expr) -> str | None:
    """Hive's type of a DEFAULT value (TypeCheckProcFactory's for literals), ``void`` for NULL; None when
    Hive does not allow it as a default (not a constant, a cast of one or current_date/timestamp/user)."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Null):
        return "void"
    if isinstance(node, exp.Boolean):
        return "boolean"
    if isinstance(node, exp.Neg):
        inner = literal_type(node.this)
        return inner if inner not in (None, "string", "boolean", "void") else None
    if isinstance(node, exp.Literal):
        if node.is_string:
            return "string"
        return _number_type(node.this)
    if isinstance(node, exp.Cast | exp.TryCast):
        return hive_type_of(node.to) if literal_type(node.this) is not None else None
    if isinstance(node, exp.CurrentDate):
        return "date"
    if isinstance(node, exp.CurrentTimestamp):
        return "timestamp"
    if isinstance(node, exp.CurrentUser):
        return "string"
    return None


def _number_type(text: str) -> str | None:
    """int, bigint (past int's range), decimal (past bigint's, or with a point: its own precision and
    scale) or double (with an exponent), as Hive types a number literal."""
    if "e" in text.lower():
        return "double"
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    if "." not in text:
        if -(2**31) <= value < 2**31:
            return "int"
        if -(2**63) <= value < 2**63:
            return "bigint"
    _sign, digits, exponent = value.as_tuple()
    scale = max(-int(exponent), 0)
    return f"decimal({max(len(digits), scale)},{scale})"


def _default_value(constraint: exp.ColumnConstraint, column: Column) -> str:
    """The DEFAULT's text as written, after Hive's checks (length, type equal to the column's, allowed)."""
    kind = constraint.args["kind"]
    value = kind.this
    text = constraint.meta.get("default_text") or value.sql(dialect="hive")
    where = where_is(constraint)
    if len(text) > _MAX_LENGTH:
        raise PlanError(
            f"{where}{_SYNTAX}Invalid Default value:  {text} .Maximum character length allowed is {_MAX_LENGTH} ."
        )
    typed = literal_type(value)
    if typed is None:
        raise PlanError(
            f"{where}{_SYNTAX}Invalid Default value: {text}. DEFAULT only allows constant or function expressions"
        )
    if typed not in (column.type, "void"):
        raise PlanError(
            f"{where}{_SYNTAX}Invalid type: {typed} for default value: {text}. Please make sure that the type is "
            f"compatible with column type: {column.type}"
        )
    return text


def _check_text(node: exp.CheckColumnConstraint, known: set[str], qualified: str) -> str:
    """A CHECK's expression as stored (``DEFAULT_VALUE``): only the table's columns, no subquery, aggregate
    or window (Hive's "Invalid CHECK constraint expression")."""
    expr = node.this
    text = expr.sql(dialect="hiveacid")
    where = where_is(node)
    if len(text) > _MAX_LENGTH:
        raise PlanError(f"{where}{_SYNTAX}Check constraint: {text} exceeded maximum allowed length: {_MAX_LENGTH}")
    if expr.find(exp.Select, exp.Subquery, exp.AggFunc, exp.Window) is not None:
        raise PlanError(f"{where}{_SYNTAX}Invalid CHECK constraint expression: {text}")
    for col in check_columns_of(text):
        if col not in known:
            raise PlanError(f"{where}Invalid column reference '{col}' in a constraint of {qualified}")
    return text


def table_constraints(
    schema: exp.Schema,
    db: str,
    name: str,
    columns: tuple[Column, ...],
    partition_keys: tuple[Column, ...],
    *,
    external: bool,
    current_db: str,
) -> tuple[ConstraintDef, ...]:
    """The constraints a CREATE TABLE's column list declares, checked as Hive does, named (Hive's generated
    names for unnamed ones). CHECK constraints are enabled by default and enforced by every write."""
    known = {c.name: c for c in (*columns, *partition_keys)}
    out: list[ConstraintDef] = []
    counter = 0

    def name_of(given: exp.Expr | None, kind: str, column: str | None) -> str:
        nonlocal counter
        if given is not None and given.name:
            text = given.name.lower()
            if len(text) > _MAX_LENGTH:
                raise PlanError(
                    f"{_SYNTAX}Constraint name: {text} exceeded maximum allowed length: {_MAX_LENGTH}"
                )
            return text
        counter += 1
        return _generated_name(db, name, column, kind, counter - 1)

    def check_columns(node: exp.Expr, names: list[str]) -> tuple[str, ...]:
        for col in names:
            if col not in known:
                raise PlanError(
                    f"{where_is(node)}Invalid column reference '{col}' in a constraint of {db}.{name}"
                )
        return tuple(names)

    for item in schema.expressions:
        if isinstance(item, exp.ColumnDef):
            column = known[item.name.lower()]
            for constraint in item.args.get("constraints") or []:
                kind_node = constraint.args.get("kind")
                given = constraint.args.get("this")
                kind = {
                    exp.DefaultColumnConstraint: "default",
                    exp.NotNullColumnConstraint: "not_null",
                    exp.PrimaryKeyColumnConstraint: "primary_key",
                    exp.UniqueColumnConstraint: "unique",
                }.get(type(kind_node))
                if isinstance(kind_node, exp.CommentColumnConstraint):
                    continue
                if isinstance(kind_node, exp.CheckColumnConstraint):
                    enable, validate, rely = _options(constraint, "check")
                    text = _check_text(kind_node, set(known), f"{db}.{name}")
                    out.append(
                        ConstraintDef(
                            name_of(given, "check", column.name), "check", (column.name,), enable, validate, rely, text
                        )
                    )
                    continue
                if kind is None:
                    raise UnsupportedStatementError(
                        f"{where_is(constraint)}Column constraint {constraint.sql(dialect='hive')} is not supported"
                    )
                enable, validate, rely = _options(constraint, kind)
                default = _default_value(constraint, column) if kind == "default" else None
                out.append(
                    ConstraintDef(
                        name_of(given, kind, column.name),
                        kind,
                        (column.name,),
                        enable,
                        validate,
                        rely,
                        default,
                    )
                )
            continue
        given = item.args.get("this") if isinstance(item, exp.Constraint) else None
        parts = item.expressions if isinstance(item, exp.Constraint) else [item]
        for part in parts:
            if isinstance(part, exp.PrimaryKey):
                kind, names = "primary_key", [e.name.lower() for e in part.expressions]
            elif isinstance(part, exp.UniqueColumnConstraint):
                schema_node = part.this
                kind, names = (
                    "unique",
                    [e.name.lower() for e in (schema_node.expressions if schema_node else [])],
                )
            elif isinstance(part, exp.ForeignKey):
                kind, names = "foreign_key", [e.name.lower() for e in part.expressions]
            elif isinstance(part, exp.CheckColumnConstraint):
                text = _check_text(part, set(known), f"{db}.{name}")
                enable, validate, rely = _options(item if item.meta.get("hive_options") else part, "check")
                # a table-level CHECK names no column, as Hive 3.1 records it (ConstraintInfo's column null:
                # KEY_CONSTRAINTS' PARENT_CD_ID NULL, PARENT_INTEGER_IDX -1)
                out.append(ConstraintDef(name_of(given, "check", None), "check", (), enable, validate, rely, text))
                continue
            else:
                raise UnsupportedStatementError(
                    f"{where_is(item)}Constraint {item.sql(dialect='hive')} is not supported"
                )
            cols = check_columns(part, names)
            enable, validate, rely = _options(part, kind)
            ref_db = ref_table = None
            ref_cols: tuple[str, ...] = ()
            if kind == "foreign_key":
                reference = part.args["reference"].this
                ref_db, ref_table = table_names(reference.this, current_db)
                ref_cols = tuple(e.name.lower() for e in reference.expressions)
                if len(ref_cols) != len(cols):
                    raise PlanError(
                        f"{where_is(part)}{_FK_SYNTAX} The number of foreign key columns should be same as number "
                        "of parent key columns "
                    )
            out.append(
                ConstraintDef(
                    name_of(given, kind, cols[0]),
                    kind,
                    cols,
                    enable,
                    validate,
                    rely,
                    ref_db=ref_db,
                    ref_table=ref_table,
                    ref_columns=ref_cols,
                )
            )
    if sum(1 for c in out if c.kind == "primary_key") > 1:
        raise PlanError(
            "Invalid Constraint: Cannot exist more than one primary key definition for the same table"
        )
    if external and any(
        c.kind == "default" or (c.kind in ("not_null", "check") and (c.enable or c.validate)) for c in out
    ):
        raise PlanError(f"{_SYNTAX}Constraints are disallowed with External tables. Only RELY is allowed.")
    return tuple(out)


def constraint_clauses(constraints: tuple[ConstraintDef, ...], column: str) -> str:
    """The column constraints of ``column`` as SHOW CREATE TABLE writes them (`` DEFAULT x``, `` NOT NULL``,
    `` CHECK (e)``)."""
    out = ""
    for c in constraints:
        if c.columns != (column,) or c.kind not in ("default", "not_null", "check"):
            continue
        body = {"default": f"DEFAULT {c.default_value}", "not_null": "NOT NULL", "check": f"CHECK ({c.default_value})"}[c.kind]
        out += f" CONSTRAINT `{c.name}` {body}{'' if c.enable else ' DISABLE'}{' RELY' if c.rely else ''}"
    return out


def key_clauses(constraints: tuple[ConstraintDef, ...]) -> list[str]:
    """PRIMARY KEY / UNIQUE / FOREIGN KEY and table-level CHECK clauses of SHOW CREATE TABLE's column list."""
    out = []
    for c in constraints:
        cols = ", ".join(f"`{x}`" for x in c.columns)
        rely = " RELY" if c.rely else ""
        if c.kind == "check" and not c.columns:
            out.append(f"  CONSTRAINT `{c.name}` CHECK ({c.default_value}){'' if c.enable else ' DISABLE'}{rely}")
        elif c.kind == "primary_key":
            out.append(f"  CONSTRAINT `{c.name}` PRIMARY KEY ({cols}) DISABLE NOVALIDATE{rely}")
        elif c.kind == "unique":
            out.append(f"  CONSTRAINT `{c.name}` UNIQUE ({cols}) DISABLE NOVALIDATE{rely}")
        elif c.kind == "foreign_key":
            refs = ", ".join(f"`{x}`" for x in c.ref_columns)
            out.append(
                f"  CONSTRAINT `{c.name}` FOREIGN KEY ({cols}) REFERENCES `{c.ref_db}`.`{c.ref_table}`({refs}) "
                f"DISABLE NOVALIDATE{rely}"
            )
    return out
