"""The planner without Spark: a dict-backed table lookup stands in for the catalog (the planner only ever
calls ``lookup(db, name)``), so every planning rule is checked in milliseconds."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlglot import exp

from hiveacid_sql.errors import CatalogError, PlanError
from hiveacid_sql.plan.model import DeletePlan, InsertPlan, MergePlan, UpdatePlan
from hiveacid_sql.plan.planner import Planner
from hiveacid_sql.sql.parse import parse_one
from hiveacid_sql.txn import Column, TableDef

ACID = {"transactional": "true"}


def _table(name: str, *cols: str, db: str = "default", parts: tuple[str, ...] = (), params=ACID) -> TableDef:
    return TableDef(
        db, name, tuple(Column(c.split()[0], c.split()[1]) for c in cols), f"/w/{name}",
        params=dict(params), partition_keys=tuple(Column(p.split()[0], p.split()[1]) for p in parts),
    )


class DictCatalog:
    """``lookup(db, name)`` over a dict, counting the calls (the catalog's ``get_table``)."""

    def __init__(self, *tables: TableDef) -> None:
        self.tables = {(t.db, t.name): t for t in tables}
        self.calls: Counter[tuple[str, str]] = Counter()

    def get_table(self, db: str, name: str) -> TableDef:
        self.calls[(db, name)] += 1
        if (db, name) not in self.tables:
            raise CatalogError(f"Table not found {db}.{name}")
        return self.tables[(db, name)]


@pytest.fixture
def catalog() -> DictCatalog:
    return DictCatalog(
        _table("employee", "id int", "name string", "salary int"),
        _table("updates", "id int", "salary int"),
        _table("pt", "id int", parts=("p int",)),
        _table("plain", "id int", params={}),
    )


@pytest.fixture
def planner(catalog: DictCatalog) -> Planner:
    return Planner(catalog.get_table, lambda: "default")


def plan(planner: Planner, sql: str):
    return planner.plan(parse_one(sql).tree)


def test_update_resolves_each_table_once(planner: Planner, catalog: DictCatalog) -> None:
    """An UPDATE names its target twice (the statement, its row-id query) and here a subquery table: each is
    looked up in the catalog once per statement."""
    p = plan(planner, "UPDATE employee SET salary = salary + 1 WHERE id IN (SELECT id FROM updates)")
    assert isinstance(p, UpdatePlan)
    assert catalog.calls == {("default", "employee"): 1, ("default", "updates"): 1}
    assert {t.name for t in p.reads.tables} == {"employee", "updates"}
    plan(planner, "UPDATE employee SET salary = 1")  # a new statement looks again
    assert catalog.calls[("default", "employee")] == 2


def test_merge_resolves_each_table_once(planner: Planner, catalog: DictCatalog) -> None:
    p = plan(planner, "MERGE INTO employee t USING updates s ON t.id = s.id WHEN MATCHED THEN UPDATE SET salary = s.salary "
                      "WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'new', s.salary)")
    assert isinstance(p, MergePlan) and [c.action for c in p.clauses] == ["update", "insert"]
    assert catalog.calls == {("default", "employee"): 1, ("default", "updates"): 1}


def test_merge_source_keys_are_the_on_equalities_of_target_columns_with_source_expressions(planner: Planner) -> None:
    """The columns whose source range may skip target stripes (exec/merge_keys.py): ``t.c = <source only>``
    conjuncts of ON, either way round; none with a NOT MATCHED BY SOURCE clause, which needs every row."""
    p = plan(planner, "MERGE INTO employee t USING updates s ON s.id + 1 = t.id AND t.salary = s.salary AND t.name = 'x' "
                      "AND t.id > 0 AND t.salary = t.id AND (t.id = s.id OR t.id = 1) AND t.salary = rand() + s.id "
                      "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'new', s.salary)")
    assert isinstance(p, MergePlan) and p.source_keys == ("id", "salary")
    assert p.source_key_query is not None
    assert p.source_key_query.sql() == "SELECT s.id + 1 AS __key0, s.salary AS __key1 FROM updates AS s"
    by_source = plan(planner, "MERGE INTO employee t USING updates s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN DELETE")
    assert by_source.source_keys == () and by_source.source_key_query is None


def test_update_and_merge_share_the_set_rules(planner: Planner) -> None:
    """One interpreter: DEFAULT is NULL in both, an unknown or repeated column is the same one-line error."""
    update = plan(planner, "UPDATE employee SET salary = DEFAULT WHERE id = 1")
    assert update.assignments == (("salary", "DEFAULT"),)
    assert "NULL" in update.source.sql(dialect="spark")
    merge = plan(planner, "MERGE INTO employee t USING updates s ON t.id = s.id WHEN MATCHED THEN UPDATE SET salary = DEFAULT")
    assert isinstance(merge.clauses[0].values[0][1], exp.Cast) and isinstance(merge.clauses[0].values[0][1].this, exp.Null)
    for sql in ("UPDATE employee SET nope = 1",
                "MERGE INTO employee t USING updates s ON t.id = s.id WHEN MATCHED THEN UPDATE SET nope = 1"):
        with pytest.raises(PlanError, match=r"Invalid column reference 'nope' in SET of table default.employee"):
            plan(planner, sql)
    for sql in ("UPDATE employee SET salary = 1, salary = 2",
                "MERGE INTO employee t USING updates s ON t.id = s.id WHEN MATCHED THEN UPDATE SET salary = 1, salary = 2"):
        with pytest.raises(PlanError, match=r"Column 'salary' is set more than once"):
            plan(planner, sql)


def test_insert_partition_spec_rules(planner: Planner) -> None:
    p = plan(planner, "INSERT INTO pt PARTITION (p='01') VALUES (1)")
    assert isinstance(p, InsertPlan) and [k for k, _ in p.static_partitions] == ["p"]
    with pytest.raises(PlanError, match="'q' is not a partition column of default.pt"):
        plan(planner, "INSERT INTO pt PARTITION (q=1) VALUES (1)")
    with pytest.raises(PlanError, match="appears twice"):
        plan(planner, "INSERT INTO pt PARTITION (p=1, p=2) VALUES (1)")
    with pytest.raises(PlanError, match="is not partitioned but a partition spec exists"):
        plan(planner, "INSERT INTO employee PARTITION (p=1) VALUES (1, 'a', 2)")


def test_dml_on_a_plain_table_and_unknown_tables(planner: Planner) -> None:
    assert isinstance(plan(planner, "DELETE FROM employee WHERE id = 1"), DeletePlan)
    with pytest.raises(PlanError, match="not transactional \\(Hive error 10297\\)"):
        plan(planner, "DELETE FROM plain")
    with pytest.raises(PlanError, match=r"^line 1, col 13: Table not found 'default.nope'$"):
        plan(planner, "DELETE FROM nope")


def test_an_unqualified_session_view_is_read_as_a_view_before_a_table(catalog: DictCatalog) -> None:
    """Spark's order: a temporary view of the session first for an unqualified name (asked once per statement),
    the warehouse table for a qualified one; the written table is always the warehouse's."""
    asked: Counter[str] = Counter()

    def is_view(name: str) -> bool:
        asked[name] += 1
        return name in {"updates", "src"}

    planner = Planner(catalog.get_table, lambda: "default", is_view=is_view)
    p = plan(planner, "MERGE INTO employee t USING src s ON t.id = s.id WHEN MATCHED AND s.id IN (SELECT id FROM src) "
                      "THEN UPDATE SET salary = s.salary")
    assert isinstance(p, MergePlan)
    assert {t.name for t in p.reads.tables} == {"employee"} and p.reads.session_views == {"src"}
    assert asked["src"] == 1
    q = planner.plan_query(parse_one("SELECT * FROM updates JOIN default.updates u USING (id)").tree)
    assert [t.qualified_name for t in q.reads.tables] == ["default.updates"] and q.reads.session_views == {"updates"}
    insert = plan(planner, "INSERT INTO updates SELECT * FROM updates")
    assert isinstance(insert, InsertPlan) and insert.target.qualified_name == "default.updates"
    assert insert.reads.tables == () and insert.reads.session_views == {"updates"}
    with pytest.raises(PlanError, match=r"^line 1, col 13: 'src' is a temporary view of the Spark session"):
        plan(planner, "INSERT INTO src VALUES (1)")


def test_key_filters_of_update_delete_and_select(planner: Planner) -> None:
    """The WHERE's conjuncts comparing a data column of the table with integer literals become its key filters
    (ORC skips row groups by them); anything else (OR, strings, expressions, another table's columns) does not."""
    from hiveacid_sql.plan.pruning import KeyFilter

    def keys(sql: str) -> tuple[KeyFilter, ...]:
        reads = plan(planner, sql).reads
        pruning = reads.target_pruning or reads.pruning["default.employee"]
        return pruning.key_filters

    assert keys("UPDATE employee SET salary = 1 WHERE id = 7") == (KeyFilter("id", "=", (7,)),)
    assert keys("DELETE FROM employee WHERE 7 < ID AND salary <= -3") == (
        KeyFilter("id", ">", (7,)), KeyFilter("salary", "<=", (-3,)))
    assert keys("DELETE FROM employee WHERE employee.id IN (1, 2, 3) AND id BETWEEN 0 AND 9") == (
        KeyFilter("id", "in", (1, 2, 3)), KeyFilter("id", ">=", (0,)), KeyFilter("id", "<=", (9,)))
    assert keys("SELECT * FROM employee WHERE id >= 5 AND name = 'x'") == (KeyFilter("id", ">=", (5,)),)
    for sql in (
        "UPDATE employee SET salary = 1 WHERE id = 7 OR id = 8",
        "UPDATE employee SET salary = 1 WHERE id = '7'",
        "UPDATE employee SET salary = 1 WHERE id = 7.0",
        "UPDATE employee SET salary = 1 WHERE id + 1 = 7",
        "UPDATE employee SET salary = 1 WHERE id IN (1, salary)",
        "UPDATE employee SET salary = 1 WHERE id = salary",
        "UPDATE employee SET salary = 1 WHERE id NOT IN (1, 2)",
        "UPDATE employee SET salary = 1",
    ):
        assert keys(sql) == (), sql
    # a self-join: only filters every reference shares
    assert keys("SELECT * FROM employee a JOIN employee b ON a.id = b.id WHERE a.id = 1 AND b.id = 2") == ()
    assert keys("SELECT * FROM updates u JOIN employee e ON u.id = e.id WHERE e.id = 1 AND u.salary = 2") == (
        KeyFilter("id", "=", (1,)),)
