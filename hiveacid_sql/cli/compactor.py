"""``hiveacid-sql compactor``: the compaction service as a command (initiator, worker and cleaner rounds over
every ACID table of a warehouse), on a connection of its own."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hiveacid_sql.compactor.service import run_round
from hiveacid_sql.compactor.worker import Compactor
from hiveacid_sql.engine.connect import connect
from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.settings import CHECK_INTERVAL, Settings, setting_value

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def main(argv: Sequence[str] | None = None, *, spark: SparkSession | None = None) -> int:
    """``hiveacid-sql compactor [--once] [--warehouse W] [--store-url U] [--master M] [--no-initiator]``.

    ``spark``: run on this SparkSession instead of starting one (embedding, tests).
    """
    parser = argparse.ArgumentParser(
        prog="hiveacid-sql compactor",
        description="Initiate, run and clean compactions for every ACID table of a warehouse.",
    )
    parser.add_argument("--once", action="store_true", help="run one round and exit")
    parser.add_argument("--warehouse", default=None, help="warehouse directory (default ./warehouse)")
    parser.add_argument("--store-url", default=None, help="SQLAlchemy URL of the transaction store")
    parser.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    parser.add_argument("--no-initiator", action="store_true", help="only work on queued requests and clean")
    parser.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="a hive.compactor.* setting (repeatable)"
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    conf: dict[str, str] = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep:
            print(f"hiveacid-sql compactor: --conf wants KEY=VALUE, got {item!r}", file=sys.stderr)
            return 2
        conf[key.strip()] = value.strip()
    try:
        Settings(conf)  # a bad value is refused before anything starts
        session = connect(
            spark=spark, warehouse=args.warehouse, store_url=args.store_url, **({} if spark else {"master": args.master})
        )
    except HiveAcidError as exc:
        print(f"hiveacid-sql compactor: {exc}", file=sys.stderr)
        return 1
    with session:
        compactor = Compactor(session.spark, session.store, conf)
        check = setting_value(conf, CHECK_INTERVAL)
        while True:
            done = run_round(compactor, initiator=not args.no_initiator, worker=True)
            print(
                "compactor: initiated {} worked {} cleaned {} purged {} aborted txn(s)".format(
                    done["initiated"] or "-", done["worked"] or "-", done["cleaned"] or "-", sum(done["purged"])
                ),
                flush=True,
            )
            if args.once:
                return 0
            try:
                time.sleep(check)
            except KeyboardInterrupt:
                return 0
