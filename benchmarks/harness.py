"""``python -m benchmarks run``: each scenario in its own worker process, then one table of results.

A process per scenario keeps the memory numbers honest (a scenario's peak is not an earlier one's
leftover) and gives every scenario a fresh JVM with the same settings. Data generation happens in the
first worker that needs a size and is kept on disk, so it is never inside a measurement.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.scenarios import OURS, SCENARIOS

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = Path(os.environ.get("HIVEACID_BENCH_DATA", Path(tempfile.gettempdir()) / "hiveacid-bench"))
DEFAULT_ROWS = 10_000_000
SPARK_CONF = {
    # The JVM runs the Spark driver and, in local mode, the executors: room for 10 M-row shuffles.
    "spark.driver.memory": "4g",
}


def plan_runs(scenarios: list[str], sizes: list[int]) -> list[tuple[str, int]]:
    """(scenario, rows) pairs to run; a fixed-size scenario runs once whatever the sizes."""
    runs: list[tuple[str, int]] = []
    for size in sizes:
        for name in scenarios:
            fixed = SCENARIOS[name].fixed_rows
            pair = (name, fixed or size)
            if pair not in runs:
                runs.append(pair)
    return runs


def run_worker(name: str, rows: int, args) -> dict[str, Any]:
    """One scenario in a fresh ``python -m benchmarks worker`` process; its JSON result.

    The data is built first by a process of its own (``--setup-only``), so the measuring process never
    carries the memory that generating 10 M rows left behind."""
    setup = [sys.executable, "-m", "benchmarks", "worker", "--scenario", name, "--rows", str(rows),
             "--data-dir", str(args.data_dir), "--out", os.devnull, "--setup-only"]
    done = subprocess.run(setup, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stdout.splitlines()[-30:])
        return {"scenario": name, "rows": rows, "error": f"setup exited {done.returncode}:\n{tail}"}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        command = [
            sys.executable, "-m", "benchmarks", "worker", "--scenario", name, "--rows", str(rows),
            "--repeat", str(args.repeat), "--warmup", str(args.warmup), "--data-dir", str(args.data_dir),
            "--out", str(out),
        ]
        if args.profile:
            command += ["--profile", str(args.profile)]
        if args.no_tracemalloc:
            command.append("--no-tracemalloc")
        if args.java_options is not None:
            command.append(f"--java-options={args.java_options}")
        done = subprocess.run(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0 or not out.is_file():
            tail = "\n".join(done.stdout.splitlines()[-30:])
            return {"scenario": name, "rows": rows, "error": f"worker exited {done.returncode}:\n{tail}"}
        return json.loads(out.read_text())


def worker_main(args) -> int:
    """Inside the worker: start a local Spark, run one scenario, write its JSON."""
    from benchmarks.runner import prepare_data, run_scenario
    from hiveacid_sql.exec.session import local_session

    conf = dict(SPARK_CONF)
    if args.profile:
        conf.update({"spark.ui.enabled": "true", "spark.ui.port": "0"})
    if args.java_options is not None:  # the caller's JVM options, as a user's conf: ours are left out
        conf["spark.driver.extraJavaOptions"] = f"-Duser.timezone=UTC {args.java_options}".strip()
    spark = local_session(conf)
    if args.setup_only:
        try:
            prepare_data(spark, args.scenario, data_dir=Path(args.data_dir), rows=args.rows)
        finally:
            spark.stop()
        return 0
    try:
        result = run_scenario(
            spark, args.scenario, data_dir=Path(args.data_dir), rows=args.rows, repeat=args.repeat,
            warmup=args.warmup, trace_memory=not args.no_tracemalloc,
            profile_dir=Path(args.profile) if args.profile else None,
        )
        result["versions"] = versions()
    finally:
        spark.stop()
    Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


def versions() -> dict[str, str]:
    """Versions of what the numbers depend on, for RESULTS.md."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": sys.version.split()[0]}
    for package in ("hiveacid-sql", "pyspark", "pyarrow", "pyorc", "deltalake"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            out[package] = "-"
    try:
        java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False).stderr
        out["java"] = java.splitlines()[0] if java else "-"
    except OSError:
        out["java"] = "-"
    return out


def machine() -> dict[str, Any]:
    """Cores and memory of this machine."""
    info: dict[str, Any] = {"cores": os.cpu_count()}
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                info["ram_gb"] = round(int(line.split()[1]) / 1024 / 1024, 1)
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return info


def format_table(results: list[dict[str, Any]]) -> str:
    """Medians and ratios (ours / peer), one line per contender."""
    header = f"{'scenario':<16} {'rows':>11}  {'contender':<18} {'median s':>9} {'ours/peer':>9} " \
             f"{'cpu s':>8} {'ours/peer':>9} {'peak RSS MB':>11} {'run +MB':>8} {'same table':>10} " \
             f"{'jobs':>5} {'rows read':>11}"
    lines = [header, "-" * len(header)]
    for r in results:
        if "error" in r:
            lines.append(f"{r['scenario']:<16} {r['rows']:>11,}  ERROR: {r['error'].splitlines()[0]}")
            continue
        for i, (name, s) in enumerate(r["contenders"].items()):
            ratio = "" if name == OURS else f"{r['ratios'][name]:.2f}x"
            cpu_ratio = r["cpu_ratios"].get(name)
            cpu_ratio_text = "" if name == OURS or cpu_ratio is None else f"{cpu_ratio:.2f}x"
            cpu = s["median_cpu_seconds"]
            cpu_text = "-" if cpu is None else f"{cpu:.2f}"
            same = "" if name == OURS else {True: "yes", False: "NO", None: "-"}[r["same_contents"].get(name)]
            label = (r["scenario"], f"{r['rows']:,}") if i == 0 else ("", "")
            lines.append(
                f"{label[0]:<16} {label[1]:>11}  {name:<18} {s['median_seconds']:>9.3f} {ratio:>9} "
                f"{cpu_text:>8} {cpu_ratio_text:>9} {s['peak_rss_mb']:>11.1f} {s.get('rss_growth_mb', 0):>8.1f} "
                f"{same:>10} {_count(s.get('spark_jobs')):>5} {_count(s.get('rows_read')):>11}"
            )
        if r.get("tracemalloc_peak_mb") is not None:
            lines.append(f"{'':<16} {'':>11}  {'(ours, tracemalloc peak MB)':<28} {r['tracemalloc_peak_mb']:>10.2f}")
    return "\n".join(lines)


def _count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def run_main(args) -> int:
    names = args.scenario or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(SCENARIOS)}", file=sys.stderr)
        return 2
    results = []
    for name, rows in plan_runs(names, args.rows):
        print(f"running {name} on {rows:,} rows ...", file=sys.stderr, flush=True)
        results.append(run_worker(name, rows, args))
        print(format_table(results[-1:]), file=sys.stderr, flush=True)
    report = {"machine": machine(), "versions": versions(), "results": results}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"machine: {report['machine']}; {report['versions']}")
        print(format_table(results))
    failed = [r for r in results if "error" in r or not all(r["same_contents"].values())]
    return 1 if failed else 0
