"""``hiveacid_sql.connect(...)``: a Session on a SparkSession (started here, quiet and in UTC, unless given),
a warehouse directory and a transaction store (SQLite inside the warehouse unless a URL is given)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hiveacid_sql.acid.listing import filesystem_for, is_uri
from hiveacid_sql.engine.session import Session
from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.exec.datasource import register_data_source
from hiveacid_sql.exec.executors import check_executors
from hiveacid_sql.exec.session import SparkHandle, is_connect, local_session
from hiveacid_sql.exec.session import active_session as active_session
from hiveacid_sql.exec.session import quiet_pyspark_error_logs as quiet_pyspark_error_logs
from hiveacid_sql.txn import TxnStore

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def connect(
    spark: SparkSession | None = None,
    warehouse: str | os.PathLike[str] | None = None,
    store_url: str | None = None,
    **conf: Any,
) -> Session:
    """Open a hiveacid-sql connection.

    With no arguments: a local SparkSession (UTC, quiet), ``./warehouse`` as the warehouse and a SQLite
    store file ``<warehouse>/.hiveacid/txn.db`` inside it. Other keyword arguments are Spark settings
    for a session this call starts (``connect(**{"spark.sql.shuffle.partitions": "4"})``, or
    ``spark_conf={...}``); ``master`` picks the Spark master (default ``local[*]``); ``verbose=True`` keeps
    Spark's own logging and start-up messages.

    A local Spark this call would start starts at the first statement that needs it: ``SET``, ``USE``,
    ``SHOW TABLES`` / ``TRANSACTIONS`` / ``LOCKS`` / ``COMPACTIONS``, ``DESCRIBE``, ``BEGIN`` / ``COMMIT`` answer
    from the store without a JVM (their rows are :class:`~hiveacid_sql.exec.frames.LocalFrame` s).

    The executors' Python is asked once per Spark application whether it can run the writer tasks
    (:func:`~hiveacid_sql.exec.executors.check_executors`); when it cannot, this raises one line saying how to
    ship the environment, and nothing is created (a given session or a cluster master: here, in ``connect``).
    """
    if warehouse is None:
        warehouse = Path.cwd() / "warehouse"
    warehouse_uri = str(warehouse)
    if not is_uri(warehouse_uri):
        warehouse_uri = str(Path(warehouse_uri).expanduser().resolve())
    if store_url is None and is_uri(warehouse_uri) and not warehouse_uri.startswith("file:"):
        raise HiveAcidError("a warehouse that is not on the local disk needs an explicit store_url")
    master = str(conf.pop("master", "local[*]"))
    verbose = bool(conf.pop("verbose", False))
    spark_conf = {k: str(v) for k, v in (conf.pop("spark_conf", None) or {}).items()}
    spark_conf.update({str(k): str(v) for k, v in conf.items()})
    owns = spark is None
    fs, path = filesystem_for(warehouse_uri)
    store_dir = Path(path) / ".hiveacid" if store_url is None else None
    url = store_url if store_url is not None else f"sqlite:///{Path(path) / '.hiveacid' / 'txn.db'}"

    def ready(session: SparkSession) -> SparkSession:
        if not is_connect(session):  # a Connect server registers Python data sources on its own side
            register_data_source(session, warehouse=warehouse_uri, store_url=url)
        return session

    def start() -> SparkSession:
        session = local_session(spark_conf, master=master, verbose=verbose)
        try:
            check_executors(session)  # a cluster that cannot write fails here, in one line
        except HiveAcidError:
            session.stop()
            raise
        return ready(session)

    # A local Spark starts at the first statement that needs it (SET, SHOW, USE, BEGIN .. need none); a
    # cluster's starts now, so that executors that cannot write fail here, before anything is created.
    if spark is not None:
        check_executors(spark)
        handle = SparkHandle(ready(spark))
    else:
        handle = SparkHandle(start=start)
        if not (master == "local" or master.startswith("local[")):  # local-cluster[..] runs other Pythons
            handle.get()
    fs.create_dir(path, recursive=True)
    if store_dir is not None:
        store_dir.mkdir(parents=True, exist_ok=True)
    store = TxnStore(url, default_db_location=warehouse_uri)
    return Session(handle, warehouse_uri, store, owns_spark=owns)
