"""A writer or reader process of the multi-process tests (``tests/system/test_multiprocess_writers.py``).

Each process is a separate driver: its own ``hiveacid_sql.connect()`` (its own Spark JVM, its own store engine)
on the shared warehouse and store, as a notebook, a scheduled job and a streaming job would be.

    python -m tests.support.writer_proc write <warehouse> <store_url> <writer> <iterations> <counters> <out.json>
    python -m tests.support.writer_proc read <warehouse> <store_url> <stop_file> <out.json>

A writer runs ``BEGIN; UPDATE counters SET v = v + 1 WHERE id = k; INSERT INTO ledger VALUES (w, i); COMMIT``
``iterations`` times, retrying on lock time-outs and write conflicts, and reports which (w, i) committed. A
reader checks ``sum(v) = count(ledger)`` in single statements until the stop file appears, and reports every
pair it saw.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import hiveacid_sql
from hiveacid_sql.errors import LockError, TxnAbortedError

SPARK = {"master": "local[1]", "spark.sql.shuffle.partitions": "1", "spark.ui.enabled": "false"}


def _write(warehouse: str, url: str, writer: int, iterations: int, counters: int, out: str) -> None:
    acid = hiveacid_sql.connect(warehouse=warehouse, store_url=url, **SPARK)
    acid.sql("SET hive.lock.numretries=40")
    acid.sql("SET hive.lock.sleep.between.retries=100ms")
    committed, conflicts, lock_timeouts, errors = [], 0, 0, []
    try:
        for i in range(iterations):
            k = (writer + i) % counters
            while True:
                try:
                    acid.begin()
                    acid.sql(f"UPDATE counters SET v = v + 1 WHERE id = {k}")
                    acid.sql(f"INSERT INTO ledger VALUES ({writer}, {i}, {k})")
                    acid.commit()
                except (TxnAbortedError, LockError) as exc:
                    # the write-set check aborted it, or a lock wait timed out: nothing of it is visible; again
                    if isinstance(exc, LockError):
                        lock_timeouts += 1
                    else:
                        conflicts += 1
                    errors.append(str(exc))
                    if acid.in_transaction:
                        acid.rollback()
                else:
                    committed.append([writer, i, k])
                    break
    finally:
        acid.close()
    Path(out).write_text(json.dumps(
        {"committed": committed, "conflicts": conflicts, "lock_timeouts": lock_timeouts, "errors": errors}
    ))


def _read(warehouse: str, url: str, stop_file: str, out: str) -> None:
    acid = hiveacid_sql.connect(warehouse=warehouse, store_url=url, **SPARK)
    seen = []
    try:
        while True:
            stop = Path(stop_file).exists()
            row = acid.sql("SELECT (SELECT sum(v) FROM counters) AS s, (SELECT count(*) FROM ledger) AS c").collect()[0]
            seen.append([int(row.s), int(row.c)])
            if stop:
                break
            time.sleep(0.2)
    finally:
        acid.close()
    Path(out).write_text(json.dumps({"seen": seen}))


if __name__ == "__main__":
    kind, *args = sys.argv[1:]
    if kind == "write":
        _write(args[0], args[1], int(args[2]), int(args[3]), int(args[4]), args[5])
    else:
        _read(*args)
