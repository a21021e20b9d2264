"""Where one run of ours spends its time: a driver profile and Spark's own job and stage metrics.

* The driver: pyinstrument samples the Python stack; time spent waiting on the JVM shows up under the
  Python call that asked for it (``collect``, ``toArrow``, ``write``), so the profile reads as phases:
  snapshot, listing, footer reads, planning, row-id query, writers, commit.
* Spark: the run's jobs are tagged with a job group, then read back from the status REST API of the
  Spark UI (``/api/v1/applications/<app>/jobs`` and ``/stages``): per job its wall time, per stage its
  tasks, executor run time, rows read and shuffle bytes. The worker turns the UI on only when profiling.

Output: ``<out>.driver.txt`` (pyinstrument), ``<out>.spark.json`` (raw REST rows) and ``<out>.jobs.txt``
(one line per job and stage).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

GROUP = "hiveacid-bench-profile"


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 - the local Spark UI
        return json.load(response)


def _ms(start: str | None, end: str | None) -> int | None:
    if not start or not end:
        return None
    fmt = "%Y-%m-%dT%H:%M:%S.%f%Z"
    return int((datetime.strptime(end, fmt) - datetime.strptime(start, fmt)).total_seconds() * 1000)


def spark_jobs(spark: SparkSession, group: str) -> dict[str, Any]:
    """Jobs of ``group`` and their stages, from the status REST API (empty when the UI is off)."""
    sc = spark.sparkContext
    if not sc.uiWebUrl:
        return {"jobs": [], "stages": []}
    base = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}"
    jobs = [j for j in _get(f"{base}/jobs") if j.get("jobGroup") == group]
    stage_ids = {s for j in jobs for s in j.get("stageIds", [])}
    stages = [s for s in _get(f"{base}/stages") if s["stageId"] in stage_ids and s.get("status") != "SKIPPED"]
    return {"jobs": jobs, "stages": stages}


def _summary(rest: dict[str, Any]) -> str:
    lines = []
    stages = {s["stageId"]: s for s in rest["stages"]}
    for job in sorted(rest["jobs"], key=lambda j: j["jobId"]):
        took = _ms(job.get("submissionTime"), job.get("completionTime"))
        lines.append(f"job {job['jobId']}: {took} ms, {job.get('numTasks')} tasks: {job.get('name', '')[:90]}")
        for sid in sorted(job.get("stageIds", [])):
            s = stages.get(sid)
            if s is None:
                continue
            lines.append(
                f"    stage {sid}: {_ms(s.get('submissionTime'), s.get('completionTime'))} ms wall, "
                f"{s.get('numTasks')} tasks, executor run {s.get('executorRunTime')} ms "
                f"(cpu {int(s.get('executorCpuTime', 0) / 1e6)} ms), input {s.get('inputRecords')} rows / "
                f"{s.get('inputBytes')} B, shuffle read {s.get('shuffleReadBytes')} B, write "
                f"{s.get('shuffleWriteBytes')} B, output {s.get('outputRecords')} rows: {s.get('name', '')[:60]}"
            )
    return "\n".join(lines) + "\n"


def profile_run(spark: SparkSession, fn: Callable[[], object], out: Path) -> None:
    """Run ``fn`` once under pyinstrument with its Spark jobs tagged; write the three reports."""
    from pyinstrument import Profiler

    out.parent.mkdir(parents=True, exist_ok=True)
    sc = spark.sparkContext
    sc.setJobGroup(GROUP, "benchmark profile run")
    profiler = Profiler(interval=0.005)
    try:
        profiler.start()
        fn()
    finally:
        profiler.stop()
        sc.setJobGroup(None, None)  # type: ignore[arg-type]
    Path(f"{out}.driver.txt").write_text(profiler.output_text(unicode=False, color=False, show_all=False))
    rest = spark_jobs(spark, GROUP)
    Path(f"{out}.spark.json").write_text(json.dumps(rest, indent=1))
    Path(f"{out}.jobs.txt").write_text(_summary(rest))
