"""How one timed run is measured: wall time, the Python driver's peak RSS, and (on request) tracemalloc.

Peak RSS: Linux keeps a process's high-water mark (``VmHWM`` in ``/proc/self/status``) and resets it when
``5`` is written to ``/proc/self/clear_refs``, so each run gets its own peak without a process per run.
The number covers the Python driver process only: in local mode the JVM holds both the Spark driver and
the executors, whose memory grows with the data by design; what must stay flat is what *our* Python
code keeps on the driver (collected rows, footers, plans). Where ``clear_refs`` is not available the
process's lifetime peak (``ru_maxrss``) is reported instead, and flagged.

tracemalloc slows every Python allocation down, so it is never on during a timed run: the harness does
one extra, untimed run with it for the tracemalloc peak.
"""

from __future__ import annotations

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
    peak_rss_mb: float
    rss_is_lifetime_peak: bool  # True when the per-run reset was not available


def _vm_hwm_kb() -> int | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
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


def timed(fn: Callable[[], object]) -> RunSample:
    """Run ``fn`` once; its wall time and the driver's peak RSS during the run."""
    per_run = _reset_peak_rss()
    started = time.perf_counter()
    fn()
    seconds = time.perf_counter() - started
    hwm = _vm_hwm_kb() if per_run else None
    if hwm is None:  # ru_maxrss is in KiB on Linux
        return RunSample(seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, True)
    return RunSample(seconds, hwm / 1024, False)


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
