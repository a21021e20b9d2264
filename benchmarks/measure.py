"""How one timed run is measured: wall time, the Python driver's peak RSS, and (on request) tracemalloc.

Peak RSS: Linux keeps a process's high-water mark (``VmHWM`` in ``/proc/self/status``) and resets it when
``5`` is written to ``/proc/self/clear_refs``, so each run gets its own peak without a process per run.
The number covers the Python driver process only: in local mode the JVM holds both the Spark driver and
the executors, whose memory grows with the data by design; what must stay flat is what *our* Python
code keeps on the driver (collected rows, footers, plans). The RSS at the start of the run is kept too:
the peak minus the start is what the run itself added (Arrow's allocator keeps memory it once used, so
a process's RSS after one run is the floor of the next). Where ``clear_refs`` is not available the
process's lifetime peak (``ru_maxrss``) is reported instead, and flagged.

CPU time: the machine is shared, so wall time depends on who else runs. Each run also reports the CPU
seconds (user + system) spent by this process and every process below it: the Spark JVM (started by
PySpark as a child), its Python workers, and the children they already reaped, read from
``/proc/<pid>/stat``. It counts work, not waiting, so it is the steadier number on a busy machine (it also
counts JVM background threads such as the JIT and GC, for every contender alike).

tracemalloc slows every Python allocation down, so it is never on during a timed run: the harness does
one extra, untimed run with it for the tracemalloc peak.
"""

from __future__ import annotations

import os
import resource
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


@dataclass(frozen=True)
class RunSample:
    """One timed run of one contender."""

    seconds: float
    cpu_seconds: float | None  # this process and its descendants (None where /proc is not there)
    rss_start_mb: float | None  # the driver's RSS when the run started
    peak_rss_mb: float
    rss_is_lifetime_peak: bool  # True when the per-run reset was not available


def _status_kb(field: str) -> int | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _children() -> dict[int, list[int]]:
    """Parent pid -> child pids, from /proc."""
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def tree_cpu_ticks(root: int | None = None) -> dict[int, int] | None:
    """Per process of the tree under ``root`` (default: this process): its user + system CPU ticks, reaped
    children's included (utime, stime, cutime, cstime)."""
    root = os.getpid() if root is None else root
    try:
        tree = _children()
    except OSError:
        return None
    ticks: dict[int, int] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        ticks[pid] = sum(int(f) for f in fields[11:15])
        todo += tree.get(pid, [])
    return ticks


def cpu_seconds_between(before: dict[int, int] | None, after: dict[int, int] | None) -> float | None:
    """CPU seconds the tree used between two :func:`tree_cpu_ticks` readings, never negative.

    Why per process: a process that ended in between (a Spark Python worker past its idle time) takes its
    ticks out of a sum over the tree; when it was reaped outside the tree its ticks appear nowhere, and a
    plain difference of sums went below zero. Only processes alive at both readings are compared (each one's
    counters only grow), and those born in between count whole; what an ended process used in between counts
    where its parent reaped it (cutime), if that parent is in the tree."""
    if before is None or after is None:
        return None
    ticks = sum(t - before.get(pid, 0) for pid, t in after.items())
    return ticks / _CLOCK_TICKS


def timed(fn: Callable[[], object]) -> RunSample:
    """Run ``fn`` once; its wall time, CPU time and the driver's peak RSS during the run."""
    per_run = _reset_peak_rss()
    rss_start = _status_kb("VmRSS")
    cpu_before = tree_cpu_ticks()
    started = time.perf_counter()
    fn()
    seconds = time.perf_counter() - started
    cpu = cpu_seconds_between(cpu_before, tree_cpu_ticks())
    start_mb = rss_start / 1024 if rss_start is not None else None
    hwm = _status_kb("VmHWM") if per_run else None
    if hwm is None:  # ru_maxrss is in KiB on Linux
        return RunSample(seconds, cpu, start_mb, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, True)
    return RunSample(seconds, cpu, start_mb, hwm / 1024, False)


def tracemalloc_peak_mb(fn: Callable[[], object]) -> float:
    """Peak of Python heap allocations traced while ``fn`` runs (an untimed run)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        fn()
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / (1024 * 1024)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
