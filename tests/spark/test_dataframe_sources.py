"""DataFrames as sources of SQL statements: the Spark session's temporary views and ``{name}`` arguments
(PySpark's ``spark.sql(text, **kwargs)`` convention), each compared with the same statement reading a
warehouse table holding the same rows: same DmlResult counts, same directories, same table contents."""

from __future__ import annotations

import pytest

from hiveacid_sql.errors import PlanError
from tests.support.acid_files import listing

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
ROWS = [(2, "Tom", 7000), (4, "Mary", 9000)]
MERGE = """MERGE INTO employee AS a USING {source} AS b ON a.id = b.id
WHEN MATCHED THEN UPDATE SET salary = b.salary
WHEN NOT MATCHED THEN INSERT VALUES (b.id, b.name, b.salary)"""


def _employee(acid) -> None:
    acid.sql(f"CREATE TABLE employee (id int, name string, salary int) {ACID}")
    acid.sql("INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000)")


def _rows(acid, query: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(query).collect()]


def _counts(result) -> tuple:
    return (
        result.statement, result.num_inserted_rows, result.num_updated_rows, result.num_deleted_rows,
        result.num_source_rows, result.num_target_rows_matched,
        [(c.clause, c.action, c.statement_id, c.num_rows) for c in result.clauses], sorted(result.directories),
    )


@pytest.fixture()
def updates_df(spark):
    return spark.createDataFrame(ROWS, "id int, name string, salary int")


def _merge_from_table(acid) -> tuple:
    acid.sql("CREATE TABLE employee_update (id int, name string, salary int)")
    acid.sql("INSERT INTO employee_update VALUES (2, 'Tom', 7000), (4, 'Mary', 9000)")
    return _counts(acid.sql(MERGE.format(source="employee_update")))


def test_merge_from_a_temp_view_is_the_merge_from_a_table(spark, acid, warehouse, tmp_path, updates_df):
    import hiveacid_sql

    _employee(acid)
    updates_df.createOrReplaceTempView("src")
    try:
        got = _counts(acid.sql(MERGE.format(source="src")))
    finally:
        spark.catalog.dropTempView("src")
    with hiveacid_sql.connect(spark=spark, warehouse=tmp_path / "by_table") as other:
        _employee(other)
        expected = _merge_from_table(other)
        assert _rows(acid, "SELECT * FROM employee ORDER BY id") == _rows(other, "SELECT * FROM employee ORDER BY id")
    assert got == expected
    assert got[1:3] == (1, 1)
    assert listing(warehouse / "employee") == listing(tmp_path / "by_table" / "employee")


def test_merge_insert_select_and_query_take_a_dataframe_argument(acid, updates_df):
    _employee(acid)
    result = acid.sql(MERGE.format(source="{src}"), src=updates_df)
    assert (result.num_updated_rows, result.num_inserted_rows) == (1, 1)
    inserted = acid.sql("INSERT INTO employee SELECT id + 10, name, salary FROM {src} WHERE salary > {floor}",
                        src=updates_df, floor=8000)
    assert inserted.num_inserted_rows == 1
    # a str argument is a SQL string literal, as in spark.sql
    rows = acid.sql("SELECT e.id, s.name FROM employee e JOIN {src} s ON e.id = s.id WHERE s.name = {who}",
                    src=updates_df, who="Mary").collect()
    assert [tuple(r) for r in rows] == [(4, "Mary")]
    assert _rows(acid, "SELECT id, salary FROM employee ORDER BY id") == [
        (1, 5000), (2, 7000), (3, 6000), (4, 9000), (14, 9000)
    ]


def test_the_argument_views_are_gone_after_the_call(spark, acid, updates_df):
    _employee(acid)
    before = {t.name for t in spark.catalog.listTables() if t.isTemporary}
    acid.sql("INSERT INTO employee SELECT * FROM {src}", src=updates_df)
    assert {t.name for t in spark.catalog.listTables() if t.isTemporary} == before


def test_without_arguments_braces_are_left_alone(acid):
    _employee(acid)
    assert _rows(acid, "SELECT '{x}' AS s") == [("{x}",)]
    # a statement over tables passes their snapshot frames to spark.sql as {name} fields: its own braces stay text
    assert _rows(acid, "SELECT '{x}', '}{', id FROM employee WHERE id = 1") == [("{x}", "}{", 1)]


def test_a_temp_view_comes_before_a_table_of_the_same_name_and_a_qualified_name_is_the_table(spark, acid, updates_df):
    """Spark's order for an unqualified name: the session's temporary view first, then the current database."""
    _employee(acid)
    acid.sql("CREATE TABLE src (id int, name string, salary int)")
    acid.sql("INSERT INTO src VALUES (9, 'Table', 1)")
    updates_df.createOrReplaceTempView("src")
    try:
        assert _rows(acid, "SELECT id FROM src ORDER BY id") == [(2,), (4,)]
        assert _rows(acid, "SELECT id FROM default.src") == [(9,)]
        # a statement's target is always the warehouse table
        acid.sql("INSERT INTO src SELECT id, name, salary FROM src")
        assert _rows(acid, "SELECT id FROM default.src ORDER BY id") == [(2,), (4,), (9,)]
        result = acid.sql("DELETE FROM employee WHERE id IN (SELECT id FROM src)")
        assert result.num_deleted_rows == 1
    finally:
        spark.catalog.dropTempView("src")
    assert _rows(acid, "SELECT id FROM src ORDER BY id") == [(2,), (4,), (9,)]


def test_a_temp_view_cannot_be_written(spark, acid, updates_df):
    updates_df.createOrReplaceTempView("only_a_view")
    try:
        with pytest.raises(PlanError, match=r"^line 1, col 13: 'only_a_view' is a temporary view of the Spark session"):
            acid.sql("INSERT INTO only_a_view VALUES (1, 'x', 1)")
    finally:
        spark.catalog.dropTempView("only_a_view")
    with pytest.raises(PlanError, match="Table not found 'default.only_a_view'"):
        acid.sql("SELECT * FROM only_a_view")


def test_dry_run_reads_a_dataframe_argument(acid, updates_df):
    _employee(acid)
    rows = acid.sql(MERGE.format(source="{src}"), src=updates_df, dry_run=True).collect()
    assert sorted((r["action"], r["new_id"]) for r in rows) == [("insert", 4), ("update", 2)]
    assert _rows(acid, "SELECT count(*) FROM employee") == [(3,)]
