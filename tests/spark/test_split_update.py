"""Split update over several writer files, on the driver path and on the Spark-task path."""

from __future__ import annotations

import pytest

from hiveacid_sql.acid.codec import decode_bucket_id
from tests.support.acid_files import events, listing


@pytest.mark.parametrize("driver_max_rows", ["10000", "5", "0"], ids=["driver", "over-the-driver-limit", "spark-tasks"])
def test_update_and_delete_across_writer_files(acid, warehouse, driver_max_rows):
    acid.sql(f"SET hiveacid.driver.write.max.rows={driver_max_rows}")
    acid.sql("CREATE TABLE src (id int, v string)")
    acid.sql("INSERT INTO src SELECT id, concat('v', id) FROM range(0, 40)")
    acid.sql("CREATE TABLE t (id int, v string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    # Two input partitions -> two writer tasks -> bucket_00000 and bucket_00001, as Hive's writer tasks do.
    acid.sql("INSERT INTO t SELECT /*+ REPARTITION(2) */ id, v FROM src")
    data_files = [p for p in listing(warehouse / "t") if p.endswith(tuple(f"bucket_0000{i}" for i in range(2)))]
    assert data_files == ["delta_0000001_0000001_0000/bucket_00000", "delta_0000001_0000001_0000/bucket_00001"]
    result = acid.sql("UPDATE t SET v = upper(v) WHERE id % 3 = 0")
    assert result.num_updated_rows == 14
    delete_dir = warehouse / "t/delete_delta_0000002_0000002_0000"
    for name in ("bucket_00000", "bucket_00001"):
        evs = events(delete_dir / name)
        keys = [(e["originalTransaction"], e["bucket"], e["rowId"]) for e in evs]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
        assert {decode_bucket_id(e["bucket"]) for e in evs} == {int(name[-5:])}  # deletes go to the row's bucket
        new_rows = events(warehouse / "t/delta_0000002_0000002_0000" / name)
        assert [e["rowId"] for e in new_rows] == list(range(len(evs)))  # new versions stay in the same bucket
        assert {decode_bucket_id(e["bucket"]) for e in new_rows} == {int(name[-5:])}
    rows = {r.id: r.v for r in acid.sql("SELECT id, v FROM t").collect()}
    assert len(rows) == 40
    assert all(v == (f"V{i}" if i % 3 == 0 else f"v{i}") for i, v in rows.items())
    deleted = acid.sql("DELETE FROM t WHERE id < 10")
    assert deleted.num_deleted_rows == 10
    assert sorted(r.id for r in acid.sql("SELECT id FROM t").collect()) == list(range(10, 40))


def test_a_point_statement_over_the_driver_limit_is_computed_again_for_the_tasks(spark, acid):
    """A WHERE that pins an integer column (``g IN (1, 2)``, ``g = 3``) is expected to change few rows, so its
    events are not kept by Spark (exec/dml.py ``_point_lookup``); when it changes more rows than the driver
    write takes, the writer tasks compute them once more: the same rows, events and counts."""
    from hiveacid_sql.exec.small_files import SMALL_FILE_MAX_ROWS_CONF

    acid.sql("SET hiveacid.driver.write.max.rows=5")
    acid.sql("SET hiveacid.driver.scan.max.rows=0")  # read by Spark, not on the driver
    spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")
    try:
        acid.sql("CREATE TABLE t (id int, g int, v string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
        acid.sql("INSERT INTO t SELECT id, id % 4, concat('v', id) FROM range(0, 40)")
        assert acid.sql("UPDATE t SET v = upper(v) WHERE g IN (1, 2)").num_updated_rows == 20
        assert acid.sql("DELETE FROM t WHERE g = 3").num_deleted_rows == 10
        assert acid.sql("UPDATE t SET v = 'one' WHERE id = 4").num_updated_rows == 1  # under the limit: the driver's
        rows = sorted((r.id, r.v) for r in acid.sql("SELECT id, v FROM t").collect())
    finally:
        spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)
    expected = [(i, "one" if i == 4 else (f"V{i}" if i % 4 in (1, 2) else f"v{i}")) for i in range(40) if i % 4 != 3]
    assert rows == expected
