"""``python -m benchmarks run [--scenario NAME ...] [--rows N ...] [--repeat K] [--json]``."""

from __future__ import annotations

import argparse
import sys

from benchmarks.harness import DEFAULT_DATA_DIR, DEFAULT_ROWS, run_main, worker_main


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--repeat", type=int, default=3, help="timed runs per contender (default 3)")
        p.add_argument("--warmup", type=int, default=1, help="untimed runs per contender first (default 1)")
        p.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR), help="generated data, kept between runs")
        p.add_argument("--profile", metavar="DIR", help="also profile one run of ours into DIR")
        p.add_argument("--no-tracemalloc", action="store_true", help="skip the untimed tracemalloc run of ours")
        p.add_argument(
            "--java-options", metavar="OPTS",
            help="the driver JVM's spark.driver.extraJavaOptions (replaces hiveacid-sql's JIT/GC default; "
            "'' for the JVM's own defaults)",
        )

    run = sub.add_parser("run", help="run scenarios and print medians and ratios")
    run.add_argument("--scenario", action="append", help="a scenario name (repeatable; default all)")
    run.add_argument("--rows", type=int, nargs="+", default=[DEFAULT_ROWS], help="table size(s) (default 10M)")
    run.add_argument("--json", action="store_true", help="print the results as JSON")
    common(run)

    worker = sub.add_parser("worker", help=argparse.SUPPRESS)  # one scenario, in its own process
    worker.add_argument("--scenario", required=True)
    worker.add_argument("--rows", type=int, required=True)
    worker.add_argument("--out", required=True)
    worker.add_argument("--setup-only", action="store_true")
    common(worker)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "worker":
        return worker_main(args)
    return run_main(args)


if __name__ == "__main__":
    sys.exit(main())
