"""The transaction of ``df.write.format("hiveacid").save("db.t")``: opened when Spark asks for the writer,
files written by the tasks, committed (or aborted) when they are done.

Spark calls the Python data source's ``writer()``, the tasks' ``write()`` and ``commit()`` / ``abort()`` in
three different Python processes, none with a SparkSession: so the transaction is the store's (its id, the
write id and the ValidTxnList travel in the pickled :class:`WriteJob`), not an engine ``Transaction``, and
the tasks write with the engine's own task writer (:func:`hiveacid_sql.exec.tasks.write_events_task`), so the
files are those of an ``INSERT INTO .. SELECT`` through tasks: ``delta_W_W_0000/bucket_<task>`` (``base_W``
with overwrite), one file per task and partition, Hive's partition directory names, the table's
``orc.compress``. The commit records the partitions written (new ones are added to the catalog), the
write history and the components, as an INSERT's commit does.

Refused in one line, before anything is written: tables that are not full-ACID, bucketed tables (Hive wants
one ``bucket_N`` file per bucket and delta, which independent tasks cannot share: use ``acid.write``), and a
DataFrame whose column names are not the table's.
"""

from __future__ import annotations

import contextlib
import getpass
import socket
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.listing import filesystem_for, find_directories
from hiveacid_sql.acid.names import base_dir_name, delta_dir_name
from hiveacid_sql.acid.partitions import make_partition_name, partition_value_string
from hiveacid_sql.errors import CommitOutcomeUnknownError, HiveAcidError, PlanError
from hiveacid_sql.exec.tasks import UNASSIGNED_BUCKET, TableSink, write_events_task
from hiveacid_sql.exec.write import write_version_file
from hiveacid_sql.plan.columns import BUCKET_ID, OP, PART_DIR, STMT
from hiveacid_sql.txn.locks import EXCLUSIVE, SHARED_READ, LockComponent

AGENT = "hiveacid-sql data source"
_STMT = 0  # the write's only statement


@dataclass(frozen=True)
class WriteJob:
    """One ``save()``: the open transaction and where its files go (picklable; see the module docstring)."""

    store_url: str
    db: str
    table: str
    txn_id: int
    write_id: int
    seen: Any  # the ValidTxnList the commit checks against
    sink: TableSink
    partition_columns: tuple[tuple[str, str], ...]
    arrow_schema: (
        pa.Schema
    )  # the table's data and partition columns as the tasks must give them to the writer
    overwrite: bool
    user: str

    @property
    def qualified_name(self) -> str:
        return f"{self.db}.{self.table}"

    # -- tasks -----------------------------------------------------------------------------------------
    def write_task(self, batches: Iterator[pa.RecordBatch]) -> list[dict]:
        """Write one task's rows (an Arrow event frame sorted by partition, for the engine's writer loop); the
        statistics row of each file written."""
        pieces = list(batches)
        if not pieces or sum(b.num_rows for b in pieces) == 0:
            return []
        rows = pa.Table.from_batches(pieces)
        table = self._as_table_types(rows)
        part_dirs = self._part_dirs(table)
        n = table.num_rows
        data = table.select([name for name, _ in self.sink.columns])
        frame = data.append_column(OP, pa.array([0] * n, pa.int32()))
        frame = frame.append_column(STMT, pa.array([_STMT] * n, pa.int32()))
        frame = frame.append_column(PART_DIR, pa.array(part_dirs, pa.string()))
        frame = frame.append_column(BUCKET_ID, pa.array([UNASSIGNED_BUCKET] * n, pa.int32()))
        frame = frame.sort_by([(PART_DIR, "ascending")])  # the writer loop takes each group as one run
        out = write_events_task(self.sink)(iter(frame.combine_chunks().to_batches()))
        return [r for batch in out for r in batch.to_pylist()]

    def _as_table_types(self, rows: pa.Table) -> pa.Table:
        """The DataFrame's columns by name, cast to the table's types (a value that does not fit fails)."""
        by_name = {n.lower(): n for n in rows.schema.names}
        arrays = []
        for field in self.arrow_schema:
            column = rows.column(by_name[field.name.lower()])
            try:
                arrays.append(column.cast(field.type, safe=True))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                raise PlanError(
                    f"column {field.name} of {self.qualified_name}: cannot write {column.type} values as {field.type}"
                    f" ({str(exc).splitlines()[0]}); cast the DataFrame's column first"
                ) from exc
        return pa.Table.from_arrays(arrays, schema=self.arrow_schema)

    def _part_dirs(self, table: pa.Table) -> list[str]:
        if not self.partition_columns:
            return [""] * table.num_rows
        keys = [name for name, _ in self.partition_columns]
        types = [parse_hive_type(t) for _, t in self.partition_columns]
        columns = [table.column(name).to_pylist() for name in keys]
        names: dict[tuple, str] = {}
        out = []
        for values in zip(*columns, strict=True):
            name = names.get(values)
            if name is None:
                texts = [partition_value_string(v, t) for v, t in zip(values, types, strict=True)]
                name = names[values] = make_partition_name(keys, texts)
            out.append(name)
        return out

    # -- driver: commit / abort ---------------------------------------------------------------------------
    def commit(self, files: Sequence[dict]) -> None:
        """Mark the directories written, then record the partitions, history and components and commit."""
        from hiveacid_sql.txn import TableCommit, TxnStore
        from hiveacid_sql.txn.history import WriteRecord

        fs, _ = filesystem_for(self.sink.fs_uri)
        directories = sorted({f["directory"] for f in files})
        partitions = sorted({f["partition"] for f in files})
        if (
            self.overwrite and not self.partition_columns and not files
        ):  # an empty DataFrame empties the table
            directories, partitions = [base_dir_name(self.write_id)], [""]
        for rel in directories:
            write_version_file(fs, f"{self.sink.location.rstrip('/')}/{rel}")
        rows = sum(int(f["rows"]) for f in files)
        mode = "overwrite" if self.overwrite else "append"
        text = f'df.write.format("hiveacid").mode("{mode}").save("{self.qualified_name}")'
        operation = "INSERT OVERWRITE" if self.overwrite else "INSERT"
        store = TxnStore(self.store_url)
        try:
            commit = TableCommit(
                self.db,
                self.table,
                self.write_id,
                {p or None: "i" for p in partitions},
                partitions if self.partition_columns else (),
            )
            history = WriteRecord(self.db, self.table, self.write_id, operation, text, self.user, rows, 0, 0)
            try:
                store.commit_txn(self.txn_id, self.seen, [history], [commit])
            except CommitOutcomeUnknownError:
                raise  # it may have committed: its files stay (read exactly if it did)
            except HiveAcidError:
                self._remove(files)
                raise
        finally:
            store.close()

    def abort(self, files: Sequence[dict]) -> None:
        """Abort the transaction; then remove what its tasks wrote (their files are never read either way)."""
        from hiveacid_sql.txn import TxnStore

        store = TxnStore(self.store_url)
        try:
            store.abort_txn(self.txn_id)
        except HiveAcidError:
            pass  # aborted already (timed out): the files can go
        finally:
            store.close()
        self._remove(files)

    def _remove(self, files: Sequence[dict]) -> None:
        fs, root = filesystem_for(self.sink.fs_uri)
        w = self.write_id
        names = {base_dir_name(w) if self.overwrite else delta_dir_name(w, w, _STMT)}
        found = {f["directory"] for f in files} | set(
            find_directories(fs, root, len(self.partition_columns), names)
        )
        for rel in found:
            with contextlib.suppress(OSError):
                fs.delete_dir(f"{root.rstrip('/')}/{rel}")


def open_write(store_url: str, name: str, columns: Sequence[str], *, overwrite: bool) -> WriteJob:
    """Check the table and the DataFrame's column names, open the transaction, lock the table (Hive's locks
    for INSERT / INSERT OVERWRITE) and allocate its write id."""
    from pyspark.sql.pandas.types import to_arrow_schema

    from hiveacid_sql.exec.dml import table_sink
    from hiveacid_sql.exec.spark_types import spark_schema
    from hiveacid_sql.settings import LOCK_RETRIES, LOCK_SLEEP, Settings
    from hiveacid_sql.txn import TxnStore

    db, _, tname = name.rpartition(".")
    db, tname = (db or "default").strip().lower(), tname.strip().lower()
    store = TxnStore(store_url)
    try:
        tdef = store.catalog.get_table(db, tname)
        what = f'df.write.format("hiveacid") into {tdef.qualified_name}'
        if not tdef.is_transactional or tdef.is_insert_only:
            raise PlanError(
                f"{what}: writes full-ACID tables only (use acid.write(df, ...) for other tables)"
            )
        if tdef.is_bucketed:
            raise PlanError(
                f"{what}: bucketed tables are written by acid.write(df, ...) (one file per bucket)"
            )
        wanted = [c.name for c in tdef.columns] + [c.name for c in tdef.partition_keys]
        given = [c.lower() for c in columns]
        missing = [c for c in wanted if c.lower() not in given]
        extra = [c for c in columns if c.lower() not in {w.lower() for w in wanted}]
        if missing or extra or len(set(given)) != len(given):
            detail = (
                f"missing {', '.join(missing)}"
                if missing
                else f"no column {', '.join(extra) or 'twice'} in the table"
            )
            raise PlanError(
                f"{what}: the DataFrame's columns must be the table's ({', '.join(wanted)}): {detail}"
            )
        hive_columns = [(c.name, parse_hive_type(c.type)) for c in (*tdef.columns, *tdef.partition_keys)]
        arrow_schema = to_arrow_schema(spark_schema(hive_columns))
        user, host = getpass.getuser(), socket.gethostname()
        txn_id = store.open_txn(user, host, AGENT)
        try:
            settings = Settings()
            store.locks.acquire(
                txn_id,
                [LockComponent(db, tname, None, EXCLUSIVE if overwrite else SHARED_READ)],
                user,
                host,
                retries=int(settings.value(LOCK_RETRIES)),
                sleep_s=float(settings.value(LOCK_SLEEP)),
                agent_info=AGENT,
            )
            seen = store.snapshot([(db, tname)], txn_id).txns
            write_id = store.allocate_write_id(txn_id, db, tname)
            if overwrite:
                store.refuse_overwrite_below_open(txn_id, db, tname, write_id, "INSERT OVERWRITE")
        except BaseException:
            with contextlib.suppress(Exception):
                store.abort_txn(txn_id)
            raise
        return WriteJob(
            store_url=store_url,
            db=db,
            table=tname,
            txn_id=txn_id,
            write_id=write_id,
            seen=seen,
            sink=table_sink(tdef, write_id, overwrite=overwrite),
            partition_columns=tuple((c.name, c.type) for c in tdef.partition_keys),
            arrow_schema=arrow_schema,
            overwrite=overwrite,
            user=user,
        )
    finally:
        store.close()
