"""The DML subset the cluster and Spark Connect tiers run: walkthrough, UPDATE, DELETE, MERGE, compaction and a
multi-statement transaction, on small data, with what each step must show.

Why one module: the tiers differ in where Spark runs (executors in other processes, a Connect server), not in
what a user does, so they run the same steps and check the same things. Expected values are computed from the
data each step writes (Python arithmetic on the ids), never copied from a run. Each function takes a
connection and its warehouse directory and raises AssertionError naming the step that went wrong.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

WALKTHROUGH = Path(__file__).resolve().parents[2] / "examples" / "walkthrough.sql"


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in df.collect()]


def check(what: str, got: object, expected: object) -> None:
    if got != expected:
        raise AssertionError(f"{what}: got {got!r}, expected {expected!r}")


def walkthrough(acid: Any, warehouse: Path) -> None:
    """examples/walkthrough.sql as a user runs it: MERGE's rows, then minor and major compaction keep them
    (row ids included) and leave a base directory."""
    acid.sql(WALKTHROUGH.read_text())
    rows = acid.sql("SELECT row__id.writeid, id, name, salary FROM employee ORDER BY id")
    # after MERGE: Tom updated (write id 2), Mary inserted (write id 2), Jerry and Kate from write id 1
    check(
        "walkthrough rows",
        _rows(rows),
        [(1, 1, "Jerry", 5000), (2, 2, "Tom", 7000), (1, 3, "Kate", 6000), (2, 4, "Mary", 9000)],
    )
    states = [r.state for r in acid.sql("SHOW COMPACTIONS").collect()]
    check("compactions", len(states), 2)
    if not any(p.name.startswith("base_0000002") for p in (warehouse / "employee").iterdir()):
        raise AssertionError(
            f"major compaction wrote no base: {sorted(p.name for p in (warehouse / 'employee').iterdir())}"
        )


def update_delete_merge(acid: Any, spark: Any) -> None:
    """INSERT from a DataFrame argument, UPDATE, DELETE, MERGE from a DataFrame, and SELECT results that stay
    valid (at their snapshot) after ``sql()`` returned and the table changed, time travel included."""
    n = 200
    acid.sql("CREATE TABLE t (id int, v string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    src = spark.range(n).selectExpr("CAST(id AS int) AS id", "concat('v', id) AS v")
    check("insert", acid.sql("INSERT INTO t SELECT id, v FROM {src}", src=src).num_inserted_rows, n)
    before = acid.sql("SELECT count(*) AS c, sum(id) AS s FROM t")  # not collected yet: lazy
    tens = [i for i in range(n) if i % 10 == 0]
    check("update", acid.sql("UPDATE t SET v = 'x' WHERE id % 10 = 0").num_updated_rows, len(tens))
    high = [i for i in range(n) if i >= 150]
    check("delete", acid.sql("DELETE FROM t WHERE id >= 150").num_deleted_rows, len(high))
    check("a SELECT result used after later writes", _rows(before), [(n, sum(range(n)))])
    live = [i for i in range(n) if i < 150]
    now = acid.sql("SELECT count(*), count_if(v = 'x'), '{braces}' FROM t")  # braces are not {name} fields
    check("after update and delete", _rows(now), [(len(live), len([i for i in tens if i < 150]), "{braces}")])
    # time travel results, collected only after the MERGE below has changed the table
    version_1 = acid.sql("SELECT count(*), count_if(v = 'x') FROM t VERSION AS OF 1")
    version_2 = acid.sql("SELECT count(*), count_if(v = 'x') FROM t VERSION AS OF 2")

    changes = spark.createDataFrame(
        [(1, "m", False), (2, "gone", True), (500, "new", False)], "id int, v string, del boolean"
    )
    merged = acid.sql(
        "MERGE INTO t USING {changes} s ON t.id = s.id "
        "WHEN MATCHED AND s.del THEN DELETE WHEN MATCHED THEN UPDATE SET v = s.v "
        "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)",
        changes=changes,
    )
    check(
        "merge counts",
        (merged.num_updated_rows, merged.num_deleted_rows, merged.num_inserted_rows),
        (1, 1, 1),
    )
    picked = acid.sql("SELECT id, v FROM t WHERE id IN (1, 2, 500) ORDER BY id")
    check("merge rows", _rows(picked), [(1, "m"), (500, "new")])
    check("VERSION AS OF 1, used after sql() returned and a MERGE", _rows(version_1), [(n, 0)])
    check("VERSION AS OF 2, used after sql() returned and a MERGE", _rows(version_2), [(n, len(tens))])
    joined = acid.sql("SELECT count(*) FROM t JOIN {changes} s ON t.id = s.id", changes=changes)
    check("a SELECT over a DataFrame argument, used after sql() returned", _rows(joined), [(2,)])


def compaction(acid: Any, warehouse: Path) -> None:
    """Minor then major compaction of the table ``update_delete_merge`` left: the same rows and row ids."""
    before = sorted(_rows(acid.sql("SELECT row__id, id, v FROM t")))
    check(
        "minor", acid.sql("ALTER TABLE t COMPACT 'minor' AND WAIT").collect()[0].state, "ready for cleaning"
    )
    check("rows after minor", sorted(_rows(acid.sql("SELECT row__id, id, v FROM t"))), before)
    check(
        "major", acid.sql("ALTER TABLE t COMPACT 'major' AND WAIT").collect()[0].state, "ready for cleaning"
    )
    check("rows after major", sorted(_rows(acid.sql("SELECT row__id, id, v FROM t"))), before)
    if not any(p.name.startswith("base_") for p in (warehouse / "t").iterdir()):
        raise AssertionError("major compaction wrote no base")


def transaction(acid: Any) -> None:
    """BEGIN .. COMMIT sees its own writes (a SELECT inside stays valid after COMMIT); ROLLBACK leaves nothing."""
    acid.sql("CREATE TABLE tx (id int) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("BEGIN")
    acid.sql("INSERT INTO tx VALUES (1), (2), (3)")
    acid.sql("UPDATE tx SET id = id + 10 WHERE id = 3")
    inside = acid.sql("SELECT id FROM tx ORDER BY id")
    acid.sql("COMMIT")
    check("a SELECT made inside the transaction", _rows(inside), [(1,), (2,), (13,)])
    with_rollback = acid.sql("SELECT count(*) FROM tx")
    acid.sql("BEGIN")
    acid.sql("DELETE FROM tx")
    check("inside, before ROLLBACK", _rows(acid.sql("SELECT count(*) FROM tx")), [(0,)])
    acid.sql("ROLLBACK")
    check("after ROLLBACK", _rows(acid.sql("SELECT count(*) FROM tx")), [(3,)])
    check("a SELECT made before the rolled-back transaction", _rows(with_rollback), [(3,)])
