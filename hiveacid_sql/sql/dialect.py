"""``HiveAcid``: the sqlglot dialect for hiveacid-sql, registered under the name ``"hiveacid"``.

sqlglot's dialect metaclass registers every ``Dialect`` subclass by its lower-cased class name, so
importing this module is enough for ``sqlglot.parse_one(sql, read="hiveacid")`` and
``tree.sql(dialect="hiveacid")`` to work.
"""

from __future__ import annotations

from typing import ClassVar

from sqlglot.dialects.hive import Hive
from sqlglot.tokens import TokenType

from hiveacid_sql.sql.generator import HiveAcidGenerator
from hiveacid_sql.sql.parser import HiveAcidParser


class HiveAcid(Hive):
    """Hive plus the ACID statements (COMPACT, SHOW COMPACTIONS/TRANSACTIONS/LOCKS, ABORT, EXPLAIN)."""

    class Tokenizer(Hive.Tokenizer):
        # Stock sqlglot tokenizes the rest of a SHOW or EXPLAIN statement as one opaque string
        # (a "command"); we want real tokens so the parser can build real nodes.
        # MSCK is parsed by us (``MSCK [REPAIR] TABLE t [ADD|DROP|SYNC PARTITIONS]``), not kept as a command.
        KEYWORDS: ClassVar = {k: v for k, v in Hive.Tokenizer.KEYWORDS.items() if k not in ("EXPLAIN", "MSCK REPAIR")}
        COMMANDS: ClassVar = Hive.Tokenizer.COMMANDS - {TokenType.SHOW}

    Parser = HiveAcidParser
    Generator = HiveAcidGenerator


DIALECT = HiveAcid()
"""A shared instance: dialects are stateless, and building one per statement is wasted work."""
