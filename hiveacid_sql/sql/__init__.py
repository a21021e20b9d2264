"""The SQL front end: Hive 3 ACID statements parsed into sqlglot trees.

Importing this package registers the ``"hiveacid"`` sqlglot dialect, so ``tree.sql(dialect="hiveacid")``
renders any parsed tree back to Hive SQL.
"""

from hiveacid_sql.sql.dialect import HiveAcid
from hiveacid_sql.sql.nodes import (
    AbortTransactions,
    Compact,
    Explain,
    ShowCompactions,
    ShowLocks,
    ShowReadLeases,
    ShowTblProperties,
    ShowTransactions,
    UnsetProperties,
)
from hiveacid_sql.sql.parse import Statement, parse, parse_one
from hiveacid_sql.sql.tree import position

__all__ = [
    "AbortTransactions",
    "Compact",
    "Explain",
    "HiveAcid",
    "ShowCompactions",
    "ShowLocks",
    "ShowReadLeases",
    "ShowTblProperties",
    "ShowTransactions",
    "Statement",
    "UnsetProperties",
    "parse",
    "parse_one",
    "position",
]
