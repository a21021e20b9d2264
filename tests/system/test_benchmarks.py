"""The benchmark harness at a tiny size, so it never rots: every registered scenario runs, and ours and
every peer end with the same table (a correctness check; no timing is asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.data import dataset
from benchmarks.harness import format_table, plan_runs
from benchmarks.runner import run_scenario
from benchmarks.scenarios import OURS, SCENARIOS

REPO = Path(__file__).resolve().parents[2]

TINY = 2_000


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("bench")


@pytest.fixture(scope="module")
def results(spark, bench_dir) -> dict[str, dict]:
    from benchmarks.scenarios.many_deltas import COUNTS_ENV

    os.environ[COUNTS_ENV] = "0,2,3"  # scenario 9 with 2 and 3 statements: the harness, not the numbers
    out = {}
    for name in SCENARIOS:
        out[name] = run_scenario(spark, name, data_dir=bench_dir, rows=TINY, repeat=1, warmup=0)
    del os.environ[COUNTS_ENV]
    return out


def test_every_scenario_of_the_issue_that_can_run_is_registered() -> None:
    assert {"update_one", "delete_1pct", "merge_1pct", "scan_after_dml", "small_insert", "small_update",
            "scan_many_deltas"} <= set(SCENARIOS)


def test_every_scenario_times_ours_and_its_peers(results) -> None:
    for name, result in results.items():
        assert list(result["contenders"])[0] == OURS, name
        assert len(result["contenders"]) >= 2, name
        for contender, stats in result["contenders"].items():
            assert len(stats["seconds"]) == 1 and stats["seconds"][0] > 0, (name, contender)
            assert stats["peak_rss_mb"] > 0 and stats["rss_growth_mb"] >= 0, (name, contender)
            # Measured for everyone; a peer reading a few hundred rows in Python may stay under one clock tick.
            assert stats["median_cpu_seconds"] >= 0, (name, contender)
            assert contender != OURS or stats["median_cpu_seconds"] > 0, (name, contender)
        assert set(result["ratios"]) == set(result["contenders"]) - {OURS}
        assert result["tracemalloc_peak_mb"] > 0


#: What Spark does for ours at this size, by scenario: (launches jobs, its ORC reader reads rows).
#: The tables are small (2,000 rows), so UPDATE / DELETE targets are read on the driver and the statement is
#: a local relation (``hiveacid.driver.scan.max.rows``): no job, nothing read by Spark. MERGE still joins
#: its (non-local) source in jobs. A major compaction reads its inputs with pyarrow inside its one job (whose
#: task list, one row per output file from ``spark.range``, is all Spark counts as read: checked below), an
#: INSERT ... VALUES reads no table, and the SELECT scans read the base through Spark.
SPARK_WORK = {
    "scan_after_dml": (True, True),
    "scan_many_deltas": (True, True),
    "merge_1pct": (True, True),
    "major_compaction": (True, True),
    "small_insert": (True, False),
    "update_one": (False, False),
    "delete_1pct": (False, False),
    "small_update": (False, False),
}


def test_every_statement_of_ours_reports_its_spark_work(results) -> None:
    for name, result in results.items():
        ours = result["contenders"][OURS]
        if name.startswith(("store_", "arrow_read")):  # no Spark job by design
            assert ours["spark_jobs"] == 0, name
            continue
        jobs, reads = SPARK_WORK[name]
        assert (ours["spark_jobs"] >= 1) is jobs, (name, ours)
        assert (ours["rows_read"] >= 1) is reads, (name, ours)
        if name == "major_compaction":  # the task list's rows, not the table's (2,000)
            assert ours["rows_read"] <= 4, (name, ours)


def test_ours_and_every_peer_end_with_the_same_table(results) -> None:
    for name, result in results.items():
        assert result["same_contents"], name
        assert all(result["same_contents"].values()), (name, result["contents"])


def test_final_tables_hold_the_changes(results) -> None:
    """Expected row counts worked out from the generator's rules, not from any contender."""
    rows = lambda name: result_rows(results[name])  # noqa: E731
    assert rows("update_one") == TINY
    assert rows("delete_1pct") == TINY - TINY // 100  # ids with id % 100 == 7: one in a hundred
    assert rows("merge_1pct") == TINY + TINY // 200  # 1% source rows, half of them new ids
    assert results["merge_1pct"]["notes"]["hiveacid_rows_updated"] == TINY // 200
    assert results["merge_1pct"]["notes"]["hiveacid_rows_inserted"] == TINY // 200
    assert rows("small_insert") == 1_001
    assert rows("small_update") == 1_000
    scan = results["scan_after_dml"]["contents"][OURS]
    # 5 DELETEs of id % 500 in 100..104: 5 of every 500 ids; UPDATEs add 1 to ids with id % 1000 < 5.
    assert scan["n"] == TINY - 5 * TINY // 500
    expected_salary = sum(1000 + (i * 7919) % 9000 + (1 if i % 1000 < 5 else 0)
                          for i in range(TINY) if not 100 <= i % 500 <= 104)
    assert scan["sum_salary"] == expected_salary
    assert results["update_one"]["notes"]["hiveacid_rows_affected"] == 1
    many = results["scan_many_deltas"]
    assert set(many["contenders"]) == {OURS, "after-0", "after-2"}
    assert many["contents"][OURS]["n"] == TINY  # no-op UPDATEs: every row still there, once
    # Each one-row UPDATE adds a one-event insert delta and delete delta; those small files are read on the
    # driver (exec/small_files.py), so Spark's ORC reader reads exactly what it reads after 0 statements.
    assert many["contenders"][OURS]["rows_read"] == many["contenders"]["after-0"]["rows_read"] == TINY
    assert results["delete_1pct"]["notes"]["hiveacid_rows_affected"] == TINY // 100


def result_rows(result: dict) -> int:
    return result["contents"][OURS]["rows"]


def test_restore_starts_every_run_from_the_same_files(results, bench_dir) -> None:
    data = dataset(bench_dir, TINY)
    data.restore("base", "acid")
    table = data.acid_warehouse / "employee"
    assert sorted(p.name for p in table.iterdir() if not p.name.startswith((".", "_"))) == ["delta_0000001_0000001_0000"]
    golden = data.golden("base") / "acid" / "employee" / "delta_0000001_0000001_0000"
    assert {p.name for p in golden.iterdir()} == {p.name for p in (table / golden.name).iterdir()}


def test_table_lists_each_contender(results) -> None:
    text = format_table(list(results.values()))
    for result in results.values():
        for contender in result["contenders"]:
            assert contender in text
    assert "NO" not in text.split()


def test_fixed_size_scenarios_run_once_whatever_the_sizes() -> None:
    runs = plan_runs(["update_one", "small_insert"], [1_000_000, 10_000_000])
    assert runs == [("update_one", 1_000_000), ("small_insert", 1_000), ("update_one", 10_000_000)]


@pytest.mark.release  # CI's 25-minute budget: the in-process scenario test above runs in CI
def test_command_line_runs_a_scenario_in_a_worker_process(bench_dir) -> None:
    command = [sys.executable, "-m", "benchmarks", "run", "--scenario", "small_insert", "--repeat", "1",
               "--warmup", "0", "--no-tracemalloc", "--json", "--data-dir", str(bench_dir / "cli")]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads(done.stdout)
    (result,) = report["results"]
    assert result["scenario"] == "small_insert" and result["rows"] == 1_000
    assert result["same_contents"] == {"delta-rs": True}
    assert result["contents"][OURS] == {"rows": 1_001}
    assert report["machine"]["cores"] >= 1


def test_command_line_rejects_an_unknown_scenario() -> None:
    command = [sys.executable, "-m", "benchmarks", "run", "--scenario", "nope"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "unknown scenario(s) nope" in done.stderr
