"""Bucketed plain and insert-only tables: rows land in Hive's bucket, in files named as Hive names them
(``000003_0``, one per bucket that received rows; ``_copy_1`` when INSERT INTO finds the name taken).

Expected buckets come from hashes Trino's ``TestHiveBucketing`` publishes (checked there against Hive's own
code), not from our hash function: int 300000 hashes to -678663480 (v2) / 300000 (v1), 2147483647 to
1133859967, -2147483648 to 1194881028; the bucket is ``(hash & 0x7fffffff) % n``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.orc as pa_orc
import pyarrow.parquet as pq
import pytest

from hiveacid_sql.errors import HiveAcidError

MM = "TBLPROPERTIES ('transactional'='true', 'transactional_properties'='insert_only')"
PUBLISHED_V2 = {300000: -678663480, 2147483647: 1133859967, -2147483648: 1194881028}


def _bucket(value: int, n: int) -> int:
    return (PUBLISHED_V2[value] & 0x7FFFFFFF) % n


def _tree(root: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(("_", "."))]
        out += [str(Path(dirpath, n).relative_to(root)) for n in filenames if not n.startswith(("_", "."))]
    return sorted(out)


def _ids(path: Path, fmt: str) -> list[int]:
    """The ``id`` column of one data file, read by a reader that knows nothing of us."""
    if fmt == "ORC":
        return sorted(pa_orc.read_table(path).column("id").to_pylist())
    if fmt == "PARQUET":
        return sorted(pq.read_table(path).column("id").to_pylist())
    return sorted(int(line.split("\x01")[0]) for line in path.read_text().splitlines())


def _rows(acid, sql: str) -> list[tuple]:
    return sorted(tuple(r) for r in acid.sql(sql).collect())


@pytest.mark.parametrize("fmt", ["ORC", "TEXTFILE"])
def test_plain_bucketed_table_one_hive_named_file_per_bucket(acid, warehouse: Path, fmt: str) -> None:
    acid.sql(f"CREATE TABLE b (id int, name string) CLUSTERED BY (id) INTO 7 BUCKETS STORED AS {fmt}")
    acid.sql("INSERT INTO b VALUES (300000, 'a'), (2147483647, 'b'), (-2147483648, 'c')")
    root = warehouse / "b"
    expected: dict[str, list[int]] = {}
    for value in PUBLISHED_V2:
        expected.setdefault(f"{_bucket(value, 7):06d}_0", []).append(value)
    assert _tree(root) == sorted(expected)
    assert {name: _ids(root / name, fmt) for name in expected} == {k: sorted(v) for k, v in expected.items()}
    # INSERT INTO a bucket that has its file: Hive's copy name beside it, same bucket id.
    acid.sql("INSERT INTO b VALUES (300000, 'd')")
    b300 = f"{_bucket(300000, 7):06d}_0"
    assert _tree(root) == sorted([*expected, f"{b300}_copy_1"])
    assert _ids(root / f"{b300}_copy_1", fmt) == [300000]
    assert _rows(acid, "SELECT name FROM b WHERE id = 300000") == [("a",), ("d",)]
    if fmt == "TEXTFILE":  # bucket pruning reads only the files of the row's bucket (and foreign names)
        other = next(b for b in range(7) if b != _bucket(300000, 7))
        (root / f"{other:06d}_0").write_text("300000\x01misplaced\n")
        (root / "from_elsewhere").write_text("300000\x01foreign\n")
        assert _rows(acid, "SELECT name FROM b WHERE id = 300000") == [("a",), ("d",), ("foreign",)]
        assert len(_rows(acid, "SELECT name FROM b WHERE id + 0 = 300000")) == 4  # not prunable: every file
        (root / f"{other:06d}_0").unlink()
        (root / "from_elsewhere").unlink()
    # INSERT OVERWRITE: only the buckets that received rows have a file afterwards.
    acid.sql("INSERT OVERWRITE TABLE b SELECT id, upper(name) FROM b WHERE id = 300000")
    assert _tree(root) == [b300]
    assert _rows(acid, "SELECT * FROM b") == [(300000, "A"), (300000, "D")]


def test_plain_partitioned_bucketed_version_1(acid, warehouse: Path) -> None:
    acid.sql(
        "CREATE TABLE pb (id int, v string) PARTITIONED BY (p string) CLUSTERED BY (id) INTO 4 BUCKETS "
        "STORED AS PARQUET TBLPROPERTIES ('bucketing_version'='1')"
    )
    acid.sql("INSERT INTO pb PARTITION (p) VALUES (5, 'a', 'x'), (6, 'b', 'x'), (9, 'c', 'x'), (7, 'd', 'y')")
    root = warehouse / "pb"
    # bucketing_version 1 hashes an int to itself: bucket = id % 4
    assert _tree(root) == ["p=x/000001_0", "p=x/000002_0", "p=y/000003_0"]
    assert _ids(root / "p=x" / "000001_0", "PARQUET") == [5, 9]
    assert _rows(acid, "SHOW PARTITIONS pb") == [("p=x",), ("p=y",)]
    assert _rows(acid, "SELECT id, p FROM pb WHERE p = 'x'") == [(5, "x"), (6, "x"), (9, "x")]


def test_insert_only_bucketed_insert_merge_prune_and_compact(acid, warehouse: Path) -> None:
    acid.sql(f"CREATE TABLE mb (id int, name string) CLUSTERED BY (id) INTO 7 BUCKETS STORED AS ORC {MM}")
    acid.sql("INSERT INTO mb VALUES (300000, 'a'), (2147483647, 'b')")
    acid.sql(
        "MERGE INTO mb USING (SELECT -2147483648 AS id, 'c' AS name) s ON mb.id = s.id "
        "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.name)"
    )
    root = warehouse / "mb"
    b300, bmax, bmin = (_bucket(v, 7) for v in (300000, 2147483647, -2147483648))
    assert _tree(root) == sorted(
        [
            f"delta_0000001_0000001_0000/{b300:06d}_0",
            f"delta_0000001_0000001_0000/{bmax:06d}_0",
            f"delta_0000002_0000002_0000/{bmin:06d}_0",
        ]
    )
    assert _ids(root / "delta_0000001_0000001_0000" / f"{b300:06d}_0", "ORC") == [300000]
    explain = "\n".join(r[0] for r in acid.sql("EXPLAIN SELECT * FROM mb WHERE id = 300000").collect())
    assert f"buckets read: {b300} of 7" in explain
    assert _rows(acid, "SELECT name FROM mb WHERE id = 300000") == [("a",)]
    result = acid.sql("ALTER TABLE mb COMPACT 'major' AND WAIT").collect()
    assert [r.state for r in result] == ["ready for cleaning"]
    base = root / "base_0000002"
    assert _tree(base) == sorted(f"{b:06d}_0" for b in (b300, bmax, bmin))
    assert _ids(base / f"{bmin:06d}_0", "ORC") == [-2147483648]
    assert _rows(acid, "SELECT * FROM mb") == [(-2147483648, "c"), (300000, "a"), (2147483647, "b")]


@pytest.mark.parametrize(
    ("ddl", "message"),
    [
        (
            "CREATE TABLE bad (id int) CLUSTERED BY (id) SORTED BY (nope) INTO 2 BUCKETS STORED AS ORC",
            "Invalid column reference 'nope' in SORTED BY of default.bad",
        ),
        ("CREATE TABLE bad (id int) CLUSTERED BY (nope) INTO 2 BUCKETS STORED AS PARQUET", "Invalid column reference 'nope'"),
    ],
)
def test_bucketed_plain_table_refusals(acid, warehouse: Path, ddl: str, message: str) -> None:
    with pytest.raises(HiveAcidError, match=message) as info:
        acid.sql(ddl)
    assert "\n" not in str(info.value)
    assert not acid.catalog.table_exists("default", "bad")


def test_sorted_by_sorts_each_bucket_file_and_is_stored_as_hive(acid, warehouse: Path) -> None:
    acid.sql(
        f"CREATE TABLE sb (id int, v int) CLUSTERED BY (id) SORTED BY (v DESC) INTO 2 BUCKETS STORED AS ORC {MM}"
    )
    acid.sql("INSERT INTO sb SELECT id, (id * 7) % 11 FROM (SELECT explode(sequence(1, 40)) AS id) s")
    delta = warehouse / "sb" / "delta_0000001_0000001_0000"
    for name in _tree(delta):
        values = pa_orc.read_table(delta / name).column("v").to_pylist()
        assert values == sorted(values, reverse=True) and len(values) > 1
    assert ("Sort Columns:", "[Order(col:v, order:0)]", "") in _rows(acid, "DESCRIBE FORMATTED sb")
    text = _rows(acid, "SHOW CREATE TABLE sb")[0][0]
    assert "CLUSTERED BY (\n  id)\nSORTED BY (\n  v DESC)\nINTO 2 BUCKETS" in text
    acid.sql("CREATE TABLE sb2 LIKE sb")
    assert acid.catalog.get_table("default", "sb2").sort_cols == (("v", 0),)
    assert _rows(acid, "SELECT count(*) FROM sb") == [(40,)]
