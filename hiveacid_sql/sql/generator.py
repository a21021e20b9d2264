"""``HiveAcidGenerator``: renders our nodes back to Hive SQL so ``tree.sql(dialect="hiveacid")`` round-trips.

sqlglot only auto-discovers ``<key>_sql`` methods for its own node classes, so the classes in
``nodes.py`` are registered through ``TRANSFORMS``; ``show_sql`` and ``describe_sql`` override
methods of sqlglot nodes and are discovered by name as usual.
"""

from __future__ import annotations

from typing import ClassVar

from sqlglot import exp
from sqlglot.generators.hive import HiveGenerator

from hiveacid_sql.sql import nodes


def _compact_sql(self: HiveGenerator, expression: nodes.Compact) -> str:
    partition = self.sql(expression, "partition")
    partition = f" {partition}" if partition else ""
    kind = self.sql(exp.Literal.string(expression.args.get("kind") or ""))
    wait = " AND WAIT" if expression.args.get("wait") else ""
    props = expression.args.get("properties")
    props_sql = f" WITH OVERWRITE TBLPROPERTIES ({self.expressions(props, flat=True)})" if props else ""
    return f"ALTER TABLE {self.sql(expression, 'this')}{partition} COMPACT {kind}{wait}{props_sql}"


def _show_locks_sql(self: HiveGenerator, expression: nodes.ShowLocks) -> str:
    parts = ["SHOW LOCKS", self.sql(expression, "this"), self.sql(expression, "partition")]
    if expression.args.get("extended"):
        parts.append("EXTENDED")
    return " ".join(p for p in parts if p)


def _show_tblproperties_sql(self: HiveGenerator, expression: nodes.ShowTblProperties) -> str:
    key = self.sql(expression, "expression")
    key = f" ({key})" if key else ""
    return f"SHOW TBLPROPERTIES {self.sql(expression, 'this')}{key}"


def _abort_transactions_sql(self: HiveGenerator, expression: nodes.AbortTransactions) -> str:
    return f"ABORT TRANSACTIONS {self.expressions(expression, flat=True, sep=' ')}"


def _unset_properties_sql(self: HiveGenerator, expression: nodes.UnsetProperties) -> str:
    exists = " IF EXISTS" if expression.args.get("exists") else ""
    return f"UNSET TBLPROPERTIES{exists} ({self.expressions(expression, flat=True)})"


def _msck_sql(self: HiveGenerator, expression: nodes.Msck) -> str:
    repair = " REPAIR" if expression.args.get("repair") else ""
    mode = expression.args.get("mode") or "ADD"
    return f"MSCK{repair} TABLE {self.sql(expression, 'this')} {mode} PARTITIONS"


def _show_views_sql(self: HiveGenerator, expression: nodes.ShowViews) -> str:
    parts = ["SHOW VIEWS"]
    if expression.args.get("db") is not None:
        parts.append(f"IN {self.sql(expression, 'db')}")
    if expression.args.get("like") is not None:
        parts.append(f"LIKE {self.sql(expression, 'like')}")
    return " ".join(parts)


def _explain_sql(self: HiveGenerator, expression: nodes.Explain) -> str:
    kind = expression.args.get("kind")
    kind = f" {kind}" if kind else ""
    return f"EXPLAIN{kind} {self.sql(expression, 'this')}"


class HiveAcidGenerator(HiveGenerator):
    """Hive generator that also knows COMPACT, SHOW COMPACTIONS/TRANSACTIONS/LOCKS/READ LEASES, ABORT and EXPLAIN."""

    TRANSFORMS: ClassVar = {
        **HiveGenerator.TRANSFORMS,
        nodes.Compact: _compact_sql,
        nodes.ShowCompactions: lambda self, e: "SHOW COMPACTIONS",
        nodes.ShowTransactions: lambda self, e: "SHOW TRANSACTIONS",
        nodes.ShowLocks: _show_locks_sql,
        nodes.ShowReadLeases: lambda self, e: " ".join(p for p in ("SHOW READ LEASES", self.sql(e, "this")) if p),
        nodes.ShowTblProperties: _show_tblproperties_sql,
        nodes.AbortTransactions: _abort_transactions_sql,
        nodes.UnsetProperties: _unset_properties_sql,
        nodes.Explain: _explain_sql,
        nodes.Msck: _msck_sql,
        nodes.ShowViews: _show_views_sql,
        nodes.TransactionalProperty: lambda self, e: "TRANSACTIONAL",
    }

    PROPERTIES_LOCATION: ClassVar = {
        **HiveGenerator.PROPERTIES_LOCATION,
        nodes.TransactionalProperty: exp.Properties.Location.POST_CREATE,
    }

    def show_sql(self, expression: exp.Show) -> str:
        """``SHOW <what> [target] [IN db] [LIKE 'pattern']`` for the metadata SHOW forms."""
        what = expression.name
        parts = ["SHOW", what]
        target = self.sql(expression, "target")
        if target:
            parts += ["IN", target] if what == "COLUMNS" else [target]
        db = self.sql(expression, "db")
        if db:
            parts += ["IN", db]
        like = self.sql(expression, "like")
        if like:
            parts += ["LIKE", like]
        if what == "PARTITIONS" and expression.args.get("where") is not None:
            parts.append(self.sql(expression, "where"))  # the PARTITION (...) spec
        return " ".join(parts)

    def alter_sql(self, expression: exp.Alter) -> str:
        """Hive's ``ADD [IF NOT EXISTS] PARTITION (..) [LOCATION '..'] PARTITION (..)``: one ADD, no commas."""
        actions = expression.args.get("actions") or []
        if actions and all(isinstance(a, exp.AddPartition) for a in actions):
            exists = "IF NOT EXISTS " if actions[0].args.get("exists") else ""
            specs = []
            for action in actions:
                location = self.sql(action, "location")
                specs.append(self.sql(action.this) + (f" LOCATION {location}" if location else ""))
            return f"ALTER TABLE {self.sql(expression, 'this')} ADD {exists}{' '.join(specs)}"
        return super().alter_sql(expression)

    def describe_sql(self, expression: exp.Describe) -> str:
        """Keep ``DATABASE`` in ``DESCRIBE DATABASE d``, which sqlglot's generator drops."""
        sql = super().describe_sql(expression)
        kind = expression.args.get("kind")
        if kind:
            sql = sql.replace("DESCRIBE", f"DESCRIBE {kind.upper()}", 1)
        return sql
