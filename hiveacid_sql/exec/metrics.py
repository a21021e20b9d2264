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
    """Spark work of one statement: jobs launched, stages run and rows read by those stages; rows its stages
    wrote to shuffles, and rows its broadcast exchanges collected (the "number of output rows" of every
    ``BroadcastExchange`` in its SQL executions: a table built into a hash relation on the driver)."""

    jobs: int
    stages: int
    rows_read: int
    rows_shuffled: int = 0
    rows_broadcast: int = 0


def _drain(spark: SparkSession) -> Any:
    """Wait for Spark's listener bus to deliver every event so far; the status store of the context."""
    from hiveacid_sql.exec.session import is_connect

    if is_connect(spark):
        raise HiveAcidError("Spark work metrics need classic PySpark (a driver JVM), not Spark Connect")
    jsc = spark.sparkContext._jsc.sc()  # noqa: SLF001 - no Python API for the store
    jsc.listenerBus().waitUntilEmpty()
    return jsc.statusStore()


def _sql_store(spark: SparkSession) -> Any:
    """The SQL executions' status store (what the UI's SQL tab shows), after the listener bus drained."""
    _drain(spark)
    return spark._jsparkSession.sharedState().statusStore()  # noqa: SLF001 - no Python API for the store


def _jobs(store: Any) -> list[Any]:
    seq = store.jobsList(None)
    return [seq.apply(i) for i in range(seq.length())]


class SparkWork:
    """Counts the Spark work between :meth:`start` and :meth:`finish` (see the module docstring)."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self._last_job = -1
        self._last_execution = -1

    def start(self) -> SparkWork:
        """Remember the newest job and SQL execution so far; returns ``self``."""
        self._last_job = max((job.jobId() for job in _jobs(_drain(self.spark))), default=-1)
        executions = _sql_store(self.spark).executionsList()
        count = executions.length()
        self._last_execution = int(executions.apply(count - 1).executionId()) if count else -1
        return self

    def finish(self) -> WorkDone:
        """Jobs, stages and input rows of every job launched since :meth:`start`."""
        store = _drain(self.spark)
        jobs = [job for job in _jobs(store) if job.jobId() > self._last_job]
        stage_ids: set[int] = set()
        for job in jobs:
            seq = job.stageIds()
            stage_ids.update(int(seq.apply(i)) for i in range(seq.length()))
        stages, rows, shuffled = 0, 0, 0
        for stage_id in sorted(stage_ids):
            try:
                stage = store.lastStageAttempt(stage_id)
            except Exception:  # noqa: BLE001 - a stage the store no longer keeps (or never ran)
                continue
            if str(stage.status()) == "SKIPPED":
                continue
            stages += 1
            rows += int(stage.inputRecords())
            shuffled += int(stage.shuffleWriteRecords())
        return WorkDone(
            jobs=len(jobs), stages=stages, rows_read=rows, rows_shuffled=shuffled, rows_broadcast=self._broadcast_rows()
        )

    def _broadcast_rows(self) -> int:
        """Output rows of the ``BroadcastExchange`` nodes of the SQL executions since :meth:`start` (their plan
        graphs include the plans of the cached relations they build, and AQE's final plans)."""
        store = _sql_store(self.spark)
        executions = store.executionsList()
        total = 0
        for i in reversed(range(executions.length())):
            execution_id = int(executions.apply(i).executionId())
            if execution_id <= self._last_execution:
                break
            wanted: set[int] = set()
            nodes = store.planGraph(execution_id).allNodes()
            for n in range(nodes.length()):
                node = nodes.apply(n)
                if str(node.name()) != "BroadcastExchange":
                    continue
                metrics = node.metrics()
                wanted.update(
                    int(metrics.apply(m).accumulatorId()) for m in range(metrics.length())
                    if str(metrics.apply(m).name()) == "number of output rows"
                )
            if not wanted:
                continue
            values = store.executionMetrics(execution_id).iterator()
            while values.hasNext():
                pair = values.next()
                if int(pair._1()) in wanted:  # noqa: SLF001 - a Scala tuple
                    total += int(str(pair._2()).replace(",", "") or 0)  # noqa: SLF001
        return total


def measure(spark: SparkSession, fn: Any) -> tuple[Any, WorkDone]:
    """Run ``fn()`` and return its result with the Spark work it caused."""
    work = SparkWork(spark).start()
    result = fn()
    return result, work.finish()
