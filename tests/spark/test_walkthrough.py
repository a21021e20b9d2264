"""Walkthrough sections 1 and 2, replayed through acid.sql(): directories, event rows, metadata, row__id."""

from __future__ import annotations

from tests.support.acid_files import events, listing, metadata, schema

CREATE = (
    "CREATE TABLE employee (id int, name string, salary int) "
    "STORED AS ORC TBLPROPERTIES ('transactional' = 'true')"
)
INSERT = "INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000)"
EVENT_SCHEMA = (
    "struct<operation:int,originalTransaction:bigint,bucket:int,rowId:bigint,currentTransaction:bigint,"
    "row:struct<id:int,name:string,salary:int>>"
)


def test_section_1_create_and_insert(acid, warehouse):
    acid.sql(CREATE)
    result = acid.sql(INSERT)
    assert result.num_inserted_rows == 3 and result.write_id == 1
    table = warehouse / "employee"
    assert listing(table) == [
        "delta_0000001_0000001_0000/_orc_acid_version",
        "delta_0000001_0000001_0000/bucket_00000",
    ]
    assert (table / "delta_0000001_0000001_0000/_orc_acid_version").read_bytes() == b"2"
    bucket = table / "delta_0000001_0000001_0000/bucket_00000"
    assert schema(bucket) == EVENT_SCHEMA
    assert events(bucket) == [
        {"operation": 0, "originalTransaction": 1, "bucket": 536870912, "rowId": 0, "currentTransaction": 1,
         "row": {"id": 1, "name": "Jerry", "salary": 5000}},
        {"operation": 0, "originalTransaction": 1, "bucket": 536870912, "rowId": 1, "currentTransaction": 1,
         "row": {"id": 2, "name": "Tom", "salary": 8000}},
        {"operation": 0, "originalTransaction": 1, "bucket": 536870912, "rowId": 2, "currentTransaction": 1,
         "row": {"id": 3, "name": "Kate", "salary": 6000}},
    ]
    assert metadata(bucket) == {
        "hive.acid.key.index": "1,536870912,2;",
        "hive.acid.stats": "3,0,0",
        "hive.acid.version": "2",
    }
    rows = acid.sql("SELECT row__id, id, name, salary FROM employee ORDER BY id").collect()
    assert [(r.row__id.asDict(), r.id, r.name, r.salary) for r in rows] == [
        ({"writeid": 1, "bucketid": 536870912, "rowid": 0}, 1, "Jerry", 5000),
        ({"writeid": 1, "bucketid": 536870912, "rowid": 1}, 2, "Tom", 8000),
        ({"writeid": 1, "bucketid": 536870912, "rowid": 2}, 3, "Kate", 6000),
    ]


def test_section_2_split_update(acid, warehouse):
    acid.sql(CREATE)
    acid.sql(INSERT)
    result = acid.sql("UPDATE employee SET salary = 7000 WHERE id = 2")
    assert result.num_updated_rows == 1 and result.num_affected_rows == 1 and result.write_id == 2
    assert result.directories == ("delete_delta_0000002_0000002_0000", "delta_0000002_0000002_0000")
    table = warehouse / "employee"
    assert listing(table) == [
        "delete_delta_0000002_0000002_0000/_orc_acid_version",
        "delete_delta_0000002_0000002_0000/bucket_00000",
        "delta_0000001_0000001_0000/_orc_acid_version",
        "delta_0000001_0000001_0000/bucket_00000",
        "delta_0000002_0000002_0000/_orc_acid_version",
        "delta_0000002_0000002_0000/bucket_00000",
    ]
    delete_file = table / "delete_delta_0000002_0000002_0000/bucket_00000"
    assert events(delete_file) == [
        {"operation": 2, "originalTransaction": 1, "bucket": 536870912, "rowId": 1, "currentTransaction": 2,
         "row": None},
    ]
    assert metadata(delete_file) == {
        "hive.acid.key.index": "1,536870912,1;",
        "hive.acid.stats": "0,0,1",
        "hive.acid.version": "2",
    }
    assert schema(delete_file) == EVENT_SCHEMA
    insert_file = table / "delta_0000002_0000002_0000/bucket_00000"
    assert events(insert_file) == [
        {"operation": 0, "originalTransaction": 2, "bucket": 536870912, "rowId": 0, "currentTransaction": 2,
         "row": {"id": 2, "name": "Tom", "salary": 7000}},
    ]
    assert metadata(insert_file)["hive.acid.key.index"] == "2,536870912,0;"
    rows = acid.sql("SELECT row__id, id, name, salary FROM employee ORDER BY id").collect()
    assert [(tuple(r.row__id), r.id, r.name, r.salary) for r in rows] == [
        ((1, 536870912, 0), 1, "Jerry", 5000),
        ((2, 536870912, 0), 2, "Tom", 7000),
        ((1, 536870912, 2), 3, "Kate", 6000),
    ]


def test_delete_writes_only_a_delete_delta(acid, warehouse):
    acid.sql(CREATE)
    acid.sql(INSERT)
    result = acid.sql("DELETE FROM employee WHERE salary > 5500")
    assert result.num_deleted_rows == 2 and result.directories == ("delete_delta_0000002_0000002_0000",)
    delete_file = warehouse / "employee/delete_delta_0000002_0000002_0000/bucket_00000"
    assert [(e["originalTransaction"], e["bucket"], e["rowId"], e["currentTransaction"]) for e in events(delete_file)] == [
        (1, 536870912, 1, 2),
        (1, 536870912, 2, 2),
    ]
    assert [r.id for r in acid.sql("SELECT id FROM employee").collect()] == [1]


def test_where_matching_nothing_writes_nothing(acid, warehouse):
    acid.sql(CREATE)
    acid.sql(INSERT)
    result = acid.sql("UPDATE employee SET salary = 1 WHERE id = 99")
    assert result.num_affected_rows == 0 and result.directories == ()
    assert listing(warehouse / "employee") == [
        "delta_0000001_0000001_0000/_orc_acid_version",
        "delta_0000001_0000001_0000/bucket_00000",
    ]
