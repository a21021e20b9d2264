"""Where the compactor runs: a background thread of a session, or ``hiveacid-sql compactor`` for a warehouse.

One round = the initiator (when ``hive.compactor.initiator.on`` is true), the worker (when
``hive.compactor.worker.threads`` > 0: every queued request, one at a time) and the cleaner (always). The
thread repeats a round every ``hive.compactor.check.interval`` (Hive's default 300 s; Hive's time suffixes
``s``/``ms``/``m`` are accepted) and runs the cleaner alone every ``hive.compactor.cleaner.run.interval``
(5000 ms). The command runs rounds the same way, or one round with ``--once``; it acts as initiator and
worker unless told otherwise.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from hiveacid_sql.compactor.worker import Compactor
from hiveacid_sql.settings import (
    CHECK_INTERVAL,
    CLEANER_INTERVAL,
    INITIATOR_ON,
    WORKER_THREADS,
    setting_value,
)
from hiveacid_sql.txn import TxnStore

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger("hiveacid_sql.compactor")

def wants_compactor(settings: Mapping[str, str]) -> bool:
    """Whether session settings ask for a compactor thread (initiator on, or worker threads > 0)."""
    return bool(setting_value(settings, INITIATOR_ON)) or setting_value(settings, WORKER_THREADS) > 0


def run_round(compactor: Compactor, *, initiator: bool, worker: bool) -> dict[str, list[int]]:
    """One pass of initiator, worker, cleaner and housekeeper; returns the request ids each one handled
    (and, under "purged", the number of aborted transactions the housekeeper forgot)."""
    queued = compactor.initiate() if initiator else []
    worked = [r.compaction.id for r in compactor.work_all()] if worker else []
    cleaned = compactor.clean()
    report = compactor.housekeep()
    return {"initiated": queued, "worked": worked, "cleaned": cleaned, "purged": [report.purged_txns]}


class CompactorThread:
    """A daemon thread running compactor rounds for a session until :meth:`stop`."""

    def __init__(self, spark: SparkSession, store: TxnStore, settings: Mapping[str, str]) -> None:
        self.settings = dict(settings)
        self.compactor = Compactor(spark, store, self.settings)
        self._stop = threading.Event()
        self.rounds = 0
        self.last_error: str | None = None
        self._thread = threading.Thread(target=self._loop, name="hiveacid-compactor", daemon=True)

    def start(self) -> CompactorThread:
        self._thread.start()
        return self

    def stop(self, timeout: float = 60.0) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _loop(self) -> None:
        check = setting_value(self.settings, CHECK_INTERVAL)
        clean_every = setting_value(self.settings, CLEANER_INTERVAL)
        initiator = bool(setting_value(self.settings, INITIATOR_ON))
        worker = setting_value(self.settings, WORKER_THREADS) > 0
        next_round = 0.0
        while not self._stop.is_set():
            try:
                if time.monotonic() >= next_round:
                    run_round(self.compactor, initiator=initiator, worker=worker)
                    self.rounds += 1
                    next_round = time.monotonic() + check
                else:
                    self.compactor.clean()
            except Exception as exc:  # noqa: BLE001 - a background thread must survive and report
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.warning("compactor round failed: %s", self.last_error)
            self._stop.wait(min(clean_every, max(0.0, next_round - time.monotonic())) or clean_every)
