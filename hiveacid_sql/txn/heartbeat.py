"""Heartbeats of what a process holds on the store, from a daemon thread: its open transactions, so the store's
housekeeping (``hive.txn.timeout``) does not abort them while a long statement or a compaction works, and its
read leases, so the compaction cleaner keeps their files while the process lives and not much longer.

Why leases are heartbeated too: a lease used to last its whole term (an hour) whether or not its holder still
ran, and the cleaner could end early only the leases of dead processes of its own host (by pid). A heartbeated
lease expires a short time (the transaction time-out) after its holder's last beat, on any host; a holder
that lives keeps extending it, up to the end it chose (``hiveacid.read.lease.seconds`` for a lazy DataFrame).
One store call per beat carries both (``TxnStore.heartbeat_holder``), as Hive's one ``heartbeat`` call
carries a transaction and its locks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from hiveacid_sql.errors import TxnError

if TYPE_CHECKING:
    from hiveacid_sql.txn.store import TxnStore

#: The end of a lease held until its holder drops it (epoch millis: far away).
UNTIL_DROPPED = 1 << 62


def _seconds(value: float | Callable[[], float]) -> Callable[[], float]:
    return value if callable(value) else (lambda: float(value))


class Heartbeater:
    """A daemon thread that, every ``interval_s`` (a number, or read anew before each wait), heartbeats the
    open transactions and read leases it holds, in one store call, until stopped.

    ``txn_id``: a transaction to heartbeat from the start (the thread starts at once); without one the
    thread starts when something is first held. ``lease_s``: a held lease expires this long after a beat
    (default: twice the interval, so one missed beat does not lose it). A transaction the store says is no
    longer open (timed out, ABORT TRANSACTIONS) is dropped and its error kept in :attr:`errors`; the
    transaction's next store call fails with the same news."""

    def __init__(
        self,
        store: TxnStore,
        txn_id: int | None = None,
        interval_s: float | Callable[[], float] = 150.0,
        *,
        lease_s: float | Callable[[], float] | None = None,
        name: str | None = None,
    ) -> None:
        self.store = store
        self.txn_id = txn_id
        self._interval = _seconds(interval_s)
        self._lease_s = _seconds(lease_s) if lease_s is not None else (lambda: 2 * self._interval())
        self.errors: dict[int, TxnError] = {}
        self.beats = 0
        self._txns: set[int] = set()
        self._leases: dict[int, int] = {}  # lease id -> its end (epoch millis)
        self._cond = threading.Condition()
        self._stopped = False
        self._last = time.monotonic()
        self._thread = threading.Thread(
            target=self._run, name=name or f"hiveacid-heartbeat-{txn_id}", daemon=True
        )
        if txn_id is not None:
            self.add_txn(txn_id)

    @property
    def error(self) -> TxnError | None:
        """Why the first transaction given is no longer open, once a beat found out (None: not known)."""
        return self.errors.get(self.txn_id) if self.txn_id is not None else None

    # -- what is held ------------------------------------------------------------------------------
    def add_txn(self, txn_id: int) -> None:
        self._change(lambda: self._txns.add(txn_id))

    def drop_txn(self, txn_id: int) -> None:
        with self._cond:
            self._txns.discard(txn_id)

    def hold_leases(self, ids: Iterable[int], until_ms: int = UNTIL_DROPPED) -> None:
        """Keep leases alive until ``until_ms`` (epoch millis) or until dropped, whichever comes first."""
        ids = list(ids)
        if ids:
            self._change(lambda: self._leases.update(dict.fromkeys(ids, until_ms)))

    def drop_leases(self, ids: Iterable[int]) -> None:
        with self._cond:
            for lease_id in ids:
                self._leases.pop(lease_id, None)

    def held_leases(self) -> list[int]:
        """The leases still heartbeated (not dropped, their end not reached), by id."""
        now = int(time.time() * 1000)
        with self._cond:
            return sorted(i for i, end in self._leases.items() if end > now)

    def _change(self, change: Callable[[], None]) -> None:
        """Hold something more; start the thread if needed, and wake it so it reads the interval anew."""
        with self._cond:
            if self._stopped:
                return
            if not self._txns and not self._leases:
                self._last = time.monotonic()  # nothing was held: the next beat is one interval from now
            change()
            if self._thread.ident is None:
                self._thread.start()
            self._cond.notify_all()

    # -- the thread --------------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopped:
                    left = self._last + max(self._interval(), 0.01) - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)  # woken by a change: the interval may have changed too
                if self._stopped:
                    return
                self._last = time.monotonic()
                now = int(time.time() * 1000)
                for lease_id in [i for i, end in self._leases.items() if end <= now]:
                    del self._leases[lease_id]  # its row lapsed at its end (the beats never took it further)
                txns, leases = sorted(self._txns), dict(self._leases)
            if txns or leases:
                self._beat(txns, leases)

    def _beat(self, txns: list[int], leases: dict[int, int]) -> None:
        try:
            gone = self.store.heartbeat_holder(txns, leases, self._lease_s())
        except Exception:  # noqa: BLE001 - a transient store error: try again next beat
            return
        self.beats += 1
        with self._cond:
            for txn_id, exc in gone.items():
                self._txns.discard(txn_id)
                self.errors[txn_id] = exc

    def stop(self) -> None:
        """End the thread (what is held is no longer heartbeated: leases lapse, transactions time out)."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._thread.ident is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
