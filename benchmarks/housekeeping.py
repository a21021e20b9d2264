"""``python -m benchmarks.housekeeping [--aborted N] [--postgres]``: what aborted transactions cost every
snapshot, before and after housekeeping (issue 20).

N transactions each open, take a write id on one table and abort (what N failed or killed statements leave;
their files are gone, as after a rollback or the cleaner). Then, before and after
:func:`hiveacid_sql.compactor.housekeeper.housekeep`: the snapshot's size (the ValidTxnList's exceptions and
the table's write-id exceptions), the median time to take it, and the median time of one store round of a
statement (open, write id, commit). SQLite in a temporary directory; ``--postgres`` also on a database
created and dropped on ``HIVEACID_BENCH_PG_URL`` (default the test server).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa

from hiveacid_sql.compactor.housekeeper import housekeep
from hiveacid_sql.txn import Column, TableDef, TxnStore

PG_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _statement(store: TxnStore) -> None:
    txn = store.open_txn("bench", "here")
    store.allocate_write_id(txn, "default", "t")
    store.commit_txn(txn)


def _measure(store: TxnStore, repeat: int) -> dict[str, float]:
    snap = store.snapshot([("default", "t")])
    return {
        "txn exceptions": len(snap.txns.exceptions),
        "write-id exceptions": len(snap.write_ids("default", "t").exceptions),
        "snapshot ms": _median_ms(lambda: store.snapshot([("default", "t")]), repeat),
        "statement ms": _median_ms(lambda: _statement(store), repeat),
    }


def run(url: str, where: Path, aborted: int, repeat: int) -> dict[str, object]:
    store = TxnStore(url)
    try:
        location = where / "t"
        location.mkdir()
        store.catalog.create_table(
            TableDef(
                db="default",
                name="t",
                columns=(Column("id", "int"),),
                location=location.as_uri(),
                storage_format="orc",
                table_type="MANAGED_TABLE",
                params={"transactional": "true"},
            )
        )
        t0 = time.perf_counter()
        for _ in range(aborted):
            txn = store.open_txn("bench", "here")
            store.allocate_write_id(txn, "default", "t")
            store.abort_txn(txn)
        made = time.perf_counter() - t0
        before = _measure(store, repeat)
        report = housekeep(store, aborted_for_s=0)
        after = _measure(store, repeat)
        return {"make s": made, "before": before, "after": after, "housekeeping": report}
    finally:
        store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.housekeeping", description=__doc__)
    parser.add_argument("--aborted", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        runs = {"sqlite": run(f"sqlite:///{tmp}/txn.db", Path(tmp), args.aborted, args.repeat)}
    if args.postgres:
        import os

        admin_url = os.environ.get("HIVEACID_BENCH_PG_URL", PG_ADMIN_URL)
        name = f"bench_hk_{uuid.uuid4().hex[:8]}"
        admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql(f"CREATE DATABASE {name}")
        try:
            url = sa.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
            with tempfile.TemporaryDirectory() as tmp:
                runs["postgresql"] = run(url, Path(tmp), args.aborted, args.repeat)
        finally:
            with admin.connect() as conn:
                conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            admin.dispose()
    for store, result in runs.items():
        b, a, hk = result["before"], result["after"], result["housekeeping"]
        assert isinstance(b, dict) and isinstance(a, dict)
        print(f"{store}: {args.aborted} aborted txns made in {result['make s']:.1f} s; housekeeping {hk}")
        for key in b:
            print(f"  {key:20} before {b[key]:>10.2f}  after {a[key]:>10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
