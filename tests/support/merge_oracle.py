"""A MERGE run on hiveacid-sql and on DuckDB over the same two small tables ``t`` and ``s``: the oracle that
test_merge.py and test_merge_split.py share (one join path each)."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def _values(rows: Sequence[tuple]) -> str:
    return ", ".join("(" + ", ".join("NULL" if x is None else repr(x) for x in r) + ")" for r in rows)


def merge_both_ways(acid, merge: str, target_rows: Sequence[tuple], source_rows: Sequence[tuple]) -> tuple[list, list]:
    """Create ``t`` (ACID) and ``s`` (plain) with ``(id int, v int, note string)`` and these rows, run
    ``merge`` on both engines and return ``t``'s rows afterwards, ours and DuckDB's, each sorted."""
    acid.sql(f"CREATE TABLE t (id int, v int, note string) {ACID}")
    acid.sql("CREATE TABLE s (id int, v int, note string)")
    acid.sql(f"INSERT INTO t VALUES {_values(target_rows)}")
    acid.sql(f"INSERT INTO s VALUES {_values(source_rows)}")
    acid.sql(merge)
    ours = sorted((tuple(r) for r in acid.sql("SELECT id, v, note FROM t").collect()), key=repr)
    duck = duckdb.connect()
    duck.execute("CREATE TABLE t (id INTEGER, v INTEGER, note VARCHAR)")
    duck.execute("CREATE TABLE s (id INTEGER, v INTEGER, note VARCHAR)")
    duck.execute(f"INSERT INTO t VALUES {_values(target_rows)}")
    duck.execute(f"INSERT INTO s VALUES {_values(source_rows)}")
    duck.execute(merge)
    theirs = sorted(duck.execute("SELECT id, v, note FROM t").fetchall(), key=repr)
    return ours, theirs


#: A MERGE into a table partitioned by ``p`` that updates in place, moves a row to a new partition and inserts
#: one: the rows and directories it leaves are the same whichever join runs it (test_merge.py and
#: test_merge_split.py check both joins against these).
PARTITIONED_MERGE = (
    "MERGE INTO t USING s ON t.id = s.id AND t.p = s.p AND t.p IN ('a', 'b') "
    "WHEN MATCHED AND t.p = 'a' THEN UPDATE SET v = s.v WHEN MATCHED THEN UPDATE SET p = 'moved' "
    "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, s.p)"
)
PARTITIONED_MERGE_ROWS = [(1, 11, "a"), (2, 20, "moved"), (3, 30, "c"), (4, 44, "d")]
PARTITIONED_MERGE_DIRS = {
    "p=d/delta_0000002_0000002_0000",
    "p=a/delete_delta_0000002_0000002_0001",
    "p=a/delta_0000002_0000002_0001",
    "p=b/delete_delta_0000002_0000002_0002",
    "p=moved/delta_0000002_0000002_0002",
}
