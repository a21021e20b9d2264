"""Key filters (``id = 7``, ``IN``, ranges) skip the stripes and row groups whose statistics exclude them
(:mod:`hiveacid_sql.exec.sarg`): a one-row UPDATE reads one stripe, and every statement still sees exactly
the rows it would see reading everything (deletes in skipped and read stripes, originals, partitions).

The tables get many stripes by rewriting an INSERT's delta file with the same events in stripes of 1,000
(the writers' own stripes hold 500,000 events), so the snapshot and the store stay those of the INSERT.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.orc as porc
import pytest

from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.exec.metrics import measure
from hiveacid_sql.exec.small_files import SMALL_FILE_MAX_ROWS_CONF
from tests.support.event_file_cases import B0, EMPLOYEE, EMPLOYEE_ROW, insert_events, write_file

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
ROWS = 10_000
STRIPE = 1_000


@pytest.fixture(autouse=True)
def _spark_reads_every_file(spark, acid):
    """The rows counted here are those Spark's ORC reader reads: the one-row files of the statements are read
    by it too, not on the driver (:mod:`hiveacid_sql.exec.small_files`, ``tests/spark/test_small_files.py``),
    and so are a point statement's row groups (``test_point_statements_read_their_row_groups_on_the_driver``
    turns the driver's point read back on)."""
    spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")
    acid.sql("SET hiveacid.driver.scan.point.max.rows=0")
    yield
    spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)


def _striped_table(acid, warehouse: Path, name: str = "t", part: str = "") -> Path:
    """``name (id int, name string, salary int)`` with ids 0..ROWS-1 (salary = id) in one delta file of
    ROWS / STRIPE stripes; ``part``: a partition spec ``p='a'`` of a table partitioned by ``p string``."""
    spec = f" PARTITION ({part})" if part else ""
    if not (warehouse / name).exists():
        parts = " PARTITIONED BY (p string)" if part else ""
        acid.sql(f"CREATE TABLE {name} (id int, name string, salary int){parts} {ACID}")
    acid.sql(f"INSERT INTO {name}{spec} VALUES (0, 'n0', 0)")
    where = warehouse / name / part.replace("'", "") if part else warehouse / name
    (path,) = sorted(where.glob("delta_*/bucket_*"), key=lambda p: p.stat().st_mtime)[-1:]
    write_id = int(path.parent.name.split("_")[1])
    rows = [{"id": i, "name": f"n{i}", "salary": i} for i in range(ROWS)]
    stats = write_file("pyorc", path, EMPLOYEE, [insert_events(write_id, B0, rows, EMPLOYEE_ROW)], rows_per_stripe=STRIPE)
    assert stats.rows == ROWS
    with path.open("rb") as f:
        assert porc.ORCFile(f).nstripes == ROWS // STRIPE
    return path


def _ids(acid, sql: str = "SELECT id, salary FROM t") -> dict[int, int]:
    return {r[0]: r[1] for r in acid.sql(sql).collect()}


def test_a_one_row_update_of_ten_stripes_reads_one(spark, acid, warehouse):
    _striped_table(acid, warehouse)
    _, work = measure(spark, lambda: acid.sql("UPDATE t SET salary = -1 WHERE id = 5500"))
    assert work.rows_read == STRIPE  # the stripe of 5000..5999 (one row group each), not the table's ROWS
    # a DELETE by IN and a range: the stripes holding its keys, plus the one-row delta and delete delta
    _, work = measure(spark, lambda: acid.sql("DELETE FROM t WHERE id = -1 OR id = -2"))
    # an OR: no key filter, everything read (the UPDATE's new version of 5500 and its delete event too)
    assert work.rows_read == ROWS + 1 + 1
    _, work = measure(spark, lambda: acid.sql("DELETE FROM t WHERE id IN (10, 9999)"))
    # two stripes and the delete delta's one event (its broadcast read once: a point WHERE keeps no events
    # in Spark's cache, so one job); the file of 5500's new version is skipped whole
    assert work.rows_read == 2 * STRIPE + 1
    _, work = measure(spark, lambda: acid.sql("UPDATE t SET salary = -2 WHERE id BETWEEN 2990 AND 3010 AND name LIKE 'n%'"))
    assert work.rows_read <= 2 * STRIPE + 10
    expected = {i: i for i in range(ROWS) if i not in (10, 9999)}
    expected[5500] = -1
    expected.update({i: -2 for i in range(2990, 3011)})
    assert _ids(acid) == expected
    # Spark's own setting is back as it was once the statements end
    assert spark.conf.get("spark.sql.orc.filterPushdown") == "true"
    explained = [r[0] for r in acid.sql("EXPLAIN DELETE FROM t WHERE id IN (1, 2) AND salary > 5 AND name = 'x'").collect()]
    assert "  key filters (skip files, stripes, row groups by statistics): id IN (1, 2), salary > 5" in explained


_POINT_STATEMENTS = [
    ("DELETE FROM {t} WHERE id = 1200 OR id = 8100", 2),  # no key filter: Spark's scan (two delete events)
    ("UPDATE {t} SET salary = -1 WHERE id = 5500", 1),
    ("DELETE FROM {t} WHERE id IN (1201, 8100, 8101)", 2),  # 8100's group holds a delete event already
    ("UPDATE {t} SET salary = salary + 1 WHERE id BETWEEN 1199 AND 1201", 1),  # 1200 and 1201 deleted
    ("UPDATE {t} SET salary = 0 WHERE id = 5500 AND name LIKE 'n%'", 1),  # the new version of 5500 (a delta)
    ("DELETE FROM {t} WHERE id = 30000000000", 0),  # beyond int: read as Spark compares it, nothing
    ("UPDATE {t} SET salary = 2 WHERE id >= 9990", 10),
    ("DELETE FROM {t} WHERE id < 0", 0),
]


def test_a_point_update_and_delete_of_a_large_table_launch_no_spark_job(spark, acid, warehouse):
    """Over ``hiveacid.driver.scan.max.rows``, a point statement's row groups are read on the driver (the
    small files of the statements before it too, as by default): no job, no row read by Spark."""
    spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)
    acid.sql("SET hiveacid.driver.scan.point.max.rows=50000")
    _striped_table(acid, warehouse)
    result, work = measure(spark, lambda: acid.sql("UPDATE t SET salary = -1 WHERE id = 5500"))
    assert "1 row(s)" in str(result) and (work.jobs, work.rows_read) == (0, 0)
    result, work = measure(spark, lambda: acid.sql("DELETE FROM t WHERE id IN (5500, 5501, 9999)"))
    assert "3 row(s)" in str(result) and (work.jobs, work.rows_read) == (0, 0)
    expected = {i: i for i in range(ROWS) if i not in (5500, 5501, 9999)}
    assert _ids(acid) == expected


def test_point_statements_read_their_row_groups_on_the_driver(spark, acid, warehouse):
    """A point UPDATE or DELETE of a table over ``hiveacid.driver.scan.max.rows`` reads the row groups its key
    filters leave on the driver and launches no Spark job at all (driver write too); with deletes in the
    groups it reads and in others, every statement changes exactly the rows and leaves exactly the table
    that the Spark scan does (the twin table, point read off)."""
    spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)  # the statements' small files: the driver's too, as by default
    for name in ("on_", "off_"):
        _striped_table(acid, warehouse, name)
    for sql, changed in _POINT_STATEMENTS:
        acid.sql("SET hiveacid.driver.scan.point.max.rows=0")
        assert f"{changed} row(s)" in str(acid.sql(sql.format(t="off_"))), sql
        acid.sql("SET hiveacid.driver.scan.point.max.rows=50000")
        result, work = measure(spark, lambda sql=sql: acid.sql(sql.format(t="on_")))
        assert f"{changed} row(s)" in str(result), sql
        if "OR" not in sql:
            assert (work.jobs, work.rows_read) == (0, 0), sql
    # over the bound (the groups of 1000 rows the statement's range leaves): Spark's scan, same rows
    acid.sql("SET hiveacid.driver.scan.point.max.rows=2500")
    result, work = measure(spark, lambda: acid.sql("UPDATE on_ SET salary = 3 WHERE id BETWEEN 100 AND 3100"))
    assert "2999 row(s)" in str(result) and work.jobs >= 1  # 1200 and 1201 deleted
    acid.sql("UPDATE off_ SET salary = 3 WHERE id BETWEEN 100 AND 3100")
    assert _ids(acid, "SELECT id, salary FROM on_") == _ids(acid, "SELECT id, salary FROM off_")
    rows = "SELECT row__id.writeid, row__id.bucketid, row__id.rowid, id, name, salary FROM {t}"
    on, off = (sorted(acid.sql(rows.format(t=t)).collect()) for t in ("on_", "off_"))
    assert on == off and len(on) == ROWS - 4
    # partitions: the partition column from the directory, the delete applied in its own partition only
    for name in ("on_p", "off_p"):
        _striped_table(acid, warehouse, name, "p='a'")
        _striped_table(acid, warehouse, name, "p='b'")
    for sql in ("UPDATE {t} SET salary = -1 WHERE id = 4321", "DELETE FROM {t} WHERE p = 'b' AND id IN (4321, 4322)",
                "UPDATE {t} SET salary = p WHERE id BETWEEN 4320 AND 4323"):
        acid.sql("SET hiveacid.driver.scan.point.max.rows=0")
        acid.sql(sql.format(t="off_p"))
        acid.sql("SET hiveacid.driver.scan.point.max.rows=50000")
        _, work = measure(spark, lambda sql=sql: acid.sql(sql.format(t="on_p")))
        assert work.jobs == 0, sql
    rows = "SELECT row__id.writeid, row__id.rowid, p, id, name, salary FROM {t}"
    on, off = (sorted(acid.sql(rows.format(t=t)).collect()) for t in ("on_p", "off_p"))
    assert on == off and len(on) == 2 * ROWS - 2


def test_the_point_read_leaves_what_it_cannot_read_exactly_to_spark(spark, acid, tmp_path):
    """A column named like an event's own (ORC C++ would resolve ``bucket`` to the event's bucket), a type
    pyorc's values would not give as Spark does (``char``), original files: the Spark scan, same rows. (The
    statements' small delete deltas are read on the driver, as by default: Spark's own ORC pushdown on a
    SELECT drops a delete delta whose table has a column ``bucket``, a bug of the Spark scan of its own.)"""
    spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)
    acid.sql("SET hiveacid.driver.scan.point.max.rows=50000")
    acid.sql(f"CREATE TABLE named (bucket int, v string) {ACID}")
    acid.sql(f"CREATE TABLE typed (id int, c char(3)) {ACID}")
    acid.sql("INSERT INTO named SELECT id, concat('v', id) FROM range(0, 6000)")
    acid.sql("INSERT INTO typed SELECT id, 'ab' FROM range(0, 6000)")
    location = tmp_path / "legacy"
    location.mkdir()
    porc.write_table(pa.table({"id": pa.array(range(6000), pa.int32())}), str(location / "000000_0"))
    acid.sql(f"CREATE TABLE legacy (id int) STORED AS ORC LOCATION '{location}' TBLPROPERTIES ('transactional'='true')")
    for sql, changed in [
        ("UPDATE named SET v = 'x' WHERE bucket = 7", 1),
        ("UPDATE typed SET c = 'x' WHERE id = 7", 1),
        ("DELETE FROM legacy WHERE id IN (7, 8)", 2),
    ]:
        result, work = measure(spark, lambda sql=sql: acid.sql(sql))
        assert f"{changed} row(s)" in str(result) and work.jobs >= 1, sql
    assert sorted(acid.sql("SELECT bucket, v FROM named WHERE bucket BETWEEN 6 AND 8").collect()) == [(6, "v6"), (7, "x"), (8, "v8")]
    assert sorted(acid.sql("SELECT id, c FROM typed WHERE id BETWEEN 6 AND 8").collect()) == [(6, "ab "), (7, "x  "), (8, "ab ")]
    assert sorted(r[0] for r in acid.sql("SELECT id FROM legacy WHERE id < 10").collect()) == [0, 1, 2, 3, 4, 5, 6, 9]


def test_deletes_in_skipped_and_read_stripes_and_literals(spark, acid, warehouse):
    """A row deleted in a stripe the next statement reads stays deleted; a row deleted in a stripe it skips
    stays deleted too (the delete events are always read whole), and the counts are exact; literals that
    are negative, beyond the type or strings change exactly Spark's rows."""
    _striped_table(acid, warehouse)
    acid.sql("DELETE FROM t WHERE id = 1200 OR id = 8100")  # stripes 1 and 8, no key filter
    result = acid.sql("UPDATE t SET salary = 0 WHERE id >= 1199 AND id <= 1201")
    assert "2 row(s)" in str(result)
    result = acid.sql("UPDATE t SET salary = salary + 1 WHERE id IN (1200, 1201, 8100, 8101)")
    assert "2 row(s)" in str(result)
    acid.sql("DELETE FROM t WHERE id > 9000")
    # literals of other kinds and beyond the column's type: no key filter, or one ORC compares as Spark does
    for sql, changed in [
        ("UPDATE t SET salary = 1 WHERE id < -5", 0),
        ("UPDATE t SET salary = 1 WHERE id = 30000000000", 0),  # beyond int: Spark compares as bigint
        ("UPDATE t SET salary = 7 WHERE id < 30000000000 AND id >= 8999", 2),
        ("UPDATE t SET salary = 8 WHERE id = '42'", 1),  # a string literal: no key filter, Spark's cast
        ("UPDATE t SET salary = 9 WHERE salary IN (43, 44) AND id > 0", 2),
    ]:
        assert f"{changed} row(s)" in str(acid.sql(sql)), sql
    expected = {i: i for i in range(9001) if i not in (1200, 8100)}
    expected.update({1199: 0, 1201: 1, 8101: 8102, 8999: 7, 9000: 7, 42: 8, 43: 9, 44: 9})
    assert _ids(acid) == expected
    assert _ids(acid, "SELECT id, salary FROM t WHERE id < 5") == {i: i for i in range(5)}


def test_partitioned_table_and_original_files(spark, acid, warehouse, tmp_path):
    _striped_table(acid, warehouse, "pt", "p='a'")
    _striped_table(acid, warehouse, "pt", "p='b'")
    _, work = measure(spark, lambda: acid.sql("UPDATE pt SET salary = -1 WHERE id = 4321"))
    assert work.rows_read == 2 * STRIPE  # one stripe per partition
    _, work = measure(spark, lambda: acid.sql("DELETE FROM pt WHERE p = 'b' AND id = 4322"))
    assert work.rows_read == STRIPE + 1  # partition b's stripe and its delete event (once); 4321's new version skipped
    got = {(r[0], r[1]): r[2] for r in acid.sql("SELECT p, id, salary FROM pt").collect()}
    assert len(got) == 2 * ROWS - 1 and (("b", 4322) not in got)
    assert got[("a", 4321)] == got[("b", 4321)] == -1 and got[("a", 4322)] == 4322

    # Original (pre-ACID) files: read whole by Python tasks, pruned or not the same rows.
    location = tmp_path / "legacy"
    location.mkdir()
    porc.write_table(pa.table({"id": pa.array(range(3000), pa.int32()), "salary": pa.array(range(3000), pa.int32())}),
                     str(location / "000000_0"), stripe_size=4096)
    acid.sql(f"CREATE TABLE legacy (id int, salary int) STORED AS ORC LOCATION '{location}' "
             "TBLPROPERTIES ('transactional'='true')")
    acid.sql("UPDATE legacy SET salary = -1 WHERE id = 2500")
    acid.sql("DELETE FROM legacy WHERE id IN (2500, 7)")
    acid.sql("UPDATE legacy SET salary = -3 WHERE id >= 2499 AND id <= 2501")
    expected = {i: i for i in range(3000) if i not in (7, 2500)}
    expected.update({2499: -3, 2501: -3})
    assert _ids(acid, "SELECT id, salary FROM legacy") == expected


def test_files_excluded_by_their_statistics(tmp_path):
    """The footer's min/max of an integer ``row`` field drop whole insert files before Spark opens them."""
    import pyarrow.fs as pafs

    from hiveacid_sql.acid.hive_types import parse_hive_type
    from hiveacid_sql.acid.orc_footer import read_footer
    from hiveacid_sql.exec.sarg import excluded_by
    from hiveacid_sql.plan.pruning import KeyFilter

    path = tmp_path / "bucket_00000"
    rows = [{"id": i, "name": "x", "salary": None} for i in range(100, 200)]
    write_file("fast", path, EMPLOYEE, [insert_events(1, B0, rows, EMPLOYEE_ROW)])
    footer = read_footer(pafs.LocalFileSystem(), str(path))
    assert footer.int_ranges == ((0, (100, 199)), (2, None))

    def excluded(*filters: KeyFilter, columns=EMPLOYEE) -> bool:
        return excluded_by(footer, columns, filters)

    kept = [("=", (100,)), ("=", (199,)), ("in", (5, 150)), ("<", (101,)), ("<=", (100,)), (">", (198,)), (">=", (199,))]
    for op, values in kept:
        assert not excluded(KeyFilter("id", op, values)), (op, values)
    gone = [("=", (99,)), ("=", (200,)), ("in", (5, 250)), ("<", (100,)), ("<=", (99,)), (">", (199,)), (">=", (200,))]
    for op, values in gone:
        assert excluded(KeyFilter("id", op, values)), (op, values)
    assert excluded(KeyFilter("salary", ">", (0,)))  # only NULLs: no comparison holds
    assert not excluded(KeyFilter("name", "=", (1,)))  # not an integer field: never by statistics
    assert excluded(KeyFilter("id", ">", (150,)), KeyFilter("id", "=", (5,)))  # one conjunct is enough
    assert not excluded(KeyFilter("id", ">", (150,)), KeyFilter("id", "<", (120,)))  # each alone may hold
    # a column stored with another type than the table's (schema evolution): not by statistics
    evolved = [("id", parse_hive_type("bigint")), *EMPLOYEE[1:]]
    assert not excluded(KeyFilter("id", "=", (5,)), columns=evolved)


def test_mixed_case_names_old_dates_and_buckets(spark, acid):
    """Mixed-case names, dates before 1583 (the exact-calendar read, whose reader options
    the search argument joins) and a bucketed table: the same rows as without skipping."""
    acid.sql(f"CREATE TABLE odd (`my_id` int, `MyKey` bigint, d date) {ACID}")
    acid.sql("INSERT INTO odd SELECT id, id * 2, date_add(DATE '1500-01-01', CAST(id AS int)) FROM range(0, 30)")
    assert "1 row(s)" in str(acid.sql("UPDATE odd SET d = DATE '0001-01-01' WHERE `my_id` = 5 AND `MyKey` >= 10"))
    assert "2 row(s)" in str(acid.sql("DELETE FROM odd WHERE `MyKey` IN (4, 40, 400)"))
    rows = {r[0]: (r[1], str(r[2])) for r in acid.sql("SELECT * FROM odd").collect()}
    assert len(rows) == 28 and 2 not in rows and 20 not in rows
    assert rows[5] == (10, "0001-01-01") and rows[6] == (12, "1500-01-07")
    acid.sql(f"CREATE TABLE b (id int, v int) CLUSTERED BY (v) INTO 4 BUCKETS {ACID}")
    acid.sql("INSERT INTO b SELECT id, id % 7 FROM range(0, 100)")
    assert "4 row(s)" in str(acid.sql("UPDATE b SET id = -id WHERE v = 3 AND id < 30"))
    assert sorted(r[0] for r in acid.sql("SELECT id FROM b WHERE v = 3").collect()) == sorted(
        [-i for i in range(100) if i % 7 == 3 and i < 30] + [i for i in range(100) if i % 7 == 3 and i >= 30]
    )


def test_a_merge_reads_only_the_target_stripes_its_source_keys_can_match(spark, acid, warehouse):
    """MERGE .. ON t.id = s.id: the source's key range (an ACID source table's footers, a local VALUES
    source) becomes key filters of the target's scan (:mod:`hiveacid_sql.exec.merge_keys`), and the result
    is the unpruned one: NOT MATCHED rows are still inserted, a NOT MATCHED BY SOURCE clause still sees every
    row, and a cardinality violation inside the range still fails and changes nothing."""
    _striped_table(acid, warehouse)
    acid.sql(f"CREATE TABLE s (id int, name string, salary int) {ACID}")
    # 50 ids in the last stripe (updated), 50 past the table's end (inserted)
    acid.sql("INSERT INTO s SELECT CAST(id AS int), concat('m', id), CAST(-id AS int) FROM range(9950, 10050)")
    merge = (
        "MERGE INTO t USING {source} ON t.id = s.id WHEN MATCHED THEN UPDATE SET salary = s.salary "
        "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.name, s.salary)"
    )
    result, work = measure(spark, lambda: acid.sql(merge.format(source="s")))
    assert (result.num_updated_rows, result.num_inserted_rows, result.num_source_rows) == (50, 50, 100)
    # the last stripe and the source's one file, not the table's ROWS (the kept join's cached batches, read
    # again by the aggregate and the write, count a few input records more)
    assert STRIPE + 100 <= work.rows_read < 2 * STRIPE
    expected = {i: (-i if i >= 9950 else i) for i in range(10050)}
    # a local source: its rows are on the driver, the range [-1, 4] reads stripe 0 (the MERGE's delta of
    # 9950..10049 is dropped by its footer, the delete delta's 50 events are read whole)
    values = "(SELECT * FROM VALUES (3, 'a', 30), (4, 'b', 40), (-1, 'c', -10) AS v(id, name, salary)) AS s"
    result, work = measure(spark, lambda: acid.sql(merge.format(source=values)))
    assert (result.num_updated_rows, result.num_inserted_rows) == (2, 1)
    assert STRIPE <= work.rows_read < 2 * STRIPE
    expected.update({3: 30, 4: 40, -1: -10})
    # NOT MATCHED BY SOURCE needs every target row: no range, everything read
    result, work = measure(
        spark, lambda: acid.sql("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED BY SOURCE AND t.id < 2 THEN DELETE")
    )
    assert result.num_deleted_rows == 3 and work.rows_read >= ROWS
    for gone in (-1, 0, 1):
        del expected[gone]
    assert _ids(acid) == expected

    # a target row matched twice inside the range: Hive's error, nothing written
    acid.sql("INSERT INTO s VALUES (9960, 'twice', 1)")
    before = sorted(p.name for p in (warehouse / "t").iterdir())
    with pytest.raises(HiveAcidError, match="Cardinality Violation in Merge statement: target row .* is matched by 2 source rows"):
        acid.sql(merge.format(source="s"))
    assert sorted(p.name for p in (warehouse / "t").iterdir()) == before
    assert _ids(acid) == expected
