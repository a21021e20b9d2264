"""An object-store warehouse, the part this project does on files through ``pyarrow.fs``: reading a table
(``read_table``) and dumping its events (``hiveacid-sql dump``) from ``s3://`` against an S3-compatible
server started here (moto in server mode).

Why: on S3 there are no directories and no rename, only keys; listing a table, choosing its snapshot's files
and reading them must work from keys alone. The table is written by Spark on the local disk (Spark's S3
connector needs Hadoop's AWS jars, which this machine cannot fetch), copied key by key to the bucket, and
must read back there exactly as it reads locally. An INSERT of VALUES (no Spark read of the table) writes
straight to the bucket, and compaction runs there (Hive 4's ``_v<txn>`` outputs, no rename; its inputs read in
Python tasks). Statements that read through Spark (UPDATE, DELETE, MERGE, SELECT) are not covered (README,
"Object stores").
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pyarrow.fs as pafs
import pytest

from hiveacid_sql import read_table
from hiveacid_sql.acid.orc_dump import dump_path
from tests.support.spark_servers import S3Server

BUCKET = "acid-warehouse"


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    server = S3Server(tmp_path_factory.mktemp("s3-server"))
    saved = {k: os.environ.get(k) for k in server.env}
    os.environ.update(server.env)
    try:
        fs = pafs.S3FileSystem(endpoint_override=server.endpoint, allow_bucket_creation=True)
        fs.create_dir(BUCKET)
        yield server
    finally:
        server.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _upload(local: Path, uri: str) -> None:
    fs, path = pafs.FileSystem.from_uri(uri)
    pafs.copy_files(str(local), path, source_filesystem=pafs.LocalFileSystem(), destination_filesystem=fs)


def _sorted_rows(table) -> list[dict]:
    return sorted(table.to_pylist(), key=lambda r: json.dumps(r, sort_keys=True, default=str))


def test_a_table_reads_from_s3_as_it_reads_locally(s3, acid, warehouse):
    acid.sql(
        "CREATE TABLE e (id int, name string) PARTITIONED BY (p int) STORED AS ORC "
        "TBLPROPERTIES ('transactional'='true')"
    )
    acid.sql("INSERT INTO e VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 2), (4, 'd', 2)")
    acid.sql("UPDATE e SET name = 'B' WHERE id = 2")
    acid.sql("DELETE FROM e WHERE id = 3")
    acid.sql("ALTER TABLE e PARTITION (p=1) COMPACT 'minor' AND WAIT")
    acid.sql("INSERT INTO e VALUES (5, 'e', 2)")
    local = warehouse / "e"
    uri = f"s3://{BUCKET}/warehouse/e"
    _upload(local, uri)

    here = read_table(local, row_id=True)
    there = read_table(uri, row_id=True)
    assert _sorted_rows(there) == _sorted_rows(here)
    assert sorted(r["id"] for r in there.to_pylist()) == [1, 2, 4, 5]
    assert there.num_rows == acid.sql("SELECT count(*) FROM e").collect()[0][0]
    # time travel by write id works from the keys too (write id 1: the first INSERT only)
    assert _sorted_rows(read_table(uri, version=1)) == _sorted_rows(read_table(local, version=1))


def test_dump_reads_event_files_from_s3(s3, acid, warehouse):
    acid.sql("CREATE TABLE d (id int) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO d VALUES (1), (2)")
    acid.sql("DELETE FROM d WHERE id = 1")
    uri = f"s3://{BUCKET}/warehouse/d"
    _upload(warehouse / "d", uri)

    def events(lines: list[str], prefix: str) -> list[tuple[str, str]]:
        out = []
        for line in lines:
            obj = json.loads(line)
            if "file" in obj:
                assert obj["file"].startswith(prefix)
                name = obj["file"][len(prefix) :]
            out.append((name, json.dumps({k: v for k, v in obj.items() if k != "file"}, sort_keys=True)))
        return out

    local_lines = list(dump_path(warehouse / "d"))
    s3_lines = list(dump_path(uri))
    assert events(s3_lines, uri) == events(local_lines, str(warehouse / "d"))
    assert any('"operation":2' in line for line in s3_lines)  # the delete event is there
    assert not any("_orc_acid_version" in line for line in s3_lines)


@pytest.fixture()
def tasks_see_s3(s3, spark) -> Iterator[None]:
    """The Python tasks of the run's Spark get the S3 server's settings (PySpark sends the SparkContext's
    ``environment`` with every Python function), as ``spark.executorEnv.AWS_*`` would give them."""
    saved = dict(spark.sparkContext.environment)
    spark.sparkContext.environment.update(s3.env)
    yield
    spark.sparkContext.environment.clear()
    spark.sparkContext.environment.update(saved)


def test_insert_writes_its_delta_on_s3(tasks_see_s3, acid):
    """INSERT reads no table through Spark, so it runs against an s3:// location: the writer tasks put the event
    file there, the driver its ``_orc_acid_version``; pyarrow reads it back, by name and by location."""
    uri = f"s3://{BUCKET}/warehouse/ins"
    acid.sql(
        f"CREATE TABLE ins (id int, v string) STORED AS ORC LOCATION '{uri}' "
        "TBLPROPERTIES ('transactional'='true')"
    )
    result = acid.sql("INSERT INTO ins VALUES (1, 'a'), (2, 'b'), (3, NULL)")
    assert result.num_inserted_rows == 3 and result.directories == ("delta_0000001_0000001_0000",)
    fs, path = pafs.FileSystem.from_uri(uri)
    keys = sorted(
        i.path[len(path) + 1 :]
        for i in fs.get_file_info(pafs.FileSelector(path, recursive=True))
        if i.type == pafs.FileType.File
    )
    assert keys == ["delta_0000001_0000001_0000/_orc_acid_version", "delta_0000001_0000001_0000/bucket_00000"]
    with fs.open_input_stream(f"{path}/delta_0000001_0000001_0000/_orc_acid_version") as f:
        assert f.read() == b"2"
    header = json.loads(next(dump_path(uri)))
    assert header["acid"] and header["rows"] == 3
    assert header["metadata"]["hive.acid.stats"] == "3,0,0"
    expected = [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}, {"id": 3, "v": None}]
    assert sorted(read_table(uri).to_pylist(), key=lambda r: r["id"]) == expected
    assert sorted(read_table("ins", warehouse=acid.warehouse).to_pylist(), key=lambda r: r["id"]) == expected


def _keys(uri: str) -> list[str]:
    fs, path = pafs.FileSystem.from_uri(uri)
    infos = fs.get_file_info(pafs.FileSelector(path, recursive=True, allow_not_found=True))
    return sorted(i.path[len(path) + 1 :] for i in infos if i.type == pafs.FileType.File)


def _chosen_dirs(acid, name: str, uri: str) -> set[str]:
    """The directories a reader with the store's transaction list reads now (as every statement does)."""
    from hiveacid_sql.acid.scan_files import snapshot_files

    snapshot = acid.store.snapshot([("default", name)])
    fs, path = pafs.FileSystem.from_uri(uri)
    files = snapshot_files(fs, path, snapshot.write_ids("default", name), txns=snapshot.txns)
    return {f[len(path) + 1 :].split("/")[0] for f in files.data_files + files.delete_files}


class _Watched:
    """A compactor whose commit step first runs ``before_commit(txn)``: the moment its ``_v`` outputs are all
    written but not yet visible. The reader thread of the test reads the table all along."""

    @staticmethod
    def make(spark, store, before_commit):
        from hiveacid_sql.compactor import Compactor

        class Watched(Compactor):
            def _make_visible(self, txn: int) -> None:
                before_commit(txn)
                super()._make_visible(txn)

        return Watched(spark, store)


def test_compaction_on_s3_writes_hive4_outputs_that_readers_see_whole_or_not_at_all(
    tasks_see_s3, acid, spark
):
    """S3 has no directory rename: a major compaction writes ``base_N_v<txn>`` in place and commits its own
    transaction at the end. A reader listing the table meanwhile reads the deltas (never the half-written base),
    after the commit the base; the cleaner then deletes the deltas; a failed compaction leaves nothing."""
    import threading

    uri = f"s3://{BUCKET}/warehouse/cmp"
    acid.sql(
        f"CREATE TABLE cmp (id int, v string) STORED AS ORC LOCATION '{uri}' TBLPROPERTIES ('transactional'='true')"
    )
    for i in range(3):
        acid.sql(f"INSERT INTO cmp VALUES ({2 * i}, 'a{i}'), ({2 * i + 1}, NULL)")
    expected = [{"id": i, "v": (f"a{i // 2}" if i % 2 == 0 else None)} for i in range(6)]
    deltas = {f"delta_000000{w}_000000{w}_0000" for w in (1, 2, 3)}
    row_ids_before = _sorted_rows(read_table("cmp", warehouse=acid.warehouse, row_id=True))

    reads: list[list[dict]] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            rows = read_table("cmp", warehouse=acid.warehouse).to_pylist()
            reads.append(sorted(rows, key=lambda r: r["id"]))
            stop.wait(0.05)

    seen: dict[str, object] = {}

    def before_commit(txn: int) -> None:
        base = f"base_0000003_v{txn:07d}"
        seen["base"] = base
        seen["keys"] = _keys(uri)
        seen["chosen"] = _chosen_dirs(acid, "cmp", uri)
        seen["rows"] = sorted(read_table("cmp", warehouse=acid.warehouse).to_pylist(), key=lambda r: r["id"])
        seen["reads"] = len(reads)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    try:
        acid.sql("ALTER TABLE cmp COMPACT 'major'")
        result = _Watched.make(spark, acid.store, before_commit).work_one()
    finally:
        stop.set()
        thread.join(timeout=60)
    assert result is not None and result.state == "r", result
    base = seen["base"]
    assert result.outputs == (base,)
    # while the compactor's transaction was open: its output was complete on the store, and nobody read it
    assert {f"{base}/_orc_acid_version", f"{base}/_metadata_acid", f"{base}/bucket_00000"} <= set(
        seen["keys"]
    )
    assert not any(k.startswith("_tmp_") for k in seen["keys"])  # built in place: no rename on S3
    assert seen["chosen"] == deltas
    assert seen["rows"] == expected
    assert reads and all(r == expected for r in reads), "a concurrent reader saw other rows"
    # committed: readers take the base (row ids kept), the deltas stay until the cleaner runs
    assert _chosen_dirs(acid, "cmp", uri) == {base}
    assert _sorted_rows(read_table("cmp", warehouse=acid.warehouse, row_id=True)) == row_ids_before
    from hiveacid_sql.compactor import Compactor

    assert Compactor(spark, acid.store).clean() == [result.compaction.id]
    assert {k.split("/")[0] for k in _keys(uri)} == {base}
    assert sorted(read_table("cmp", warehouse=acid.warehouse).to_pylist(), key=lambda r: r["id"]) == expected

    # a compaction that fails before its commit: its transaction aborted, its outputs deleted, table unchanged
    acid.sql("INSERT INTO cmp VALUES (6, 'x')")
    acid.sql("ALTER TABLE cmp COMPACT 'major'")

    def fail(txn: int) -> None:
        seen["failed_txn"] = txn
        raise OSError("store went away")

    failed = _Watched.make(spark, acid.store, fail).work_one()
    assert failed is not None and failed.state == "f" and "store went away" in (failed.error or "")
    assert acid.store.txn_state(seen["failed_txn"]) == "aborted"
    assert {k.split("/")[0] for k in _keys(uri)} == {base, "delta_0000004_0000004_0000"}
    rows = sorted(read_table("cmp", warehouse=acid.warehouse).to_pylist(), key=lambda r: r["id"])
    assert rows == [*expected, {"id": 6, "v": "x"}]

    # minor, through the statement: both outputs carry the compactor's transaction and appear in one commit
    acid.sql("INSERT INTO cmp VALUES (7, 'y')")
    acid.sql("ALTER TABLE cmp COMPACT 'minor' AND WAIT")
    minor = {k.split("/")[0] for k in _keys(uri)} - {
        base,
        "delta_0000004_0000004_0000",
        "delta_0000005_0000005_0000",
    }
    assert {name.rsplit("_v", 1)[0] for name in minor} == {
        "delta_0000004_0000005",
        "delete_delta_0000004_0000005",
    }
    assert len({name.rsplit("_v", 1)[1] for name in minor}) == 1
    assert _chosen_dirs(acid, "cmp", uri) == {base} | {n for n in minor if n.startswith("delta_")}
    rows = sorted(read_table("cmp", warehouse=acid.warehouse).to_pylist(), key=lambda r: r["id"])
    assert rows == [*expected, {"id": 6, "v": "x"}, {"id": 7, "v": "y"}]


def _rows_in(directory: str) -> int:
    """Events in a directory's files, from their headers in the dump."""
    headers = [json.loads(line) for line in dump_path(directory)]
    return sum(h["rows"] for h in headers if "file" in h and "rows" in h)


def test_compaction_on_s3_keeps_delete_events_and_row_ids(tasks_see_s3, acid, warehouse):
    """Delete events through both kinds of compaction on the S3 server, read in Python tasks: minor keeps them
    in ``delete_delta_x_y_v<txn>``, major drops the deleted rows and keeps the others' row ids. (DELETE cannot
    run on S3 here, so a table's directories are made locally and copied over one whose write ids 1 and 2 the
    store has committed.)"""
    acid.sql("CREATE TABLE src (id int, v string) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
    acid.sql("INSERT INTO src VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    acid.sql("DELETE FROM src WHERE id IN (2, 4)")
    uri = f"s3://{BUCKET}/warehouse/dels"
    acid.sql(
        f"CREATE TABLE dels (id int, v string) STORED AS ORC LOCATION '{uri}' "
        "TBLPROPERTIES ('transactional'='true')"
    )
    acid.sql("INSERT INTO dels VALUES (0, 'z')")
    acid.sql("INSERT INTO dels VALUES (0, 'z')")
    fs, path = pafs.FileSystem.from_uri(uri)
    fs.delete_dir_contents(path)
    _upload(warehouse / "src", uri)
    assert {k.split("/")[0] for k in _keys(uri)} == {
        "delta_0000001_0000001_0000",
        "delete_delta_0000002_0000002_0000",
    }
    expected = _sorted_rows(read_table(warehouse / "src", row_id=True))
    assert [r["id"] for r in sorted(expected, key=lambda r: r["id"])] == [1, 3]

    assert acid.sql("ALTER TABLE dels COMPACT 'minor' AND WAIT").collect()[0].state == "ready for cleaning"
    minor = {k.split("/")[0] for k in _keys(uri)} - {
        "delta_0000001_0000001_0000",
        "delete_delta_0000002_0000002_0000",
    }
    assert {n.rsplit("_v", 1)[0] for n in minor} == {"delta_0000001_0000002", "delete_delta_0000001_0000002"}
    deletes = next(n for n in minor if n.startswith("delete_"))
    assert _rows_in(f"{uri}/{deletes}") == 2  # both delete events kept
    assert _sorted_rows(read_table("dels", warehouse=acid.warehouse, row_id=True)) == expected

    assert acid.sql("ALTER TABLE dels COMPACT 'major' AND WAIT").collect()[0].state == "ready for cleaning"
    base = next(k.split("/")[0] for k in _keys(uri) if k.startswith("base_0000002_v"))
    assert _rows_in(f"{uri}/{base}") == 2  # the deleted rows are gone
    assert _sorted_rows(read_table("dels", warehouse=acid.warehouse, row_id=True)) == expected
