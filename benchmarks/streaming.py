"""Streaming ingest: sustained rows per second of one streaming connection writing 1, 100 and 10 000 rows per
transaction, and the median commit latency, with the store on SQLite (or any ``--store-url``).

    python -m benchmarks.streaming [--txns 50] [--batch 10] [--store-url postgresql+psycopg://...]
    python -m benchmarks.streaming --read-deltas 1 10 100 300 [--store-url ...]

``--read-deltas``: how reading grows with the number of streamed deltas (one transaction of 100 rows per
transaction batch, so one delta each): ``read_table``'s time at each count, then Spark's ``SELECT`` and
``read_table`` before and after a major compaction (this part starts a local Spark session).

Hive's guidance is a transaction per batch of records, not per record: the commit (a store transaction, a
file rewritten) dominates small transactions. Each transaction batch holds ``--batch`` transactions (each
commit rewrites the batch's file, see ``hiveacid_sql/acid/stream_delta.py``). No Spark: the rows are written
on the driver with pyarrow. Standalone on purpose (no Spark, so not a harness scenario).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from hiveacid_sql.engine.streaming import StreamingConnection
from hiveacid_sql.txn import Column, TableDef, TxnStore


def run(
    store: TxnStore, location: Path, name: str, rows_per_txn: int, txns: int, batch: int
) -> tuple[float, float]:
    """(rows per second, median commit seconds) of ``txns`` transactions of ``rows_per_txn`` rows."""
    table = TableDef(
        "default",
        name,
        (Column("id", "int"), Column("name", "string")),
        str(location / name),
        params={"transactional": "true", "bucketing_version": "2"},
    )
    store.catalog.create_table(table)
    table = store.catalog.get_table("default", name)
    records = [(i, f"name-{i}") for i in range(rows_per_txn)]
    commits = []
    start = time.perf_counter()
    with StreamingConnection(store, table, transaction_batch_size=batch) as conn:
        for n in range(txns):
            conn.begin_transaction()
            conn.write(records)
            t = time.perf_counter()
            conn.commit_transaction("_meta.offset", str(n))
            commits.append(time.perf_counter() - t)
    wall = time.perf_counter() - start
    return rows_per_txn * txns / wall, statistics.median(commits)


def _median_s(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def read_growth(url: str, tmp: str, counts: list[int], rows_per_txn: int = 100) -> None:
    """Print read times against the number of streamed deltas, then before / after a major compaction."""
    from hiveacid_sql import read_table

    store = TxnStore(url, default_db_location=f"{tmp}/wh")
    name = "sr"
    store.catalog.create_table(
        TableDef("default", name, (Column("id", "int"), Column("name", "string")), f"{tmp}/wh/{name}",
                 params={"transactional": "true"})
    )
    table = store.catalog.get_table("default", name)
    records = [(i, f"name-{i}") for i in range(rows_per_txn)]
    print(f"read_table of a table of streamed deltas ({rows_per_txn} rows each), store {url.split(':')[0]}")
    print(f"{'deltas':>7} {'rows':>8} {'read_table ms':>14}")

    def read() -> int:
        return read_table(f"default.{name}", warehouse=f"{tmp}/wh", store_url=url).num_rows

    written = 0
    try:
        for count in sorted(counts):
            while written < count:
                with StreamingConnection(store, table, transaction_batch_size=1) as conn:
                    conn.begin_transaction()
                    conn.write(records)
                    conn.commit_transaction()
                written += 1
            assert read() == count * rows_per_txn
            print(f"{count:7,} {count * rows_per_txn:8,} {_median_s(read) * 1000:14.1f}")
    finally:
        store.close()

    import hiveacid_sql

    with hiveacid_sql.connect(warehouse=f"{tmp}/wh", store_url=url) as acid:
        def spark_read() -> int:
            return len(acid.sql(f"SELECT * FROM {name}").collect())

        spark_read()  # Spark's first query pays its start-up
        before = (_median_s(spark_read), _median_s(read))
        acid.sql(f"ALTER TABLE {name} COMPACT 'major' AND WAIT")
        after = (_median_s(spark_read), _median_s(read))
    print(f"{written} deltas, then one base after a major compaction:")
    print(f"{'':>17} {'SELECT (Spark) ms':>18} {'read_table ms':>14}")
    print(f"{'before compaction':>17} {before[0] * 1000:18.1f} {before[1] * 1000:14.1f}")
    print(f"{'after compaction':>17} {after[0] * 1000:18.1f} {after[1] * 1000:14.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--txns", type=int, default=50, help="transactions per configuration")
    parser.add_argument("--batch", type=int, default=10, help="transactions per transaction batch")
    parser.add_argument("--rows", type=int, nargs="+", default=[1, 100, 10_000], help="rows per transaction")
    parser.add_argument("--store-url", help="a SQLAlchemy URL (default: SQLite in a temporary directory)")
    parser.add_argument("--read-deltas", type=int, nargs="+", help="measure reads at these numbers of deltas instead")
    args = parser.parse_args()
    if args.read_deltas:
        with tempfile.TemporaryDirectory() as tmp:
            read_growth(args.store_url or f"sqlite:///{tmp}/txn.db", tmp, args.read_deltas)
        return
    with tempfile.TemporaryDirectory() as tmp:
        url = args.store_url or f"sqlite:///{tmp}/txn.db"
        store = TxnStore(url, default_db_location=f"{tmp}/wh")
        print(f"{args.txns} transactions per row count, {args.batch} per batch, store {url.split(':')[0]}")
        print(f"{'rows/txn':>9} {'rows/s':>12} {'commit ms':>10}")
        try:
            for rows in args.rows:
                rate, commit = run(store, Path(tmp) / "wh", f"s{rows}", rows, args.txns, args.batch)
                print(f"{rows:9,} {rate:12,.0f} {commit * 1000:10.1f}")
        finally:
            store.close()


if __name__ == "__main__":
    main()
