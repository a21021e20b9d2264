"""``ALTER TABLE .. COMPACT`` and ``SHOW COMPACTIONS``: the statements in front of the compaction queue.

``ALTER TABLE t [PARTITION (..)] COMPACT 'minor'|'major'`` queues a request and returns its id (Hive's
``CompactionResponse``): one request per partition when a partitioned table is named without a partition
(Hive 4's behaviour; Hive 3 refuses). ``AND WAIT`` returns when the request has left 'initiated'/'working';
a session without a compactor thread of its own runs the request itself, and a request left 'working' by a
dead worker is taken back, so ``AND WAIT`` never hangs waiting for a worker that does not exist.
"""

from __future__ import annotations

import getpass
import time
from typing import TYPE_CHECKING

from sqlglot import exp

from hiveacid_sql.compactor import Compactor
from hiveacid_sql.errors import CompactionError
from hiveacid_sql.exec.pruning import prune_partitions
from hiveacid_sql.plan.partition_spec import spec_filter
from hiveacid_sql.sql import nodes
from hiveacid_sql.sql.tree import literal_text, where_is
from hiveacid_sql.txn.compactions import READY_FOR_CLEANING, TYPE_NAMES, WORKING, CompactionQueue

if TYPE_CHECKING:

    from hiveacid_sql.engine.context import StatementContext
    from hiveacid_sql.exec.frames import LocalFrame

#: Hive 3's SHOW COMPACTIONS columns (``DDLTask.showCompactions``), plus Hive 4's enqueue time and error message.
SHOW_COMPACTIONS_SCHEMA = (
    "compactionid bigint, dbname string, tabname string, partname string, type string, state string, "
    "workerid string, enqueuetime bigint, starttime bigint, duration bigint, hadoopjobid string, "
    "highestwriteid bigint, errormessage string"
)
_RESULT_SCHEMA = "compactionid bigint, dbname string, tabname string, partname string, type string, state string, message string"


def compact(ctx: StatementContext, tree: nodes.Compact) -> LocalFrame:
    """Queue the request(s); with AND WAIT, run or wait for them. One row per request."""
    table = ctx.planner.resolve(tree.this)
    if not table.is_transactional:
        raise CompactionError(f"{where_is(tree.this)}Compaction is not allowed on non-ACID table {table.qualified_name}")
    kind = str(tree.args["kind"]).lower()
    spec = tree.args.get("partition")
    partitions: list[str | None]
    if spec is not None:
        partitions = list(
            prune_partitions(
                ctx.spark, table, ctx.catalog.list_partitions(table.db, table.name), spec_filter(table, spec)
            )
        )
        if len(partitions) != 1:
            raise CompactionError(
                f"{where_is(spec)}Partition {spec.sql(dialect='hiveacid')} of {table.qualified_name} "
                + ("does not exist" if not partitions else "names several partitions")
            )
    elif table.is_partitioned:
        partitions = [p.name for p in ctx.catalog.list_partitions(table.db, table.name)]
    else:
        partitions = [None]
    props: dict[str, str] = {}
    properties = tree.args.get("properties")
    if properties is not None:
        for p in properties.expressions:
            if isinstance(p, exp.Property):
                props[(literal_text(p.this) or "").lower()] = literal_text(p.args.get("value")) or ""
    queue = CompactionQueue(ctx.store.engine)
    requests = []
    for part in partitions:
        cq_id, accepted = queue.enqueue(table.db, table.name, part, kind, properties=props, run_as=getpass.getuser())
        requests.append((cq_id, part, accepted))
    if tree.args.get("wait"):
        compactor = Compactor(ctx.spark, ctx.store, {**ctx.settings, **props})
        for cq_id, _part, _accepted in requests:
            wait_for(ctx, compactor, cq_id)
    rows = []
    for cq_id, part, accepted in requests:
        info = queue.get(cq_id)
        state = info.state_name if info is not None else "unknown"
        if info is not None and info.error:
            message = info.error
        elif accepted:
            message = "Compaction enqueued with id " + str(cq_id)
        else:
            message = f"Compaction already enqueued with id {cq_id}; State is {state}"
        rows.append((cq_id, table.db, table.name, part, TYPE_NAMES[info.type] if info else kind.upper(), state, message))
    return ctx.rows(rows, _RESULT_SCHEMA)


def wait_for(ctx: StatementContext, compactor: Compactor, cq_id: int, poll_seconds: float = 0.2) -> None:
    """Until the request is past 'working': run it here when no compactor thread of the session will.

    A request 'working' under a worker that died (its process on this host is gone, or it outlived
    ``hive.compactor.worker.timeout``) is taken back and run again, so a wait never hangs on a dead worker.
    """
    thread = ctx.compactor_thread
    runs_here = thread is None or not thread.alive or not thread.compactor.conf.get("hive.compactor.worker.threads")
    queue = compactor.queue
    while True:
        info = queue.get(cq_id)
        if info is None or info.state not in ("i", WORKING):
            return
        if info.state == WORKING and cq_id in compactor.revoke_lost():
            continue
        if info.state == "i" and runs_here:
            compactor.work_one(cq_id)
            continue
        time.sleep(poll_seconds)


def show_compactions(ctx: StatementContext) -> LocalFrame:
    """SHOW COMPACTIONS: queue and history, by id, with Hive 3's state words."""
    rows = []
    queue = CompactionQueue(ctx.store.engine)
    for c in queue.list():
        # Hive shows no reason for a request stuck in 'ready for cleaning'; we say what it waits for
        note = queue.cleaning_waits_for(c) if c.state == READY_FOR_CLEANING else None
        duration = c.end - c.start if c.end is not None and c.start is not None else None
        rows.append(
            (
                c.id,
                c.db,
                c.table,
                c.partition if c.partition is not None else "---",
                TYPE_NAMES.get(c.type, c.type),
                c.state_name,
                c.worker_id if c.worker_id else "---",
                c.meta.get("enqueue_time"),
                c.start,
                duration,
                "---",
                c.highest_write_id,
                c.error or note,
            )
        )
    return ctx.rows(rows, SHOW_COMPACTIONS_SCHEMA)
