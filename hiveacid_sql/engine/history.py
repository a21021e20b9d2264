"""DESCRIBE HISTORY t: one row per committed write id of an ACID table, newest first (as Delta's).

The rows come from ``HIVEACID_WRITE_HISTORY``, written with each commit; aborted write ids are not
history (nothing of them is readable) and are not listed. Write ids adopted with data found on disk are
``ADOPTED`` rows without statement or counts. Any listed write id can be read back with
``SELECT ... FROM t VERSION AS OF <write_id>`` while its files are still there.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from hiveacid_sql.errors import PlanError
from hiveacid_sql.txn import TableDef

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from hiveacid_sql.engine.context import StatementContext

HISTORY_SCHEMA = (
    "write_id bigint, txn_id bigint, commit_time timestamp, user string, operation string, statement string, "
    "num_inserted_rows bigint, num_updated_rows bigint, num_deleted_rows bigint"
)


#: statement texts longer than this are shown shortened (the store keeps them, up to 16 000 characters)
SHOWN_STATEMENT_CHARS = 200


def shown_statement(text: str | None) -> str | None:
    """A statement as DESCRIBE HISTORY shows it: one 1,000-row INSERT VALUES is 16 000 characters, which
    printed as one row buries everything else; the start of it, and how long it is, says which statement
    it was (``acid.store.table_history(db, table)`` has the whole stored text)."""
    if text is None or len(text) <= SHOWN_STATEMENT_CHARS:
        return text
    return f"{text[:SHOWN_STATEMENT_CHARS].rstrip()} ... ({len(text)} characters)"


def describe_history(ctx: StatementContext, table: TableDef) -> DataFrame:
    """The history of ``table`` as a DataFrame (:data:`HISTORY_SCHEMA`)."""
    if not table.is_transactional:
        raise PlanError(f"DESCRIBE HISTORY needs a transactional table; {table.qualified_name} is not one")
    rows = [
        (
            e.write_id,
            e.txn_id,
            dt.datetime.fromtimestamp(e.commit_time_ms / 1000, tz=dt.timezone.utc),
            e.user,
            e.operation,
            shown_statement(e.statement),
            e.rows_inserted,
            e.rows_updated,
            e.rows_deleted,
        )
        for e in ctx.store.table_history(table.db, table.name)
    ]
    return ctx.spark.createDataFrame(rows, HISTORY_SCHEMA)
