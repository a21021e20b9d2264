"""The SparkSession hiveacid-sql starts when the caller brings none, and Hive's value semantics for writes.

Why these settings: Hive timestamps are wall-clock values, and Spark's ORC reader turns an ORC
``timestamp`` into an instant using the JVM's default zone, so the JVM and the session both run in
UTC; the UI and verbose logs are off because this is a library session, not a cluster console.

Hive's casts never fail: a value that does not fit its column wraps (integers, ``(int) 3000000000L``) or
becomes NULL (decimals too wide, unparseable dates and numbers), and ``x / 0`` is NULL. That is Spark's
non-ANSI mode, so the session this module starts is non-ANSI, and every DML statement is analysed with
ANSI mode off whatever the caller's session says (:func:`hive_value_semantics`): the same INSERT stores
the same values as in Hive.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from pyspark import SparkConf, SparkContext
from pyspark.java_gateway import launch_gateway
from pyspark.sql import SparkSession

DEFAULT_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.extraJavaOptions": "-Duser.timezone=UTC",
    "spark.executor.extraJavaOptions": "-Duser.timezone=UTC",
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.orc.filterPushdown": "true",
    "spark.sql.ansi.enabled": "false",  # Hive's value semantics (see the module docstring)
    # A snapshot names its event files one by one; past this many paths Spark lists them with a Spark job
    # of its own (32 by default), which cost a job and seconds per statement once a table had many small
    # deltas. Listing named files on the driver is a stat per file.
    "spark.sql.sources.parallelPartitionDiscovery.threshold": "100000",
}

_ANSI = "spark.sql.ansi.enabled"


@contextmanager
def hive_value_semantics(spark: SparkSession, *, strict: bool = False) -> Iterator[None]:
    """Analyse (and run) what is built inside the block with Spark's ANSI mode off, as Hive evaluates.

    Spark fixes a cast's behaviour when the expression is analysed, so a plan built here keeps Hive's
    semantics even if it runs later; the caller's setting is restored on exit. ``strict``
    (``hiveacid.strict.casts``): ANSI mode on instead (``x / 0`` fails), and the casts to column types the
    executors write are strict ones (:func:`hiveacid_sql.plan.types.strict_casts`).
    """
    from hiveacid_sql.exec.hive_casts import register_hive_casts
    from hiveacid_sql.plan.types import strict_casts

    register_hive_casts(spark)  # the functions Hive's string -> timestamp / date casts call
    previous = spark.conf.get(_ANSI, None)
    spark.conf.set(_ANSI, "true" if strict else "false")
    try:
        with strict_casts(strict):
            yield
    finally:
        if previous is None:
            spark.conf.unset(_ANSI)
        else:
            spark.conf.set(_ANSI, previous)


LOG4J2_CONFIG = Path(__file__).with_name("log4j2.properties")
#: what the JVM prints on its stderr at start-up that no user of a library session asked for
_JVM_NOISE = (b"WARNING: Using incubator modules",)


def local_session(
    conf: Mapping[str, str] | None = None, *, master: str = "local[*]", verbose: bool = False
) -> SparkSession:
    """Start (or reuse) a quiet local SparkSession in UTC with ``conf`` on top of our defaults.

    Quiet: Spark logs errors only, and not the task failures we report ourselves (our log4j2 configuration,
    unless the caller has one or ``verbose``), and the JVM's start-up warning about incubator modules is
    filtered out of its stderr (everything else it prints passes through).
    """
    # Python workers must be this interpreter: they import pyarrow, pyorc and this package.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    settings = session_settings(conf, verbose=verbose)
    builder = SparkSession.builder.master(master).appName("hiveacid-sql")
    for key, value in settings.items():
        builder = builder.config(key, value)
    if not verbose and SparkContext._gateway is None:  # noqa: SLF001 - no JVM yet: we launch it
        spark_conf = SparkConf().setAll(list(settings.items())).setMaster(master).setAppName("hiveacid-sql")
        gateway = launch_gateway(spark_conf, popen_kwargs={"stderr": subprocess.PIPE})
        _forward_filtered(gateway.proc.stderr)
        SparkContext(conf=spark_conf, gateway=gateway)
    spark = builder.getOrCreate()
    if not verbose:
        spark.sparkContext.setLogLevel("ERROR")
    return spark


#: JIT and GC options of the driver JVM we launch: the C1 compiler only and the serial collector. A statement's
#: fixed cost is mostly JVM CPU spent planning, generating code and JIT-compiling code that runs briefly; C2's
#: compilations of it cost more than they return (benchmarks/RESULTS.md, 2026-11-28: measured per scenario).
DRIVER_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
#: where a user tunes the driver JVM already; any of them (or a -XX: option in these variables) leaves ours out
_USER_JAVA_CONF = ("spark.driver.extraJavaOptions", "spark.driver.defaultJavaOptions")
_USER_JAVA_ENV = ("SPARK_SUBMIT_OPTS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")
#: the JVMs' default zone is UTC (see the module docstring) whatever other Java options a user gives; a user
#: who names a zone (``-Duser.timezone=..``) keeps theirs
_UTC_JVM = "-Duser.timezone=UTC"
_ZONED_JAVA_CONF = ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions")


def session_settings(
    conf: Mapping[str, str] | None = None, *, verbose: bool = False, environ: Mapping[str, str] = os.environ
) -> dict[str, str]:
    """The Spark conf :func:`local_session` starts with: our defaults, the caller's ``conf`` on top.

    :data:`DRIVER_JVM_OPTIONS` join the driver's Java options only when the caller tunes nothing there: no
    ``spark.driver.extraJavaOptions`` / ``defaultJavaOptions`` in ``conf`` (the caller's value replaces ours,
    but for ``-Duser.timezone=UTC``, kept unless it names a zone, on the driver and the executors), no ``-XX:`` in ``SPARK_SUBMIT_OPTS``, ``JAVA_TOOL_OPTIONS`` or ``JDK_JAVA_OPTIONS`` (a
    second garbage collector named there would stop the JVM from starting). They only matter when this
    process launches the JVM; a running SparkContext is reused as it is.
    """
    given = dict(conf or {})
    settings = {**DEFAULT_CONF, "spark.pyspark.python": environ.get("PYSPARK_PYTHON", sys.executable), **given}
    if not any(key in given for key in _USER_JAVA_CONF) and not any(
        "-XX:" in environ.get(name, "") for name in _USER_JAVA_ENV
    ):
        settings["spark.driver.extraJavaOptions"] += f" {DRIVER_JVM_OPTIONS}"
    for key in _ZONED_JAVA_CONF:  # a user's Java options replace ours, but not the JVMs' UTC zone
        if _UTC_JVM not in settings[key] and "-Duser.timezone=" not in settings[key]:
            settings[key] = f"{_UTC_JVM} {settings[key]}".strip()
    own_logging = "log4j2.configurationFile" in settings.get("spark.driver.extraJavaOptions", "") or (
        "SPARK_CONF_DIR" in environ
    )
    if not verbose and not own_logging:
        log4j = f"-Dlog4j2.configurationFile={LOG4J2_CONFIG.as_uri()}"
        settings["spark.driver.extraJavaOptions"] = f"{settings.get('spark.driver.extraJavaOptions', '')} {log4j}".strip()
    return settings


def _forward_filtered(pipe: IO[bytes]) -> None:
    """Copy the JVM's stderr to ours, without the lines of :data:`_JVM_NOISE` (a daemon thread)."""
    try:
        out = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        # A notebook kernel's sys.stderr is a stream without a descriptor: the JVM's lines go where the
        # kernel's own process stderr goes (its console log), as they would without this filter.
        out = sys.__stderr__.fileno() if sys.__stderr__ is not None else 2

    def forward() -> None:
        pending = b""
        while chunk := os.read(pipe.fileno(), 65536):
            pending += chunk
            cut = max(pending.rfind(b"\n"), pending.rfind(b"\r")) + 1
            done, pending = pending[:cut], pending[cut:]
            kept = b"".join(
                line for line in done.splitlines(keepends=True) if not line.startswith(_JVM_NOISE)
            )
            if pending and not any(noise.startswith(pending[: len(noise)]) for noise in _JVM_NOISE):
                kept, pending = kept + pending, b""  # a progress bar's partial line: show it now
            if kept:
                os.write(out, kept)

    threading.Thread(target=forward, name="hiveacid-jvm-stderr", daemon=True).start()


def active_session() -> SparkSession | None:
    """The SparkSession already running in this process (a notebook kernel's), if any."""
    return SparkSession.getActiveSession()


def quiet_pyspark_error_logs(*, verbose: bool) -> None:
    """PySpark logs every SQL error with its JVM stack trace as JSON on stderr; the runner already reports
    the error on one line, so those logs only show with ``--verbose``."""
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).disabled = not verbose


def is_connect(spark: SparkSession) -> bool:
    """Whether ``spark`` is a Spark Connect client session (no driver JVM in this process).

    Told by the class's module, so that a classic install without Connect's client libraries (grpcio) never
    imports them.
    """
    return type(spark).__module__.startswith("pyspark.sql.connect")


def cancel_all_jobs(spark: SparkSession) -> None:
    """Cancel the session's running Spark jobs (Ctrl-C at the prompt): the SparkContext's jobs on classic
    PySpark, the session's operations (``interruptAll``) over Spark Connect."""
    if is_connect(spark):
        spark.interruptAll()
    else:
        spark.sparkContext.cancelAllJobs()


def master_of(spark: SparkSession) -> str:
    """The Spark master (a Connect session: its server's, as the server reports it)."""
    if is_connect(spark):
        return str(spark.conf.get("spark.master", "unknown"))
    return str(spark.sparkContext.master)


class SparkHandle:
    """A connection's SparkSession, started the first time a statement needs it.

    Why: ``connect()`` started Spark before anything else, so ``SET``, ``SHOW TRANSACTIONS`` or ``BEGIN``
    waited for a JVM they do not use (issue 18). A handle either holds a session (one the caller gave, or
    one already started) or the way to start one; :meth:`get` starts it once (thread-safe: the compactor
    thread and the statement may ask together).
    """

    def __init__(self, session: SparkSession | None = None, start: Callable[[], SparkSession] | None = None) -> None:
        if session is None and start is None:
            raise ValueError("a SparkHandle needs a session or a way to start one")
        self._session = session
        self._start = start
        self._lock = threading.Lock()
        self.launched = False  # whether get() started a SparkContext (not one already running in the process)

    def get(self) -> SparkSession:
        """The session; started now if it was not."""
        session = self._session
        if session is not None:
            return session
        with self._lock:
            if self._session is None:
                assert self._start is not None
                self.launched = SparkContext._active_spark_context is None  # noqa: SLF001 - else ours is made on it
                self._session = self._start()
            return self._session

    @property
    def started(self) -> SparkSession | None:
        """The session if it runs, else None (and nothing is started)."""
        return self._session

    def running(self) -> SparkSession | None:
        """The session if it runs, or if a SparkContext already runs in this process (a session someone else
        made: ours would be made on it, so it is taken now, cheaply); None when no JVM runs."""
        if self._session is None and SparkContext._active_spark_context is not None:  # noqa: SLF001
            return self.get()
        return self._session

    def lazy(self) -> SparkSession:
        """The session if it runs, else a stand-in that starts it at its first use (an attribute asked for).

        For code that takes a SparkSession but may not use it (EXPLAIN's file listing asks Spark only to
        prune partitions by a predicate): it runs without a JVM when it does not. The stand-in is only
        handed out while no session runs, i.e. for the local classic session this handle would start.
        """
        if self._session is not None:
            return self._session
        return _StartOnUse(self)  # type: ignore[return-value]


class _StartOnUse:
    def __init__(self, handle: SparkHandle) -> None:
        self._handle = handle

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._handle.get(), name)
