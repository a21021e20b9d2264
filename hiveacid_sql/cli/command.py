"""The run command: check the options, open the connection, run init files, then -e, -f or the prompt.

Everything that can be refused without Spark (bad ``K=V``, unreadable files, ``--atomic`` without a
script or with ``--force``) is refused before the SparkSession starts, with exit status 2.
"""

from __future__ import annotations

import argparse
import re
import sys
from contextlib import ExitStack
from pathlib import Path

from hiveacid_sql.cli.runner import OutputSettings, Runner
from hiveacid_sql.cli.variables import parse_assignment
from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.exec.session import master_of


class UsageError(HiveAcidError):
    """Command-line input the command cannot honour (exit status 2)."""


def run(args: argparse.Namespace) -> int:
    """Run what the options ask for; the exit status (0 all ran, 1 a statement failed, 2 bad options)."""
    try:
        plan = _check(args)
    except HiveAcidError as exc:
        print(f"hiveacid-sql: {exc}", file=sys.stderr)
        return 2
    from hiveacid_sql.engine.connect import connect, quiet_pyspark_error_logs

    connect_kwargs: dict = {
        "warehouse": args.warehouse, "store_url": args.store_url, "spark_conf": plan["conf"], "verbose": args.verbose,
    }
    if args.master:
        connect_kwargs["master"] = args.master
    with ExitStack() as stack:
        try:
            report = stack.enter_context(open(args.report, "w", encoding="utf-8")) if args.report else None  # noqa: SIM115
            acid = stack.enter_context(connect(**connect_kwargs))
        except (HiveAcidError, OSError) as exc:
            print(f"hiveacid-sql: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
        quiet_pyspark_error_logs(verbose=args.verbose)
        if args.verbose:
            print(f"Connected: Spark {acid.spark.version}, master {master_of(acid.spark)}, "
                  f"warehouse {acid.warehouse}, store {_hide_password(acid.store.url)}", file=sys.stderr)
        for key, value in plan["hiveconf"].items():
            acid.settings.set(key, value)  # checked as SET checks it
            if key.startswith("spark."):
                acid.spark.conf.set(key, value)
        output = OutputSettings(
            format=args.outputformat, header=args.header, null="" if args.nullemptystring else "NULL",
            delimiter=args.delimiter, silent=args.silent, verbose=args.verbose,
            progress=sys.stderr.isatty() and not args.silent,
        )
        runner = Runner(acid, output, hivevars=plan["hivevars"], report=report, dry_run=args.dry_run)
        try:
            for name, text in plan["init"]:
                if not runner.run_script(name, text, force=args.force) and not args.force:
                    return 1
            if plan["main"] is None:
                return 0 if runner.interactive(sys.stdin, force=args.force) else 1
            if args.atomic:
                ok = runner.run_atomic(*plan["main"])
            else:
                ok = runner.run_script(*plan["main"], force=args.force)
        except KeyboardInterrupt:
            print("\nhiveacid-sql: interrupted", file=sys.stderr)
            return 130
        return 0 if ok and runner.failures == 0 else 1


def _check(args: argparse.Namespace) -> dict:
    """Validate the options and read the files; nothing starts before this passes."""
    plan: dict = {
        "hivevars": dict(parse_assignment(a, "--hivevar") for a in args.hivevars),
        "hiveconf": dict(parse_assignment(a, "--hiveconf") for a in args.hiveconf),
        "conf": dict(parse_assignment(a, "--conf") for a in args.conf),
        "init": [(name, _read(name)) for name in args.init],
    }
    if args.execute is not None:
        plan["main"] = ("<-e>", args.execute)
    elif args.file is not None:
        plan["main"] = (args.file, _read(args.file))
    else:
        plan["main"] = None
    if args.atomic and plan["main"] is None:
        raise UsageError("--atomic needs -e or -f")
    if args.atomic and args.force:
        raise UsageError("--atomic and --force cannot be combined (a failure rolls everything back)")
    return plan


def _hide_password(url: str) -> str:
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)


def _read(name: str) -> str:
    try:
        return Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {name}: {getattr(exc, 'strerror', None) or exc}") from exc
