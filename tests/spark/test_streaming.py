"""Streaming ingest (Hive's Streaming API v2 from Python, and the Structured Streaming sink), end to end:
the files a transaction batch writes, what readers see before and after each commit, key/values kept with the
commit, dynamic partitions, bucketed tables, bad records and aborts, and a micro-batch replay skipped."""

from __future__ import annotations

import os
import time

import pandas as pd
import pyarrow as pa
import pyarrow.orc as porc
import pytest

from hiveacid_sql import read_table
from hiveacid_sql.acid.bucketing import bucket_number
from hiveacid_sql.acid.codec import encode_bucket
from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.compactor import Compactor
from hiveacid_sql.engine.streaming import StreamingError
from hiveacid_sql.errors import CatalogError, TxnAbortedError, TxnError, TxnStateError
from hiveacid_sql.txn.compactions import CompactionQueue
from tests.support.acid_invariants import check_table

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def _rows(acid, table: str) -> list[tuple]:
    """The table as read now, without Spark (``read_table``: the same snapshot and row filter, cheaper)."""
    t = read_table(table, warehouse=acid.warehouse)
    return sorted(tuple(r.values()) for r in t.to_pylist())


def _spark_rows(acid, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in acid.sql(f"SELECT * FROM {table}").collect())


def test_a_batch_writes_one_delta_each_commit_visible_then_and_not_before(acid, warehouse) -> None:
    acid.sql(f"CREATE TABLE s (id int, name string) {ACID}")
    with acid.streaming_connection("default.s", transaction_batch_size=3) as conn:
        conn.begin_transaction()
        conn.write({"id": 1, "name": "a"})
        conn.write([(2, "b"), (3, "c")])
        assert _rows(acid, "s") == []  # written, not committed: nothing to see
        conn.commit_transaction()
        assert _rows(acid, "s") == [(1, "a"), (2, "b"), (3, "c")]
        conn.begin_transaction()
        conn.write(pa.record_batch({"id": [4], "name": ["d"]}))
        assert _rows(acid, "s") == [(1, "a"), (2, "b"), (3, "c")]
        conn.commit_transaction()
        conn.begin_transaction()
        conn.write(pd.DataFrame({"id": [5], "name": ["e"]}))
        conn.commit_transaction()
        assert conn.remaining_transactions == 0
        assert conn.batch_write_ids == (1, 3)
    location = warehouse / "s"
    assert sorted(os.listdir(location)) == ["delta_0000001_0000003"]
    assert sorted(os.listdir(location / "delta_0000001_0000003")) == ["_orc_acid_version", "bucket_00000"]
    events = porc.read_table(location / "delta_0000001_0000003" / "bucket_00000").to_pylist()
    # each row tagged with its own write id; row ids from 0 per write id; bucket property encode(0, 0)
    assert [(e["originalTransaction"], e["currentTransaction"], e["rowId"], e["bucket"]) for e in events] == [
        (1, 1, 0, 536870912),
        (1, 1, 1, 536870912),
        (1, 1, 2, 536870912),
        (2, 2, 0, 536870912),
        (3, 3, 0, 536870912),
    ]
    assert _rows(acid, "s") == [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e")]
    assert _spark_rows(acid, "s") == [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e")]
    rows = acid.sql("SELECT row__id.writeid w, id FROM s ORDER BY id").collect()
    assert [(r.w, r.id) for r in rows] == [(1, 1), (1, 2), (1, 3), (2, 4), (3, 5)]


def test_abort_hides_rows_and_a_new_batch_gets_a_new_delta(acid, warehouse) -> None:
    acid.sql(f"CREATE TABLE s (id int, name string) {ACID}")
    conn = acid.streaming_connection("s", transaction_batch_size=2)
    conn.begin_transaction()
    conn.write((1, "kept"))
    conn.commit_transaction()
    conn.begin_transaction()
    conn.write((2, "aborted"))
    conn.abort_transaction()
    conn.begin_transaction()  # a new batch: write ids 3..4
    conn.write((3, "next batch"))
    conn.commit_transaction()
    conn.begin_transaction()
    conn.write((4, "open at close"))
    conn.close()  # aborts the open transaction
    assert _rows(acid, "s") == [(1, "kept"), (3, "next batch")]
    assert sorted(os.listdir(warehouse / "s")) == ["delta_0000001_0000002", "delta_0000003_0000004"]
    states = {h["write_id"]: h["state"] for h in acid.store.write_id_history("default", "s")}
    assert states == {1: "committed", 2: "aborted", 3: "committed", 4: "aborted"}
    with pytest.raises(StreamingError, match="closed"):
        conn.begin_transaction()


def test_rows_of_a_failed_commit_stay_unread(acid, warehouse) -> None:
    """The file is replaced before the store commits: a transaction aborted behind the writer's back (timed out)
    leaves its rows in the file, tagged with an aborted write id, and they are never read."""
    acid.sql(f"CREATE TABLE s (id int) {ACID}")
    with acid.streaming_connection("s", transaction_batch_size=3) as conn:
        conn.begin_transaction()
        conn.write((1,))
        conn.commit_transaction()
        txn = conn.begin_transaction()
        conn.write((2,))
        acid.sql(f"ABORT TRANSACTIONS {txn}")
        with pytest.raises(TxnAbortedError, match="aborted"):
            conn.commit_transaction()
        conn.begin_transaction()  # the connection goes on with the next transaction of the batch
        conn.write((3,))
        conn.commit_transaction()
    events = porc.read_table(warehouse / "s" / "delta_0000001_0000003" / "bucket_00000").to_pylist()
    assert [(e["currentTransaction"], e["row"]["id"]) for e in events] == [(1, 1), (3, 3)]
    assert _rows(acid, "s") == [(1,), (3,)]
    snapshot = acid.store.snapshot([("default", "s")])
    # the project's file rules (exact key index and stats, names, _orc_acid_version) hold for the batch's delta
    assert check_table(warehouse / "s", 0, snapshot.write_ids("default", "s")) == []


def test_key_value_committed_with_the_transaction(acid) -> None:
    acid.sql(f"CREATE TABLE s (id int) {ACID}")
    with acid.streaming_connection("s") as conn:
        assert conn.last_committed_value("_meta.offsets") is None
        conn.begin_transaction()
        conn.write((1,))
        conn.commit_transaction("_meta.offsets", "10")
        conn.begin_transaction()
        conn.write((2,))
        conn.abort_transaction()  # an abort keeps the last committed value
        assert conn.last_committed_value("_meta.offsets") == "10"
        conn.begin_transaction()
        conn.write((3,))
        with pytest.raises(CatalogError, match="key should start with _meta"):
            conn.commit_transaction("offsets", "11")  # Hive's rule; the transaction is aborted
        with pytest.raises(TxnStateError):
            conn.commit_transaction()
    again = acid.streaming_connection("s")
    assert again.last_committed_value("_meta.offsets") == "10"
    again.close()
    assert _rows(acid, "s") == [(1,)]


def test_dynamic_and_static_partitions(acid, warehouse) -> None:
    acid.sql(f"CREATE TABLE p (id int, name string) PARTITIONED BY (country string, y int) {ACID}")
    with acid.streaming_connection("p", transaction_batch_size=2) as conn:
        conn.begin_transaction()
        conn.write(
            [(1, "a", "fr", 2024), {"id": 2, "name": "b", "country": "de", "y": 2025}, (3, "c", "fr", 2024)]
        )
        assert acid.catalog.list_partitions("default", "p") == []  # registered at commit
        conn.commit_transaction()
    parts = sorted(p.name for p in acid.catalog.list_partitions("default", "p"))
    assert parts == ["country=de/y=2025", "country=fr/y=2024"]
    with acid.streaming_connection("p", {"country": "it", "y": "2026"}) as conn:
        conn.begin_transaction()
        conn.write({"id": 4, "name": "d"})
        conn.commit_transaction()
    assert _rows(acid, "p") == [
        (1, "a", "fr", 2024),
        (2, "b", "de", 2025),
        (3, "c", "fr", 2024),
        (4, "d", "it", 2026),
    ]
    assert os.listdir(warehouse / "p" / "country=fr" / "y=2024") == ["delta_0000001_0000002"]
    assert os.listdir(warehouse / "p" / "country=it" / "y=2026") == ["delta_0000003_0000012"]
    with pytest.raises(StreamingError, match="does not match the partition columns"):
        acid.streaming_connection("p", {"country": "it"})


def test_bucketed_rows_go_to_hives_bucket(acid, warehouse) -> None:
    acid.sql(f"CREATE TABLE b (id int, name string) CLUSTERED BY (id) INTO 4 BUCKETS {ACID}")
    rows = [(i, f"n{i}") for i in range(20)]
    with acid.streaming_connection("b", transaction_batch_size=1) as conn:
        conn.begin_transaction()
        conn.write(rows)
        conn.commit_transaction()
    t = read_table("b", warehouse=warehouse, row_id=True).to_pylist()
    streamed = {(r["row__id"]["bucketid"], r["id"]) for r in t}
    version = int(acid.catalog.get_table("default", "b").params["bucketing_version"])
    hive = {(encode_bucket(bucket_number([i], [parse_hive_type("int")], 4, version), 0), i) for i, _ in rows}
    assert streamed == hive  # Hive's hash (checked against Hive elsewhere: tests of acid/bucketing.py)
    assert len({b for b, _ in streamed}) == 4
    assert len(os.listdir(warehouse / "b" / "delta_0000001_0000001")) == 5  # 4 buckets + _orc_acid_version


def test_bad_records_name_the_record_and_leave_the_transaction_usable(acid) -> None:
    acid.sql(f"CREATE TABLE s (id int, name varchar(3)) PARTITIONED BY (p string) {ACID}")
    with acid.streaming_connection("s") as conn:
        conn.begin_transaction()
        conn.write((1, "ok", "x"))
        with pytest.raises(StreamingError, match=r"record 1 \(2, 'b'\): 2 values for 3 columns"):
            conn.write([(9, "a", "x"), (2, "b")])
        with pytest.raises(StreamingError, match=r"record 0 .*'id': 'x'.* does not fit column id"):
            conn.write({"id": "x", "name": "a", "p": "x"})
        with pytest.raises(StreamingError, match=r"record 0 .*2147483648.* does not fit column id"):
            conn.write({"id": 2**31, "name": "a", "p": "x"})
        with pytest.raises(StreamingError, match="no value for partition column 'p'"):
            conn.write({"id": 3, "name": "a"})
        with pytest.raises(StreamingError, match="no column 'nope'"):
            conn.write({"id": 3, "nope": 1, "p": "x"})
        assert str(pytest.raises(StreamingError, conn.write, (4, "a", "x", 5)).value).count("\n") == 0
        conn.write({"id": 5, "name": "long text", "p": "x"})  # varchar: truncated, as Hive does
        conn.commit_transaction()
    assert _rows(acid, "s") == [(1, "ok", "x"), (5, "lon", "x")]


def test_not_a_streaming_table(acid) -> None:
    acid.sql("CREATE TABLE plain (id int) STORED AS ORC")
    with pytest.raises(StreamingError, match="full ACID ORC table"):
        acid.streaming_connection("plain")
    acid.sql(f"CREATE TABLE s (id int) {ACID}")
    with acid.streaming_connection("s") as conn:
        with pytest.raises(TxnStateError, match="begin_transaction"):
            conn.write((1,))
        conn.begin_transaction()
        with pytest.raises(TxnStateError, match="still open"):
            conn.begin_transaction()


def _json_file(folder, name: str, rows: list[dict]) -> None:
    import json

    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{name}.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tmp.rename(folder / name)  # the file source must never see a half-written file


def _run_stream(acid, source, checkpoint, writer) -> None:
    frame = (
        acid.spark.readStream.schema("id int, name string, p string")
        .option("maxFilesPerTrigger", 1)
        .json(str(source))
    )
    query = (
        frame.writeStream.foreachBatch(writer)
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(300)
    assert query.exception() is None


def test_structured_streaming_sink_exactly_once_after_a_replay(acid, tmp_path) -> None:
    acid.sql(f"CREATE TABLE s (id int, name string) PARTITIONED BY (p string) {ACID}")
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    _json_file(source, "a.json", [{"id": 1, "name": "a", "p": "x"}, {"id": 2, "name": "b", "p": "y"}])
    _json_file(source, "b.json", [{"id": 3, "name": "c", "p": "x"}])
    writer = acid.stream_writer("default.s")
    _run_stream(acid, source, checkpoint, writer)
    assert _rows(acid, "s") == [(1, "a", "x"), (2, "b", "y"), (3, "c", "x")]
    assert writer.skipped == []
    # The driver died after batch 1 committed its transaction but before Spark recorded the batch as done:
    # on restart Spark runs batch 1 again, with the same files; its commit is found and it is skipped.
    (checkpoint / "commits" / "1").unlink()
    (checkpoint / "commits" / ".1.crc").unlink(missing_ok=True)
    _json_file(source, "c.json", [{"id": 4, "name": "d", "p": "z"}])
    again = acid.stream_writer("default.s")
    _run_stream(acid, source, checkpoint, again)
    assert again.skipped == [1]
    assert _rows(acid, "s") == [(1, "a", "x"), (2, "b", "y"), (3, "c", "x"), (4, "d", "z")]
    keys = [
        k for k in acid.catalog.get_table("default", "s").params if k.startswith("_meta.hiveacid.stream.")
    ]
    assert len(keys) == 1 and acid.catalog.get_table("default", "s").params[keys[0]] == "2"
    history = acid.store.table_history("default", "s")
    assert len(history) == 3  # one transaction per micro-batch, the replay wrote none


def test_heartbeats_keep_the_batch_open_past_the_time_out(acid) -> None:
    acid.sql(f"CREATE TABLE s (id int) {ACID}")
    acid.sql("SET hive.txn.timeout=2s")  # heartbeats every second
    with acid.streaming_connection("s", transaction_batch_size=2) as conn:
        conn.begin_transaction()
        conn.write((1,))
        time.sleep(3)
        assert acid.store.abort_timed_out(2) == []  # the open one and the batch's unused one were heartbeated
        conn.commit_transaction()
        conn.begin_transaction()
        conn.write((2,))
        conn.commit_transaction()
    assert _rows(acid, "s") == [(1,), (2,)]


def test_an_overwrite_between_a_batchs_transactions_is_refused(acid, warehouse) -> None:
    """INSERT OVERWRITE / TRUNCATE write a base above the batch's remaining write ids, which would hide their rows
    once they commit: refused in one line while the batch has open transactions, nothing written; fine after."""
    acid.sql(f"CREATE TABLE s (id int) {ACID}")
    with acid.streaming_connection("s", transaction_batch_size=3) as conn:
        conn.begin_transaction()
        conn.write((1,))
        conn.commit_transaction()
        refused = (
            r"^{} of default\.s refused: open transaction\(s\) txnid:\d+, txnid:\d+ \(a streaming transaction "
            r"batch\) hold write ids 2\.\.3 of the table, below this statement's {}; committed after it, their rows "
            r"would be hidden under its base\. Close the streaming connection \(or let its batch end\) and run it again$"
        )
        with pytest.raises(TxnError, match=refused.format("INSERT OVERWRITE", 4)):
            acid.sql("INSERT OVERWRITE TABLE s VALUES (9)")
        with pytest.raises(TxnError, match=refused.format("TRUNCATE", 5)):
            acid.sql("TRUNCATE TABLE s")
        conn.begin_transaction()
        conn.write((2,))
        conn.commit_transaction()
        assert _rows(acid, "s") == [(1,), (2,)]
        assert sorted(os.listdir(warehouse / "s")) == ["delta_0000001_0000003"]  # nothing of the refused ones
    acid.sql("INSERT OVERWRITE TABLE s VALUES (9)")  # the batch closed (its last transaction aborted)
    assert _rows(acid, "s") == [(9,)]
    assert check_table(warehouse / "s", 0, acid.store.snapshot([("default", "s")]).write_ids("default", "s")) == []


def test_the_initiator_compacts_while_a_stream_writes(acid, warehouse) -> None:
    """Compactor rounds (initiator, worker, cleaner, housekeeper) between every step of a stream of transaction
    batches, the table asking for a compaction as soon as it has two deltas: the initiator queues compactions
    while batches are open, the worker compacts below the open write ids, nothing fails, and every row is read
    exactly once at every step and at the end."""
    from hiveacid_sql.compactor.service import run_round

    acid.sql(
        "CREATE TABLE s (id int) STORED AS ORC TBLPROPERTIES ('transactional'='true', "
        "'compactorthreshold.hive.compactor.delta.num.threshold'='1')"
    )
    compactor = Compactor(acid.spark, acid.store)
    expected: list[tuple] = []
    handled: dict[str, list[int]] = {"initiated": [], "worked": [], "cleaned": []}

    def compact_round() -> None:
        done = run_round(compactor, initiator=True, worker=True)
        for key in handled:
            handled[key] += done[key]
        assert _rows(acid, "s") == sorted(expected)

    next_id = 0
    for _batch in range(3):
        with acid.streaming_connection("s", transaction_batch_size=2) as conn:
            for _txn in range(2):
                conn.begin_transaction()
                conn.write([(next_id,), (next_id + 1,)])  # (held in memory until the commit publishes it)
                conn.commit_transaction()
                expected += [(next_id,), (next_id + 1,)]
                next_id += 2
                compact_round()  # after a batch's first commit its second transaction is open
    compact_round()
    assert handled["initiated"] and handled["worked"], handled
    compactions = CompactionQueue(acid.store.engine).list()
    assert all(c.state_name in ("succeeded", "ready for cleaning") for c in compactions), compactions
    assert min(c.highest_write_id or 0 for c in compactions) < 6  # one ran while the stream was still to write
    assert _spark_rows(acid, "s") == sorted(expected)
    assert check_table(warehouse / "s", 0, acid.store.snapshot([("default", "s")]).write_ids("default", "s")) == []


def test_a_compaction_beside_an_open_batch_leaves_its_delta_alone(acid, warehouse) -> None:
    """A major compaction while a batch still has open transactions compacts only below the lowest open write
    id (the batch's delta stays whole), and every row is read once after the batch ends."""
    acid.sql(f"CREATE TABLE s (id int) {ACID}")
    acid.sql("INSERT INTO s VALUES (100)")
    with acid.streaming_connection("s", transaction_batch_size=3) as conn:
        conn.begin_transaction()
        conn.write((1,))
        conn.commit_transaction()
        conn.begin_transaction()
        conn.write((2,))
        acid.sql("ALTER TABLE s COMPACT 'major' AND WAIT")
        assert sorted(os.listdir(warehouse / "s")) == [
            "base_0000001",
            "delta_0000001_0000001_0000",
            "delta_0000002_0000004",
        ]
        assert _rows(acid, "s") == [(1,), (100,)]
        conn.commit_transaction()
        conn.begin_transaction()
        conn.write((3,))
        conn.commit_transaction()
    assert _rows(acid, "s") == [(1,), (2,), (3,), (100,)]
