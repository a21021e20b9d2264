"""Insert-only ("MM") transactional tables end to end: files on disk as Hive lays them out, read back."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.orc as pa_orc
import pyarrow.parquet as pq
import pytest

from hiveacid_sql.errors import HiveAcidError

MM = "TBLPROPERTIES ('transactional'='true', 'transactional_properties'='insert_only')"
FORMATS = ["ORC", "PARQUET", "TEXTFILE"]


def _tree(root: Path) -> list[str]:
    """Every visible file under ``root``, relative (hidden staging dirs and markers left out)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(("_", "."))]
        for name in filenames:
            if not name.startswith(("_", ".")):
                out.append(str(Path(dirpath, name).relative_to(root)))
    return sorted(out)


def _rows(acid, sql: str) -> list[tuple]:
    return sorted(tuple(r) for r in acid.sql(sql).collect())


def _read_file(path: Path, fmt: str) -> list[tuple]:
    """A data file read by a reader that knows nothing of ACID (what Hive's plain serdes see)."""
    if fmt == "ORC":
        return sorted(tuple(r.values()) for r in pa_orc.read_table(path).to_pylist())
    if fmt == "PARQUET":
        return sorted(tuple(r.values()) for r in pq.read_table(path).to_pylist())
    return sorted(tuple(line.split("\x01")) for line in path.read_text().splitlines())


@pytest.mark.parametrize("fmt", FORMATS)
def test_insert_overwrite_truncate_layout_and_reads(acid, warehouse: Path, fmt: str) -> None:
    acid.sql(f"CREATE TABLE mm (id int, name string) STORED AS {fmt} {MM}")
    table = acid.catalog.get_table("default", "mm")
    assert table.is_insert_only and not table.is_full_acid
    r1 = acid.sql("INSERT INTO mm VALUES (1, 'a'), (2, 'b')")
    assert r1.num_inserted_rows == 2 and r1.write_id == 1
    assert r1.directories == ("delta_0000001_0000001_0000",)
    acid.sql("INSERT INTO mm SELECT id + 10, concat(name, 'x') FROM mm")
    root = warehouse / "mm"
    files = _tree(root)
    assert files[0] == "delta_0000001_0000001_0000/000000_0"
    assert all(f.split("/")[0] in ("delta_0000001_0000001_0000", "delta_0000002_0000002_0000") for f in files)
    assert all(f.split("/")[1].endswith("_0") and f.split("/")[1][:6].isdigit() for f in files)
    assert not (root / "delta_0000001_0000001_0000" / "_orc_acid_version").exists()  # plain files, no ACID marker
    # The file itself is a plain file of the table's format holding the rows (no ACID event columns).
    first = _read_file(root / "delta_0000001_0000001_0000" / "000000_0", fmt)
    assert [tuple(str(v) for v in r) for r in first] == [("1", "a"), ("2", "b")]
    assert _rows(acid, "SELECT * FROM mm") == [(1, "a"), (2, "b"), (11, "ax"), (12, "bx")]
    assert _rows(acid, "SELECT * FROM mm VERSION AS OF 1") == [(1, "a"), (2, "b")]

    r3 = acid.sql("INSERT OVERWRITE TABLE mm SELECT id * 100, name FROM mm WHERE id < 10")
    assert r3.directories == ("base_0000003",)
    assert _rows(acid, "SELECT * FROM mm") == [(100, "a"), (200, "b")]
    r4 = acid.sql("TRUNCATE TABLE mm")
    assert r4.directories == ("base_0000004",) and (root / "base_0000004").is_dir()
    assert _rows(acid, "SELECT * FROM mm") == []
    acid.sql("INSERT INTO mm VALUES (5, NULL)")
    assert _rows(acid, "SELECT * FROM mm") == [(5, None)]
    assert _rows(acid, "SELECT row__id, id FROM mm") == [(None, 5)]


@pytest.mark.parametrize("fmt", ["ORC", "TEXTFILE"])
def test_partitioned_static_dynamic_and_overwrite(acid, warehouse: Path, fmt: str) -> None:
    acid.sql(f"CREATE TABLE mp (id int, v string) PARTITIONED BY (p string) STORED AS {fmt} {MM}")
    acid.sql("INSERT INTO mp PARTITION (p='x') VALUES (1, 'a')")
    acid.sql("INSERT INTO mp VALUES (2, 'b', 'y'), (3, 'c', 'x/z'), (4, 'd', NULL)")
    files = _tree(warehouse / "mp")
    assert "p=x/delta_0000001_0000001_0000/000000_0" in files
    assert "p=y/delta_0000002_0000002_0000/000000_0" in files
    assert "p=x%2Fz/delta_0000002_0000002_0000/000000_0" in files
    assert "p=__HIVE_DEFAULT_PARTITION__/delta_0000002_0000002_0000/000000_0" in files
    assert _rows(acid, "SELECT * FROM mp") == [(1, "a", "x"), (2, "b", "y"), (3, "c", "x/z"), (4, "d", None)]
    assert _rows(acid, "SELECT id FROM mp WHERE p = 'x'") == [(1,)]
    assert [r[0] for r in acid.sql("SHOW PARTITIONS mp").collect()] == [
        "p=__HIVE_DEFAULT_PARTITION__", "p=x", "p=x%2Fz", "p=y",
    ]
    acid.sql("INSERT OVERWRITE TABLE mp PARTITION (p='x') SELECT 9, 'nine'")
    assert (warehouse / "mp" / "p=x" / "base_0000003" / "000000_0").is_file()
    assert _rows(acid, "SELECT * FROM mp WHERE p = 'x'") == [(9, "nine", "x")]
    acid.sql("INSERT OVERWRITE TABLE mp PARTITION (p='y') SELECT 1, 'gone' WHERE false")  # no rows: empty base
    assert (warehouse / "mp" / "p=y" / "base_0000004").is_dir()
    assert _rows(acid, "SELECT * FROM mp") == [(3, "c", "x/z"), (4, "d", None), (9, "nine", "x")]
    acid.sql("TRUNCATE TABLE mp")
    assert _rows(acid, "SELECT * FROM mp") == []
    assert sorted(p.name for p in (warehouse / "mp").iterdir()) == [
        "p=__HIVE_DEFAULT_PARTITION__", "p=x", "p=x%2Fz", "p=y",
    ]
    assert all((warehouse / "mp" / p / "base_0000005").is_dir() for p in ("p=x", "p=y", "p=x%2Fz"))


def test_snapshot_isolation_aborted_and_multi_statement(acid, warehouse: Path) -> None:
    acid.sql(f"CREATE TABLE mm (id int) STORED AS PARQUET {MM}")
    acid.sql("INSERT INTO mm VALUES (1)")
    acid.sql("BEGIN")
    acid.sql("INSERT INTO mm VALUES (2)")
    acid.sql("INSERT INTO mm VALUES (3)")
    assert _rows(acid, "SELECT * FROM mm") == [(1,), (2,), (3,)]  # the transaction sees its own writes
    import hiveacid_sql

    other = hiveacid_sql.connect(spark=acid.spark, warehouse=warehouse)
    try:
        assert _rows(other, "SELECT * FROM mm") == [(1,)]  # open write id: invisible to others
        assert sorted(p.name for p in (warehouse / "mm").iterdir() if not p.name.startswith("_")) == [
            "delta_0000001_0000001_0000", "delta_0000002_0000002_0000", "delta_0000002_0000002_0001",
        ]
        acid.sql("COMMIT")
        assert _rows(other, "SELECT * FROM mm") == [(1,), (2,), (3,)]
        acid.sql("BEGIN")
        acid.sql("INSERT INTO mm VALUES (4)")
        acid.sql("ROLLBACK")
        assert _rows(other, "SELECT * FROM mm") == [(1,), (2,), (3,)]
        # A directory of an aborted write id left on disk (a writer that died) is never read.
        aborted = warehouse / "mm" / "delta_0000003_0000003_0000"
        aborted.mkdir(exist_ok=True)
        (warehouse / "mm" / "delta_0000001_0000001_0000" / "000000_0").rename(aborted / "000000_0")
        assert _rows(other, "SELECT * FROM mm") == [(2,), (3,)]
    finally:
        other.close()


def test_merge_insert_only_clauses(acid) -> None:
    acid.sql(f"CREATE TABLE mm (id int, v string) STORED AS ORC {MM}")
    acid.sql("INSERT INTO mm VALUES (1, 'a')")
    acid.sql("CREATE TABLE src (id int, v string)")
    acid.sql("INSERT INTO src VALUES (1, 'x'), (2, 'y'), (3, 'z')")
    result = acid.sql(
        "MERGE INTO mm t USING src s ON t.id = s.id "
        "WHEN NOT MATCHED AND s.id = 2 THEN INSERT VALUES (s.id, s.v) "
        "WHEN NOT MATCHED THEN INSERT VALUES (s.id * 10, s.v)"
    )
    assert result.num_inserted_rows == 2 and result.num_target_rows_matched == 1
    assert sorted(result.directories) == ["delta_0000002_0000002_0000", "delta_0000002_0000002_0001"]
    assert _rows(acid, "SELECT * FROM mm") == [(1, "a"), (2, "y"), (30, "z")]


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE mm SET v = 'x'",
        "DELETE FROM mm WHERE id = 1",
        "MERGE INTO mm t USING mm s ON t.id = s.id WHEN MATCHED THEN DELETE",
        "MERGE INTO mm t USING mm s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 'y' "
        "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)",
    ],
)
def test_update_delete_refused_with_hives_message(acid, warehouse: Path, statement: str) -> None:
    acid.sql(f"CREATE TABLE mm (id int, v string) STORED AS TEXTFILE {MM}")
    acid.sql("INSERT INTO mm VALUES (1, 'a')")
    before = _tree(warehouse / "mm")
    with pytest.raises(HiveAcidError) as info:
        acid.sql(statement)
    message = str(info.value)
    assert "Attempt to do update or delete on table default.mm that is insert-only transactional" in message
    assert "\n" not in message
    assert _tree(warehouse / "mm") == before and _rows(acid, "SELECT * FROM mm") == [(1, "a")]


@pytest.mark.parametrize(
    ("ddl", "message"),
    [
        (f"CREATE EXTERNAL TABLE bad (id int) STORED AS ORC LOCATION '{{loc}}' {MM}", "because it's an external table"),
        (
            f"CREATE TABLE bad (id int) CLUSTERED BY (id) SORTED BY (nope) INTO 2 BUCKETS STORED AS ORC {MM}",
            "Invalid column reference 'nope' in SORTED BY of default.bad",
        ),
        (
            "CREATE TABLE bad (id int) STORED AS ORC TBLPROPERTIES ('transactional'='true', "
            "'transactional_properties'='insert_also')",
            "unknown value insert_also for transactional_properties",
        ),
    ],
)
def test_bad_insert_only_tables_are_refused(acid, tmp_path: Path, ddl: str, message: str) -> None:
    with pytest.raises(HiveAcidError, match=message) as info:
        acid.sql(ddl.replace("{loc}", str(tmp_path / "ext")))
    assert "\n" not in str(info.value)
    assert not acid.catalog.table_exists("default", "bad")


def _text_file(path: Path, rows: list[tuple]) -> None:
    """A LazySimpleSerDe file as Hive writes it (Ctrl-A between fields, \\N for NULL)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join("\x01".join("\\N" if v is None else str(v) for v in r) + "\n" for r in rows))


def test_hive_written_layout_reads_right(acid, tmp_path: Path) -> None:
    """The directories Hive 3.1 leaves in an insert-only table (mm_all.q): originals from before the table was
    transactional, ``000000_0`` / ``_copy_N`` files, a UNION's ``HIVE_UNION_SUBDIR_n`` inside a delta, two
    statements of one transaction, an INSERT OVERWRITE base; all adopted (every write id on disk committed)."""
    loc = tmp_path / "hive_mm"
    _text_file(loc / "000000_0", [(0, "original")])
    _text_file(loc / "delta_0000001_0000001_0000" / "000000_0", [(1, "one")])
    _text_file(loc / "delta_0000001_0000001_0000" / "000000_0_copy_1", [(2, None)])
    _text_file(loc / "delta_0000002_0000002_0000" / "HIVE_UNION_SUBDIR_1" / "000000_0", [(3, "u1")])
    _text_file(loc / "delta_0000002_0000002_0000" / "HIVE_UNION_SUBDIR_2" / "000000_0", [(4, "u2")])
    _text_file(loc / "delta_0000003_0000003_0000" / "000000_0", [(5, "s0")])
    _text_file(loc / "delta_0000003_0000003_0001" / "000001_0", [(6, "s1")])
    (loc / "delta_0000003_0000003_0001" / ".000001_0.crc").write_text("x")  # hidden: never read
    acid.sql(f"CREATE TABLE hive_mm (id int, v string) STORED AS TEXTFILE LOCATION '{loc}' {MM}")
    everything = [(0, "original"), (1, "one"), (2, None), (3, "u1"), (4, "u2"), (5, "s0"), (6, "s1")]
    assert _rows(acid, "SELECT * FROM hive_mm") == everything
    assert _rows(acid, "SELECT * FROM hive_mm VERSION AS OF 1") == everything[:3]
    # Our next write continues the write ids; then Hive's INSERT OVERWRITE base hides all older files.
    assert acid.sql("INSERT INTO hive_mm VALUES (7, 'ours')").write_id == 4
    _text_file(loc / "base_0000005" / "000000_0", [(10, "base")])
    acid.store.register_existing_write_ids("default", "hive_mm", 5)
    assert _rows(acid, "SELECT * FROM hive_mm") == [(10, "base")]


def _release_session_reads(acid) -> None:
    acid.ctx.release_leases()


@pytest.mark.parametrize("fmt", ["ORC", "PARQUET"])
def test_major_compaction_merges_visible_files_and_cleaner_removes_the_rest(acid, warehouse: Path, fmt: str) -> None:
    from hiveacid_sql.compactor import Compactor

    acid.sql(f"CREATE TABLE mm (id int, v string) PARTITIONED BY (p int) STORED AS {fmt} {MM}")
    acid.sql("INSERT INTO mm VALUES (1, 'a', 1), (2, 'b', 2)")
    acid.sql("INSERT OVERWRITE TABLE mm PARTITION (p=1) SELECT 10, 'ten'")
    acid.sql("INSERT INTO mm VALUES (11, 'k', 1)")
    acid.sql("BEGIN")
    acid.sql("INSERT INTO mm VALUES (99, 'aborted', 1)")
    acid.sql("ROLLBACK")
    acid.sql("INSERT INTO mm VALUES (12, 'l', 1)")
    expected = _rows(acid, "SELECT * FROM mm")
    assert expected == [(2, "b", 2), (10, "ten", 1), (11, "k", 1), (12, "l", 1)]
    result = acid.sql("ALTER TABLE mm PARTITION (p=1) COMPACT 'major' AND WAIT").collect()
    assert [r.state for r in result] == ["ready for cleaning"]
    part = warehouse / "mm" / "p=1"
    assert (part / "base_0000005" / "_metadata_acid").read_bytes() == b'{"thisFileVersion":"0","dataFormat":"compacted"}'
    assert _tree(part / "base_0000005") == ["000000_0"]
    assert not (part / "base_0000005" / "_orc_acid_version").exists()
    assert sorted(_read_file(part / "base_0000005" / "000000_0", fmt)) == [(10, "ten"), (11, "k"), (12, "l")]
    assert _rows(acid, "SELECT * FROM mm") == expected
    _release_session_reads(acid)
    Compactor(acid.spark, acid.store).clean()
    assert sorted(p.name for p in part.iterdir()) == ["base_0000005"]  # older base, deltas, aborted delta gone
    assert _rows(acid, "SELECT * FROM mm") == expected
    acid.sql("INSERT INTO mm VALUES (13, 'm', 1)")
    assert _rows(acid, "SELECT id FROM mm WHERE p = 1") == [(10,), (11,), (12,), (13,)]


def test_minor_compaction_and_initiator_of_insert_only(acid, warehouse: Path) -> None:
    from hiveacid_sql.compactor import Compactor

    acid.sql(f"CREATE TABLE mm (id int) STORED AS TEXTFILE {MM}")
    for i in range(4):
        acid.sql(f"INSERT INTO mm VALUES ({i})")
    acid.sql("ALTER TABLE mm COMPACT 'minor' AND WAIT")
    assert (warehouse / "mm" / "delta_0000001_0000004" / "000000_0").is_file()
    assert _rows(acid, "SELECT * FROM mm") == [(0,), (1,), (2,), (3,)]
    _release_session_reads(acid)
    compactor = Compactor(acid.spark, acid.store)
    compactor.clean()
    assert sorted(p.name for p in (warehouse / "mm").iterdir()) == ["delta_0000001_0000004"]
    for i in range(4, 7):
        acid.sql(f"INSERT INTO mm VALUES ({i})")
    acid.sql("ALTER TABLE mm SET TBLPROPERTIES ('compactorthreshold.hive.compactor.delta.num.threshold'='2')")
    table = acid.catalog.get_table("default", "mm")
    assert compactor.compaction_type(table, None, 0) == "major"  # never minor for an insert-only table
    assert len(compactor.initiate()) == 1
    compactor.work_all()
    assert _tree(warehouse / "mm" / "base_0000007") == ["000000_0"]
    assert _rows(acid, "SELECT * FROM mm") == [(i,) for i in range(7)]


def _kind(acid, name: str) -> tuple[bool, str | None]:
    params = acid.catalog.get_table("default", name).params
    return params.get("transactional") == "true", params.get("transactional_properties")


def test_create_transactional_table_and_create_as_settings(acid, warehouse: Path) -> None:
    acid.sql("CREATE TRANSACTIONAL TABLE t_orc (id int) STORED AS ORC")
    acid.sql("CREATE TRANSACTIONAL TABLE t_pq (id int) STORED AS PARQUET")
    acid.sql("CREATE TRANSACTIONAL TABLE t_txt (id int) STORED AS TEXTFILE")
    assert [_kind(acid, t) for t in ("t_orc", "t_pq", "t_txt")] == [
        (True, "default"), (True, "insert_only"), (True, "insert_only"),
    ]
    acid.sql("CREATE TABLE plain_default (id int) STORED AS ORC")
    assert _kind(acid, "plain_default") == (False, None)
    acid.sql("SET hive.create.as.insert.only=true")
    acid.sql("CREATE TABLE io_orc (id int) STORED AS ORC")
    acid.sql("CREATE TABLE io_txt (id int)")
    acid.sql("CREATE TABLE stays_plain (id int) STORED AS ORC TBLPROPERTIES ('transactional'='false')")
    acid.sql(f"CREATE EXTERNAL TABLE ext (id int) STORED AS ORC LOCATION '{warehouse / 'ext'}'")
    assert [_kind(acid, t) for t in ("io_orc", "io_txt", "ext")] == [
        (True, "insert_only"), (True, "insert_only"), (False, None),
    ]
    assert not acid.catalog.get_table("default", "stays_plain").is_transactional
    acid.sql("SET hive.create.as.acid=true")
    acid.sql("CREATE TABLE both_orc (id int) STORED AS ORC")
    acid.sql("CREATE TABLE both_pq (id int) STORED AS PARQUET")
    assert [_kind(acid, t) for t in ("both_orc", "both_pq")] == [(True, "default"), (True, "insert_only")]
    acid.sql("SET hive.create.as.insert.only=false")
    acid.sql("CREATE TABLE acid_orc (id int) STORED AS ORC")
    acid.sql("CREATE TABLE acid_pq (id int) STORED AS PARQUET")
    assert [_kind(acid, t) for t in ("acid_orc", "acid_pq")] == [(True, "default"), (False, None)]
    # The tables made this way work as their kind: a write and a read of each.
    for t in ("t_orc", "t_pq", "io_orc", "both_orc", "acid_pq"):
        acid.sql(f"INSERT INTO {t} VALUES (1)")
        assert _rows(acid, f"SELECT * FROM {t}") == [(1,)]
    assert (warehouse / "t_pq" / "delta_0000001_0000001_0000" / "000000_0").is_file()
    assert any(p.name.startswith("bucket_") for p in (warehouse / "t_orc" / "delta_0000001_0000001_0000").iterdir())
    acid.sql("UPDATE t_orc SET id = 2")
    assert _rows(acid, "SELECT * FROM t_orc") == [(2,)]
    with pytest.raises(HiveAcidError, match="insert-only transactional"):
        acid.sql("UPDATE io_orc SET id = 2")


def test_ctas_into_each_kind(acid, warehouse: Path) -> None:
    acid.sql("CREATE TABLE src (id int, v string)")
    acid.sql("INSERT INTO src VALUES (1, 'a'), (2, 'b')")
    acid.sql(f"CREATE TABLE c_mm STORED AS PARQUET {MM} AS SELECT * FROM src")
    acid.sql("CREATE TABLE c_acid STORED AS ORC TBLPROPERTIES ('transactional'='true') AS SELECT * FROM src")
    acid.sql("CREATE TRANSACTIONAL TABLE c_t STORED AS TEXTFILE AS SELECT id * 10 AS id, v FROM src")
    acid.sql("SET hive.create.as.insert.only=true")
    acid.sql("CREATE TABLE c_set AS SELECT * FROM src WHERE id = 2")
    assert [_kind(acid, t) for t in ("c_mm", "c_acid", "c_t", "c_set")] == [
        (True, "insert_only"), (True, "default"), (True, "insert_only"), (True, "insert_only"),
    ]
    assert _rows(acid, "SELECT * FROM c_mm") == [(1, "a"), (2, "b")]
    assert _rows(acid, "SELECT * FROM c_acid") == [(1, "a"), (2, "b")]
    assert _rows(acid, "SELECT * FROM c_t") == [(10, "a"), (20, "b")]
    assert _rows(acid, "SELECT * FROM c_set") == [(2, "b")]
    assert _tree(warehouse / "c_mm") == ["delta_0000001_0000001_0000/000000_0"]
    assert _tree(warehouse / "c_set") == ["delta_0000001_0000001_0000/000000_0"]


@pytest.mark.parametrize("kind", ["full", "insert_only"])
def test_hive4_compacted_dirs_count_once_their_visibility_txn_commits(acid, warehouse: Path, kind: str) -> None:
    """A Hive 4 compactor writes ``base_N_vT`` / ``delta_a_b_vT`` in its own transaction T: until T commits
    (or if it aborts) readers keep reading the inputs."""
    import shutil

    props = MM if kind == "insert_only" else "TBLPROPERTIES ('transactional'='true')"
    acid.sql(f"CREATE TABLE t (id int) STORED AS ORC {props}")
    acid.sql("INSERT INTO t VALUES (1)")
    acid.sql("INSERT INTO t VALUES (2)")
    root = warehouse / "t"

    def hive4_output(txn: int) -> Path:
        # The compactor's output, made from write id 1's files only, so reading it is visible in the rows.
        out = root / f"base_0000002_v{txn:07d}"
        shutil.copytree(root / "delta_0000001_0000001_0000", out)
        (out / "_metadata_acid").write_bytes(b'{"thisFileVersion":"0","dataFormat":"compacted"}')
        return out

    store = acid.store
    running = store.open_txn("hive", "compactor")
    hive4_output(running)
    assert _rows(acid, "SELECT * FROM t") == [(1,), (2,)]  # T open: the output does not exist yet
    store.abort_txn(running)
    assert _rows(acid, "SELECT * FROM t") == [(1,), (2,)]  # T aborted: a failed compaction's garbage
    done = store.open_txn("hive", "compactor")
    out = hive4_output(done)
    store.commit_txn(done)
    assert _rows(acid, "SELECT * FROM t") == [(1,)]  # T committed: base_2_vT is the table up to write id 2
    shutil.rmtree(out)
    assert _rows(acid, "SELECT * FROM t") == [(1,), (2,)]


@pytest.mark.parametrize("fmt", ["ORC", "PARQUET"])
def test_read_table_reads_the_same_snapshot(acid, warehouse: Path, fmt: str) -> None:
    import datetime as dt

    import hiveacid_sql

    acid.sql(f"CREATE TABLE mm (id int, ts timestamp, d decimal(10,2)) PARTITIONED BY (p string) STORED AS {fmt} {MM}")
    acid.sql("INSERT INTO mm VALUES (1, '1960-01-01 10:00:00.5', 1.25, 'a'), (2, NULL, NULL, NULL)")
    acid.sql("INSERT OVERWRITE TABLE mm PARTITION (p='b') SELECT 3, '2024-02-29 23:59:59', 3.5")
    acid.sql("BEGIN")
    acid.sql("INSERT INTO mm VALUES (4, NULL, 4, 'a')")  # open: invisible to read_table
    try:
        table = hiveacid_sql.read_table("mm", warehouse=warehouse)
        rows = sorted(tuple(r.values()) for r in table.to_pylist())
        from decimal import Decimal

        assert rows == [
            (1, dt.datetime(1960, 1, 1, 10, 0, 0, 500000), Decimal("1.25"), "a"),
            (2, None, None, None),
            (3, dt.datetime(2024, 2, 29, 23, 59, 59), Decimal("3.50"), "b"),
        ]
        assert hiveacid_sql.read_table("mm", warehouse=warehouse, filter=[("p", "=", "b")]).num_rows == 1
    finally:
        acid.sql("ROLLBACK")
    with pytest.raises(HiveAcidError, match="no row ids"):
        hiveacid_sql.read_table("mm", warehouse=warehouse, row_id=True)


def test_read_table_reads_textfile_tables_as_select(acid, warehouse: Path) -> None:
    """read_table reads TEXTFILE tables (insert-only and plain, Hive's defaults or ROW FORMAT DELIMITED) by
    LazySimpleSerDe's rules: NULL is the NULL text, '' stays '', fields by position; the same rows as SELECT."""
    from hiveacid_sql.reader import read_table

    acid.sql(f"CREATE TABLE tmm (i int, s string, d decimal(5,2), t timestamp) STORED AS TEXTFILE {MM}")
    acid.sql("CREATE TABLE tcsv (i int, s string) ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' "
             "NULL DEFINED AS 'nil' STORED AS TEXTFILE")
    for table in ("tmm", "tcsv"):
        extra = ", 1.5, TIMESTAMP '2020-01-02 03:04:05'" if table == "tmm" else ""
        none = ", NULL, NULL" if table == "tmm" else ""
        acid.sql(f"INSERT INTO {table} VALUES (1, ''{extra}), (NULL, NULL{none}), (3, 'x y'{extra})")
        expected = sorted((tuple(r) for r in acid.sql(f"SELECT * FROM {table}").collect()), key=str)
        got = sorted((tuple(r.values()) for r in read_table(f"default.{table}", warehouse=warehouse).to_pylist()), key=str)
        assert [tuple(str(v) if v is not None else None for v in r) for r in got] == [
            tuple(str(v) if v is not None else None for v in r) for r in expected
        ]
        assert (None,) * (4 if table == "tmm" else 2) in got and any(r[1] == "" for r in got)
