"""A small DML target read on the driver as a local relation (:mod:`hiveacid_sql.exec.local_scan`).

Every statement runs twice, on twin tables: one with ``hiveacid.driver.scan.max.rows`` at its default (the
driver reads the target) and one with it 0 (Spark's scan). Rows, row ids, partitions and values must be
the same; and a one-row UPDATE of a 1,000-row table must launch no Spark job.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pyarrow.orc as porc

from hiveacid_sql.exec.metrics import measure
from hiveacid_sql.exec.small_files import SMALL_FILE_MAX_ROWS_CONF

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def _twins(acid, statements: list[str], query: str) -> list:
    """Run ``statements`` over ``{t}`` with the driver scan on (table ``on_``) and off (``off_``: Spark's ORC
    reader for every file, small ones too); the rows of ``query`` over each, which must be equal."""
    out = {}
    spark = acid.ctx.spark
    for name, limit in (("on_", "5000"), ("off_", "0")):
        acid.sql(f"SET hiveacid.driver.scan.max.rows={limit}")
        if limit == "0":
            spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")
        try:
            for s in statements:
                acid.sql(s.format(t=name))
            out[name] = sorted(acid.sql(query.format(t=name)).collect(), key=repr)
        finally:
            spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)
    acid.sql("SET hiveacid.driver.scan.max.rows=5000")
    assert out["on_"] == out["off_"]
    assert out["on_"]
    return out["on_"]


def test_update_and_delete_over_deletes_partitions_evolution_and_typed_values(acid):
    rows = _twins(
        acid,
        [
            "CREATE TABLE {t} (id int, dec decimal(12,3), c char(5), vc varchar(4), d date, ts timestamp) "
            f"PARTITIONED BY (p string) {ACID}",
            "INSERT INTO {t} VALUES "
            "(1, 1.5, 'ab', 'abcd', DATE '1500-03-01', TIMESTAMP '1400-01-01 10:11:12.123456', 'a'), "
            "(2, -99999.999, 'x', 'z', DATE '1582-10-04', TIMESTAMP '1582-10-15 00:00:00', 'a'), "
            "(3, NULL, NULL, NULL, NULL, NULL, NULL), "
            "(4, 0.001, 'abcde', '', DATE '2024-02-29', TIMESTAMP '2024-02-29 23:59:59.999999', 'b')",
            "DELETE FROM {t} WHERE id = 4",  # a delete delta the next statements' scans apply
            "ALTER TABLE {t} ADD COLUMNS (extra string)",
            "INSERT INTO {t} VALUES (5, 2.25, 'q', 'qq', DATE '0001-01-01', TIMESTAMP '0001-01-01 00:00:00', 'new', 'b')",
            "UPDATE {t} SET dec = dec * 2, c = concat(c, 'y'), vc = concat(vc, 'ww'), d = date_add(d, 1), "
            "ts = ts + INTERVAL 1 SECOND, extra = 'u' WHERE id <> 5",
            "UPDATE {t} SET id = id + 10 WHERE p = 'a' AND id = 1",
            "DELETE FROM {t} WHERE p IS NULL",
            "UPDATE {t} SET extra = concat(coalesce(extra, 'n'), '!') WHERE id IN (2, 5)",
        ],
        "SELECT row__id, * FROM {t}",
    )
    got = {r.id: r for r in rows}
    assert sorted(got) == [2, 5, 11]
    assert got[11].dec == Decimal("3.000") and got[11].c == "ab   " and got[11].d == dt.date(1500, 3, 2)
    assert got[2].vc == "zww" and got[2].ts == dt.datetime(1582, 10, 15, 0, 0, 1) and got[2].extra == "u!"
    assert got[5].d == dt.date(1, 1, 1) and got[5].extra == "new!"


def test_original_files_and_a_bucketed_table(acid, tmp_path):
    statements = []
    for name in ("on_", "off_"):
        location = tmp_path / f"{name}legacy"
        location.mkdir()
        data = {"id": pa.array(range(300), pa.int32()), "v": pa.array([f"v{i}" for i in range(300)])}
        porc.write_table(pa.table(data), str(location / "000000_0"))
        porc.write_table(pa.table(data).slice(0, 10), str(location / "000001_0"))
        statements.append(f"CREATE TABLE IF NOT EXISTS {name}legacy (id int, v string) STORED AS ORC "
                          f"LOCATION '{location}' TBLPROPERTIES ('transactional'='true')")
    _twins(
        acid,
        [
            *statements,
            "UPDATE {t}legacy SET v = 'x' WHERE id % 7 = 0",
            "DELETE FROM {t}legacy WHERE id < 5",
            "UPDATE {t}legacy SET v = concat(v, '+') WHERE id BETWEEN 5 AND 20",
        ],
        "SELECT row__id, * FROM {t}legacy",
    )
    _twins(
        acid,
        [
            f"CREATE TABLE {{t}}b (id int, v string) CLUSTERED BY (id) INTO 4 BUCKETS {ACID}",
            "INSERT INTO {t}b SELECT id, 'v' FROM range(0, 50)",
            "UPDATE {t}b SET v = 'w' WHERE id % 3 = 0",
            "DELETE FROM {t}b WHERE id % 5 = 0",
            "UPDATE {t}b SET v = concat(v, '!') WHERE id > 40",
        ],
        "SELECT row__id, * FROM {t}b",
    )


def test_a_one_row_update_of_a_small_table_launches_no_job(spark, acid):
    acid.sql(f"CREATE TABLE t (id int, v string) {ACID}")
    acid.sql("INSERT INTO t SELECT id, concat('v', id) FROM range(0, 1000)")
    result, work = measure(spark, lambda: acid.sql("UPDATE t SET v = 'x' WHERE id = 7"))
    assert (result.num_updated_rows, work.jobs) == (1, 0)
    result, work = measure(spark, lambda: acid.sql("DELETE FROM t WHERE id = 8"))  # with a delete delta now
    assert (result.num_deleted_rows, work.jobs) == (1, 0)
    acid.sql("SET hiveacid.driver.scan.max.rows=999")  # above the setting: the point read of its row group
    result, work = measure(spark, lambda: acid.sql("UPDATE t SET v = 'z' WHERE id = 9"))
    assert (result.num_updated_rows, work.jobs) == (1, 0)
    acid.sql("SET hiveacid.driver.scan.point.max.rows=0")  # neither (and no small-file reads): Spark's scan
    spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")
    try:
        result, work = measure(spark, lambda: acid.sql("UPDATE t SET v = 'y' WHERE id = 9"))
    finally:
        spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)
    assert result.num_updated_rows == 1 and work.jobs >= 1
    assert sorted(acid.sql("SELECT id, v FROM t WHERE id BETWEEN 6 AND 10").collect()) == [
        (6, "v6"), (7, "x"), (9, "y"), (10, "v10"),
    ]
