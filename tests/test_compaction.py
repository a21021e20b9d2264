"""Compaction end to end: the walkthrough's section 4 exactly, SHOW COMPACTIONS, the cleaner and read leases,
failures that leave the table unchanged, aborted files, the initiator's thresholds, partitions, the service."""

from __future__ import annotations

import json

from acid_files import events, listing, metadata

from hiveacid_sql.compactor import Compactor

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
WALKTHROUGH_MERGE = """MERGE INTO employee AS a
USING employee_update AS b ON a.id = b.id
WHEN MATCHED THEN UPDATE SET salary = b.salary
WHEN NOT MATCHED THEN INSERT VALUES (b.id, b.name, b.salary)"""


def _after_merge(acid) -> None:
    acid.sql(f"CREATE TABLE employee (id int, name string, salary int) {ACID}")
    acid.sql("INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000)")
    acid.sql("CREATE TABLE employee_update (id int, name string, salary int)")
    acid.sql("INSERT INTO employee_update VALUES (2, 'Tom', 7000), (4, 'Mary', 9000)")
    acid.sql(WALKTHROUGH_MERGE)


def _with_ids(acid, table: str = "employee") -> list[tuple]:
    rows = acid.sql(f"SELECT row__id, * FROM {table}").collect()
    return sorted((r[0].writeid, r[0].bucketid, r[0].rowid, *r[1:]) for r in rows)


def _dirs(path) -> list[str]:
    return sorted({p.split("/")[0] for p in listing(path)})


WALKTHROUGH_ROWS = [
    (1, 536870912, 0, 1, "Jerry", 5000),
    (1, 536870912, 2, 3, "Kate", 6000),
    (2, 536870912, 0, 4, "Mary", 9000),
    (2, 536870913, 0, 2, "Tom", 7000),
]


def test_walkthrough_minor_then_major_exactly(acid, warehouse):
    _after_merge(acid)
    table = warehouse / "employee"
    assert _with_ids(acid) == WALKTHROUGH_ROWS
    result = acid.sql("ALTER TABLE employee COMPACT 'minor' AND WAIT").collect()
    assert [(r.compactionid, r.type, r.state) for r in result] == [(1, "MINOR", "ready for cleaning")]
    assert _dirs(table) == [
        "delete_delta_0000001_0000002", "delete_delta_0000002_0000002_0001", "delta_0000001_0000001_0000",
        "delta_0000001_0000002", "delta_0000002_0000002_0000", "delta_0000002_0000002_0001",
    ]
    assert listing(table / "delta_0000001_0000002") == ["_orc_acid_version", "bucket_00000"]
    # both versions of Tom in the minor delta, sorted; the delete event kept with its ids
    assert events(table / "delta_0000001_0000002/bucket_00000") == [
        {"operation": 0, "originalTransaction": 1, "bucket": 536870912, "rowId": 0, "currentTransaction": 1,
         "row": {"id": 1, "name": "Jerry", "salary": 5000}},
        {"operation": 0, "originalTransaction": 1, "bucket": 536870912, "rowId": 1, "currentTransaction": 1,
         "row": {"id": 2, "name": "Tom", "salary": 8000}},
        {"operation": 0, "originalTransaction": 1, "bucket": 536870912, "rowId": 2, "currentTransaction": 1,
         "row": {"id": 3, "name": "Kate", "salary": 6000}},
        {"operation": 0, "originalTransaction": 2, "bucket": 536870912, "rowId": 0, "currentTransaction": 2,
         "row": {"id": 4, "name": "Mary", "salary": 9000}},
        {"operation": 0, "originalTransaction": 2, "bucket": 536870913, "rowId": 0, "currentTransaction": 2,
         "row": {"id": 2, "name": "Tom", "salary": 7000}},
    ]
    assert events(table / "delete_delta_0000001_0000002/bucket_00000") == [
        {"operation": 2, "originalTransaction": 1, "bucket": 536870912, "rowId": 1, "currentTransaction": 2, "row": None}
    ]
    assert (table / "delta_0000001_0000002/_orc_acid_version").read_bytes() == b"2"
    assert not (table / "delta_0000001_0000002/_metadata_acid").exists()
    assert _with_ids(acid) == WALKTHROUGH_ROWS
    compactor = Compactor(acid.spark, acid.store)
    acid._read_leases.release(acid._lease_ids)  # this test's own earlier SELECTs are finished
    assert compactor.clean() == [1]
    assert _dirs(table) == ["delete_delta_0000001_0000002", "delta_0000001_0000002"]
    assert _with_ids(acid) == WALKTHROUGH_ROWS

    acid.sql("ALTER TABLE employee COMPACT 'major' AND WAIT")
    assert "base_0000002" in _dirs(table)
    base_files = sorted(p for p in listing(table / "base_0000002") if p.startswith("bucket_"))
    base_events = [e for f in base_files for e in events(table / "base_0000002" / f)]
    assert sorted((e["originalTransaction"], e["bucket"], e["rowId"], e["row"]["name"]) for e in base_events) == [
        (1, 536870912, 0, "Jerry"), (1, 536870912, 2, "Kate"), (2, 536870912, 0, "Mary"), (2, 536870913, 0, "Tom")
    ]
    assert all(e["operation"] == 0 and e["currentTransaction"] == e["originalTransaction"] for e in base_events)
    assert json.loads((table / "base_0000002/_metadata_acid").read_text()) == {
        "thisFileVersion": "0", "dataFormat": "compacted"}
    assert (table / "base_0000002/_orc_acid_version").read_bytes() == b"2"
    assert metadata(table / "base_0000002" / base_files[0])["hive.acid.version"] == "2"
    assert _with_ids(acid) == WALKTHROUGH_ROWS
    acid._read_leases.release(acid._lease_ids)
    assert compactor.clean() == [2]
    assert _dirs(table) == ["base_0000002"]
    assert _with_ids(acid) == WALKTHROUGH_ROWS
    shown = acid.sql("SHOW COMPACTIONS").collect()
    assert [(r.compactionid, r.dbname, r.tabname, r.partname, r.type, r.state) for r in shown] == [
        (1, "default", "employee", "---", "MINOR", "succeeded"),
        (2, "default", "employee", "---", "MAJOR", "succeeded"),
    ]
    assert all(r.starttime is not None and r.duration >= 0 and r.highestwriteid == 2 for r in shown)
