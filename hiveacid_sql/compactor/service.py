"""Where the compactor runs: a background thread of a session, or ``hiveacid-sql compactor`` for a warehouse.

One round = the initiator (when ``hive.compactor.initiator.on`` is true), the worker (when
``hive.compactor.worker.threads`` > 0: every queued request, one at a time) and the cleaner (always). The
thread repeats a round every ``hive.compactor.check.interval`` (Hive's default 300 s; Hive's time suffixes
``s``/``ms``/``m`` are accepted) and runs the cleaner alone every ``hive.compactor.cleaner.run.interval``
(5000 ms). The command runs rounds the same way, or one round with ``--once``; it acts as initiator and
worker unless told otherwise.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from collections.abc import Mapping, Sequence

from pyspark.sql import SparkSession

from hiveacid_sql.compactor.worker import Compactor
from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.settings import (
    CHECK_INTERVAL,
    CLEANER_INTERVAL,
    INITIATOR_ON,
    WORKER_THREADS,
    setting_value,
)
from hiveacid_sql.txn import TxnStore

log = logging.getLogger("hiveacid_sql.compactor")

def wants_compactor(settings: Mapping[str, str]) -> bool:
    """Whether session settings ask for a compactor thread (initiator on, or worker threads > 0)."""
    return bool(setting_value(settings, INITIATOR_ON)) or setting_value(settings, WORKER_THREADS) > 0


def run_round(compactor: Compactor, *, initiator: bool, worker: bool) -> dict[str, list[int]]:
    """One pass of initiator, worker and cleaner; returns the request ids each one handled."""
    queued = compactor.initiate() if initiator else []
    worked = [r.compaction.id for r in compactor.work_all()] if worker else []
    cleaned = compactor.clean()
    return {"initiated": queued, "worked": worked, "cleaned": cleaned}


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


def main(argv: Sequence[str] | None = None, *, spark: SparkSession | None = None) -> int:
    """``hiveacid-sql compactor [--once] [--warehouse W] [--store-url U] [--master M] [--no-initiator]``.

    ``spark``: run on this SparkSession instead of starting one (embedding, tests).
    """
    parser = argparse.ArgumentParser(
        prog="hiveacid-sql compactor",
        description="Initiate, run and clean compactions for every ACID table of a warehouse.",
    )
    parser.add_argument("--once", action="store_true", help="run one round and exit")
    parser.add_argument("--warehouse", default=None, help="warehouse directory (default ./warehouse)")
    parser.add_argument("--store-url", default=None, help="SQLAlchemy URL of the transaction store")
    parser.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    parser.add_argument("--no-initiator", action="store_true", help="only work on queued requests and clean")
    parser.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="a hive.compactor.* setting (repeatable)"
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    conf: dict[str, str] = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep:
            print(f"hiveacid-sql compactor: --conf wants KEY=VALUE, got {item!r}", file=sys.stderr)
            return 2
        conf[key.strip()] = value.strip()
    from hiveacid_sql.engine.session import connect
    from hiveacid_sql.settings import Settings

    try:
        Settings(conf)  # a bad value is refused before anything starts
        session = connect(
            spark=spark, warehouse=args.warehouse, store_url=args.store_url, **({} if spark else {"master": args.master})
        )
    except HiveAcidError as exc:
        print(f"hiveacid-sql compactor: {exc}", file=sys.stderr)
        return 1
    with session:
        compactor = Compactor(session.spark, session.store, conf)
        check = setting_value(conf, CHECK_INTERVAL)
        while True:
            done = run_round(compactor, initiator=not args.no_initiator, worker=True)
            print(
                "compactor: initiated {} worked {} cleaned {}".format(
                    done["initiated"] or "-", done["worked"] or "-", done["cleaned"] or "-"
                ),
                flush=True,
            )
            if args.once:
                return 0
            try:
                time.sleep(check)
            except KeyboardInterrupt:
                return 0
