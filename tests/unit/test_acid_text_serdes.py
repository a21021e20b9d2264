"""Text serdes other than LazySimpleSerDe: OpenCSVSerde (opencsv 2.3 as Hive 3 builds it, quirks kept) and JsonSerDe rows."""

from __future__ import annotations

import pytest

from hiveacid_sql.acid.opencsv import CsvFormat, format_row, parse_line

TSV = CsvFormat.of({"separatorChar": "\t", "quoteChar": "'", "escapeChar": "\\"})


@pytest.mark.parametrize(
    ("line", "fields"),
    [
        ("a,b,c", ["a", "b", "c"]),
        ('"a,b","c""d"', ["a,b", 'c"d']),  # separator inside quotes; a doubled quote is one quote
        ('"a\\"b","c\\\\d"', ['a"b', "c\\d"]),  # the reader's escape is a backslash for the default escapeChar
        ("a\\b", ["ab"]),  # an escape before anything but a quote or an escape is dropped
        ('x,ab"c"d,e', ["x", 'ab"c"d', "e"]),  # a quote in the middle of a field is kept
        ('1,"abc', ["1"]),  # a field still in quotes at the end of the row is lost
        ("", [""]),
        ("a,", ["a", ""]),
        ('x,   "q",z', ["x", "q", "z"]),  # white space before an opening quote is dropped ..
        ('  "q",z', ["  q", "z"]),  # .. but not in the first three characters of the line (opencsv's i > 2)
    ],
)
def test_parse_line_as_opencsv(line: str, fields: list[str]) -> None:
    assert parse_line(line) == fields


def test_writer_quotes_every_value_and_writes_null_as_nothing() -> None:
    assert format_row(["a", None, 'q"x', "b\\s", ""]) == '"a",,"q""x","b\\s",""'
    # read back: NULL becomes '', a doubled quote one quote, and the backslash (not escaped by the default
    # writer, an escape to the default reader) is dropped: Hive's own round trip
    assert parse_line(format_row(["a", None, 'q"x', "b\\s"])) == ["a", "", 'q"x', "bs"]


def test_serde_properties_pick_separator_quote_and_escape() -> None:
    assert (TSV.separator, TSV.quote, TSV.escape) == ("\t", "'", "\\")
    line = format_row(["it's", "a\tb", "c\\d"], TSV)
    assert line == "'it\\'s'\t'a\tb'\t'c\\\\d'"
    assert parse_line(line, TSV) == ["it's", "a\tb", "c\\d"]
    assert CsvFormat.of({"separatorChar": "|x"}) == CsvFormat("|", '"', '"')  # the first character only


def test_a_metastore_table_of_the_serde_is_told_from_lazy_simple_text() -> None:
    from hiveacid_sql.txn.tabledef import storage_format_of

    text = "org.apache.hadoop.mapred.TextInputFormat"
    assert storage_format_of(text, "org.apache.hadoop.hive.serde2.OpenCSVSerde") == "csv"
    assert storage_format_of(text, "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe") == "textfile"


def test_json_rows_by_key_without_case_numbers_as_written() -> None:
    from hiveacid_sql.acid.jsonrow import JsonRowError, json_fields

    names, flat = ["id", "price", "ok", "tags", "s"], [False, False, False, True, False]
    line = '{"ID": 7, "price": 1.50, "ok": true, "tags": [1, 2], "extra": "x", "s": null}'
    assert json_fields(line, names, flat) == ["7", "1.50", "true", "[1, 2]", None]
    assert json_fields("   ", names, flat) == [None] * 5
    with pytest.raises(JsonRowError, match="not a JSON object"):
        json_fields("[1, 2]", names, flat)


def test_text_of_another_serde_is_never_taken_for_lazy_simple_text() -> None:
    from hiveacid_sql.txn.tabledef import storage_format_of

    text = "org.apache.hadoop.mapred.TextInputFormat"
    assert storage_format_of(text, "org.apache.hive.hcatalog.data.JsonSerDe") == "json"
    assert storage_format_of(text, "org.apache.hadoop.hive.serde2.RegexSerDe") == "textfile with regexserde"
    assert storage_format_of("org.apache.hadoop.mapred.SequenceFileInputFormat", "x") == "sequencefile"


@pytest.mark.parametrize("fmt", ["textfile with regexserde", "sequencefile", "rcfile"])
def test_a_table_in_a_format_we_cannot_read_is_refused_never_read_empty(fmt: str) -> None:
    """A table Hive made (shared metastore) in another format fails in one line before Spark is asked."""
    from hiveacid_sql.errors import HiveAcidError
    from hiveacid_sql.exec.plain import read_plain
    from hiveacid_sql.txn import Column, TableDef

    table = TableDef("default", "t", (Column("a", "int"),), "/nowhere/t", storage_format=fmt, params={})
    with pytest.raises(HiveAcidError, match=f"default.t is stored as {fmt}: reading it is not supported here"):
        read_plain(None, table)  # type: ignore[arg-type]  # refused before any Spark call


def test_avro_schema_is_the_one_hives_type_info_to_schema_derives() -> None:
    """Record named after the table (namespace the database), every field ``["null", T]`` defaulting to null,
    nested structs as records numbered inner first (``TypeInfoToSchema``'s counter), and back again
    (``SchemaToTypeInfo``)."""
    import json

    from hiveacid_sql.acid.avro import schema_columns, table_schema_json
    from hiveacid_sql.acid.hive_types import parse_hive_type

    cols = [("a", parse_hive_type("struct<b:struct<c:int>,d:varchar(4)>"), "doc a"), ("m", parse_hive_type("map<string,decimal(3,1)>"), None)]
    schema = json.loads(table_schema_json({}, "db.t", cols, "table doc"))
    assert (schema["name"], schema["namespace"], schema["doc"]) == ("t", "db", "table doc")
    outer = schema["fields"][0]["type"][1]
    assert (outer["name"], outer["fields"][0]["type"][1]["name"]) == ("record_1", "record_0")
    assert schema["fields"][0]["doc"] == "doc a" and schema["fields"][1]["default"] is None
    assert schema["fields"][1]["type"] == ["null", {"type": "map", "values": ["null", {
        "type": "bytes", "logicalType": "decimal", "precision": 3, "scale": 1}]}]
    assert schema_columns(json.dumps(schema), "db.t") == [
        ("a", "struct<b:struct<c:int>,d:varchar(4)>", "doc a"), ("m", "map<string,decimal(3,1)>", None)
    ]
    named = json.loads(table_schema_json({"avro.schema.name": "n", "avro.schema.namespace": "ns"}, "db.t", cols, None))
    assert (named["name"], named["namespace"]) == ("n", "ns")


def test_timestamp_formats_follow_hive_31s_timestamp_parser() -> None:
    """``timestamp.formats``: patterns split at unescaped commas, the first that takes the whole text wins
    (``millis`` among them in its place), missing fields from 1970-01-01 00:00, an offset moved to UTC."""
    from hiveacid_sql.acid.timestamp_formats import (
        TimestampFormatError,
        check_formats,
        parser_of,
        split_formats,
    )

    assert split_formats(r"d MMM\, yyyy,millis") == ["d MMM, yyyy", "millis"]
    parser = parser_of(r"yyyyMMddHHmmss,millis,d MMM\, yyyy h:mm a,HH:mm,yyyy-MM-dd'T'HH:mm:ssZZ")
    assert parser.normalize("20240102030405") == "2024-01-02 03:04:05.000000"  # before millis in the list
    assert parser.normalize("-1000.5") == "1969-12-31 23:59:59.000000"
    assert parser.normalize("3 Feb, 2024 1:05 PM") == "2024-02-03 13:05:00.000000"
    assert parser.normalize("07:08") == "1970-01-01 07:08:00.000000"
    assert parser.normalize("2024-01-02T03:04:05-02:30") == "2024-01-02 05:34:05.000000"
    assert parser.normalize("2024-13-45T00:00:00Z") == "2024-13-45T00:00:00Z"  # no valid date: left to the default
    with pytest.raises(TimestampFormatError, match="pattern letter 'w'"):
        check_formats("yyyy-ww")
