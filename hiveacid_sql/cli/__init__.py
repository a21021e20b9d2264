"""``hiveacid-sql``: run Hive SQL scripts on Hive ACID tables from the shell, like spark-sql and beeline.

    hiveacid-sql -e "SQL" | -f FILE [options]   run statements (stop at the first error unless --force)
    hiveacid-sql [options]                      interactive prompt (or a script on stdin)
    hiveacid-sql dump PATH                      events of an ACID ORC file or table directory as JSON lines
    hiveacid-sql compactor ...                  the compaction service
    hiveacid-sql upgrade-store URL              move a store of the old layout onto Hive 3.1's metastore tables

Exit status: 0 when every statement ran, 1 when one failed (with ``--force``: when any failed), 2 for
bad command-line input (unknown option, unreadable file, an option this build cannot honour).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from hiveacid_sql.cli.output import FORMATS

__all__ = ["build_parser", "main"]

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


def _flag(value: str) -> bool:
    """beeline's ``--opt=true|false`` (a bare ``--opt`` means true)."""
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {value!r}")


def build_parser() -> argparse.ArgumentParser:
    """The command-line options (spark-sql's and beeline's names where they have one)."""
    p = argparse.ArgumentParser(
        prog="hiveacid-sql",
        description="Run Hive SQL on Hive ACID tables with Spark. Without -e or -f: an interactive prompt.",
        epilog="Other commands: 'hiveacid-sql dump PATH', 'hiveacid-sql compactor ...', "
        "'hiveacid-sql upgrade-store URL'.",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("-e", dest="execute", metavar="SQL", help="SQL statements to run")
    src.add_argument("-f", dest="file", metavar="FILE", help="a .sql file to run")
    p.add_argument("-i", dest="init", metavar="FILE", action="append", default=[],
                   help="a .sql file to run first (repeatable)")
    p.add_argument("-d", "--define", "--hivevar", dest="hivevars", metavar="K=V", action="append", default=[],
                   help="a variable for ${K} / ${hivevar:K} (repeatable)")
    p.add_argument("--hiveconf", dest="hiveconf", metavar="K=V", action="append", default=[],
                   help="a session setting, as SET K=V (repeatable)")
    p.add_argument("--conf", dest="conf", metavar="K=V", action="append", default=[],
                   help="a Spark setting for the session started (repeatable)")
    p.add_argument("--master", default=None, help="Spark master (default local[*])")
    p.add_argument("--warehouse", default=None, help="warehouse directory (default ./warehouse)")
    p.add_argument("--store-url", default=None, help="SQLAlchemy URL of the transaction store")
    p.add_argument("--outputformat", default="table", choices=FORMATS, help="how rows are printed (default table)")
    p.add_argument("--showHeader", "--showheader", dest="header", type=_flag, nargs="?", const=True, default=True,
                   metavar="BOOL", help="print column names (default true)")
    p.add_argument("--nullemptystring", type=_flag, nargs="?", const=True, default=False, metavar="BOOL",
                   help="print NULL as an empty string (default false: NULL)")
    p.add_argument("--delimiterForDSV", dest="delimiter", default="|", metavar="C",
                   help="the delimiter of --outputformat dsv (default |)")
    p.add_argument("--silent", type=_flag, nargs="?", const=True, default=False, metavar="BOOL",
                   help="no informational messages (DML reports, timings), only rows and errors")
    p.add_argument("--verbose", type=_flag, nargs="?", const=True, default=False, metavar="BOOL",
                   help="echo each statement before it runs; full tracebacks on errors")
    p.add_argument("--force", type=_flag, nargs="?", const=True, default=False, metavar="BOOL",
                   help="go on after a failing statement (the exit status still says one failed)")
    p.add_argument("--atomic", action="store_true",
                   help="run the whole script as one transaction: all of it is committed, or none of it")
    p.add_argument("--dry-run", action="store_true",
                   help="show what each DML statement would change, commit nothing")
    p.add_argument("--report", metavar="FILE", help="write one JSON line per statement to FILE")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hiveacid-sql`` command."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "dump":
        from hiveacid_sql.cli import dump

        return dump.main(args[1:])
    if args and args[0] == "compactor":
        return _compactor(args[1:])
    if args and args[0] == "upgrade-store":
        from hiveacid_sql.cli import upgrade

        return upgrade.main(args[1:])
    from hiveacid_sql.cli.command import run

    return run(build_parser().parse_args(args))


def _compactor(argv: list[str]) -> int:
    """``hiveacid-sql compactor ...``: the compaction service's own command line."""
    from hiveacid_sql.cli.compactor import main as compactor_main

    return int(compactor_main(argv) or 0)
