"""What a DML statement reports: the whole story, not one number.

Hive tools print a row count; Delta returns counts only. A :class:`DmlResult` also says which
transaction and write id did the work and which directories it wrote, so a user can look at the files.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

RESULT_COLUMNS = (
    "statement",
    "table",
    "num_affected_rows",
    "num_inserted_rows",
    "num_updated_rows",
    "num_deleted_rows",
    "num_files_written",
    "txn_id",
    "write_id",
    "directories",
    "execution_time_ms",
    "num_source_rows",
    "num_target_rows_matched",
    "clauses",
)


@dataclass(frozen=True)
class ClauseResult:
    """What one WHEN clause of a MERGE did: rows inserted (INSERT), updated (UPDATE) or deleted (DELETE)."""

    clause: int  # 1-based position in the statement
    match: str  # MATCHED | NOT MATCHED | NOT MATCHED BY SOURCE
    action: str  # UPDATE | DELETE | INSERT
    statement_id: int
    num_rows: int


@dataclass(frozen=True)
class DmlResult:
    """One row describing a finished INSERT / UPDATE / DELETE / MERGE / TRUNCATE.

    MERGE also reports ``num_source_rows``, ``num_target_rows_matched`` and per-clause ``clauses``.
    """

    statement: str
    table: str
    num_affected_rows: int
    num_inserted_rows: int = 0
    num_updated_rows: int = 0
    num_deleted_rows: int = 0
    num_files_written: int = 0
    txn_id: int | None = None
    write_id: int | None = None
    directories: tuple[str, ...] = ()
    execution_time_ms: int = 0
    num_source_rows: int | None = None
    num_target_rows_matched: int | None = None
    clauses: tuple[ClauseResult, ...] = ()
    _spark: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict with stable snake_case keys (``directories`` and ``clauses`` as lists)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "_spark"}
        data["directories"] = list(self.directories)
        data["clauses"] = [asdict(c) for c in self.clauses]
        return data

    def to_spark(self, spark: Any = None):  # -> pyspark.sql.DataFrame
        """The report as a one-row Spark DataFrame."""
        session = spark or (self._spark() if callable(self._spark) else self._spark)
        if session is None:
            raise ValueError("no SparkSession to build the DataFrame with")
        schema = (
            "statement string, table string, num_affected_rows long, num_inserted_rows long, "
            "num_updated_rows long, num_deleted_rows long, num_files_written long, txn_id long, "
            "write_id long, directories array<string>, execution_time_ms long, num_source_rows long, "
            "num_target_rows_matched long, clauses array<struct<clause:int, match:string, action:string, "
            "statement_id:int, num_rows:long>>"
        )
        row = self.to_dict()
        return session.createDataFrame([tuple(row[c] for c in RESULT_COLUMNS)], schema)

    toDF = to_spark  # noqa: N815 - Spark-style alias users reach for

    def __str__(self) -> str:
        ids = f" txn {self.txn_id}, write id {self.write_id}," if self.txn_id is not None else ""
        detail = ""
        if self.clauses:
            detail = (
                f" ({self.num_inserted_rows} inserted, {self.num_updated_rows} updated, "
                f"{self.num_deleted_rows} deleted)"
            )
        return (
            f"{self.statement} {self.table}: {self.num_affected_rows} row(s) affected{detail},{ids} "
            f"{self.execution_time_ms} ms"
        )


@dataclass(frozen=True)
class StatementResult:
    """What a statement without rows reports (CREATE / DROP / ALTER, SET x=y, USE, BEGIN / COMMIT / ROLLBACK):
    its kind, the object it named, ``OK`` and its time, as Hive's CLI prints ``OK`` / ``Time taken`` and
    beeline ``No rows affected``. An empty ``DataFrame[result: string]`` said nothing (issue 18).

    ``repr`` is the one line (a notebook shows it as a cell's value); ``to_spark()`` a one-row DataFrame.
    """

    statement: str  # "CREATE TABLE", "DROP TABLE", "SET", "BEGIN" ...
    target: str | None = None  # the object named (as written), if any
    execution_time_ms: int = 0
    message: str = "OK"
    _spark: Any = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        named = f" {self.target}" if self.target else ""
        return f"{self.statement}{named}: {self.message}, {self.execution_time_ms} ms"

    __repr__ = __str__

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the report (``statement``, ``target``, ``message``, ``execution_time_ms``)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "_spark"}

    def to_spark(self, spark: Any = None):  # -> pyspark.sql.DataFrame
        """The report as a one-row Spark DataFrame."""
        session = spark or (self._spark() if callable(self._spark) else self._spark)
        if session is None:
            raise ValueError("no SparkSession to build the DataFrame with")
        row = self.to_dict()
        return session.createDataFrame(
            [(row["statement"], row["target"], row["message"], row["execution_time_ms"])],
            "statement string, target string, message string, execution_time_ms long",
        )

    toDF = to_spark  # noqa: N815 - Spark-style alias users reach for
