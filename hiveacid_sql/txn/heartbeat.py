"""Heartbeats of an open transaction from a daemon thread, so the store's housekeeping (``hive.txn.timeout``)
does not abort it while a long statement or a compaction works (both the engine and the compactor use it)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from hiveacid_sql.errors import TxnError

if TYPE_CHECKING:
    from hiveacid_sql.txn.store import TxnStore


class Heartbeater:
    """A daemon thread that heartbeats one open transaction every ``interval_s`` until stopped.

    If the store says the transaction was aborted meanwhile (timed out, ABORT TRANSACTIONS), it stops
    and keeps the error; the transaction's next store call fails with the same news."""

    def __init__(self, store: TxnStore, txn_id: int, interval_s: float) -> None:
        self.store = store
        self.txn_id = txn_id
        self.interval_s = max(interval_s, 0.01)
        self.error: TxnError | None = None
        self.beats = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"hiveacid-heartbeat-{txn_id}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.store.heartbeat(self.txn_id)
                self.beats += 1
            except TxnError as exc:  # aborted or gone: nothing left to keep alive
                self.error = exc
                return
            except Exception:  # noqa: BLE001, S112 - a transient store error: try again next beat
                continue

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
