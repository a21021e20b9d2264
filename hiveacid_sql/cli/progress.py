"""A console progress bar for the Spark jobs a statement runs, read from Spark's status tracker.

Spark's own console bar (``spark.ui.showConsoleProgress``) is off in the sessions we start because it
writes into whatever stderr is, pipes and logs included; this one draws only when stderr is a terminal,
in Spark's layout (``[Stage 3:=====>      (5 + 2) / 16]``), after the statement has run for half a
second (Spark's first delay), and wipes itself when the statement ends.
"""

from __future__ import annotations

import threading
import time
from typing import Any, TextIO

from hiveacid_sql.exec.session import is_connect

WIDTH = 80
FIRST_DELAY_S = 0.5
INTERVAL_S = 0.2


def render_stages(stages: list[tuple[int, int, int, int]], width: int = WIDTH) -> str:
    """The bar text for ``(stage id, total tasks, completed tasks, active tasks)`` of the running stages."""
    if not stages:
        return ""
    share = width // len(stages)
    parts = []
    for stage_id, total, completed, active in stages:
        header = f"[Stage {stage_id}:"
        tailer = f"({completed} + {active}) / {total}]"
        room = share - len(header) - len(tailer)
        if room > 0 and total > 0:
            done = room * completed // total
            bar = "=" * done + (">" if done < room else "") + " " * max(room - done - 1, 0)
        else:
            bar = ""
        parts.append(header + bar + tailer)
    return "".join(parts)


class ProgressBar:
    """Context manager: while the block runs, redraw the bar of the session's running stages on ``stream``."""

    def __init__(self, spark: Any, stream: TextIO, *, enabled: bool = True,
                 first_delay: float = FIRST_DELAY_S, interval: float = INTERVAL_S) -> None:
        self._spark = spark
        self._stream = stream
        self._enabled = enabled
        self._first_delay = first_delay
        self._interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn = 0

    def _session(self) -> Any:
        """The SparkSession, or None while it has not started (``spark`` may be a function returning it: a
        connection whose Spark starts with the statement this bar is for)."""
        return self._spark() if callable(self._spark) else self._spark

    def __enter__(self) -> ProgressBar:
        # Spark Connect has no status tracker in this process (no driver JVM): no bar, quietly.
        session = self._session()
        if self._enabled and (session is None or not is_connect(session)):
            self._thread = threading.Thread(target=self._run, name="hiveacid-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        if self._drawn:
            self._stream.write("\r" + " " * self._drawn + "\r")
            self._stream.flush()

    def _run(self) -> None:
        started = time.monotonic()
        tracker = None
        while not self._stop.wait(self._interval):
            if time.monotonic() - started < self._first_delay:
                continue
            try:
                if tracker is None:
                    session = self._session()
                    if session is None:  # Spark is still starting
                        continue
                    tracker = session.sparkContext.statusTracker()
                stages = []
                for stage_id in sorted(tracker.getActiveStageIds())[:3]:
                    info = tracker.getStageInfo(stage_id)
                    if info is not None:
                        stages.append((stage_id, info.numTasks, info.numCompletedTasks, info.numActiveTasks))
            except Exception:  # the session is going away: no bar, never a failure
                return
            text = render_stages(stages)
            if text:
                self._stream.write("\r" + text.ljust(self._drawn))
                self._stream.flush()
                self._drawn = max(self._drawn, len(text))
