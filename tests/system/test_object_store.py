"""An object-store warehouse, the part this project does on files through ``pyarrow.fs``: reading a table
(``read_table``) and dumping its events (``hiveacid-sql dump``) from ``s3://`` against an S3-compatible
server started here (moto in server mode).

Why: on S3 there are no directories and no rename, only keys; listing a table, choosing its snapshot's files
and reading them must work from keys alone. The table is written by Spark on the local disk (Spark's S3
connector needs Hadoop's AWS jars, which this machine cannot fetch), copied key by key to the bucket, and
must read back there exactly as it reads locally. An INSERT of VALUES (no Spark read of the table) writes
straight to the bucket. Statements that read through Spark and compaction are not covered (README, "Object
stores").
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
