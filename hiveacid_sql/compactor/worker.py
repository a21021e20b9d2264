"""The compactor's three roles over one store and one SparkSession: worker, cleaner, initiator.

* :meth:`Compactor.work_one` - Hive's ``Worker``: claim the oldest initiated request, plan it at the
  compactor's write ids (nothing at or above the lowest open write id), run the Spark job into a hidden
  build directory, move the outputs into place, mark the request 'ready for cleaning'. Any failure marks it
  'failed' with the reason and removes the build directory; the table is untouched.
* :meth:`Compactor.clean` - Hive's ``Cleaner``: for each request ready for cleaning whose readers are done
  (no transaction open since before the output appeared, no read lease on the table taken before it),
  delete what the output made obsolete and every directory of aborted write ids, then mark it succeeded.
* :meth:`Compactor.initiate` - Hive's ``Initiator``: queue a compaction for each transactional table (or
  partition) whose directory crosses a threshold (:func:`~hiveacid_sql.acid.compaction.determine_compaction_type`).

The worker holds a read lease on the table while it reads, so another compaction's cleaner never removes
its inputs under it.

On a store without atomic directory rename (S3 and other object stores: a rename is a copy and a delete per key,
so a reader could list half an output) the worker does what Hive 4 does: it opens a transaction ``T`` of its own,
writes its outputs in place as ``base_N_vT`` / ``delta_x_y_vT`` / ``delete_delta_x_y_vT`` and commits ``T``
only when they are complete. A reader with a transaction list (every statement, ``read_table`` by name) uses
them only once ``T`` is committed in its list; an aborted ``T``'s outputs are garbage the cleaner deletes.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import socket
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow.fs as pafs

from hiveacid_sql.acid.compaction import (
    aborted_dirs,
    determine_compaction_type,
    no_auto_compaction,
    obsolete_after,
    plan_compaction,
    temp_dir_name,
)
from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.listing import filesystem_for, has_atomic_rename, list_acid_dir
from hiveacid_sql.acid.state import TableListing, get_acid_state
from hiveacid_sql.acid.writeids import ValidTxnList, ValidWriteIdList
from hiveacid_sql.compactor.housekeeper import HousekeepingReport, housekeep
from hiveacid_sql.errors import CompactionError, HiveAcidError, NotEnoughHistoryError
from hiveacid_sql.settings import FAILED_THRESHOLD, RETENTION, TXN_TIMEOUT, WORKER_TIMEOUT, setting_value
from hiveacid_sql.txn import TableDef, TxnStore
from hiveacid_sql.txn.compactions import (
    READY_FOR_CLEANING,
    CompactionInfo,
    CompactionQueue,
    ReadLeases,
    process_gone,
)
from hiveacid_sql.txn.db import StoreError
from hiveacid_sql.txn.heartbeat import Heartbeater

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


#: Worker ids of this process inside :meth:`Compactor.run` right now.
_RUNNING: Counter[str] = Counter()
_RUNNING_LOCK = threading.Lock()


def worker_name() -> str:
    """Hive's worker id: host name, then the thread's id (here: process id, then thread id)."""
    return f"{socket.gethostname()}-{os.getpid()}-{threading.get_ident()}"


def worker_is_dead(worker_id: str | None) -> bool:
    """Whether ``worker_id`` (:func:`worker_name`) names a worker of this host whose process or thread is gone.

    Hive only has ``hive.compactor.worker.timeout`` (a day by default) for a worker that died; a worker on this
    machine can be checked at once, so a killed compaction is taken up again instead of blocking ``AND WAIT``.
    A worker of another host, or an id of another form, is never declared dead here.
    """
    host, _, rest = (worker_id or "").rpartition("-")
    host, _, pid_text = host.rpartition("-")
    if not pid_text.isdigit() or not rest.isdigit():
        return False
    pid = int(pid_text)
    if host == socket.gethostname() and pid == os.getpid():
        # this process: dead unless one of its threads is inside Compactor.run now (a Ctrl-C'd AND WAIT is dead)
        with _RUNNING_LOCK:
            return worker_id not in _RUNNING
    return process_gone(host, pid)


def _join(location: str, partition: str | None) -> str:
    return f"{location.rstrip('/')}/{partition}" if partition else location


@dataclass(frozen=True)
class WorkResult:
    """What :meth:`Compactor.work_one` did with one request."""

    compaction: CompactionInfo
    state: str  # 'r' ready for cleaning, 'f' failed
    outputs: tuple[str, ...] = ()
    files: int = 0
    error: str | None = None


class Compactor:
    """Worker, cleaner and initiator on one store; ``conf`` holds Hive settings (``hive.compactor.*``)."""

    def __init__(self, spark: SparkSession, store: TxnStore, conf: Mapping[str, str] | None = None) -> None:
        self.spark = spark
        self.store = store
        self.conf = dict(conf or {})
        self.queue = CompactionQueue(store.engine)
        self.leases = ReadLeases(store.engine)
        self.worker_id = worker_name()

    def _setting(self, key: str) -> Any:
        """A compactor setting's parsed value (Hive's default when not set)."""
        return setting_value(self.conf, key)

    # ------------------------------------------------------------------ worker
    def work_one(self, cq_id: int | None = None) -> WorkResult | None:
        """Claim and run one initiated request (the oldest, or ``cq_id``); None when there is none to claim."""
        self.revoke_lost()
        info = self.queue.claim(self.worker_id, cq_id)
        if info is None:
            return None
        with _RUNNING_LOCK:
            _RUNNING[self.worker_id] += 1
        try:
            return self.run(info)
        finally:
            with _RUNNING_LOCK:
                _RUNNING[self.worker_id] -= 1
                if _RUNNING[self.worker_id] <= 0:
                    del _RUNNING[self.worker_id]

    def revoke_lost(self) -> list[int]:
        """Requests whose worker timed out or is known dead go back to 'initiated'; returns their ids."""
        revoked = self.queue.revoke_timed_out(int(self._setting(WORKER_TIMEOUT) * 1000))
        for info in self.queue.in_state("w"):
            if worker_is_dead(info.worker_id) and self.queue.revoke(info.id, info.worker_id or ""):
                revoked.append(info.id)
        return revoked

    def work_all(self) -> list[WorkResult]:
        """Run requests until none is left."""
        results = []
        while (result := self.work_one()) is not None:
            results.append(result)
        return results

    def run(self, info: CompactionInfo) -> WorkResult:
        """Run a claimed ('working') request to 'ready for cleaning' or 'failed'."""
        # Held while the job reads, heartbeated: a worker that dies leaves it behind for one hive.txn.timeout.
        timeout = float(self._setting(TXN_TIMEOUT))
        lease = self.leases.acquire([(info.db, info.table)], seconds=timeout)
        heartbeat = Heartbeater(
            self.store, None, max(0.5, timeout / 2), lease_s=timeout, name="hiveacid-compactor-lease"
        )
        heartbeat.hold_leases(lease)
        fs: pafs.FileSystem | None = None
        build: str | None = None
        try:
            table = self.store.catalog.get_table(info.db, info.table)
            if not table.is_transactional:
                raise CompactionError(f"Compaction is not allowed on non-ACID table {table.qualified_name}")
            fs, location = filesystem_for(table.location)
            root = _join(location, info.partition)
            pending = info.meta.get("build_dir")
            if info.meta.get("visibility_txn"):
                self._drop_unfinished(fs, root, info)
            elif pending and info.meta.get("outputs"):
                # An earlier attempt died while moving its outputs into place: finish that move first.
                from hiveacid_sql.exec.compact import publish

                publish(fs, root, f"{root}/{pending}", info.meta["outputs"])
            elif pending:
                # An earlier attempt died while building: nothing of it is visible; drop what it wrote.
                from hiveacid_sql.exec.compact import remove_build_dir

                remove_build_dir(fs, f"{root}/{pending}")
            if not has_atomic_rename(fs):
                return self._run_in_place(info, table, fs, root)
            snapshot = self.store.snapshot([(table.db, table.name)])
            write_ids = snapshot.write_ids(table.db, table.name).for_compactor()
            plan = plan_compaction(
                list_acid_dir(fs, root), write_ids, info.kind, insert_only=table.is_insert_only, txns=snapshot.txns
            )
            if plan is None:
                self.queue.mark_compacted(info.id, write_ids.high_watermark, note="nothing to compact")
                return WorkResult(info, READY_FOR_CLEANING)
            outputs = [plan.insert_dir] + ([plan.delete_dir] if plan.delete_dir else [])
            name = temp_dir_name()
            build = f"{root}/{name}"
            self.queue.update_meta(info.id, build_dir=name, inputs=list(plan.input_dirs))
            files = self._run_job(table, fs, root, build, plan, write_ids)
            self.queue.update_meta(info.id, outputs=outputs)  # from here on an interrupted move is finished later
            self._publish(fs, root, build, outputs)
            build = None
            self.queue.mark_compacted(info.id, plan.highest_write_id)
            return WorkResult(info, READY_FOR_CLEANING, tuple(outputs), len(files))
        except Exception as exc:  # noqa: BLE001 - every failure is recorded on the request
            message = f"{type(exc).__name__}: {exc}".splitlines()[0][:1000]
            if fs is not None and build is not None:
                from hiveacid_sql.exec.compact import remove_build_dir

                remove_build_dir(fs, build)
            with contextlib.suppress(HiveAcidError):
                self.queue.mark_failed(info.id, message)
            return WorkResult(info, "f", error=message)
        finally:
            heartbeat.stop()
            self.leases.release(lease)

    def _run_in_place(self, info: CompactionInfo, table: TableDef, fs: pafs.FileSystem, root: str) -> WorkResult:
        """Hive 4's compaction for a store without atomic rename: the outputs are written where they stay,
        named ``_v<T>`` after the worker's own transaction ``T``, and become visible in one step when ``T``
        commits. Any failure aborts ``T`` (its outputs are then garbage to every reader) after deleting them."""
        txn = self.store.open_txn(
            getpass.getuser(), socket.gethostname(), agent_info=f"compactor {self.worker_id}", compaction=True
        )
        heartbeat = Heartbeater(self.store, txn, max(1.0, float(self._setting(TXN_TIMEOUT)) / 2))
        outputs: list[str] = []
        try:
            snapshot = self.store.snapshot([(table.db, table.name)], txn_id=txn)
            write_ids = snapshot.write_ids(table.db, table.name).for_compactor()
            plan = plan_compaction(
                list_acid_dir(fs, root), write_ids, info.kind, insert_only=table.is_insert_only, txns=snapshot.txns
            )
            if plan is None:
                self.store.abort_txn(txn)
                self.queue.mark_compacted(info.id, write_ids.high_watermark, note="nothing to compact")
                return WorkResult(info, READY_FOR_CLEANING)
            plan = plan.visible_at(txn)
            outputs = [plan.insert_dir] + ([plan.delete_dir] if plan.delete_dir else [])
            self.queue.update_meta(info.id, visibility_txn=txn, outputs=outputs, inputs=list(plan.input_dirs))
            files = self._run_job(table, fs, root, root, plan, write_ids)
            self._make_visible(txn)
            self.queue.mark_compacted(info.id, plan.highest_write_id)
            return WorkResult(info, READY_FOR_CLEANING, tuple(outputs), len(files))
        except BaseException:
            if self.store.txn_state(txn) != "committed":
                _delete_dirs(fs, root, outputs)
                with contextlib.suppress(HiveAcidError):
                    self.store.abort_txn(txn)
            raise
        finally:
            heartbeat.stop()

    def _make_visible(self, txn: int) -> None:
        """Commit the compactor's transaction: from here on readers use its ``_v`` outputs."""
        self.store.commit_txn(txn)

    def _drop_unfinished(self, fs: pafs.FileSystem, root: str, info: CompactionInfo) -> None:
        """An earlier in-place attempt died: unless its transaction committed (its outputs are then the table's
        own), abort it and delete what it wrote."""
        txn = int(info.meta["visibility_txn"])
        try:
            state = self.store.txn_state(txn)
        except StoreError:
            raise  # the store did not answer: the outputs may be the table's own, keep them
        except HiveAcidError:
            state = "aborted"
        if state == "committed":
            return
        if state == "open":
            self.store.abort_txn(txn)
        _delete_dirs(fs, root, info.meta.get("outputs") or [])

    def _run_job(self, table: TableDef, fs, root: str, build: str, plan, write_ids: ValidWriteIdList) -> list[dict]:
        from hiveacid_sql.exec.compact import run_compaction_job

        if table.is_insert_only:
            from hiveacid_sql.exec.insert_only import compact_insert_only

            return compact_insert_only(self.spark, table, root, build, plan)
        columns = [(c.name, parse_hive_type(c.type)) for c in table.columns]
        fs_uri = table.location
        return run_compaction_job(self.spark, fs, fs_uri, root, build, plan, columns, write_ids)

    def _publish(self, fs, root: str, build: str, outputs: list[str]) -> None:
        from hiveacid_sql.exec.compact import publish

        publish(fs, root, build, outputs)

    # ------------------------------------------------------------------ cleaner
    def clean(self) -> list[int]:
        """Clean every request ready for cleaning whose readers are done; returns the ids cleaned."""
        cleaned = []
        self.leases.reap_dead()
        for info in self.queue.in_state(READY_FOR_CLEANING):
            if not self.queue.readers_done(info):
                continue
            try:
                self.clean_one(info)
            except (HiveAcidError, OSError) as exc:
                self.queue.mark_failed(info.id, f"cleaner: {type(exc).__name__}: {exc}".splitlines()[0])
                continue
            self.queue.mark_cleaned(info.id)
            cleaned.append(info.id)
        self.queue.purge_history(
            {code: int(self._setting(RETENTION + word)) for code, word in (("s", "succeeded"), ("f", "failed"), ("a", "attempted"))}
        )
        return cleaned

    def clean_one(self, info: CompactionInfo) -> list[str]:
        """Delete what the compaction made obsolete and the aborted write ids' directories; returns them."""
        try:
            table = self.store.catalog.get_table(info.db, info.table)
        except HiveAcidError:
            return []  # dropped meanwhile: nothing left to clean
        fs, location = filesystem_for(table.location)
        root = _join(location, info.partition)
        listing = list_acid_dir(fs, root)
        snapshot = self.store.snapshot([(table.db, table.name)])
        current = snapshot.write_ids(table.db, table.name)
        mm = table.is_insert_only
        doomed = list(aborted_dirs(listing, current, insert_only=mm, txns=snapshot.txns))
        if info.highest_write_id is not None:
            hwm = info.highest_write_id
            aborted = [w for w in current.aborted if w <= hwm]
            view = ValidWriteIdList(current.table_name, hwm, tuple(sorted(aborted)), frozenset(aborted))
            doomed += [p for p in _obsolete(listing, view, snapshot.txns, insert_only=mm) if p not in doomed]
        for rel in doomed:
            path = f"{root.rstrip('/')}/{rel}"
            with contextlib.suppress(FileNotFoundError):
                info_ = fs.get_file_info(path)
                if info_.type == pafs.FileType.Directory:
                    fs.delete_dir(path)
                elif info_.type == pafs.FileType.File:
                    fs.delete_file(path)
        return doomed

    def housekeep(self) -> HousekeepingReport:
        """Forget aborted transactions whose files the cleaner removed (aborted longer than
        ``hive.txn.timeout`` ago), trim TXN_TO_WRITE_ID and WRITE_SET (:mod:`~hiveacid_sql.compactor.housekeeper`)."""
        return housekeep(self.store, float(self._setting(TXN_TIMEOUT)))

    # ------------------------------------------------------------------ initiator
    def initiate(self) -> list[int]:
        """Queue compactions where Hive's thresholds say so; returns the new request ids."""
        queued = []
        busy = {(c.db, c.table, c.partition) for c in self.queue.in_state("i", "w")}
        limit = int(self._setting(FAILED_THRESHOLD))
        catalog = self.store.catalog
        for db in catalog.list_databases():
            for name in catalog.list_tables(db):
                try:
                    table = catalog.get_table(db, name)
                except HiveAcidError:
                    continue  # dropped meanwhile
                if not table.is_transactional or no_auto_compaction(table.params):
                    continue
                parts: list[str | None] = (
                    [p.name for p in catalog.list_partitions(db, name)] if table.is_partitioned else [None]
                )
                aborted = None
                for part in parts:
                    if (table.db, table.name, part) in busy:
                        continue
                    if limit > 0 and self.queue.recent_failures(table.db, table.name, part, limit) >= limit:
                        continue
                    if aborted is None:
                        aborted = self.queue.aborted_txn_count(table.db, table.name)
                    try:
                        kind = self.compaction_type(table, part, aborted)
                    except (HiveAcidError, OSError) as exc:
                        # Hive's initiator records a check that failed as 'attempted' and moves on
                        self.queue.record_attempt(table.db, table.name, part, "major", f"{type(exc).__name__}: {exc}")
                        continue
                    if kind is None:
                        continue
                    cq_id, accepted = self.queue.enqueue(table.db, table.name, part, kind, run_as=getpass.getuser())
                    if accepted:
                        queued.append(cq_id)
        return queued

    def compaction_type(self, table: TableDef, partition: str | None, aborted_txns: int) -> str | None:
        """The type Hive's initiator would choose for one directory now (None: leave it)."""
        fs, location = filesystem_for(table.location)
        listing = list_acid_dir(fs, _join(location, partition))
        snapshot = self.store.snapshot([(table.db, table.name)])
        write_ids = snapshot.write_ids(table.db, table.name).for_compactor()
        state = get_acid_state(listing, write_ids, nested_files=table.is_insert_only, txns=snapshot.txns)
        sizes = _dir_sizes(listing)
        return determine_compaction_type(
            state, sizes, aborted_txns, table.params, self.conf, insert_only=table.is_insert_only
        )


def _delete_dirs(fs: pafs.FileSystem, root: str, names: list[str]) -> None:
    for name in names:
        with contextlib.suppress(FileNotFoundError, OSError):
            fs.delete_dir(f"{root.rstrip('/')}/{name}")


def _obsolete(
    listing: TableListing, view: ValidWriteIdList, txns: ValidTxnList, *, insert_only: bool = False
) -> tuple[str, ...]:
    try:
        if not view.exceptions:
            return obsolete_after(listing, view.high_watermark, insert_only=insert_only, txns=txns)
        return get_acid_state(listing, view, nested_files=insert_only, txns=txns).obsolete
    except NotEnoughHistoryError:
        return ()  # a later major compaction's base already covers this one: its own cleaning removes the rest


def _dir_sizes(listing: TableListing) -> dict[str, int]:
    sizes = {d.name: sum(f.size for f in d.all_files()) for d in listing.dirs}
    sizes.update({f.path: f.size for f in listing.files})
    return sizes
