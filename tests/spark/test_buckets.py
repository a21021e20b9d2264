"""Bucketed ACID tables end to end: rows land in Hive's bucket, one file per bucket per delta, updates keep
(or, when a bucketing column changes, re-route) the bucket, and bucket pruning reads fewer files.

Expected bucket numbers come from hashes published by Trino's ``TestHiveBucketing`` (checked there against
Hive's own code), not from our hash function: int 300000 hashes to -678663480 (v2) / 300000 (v1),
2147483647 to 1133859967 / 2147483647, -2147483648 to 1194881028 / -2147483648; the bucket is
``(hash & 0x7fffffff) % n``.
"""

from __future__ import annotations

from collections import Counter

import pytest

from hiveacid_sql.errors import HiveAcidError
from tests.support.acid_files import events, listing

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
PUBLISHED_V2 = {300000: -678663480, 2147483647: 1133859967, -2147483648: 1194881028}
PUBLISHED_V1 = {300000: 300000, 2147483647: 2147483647, -2147483648: -2147483648}


def _bucket(hash_value: int, n: int) -> int:
    return (hash_value & 0x7FFFFFFF) % n


def _rows(acid, query: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(query).collect()]


def _explain(acid, statement: str) -> str:
    return "\n".join(r[0] for r in acid.sql(f"EXPLAIN {statement}").collect())


def _files_by_bucket(table_dir, directory: str) -> dict[int, list[dict]]:
    out = {}
    for path in listing(table_dir):
        if path.startswith(directory + "/bucket_"):
            out[int(path.rsplit("_", 1)[1])] = events(table_dir / path)
    return out


@pytest.mark.parametrize(("version", "hashes"), [("2", PUBLISHED_V2), ("1", PUBLISHED_V1)])
def test_rows_land_in_hives_bucket(acid, warehouse, version, hashes):
    props = "" if version == "2" else ", 'bucketing_version'='1'"
    acid.sql(
        "CREATE TABLE b (id int, name string) CLUSTERED BY (id) INTO 7 BUCKETS "
        f"STORED AS ORC TBLPROPERTIES ('transactional'='true'{props})"
    )
    assert dict(_rows(acid, "SHOW TBLPROPERTIES b"))["bucketing_version"] == version
    acid.sql("INSERT INTO b VALUES (300000, 'a'), (2147483647, 'b'), (-2147483648, 'c')")
    files = _files_by_bucket(warehouse / "b", "delta_0000001_0000001_0000")
    expected: dict[int, list[int]] = {}
    for value, h in hashes.items():
        expected.setdefault(_bucket(h, 7), []).append(value)
    assert {n: sorted(e["row"]["id"] for e in evs) for n, evs in files.items()} == {
        n: sorted(v) for n, v in expected.items()
    }
    for n, evs in files.items():
        assert [e["bucket"] for e in evs] == [(1 << 29) | (n << 16)] * len(evs)  # BucketCodec V1, statement 0
        assert [e["rowId"] for e in evs] == list(range(len(evs)))
    assert _rows(acid, "SELECT row__id.bucketid, id FROM b WHERE id = 300000") == [
        ((1 << 29) | (_bucket(hashes[300000], 7) << 16), 300000)
    ]


def test_many_spark_partitions_make_one_file_per_bucket(acid, warehouse, spark):
    acid.sql("CREATE TABLE src (id int, v string)")
    acid.sql("INSERT INTO src SELECT id, concat('v', id) FROM (SELECT explode(sequence(1, 600)) AS id) s")
    acid.sql(f"CREATE TABLE b (id int, v string) CLUSTERED BY (id) INTO 5 BUCKETS {ACID}")
    previous = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "7")
    try:
        # GROUP BY spreads the rows over 7 Spark partitions before they reach the writers.
        acid.sql("INSERT INTO b SELECT id, max(v) FROM src GROUP BY id")
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", previous)
    files = _files_by_bucket(warehouse / "b", "delta_0000001_0000001_0000")
    assert sorted(files) == [0, 1, 2, 3, 4]
    assert sum(len(evs) for evs in files.values()) == 600
    for n, evs in files.items():
        assert [e["rowId"] for e in evs] == list(range(len(evs)))  # unique, ascending row ids per file
        assert {e["bucket"] for e in evs} == {(1 << 29) | (n << 16)}
    # Every row sits in the bucket its id hashes to: a bucket-pruned point read finds each row.
    for probe in (1, 77, 600):
        assert _rows(acid, f"SELECT v FROM b WHERE id = {probe}") == [(f"v{probe}",)]


def test_update_keeps_the_bucket_and_reroutes_when_the_bucketing_column_changes(acid, warehouse):
    acid.sql(f"CREATE TABLE b (id int, name string) CLUSTERED BY (id) INTO 7 BUCKETS {ACID}")
    acid.sql("INSERT INTO b VALUES (300000, 'a'), (2147483647, 'b')")
    old = _bucket(PUBLISHED_V2[300000], 7)
    acid.sql("UPDATE b SET name = 'A' WHERE id = 300000")
    assert sorted(p for p in listing(warehouse / "b") if "_0000002_" in p and "bucket_" in p) == [
        f"delete_delta_0000002_0000002_0000/bucket_{old:05d}",
        f"delta_0000002_0000002_0000/bucket_{old:05d}",
    ]
    # Beyond Hive (error 10302): a new id moves the new version to the bucket the new id hashes to.
    acid.sql("UPDATE b SET id = -2147483648 WHERE id = 300000")
    new = _bucket(PUBLISHED_V2[-2147483648], 7)
    assert sorted(p for p in listing(warehouse / "b") if "_0000003_" in p and "bucket_" in p) == [
        f"delete_delta_0000003_0000003_0000/bucket_{old:05d}",
        f"delta_0000003_0000003_0000/bucket_{new:05d}",
    ]
    assert _rows(acid, "SELECT id, name FROM b ORDER BY id") == [(-2147483648, "A"), (2147483647, "b")]
    assert _rows(acid, "SELECT id FROM b WHERE id = -2147483648") == [(-2147483648,)]


def test_bucket_pruning_reads_only_matching_bucket_files(acid, warehouse):
    acid.sql(f"CREATE TABLE b (id int, name string) CLUSTERED BY (id) INTO 7 BUCKETS {ACID}")
    acid.sql("INSERT INTO b VALUES (300000, 'a'), (2147483647, 'b'), (-2147483648, 'c')")
    acid.sql("DELETE FROM b WHERE id = 2147483647")
    full = _explain(acid, "SELECT * FROM b")
    assert "  files read: 3 data, 1 delete" in full
    point = _explain(acid, "SELECT * FROM b WHERE id = 300000")
    assert f"  buckets read: {_bucket(PUBLISHED_V2[300000], 7)} of 7" in point
    assert "  files read: 1 data, 0 delete" in point
    both = _explain(acid, "SELECT * FROM b WHERE id IN (300000, 2147483647) AND name <> 'x'")
    expected = sorted({_bucket(PUBLISHED_V2[300000], 7), _bucket(PUBLISHED_V2[2147483647], 7)})
    assert f"  buckets read: {', '.join(map(str, expected))} of 7" in both
    assert "  files read: 2 data, 1 delete" in both
    assert _rows(acid, "SELECT name FROM b WHERE id IN (300000, 2147483647)") == [("a",)]
    # A literal of another type is left to Spark's comparison: no pruning, same answer.
    assert "buckets read" not in _explain(acid, "SELECT * FROM b WHERE id = '300000'")
    assert _rows(acid, "SELECT name FROM b WHERE id = '300000'") == [("a",)]


def test_partitioned_and_bucketed(acid, warehouse):
    acid.sql(f"CREATE TABLE pb (id int, v int) PARTITIONED BY (p string) CLUSTERED BY (id) INTO 4 BUCKETS {ACID}")
    acid.sql("INSERT INTO pb VALUES (300000, 1, 'x'), (2147483647, 2, 'x'), (300000, 3, 'y')")
    acid.sql("UPDATE pb SET v = v + 10 WHERE p = 'x' AND id = 2147483647")
    acid.sql("DELETE FROM pb WHERE p = 'y'")
    b300, bmax = _bucket(PUBLISHED_V2[300000], 4), _bucket(PUBLISHED_V2[2147483647], 4)
    assert [p for p in listing(warehouse / "pb") if "bucket_" in p] == sorted(
        [
            f"p=x/delta_0000001_0000001_0000/bucket_{b300:05d}",
            f"p=x/delta_0000001_0000001_0000/bucket_{bmax:05d}",
            f"p=y/delta_0000001_0000001_0000/bucket_{b300:05d}",
            f"p=x/delete_delta_0000002_0000002_0000/bucket_{bmax:05d}",
            f"p=x/delta_0000002_0000002_0000/bucket_{bmax:05d}",
            f"p=y/delete_delta_0000003_0000003_0000/bucket_{b300:05d}",
        ]
    )
    assert _rows(acid, "SELECT id, v, p FROM pb ORDER BY v") == [(300000, 1, "x"), (2147483647, 12, "x")]
    pruned = _explain(acid, "SELECT * FROM pb WHERE p = 'x' AND id = 300000")
    assert "  partitions read: 1 of 2 (pruned by p = 'x')" in pruned
    assert "  files read: 1 data, 0 delete" in pruned


def test_bucketing_rules(acid):
    with pytest.raises(HiveAcidError, match="cannot support full ACID functionality since it is sorted"):
        acid.sql(f"CREATE TABLE s (id int) CLUSTERED BY (id) SORTED BY (id) INTO 2 BUCKETS {ACID}")
    with pytest.raises(HiveAcidError, match="Invalid column reference 'nope'"):
        acid.sql(f"CREATE TABLE s (id int) CLUSTERED BY (nope) INTO 2 BUCKETS {ACID}")
    acid.sql(f"CREATE TABLE s (id int, name string) CLUSTERED BY (id, name) INTO 3 BUCKETS {ACID}")
    text = _rows(acid, "SHOW CREATE TABLE s")[0][0]
    assert "CLUSTERED BY (\n  id,\n  name)\nINTO 3 BUCKETS" in text
    acid.sql("INSERT INTO s VALUES (1, 'a'), (2, 'b'), (3, 'c'), (1, 'z')")
    assert Counter(r[0] for r in _rows(acid, "SELECT id FROM s")) == Counter({1: 2, 2: 1, 3: 1})
