"""``hiveacid-sql upgrade-store URL``: move a store of hiveacid-sql's old layout onto Hive 3.1's metastore tables."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str]) -> int:
    """Upgrade the store and print what moved; one line on stderr and status 1 if it cannot."""
    parser = argparse.ArgumentParser(
        prog="hiveacid-sql upgrade-store",
        description="Upgrade a transaction store of hiveacid-sql schema version 1 or 2 to Hive 3.1's metastore "
        "schema, keeping its databases, tables, partitions, transactions, write ids and history.",
    )
    parser.add_argument("url", help="SQLAlchemy URL of the store (sqlite:///..., postgresql+psycopg://..., ...)")
    args = parser.parse_args(argv)
    from hiveacid_sql.errors import HiveAcidError
    from hiveacid_sql.txn.upgrade import upgrade_store

    try:
        print(upgrade_store(args.url))
    except HiveAcidError as exc:
        print(f"hiveacid-sql: {exc}", file=sys.stderr)
        return 1
    return 0
