"""The DataFrame API (``acid.table`` handles, ``create_table``, ``write``, the MERGE builder) against the SQL
statements it stands for: each call is run next to the hand-typed statement on a second warehouse with the
same data, and the DmlResults (counts, clauses, statement ids, directories), the files and the rows compared.
The docstring examples of the API run here too (doctest), each on a fresh ``employee`` table."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest
from pyspark.sql import functions as F

import hiveacid_sql
from hiveacid_sql.engine import merge_builder, table
from hiveacid_sql.errors import PlanError
from tests.support.acid_files import listing

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
UPDATES = [(2, "Tom", 7000), (4, "Mary", 9000)]


def _employee(acid) -> None:
    acid.sql(f"CREATE TABLE employee (id int, name string, salary int) {ACID}")
    acid.sql("INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000)")


def _rows(acid, query: str = "SELECT * FROM employee ORDER BY id") -> list[tuple]:
    return [tuple(r) for r in acid.sql(query).collect()]


def _story(result) -> tuple:
    """What must be equal between the API call and the SQL statement (not times or statement texts)."""
    d = result.to_dict()
    for key in ("execution_time_ms", "txn_id"):
        d.pop(key)
    return tuple(sorted((k, repr(v)) for k, v in d.items()))


@pytest.fixture()
def pair(spark, tmp_path: Path):
    """Two connections on two warehouses with the same employee table: (api, sql)."""
    with hiveacid_sql.connect(spark=spark, warehouse=tmp_path / "api") as api, \
            hiveacid_sql.connect(spark=spark, warehouse=tmp_path / "sql") as sql:
        _employee(api)
        _employee(sql)
        yield api, sql


@pytest.fixture()
def updates(spark):
    return spark.createDataFrame(UPDATES, "id int, name string, salary int")


def _same(api, sql, tmp_path: Path, table_dir: str = "employee") -> None:
    assert _rows(api, f"SELECT * FROM {table_dir} ORDER BY 1, 2") == _rows(sql, f"SELECT * FROM {table_dir} ORDER BY 1, 2")
    assert listing(tmp_path / "api" / table_dir) == listing(tmp_path / "sql" / table_dir)


def test_insert_update_delete_are_their_statements(pair, updates, tmp_path):
    api, sql = pair
    t = api.table("employee")
    # insert: columns by name (the DataFrame's order does not matter)
    got = t.insert(updates.select("salary", "name", "id"))
    updates.createOrReplaceTempView("updates_view")
    try:
        expected = sql.sql("INSERT INTO employee SELECT id, name, salary FROM updates_view")
    finally:
        api.spark.catalog.dropTempView("updates_view")
    assert _story(got) == _story(expected)
    got = t.update(set={"salary": F.col("salary") + 1, "name": "upper(name)"}, where=F.col("id") >= 2)
    expected = sql.sql("UPDATE employee SET salary = salary + 1, name = upper(name) WHERE id >= 2")
    assert _story(got) == _story(expected) and got.num_updated_rows == 4
    got = t.update(set={"salary": 0, "name": None}, where="id = 4")  # Python values are literals
    expected = sql.sql("UPDATE employee SET salary = 0, name = NULL WHERE id = 4")
    assert _story(got) == _story(expected)
    got = t.delete(where=(F.col("name") == "TOM") | F.col("name").isNull())
    expected = sql.sql("DELETE FROM employee WHERE name = 'TOM' OR name IS NULL")
    assert _story(got) == _story(expected) and got.num_deleted_rows == 3
    _same(api, sql, tmp_path)
    assert [tuple(r) for r in t.to_df(version=1).orderBy("id").collect()] == [
        (1, "Jerry", 5000), (2, "Tom", 8000), (3, "Kate", 6000)
    ]
    assert [r["operation"] for r in t.history().collect()] == [r["operation"] for r in sql.table("employee").history().collect()]
    assert [Path(f).relative_to(tmp_path / "api" / "employee").as_posix() for f in t.files()] == [
        p for p in listing(tmp_path / "api" / "employee") if not p.endswith("_orc_acid_version")
    ]


def test_overwrite_and_static_partitions(spark, pair, tmp_path):
    api, sql = pair
    for acid in (api, sql):
        acid.sql(f"CREATE TABLE sales (id int, amount int) PARTITIONED BY (year int, region string) {ACID}")
    df = spark.createDataFrame([(1, 10, "eu"), (2, 20, "us")], "id int, amount int, region string")
    got = api.table("sales").insert(df, partition={"year": 2024})
    df.createOrReplaceTempView("sales_src")
    try:
        expected = sql.sql("INSERT INTO sales PARTITION (year = 2024, region) SELECT id, amount, region FROM sales_src")
        over = df.where("region = 'eu'")
        got_o = api.table("sales").insert(over, overwrite=True, partition={"year": 2024})
        expected_o = sql.sql("INSERT OVERWRITE TABLE sales PARTITION (year = 2024, region) "
                             "SELECT id, amount, region FROM sales_src WHERE region = 'eu'")
    finally:
        spark.catalog.dropTempView("sales_src")
    assert _story(got) == _story(expected)
    assert _story(got_o) == _story(expected_o)
    _same(api, sql, tmp_path, "sales")


def test_merge_builder_is_the_sql_merge(pair, updates, tmp_path):
    api, sql = pair
    builder = (
        api.table("employee").merge(updates, on="t.id = s.id")
        .when_matched_delete(condition=F.col("s.salary") > 8000)
        .when_matched_update(set={"salary": F.col("s.salary")}, condition="t.salary <> s.salary")
        .when_not_matched_insert(values={"id": "s.id", "name": F.upper("s.name")}, condition=F.col("s.id") > 3)
        .when_not_matched_by_source_update(set={"salary": F.col("t.salary") + 1}, condition="t.id = 1")
        .when_not_matched_by_source_delete()
    )
    text = builder.sql()
    assert text.startswith("MERGE INTO default.employee AS t USING {src} AS s ON t.id = s.id WHEN MATCHED AND")
    dry = sorted((r["clause"], r["action"]) for r in builder.dry_run().collect())
    got = builder.execute()
    expected = sql.sql(
        """MERGE INTO employee AS t USING {src} AS s ON t.id = s.id
        WHEN MATCHED AND s.salary > 8000 THEN DELETE
        WHEN MATCHED AND t.salary <> s.salary THEN UPDATE SET salary = s.salary
        WHEN NOT MATCHED AND s.id > 3 THEN INSERT (id, name) VALUES (s.id, upper(s.name))
        WHEN NOT MATCHED BY SOURCE AND t.id = 1 THEN UPDATE SET salary = t.salary + 1
        WHEN NOT MATCHED BY SOURCE THEN DELETE""", src=updates)
    assert _story(got) == _story(expected)
    assert [(c.clause, c.action, c.statement_id, c.num_rows) for c in got.clauses] == [
        (1, "DELETE", 1, 0), (2, "UPDATE", 2, 1), (3, "INSERT", 0, 1), (4, "UPDATE", 3, 1), (5, "DELETE", 4, 1)
    ]
    assert dry == [(2, "update"), (3, "insert"), (4, "update"), (5, "delete")]
    _same(api, sql, tmp_path)
    assert _rows(api) == [(1, "Jerry", 5001), (2, "Tom", 7000), (4, "MARY", None)]


def test_merge_all_columns(pair, updates, tmp_path):
    api, sql = pair
    got = api.table("employee").merge(updates, on="t.id = s.id").when_matched_update_all().when_not_matched_insert_all().execute()
    expected = sql.sql("MERGE INTO employee t USING {src} s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
                       "WHEN NOT MATCHED THEN INSERT *", src=updates)
    assert _story(got) == _story(expected)
    _same(api, sql, tmp_path)


def test_create_table_and_write(spark, pair, tmp_path):
    api, sql = pair
    df = spark.createDataFrame([(1, "a", "eu"), (2, "b", "us")], "id bigint, name string, region string")
    result = api.write(df, "people", partitioned_by=["region"], clustered_by=(["id"], 2))
    sql.sql(f"CREATE TABLE people (id bigint, name string) PARTITIONED BY (region string) "
            f"CLUSTERED BY (id) INTO 2 BUCKETS {ACID}")
    df.createOrReplaceTempView("people_src")
    try:
        expected = sql.sql("INSERT INTO people SELECT id, name, region FROM people_src")
    finally:
        spark.catalog.dropTempView("people_src")
    assert _story(result) == _story(expected)
    def ddl(acid) -> str:
        text = _rows(acid, "SHOW CREATE TABLE people")[0][0]
        return re.sub(r"'transient_lastDdlTime'='\d+'", "", text.replace(str(tmp_path), "")).replace("/sql/", "/api/")

    assert ddl(api) == ddl(sql)
    _same(api, sql, tmp_path, "people")
    assert api.write(df, "people", mode="ignore") is None
    with pytest.raises(PlanError, match="^Table default.people already exists$"):
        api.write(df, "people", mode="error")
    over = api.write(df.where("id = 1"), "people", mode="overwrite")
    assert over.statement == "INSERT OVERWRITE" and _rows(api, "SELECT id FROM people ORDER BY id") == [(1,), (2,)]
    made = api.create_table("db_less", schema="id int, d decimal(10,2), ts timestamp, tags array<string>",
                            properties={"orc.compress": "SNAPPY"})
    assert [(c.name, c.type) for c in made.definition.columns] == [
        ("id", "int"), ("d", "decimal(10,2)"), ("ts", "timestamp"), ("tags", "array<string>")
    ]
    assert made.definition.params["orc.compress"] == "SNAPPY" and made.definition.is_transactional


def test_api_mistakes_are_one_line_errors(spark, pair, updates):
    api, _sql = pair
    t = api.table("employee")
    with pytest.raises(PlanError, match="^Table not found 'default.nosuch'$"):
        api.table("nosuch")
    with pytest.raises(PlanError, match=r"^The DataFrame has no column salary .*table default.employee: id, name, salary"):
        t.insert(updates.drop("salary"))
    with pytest.raises(PlanError, match=r"^The DataFrame has columns the table lacks: extra"):
        t.insert(updates.withColumn("extra", F.lit(1)))
    with pytest.raises(PlanError, match=r"^\[UNRESOLVED_COLUMN\.WITH_SUGGESTION\] .*`nosuch`") as info:
        t.update(set={"salary": F.col("nosuch")})
    assert "\n" not in str(info.value)
    with pytest.raises(PlanError, match="^MERGE needs at least one WHEN clause"):
        t.merge(updates, on="t.id = s.id").execute()
    with pytest.raises(PlanError, match="^MERGE source and target need different aliases"):
        t.merge(updates, on="t.id = s.id", source_alias="t")
    with pytest.raises(PlanError, match="^'year' is not a partition column of default.employee$"):
        t.insert(updates, partition={"year": 1})
    assert _rows(api) == [(1, "Jerry", 5000), (2, "Tom", 8000), (3, "Kate", 6000)]


def _doctests() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder()
    tests = [t for module in (table, merge_builder) for t in finder.find(module) if t.examples]
    return sorted(tests, key=lambda t: t.name)


@pytest.mark.parametrize("test", _doctests(), ids=lambda t: t.name.removeprefix("hiveacid_sql.engine."))
def test_docstring_examples_run(spark, tmp_path, test):
    with hiveacid_sql.connect(spark=spark, warehouse=tmp_path / "w") as acid:
        _employee(acid)
        test.globs = {"acid": acid, "spark": spark, "F": F,
                      "updates": spark.createDataFrame(UPDATES, "id int, name string, salary int")}
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test, out=lambda text: pytest.fail(text))
        assert runner.summarize(verbose=False).attempted == len(test.examples) > 0


def test_every_public_method_has_an_example():
    names = {t.name.rsplit(".", 1)[-1] for t in _doctests()}
    methods = {n for cls in (table.AcidTable, table.TableApi, merge_builder.MergeBuilder) for n in vars(cls)
               if not n.startswith("_") and callable(vars(cls)[n])} - {"expression_sql", "set_sql"}
    assert methods <= names, methods - names
