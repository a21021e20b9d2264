"""Hive type strings -> typed tree -> canonical Hive / ORC strings, and the exact ACID event schema."""

from __future__ import annotations

import pyorc
import pytest

from hiveacid_sql.acid.hive_types import (
    ACID_COLUMN_NAMES,
    HiveType,
    acid_event_schema,
    orc_type_string,
    parse_hive_type,
)
from hiveacid_sql.errors import AcidFormatError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("int", "int"),
        ("INTEGER", "int"),
        ("TinyInt", "tinyint"),
        ("smallint", "smallint"),
        ("BIGINT", "bigint"),
        ("float", "float"),
        ("double", "double"),
        ("double precision", "double"),
        ("decimal", "decimal(10,0)"),
        ("decimal(5)", "decimal(5,0)"),
        ("DECIMAL( 10 , 2 )", "decimal(10,2)"),
        ("dec(38,38)", "decimal(38,38)"),
        ("numeric(7,3)", "decimal(7,3)"),
        ("string", "string"),
        ("varchar(20)", "varchar(20)"),
        ("CHAR(3)", "char(3)"),
        ("boolean", "boolean"),
        ("date", "date"),
        ("timestamp", "timestamp"),
        ("binary", "binary"),
        ("array<int>", "array<int>"),
        (" ARRAY < STRUCT < a : INT , b : STRING > > ", "array<struct<a:int,b:string>>"),
        ("map<string,array<decimal(4,1)>>", "map<string,array<decimal(4,1)>>"),
        ("struct<x:map<int,struct<y:date>>,z:binary>", "struct<x:map<int,struct<y:date>>,z:binary>"),
        ("struct<`a b`:int,`c``d`:string>", "struct<`a b`:int,`c``d`:string>"),
    ],
)
def test_parse_and_canonical(text: str, canonical: str) -> None:
    t = parse_hive_type(text)
    assert t.to_string() == canonical
    assert str(t) == canonical
    # canonical form re-parses to the same tree
    assert parse_hive_type(canonical) == t


def test_tree_shape() -> None:
    t = parse_hive_type("map<string,struct<a:decimal(10,2),b:varchar(5)>>")
    assert t.name == "map"
    key, value = t.children
    assert key == HiveType("string")
    assert value.name == "struct"
    assert value.fields == (("a", HiveType("decimal", (10, 2))), ("b", HiveType("varchar", (5,))))
    assert value.fields[0][1].precision == 10 and value.fields[0][1].scale == 2
    assert value.fields[1][1].length == 5
    assert parse_hive_type("array<int>").children == (HiveType("int"),)


@pytest.mark.parametrize(
    "text",
    [
        "uniontype<int,string>",
        "interval",
        "foo",
        "array<int",
        "array<>",
        "map<int>",
        "map<array<int>,int>",
        "struct<>",
        "struct<a int>",
        "struct<a:int,A:int>",
        "varchar",
        "varchar(0)",
        "varchar(65536)",
        "char(256)",
        "decimal(39,0)",
        "decimal(5,6)",
        "int int",
        "int;",
        "",
    ],
)
def test_bad_types(text: str) -> None:
    with pytest.raises(AcidFormatError, match="unknown type"):
        parse_hive_type(text)


def test_orc_type_string_is_accepted_by_orc() -> None:
    for text in ["struct<`a b`:int,x:array<map<string,decimal(12,4)>>>", "char(10)", "varchar(3)"]:
        s = orc_type_string(parse_hive_type(text))
        td = pyorc.TypeDescription.from_string(s)
        assert td.kind is not None


def test_acid_event_schema_exact() -> None:
    columns = [
        ("ID", parse_hive_type("int")),
        ("Name", parse_hive_type("string")),
        ("salary", parse_hive_type("int")),
    ]
    assert acid_event_schema(columns) == (
        "struct<operation:int,originalTransaction:bigint,bucket:int,rowId:bigint,currentTransaction:bigint,"
        "row:struct<id:int,name:string,salary:int>>"
    )
    assert ACID_COLUMN_NAMES == (
        "operation",
        "originalTransaction",
        "bucket",
        "rowId",
        "currentTransaction",
        "row",
    )


def test_acid_event_schema_rejects_bad_columns() -> None:
    with pytest.raises(AcidFormatError, match="duplicate"):
        acid_event_schema([("a", HiveType("int")), ("A", HiveType("int"))])
    with pytest.raises(AcidFormatError):
        acid_event_schema([])
