"""Streaming ingest: Hive's Streaming API v2 (``HiveStreamingConnection``) from Python, and a Structured
Streaming sink on it.

Why: streaming ingest is what Hive added transactions for (many small, frequent appends that readers never
see half-done), and Hive offers it only in Java. ``acid.streaming_connection("db.t")`` follows Hive's model:
a *transaction batch* opens ``transaction_batch_size`` transactions and allocates their write ids (consecutive,
in one store call) up front; each ``begin_transaction`` / ``write`` / ``commit_transaction`` uses the next one;
all of them write into one ``delta_<first>_<last>`` directory per partition, one ``bucket_N`` file per bucket,
each row tagged with its own write id (:mod:`hiveacid_sql.acid.stream_delta`, which also says how committed
rows become readable while the batch is open: the file is replaced at each commit, before the store commits).
The rows are written on the driver with pyarrow (no Spark job per transaction).

A commit may carry a key/value (``commit_transaction(key=, value=)``) stored in the table's parameters in the
same database transaction as the commit (Hive 3's ``commitTransaction(partitions, key, value)``), so a source
keeps its offsets atomically with the data and reads them back on restart (:meth:`last_committed_value`).
The sink (:func:`stream_writer` through ``foreachBatch``) uses it: each micro-batch is one transaction whose
commit records ``(query id, batch id)``; a micro-batch replayed after a failure is found committed and skipped.

Locks: each transaction takes Hive's SHARED_READ lock on the table (as Hive's streaming does), so DROP TABLE,
TRUNCATE and INSERT OVERWRITE wait for it. Heartbeats: a daemon thread heartbeats the batch's open
transactions; a writer that dies leaves them to time out (``hive.txn.timeout``), and their rows are never read.
"""

from __future__ import annotations

import contextlib
import getpass
import socket
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from hiveacid_sql.acid.arrow_values import arrow_type
from hiveacid_sql.acid.bucketing import bucket_numbers
from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.partitions import make_partition_name, partition_value_string
from hiveacid_sql.acid.stream_delta import StreamDelta, records_table
from hiveacid_sql.errors import (
    AcidFormatError,
    CommitOutcomeUnknownError,
    HiveAcidError,
    PlanError,
    TxnError,
    TxnStateError,
)
from hiveacid_sql.exec.streaming import frame_arrow, streaming_query_id
from hiveacid_sql.settings import LOCK_RETRIES, LOCK_SLEEP
from hiveacid_sql.txn import TableCommit, TableDef, TxnKeyValue, TxnStore
from hiveacid_sql.txn.history import WriteRecord
from hiveacid_sql.txn.locks import SHARED_READ, LockComponent

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from hiveacid_sql.engine.context import StatementContext

#: The prefix of the key the sink commits with each micro-batch (Hive's keys must start with ``_meta``).
SINK_KEY_PREFIX = "_meta.hiveacid.stream."


class StreamingError(HiveAcidError):
    """A refused record or a call out of order on a streaming connection."""


class StreamingConnection:
    """One writer streaming into one table (and one static partition, or the partitions its records name).

    Not thread-safe: one writer thread per connection, as in Hive. Use as a context manager or call
    :meth:`close`, which aborts an open transaction and the batch's unused ones.
    """

    def __init__(
        self,
        store: TxnStore,
        table: TableDef,
        partition: Mapping[str, Any] | None = None,
        *,
        transaction_batch_size: int = 10,
        heartbeat_s: float = 150.0,
        lock_retries: int = 10,
        lock_sleep_s: float = 1.0,
        housekeeping: Callable[[], None] | None = None,
        agent: str = "hiveacid-sql streaming",
    ) -> None:
        if not table.is_full_acid or table.storage_format != "orc":
            raise StreamingError(
                f"Streaming ingest needs a full ACID ORC table; {table.qualified_name} is not one"
            )
        if transaction_batch_size < 1:
            raise StreamingError(f"transaction_batch_size must be at least 1, not {transaction_batch_size}")
        self.store, self.table = store, table
        self.transaction_batch_size = transaction_batch_size
        self.user, self.host, self.agent = getpass.getuser(), socket.gethostname(), agent
        self._lock_retries, self._lock_sleep = lock_retries, lock_sleep_s
        self._housekeeping = housekeeping
        self._data = [(c.name.lower(), parse_hive_type(c.type)) for c in table.columns]
        self._part_cols = [(c.name.lower(), parse_hive_type(c.type)) for c in table.partition_keys]
        self.static_partition = self._static_dir(partition)
        self._inputs = self._data + (self._part_cols if self.static_partition is None else [])
        self._remaining: list[tuple[int, int]] = []  # (txn id, write id) of the batch not begun yet
        self._batch: tuple[int, int] | None = None  # first and last write id of the current batch
        self._deltas: dict[str, StreamDelta] = {}  # partition dir -> the batch's delta there
        self.txn_id: int | None = None
        self.write_id: int | None = None
        self._txn_parts: dict[str, int] = {}  # partition dir -> rows written by the open transaction
        self._closed = False
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._beat = threading.Thread(
            target=self._heartbeats,
            args=(max(heartbeat_s, 0.01),),
            daemon=True,
            name=f"hiveacid-stream-heartbeat-{table.qualified_name}",
        )
        self._beat.start()

    # -- the transaction ------------------------------------------------------------------------------
    def begin_transaction(self) -> int:
        """Start the next transaction of the batch (opening a new batch when it is used up); its txn id."""
        self._check_open()
        if self.txn_id is not None:
            raise TxnStateError(f"Transaction txnid:{self.txn_id} is still open: commit or abort it first")
        if not self._remaining:
            self._new_batch()
        with self._guard:
            txn_id, write_id = self._remaining.pop(0)
        self.txn_id, self.write_id, self._txn_parts = txn_id, write_id, {}
        try:
            self.store.locks.acquire(
                txn_id,
                [LockComponent(self.table.db, self.table.name, None, SHARED_READ)],
                self.user,
                self.host,
                retries=self._lock_retries,
                sleep_s=self._lock_sleep,
                agent_info=self.agent,
            )
        except BaseException:
            self.abort_transaction()
            raise
        return txn_id

    def write(self, records: object) -> int:
        """Add rows to the open transaction: a record (``dict`` by column name or ``tuple`` in column order,
        partition columns last when partitions are dynamic), a ``list`` of them, a ``pyarrow.RecordBatch`` /
        ``Table`` or a ``pandas.DataFrame``. A record that does not fit (wrong number of values, a value
        its column cannot hold, no value for a dynamic partition column) refuses the whole call with one line
        naming it; nothing of the call is written and the transaction stays open and usable."""
        self._check_open()
        if self.txn_id is None or self.write_id is None:
            raise TxnStateError("No open transaction: call begin_transaction() first")
        required = [n for n, _ in self._part_cols] if self.static_partition is None else []
        try:
            table = records_table(records, self._inputs, required)
        except AcidFormatError as exc:
            raise StreamingError(f"{self.table.qualified_name}: {exc}") from None
        if table.num_rows == 0:
            return 0
        data = pa.StructArray.from_arrays(
            [table.column(n).combine_chunks() for n, _ in self._data],
            fields=[pa.field(n, arrow_type(t)) for n, t in self._data],
        )
        buckets = self._buckets(table)
        for part_dir, index in self._partition_rows(table):
            rows = data if index is None else data.take(index)
            chosen = buckets if index is None else buckets[index]
            self._delta(part_dir).add(self.write_id, chosen, rows)
            self._txn_parts[part_dir] = self._txn_parts.get(part_dir, 0) + len(rows)
        return table.num_rows

    def commit_transaction(self, key: str | None = None, value: str | None = None) -> None:
        """Commit the open transaction: its files are written, then its partitions (new ones registered),
        components and the optional ``key`` = ``value`` (a key starting with ``_meta``, stored in the table's
        parameters) land in one store transaction. If the store says the transaction was aborted meanwhile
        (timed out), :class:`TxnAbortedError`; its rows are never read."""
        self._check_open()
        if self.txn_id is None or self.write_id is None:
            raise TxnStateError("No open transaction to commit")
        if (key is None) != (value is None):
            raise StreamingError("commit_transaction takes both key and value, or neither")
        txn_id, write_id, parts = self.txn_id, self.write_id, dict(self._txn_parts)
        try:
            for part_dir in parts:
                self._deltas[part_dir].publish()
            rows = sum(parts.values())
            history = [
                WriteRecord(
                    self.table.db, self.table.name, write_id, "STREAMING INSERT", None, self.user, rows
                )
            ]
            names = {p or None: "i" for p in parts}
            commit = TableCommit(
                self.table.db,
                self.table.name,
                write_id,
                names,
                sorted(p for p in parts if p) if self.table.is_partitioned else (),
            )
            kv = (
                TxnKeyValue(self.table.db, self.table.name, key, value)
                if key is not None and value is not None
                else None
            )
            self.store.commit_txn(txn_id, None, history, [commit] if parts else [], kv)
        except CommitOutcomeUnknownError:
            # It may have committed: its rows stay in every later version of the batch's files (if it did not,
            # they carry a write id no reader counts), never dropped from a committed transaction.
            for part_dir in parts:
                self._deltas[part_dir].committed()
            self._txn_parts = {}
            self._abandon(txn_id)
            raise
        except BaseException:
            self._abandon(txn_id)
            raise
        for part_dir in parts:
            self._deltas[part_dir].committed()
        self.txn_id = self.write_id = None

    def abort_transaction(self) -> None:
        """Abort the open transaction: its rows are left out of the batch's files (and never read)."""
        if self.txn_id is None:
            raise TxnStateError("No open transaction to abort")
        self._abandon(self.txn_id)

    def last_committed_value(self, key: str) -> str | None:
        """The value last committed for ``key`` (with :meth:`commit_transaction`), for a restarting source."""
        return self.store.txn_key_value(self.table.db, self.table.name, key)

    @property
    def remaining_transactions(self) -> int:
        """Transactions of the current batch not begun yet."""
        return len(self._remaining)

    @property
    def batch_write_ids(self) -> tuple[int, int] | None:
        """First and last write id of the current transaction batch."""
        return self._batch

    def close(self) -> None:
        """Abort the open transaction and the batch's unused ones; stop heartbeating."""
        if self._closed:
            return
        try:
            if self.txn_id is not None:
                self._abandon(self.txn_id)
            self._abort_remaining()
        finally:
            self._closed = True
            self._stop.set()
            self._beat.join(timeout=5)

    def __enter__(self) -> StreamingConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------------------------
    def _new_batch(self) -> None:
        if self._housekeeping is not None:
            self._housekeeping()
        opened = self.store.open_txn_batch(
            self.transaction_batch_size, self.table.db, self.table.name, self.user, self.host, self.agent
        )
        with self._guard:
            self._remaining = opened
        self._batch = (opened[0][1], opened[-1][1])
        self._deltas = {}

    def _delta(self, part_dir: str) -> StreamDelta:
        delta = self._deltas.get(part_dir)
        if delta is None:
            assert self._batch is not None
            delta = self._deltas[part_dir] = StreamDelta(
                self.table.location,
                part_dir,
                self._data,
                *self._batch,
                compression=self.table.orc_compression,
            )
        return delta

    def _abandon(self, txn_id: int) -> None:
        """The open transaction ends without a commit: abort it in the store (if it is not already)."""
        self.txn_id = self.write_id = None
        for part_dir in self._txn_parts:
            self._deltas[part_dir].aborted()
        self._txn_parts = {}
        with contextlib.suppress(TxnError):  # aborted already (timed out), or ended: nothing more to do
            self.store.abort_txn(txn_id)

    def _abort_remaining(self) -> None:
        with self._guard:
            remaining, self._remaining = self._remaining, []
        for txn_id, _ in remaining:
            with contextlib.suppress(TxnError):
                self.store.abort_txn(txn_id)

    def _heartbeats(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            with self._guard:
                ids = [t for t, _ in self._remaining] + ([self.txn_id] if self.txn_id is not None else [])
            for txn_id in ids:
                with contextlib.suppress(Exception):  # aborted (the commit will say so) or a transient error
                    self.store.heartbeat(txn_id)

    def _static_dir(self, partition: Mapping[str, Any] | None) -> str | None:
        if partition is None:
            return None if self._part_cols else ""
        if not self._part_cols:
            raise StreamingError(
                f"Table {self.table.qualified_name} is not partitioned; no partition= for it"
            )
        given = {str(k).lower(): v for k, v in partition.items()}
        names = [n for n, _ in self._part_cols]
        if sorted(given) != sorted(names):
            raise StreamingError(
                f"Partition spec {dict(partition)} does not match the partition columns ({', '.join(names)}) "
                f"of {self.table.qualified_name}"
            )
        return make_partition_name(names, [_partition_string(given[n], t, n) for n, t in self._part_cols])

    def _partition_rows(self, table: pa.Table) -> list[tuple[str, np.ndarray | None]]:
        """The partition directories of the rows, with the rows' indices (None: every row)."""
        if self.static_partition is not None:
            return [(self.static_partition, None)]
        columns = [table.column(n).to_pylist() for n, _ in self._part_cols]
        names = [n for n, _ in self._part_cols]
        dirs = [
            make_partition_name(
                names,
                [partition_value_string(v, t) for v, (_, t) in zip(values, self._part_cols, strict=True)],
            )
            for values in zip(*columns, strict=True)
        ]
        if len(set(dirs)) == 1:
            return [(dirs[0], None)]
        order: dict[str, list[int]] = {}
        for i, d in enumerate(dirs):
            order.setdefault(d, []).append(i)
        return [(d, np.array(ix, dtype=np.int64)) for d, ix in order.items()]

    def _buckets(self, table: pa.Table) -> np.ndarray:
        if not self.table.is_bucketed:
            return np.zeros(table.num_rows, dtype=np.int32)
        types = dict(self._data)
        cols = [c.lower() for c in self.table.bucket_cols]
        return bucket_numbers(
            [table.column(c) for c in cols],
            [types[c] for c in cols],
            self.table.num_buckets,
            self.table.bucketing_version,
        )

    def _check_open(self) -> None:
        if self._closed:
            raise StreamingError("this streaming connection is closed")


def _partition_string(value: object, hive_type: HiveType, name: str) -> str | None:
    try:
        target = arrow_type(hive_type)
        given = pa.array([value], type=pa.string() if isinstance(value, str) else target)
        typed = given.cast(target).to_pylist()[0]  # Hive's API takes partition values as strings
        return partition_value_string(typed, hive_type)
    except (pa.ArrowException, TypeError, ValueError, AcidFormatError) as exc:
        raise StreamingError(
            f"partition value {value!r} does not fit column {name} ({hive_type.to_string()}): {exc}"
        ) from None


class StreamWriter:
    """The ``foreachBatch`` function of :meth:`StreamingApi.stream_writer`: each micro-batch in one
    transaction, committed with ``(query id, batch id)`` under the key ``_meta.hiveacid.stream.<query id>``;
    a batch id at or below the last committed one is a replay and is skipped (exactly once)."""

    def __init__(
        self, open_connection: Callable[[], StreamingConnection], query_id: str | None = None
    ) -> None:
        self._open = open_connection
        self.query_id = query_id
        self.skipped: list[int] = []  # replayed batch ids found committed (for tests and logs)

    def __call__(self, frame: DataFrame, batch_id: int) -> None:
        query_id = self.query_id or streaming_query_id(frame)
        if not query_id:
            raise StreamingError(
                "stream_writer runs inside foreachBatch of a streaming query (no query id here)"
            )
        key = SINK_KEY_PREFIX + query_id
        with self._open() as conn:
            last = conn.last_committed_value(key)
            if last is not None and int(last) >= batch_id:
                self.skipped.append(batch_id)
                return
            rows = frame_arrow(frame)
            conn.begin_transaction()
            conn.write(rows)
            conn.commit_transaction(key, str(batch_id))


class StreamingApi:
    """The streaming methods of a connection (the Session)."""

    ctx: StatementContext

    def streaming_connection(
        self,
        table: str,
        partition: Mapping[str, Any] | None = None,
        *,
        transaction_batch_size: int = 10,
        agent: str = "hiveacid-sql streaming",
    ) -> StreamingConnection:
        """A streaming connection to ``table`` (``"db.t"`` or ``"t"``); ``partition``: a static partition
        (every partition column), else rows go to the partitions their partition columns name."""
        ctx = self.ctx
        tdef = _resolve(ctx, table)
        timeout = ctx.txns.timeout_s
        return StreamingConnection(
            ctx.store,
            tdef,
            partition,
            transaction_batch_size=transaction_batch_size,
            heartbeat_s=timeout / 2,
            lock_retries=ctx.settings.value(LOCK_RETRIES),
            lock_sleep_s=ctx.settings.value(LOCK_SLEEP),
            housekeeping=ctx.txns.housekeeping,
            agent=agent,
        )

    def stream_writer(
        self, table: str, partition: Mapping[str, Any] | None = None, *, query_id: str | None = None
    ) -> StreamWriter:
        """A ``foreachBatch`` function writing each micro-batch into ``table`` exactly once:
        ``df.writeStream.foreachBatch(acid.stream_writer("db.t")).option("checkpointLocation", ..).start()``.
        ``query_id``: the key of the batch ids committed (default: the streaming query's id, which its
        checkpoint keeps across restarts)."""
        _resolve(self.ctx, table)
        return StreamWriter(
            lambda: self.streaming_connection(table, partition, transaction_batch_size=1), query_id
        )


def _resolve(ctx: StatementContext, name: str) -> TableDef:
    db, _, tname = name.rpartition(".")
    db = (db or ctx.current_db).strip("`").lower()
    tname = tname.strip("`").lower()
    if not tname:
        raise PlanError(f"no table name in {name!r}")
    return ctx.catalog.get_table(db, tname)
