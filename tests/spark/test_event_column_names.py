"""Tables whose own columns are named like an event file's top-level columns (``operation``, ``bucket``,
``rowId``, ``currentTransaction``, ``originalTransaction``; ORC matches names in any case).

In a file ORC recognises as ACID it resolves a search argument's names inside ``row``, the table's columns; a
condition of the scan on the event columns that Spark handed to ORC (say the ``IsNotNull(operation)`` it
infers) was read there: SELECT lost every row of a table whose ``operation`` column was NULL, and skipped
delete events (``row`` NULL), so deleted rows came back (:func:`hiveacid_sql.exec.scan.event_column`)."""

from __future__ import annotations

from hiveacid_sql.exec.small_files import SMALL_FILE_MAX_ROWS_CONF

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def test_columns_named_like_the_event_columns_read_and_compact_right(spark, acid):
    acid.sql(
        "CREATE TABLE named (id int, bucket int, operation int, rowid bigint, currenttransaction bigint, "
        f"originalTransaction string) {ACID}"
    )
    acid.sql(
        "INSERT INTO named SELECT CAST(id AS int), CAST(id % 7 AS int), CAST(NULL AS int), NULL, id, NULL "
        "FROM range(0, 10000)"
    )
    assert acid.sql("SELECT count(*) FROM named").collect() == [(10000,)]  # was 0
    acid.sql("DELETE FROM named WHERE bucket % 4 = 0")  # 2,858 delete events: read by Spark
    expected = [(sum(1 for i in range(10000) if i % 7 % 4), sum(i for i in range(10000) if i % 7 % 4))]
    spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")  # every event file through Spark's ORC reader
    try:
        assert acid.sql("SELECT count(*), sum(id) FROM named").collect() == expected  # was 10,000 rows
        assert acid.sql("SELECT count(*) FROM named WHERE operation IS NULL AND bucket = 1").collect() == [
            (sum(1 for i in range(10000) if i % 7 == 1),)
        ]
        plan = acid.sql("SELECT id FROM named")._jdf.queryExecution().executedPlan().toString()  # noqa: SLF001 - the pushed filters
        for name in ("operation", "bucket", "rowId", "currentTransaction", "originalTransaction"):
            assert f"IsNotNull({name})" not in plan, plan
        acid.sql("ALTER TABLE named COMPACT 'major' AND WAIT")
        assert acid.sql("SELECT count(*), sum(id) FROM named").collect() == expected
    finally:
        spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)
