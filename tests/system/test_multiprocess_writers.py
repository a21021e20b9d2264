"""No lost update across processes: writer processes (each its own driver, Spark JVM and store engine) increment
shared counters and append a ledger row in one transaction each, retrying on conflicts, while a reader process
checks that the two tables always agree. At the end every committed increment is in the counters, the ledger
holds exactly the committed pairs, and no read ever saw one table's write without the other's.

On SQLite (CI) and, with ``pytest --long``, PostgreSQL and MariaDB stores; a few iterations each (every process starts a
JVM: ~10 s)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import hiveacid_sql
from tests.support.stores import BACKENDS, store_url

WRITERS, ITERATIONS, COUNTERS = 2, 3, 2
ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
ROOT = Path(__file__).resolve().parents[2]


def _spawn(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.writer_proc", *args],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def _finish(proc: subprocess.Popen, timeout: float = 600) -> None:
    out, _ = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, out[-3000:]


#: CI runs SQLite (the embedded default); PostgreSQL and MariaDB with ``pytest --long`` (a minute each: CI's
#: 25-minute budget). The store's own multi-process id tests (test_store_concurrency.py) run on all three in CI.
MULTIPROCESS_BACKENDS = [
    BACKENDS[0],
    pytest.param("postgres", id="postgres", marks=[pytest.mark.postgres, pytest.mark.release]),
    pytest.param("mariadb", id="mariadb", marks=[pytest.mark.mariadb, pytest.mark.release]),
]


@pytest.mark.parametrize("backend", MULTIPROCESS_BACKENDS)
def test_no_lost_update_and_no_torn_read_across_processes(backend, tmp_path, spark):
    warehouse = tmp_path / "wh"
    with store_url(backend, tmp_path) as url:
        setup = hiveacid_sql.connect(spark=spark, warehouse=warehouse, store_url=url)
        setup.sql(f"CREATE TABLE counters (id int, v int) {ACID}")
        setup.sql(f"CREATE TABLE ledger (w int, i int, k int) {ACID}")
        setup.sql("INSERT INTO counters VALUES " + ", ".join(f"({k}, 0)" for k in range(COUNTERS)))
        stop = tmp_path / "stop"
        reader = _spawn("read", str(warehouse), url, str(stop), str(tmp_path / "reader.json"))
        writers = [
            _spawn("write", str(warehouse), url, str(w), str(ITERATIONS), str(COUNTERS), str(tmp_path / f"w{w}.json"))
            for w in range(WRITERS)
        ]
        try:
            for proc in writers:
                _finish(proc)
        finally:
            stop.write_text("")
            _finish(reader)
        reports = [json.loads((tmp_path / f"w{w}.json").read_text()) for w in range(WRITERS)]
        committed = sorted(tuple(c) for r in reports for c in r["committed"])
        assert len(committed) == WRITERS * ITERATIONS  # every writer finished every iteration
        counters = dict(tuple(r) for r in setup.sql("SELECT id, v FROM counters").collect())
        ledger = sorted(tuple(r) for r in setup.sql("SELECT w, i, k FROM ledger").collect())
        assert ledger == committed  # exactly the committed pairs, once each
        assert counters == {k: n for k, n in Counter(k for _w, _i, k in committed).items()}
        seen = json.loads((tmp_path / "reader.json").read_text())["seen"]
        assert seen and all(s == c for s, c in seen), [p for p in seen if p[0] != p[1]]
        assert seen[-1] == [WRITERS * ITERATIONS] * 2
        print(f"{backend}: conflicts retried {sum(r['conflicts'] for r in reports)}, "
              f"lock time-outs {sum(r['lock_timeouts'] for r in reports)}, reads {len(seen)}")
        setup.close()
