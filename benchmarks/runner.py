"""Run one scenario: setup, warm-up, timed runs of ours and the peers alternately, contents check, memory.

Alternation: repeat ``r`` runs the contenders in the order rotated by ``r`` (ours, peer A, peer B; then
peer A, peer B, ours; ...), so drift of the machine (other jobs, page cache, JIT) spreads over all of
them instead of landing on whoever runs last. Every run is preceded by its contender's ``prepare``
(restoring its start state), which is not timed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from benchmarks.contents import summary
from benchmarks.data import dataset
from benchmarks.measure import median, timed, tracemalloc_peak_mb
from benchmarks.scenarios import OURS, SCENARIOS, BenchContext
from hiveacid_sql.exec.metrics import SparkWork, WorkDone


def prepare_data(spark: SparkSession, name: str, *, data_dir: Path, rows: int) -> None:
    """Build (or find) the scenario's data, and nothing else."""
    cls = SCENARIOS[name]
    scenario = cls(BenchContext(spark, dataset(data_dir, cls.fixed_rows or rows)))
    scenario.setup()
    scenario.close()


def run_scenario(
    spark: SparkSession,
    name: str,
    *,
    data_dir: Path,
    rows: int,
    repeat: int,
    warmup: int = 1,
    trace_memory: bool = True,
    profile_dir: Path | None = None,
) -> dict[str, Any]:
    """All measurements of scenario ``name`` as a JSON-ready dict."""
    cls = SCENARIOS[name]
    size = cls.fixed_rows or rows
    ctx = BenchContext(spark, dataset(data_dir, size))
    scenario = cls(ctx)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    scenario.setup()
    setup_seconds = time.perf_counter() - started
    try:
        contenders = scenario.contenders()
        if contenders[0].name != OURS:
            raise ValueError(f"scenario {name}: the first contender must be ours ({OURS})")
        for _ in range(warmup):
            for contender in contenders:
                contender.prepare()
                contender.run()
        samples: dict[str, list] = {c.name: [] for c in contenders}
        work: dict[str, list[WorkDone]] = {c.name: [] for c in contenders}
        for r in range(repeat):
            shift = r % len(contenders)
            for contender in contenders[shift:] + contenders[:shift]:
                contender.prepare()
                # Spark's status store, read outside the timed call: the jobs and input rows of the run.
                counter = SparkWork(spark).start()
                samples[contender.name].append(timed(contender.run))
                work[contender.name].append(counter.finish())
        # The final tables, before any further run of ours changes its table again.
        final = {c.name: c.contents() for c in contenders if c.contents is not None}
        ours = contenders[0]
        traced = None
        if trace_memory:
            ours.prepare()
            traced = tracemalloc_peak_mb(ours.run)
        if profile_dir is not None:
            from benchmarks.profile import profile_run

            ours.prepare()
            profile_run(spark, ours.run, Path(profile_dir) / f"{name}-{size}")
    finally:
        scenario.close()
    load_after = os.getloadavg()[0]

    stats = {
        c.name: {
            "seconds": [round(s.seconds, 4) for s in samples[c.name]],
            "median_seconds": round(median([s.seconds for s in samples[c.name]]), 4),
            "cpu_seconds": [None if s.cpu_seconds is None else round(s.cpu_seconds, 3) for s in samples[c.name]],
            "median_cpu_seconds": _median_or_none([s.cpu_seconds for s in samples[c.name]]),
            "peak_rss_mb": round(max((s.peak_rss_mb for s in samples[c.name]), default=0.0), 1),
            # clear_refs resets the peak to the RSS of that moment, which can sit a page or two under the
            # RSS read just after it: a growth below zero is no growth.
            "rss_growth_mb": round(max((max(0.0, s.peak_rss_mb - (s.rss_start_mb or s.peak_rss_mb))
                                        for s in samples[c.name]), default=0.0), 1),
            "rss_is_lifetime_peak": any(s.rss_is_lifetime_peak for s in samples[c.name]),
            # Spark work per run (jobs launched, stage input records), the median over the timed runs.
            "spark_jobs": _median_int([w.jobs for w in work[c.name]]),
            "rows_read": _median_int([w.rows_read for w in work[c.name]]),
            # rows written to shuffles and rows built into broadcast hash relations (a whole table broadcast
            # or shuffled shows here; hiveacid_sql/exec/metrics.py)
            "rows_shuffled": _median_int([w.rows_shuffled for w in work[c.name]]),
            "rows_broadcast": _median_int([w.rows_broadcast for w in work[c.name]]),
        }
        for c in contenders
    }
    ours_median = stats[OURS]["median_seconds"]
    ours_cpu = stats[OURS]["median_cpu_seconds"]
    return {
        "scenario": name,
        "title": cls.title,
        "rows": size,
        "repeat": repeat,
        "warmup": warmup,
        "setup_seconds": round(setup_seconds, 2),
        "contenders": stats,
        "ratios": {
            peer: round(ours_median / s["median_seconds"], 3) if s["median_seconds"] else None
            for peer, s in stats.items()
            if peer != OURS
        },
        # The machine is shared: the 1-minute load average around the runs says how quiet it was.
        "load_average": [round(load_before, 1), round(load_after, 1)],
        "cpu_ratios": {
            peer: round(ours_cpu / s["median_cpu_seconds"], 3) if ours_cpu and s["median_cpu_seconds"] else None
            for peer, s in stats.items()
            if peer != OURS
        },
        "tracemalloc_peak_mb": round(traced, 2) if traced is not None else None,
        "same_contents": {peer: value == final[OURS] for peer, value in final.items() if peer != OURS},
        "contents": {peer: summary(value) for peer, value in final.items()},
        "notes": ctx.notes,
    }


def _median_or_none(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(median(known), 3) if len(known) == len(values) and known else None


def _median_int(values: list[int]) -> int | None:
    return int(median([float(v) for v in values])) if values else None
