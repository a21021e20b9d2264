"""How much Spark work one statement caused: jobs launched and rows read, from Spark's own status store.

Why: timings on a shared machine are noise, but the *structure* of a statement's work is not. A one-row
UPDATE that launches three jobs and reads one stripe's rows is fast for a reason a test can assert; one that
reads every row of the table is slow for a reason a test can catch. Spark already keeps these figures in its
application status store (what the UI and the REST API show): every job with its stages, and every stage's
input records (rows its tasks read from data sources: ORC files, Arrow batches). No listener of our own is
registered; the store is fed by Spark's listener bus, which runs asynchronously, so :meth:`SparkWork.finish`
waits for the bus to drain before reading.

Jobs are told apart by id: Spark numbers jobs in launch order, so the jobs of a statement are the ones with
an id above the highest id seen when it started. That is exact when nothing else runs jobs on the same
``SparkContext`` meanwhile (tests, the benchmark); on a shared session it is an upper bound.

The status store lives in the driver's JVM, so this needs classic PySpark: a Spark Connect session has no
driver JVM in this process (:func:`measure` raises a one-line error there). No statement path uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyspark.sql import SparkSession

from hiveacid_sql.errors import HiveAcidError


@dataclass(frozen=True)
class WorkDone:
    """Spark work of one statement: jobs launched, stages run and rows read by those stages."""

    jobs: int
    stages: int
    rows_read: int


def _drain(spark: SparkSession) -> Any:
    """Wait for Spark's listener bus to deliver every event so far; the status store of the context."""
    from hiveacid_sql.exec.session import is_connect

    if is_connect(spark):
        raise HiveAcidError("Spark work metrics need classic PySpark (a driver JVM), not Spark Connect")
    jsc = spark.sparkContext._jsc.sc()  # noqa: SLF001 - no Python API for the store
    jsc.listenerBus().waitUntilEmpty()
    return jsc.statusStore()


def _jobs(store: Any) -> list[Any]:
    seq = store.jobsList(None)
    return [seq.apply(i) for i in range(seq.length())]


class SparkWork:
    """Counts the Spark work between :meth:`start` and :meth:`finish` (see the module docstring)."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self._last_job = -1

    def start(self) -> SparkWork:
        """Remember the newest job so far; returns ``self``."""
        self._last_job = max((job.jobId() for job in _jobs(_drain(self.spark))), default=-1)
        return self

    def finish(self) -> WorkDone:
        """Jobs, stages and input rows of every job launched since :meth:`start`."""
        store = _drain(self.spark)
        jobs = [job for job in _jobs(store) if job.jobId() > self._last_job]
        stage_ids: set[int] = set()
        for job in jobs:
            seq = job.stageIds()
            stage_ids.update(int(seq.apply(i)) for i in range(seq.length()))
        stages, rows = 0, 0
        for stage_id in sorted(stage_ids):
            try:
                stage = store.lastStageAttempt(stage_id)
            except Exception:  # noqa: BLE001 - a stage the store no longer keeps (or never ran)
                continue
            if str(stage.status()) == "SKIPPED":
                continue
            stages += 1
            rows += int(stage.inputRecords())
        return WorkDone(jobs=len(jobs), stages=stages, rows_read=rows)


def measure(spark: SparkSession, fn: Any) -> tuple[Any, WorkDone]:
    """Run ``fn()`` and return its result with the Spark work it caused."""
    work = SparkWork(spark).start()
    result = fn()
    return result, work.finish()
