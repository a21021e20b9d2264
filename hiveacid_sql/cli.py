"""``hiveacid-sql``: run SQL from the shell, or look inside ACID files.

    hiveacid-sql dump PATH            events of an ORC file (or every file under a table directory) as JSON lines
    hiveacid-sql -e "SQL" [-f FILE]   run statements against the embedded default (./warehouse, SQLite store)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _dump(argv: Sequence[str]) -> int:
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


def _run(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="hiveacid-sql", description="Run Hive SQL on Hive ACID tables with Spark.")
    parser.add_argument("-e", dest="execute", help="SQL statements to run")
    parser.add_argument("-f", dest="file", help="a .sql file to run")
    parser.add_argument("--warehouse", default=None, help="warehouse directory (default ./warehouse)")
    parser.add_argument("--store-url", default=None, help="SQLAlchemy URL of the transaction store")
    parser.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    args = parser.parse_args(argv)
    if not args.execute and not args.file:
        parser.print_help()
        return 2
    text = args.execute if args.execute else open(args.file, encoding="utf-8").read()  # noqa: SIM115

    import hiveacid_sql
    from hiveacid_sql.results import DmlResult
    from hiveacid_sql.sql.parse import parse

    with hiveacid_sql.connect(warehouse=args.warehouse, store_url=args.store_url, master=args.master) as acid:
        try:
            for statement in parse(text):
                result = acid.run_statement(statement)
                if isinstance(result, DmlResult):
                    print(result)
                elif result is not None and result.columns and result.columns != ["result"]:
                    result.show(n=1000, truncate=False)
        except hiveacid_sql.HiveAcidError as exc:
            print(f"Error: {exc}", file=sys.stderr)
            return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hiveacid-sql`` command."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "dump":
        return _dump(args[1:])
    if args and args[0] == "compactor":
        return __import__("hiveacid_sql.compactor.service", fromlist=["main"]).main(args[1:])
    return _run(args)


if __name__ == "__main__":
    raise SystemExit(main())
