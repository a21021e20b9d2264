"""AST nodes for the Hive statements that sqlglot's Hive dialect does not model.

Everything else (CREATE, DROP, ALTER, INSERT, UPDATE, DELETE, MERGE, SELECT, DESCRIBE, USE,
SET, TRUNCATE, BEGIN/COMMIT/ROLLBACK and the metadata ``SHOW`` forms) reuses sqlglot's own nodes,
so the planner sees one vocabulary.  The classes here only declare ``arg_types``: the parser
builds them and ``generator.py`` renders them, because sqlglot does not auto-discover ``*_sql``
methods for node classes defined outside its own package.
"""

from __future__ import annotations

from sqlglot import exp

COMPACTION_KINDS = ("minor", "major")
"""The compaction types Hive accepts in ``ALTER TABLE ... COMPACT '<kind>'`` (lower-cased)."""


class Compact(exp.Expression):
    """``ALTER TABLE t [PARTITION (...)] COMPACT 'minor'|'major' [AND WAIT] [WITH OVERWRITE TBLPROPERTIES (...)]``.

    ``this`` is the :class:`exp.Table` (without its partition), ``partition`` an optional
    :class:`exp.Partition`, ``kind`` the lower-cased string ``'minor'`` or ``'major'``, ``wait`` a bool
    and ``properties`` an optional :class:`exp.Properties` of ``'key'='value'`` pairs.
    """

    arg_types = {"this": True, "partition": False, "kind": True, "wait": False, "properties": False}


class ShowCompactions(exp.Expression):
    """``SHOW COMPACTIONS``: the compaction queue and its history."""

    arg_types = {}  # noqa: RUF012 - sqlglot's own class attribute


class ShowTransactions(exp.Expression):
    """``SHOW TRANSACTIONS``: open and aborted transactions."""

    arg_types = {}  # noqa: RUF012 - sqlglot's own class attribute


class ShowLocks(exp.Expression):
    """``SHOW LOCKS [table [PARTITION (...)]] [EXTENDED]``; ``this`` is an optional :class:`exp.Table`."""

    arg_types = {"this": False, "partition": False, "extended": False}


class ShowReadLeases(exp.Expression):
    """``SHOW READ LEASES [table]`` (ours; Hive has no read leases): the live read leases, which pin the files a
    snapshot reads and so hold back the cleaner; ``this`` is an optional :class:`exp.Table`."""

    arg_types = {"this": False}


class ShowTblProperties(exp.Expression):
    """``SHOW TBLPROPERTIES t [('key')]``; ``expression`` is the optional key as a string literal."""

    arg_types = {"this": True, "expression": False}


class AbortTransactions(exp.Expression):
    """``ABORT TRANSACTIONS 1 2 3``; ``expressions`` are the transaction ids as number literals."""

    arg_types = {"expressions": True}


class Msck(exp.Expression):
    """``MSCK [REPAIR] TABLE t [ADD|DROP|SYNC PARTITIONS]``; ``mode`` is ``'ADD'`` (the default), ``'DROP'`` or
    ``'SYNC'``; ``repair`` is False for a bare ``MSCK TABLE t`` (report only)."""

    arg_types = {"this": True, "mode": False, "repair": False}


class ShowViews(exp.Expression):
    """``SHOW VIEWS [IN|FROM db] [[LIKE] 'pattern']``."""

    arg_types = {"db": False, "like": False}


class UnsetProperties(exp.Expression):
    """The ``UNSET TBLPROPERTIES [IF EXISTS] ('k', ...)`` action of an :class:`exp.Alter`.

    ``expressions`` are the keys as string literals; ``exists`` is True for ``IF EXISTS``.
    """

    arg_types = {"expressions": True, "exists": False}


class Explain(exp.Expression):
    """``EXPLAIN [EXTENDED|FORMATTED|...] <statement>``; ``this`` is the explained statement's node."""

    arg_types = {"this": True, "kind": False}


EXPLAIN_KINDS = (
    "EXTENDED",
    "FORMATTED",
    "CODEGEN",
    "COST",
    "LOCKS",
    "ANALYZE",
    "VECTORIZATION",
    "AST",
    "CBO",
)
"""Modifiers accepted between ``EXPLAIN`` and the statement (Hive's and Spark's, upper-cased)."""

NODE_CLASSES: tuple[type[exp.Expr], ...] = (
    Compact,
    ShowCompactions,
    ShowTransactions,
    ShowLocks,
    ShowReadLeases,
    ShowTblProperties,
    AbortTransactions,
    UnsetProperties,
    Explain,
)
"""Every node defined here; the generator registers a renderer for each one."""


class TransactionalProperty(exp.Property):
    """Hive 4's ``CREATE TRANSACTIONAL TABLE``: a transactional table, full ACID when its format can be
    (ORC, not sorted), insert-only otherwise (``SemanticAnalyzer.addDefaultProperties``)."""

    arg_types = {}  # noqa: RUF012 - sqlglot's own class attribute
