"""``ROW FORMAT DELIMITED`` / ``ROW FORMAT SERDE 'LazySimpleSerDe' WITH SERDEPROPERTIES`` of TEXTFILE tables.

Hive stores the clause as the serde's parameters (``SERDE_PARAMS``: ``field.delim`` and
``serialization.format`` for FIELDS TERMINATED BY, ``colelction.delim`` -- Hive's spelling --,
``mapkey.delim``, ``line.delim``, ``serialization.null.format``) and ``LazySimpleSerDe`` reads and writes by
them (``LazySerDeParameters``). A clause we do not honour is a one-line error, never dropped: before, an
EXTERNAL CSV table's every column read NULL and an empty ``''=''`` table property was left behind.
"""

from __future__ import annotations

import sqlite3

import pytest

from hiveacid_sql.errors import HiveAcidError


def _rows(acid, sql: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(sql).collect()]


def _lines(path) -> list[str]:
    return sorted(
        line for f in path.rglob("*") if f.is_file() and not f.name.startswith((".", "_"))
        for line in f.read_text().splitlines()
    )


def test_external_csv_table_reads_and_writes_by_its_delimiter(acid, tmp_path):
    data = tmp_path / "csv"
    data.mkdir()
    (data / "from_elsewhere.csv").write_text("1,abc,2.5\n2,,\n3,\\N,x\n")
    acid.sql(
        f"CREATE EXTERNAL TABLE csv (id int, s string, d double) ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' "
        f"LINES TERMINATED BY '\\n' STORED AS TEXTFILE LOCATION '{data}'"
    )
    assert _rows(acid, "SELECT * FROM csv ORDER BY id") == [(1, "abc", 2.5), (2, "", None), (3, None, None)]
    table = acid.store.catalog.get_table("default", "csv")
    assert table.serde_params == {"field.delim": ",", "serialization.format": ",", "line.delim": "\n"}
    assert "" not in table.params
    acid.sql("INSERT INTO csv VALUES (4, 'x y', NULL)")
    assert "4,x y,\\N" in _lines(data)
    assert ("", "field.delim", ",") in _rows(acid, "DESCRIBE FORMATTED csv")
    text = _rows(acid, "SHOW CREATE TABLE csv")[0][0]
    assert "ROW FORMAT SERDE\n  'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe'\nWITH SERDEPROPERTIES (" in text
    acid.sql(text.replace("`default`.`csv`", "`default`.`csv2`"))  # SHOW CREATE TABLE's text re-creates it
    assert _rows(acid, "SELECT count(*) FROM csv2") == [(4,)]
    assert acid.store.catalog.get_table("default", "csv2").serde_params["field.delim"] == ","


def test_null_defined_as_tab_delimiter_serde_properties_and_partitions(acid, warehouse):
    acid.sql(
        "CREATE TABLE t (id int, s string) PARTITIONED BY (p string) "
        "ROW FORMAT DELIMITED FIELDS TERMINATED BY '\\t' NULL DEFINED AS 'NULL' STORED AS TEXTFILE"
    )
    acid.sql("INSERT INTO t PARTITION (p='a') VALUES (1, NULL), (2, '')")
    assert _lines(warehouse / "t" / "p=a") == ["1\tNULL", "2\t"]
    assert _rows(acid, "SELECT id, s FROM t ORDER BY id") == [(1, None), (2, "")]
    with sqlite3.connect(warehouse / ".hiveacid" / "txn.db") as db:  # the partition's serde is the table's, as Hive copies it
        params = db.execute(
            'SELECT sp."PARAM_KEY", sp."PARAM_VALUE" FROM "PARTITIONS" pa JOIN "SDS" sd ON sd."SD_ID" = pa."SD_ID" '
            'JOIN "SERDE_PARAMS" sp ON sp."SERDE_ID" = sd."SERDE_ID" ORDER BY 1'
        ).fetchall()
    assert params == [("field.delim", "\t"), ("serialization.format", "\t"), ("serialization.null.format", "NULL")]
    acid.sql(
        "CREATE TABLE pipes (a int, b string) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe' "
        "WITH SERDEPROPERTIES ('field.delim'='|') STORED AS TEXTFILE"
    )
    acid.sql("INSERT INTO pipes VALUES (7, 'seven')")
    assert _lines(warehouse / "pipes") == ["7|seven"]
    assert _rows(acid, "SELECT * FROM pipes") == [(7, "seven")]


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("CREATE TABLE x (a int) ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' ESCAPED BY ',' STORED AS TEXTFILE",
         "ESCAPED BY ',' is not supported .*must not be a separator"),
        ("CREATE TABLE x (a int) ROW FORMAT DELIMITED LINES TERMINATED BY '|' STORED AS TEXTFILE",
         "LINES TERMINATED BY only supports newline"),
        ("CREATE TABLE x (a int) ROW FORMAT DELIMITED FIELDS TERMINATED BY '::' STORED AS TEXTFILE",
         "separates fields by one character"),
        ("CREATE TABLE x (a int) ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' STORED AS ORC",
         "ROW FORMAT is honoured for TEXTFILE tables only"),
        ("CREATE TABLE x (a int) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.RegexSerDe' STORED AS TEXTFILE",
         "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.RegexSerDe' is not supported"),
        ("CREATE TABLE x (a binary) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.JsonSerDe'",
         "JsonSerDe binary columns are not supported: column a of default.x"),
        ("CREATE TABLE x (a int) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde' STORED AS ORC",
         "OpenCSVSerde' needs STORED AS TEXTFILE"),
        ("CREATE TABLE x (a int) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe' "
         "WITH SERDEPROPERTIES ('quote.delim'='\"') STORED AS TEXTFILE", "SERDEPROPERTIES 'quote.delim' is not supported"),
    ],
)
def test_row_format_clauses_not_honoured_are_refused(acid, statement, message):
    with pytest.raises(HiveAcidError, match=message) as err:
        acid.sql(statement)
    assert "\n" not in str(err.value)
    assert _rows(acid, "SHOW TABLES") == []


def test_collection_and_map_key_separators_of_complex_columns(acid, warehouse):
    acid.sql(
        "CREATE TABLE cx (id int, tags array<string>, m map<string,int>) ROW FORMAT DELIMITED "
        "FIELDS TERMINATED BY ',' COLLECTION ITEMS TERMINATED BY '|' MAP KEYS TERMINATED BY ':' STORED AS TEXTFILE"
    )
    acid.sql("INSERT INTO cx VALUES (1, array('a', 'b'), map('k', 1))")
    assert _lines(warehouse / "cx") == ["1,a|b,k:1"]
    (warehouse / "cx" / "by_hive").write_text("2,x|y|z,p:1|q:2\n")
    assert _rows(acid, "SELECT id, tags, m FROM cx ORDER BY id") == [
        (1, ["a", "b"], {"k": 1}), (2, ["x", "y", "z"], {"p": 1, "q": 2})
    ]
    assert acid.store.catalog.get_table("default", "cx").serde_params["colelction.delim"] == "|"


def test_escaped_by_keeps_separators_escapes_and_line_breaks_inside_strings(acid, warehouse):
    """LazySimpleSerDe's escaping (``escape.delim``): separators of every level and the escape itself are
    written after the escape and split on only when unescaped; ``\\N`` as a string is not NULL; the escape
    and ``n`` read as a line break (written so only with ``serialization.escape.crlf``)."""
    from hiveacid_sql.reader import read_table

    acid.sql(
        "CREATE TABLE esc (id int, s string, tags array<string>, m map<string,string>) ROW FORMAT DELIMITED "
        "FIELDS TERMINATED BY ',' ESCAPED BY '\\\\' COLLECTION ITEMS TERMINATED BY '|' MAP KEYS TERMINATED BY ':' "
        "STORED AS TEXTFILE"
    )
    assert acid.store.catalog.get_table("default", "esc").serde_params["escape.delim"] == "\\"
    acid.sql(
        "INSERT INTO esc VALUES (1, 'a,b\\\\c', array('x|y', 'z'), map('k:1', 'v,2')), "
        "(2, '\\\\N', array(), NULL), (3, NULL, NULL, NULL)"
    )
    assert _lines(warehouse / "esc") == [
        "1,a\\,b\\\\c,x\\|y|z,k\\:1:v\\,2",
        "2,\\\\N,,\\N",
        "3,\\N,\\N,\\N",
    ]
    # written by another client: a lone escape at the end stays, the escape and n is a line break
    (warehouse / "esc" / "by_hive").write_text("4,end\\\n5,two\\nlines\n")
    expected = [
        (1, "a,b\\c", ["x|y", "z"], {"k:1": "v,2"}),
        (2, "\\N", [], None),
        (3, None, None, None),
        (4, "end\\", None, None),
        (5, "two\nlines", None, None),
    ]
    assert _rows(acid, "SELECT * FROM esc ORDER BY id") == expected
    acid.sql("CREATE TABLE esc_s (id int, s string) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe' "
             "WITH SERDEPROPERTIES ('field.delim'=',', 'escape.delim'='\\\\', 'serialization.escape.crlf'='true') "
             "STORED AS TEXTFILE")
    acid.sql("INSERT INTO esc_s SELECT id, s FROM esc")
    assert "5,two\\nlines" in _lines(warehouse / "esc_s")
    assert _rows(acid, "SELECT * FROM esc_s ORDER BY id") == [r[:2] for r in expected]
    got = sorted(tuple(r.values()) for r in read_table("default.esc_s", warehouse=warehouse).to_pylist())
    assert got == [r[:2] for r in expected]  # the reader without Spark agrees


def test_opencsv_serde_table_reads_hive_files_and_writes_as_hive(acid, warehouse, tmp_path):
    """OpenCSVSerde: quoted CSV by opencsv's rules, every value quoted when written, NULL written as nothing
    (reads back as ''), non-string columns cast from the text as Hive casts a string."""
    from hiveacid_sql.reader import read_table

    data = tmp_path / "quoted"
    data.mkdir()
    (data / "000000_0").write_text('1,"a, b","say ""hi"""\n"2",plain,\n3,"x\\"y"\nnot a number,z,w\n')
    acid.sql(
        "CREATE EXTERNAL TABLE q (id int, s string, t string) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde' "
        f"STORED AS TEXTFILE LOCATION '{data}'"
    )
    expected = [(None, "z", "w"), (1, "a, b", 'say "hi"'), (2, "plain", ""), (3, 'x"y', None)]
    assert sorted(_rows(acid, "SELECT * FROM q"), key=str) == sorted(expected, key=str)
    got = [tuple(r.values()) for r in read_table("default.q", warehouse=warehouse).to_pylist()]
    assert sorted(got, key=str) == sorted(expected, key=str)  # the reader without Spark agrees
    text = _rows(acid, "SHOW CREATE TABLE q")[0][0]
    assert "ROW FORMAT SERDE\n  'org.apache.hadoop.hive.serde2.OpenCSVSerde'\nSTORED AS TEXTFILE" in text
    acid.sql(
        "CREATE TABLE tsv (id int, s string) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde' "
        "WITH SERDEPROPERTIES ('separatorChar'='\\t', 'quoteChar'='\\'', 'escapeChar'='\\\\')"
    )
    acid.sql("INSERT INTO tsv VALUES (1, 'it\\'s'), (NULL, 'tab\there'), (3, NULL)")
    assert _lines(warehouse / "tsv") == sorted(["'1'\t'it\\'s'", "'3'\t", "\t'tab\there'"])
    assert sorted(_rows(acid, "SELECT * FROM tsv"), key=str) == sorted([(1, "it's"), (None, "tab\there"), (3, "")], key=str)
    assert acid.store.catalog.get_table("default", "tsv").storage_format == "csv"
    with pytest.raises(HiveAcidError, match="OpenCSVSerde holds primitive values only: column a of default.bad is array<int>"):
        acid.sql("CREATE TABLE bad (a array<int>) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'")
    with pytest.raises(HiveAcidError, match="SERDEPROPERTIES 'separator' is not supported for OpenCSVSerde"):
        acid.sql("CREATE TABLE bad (a int) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde' "
                 "WITH SERDEPROPERTIES ('separator'=';')")


def test_json_serde_table_reads_keys_without_case_and_writes_every_column(acid, warehouse, tmp_path):
    from hiveacid_sql.reader import read_table

    data = tmp_path / "json"
    data.mkdir()
    (data / "000000_0").write_text(
        '{"ID": 1, "name": "a", "price": "2.50", "ts": "2024-01-02 03:04:05", "tags": ["x", "y"], "m": {"k": 1}}\n'
        '{"id": 2, "unknown": true, "price": 3}\n'
    )
    acid.sql(
        "CREATE EXTERNAL TABLE j (id int, name string, price decimal(5,2), ts timestamp, tags array<string>, "
        "m map<string,int>) ROW FORMAT SERDE 'org.apache.hive.hcatalog.data.JsonSerDe' "
        f"STORED AS TEXTFILE LOCATION '{data}'"
    )
    assert acid.store.catalog.get_table("default", "j").storage_format == "json"
    rows = _rows(acid, "SELECT id, name, CAST(price AS string), CAST(ts AS string), tags, m FROM j ORDER BY id")
    assert rows == [
        (1, "a", "2.50", "2024-01-02 03:04:05", ["x", "y"], {"k": 1}),
        (2, None, "3.00", None, None, None),
    ]
    acid.sql("CREATE TABLE jw (id int, s string, d date, ts timestamp) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.JsonSerDe'")
    acid.sql("INSERT INTO jw VALUES (1, 'q\"uote', DATE '2024-01-02', TIMESTAMP '2024-01-02 03:04:05'), (2, NULL, NULL, NULL)")
    assert _lines(warehouse / "jw") == [
        '{"id":1,"s":"q\\"uote","d":"2024-01-02","ts":"2024-01-02 03:04:05"}',
        '{"id":2,"s":null,"d":null,"ts":null}',
    ]
    assert _rows(acid, "SELECT id, s, CAST(d AS string), CAST(ts AS string) FROM jw ORDER BY id") == [
        (1, 'q"uote', "2024-01-02", "2024-01-02 03:04:05"), (2, None, None, None)
    ]
    got = sorted((r["id"], r["s"]) for r in read_table("default.jw", warehouse=warehouse).to_pylist())
    assert got == [(1, 'q"uote'), (2, None)]  # the reader without Spark agrees
    text = _rows(acid, "SHOW CREATE TABLE jw")[0][0]
    assert "ROW FORMAT SERDE\n  'org.apache.hadoop.hive.serde2.JsonSerDe'\nSTORED AS TEXTFILE" in text
    # Hive 4's STORED AS JSONFILE, insert-only: Hive's file names in the delta, JSON lines inside
    acid.sql("CREATE TABLE jmm (id int, s string) STORED AS JSONFILE "
             "TBLPROPERTIES ('transactional'='true', 'transactional_properties'='insert_only')")
    acid.sql("INSERT INTO jmm SELECT id, s FROM jw")
    delta = warehouse / "jmm" / "delta_0000001_0000001_0000"
    assert sorted(p.name for p in delta.iterdir() if not p.name.startswith((".", "_"))) == ["000000_0"]
    assert sorted((delta / "000000_0").read_text().splitlines()) == ['{"id":1,"s":"q\\"uote"}', '{"id":2,"s":null}']
    assert _rows(acid, "SELECT * FROM jmm ORDER BY id") == [(1, 'q"uote'), (2, None)]


_AVRO_COLUMNS = (
    "i int COMMENT 'the id', s string, d decimal(5,2), dt date, ts timestamp, c char(3), v varchar(5), b binary, "
    "ti tinyint, si smallint, bi bigint, f float, db double, bo boolean, ar array<int>, m map<string,double>, "
    "st struct<x:int,y:string,z:timestamp>"
)


def _avro_files(path) -> list:
    import fastavro

    out = []
    for f in sorted(path.rglob("*")):
        if f.is_file() and not f.name.startswith((".", "_")):
            with f.open("rb") as stream:
                reader = fastavro.reader(stream)
                out.append((f, reader.metadata, reader.writer_schema, list(reader)))
    return out


def test_avro_table_round_trips_every_type_with_hives_schema(acid, warehouse):
    from hiveacid_sql.reader import read_table

    acid.sql(f"CREATE TABLE a ({_AVRO_COLUMNS}) COMMENT 'tc' STORED AS AVRO")
    acid.sql(
        "INSERT INTO a VALUES (1, 'x,\\ny', 1.5, DATE '0001-01-01', TIMESTAMP '2024-01-02 03:04:05.123', 'ab', 'vv', "
        "CAST('hi' AS binary), 1Y, -2S, 3000000000L, 1.25, -2.5, true, array(1, NULL), map('k', 1.0D, 'n', NULL), "
        "named_struct('x', 1, 'y', NULL, 'z', TIMESTAMP '1960-05-06 07:08:09.5'))"
    )
    acid.sql("INSERT INTO a (i, s) VALUES (2, '')")
    expected = [
        (1, "x,\ny", "1.50", "0001-01-01", "2024-01-02 03:04:05.123", "ab ", "vv", b"hi", 1, -2, 3000000000, 1.25, -2.5,
         True, [1, None], {"k": 1.0, "n": None}, 1, None, "1960-05-06 07:08:09.5"),
        (2, "", None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None),
    ]
    select = ("SELECT i, s, CAST(d AS string), CAST(dt AS string), CAST(ts AS string), c, v, b, ti, si, bi, f, db, bo, "
              "ar, m, st.x, st.y, CAST(st.z AS string) FROM a ORDER BY i")
    assert _rows(acid, select) == expected
    files = _avro_files(warehouse / "a")
    assert len(files) == 2 and all(meta["writer.time.zone"] == "UTC" for _f, meta, _s, _r in files)
    schema = files[0][2]
    assert (schema["type"], schema["name"].rsplit(".", 1)[-1], schema["doc"]) == ("record", "a", "tc")
    fields = {f["name"]: f for f in schema["fields"]}
    assert list(fields) == ["i", "s", "d", "dt", "ts", "c", "v", "b", "ti", "si", "bi", "f", "db", "bo", "ar", "m", "st"]
    assert fields["i"] == {"name": "i", "type": ["null", "int"], "doc": "the id", "default": None}
    assert fields["d"]["type"] == ["null", {"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 2}]
    assert fields["ts"]["type"] == ["null", {"type": "long", "logicalType": "timestamp-millis"}]
    assert fields["c"]["type"] == ["null", {"type": "string", "logicalType": "char", "maxLength": 3}]
    assert fields["st"]["type"][1]["name"].rsplit(".", 1)[-1] == "record_0"
    row = next(r for _f, _m, _s, rows in files for r in rows if r["i"] == 1)
    assert (row["c"], row["ti"], row["m"]) == ("ab", 1, {"k": 1.0, "n": None})  # a char is written unpadded, as Hive
    via_arrow = sorted(read_table("default.a", warehouse=warehouse).to_pylist(), key=lambda r: r["i"])
    assert [(r["i"], r["s"], r["c"], str(r["ts"]), r["m"]) for r in via_arrow] == [
        (1, "x,\ny", "ab ", "2024-01-02 03:04:05.123000", [("k", 1.0), ("n", None)]), (2, "", None, "None", None)
    ]
    text = _rows(acid, "SHOW CREATE TABLE a")[0][0]
    assert ("ROW FORMAT SERDE\n  'org.apache.hadoop.hive.serde2.avro.AvroSerDe'\nSTORED AS INPUTFORMAT\n"
            "  'org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat'\nOUTPUTFORMAT\n"
            "  'org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat'") in text
    acid.sql(text.replace("`default`.`a`", "`default`.`a2`").split("\nLOCATION")[0])  # Hive's text re-creates it
    assert acid.store.catalog.get_table("default", "a2").storage_format == "avro"
    acid.sql("INSERT OVERWRITE TABLE a SELECT i + 10, s, d, dt, ts, c, v, b, ti, si, bi, f, db, bo, ar, m, st FROM a")
    assert _rows(acid, "SELECT i FROM a ORDER BY i") == [(11,), (12,)]
    assert len(_avro_files(warehouse / "a")) >= 1


def test_avro_partitioned_table_reads_hive_files_and_writes_partitions(acid, warehouse, tmp_path):
    import datetime
    import decimal

    import fastavro

    from hiveacid_sql.reader import read_table

    data = tmp_path / "ext"
    (data / "p=a").mkdir(parents=True)
    hive_schema = {  # as Hive 3.1's TypeInfoToSchema writes it for (id int, amount decimal(6,2), ts timestamp)
        "type": "record", "name": "e", "namespace": "default", "fields": [
            {"name": "id", "type": ["null", "int"], "default": None},
            {"name": "amount", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 2}],
             "default": None},
            {"name": "ts", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}], "default": None},
        ]}
    with (data / "p=a" / "000000_0").open("wb") as f:  # written independently of the engine, Tokyo's wall clock
        fastavro.writer(f, fastavro.parse_schema(hive_schema), [
            {"id": 1, "amount": decimal.Decimal("12.50"), "ts": datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc)},
            {"id": 2, "amount": None, "ts": None},
        ], metadata={"writer.time.zone": "Asia/Tokyo"}, codec="snappy")  # Hive's usual avro.output.codec
    acid.sql(
        "CREATE EXTERNAL TABLE e (id int, amount decimal(6,2), ts timestamp) PARTITIONED BY (p string) "
        "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.avro.AvroSerDe' STORED AS INPUTFORMAT "
        "'org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat' OUTPUTFORMAT "
        f"'org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat' LOCATION '{data}'"
    )
    acid.sql("MSCK REPAIR TABLE e")
    select = "SELECT p, id, CAST(amount AS string), CAST(ts AS string) FROM e ORDER BY p, id"
    assert _rows(acid, select) == [("a", 1, "12.50", "2024-01-02 09:00:00"), ("a", 2, None, None)]
    hive_rows = read_table("default.e", warehouse=warehouse).to_pylist()
    assert sorted((r["id"], str(r["ts"])) for r in hive_rows) == [(1, "2024-01-02 09:00:00"), (2, "None")]
    acid.sql("INSERT INTO e PARTITION (p) VALUES (3, 1.25, TIMESTAMP '2024-05-06 07:08:09', 'b'), (4, NULL, NULL, 'a/c')")
    acid.sql("INSERT OVERWRITE TABLE e PARTITION (p='a') VALUES (5, 9.99, NULL)")
    assert _rows(acid, select) == [
        ("a", 5, "9.99", None), ("a/c", 4, None, None), ("b", 3, "1.25", "2024-05-06 07:08:09")
    ]
    assert sorted(p.name for p in data.iterdir()) == ["p=a", "p=a%2Fc", "p=b"]
    assert not (data / "p=a" / "000000_0").exists()
    got = sorted((r["p"], r["id"], r["amount"]) for r in read_table("default.e", warehouse=warehouse).to_pylist())
    assert got == [("a", 5, decimal.Decimal("9.99")), ("a/c", 4, None), ("b", 3, decimal.Decimal("1.25"))]
    # the schema of avro.schema.literal names the columns, as Hive's AvroSerDe takes them
    literal = '{"type":"record","name":"lit","fields":[{"name":"K","type":"string"},{"name":"n","type":["null","long"]}]}'
    acid.sql(f"CREATE TABLE lit STORED AS AVRO TBLPROPERTIES ('avro.schema.literal'='{literal}')")
    assert [(c.name, c.type) for c in acid.store.catalog.get_table("default", "lit").columns] == [
        ("k", "string"), ("n", "bigint")
    ]
    acid.sql("INSERT INTO lit VALUES ('x', 7)")
    (_f, _meta, schema, rows), = _avro_files(warehouse / "lit")
    assert (schema["name"], rows) == ("lit", [{"K": "x", "n": 7}])
    assert _rows(acid, "SELECT * FROM lit") == [("x", 7)]
    # bucketed: one file per bucket, Hive's names
    acid.sql("CREATE TABLE ab (id int, s string) CLUSTERED BY (id) INTO 2 BUCKETS STORED AS AVRO")
    acid.sql("INSERT INTO ab VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    assert sorted(f.name for f, *_ in _avro_files(warehouse / "ab")) == ["000000_0", "000001_0"]
    assert _rows(acid, "SELECT * FROM ab WHERE id = 2") == [(2, "b")]
    # insert-only: Hive's file names in the delta
    acid.sql("CREATE TABLE amm (id int, s string) STORED AS AVRO "
             "TBLPROPERTIES ('transactional'='true', 'transactional_properties'='insert_only')")
    acid.sql("INSERT INTO amm VALUES (1, 'a'), (2, NULL)")
    delta = warehouse / "amm" / "delta_0000001_0000001_0000"
    assert [f.name for f, *_ in _avro_files(delta)] == ["000000_0"]
    assert _rows(acid, "SELECT * FROM amm ORDER BY id") == [(1, "a"), (2, None)]


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("CREATE TABLE x (a map<int,string>) STORED AS AVRO", "maps with string keys only: column a of default.x"),
        ("CREATE TABLE x (a int) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.avro.AvroSerDe' STORED AS ORC",
         "AvroSerDe' needs STORED AS AVRO"),
        ("CREATE TABLE x (a int) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.avro.AvroSerDe' "
         "WITH SERDEPROPERTIES ('x'='1') STORED AS AVRO", "SERDEPROPERTIES 'x' is not supported for AvroSerDe"),
        ("CREATE TABLE x (a int) STORED AS INPUTFORMAT 'a.B' OUTPUTFORMAT 'c.D'",
         "STORED AS INPUTFORMAT 'a.B' OUTPUTFORMAT 'c.D' is not supported"),
        ("CREATE TABLE x STORED AS AVRO TBLPROPERTIES ('avro.schema.literal'='{\"type\":\"record\",\"name\":\"r\","
         "\"fields\":[{\"name\":\"u\",\"type\":[\"int\",\"string\"]}]}')", "Avro union .* is not supported"),
    ],
)
def test_avro_clauses_not_honoured_are_refused(acid, statement, message):
    with pytest.raises(HiveAcidError, match=message) as err:
        acid.sql(statement)
    assert "\n" not in str(err.value)
    assert _rows(acid, "SHOW TABLES") == []


def test_json_serde_timestamp_formats_read_as_hive_31_reads_them(acid, warehouse, tmp_path):
    from hiveacid_sql.reader import read_table

    data = tmp_path / "jts"
    data.mkdir()
    (data / "000000_0").write_text(
        '{"id": 1, "ts": "2024-01-02T03:04:05.123+0100"}\n'  # the first pattern, its offset moved to UTC
        '{"id": 2, "ts": 1420509274123}\n'  # millis
        '{"id": 3, "ts": "02/Jan/2024:03:04:05"}\n'  # the pattern with an escaped comma-free literal
        '{"id": 4, "ts": "2024-05-06 07:08:09"}\n'  # no format takes it: Hive's default text
        '{"id": 5, "ts": "junk"}\n'
    )
    formats = "yyyy-MM-dd'T'HH:mm:ss.SSSZ,millis,dd/MMM/yyyy:HH:mm:ss"
    acid.sql(
        "CREATE EXTERNAL TABLE jts (id int, ts timestamp) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.JsonSerDe' "
        f"WITH SERDEPROPERTIES ('timestamp.formats'=\"{formats}\") STORED AS TEXTFILE LOCATION '{data}'"
    )
    assert acid.store.catalog.get_table("default", "jts").serde_params == {"timestamp.formats": formats}
    expected = [
        (1, "2024-01-02 02:04:05.123"), (2, "2015-01-06 01:54:34.123"), (3, "2024-01-02 03:04:05"),
        (4, "2024-05-06 07:08:09"), (5, None),
    ]
    assert _rows(acid, "SELECT id, CAST(ts AS string) FROM jts ORDER BY id") == expected
    got = sorted((r["id"], r["ts"]) for r in read_table("default.jts", warehouse=warehouse).to_pylist())
    assert [(i, None if t is None else str(t).removesuffix("000")) for i, t in got] == [
        (1, "2024-01-02 02:04:05.123"), (2, "2015-01-06 01:54:34.123"), (3, "2024-01-02 03:04:05"),
        (4, "2024-05-06 07:08:09"), (5, None),
    ]
    text = _rows(acid, "SHOW CREATE TABLE jts")[0][0]
    assert "WITH SERDEPROPERTIES (\n  'timestamp.formats'=" in text
    for statement, message in [
        ("CREATE TABLE x (a int) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.JsonSerDe' "
         "WITH SERDEPROPERTIES ('ignore.malformed.json'='true')", "SERDEPROPERTIES 'ignore.malformed.json' is not supported"),
        ("CREATE TABLE x (a timestamp) ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.JsonSerDe' "
         "WITH SERDEPROPERTIES ('timestamp.formats'='yyyy zzz')", "pattern letter 'z' is not supported here"),
    ]:
        with pytest.raises(HiveAcidError, match=message) as err:
            acid.sql(statement)
        assert "\n" not in str(err.value)
    assert _rows(acid, "SHOW TABLES") == [("jts",)]
    # LazySimpleSerDe reads its timestamp fields by the same property (LazyTimestamp's TimestampParser)
    text = tmp_path / "tts"
    text.mkdir()
    (text / "000000_0").write_text("1,2024-01-02T03:04:05.123+0100\n2,1420509274123\n3,\\N\n4,junk\n")
    acid.sql(
        "CREATE EXTERNAL TABLE tts (id int, ts timestamp) ROW FORMAT SERDE "
        "'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe' WITH SERDEPROPERTIES ('field.delim'=',', "
        f"'timestamp.formats'=\"{formats}\") STORED AS TEXTFILE LOCATION '{text}'"
    )
    text_rows = [(1, "2024-01-02 02:04:05.123"), (2, "2015-01-06 01:54:34.123"), (3, None), (4, None)]
    assert _rows(acid, "SELECT id, CAST(ts AS string) FROM tts ORDER BY id") == text_rows
    got = sorted((r["id"], r["ts"]) for r in read_table("default.tts", warehouse=warehouse).to_pylist())
    assert [(i, None if t is None else str(t).removesuffix("000")) for i, t in got] == text_rows
