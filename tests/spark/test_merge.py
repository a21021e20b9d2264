"""MERGE end to end: the walkthrough layout, Hive's MERGE behaviours, the clauses Hive lacks, the cardinality
check, and corner cases checked against DuckDB running the same MERGE on the same data."""

from __future__ import annotations

import pytest

from hiveacid_sql.errors import HiveAcidError
from tests.support.acid_files import events, listing
from tests.support.merge_oracle import (
    PARTITIONED_MERGE,
    PARTITIONED_MERGE_DIRS,
    PARTITIONED_MERGE_ROWS,
    merge_both_ways,
)

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def _rows(acid, query: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(query).collect()]


def _employee(acid) -> None:
    acid.sql(f"CREATE TABLE employee (id int, name string, salary int) {ACID}")
    acid.sql("INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000)")
    acid.sql("CREATE TABLE employee_update (id int, name string, salary int)")
    acid.sql("INSERT INTO employee_update VALUES (2, 'Tom', 7000), (4, 'Mary', 9000)")


WALKTHROUGH_MERGE = """MERGE INTO employee AS a
USING employee_update AS b ON a.id = b.id
WHEN MATCHED THEN UPDATE SET salary = b.salary
WHEN NOT MATCHED THEN INSERT VALUES (b.id, b.name, b.salary)"""


def test_walkthrough_section_3_exactly(acid, warehouse):
    _employee(acid)
    result = acid.sql(WALKTHROUGH_MERGE)
    table = warehouse / "employee"
    assert listing(table) == [
        "delete_delta_0000002_0000002_0001/_orc_acid_version",
        "delete_delta_0000002_0000002_0001/bucket_00000",
        "delta_0000001_0000001_0000/_orc_acid_version",
        "delta_0000001_0000001_0000/bucket_00000",
        "delta_0000002_0000002_0000/_orc_acid_version",
        "delta_0000002_0000002_0000/bucket_00000",
        "delta_0000002_0000002_0001/_orc_acid_version",
        "delta_0000002_0000002_0001/bucket_00000",
    ]
    assert events(table / "delta_0000002_0000002_0000/bucket_00000") == [
        {"operation": 0, "originalTransaction": 2, "bucket": 536870912, "rowId": 0, "currentTransaction": 2,
         "row": {"id": 4, "name": "Mary", "salary": 9000}}
    ]
    assert events(table / "delete_delta_0000002_0000002_0001/bucket_00000") == [
        {"operation": 2, "originalTransaction": 1, "bucket": 536870912, "rowId": 1, "currentTransaction": 2, "row": None}
    ]
    assert events(table / "delta_0000002_0000002_0001/bucket_00000") == [
        {"operation": 0, "originalTransaction": 2, "bucket": 536870913, "rowId": 0, "currentTransaction": 2,
         "row": {"id": 2, "name": "Tom", "salary": 7000}}
    ]
    got = [(r[0].writeid, r[0].bucketid, r[0].rowid, r[1], r[2], r[3]) for r in acid.sql(
        "SELECT row__id, id, name, salary FROM employee ORDER BY id").collect()]
    assert got == [
        (1, 536870912, 0, 1, "Jerry", 5000),
        (2, 536870913, 0, 2, "Tom", 7000),
        (1, 536870912, 2, 3, "Kate", 6000),
        (2, 536870912, 0, 4, "Mary", 9000),
    ]
    # The report: totals, per clause (with statement ids), source rows, target rows matched.
    assert (result.statement, result.write_id, result.num_inserted_rows, result.num_updated_rows) == ("MERGE", 2, 1, 1)
    assert (result.num_source_rows, result.num_target_rows_matched, result.num_affected_rows) == (2, 1, 2)
    assert [(c.clause, c.match, c.action, c.statement_id, c.num_rows) for c in result.clauses] == [
        (1, "MATCHED", "UPDATE", 1, 1),
        (2, "NOT MATCHED", "INSERT", 0, 1),
    ]
    assert sorted(result.directories) == [
        "delete_delta_0000002_0000002_0001",
        "delta_0000002_0000002_0000",
        "delta_0000002_0000002_0001",
    ]
    assert result.to_spark().collect()[0]["clauses"][0]["action"] == "UPDATE"


def test_explain_merge_shows_join_clause_order_statement_ids_and_directories(acid):
    _employee(acid)
    text = "\n".join(r[0] for r in acid.sql(f"EXPLAIN {WALKTHROUGH_MERGE}").collect())
    assert "Join: target RIGHT OUTER JOIN source ON a.id = b.id" in text
    assert "  1. WHEN MATCHED THEN UPDATE: statement 1 (delete + insert)" in text
    assert "  2. WHEN NOT MATCHED THEN INSERT: statement 0 (insert)" in text
    writes = text.split("(if no other writer takes it first):\n")[1].split("\n")
    assert [w.rsplit("/", 1)[1] for w in writes] == [
        "delta_0000002_0000002_0000",
        "delete_delta_0000002_0000002_0001",
        "delta_0000002_0000002_0001",
    ]


@pytest.mark.parametrize("driver_max_rows", ["10000", "2"], ids=["driver", "over-the-driver-limit"])
def test_first_applicable_clause_wins_and_conditions(acid, driver_max_rows):
    acid.sql(f"SET hiveacid.driver.write.max.rows={driver_max_rows}")  # 2: more events than that, written by tasks
    acid.sql("SET hiveacid.driver.write.max.bytes=0")  # (not the driver for their few bytes either)
    acid.sql(f"CREATE TABLE t (id int, v int, note string) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c'), (4, 40, 'd')")
    acid.sql("CREATE TABLE s (id int, v int, op string)")
    acid.sql("INSERT INTO s VALUES (1, 11, 'U'), (2, 21, 'D'), (3, 31, 'U'), (5, 51, 'U'), (6, 61, 'D')")
    result = acid.sql(
        """MERGE INTO t USING s ON t.id = s.id
        WHEN MATCHED AND s.op = 'D' THEN DELETE
        WHEN MATCHED AND t.v >= 30 THEN UPDATE SET note = 'big', v = s.v
        WHEN MATCHED THEN UPDATE SET note = 'small'
        WHEN NOT MATCHED AND s.op <> 'D' THEN INSERT (v, id) VALUES (s.v, s.id)"""
    )
    assert _rows(acid, "SELECT id, v, note FROM t ORDER BY id") == [
        (1, 10, "small"),
        (3, 31, "big"),
        (4, 40, "d"),
        (5, 51, None),
    ]
    assert [(c.action, c.statement_id, c.num_rows) for c in result.clauses] == [
        ("DELETE", 1, 1),
        ("UPDATE", 2, 1),
        ("UPDATE", 3, 1),
        ("INSERT", 0, 1),
    ]


def test_on_with_a_non_key_column_turns_a_change_into_an_insert(acid):
    """Hive's MERGE semantics: ON decides matching, so a row whose non-key column differs is NOT MATCHED."""
    acid.sql(f"CREATE TABLE t (id int, v int) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 10), (2, 20)")
    acid.sql("CREATE TABLE s (id int, v int)")
    acid.sql("INSERT INTO s VALUES (1, 10), (2, 99)")
    acid.sql(
        "MERGE INTO t USING s ON t.id = s.id AND t.v = s.v "
        "WHEN MATCHED THEN UPDATE SET v = s.v + 1 WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)"
    )
    assert _rows(acid, "SELECT id, v FROM t ORDER BY id, v") == [(1, 11), (2, 20), (2, 99)]


def test_type_2_slowly_changing_dimension_with_a_union_all_source(acid):
    """The classic Hive SCD2 MERGE: the source is a UNION ALL that reads the target itself."""
    acid.sql(f"CREATE TABLE dim (id int, city string, current boolean, version int) {ACID}")
    acid.sql("INSERT INTO dim VALUES (1, 'Paris', true, 1), (2, 'Rome', true, 1)")
    acid.sql("CREATE TABLE stage (id int, city string)")
    acid.sql("INSERT INTO stage VALUES (1, 'Lyon'), (2, 'Rome'), (3, 'Oslo')")
    acid.sql(
        """MERGE INTO dim AS d USING (
             SELECT s.id AS join_key, s.id, s.city FROM stage s
             UNION ALL
             SELECT NULL AS join_key, s.id, s.city FROM stage s JOIN dim x ON s.id = x.id
             WHERE x.current AND s.city <> x.city
           ) AS u ON d.id = u.join_key
           WHEN MATCHED AND d.current AND d.city <> u.city THEN UPDATE SET current = false
           WHEN NOT MATCHED THEN INSERT VALUES (u.id, u.city, true, 1)"""
    )
    assert _rows(acid, "SELECT id, city, current FROM dim ORDER BY id, current") == [
        (1, "Paris", False),
        (1, "Lyon", True),
        (2, "Rome", True),
        (3, "Oslo", True),
    ]


def test_not_matched_by_source_default_and_star_shorthands(acid):
    acid.sql(f"CREATE TABLE t (id int, v int, note string) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')")
    acid.sql("CREATE TABLE s (id int, v int, note string)")
    acid.sql("INSERT INTO s VALUES (1, 11, 'x'), (4, 44, 'y')")
    acid.sql(
        """MERGE INTO t USING s ON t.id = s.id
        WHEN MATCHED THEN UPDATE SET *
        WHEN NOT MATCHED BY SOURCE AND t.id = 2 THEN UPDATE SET note = DEFAULT, v = t.v + 1
        WHEN NOT MATCHED BY SOURCE THEN DELETE
        WHEN NOT MATCHED BY TARGET THEN INSERT *"""
    )
    assert _rows(acid, "SELECT id, v, note FROM t ORDER BY id") == [(1, 11, "x"), (2, 21, None), (4, 44, "y")]
    acid.sql("MERGE INTO t USING s ON t.id = s.id + 10 WHEN NOT MATCHED THEN INSERT (id, note) VALUES (s.id + 10, DEFAULT)")
    assert _rows(acid, "SELECT id, v, note FROM t WHERE id > 10 ORDER BY id") == [(11, None, None), (14, None, None)]


def test_cardinality_violation_changes_nothing_and_can_be_switched_off(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int, v int) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 10), (2, 20)")
    acid.sql("CREATE TABLE s (id int, v int)")
    acid.sql("INSERT INTO s VALUES (1, 11), (1, 12), (3, 30)")
    before = listing(warehouse / "t")
    with pytest.raises(HiveAcidError) as info:
        acid.sql("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)")
    message = str(info.value)
    assert "Cardinality Violation in Merge statement" in message
    assert '{"writeid":1,"bucketid":536870912,"rowid":0}' in message
    assert "\n" not in message
    assert listing(warehouse / "t") == before  # aborted: its directories are gone
    assert _rows(acid, "SELECT id, v FROM t ORDER BY id") == [(1, 10), (2, 20)]
    # Only NOT MATCHED clauses: no check (Hive skips it too).
    acid.sql("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)")
    assert _rows(acid, "SELECT id, v FROM t ORDER BY id") == [(1, 10), (2, 20), (3, 30)]
    acid.sql("SET hive.merge.cardinality.check=false")
    acid.sql("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v")
    rows = _rows(acid, "SELECT id, v FROM t ORDER BY id")
    assert rows[0][0] == 1 and rows[0][1] in (11, 12) and len(rows) == 3


def test_null_keys_never_match_and_on_false(acid):
    acid.sql(f"CREATE TABLE t (id int, v int) {ACID}")
    acid.sql("INSERT INTO t VALUES (NULL, 1), (1, 2)")
    acid.sql("CREATE TABLE s (id int, v int)")
    acid.sql("INSERT INTO s VALUES (NULL, 3), (1, 4)")
    acid.sql(
        "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)"
    )
    assert sorted(_rows(acid, "SELECT id, v FROM t"), key=str) == sorted([(None, 1), (1, 4), (None, 3)], key=str)
    result = acid.sql(
        "MERGE INTO t USING s ON (FALSE) WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY SOURCE AND t.id IS NULL "
        "THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v + 100)"
    )
    assert (result.num_deleted_rows, result.num_inserted_rows, result.num_target_rows_matched) == (2, 2, 0)
    assert sorted(_rows(acid, "SELECT id, v FROM t"), key=str) == sorted([(1, 4), (None, 103), (1, 104)], key=str)


def test_partitioned_target_dynamic_partitions_and_pruning(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int, v int) PARTITIONED BY (p string) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')")
    acid.sql("CREATE TABLE s (id int, v int, p string)")
    acid.sql("INSERT INTO s VALUES (1, 11, 'a'), (4, 44, 'd'), (2, 22, 'b')")
    text = "\n".join(r[0] for r in acid.sql(f"EXPLAIN {PARTITIONED_MERGE}").collect())
    assert "  partitions read: 2 of 3 (pruned by p IN ('a', 'b'))" in text
    acid.sql(PARTITIONED_MERGE)
    assert _rows(acid, "SELECT id, v, p FROM t ORDER BY id") == PARTITIONED_MERGE_ROWS
    assert {p.rsplit("/", 1)[0] for p in listing(warehouse / "t") if "0000002" in p} == PARTITIONED_MERGE_DIRS


def test_bucketed_target_routes_new_rows_to_their_bucket(acid, warehouse):
    acid.sql(f"CREATE TABLE t (id int, v int) CLUSTERED BY (id) INTO 7 BUCKETS {ACID}")
    acid.sql("INSERT INTO t VALUES (300000, 1)")
    acid.sql("CREATE TABLE s (id int, v int)")
    acid.sql("INSERT INTO s VALUES (300000, 2), (2147483647, 3)")
    acid.sql("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)")
    # Trino-published v2 hashes: 300000 -> -678663480 (bucket 4 of 7), 2147483647 -> 1133859967 (bucket 2).
    written = sorted(p for p in listing(warehouse / "t") if "_0000002_" in p and "bucket_" in p)
    assert written == [
        "delete_delta_0000002_0000002_0001/bucket_00004",
        "delta_0000002_0000002_0000/bucket_00002",
        "delta_0000002_0000002_0001/bucket_00004",
    ]
    assert _rows(acid, "SELECT id, v FROM t ORDER BY id") == [(300000, 2), (2147483647, 3)]


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("MERGE INTO plain USING s ON plain.id = s.id WHEN MATCHED THEN DELETE", "not transactional"),
        ("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET nope = 1", "Invalid column reference 'nope'"),
        ("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (1)", "2 target columns but 1 values"),
        ("MERGE INTO t USING t ON t.id = t.id WHEN MATCHED THEN DELETE", "different aliases"),
        ("MERGE INTO t USING missing m ON t.id = m.id WHEN MATCHED THEN DELETE", "Table not found"),
        ("MERGE INTO t USING s ON t.id = s.nope WHEN MATCHED THEN DELETE", "nope"),
    ],
)
def test_merge_errors_are_one_line_and_change_nothing(acid, warehouse, statement, message):
    acid.sql(f"CREATE TABLE t (id int, v int) {ACID}")
    acid.sql("INSERT INTO t VALUES (1, 1)")
    acid.sql("CREATE TABLE s (id int, v int)")
    acid.sql("CREATE TABLE plain (id int)")
    before = listing(warehouse / "t")
    with pytest.raises(HiveAcidError) as info:
        acid.sql(statement)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert listing(warehouse / "t") == before


# -- the same MERGE on DuckDB: same final table -------------------------------------------------------------------
TARGET_ROWS = [(1, 10, "a"), (2, 20, None), (3, None, "c"), (None, 40, "d"), (5, 50, "e"), (6, 60, "f")]
SOURCE_ROWS = [(1, 11, "x"), (2, None, "y"), (None, 41, "z"), (7, 70, "w"), (6, 61, None), (8, 80, "v")]
DUCKDB_MERGES = [
    """MERGE INTO t USING s ON t.id = s.id
       WHEN MATCHED AND s.v IS NULL THEN DELETE
       WHEN MATCHED THEN UPDATE SET v = s.v, note = coalesce(s.note, t.note)
       WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, s.note)""",
    """MERGE INTO t USING s ON t.id = s.id AND t.v < s.v
       WHEN MATCHED THEN UPDATE SET v = t.v + s.v
       WHEN NOT MATCHED BY SOURCE AND t.v > 30 THEN UPDATE SET note = 'orphan'
       WHEN NOT MATCHED BY SOURCE THEN DELETE
       WHEN NOT MATCHED AND s.id > 6 THEN INSERT VALUES (s.id, s.v * 2, s.note)""",
    """MERGE INTO t USING (SELECT id, max(v) AS v FROM s GROUP BY id) AS g ON t.id = g.id
       WHEN MATCHED AND g.v > 50 THEN DELETE
       WHEN NOT MATCHED BY SOURCE AND t.note IN ('a', 'c') THEN DELETE
       WHEN NOT MATCHED THEN INSERT (id, v) VALUES (g.id, g.v)""",
    """MERGE INTO t USING s ON (FALSE)
       WHEN NOT MATCHED BY SOURCE AND t.id IS NULL THEN DELETE
       WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, s.note)""",
]


@pytest.mark.parametrize("merge", DUCKDB_MERGES, ids=["delete-update-insert", "by-source", "aggregate-source", "on-false"])
def test_same_result_as_duckdb(acid, merge):
    ours, theirs = merge_both_ways(acid, merge, TARGET_ROWS, SOURCE_ROWS)
    assert ours == theirs
