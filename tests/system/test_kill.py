"""Statements killed with SIGKILL (the whole process group: the driver's Python, its Spark JVM and Python
workers) at a random moment: the table then reads exactly as before or exactly as after the statement, never
a mix; the killed transaction is reaped by the time-out and its locks released; the next writer and the next
compaction succeed, and the ACID files keep every rule of ``tests/support/acid_invariants.py``.

One kill of a compaction by default (each starts a JVM); ``pytest --long`` adds UPDATE, DELETE, MERGE, INSERT
and a multi-statement transaction (BEGIN, UPDATE, DELETE, COMMIT) and kills ten times as often.
The delays are drawn from a seeded generator, so a failure names the delay that found it."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import hiveacid_sql
from hiveacid_sql.compactor import Compactor
from tests.support.acid_invariants import check_table
from tests.support.stores import store_url

ROOT = Path(__file__).resolve().parents[2]
ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
ROWS = 20_000
OFFSET = 1_000_000  # the INSERT's copies of the rows: ids far above the table's own
#: statement -> what each row's v becomes if it ran (the state "after")
STATEMENTS = {
    "update": ("UPDATE t SET v = v + 1", lambda v: v + 1),
    "delete": ("DELETE FROM t WHERE id % 2 = 0", None),
    "merge": ("MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = t.v + 1", lambda v: v + 1),
    "compaction": ("ALTER TABLE t COMPACT 'major' AND WAIT", lambda v: v),
    "insert": (f"INSERT INTO t SELECT id + {OFFSET}, v FROM t", None),
    # a multi-statement transaction: killed anywhere before its COMMIT returns, all of it or nothing
    "transaction": (
        "BEGIN\n;\nUPDATE t SET v = v + 1\n;\nDELETE FROM t WHERE id % 2 = 0\n;\nCOMMIT",
        lambda v: v + 1,
    ),
}


@pytest.fixture
def kills(request: pytest.FixtureRequest) -> int:
    """Kills per statement kind: 1, ten with ``--long``; ``HIVEACID_KILLS=n`` chooses another number."""
    return int(os.environ.get("HIVEACID_KILLS") or (10 if request.config.getoption("--long") else 1))


def _dirs(table: Path) -> set[str]:
    return {p.name for p in table.iterdir()}


def _rows(acid) -> dict[int, int]:
    return dict(tuple(r) for r in acid.sql("SELECT id, v FROM t").collect())


def _after(kind: str, before: dict[int, int]) -> dict[int, int]:
    _sql, change = STATEMENTS[kind]
    if kind == "insert":
        return {**before, **{k + OFFSET: v for k, v in before.items()}}
    if kind in ("delete", "transaction"):
        kept = {k: v for k, v in before.items() if k % 2 != 0}
        return kept if change is None else {k: change(v) for k, v in kept.items()}
    assert change is not None
    return {k: change(v) for k, v in before.items()}


def _kill_midway(warehouse: Path, url: str, statement: str, delay: float) -> str:
    """Run ``statement`` in a new driver process and SIGKILL its process group ``delay`` s after the statement's
    first directory appears in the table (whatever the machine's load, the kill lands while it writes, or
    after it is done when ``delay`` is longer than the rest of the statement)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    table = warehouse / "t"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.kill_proc", str(warehouse), url, statement],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.strip() == "running", f"the driver did not start: {line!r}"
        known = _dirs(table)
        deadline = time.monotonic() + 600
        while proc.poll() is None and not _dirs(table) - known:
            assert time.monotonic() < deadline, "the statement wrote nothing in 10 minutes"
            time.sleep(0.05)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        rest = proc.stdout.read() if proc.stdout else ""
        return "done" if "done" in rest else "killed"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.parametrize(
    ("kind", "backend"),
    # CI kills a compaction on a SQLite store (CI's 25-minute budget); with --long every kind, also on a
    # PostgreSQL store
    [
        pytest.param(k, b, marks=[] if (k, b) == ("compaction", "sqlite") else [pytest.mark.release])
        for b in ("sqlite", "postgres")
        for k in STATEMENTS
    ],
)
def test_a_killed_statement_leaves_before_or_after_and_the_next_writer_succeeds(kind, backend, kills, tmp_path, spark):
    with store_url(backend, tmp_path) as url:
        _kill_and_check(kind, kills, tmp_path, spark, url)


def _kill_and_check(kind: str, kills: int, tmp_path: Path, spark, url: str) -> None:
    rng = random.Random(f"kill-{kind}")
    warehouse = tmp_path / "wh"
    acid = hiveacid_sql.connect(spark=spark, warehouse=warehouse, store_url=url)
    try:
        acid.sql(f"CREATE TABLE t (id int, v int) {ACID}")
        acid.sql(f"INSERT INTO t SELECT CAST(id AS int), CAST(id % 7 AS int) FROM range({ROWS})")
        acid.sql("UPDATE t SET v = v + 10 WHERE id < 100")  # a delete delta for the compaction to fold in
        acid.sql(f"CREATE TABLE src (id int) {ACID}")
        acid.sql(f"INSERT INTO src SELECT CAST(id AS int) FROM range({ROWS})")
        outcomes = []
        for n in range(kills):
            before = _rows(acid)
            dirs_before = _dirs(warehouse / "t")
            # seconds after its first directory appears: the first kill at once (while it writes), then anywhere
            delay = 0.0 if n == 0 else rng.uniform(0.0, 2.0)
            outcome = _kill_midway(warehouse, url, STATEMENTS[kind][0], delay)
            now = _rows(acid)
            after = _after(kind, before)
            assert now in (before, after), f"kill {n} after {delay:.1f} s: a mix of before and after"
            left = sorted(_dirs(warehouse / "t") - dirs_before)  # what the killed statement had written
            outcomes.append((round(delay, 1), outcome, "after" if now == after and now != before else "before", left))
            acid.store.abort_timed_out(0)  # the killed driver's heartbeats stopped: reap it now
            assert acid.store.locks.show_locks() == []  # its locks went with it
            # the next writer succeeds and the files keep every rule
            acid.sql("UPDATE t SET v = v + 1 WHERE id = 1")
            assert _rows(acid)[1] == now[1] + 1  # id 1 is odd: in every state
            snapshot = acid.store.snapshot([("default", "t")])
            assert check_table(warehouse / "t", 0, snapshot.write_ids("default", "t")) == []
        # and a compaction after all of it, then the cleaner, read the same rows
        expected = _rows(acid)
        acid.sql("ALTER TABLE t COMPACT 'major' AND WAIT")
        acid.ctx.release_leases()
        Compactor(acid.spark, acid.store).clean()
        assert _rows(acid) == expected
        print(f"{kind}: {outcomes}")
    finally:
        acid.close()
