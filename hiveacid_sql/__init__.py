"""hiveacid-sql: Hive 3 ACID transactional tables, run by Spark, from Python.

>>> import hiveacid_sql
>>> acid = hiveacid_sql.connect()                      # local Spark, ./warehouse, SQLite store
>>> acid.sql("CREATE TABLE employee (id int, name string, salary int) "
...          "STORED AS ORC TBLPROPERTIES ('transactional'='true')")
>>> acid.sql("INSERT INTO employee VALUES (1, 'Jerry', 5000)")
>>> acid.sql("UPDATE employee SET salary = 7000 WHERE id = 1")

The engine (and so PySpark) is imported on first use of ``connect``/``Session``, so the format layer
(``hiveacid_sql.acid``), the store (``hiveacid_sql.txn``) and ``read_table`` (a snapshot as a
``pyarrow.Table``, no JVM) stay usable without Spark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hiveacid_sql import errors
from hiveacid_sql.errors import HiveAcidError, PlanError, SqlError, UnsupportedStatementError

if TYPE_CHECKING:
    from hiveacid_sql.engine.connect import connect
    from hiveacid_sql.engine.session import Session
    from hiveacid_sql.reader import read_table
    from hiveacid_sql.results import DmlResult

__version__ = "0.1.0"

__all__ = [
    "DmlResult",
    "HiveAcidError",
    "PlanError",
    "Session",
    "SqlError",
    "UnsupportedStatementError",
    "__version__",
    "connect",
    "errors",
    "read_table",
]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext hiveacid_sql``: the ``%acid`` / ``%%acid`` magics (see :mod:`hiveacid_sql.jupyter`)."""
    from hiveacid_sql.jupyter import load_ipython_extension as load

    load(ipython)


def __getattr__(name: str) -> Any:
    if name == "connect":
        from hiveacid_sql.engine.connect import connect

        return connect
    if name == "Session":
        from hiveacid_sql.engine.session import Session

        return Session
    if name == "read_table":  # pyarrow only: no PySpark, no JVM
        from hiveacid_sql.reader import read_table

        return read_table
    if name == "DmlResult":
        from hiveacid_sql.results import DmlResult

        return DmlResult
    raise AttributeError(f"module 'hiveacid_sql' has no attribute {name!r}")
