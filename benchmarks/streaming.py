"""Streaming ingest: sustained rows per second of one streaming connection writing 1, 100 and 10 000 rows per
transaction, and the median commit latency, with the store on SQLite (or any ``--store-url``).

    python -m benchmarks.streaming [--txns 50] [--batch 10] [--store-url postgresql+psycopg://...]

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--txns", type=int, default=50, help="transactions per configuration")
    parser.add_argument("--batch", type=int, default=10, help="transactions per transaction batch")
    parser.add_argument("--rows", type=int, nargs="+", default=[1, 100, 10_000], help="rows per transaction")
    parser.add_argument("--store-url", help="a SQLAlchemy URL (default: SQLite in a temporary directory)")
    args = parser.parse_args()
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
