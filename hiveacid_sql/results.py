"""What a DML statement reports: the whole story, not one number.

Hive tools print a row count; Delta returns counts only. A :class:`DmlResult` also says which
transaction and write id did the work and which directories it wrote, so a user can look at the files.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
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
)


@dataclass(frozen=True)
class DmlResult:
    """One row describing a finished INSERT / UPDATE / DELETE / TRUNCATE."""

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
    _spark: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict with stable snake_case keys (``directories`` as a list)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "_spark"}
        data["directories"] = list(self.directories)
        return data

    def to_spark(self, spark: Any = None):  # -> pyspark.sql.DataFrame
        """The report as a one-row Spark DataFrame."""
        session = spark or self._spark
        if session is None:
            raise ValueError("no SparkSession to build the DataFrame with")
        schema = (
            "statement string, table string, num_affected_rows long, num_inserted_rows long, "
            "num_updated_rows long, num_deleted_rows long, num_files_written long, txn_id long, "
            "write_id long, directories array<string>, execution_time_ms long"
        )
        row = self.to_dict()
        return session.createDataFrame([tuple(row[c] for c in RESULT_COLUMNS)], schema)

    toDF = to_spark  # noqa: N815 - Spark-style alias users reach for

    def __str__(self) -> str:
        ids = f" txn {self.txn_id}, write id {self.write_id}," if self.txn_id is not None else ""
        return (
            f"{self.statement} {self.table}: {self.num_affected_rows} row(s) affected,{ids} "
            f"{self.execution_time_ms} ms"
        )
