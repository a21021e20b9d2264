"""Plain (non-ACID) partitioned tables, managed and EXTERNAL, ORC / Parquet / TEXTFILE, the Hive way.

Hive's layout (``FileUtils.makePartName``/``escapePathName``): one directory ``k=v/..`` per partition under
the table (or where ``ADD PARTITION .. LOCATION`` puts it), the data files holding the data columns only, the
partition values living in the catalog (``PARTITIONS``/``PARTITION_KEY_VALS``); NULL and '' go to
``__HIVE_DEFAULT_PARTITION__``. ``INSERT OVERWRITE`` replaces only the partitions it writes (a full static
spec: that one, even with no rows). ``MSCK REPAIR TABLE`` registers directories written by others.
"""

from __future__ import annotations

import datetime as dt
import shutil

import pyarrow.parquet as pq
import pyorc
import pytest

from hiveacid_sql.errors import HiveAcidError


def _rows(acid, sql: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(sql).collect()]


def _data_files(path) -> list:
    return sorted(f for f in path.rglob("*") if f.is_file() and not f.name.startswith((".", "_")))


def _partitions(acid, table: str) -> list[str]:
    return [r[0] for r in acid.sql(f"SHOW PARTITIONS {table}").collect()]


@pytest.mark.parametrize("fmt", ["ORC", "PARQUET", "TEXTFILE"])
def test_static_dynamic_and_mixed_inserts_write_hive_partition_directories(acid, warehouse, fmt):
    acid.sql(f"CREATE TABLE t (id int, s string, d date) PARTITIONED BY (y int, c string) STORED AS {fmt}")
    acid.sql("INSERT INTO t PARTITION (y=2024, c='a/b') VALUES (1, 'one', DATE '2024-01-02')")  # static
    acid.sql("INSERT INTO t PARTITION (y, c) VALUES (2, 'two', NULL, 2023, 'x'), (3, '', NULL, 2023, NULL)")  # dynamic
    acid.sql("INSERT INTO t PARTITION (y=2025, c) SELECT id + 10, s, d, 'x' FROM t WHERE id = 1")  # mixed
    assert _rows(acid, "SELECT * FROM t ORDER BY id") == [
        (1, "one", dt.date(2024, 1, 2), 2024, "a/b"),
        (2, "two", None, 2023, "x"),
        (3, "", None, 2023, None),
        (11, "one", dt.date(2024, 1, 2), 2025, "x"),
    ]
    expected = ["y=2023/c=__HIVE_DEFAULT_PARTITION__", "y=2023/c=x", "y=2024/c=a%2Fb", "y=2025/c=x"]
    assert _partitions(acid, "t") == expected
    table = warehouse / "t"
    on_disk = sorted(str(f.parent.relative_to(table)) for f in _data_files(table))
    assert sorted(set(on_disk)) == expected
    # The catalog rows Hive reads: partition locations under the table, values unescaped.
    parts = acid.store.catalog.list_partitions("default", "t")
    assert [(p.name, p.values) for p in parts] == [
        ("y=2023/c=__HIVE_DEFAULT_PARTITION__", ("2023", None)),
        ("y=2023/c=x", ("2023", "x")),
        ("y=2024/c=a%2Fb", ("2024", "a/b")),
        ("y=2025/c=x", ("2025", "x")),
    ]
    assert all(p.location == f"{table}/{p.name}" for p in parts)
    # The files hold the data columns only, as Hive writes a partitioned table.
    one = _data_files(table / "y=2024" / "c=a%2Fb")[0]
    if fmt == "ORC":
        with one.open("rb") as f:
            assert list(pyorc.Reader(f).schema.fields) == ["id", "s", "d"]
    elif fmt == "PARQUET":
        assert pq.read_schema(one).names == ["id", "s", "d"]
    else:
        assert one.read_text() == "1\u0001one\u00012024-01-02\n"


def test_insert_overwrite_replaces_only_the_partitions_written(acid, warehouse):
    acid.sql("CREATE TABLE t (id int) PARTITIONED BY (p string) STORED AS ORC")
    acid.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    acid.sql("INSERT OVERWRITE TABLE t PARTITION (p) VALUES (20, 'b'), (40, 'd')")  # dynamic: b and d only
    assert _rows(acid, "SELECT p, id FROM t ORDER BY p") == [("a", 1), ("b", 20), ("c", 3), ("d", 40)]
    acid.sql("INSERT OVERWRITE TABLE t PARTITION (p='a') SELECT id FROM t WHERE id < 0")  # static, no rows
    assert _rows(acid, "SELECT p, id FROM t ORDER BY p") == [("b", 20), ("c", 3), ("d", 40)]
    assert _partitions(acid, "t") == ["p=a", "p=b", "p=c", "p=d"]  # Hive keeps the emptied partition
    assert _data_files(warehouse / "t" / "p=a") == []
    assert len(_data_files(warehouse / "t" / "p=b")) == 1
    acid.sql("INSERT OVERWRITE TABLE t PARTITION (p='new') VALUES (7)")
    assert _rows(acid, "SELECT id FROM t WHERE p = 'new'") == [(7,)]
    acid.sql("TRUNCATE TABLE t")
    assert _rows(acid, "SELECT count(*) FROM t") == [(0,)]
    assert _partitions(acid, "t") == ["p=a", "p=b", "p=c", "p=d", "p=new"]


def test_reads_prune_partitions(acid, warehouse):
    acid.sql("CREATE TABLE t (id int) PARTITIONED BY (p int) STORED AS PARQUET")
    acid.sql("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3), (4, 3)")
    df = acid.sql("SELECT id FROM t WHERE p = 3 ORDER BY id")
    assert [tuple(r) for r in df.collect()] == [(3,), (4,)]
    files = df.inputFiles()
    assert files and all("/t/p=3/" in f for f in files)
    assert len(files) == len(_data_files(warehouse / "t" / "p=3"))
    explain = [r[0] for r in acid.sql("EXPLAIN SELECT id FROM t WHERE p >= 2 AND id > 0").collect()]
    assert "  partitions read: 2 of 3 (pruned by p >= 2)" in explain
    assert explain[explain.index("  partitions read: 2 of 3 (pruned by p >= 2)") + 1 :][:2] == ["    p=2", "    p=3"]
    everything = acid.sql("SELECT id FROM t").inputFiles()
    assert len(everything) == len(_data_files(warehouse / "t"))


def test_add_partition_location_external_table_and_drop(acid, tmp_path):
    ext = tmp_path / "ext"
    elsewhere = tmp_path / "elsewhere"
    acid.sql(f"CREATE EXTERNAL TABLE e (id int, s string) PARTITIONED BY (ds string) STORED AS TEXTFILE LOCATION '{ext}'")
    acid.sql(f"ALTER TABLE e ADD IF NOT EXISTS PARTITION (ds='2024-01-01') LOCATION '{elsewhere}' PARTITION (ds='2024-01-02')")
    acid.sql(f"ALTER TABLE e ADD IF NOT EXISTS PARTITION (ds='2024-01-01') LOCATION '{elsewhere}'")  # no-op
    assert _partitions(acid, "e") == ["ds=2024-01-01", "ds=2024-01-02"]
    assert elsewhere.is_dir() and (ext / "ds=2024-01-02").is_dir()
    acid.sql("INSERT INTO e PARTITION (ds='2024-01-01') VALUES (1, 'x')")
    assert len(_data_files(elsewhere)) == 1 and not (ext / "ds=2024-01-01").exists()
    (elsewhere / "written_by_hive").write_text("2\u0001y\n")
    assert _rows(acid, "SELECT * FROM e ORDER BY id") == [(1, "x", "2024-01-01"), (2, "y", "2024-01-01")]
    with pytest.raises(HiveAcidError, match="Partition already exists"):
        acid.sql("ALTER TABLE e ADD PARTITION (ds='2024-01-01')")
    acid.sql("ALTER TABLE e DROP PARTITION (ds='2024-01-01')")
    assert _partitions(acid, "e") == ["ds=2024-01-02"]
    assert len(_data_files(elsewhere)) == 2  # external: the data stays
    acid.sql("CREATE TABLE m (id int) PARTITIONED BY (ds string) STORED AS ORC")
    acid.sql(f"ALTER TABLE m ADD PARTITION (ds='a') LOCATION '{tmp_path / 'm_a'}'")
    acid.sql("INSERT INTO m PARTITION (ds='a') VALUES (5)")
    assert _rows(acid, "SELECT * FROM m") == [(5, "a")]
    acid.sql("ALTER TABLE m DROP PARTITION (ds='a')")
    assert not (tmp_path / "m_a").exists()  # managed: the data goes with it


def test_msck_repair_adds_drops_and_syncs_partitions(acid, warehouse, tmp_path):
    acid.sql("CREATE TABLE src (id int) PARTITIONED BY (p string) STORED AS PARQUET")
    acid.sql("INSERT INTO src VALUES (1, 'a'), (2, 'b')")
    ext = tmp_path / "ext"
    acid.sql(f"CREATE EXTERNAL TABLE e (id int) PARTITIONED BY (p string) STORED AS PARQUET LOCATION '{ext}'")
    for part in ("p=a", "p=b"):
        shutil.copytree(warehouse / "src" / part, ext / part)
    (ext / "not_a_partition").mkdir()
    assert _rows(acid, "SELECT count(*) FROM e") == [(0,)]  # directories written by others: not yet known
    report = [r[0] for r in acid.sql("MSCK TABLE e").collect()]
    assert report == ["Partitions not in metastore:\te:p=a\te:p=b"] and _partitions(acid, "e") == []
    report = [r[0] for r in acid.sql("MSCK REPAIR TABLE e").collect()]
    assert report[1:] == ["Repair: Added partition to metastore e:p=a", "Repair: Added partition to metastore e:p=b"]
    assert _rows(acid, "SELECT p, id FROM e ORDER BY id") == [("a", 1), ("b", 2)]
    shutil.rmtree(ext / "p=a")
    shutil.copytree(warehouse / "src" / "p=b", ext / "p=c")
    acid.sql("MSCK REPAIR TABLE e ADD PARTITIONS")
    assert _partitions(acid, "e") == ["p=a", "p=b", "p=c"]
    report = [r[0] for r in acid.sql("MSCK REPAIR TABLE e DROP PARTITIONS").collect()]
    assert report == ["Partitions missing from filesystem:\te:p=a", "Repair: Dropped partition from metastore default.e:p=a"]
    assert _partitions(acid, "e") == ["p=b", "p=c"]
    shutil.rmtree(ext / "p=b")
    shutil.copytree(warehouse / "src" / "p=a", ext / "p=d")
    acid.sql("MSCK REPAIR TABLE e SYNC PARTITIONS")
    assert _partitions(acid, "e") == ["p=c", "p=d"]
    assert _rows(acid, "SELECT p, id FROM e ORDER BY p") == [("c", 2), ("d", 1)]


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("INSERT INTO t PARTITION (id=1) VALUES (1)", "'id' is not a partition column of default.t"),
        ("ALTER TABLE t ADD PARTITION (q='x')", "'q' is not a partition column of default.t"),
        ("ALTER TABLE t DROP PARTITION (p='zz')", "No partition matches"),
        ("SHOW PARTITIONS u", "Table default.u is not a partitioned table"),
        ("MSCK REPAIR TABLE u", "Table default.u is not a partitioned table"),
        ("ALTER TABLE u ADD PARTITION (p='x')", "Table default.u is not a partitioned table"),
        ("CREATE TABLE bad (id int) PARTITIONED BY (id string)", "Column repeated in partitioning columns: id"),
    ],
)
def test_bad_partition_statements_fail_in_one_line_and_change_nothing(acid, warehouse, statement, message):
    acid.sql("CREATE TABLE t (id int) PARTITIONED BY (p string) STORED AS ORC")
    acid.sql("CREATE TABLE u (id int) STORED AS ORC")
    acid.sql("INSERT INTO t VALUES (1, 'a')")
    before = (_partitions(acid, "t"), _data_files(warehouse), acid.store.catalog.list_tables("default"))
    with pytest.raises(HiveAcidError, match=message) as err:
        acid.sql(statement)
    assert "\n" not in str(err.value)
    assert (_partitions(acid, "t"), _data_files(warehouse), acid.store.catalog.list_tables("default")) == before


@pytest.mark.parametrize("fmt", ["ORC", "PARQUET"])
def test_read_table_reads_plain_partitions_without_spark(acid, warehouse, tmp_path, fmt):
    import hiveacid_sql

    acid.sql(f"CREATE TABLE t (id int, s string) PARTITIONED BY (y int, c string) STORED AS {fmt}")
    acid.sql("INSERT INTO t VALUES (1, 'a', 2024, 'x/y'), (2, NULL, 2025, NULL), (3, 'c', 2025, 'z')")
    acid.sql(f"ALTER TABLE t ADD PARTITION (y=2026, c='far') LOCATION '{tmp_path / 'far'}'")
    acid.sql("INSERT INTO t PARTITION (y=2026, c='far') VALUES (4, 'd')")
    whole = hiveacid_sql.read_table("t", warehouse=warehouse)
    assert whole.schema.names == ["id", "s", "y", "c"]
    assert sorted(tuple(r.values()) for r in whole.to_pylist()) == sorted(
        tuple(r) for r in acid.sql("SELECT * FROM t").collect()
    )
    pruned = hiveacid_sql.read_table("t", warehouse=warehouse, filter=[("y", "=", 2025)], columns=["id", "c"])
    assert sorted(tuple(r.values()) for r in pruned.to_pylist()) == [(2, None), (3, "z")]


def test_writes_clear_hive_stats_flag_of_the_partitions_they_change(acid):
    """Hive answers count(*) from statistics flagged accurate: our writes (plain INSERT, TRUNCATE, an ACID
    UPDATE) drop the flag of what they changed, so Hive reads the data instead of its old numbers."""
    import sqlalchemy as sa

    from hiveacid_sql.txn import schema as s

    flag = '{"BASIC_STATS":"true"}'
    acid.sql("CREATE TABLE p (id INT) PARTITIONED BY (d STRING) STORED AS ORC")
    acid.sql("CREATE TABLE a (id INT) PARTITIONED BY (d STRING) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    for t in ("p", "a"):
        acid.sql(f"INSERT INTO {t} PARTITION (d) VALUES (1, 'x'), (2, 'y')")

    def mark() -> None:
        with acid.store.engine.begin() as conn:
            for part_id in conn.execute(sa.select(s.PARTITIONS.c.PART_ID)).scalars():
                conn.execute(sa.delete(s.PARTITION_PARAMS).filter_by(PART_ID=part_id, PARAM_KEY="COLUMN_STATS_ACCURATE"))
                conn.execute(sa.insert(s.PARTITION_PARAMS).values(
                    PART_ID=part_id, PARAM_KEY="COLUMN_STATS_ACCURATE", PARAM_VALUE=flag
                ))

    def flagged() -> set[tuple[str, str]]:
        t, p, pp = s.TBLS.c, s.PARTITIONS.c, s.PARTITION_PARAMS.c
        with acid.store.engine.connect() as conn:
            return {tuple(r) for r in conn.execute(
                sa.select(t.TBL_NAME, p.PART_NAME).join(s.PARTITIONS, p.TBL_ID == t.TBL_ID)
                .join(s.PARTITION_PARAMS, pp.PART_ID == p.PART_ID).where(pp.PARAM_KEY == "COLUMN_STATS_ACCURATE")
            )}

    mark()
    acid.sql("INSERT INTO p PARTITION (d='x') VALUES (3)")
    acid.sql("UPDATE a SET id = 5 WHERE d = 'y'")
    assert flagged() == {("p", "d=y"), ("a", "d=x")}
    acid.sql("TRUNCATE TABLE p")
    assert flagged() == {("a", "d=x")}
