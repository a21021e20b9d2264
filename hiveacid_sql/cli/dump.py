"""``hiveacid-sql dump PATH``: the events of an ACID ORC file, or of every file under a directory."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str]) -> int:
    """Print each event as one JSON line (the layout of ``orc-tools data``), each file's metadata first."""
    parser = argparse.ArgumentParser(prog="hiveacid-sql dump", description="Print ACID ORC events as JSON lines.")
    parser.add_argument("path", help="an ORC file or a table/partition directory")
    args = parser.parse_args(argv)
    from hiveacid_sql.acid.orc_dump import dump_path
    from hiveacid_sql.errors import HiveAcidError

    try:
        for line in dump_path(args.path):
            print(line)
    except (HiveAcidError, OSError) as exc:
        print(f"hiveacid-sql: {exc}", file=sys.stderr)
        return 1
    return 0
