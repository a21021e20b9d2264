"""Dry runs: acid.sql(stmt, dry_run=True), run_statement(.., dry_run=True) and EXPLAIN ANALYZE <dml>.

Each test checks the exact rows (literal tables, or DuckDB running the same change on the same data) and
that nothing happened: same directory listing, no transaction left, no write id taken, no history row.
"""

from __future__ import annotations

import duckdb
import pytest

from hiveacid_sql.errors import ExecutionError, UnsupportedStatementError
from hiveacid_sql.sql.parse import parse
from tests.support.acid_files import listing

CREATE = (
    "CREATE TABLE employee (id int, name string, salary int) "
    "STORED AS ORC TBLPROPERTIES ('transactional' = 'true')"
)
INSERT = "INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000)"
MERGE = (
    "MERGE INTO employee AS a USING employee_update AS b ON a.id = b.id "
    "WHEN MATCHED THEN UPDATE SET salary = b.salary "
    "WHEN NOT MATCHED THEN INSERT VALUES (b.id, b.name, b.salary)"
)
B = 536870912  # bucket property of bucket 0


def rows(df) -> list[tuple]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def state(acid, warehouse, table: str = "employee") -> tuple:
    """Everything a dry run must leave alone."""
    snap = acid.store.snapshot([("default", table)])
    return (
        listing(warehouse / table),
        snap.txns.high_watermark,
        snap.tables[f"default.{table}"].to_string(),
        acid.store.list_txns(),
        len(acid.store.table_history("default", table)),
        [tuple(r) for r in acid.sql(f"SELECT row__id, * FROM {table} ORDER BY 2").collect()],
    )


@pytest.fixture()
def employee(acid):
    acid.sql(CREATE)
    acid.sql(INSERT)
    acid.sql("CREATE TABLE employee_update (id int, name string, salary int)")
    acid.sql("INSERT INTO employee_update VALUES (2, 'Tom', 7500), (4, 'Mary', 9000)")
    return acid


def test_dry_runs_of_the_walkthrough(employee, warehouse):
    acid = employee
    before = state(acid, warehouse)
    cols = ["action", "row__id", "old_id", "new_id", "old_name", "new_name", "old_salary", "new_salary"]
    df = acid.sql("UPDATE employee SET salary = 7000 WHERE id = 2", dry_run=True)
    assert df.columns == cols
    assert rows(df) == [("update", (1, B, 1), 2, 2, "Tom", "Tom", 8000, 7000)]
    assert rows(acid.sql("DELETE FROM employee WHERE id > 1", dry_run=True)) == [
        ("delete", (1, B, 1), 2, None, "Tom", None, 8000, None),
        ("delete", (1, B, 2), 3, None, "Kate", None, 6000, None),
    ]
    assert rows(acid.sql("INSERT INTO employee (id, name) VALUES (5, 'Ann')", dry_run=True)) == [
        ("insert", None, None, 5, None, "Ann", None, None),
    ]
    merge = acid.sql(MERGE, dry_run=True)
    assert merge.columns == ["action", "clause", *cols[1:]]
    assert rows(merge) == [
        ("insert", 2, None, None, 4, None, "Mary", None, 9000),
        ("update", 1, (1, B, 1), 2, 2, "Tom", "Tom", 8000, 7500),
    ]
    assert rows(acid.sql("EXPLAIN ANALYZE " + MERGE)) == rows(merge)
    (statement,) = parse("DELETE FROM employee WHERE name = 'Jerry'")
    assert rows(acid.run_statement(statement, dry_run=True)) == [
        ("delete", (1, B, 0), 1, None, "Jerry", None, 5000, None),
    ]
    assert rows(acid.sql("UPDATE employee SET salary = 1 WHERE id = 99", dry_run=True)) == []
    assert state(acid, warehouse) == before
    # the real statement then does what the dry run said
    result = acid.sql(MERGE)
    assert (result.num_inserted_rows, result.num_updated_rows, result.write_id) == (1, 1, 2)


def test_overwrite_and_truncate_list_the_rows_they_replace(employee, warehouse):
    acid = employee
    before = state(acid, warehouse)
    assert rows(acid.sql("INSERT OVERWRITE TABLE employee SELECT * FROM employee_update WHERE id = 4", dry_run=True)) == [
        ("delete", (1, B, 0), 1, None, "Jerry", None, 5000, None),
        ("delete", (1, B, 1), 2, None, "Tom", None, 8000, None),
        ("delete", (1, B, 2), 3, None, "Kate", None, 6000, None),
        ("insert", None, None, 4, None, "Mary", None, 9000),
    ]
    assert [r[0] for r in rows(acid.sql("TRUNCATE TABLE employee", dry_run=True))] == ["delete"] * 3
    assert [r[0] for r in rows(acid.sql("EXPLAIN ANALYZE TRUNCATE TABLE employee_update"))] == ["delete"] * 2
    assert state(acid, warehouse) == before


def test_partitioned_table(acid, warehouse):
    acid.sql(
        "CREATE TABLE sales (id int, amount int) PARTITIONED BY (p string) "
        "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
    )
    acid.sql("INSERT INTO sales VALUES (1, 10, 'a'), (2, 20, 'a'), (3, 30, 'b')")
    before = state(acid, warehouse, "sales")
    # an UPDATE that moves a row to another partition
    assert rows(acid.sql("UPDATE sales SET p = 'c', amount = 0 WHERE id = 2", dry_run=True)) == [
        ("update", (1, B, 1), 2, 2, 20, 0, "a", "c"),
    ]
    # static partition overwrite: only partition a is replaced, even by no rows
    got = rows(acid.sql("INSERT OVERWRITE TABLE sales PARTITION (p='a') SELECT 9, 90 WHERE false", dry_run=True))
    assert [(r[0], r[2], r[6]) for r in got] == [("delete", 1, "a"), ("delete", 2, "a")]
    # dynamic overwrite: only the partitions that receive rows
    got = rows(acid.sql("INSERT OVERWRITE TABLE sales PARTITION (p) VALUES (7, 70, 'b'), (8, 80, 'd')", dry_run=True))
    assert [(r[0], r[2], r[3], r[7]) for r in got] == [
        ("delete", 3, None, None), ("insert", None, 7, "b"), ("insert", None, 8, "d"),
    ]
    assert state(acid, warehouse, "sales") == before


def test_merge_against_duckdb(acid, warehouse):
    """A MERGE with every clause kind over 200 target rows: the dry run's rows equal DuckDB's computation of
    the same change, and then the real statement's result equals the dry run applied to the old rows."""
    acid.sql("CREATE TABLE t (k int, v int, s string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("CREATE TABLE src (k int, v int)")
    target = [(k, k * 3 % 17, f"s{k}") for k in range(200)]
    source = [(k, k % 5) for k in range(150, 260, 2)]
    acid.sql("INSERT INTO t VALUES " + ", ".join(f"({k}, {v}, '{s}')" for k, v, s in target))
    acid.sql("INSERT INTO src VALUES " + ", ".join(f"({k}, {v})" for k, v in source))
    merge = (
        "MERGE INTO t USING src ON t.k = src.k "
        "WHEN MATCHED AND src.v = 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET v = t.v + src.v "
        "WHEN NOT MATCHED AND src.v > 1 THEN INSERT VALUES (src.k, src.v, 'new') "
        "WHEN NOT MATCHED BY SOURCE AND t.k < 10 THEN UPDATE SET s = 'gone'"
    )
    before = state(acid, warehouse, "t")
    dry = acid.sql(merge, dry_run=True)
    got = sorted((r.action, r.clause, r.old_k, r.old_v, r.old_s, r.new_k, r.new_v, r.new_s) for r in dry.collect())

    db = duckdb.connect()
    db.execute("CREATE TABLE t (k INT, v INT, s VARCHAR)")
    db.execute("CREATE TABLE src (k INT, v INT)")
    db.executemany("INSERT INTO t VALUES (?, ?, ?)", target)
    db.executemany("INSERT INTO src VALUES (?, ?)", source)
    expected = db.execute(
        """
        SELECT 'delete', 1, t.k, t.v, t.s, NULL, NULL, NULL FROM t JOIN src ON t.k = src.k WHERE src.v = 0
        UNION ALL
        SELECT 'update', 2, t.k, t.v, t.s, t.k, t.v + src.v, t.s FROM t JOIN src ON t.k = src.k WHERE src.v <> 0
        UNION ALL
        SELECT 'insert', 3, NULL, NULL, NULL, src.k, src.v, 'new' FROM src
          WHERE src.v > 1 AND src.k NOT IN (SELECT k FROM t)
        UNION ALL
        SELECT 'update', 4, t.k, t.v, t.s, t.k, t.v, 'gone' FROM t
          WHERE t.k < 10 AND t.k NOT IN (SELECT k FROM src)
        """
    ).fetchall()
    assert sorted(got, key=repr) == sorted(expected, key=repr)
    counts = {(a, c): sum(1 for r in got if r[:2] == (a, c)) for a, c in {r[:2] for r in got}}
    assert counts == {("delete", 1): 5, ("update", 2): 20, ("insert", 3): 18, ("update", 4): 10}
    assert state(acid, warehouse, "t") == before

    old = {r[0]: r for r in target}
    for action, _clause, old_k, _ov, _os, new_k, new_v, new_s in got:
        if action in ("update", "delete"):
            del old[old_k]
        if action in ("update", "insert"):
            old[new_k] = (new_k, new_v, new_s)
    acid.sql(merge)
    assert sorted(tuple(r) for r in acid.sql("SELECT k, v, s FROM t").collect()) == sorted(old.values())


def test_merge_that_would_fail_fails_in_the_dry_run(employee, warehouse):
    acid = employee
    acid.sql("INSERT INTO employee_update VALUES (2, 'Tom', 1)")
    before = state(acid, warehouse)
    with pytest.raises(ExecutionError, match="Cardinality Violation"):
        acid.sql(MERGE, dry_run=True).collect()
    acid.sql("SET hive.merge.cardinality.check=false")
    got = rows(acid.sql(MERGE, dry_run=True))
    assert [(r[0], r[1]) for r in got] == [("insert", 2), ("update", 1)]
    assert state(acid, warehouse) == before


def test_what_a_dry_run_does_not_take(employee, warehouse):
    acid = employee
    with pytest.raises(UnsupportedStatementError, match="a dry run covers INSERT, UPDATE, DELETE, MERGE and TRUNCATE"):
        acid.sql("CREATE TABLE x (a int)", dry_run=True)
    assert acid.sql("SHOW TABLES").count() == 2
    assert rows(acid.sql("SELECT id FROM employee WHERE id = 1", dry_run=True)) == [(1,)]
    # EXPLAIN without ANALYZE is still the plan in words
    lines = [r[0] for r in acid.sql("EXPLAIN UPDATE employee SET salary = 1").collect()]
    assert lines[0].startswith("Statement: UPDATE")


def test_explain_names_legs_partitions_and_versions(acid):
    acid.sql(
        "CREATE TABLE sales (id int, amount int) PARTITIONED BY (p string) "
        "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
    )
    acid.sql("INSERT INTO sales VALUES (1, 10, 'a'), (2, 20, 'a'), (3, 30, 'b')")
    acid.sql("UPDATE sales SET amount = 0 WHERE id = 3")  # write id 2

    def explain(statement: str) -> list[str]:
        return [r[0] for r in acid.sql(f"EXPLAIN {statement}").collect()]

    update = explain("UPDATE sales SET amount = 1 WHERE p = 'a'")
    assert update[update.index("Legs (statement id: what it writes):") + 1:][:3] == [
        "  statement 0: delete events of the rows found -> delete_delta_0000003_0000003_0000",
        "  statement 0: their new versions -> delta_0000003_0000003_0000",
        "Target partitions: deletes in the partitions read that hold matching rows (p=a); "
        "new versions stay in their rows' partitions",
    ]
    insert = explain("INSERT INTO sales PARTITION (p='z') VALUES (5, 5)")
    assert insert[-1].endswith("/sales/p=z/delta_0000003_0000003_0000")
    version = explain("SELECT * FROM sales VERSION AS OF 1 WHERE p = 'b'")
    assert version[2:] == [
        "Read default.sales VERSION AS OF 1 at write ids default.sales:1:9223372036854775807::",
        "  partitions read: 1 of 2 (pruned by p = 'b')",
        "  [p=b] base: (none)",
        "  [p=b] insert deltas: delta_0000001_0000001_0000",
        "  [p=b] delete deltas: (none)",
        "  files read: 1 data, 0 delete",
    ]
    current = explain("SELECT * FROM sales WHERE p = 'b'")
    assert "  [p=b] delete deltas: delete_delta_0000002_0000002_0000" in current


def test_dry_run_inside_a_transaction_sees_its_writes_and_takes_nothing(employee, warehouse):
    acid = employee
    acid.sql("BEGIN")
    acid.sql("INSERT INTO employee VALUES (8, 'Zed', 100)")  # statement 0 of write id 2
    txn = acid.current_transaction
    before = (txn.next_statement_id, listing(warehouse / "employee"))
    assert rows(acid.sql("UPDATE employee SET salary = 200 WHERE id = 8", dry_run=True)) == [
        ("update", (2, B, 0), 8, 8, "Zed", "Zed", 100, 200),
    ]
    assert (txn.next_statement_id, listing(warehouse / "employee")) == before
    acid.sql("ROLLBACK")
    assert acid.store.list_txns()[0]["state"] == "aborted"
    assert rows(acid.sql("SELECT id FROM employee")) == [(1,), (2,), (3,)]
    # a plain (non-ACID) target: inserts only, no row ids
    assert rows(acid.sql("INSERT INTO employee_update VALUES (5, 'Kim', 1)", dry_run=True)) == [
        ("insert", None, None, 5, None, "Kim", None, 1),
    ]
    assert acid.sql("SELECT count(*) FROM employee_update").first()[0] == 2
