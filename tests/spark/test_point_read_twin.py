"""The point read (:func:`hiveacid_sql.exec.local_scan.point_frame`) against the Spark scan, on random point
statements: two identical tables, one read with ``hiveacid.driver.scan.max.rows`` 1 (a larger table's point
statement is read on the driver, by ORC's search argument), one with it 0 (Spark's scan always). After every
UPDATE / DELETE the counts, and the rows with their row ids, must be the same.

Why random: the shapes that pick row groups (``=``, ``IN``, ``BETWEEN``, ranges with other conjuncts, the
literal on either side, a partition, NULL keys, ORs that give no key filter) meet deletes already present
and rows moved by earlier statements in combinations a hand-written list misses. Derandomized (a fixed seed):
a failure names its statement and replays. ``--full`` only (68 s at load 6 on two cores, another suite running).
"""

from __future__ import annotations

import random

import pytest

import hiveacid_sql.exec.binder as binder_module
from hiveacid_sql.exec.small_files import SMALL_FILE_MAX_ROWS_CONF

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
#: rows per partition: two 10,000-row groups in each partition's file, keys 0..KEYS-1 in both partitions
KEYS = 12_000
SEED = 20261128
STATEMENTS = 20


def _key_where(rng: random.Random) -> tuple[str, bool]:
    """A WHERE over ``k`` (and maybe ``v``, ``p``), and whether it gives a key filter (point-read candidate)."""
    a = rng.choice([rng.randrange(-5, KEYS + 5), rng.randrange(0, 40), rng.randrange(KEYS - 40, KEYS)])
    w = rng.randrange(0, 30)
    shapes = [
        (f"k = {a}", True),
        (f"k IN ({a}, {a + w}, {rng.randrange(KEYS)})", True),
        (f"k BETWEEN {a} AND {a + w}", True),
        (f"k >= {a} AND k < {a + w} AND v <> {rng.randrange(13)}", True),
        (f"{a} <= k AND {a + w} >= k AND s LIKE 's%1%'", True),
        (f"k > {KEYS - w - 1}", True),
        (f"k < {w}", True),
        (f"p = '{rng.choice('ab')}' AND k IN ({a}, {a + 1})", True),
        (f"k IN ({a}, NULL)", False),  # a NULL in the list: no key filter
        (f"(k = {a} OR k IS NULL) AND v = {rng.randrange(13)}", False),
        (f"k = {a} OR k = {a + w}", False),
    ]
    return rng.choice(shapes)


def _statement(rng: random.Random) -> tuple[str, bool]:
    where, keyed = _key_where(rng)
    if rng.random() < 0.4:
        return f"DELETE FROM {{t}} WHERE {where}", keyed
    sets = rng.choice([
        "v = v + 1",
        "s = concat(s, 'u')",
        "k = k + 100000",  # moved out of the key range: later point statements must not find it
        "k = NULL, v = -1",
        f"k = {rng.randrange(KEYS)}",  # moved onto another key: a point statement must find it there
        "v = NULL, s = NULL",
    ])
    return f"UPDATE {{t}} SET {sets} WHERE {where}", keyed


def _counts(result) -> tuple:
    return tuple(getattr(result, n, None) for n in ("num_updated_rows", "num_deleted_rows", "num_affected_rows"))


@pytest.mark.slow
def test_random_point_statements_read_on_the_driver_equal_the_spark_scan(spark, acid, monkeypatch):
    taken = []
    point_frame = binder_module.point_frame

    def counted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - a pass-through
        frame = point_frame(*args, **kwargs)
        taken.append(frame is not None)
        return frame

    monkeypatch.setattr(binder_module, "point_frame", counted)
    for t in ("on_", "off_"):
        acid.sql(f"CREATE TABLE {t} (k int, v int, s string) PARTITIONED BY (p string) {ACID}")
        # NULL keys every 97th row; a partition per half, the same keys in each
        acid.sql(
            f"INSERT INTO {t} SELECT CASE WHEN id % 97 = 0 THEN NULL ELSE CAST(id % {KEYS} AS int) END, "
            f"CAST(id % 13 AS int), concat('s', id), CASE WHEN id < {KEYS} THEN 'a' ELSE 'b' END "
            f"FROM range(0, {2 * KEYS})"
        )
        acid.sql(f"DELETE FROM {t} WHERE v = 7 AND k % 5 = 0")  # deletes already present (no key filter)

    def run(sql: str, name: str):
        acid.sql(f"SET hiveacid.driver.scan.max.rows={'1' if name == 'on_' else '0'}")
        if name == "off_":
            spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, "0")  # Spark's ORC reader for every file
        try:
            return acid.sql(sql.format(t=name))
        finally:
            spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)

    def snapshot(name: str, where: str = "") -> list:
        query = f"SELECT row__id.writeid, row__id.bucketid, row__id.rowid, k, v, s, p FROM {name}{where}"
        return sorted((tuple(r) for r in acid.sql(query).collect()), key=repr)

    rng = random.Random(SEED)
    keyed_statements = 0
    try:
        for i in range(STATEMENTS):
            sql, keyed = _statement(rng)
            keyed_statements += keyed
            before = len(taken)
            counts = {name: _counts(run(sql, name)) for name in ("on_", "off_")}
            assert counts["on_"] == counts["off_"], f"statement {i}: {sql}"
            # the rows the statement wrote (the new write id's) every time, every row now and then
            where = "" if i % 10 == 9 else f" WHERE row__id.writeid > {i + 2}"
            assert snapshot("on_", where) == snapshot("off_", where), f"statement {i}: {sql} (point read: {taken[before:]})"
    finally:
        acid.sql("SET hiveacid.driver.scan.max.rows=5000")
    assert snapshot("on_") == snapshot("off_")
    # the point read was taken, not only tried (a key filter's row groups of at most 50,000 rows here)
    assert sum(taken) >= keyed_statements // 2 > 0, (sum(taken), keyed_statements, len(taken))
