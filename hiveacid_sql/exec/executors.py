"""Can the executors run our writer tasks? Asked once per Spark application, when ``connect()`` opens it.

Why: the ORC event writers, the original-file readers and compaction run inside Spark tasks
(``mapInArrow``), in the executors' Python. The task functions travel by reference to ``hiveacid_sql``'s
modules, so that Python needs this package (the same version: the same functions), pyorc and pyarrow. On one
machine it is this interpreter; on a cluster, or behind a Spark Connect server, it is whatever
``spark.pyspark.python`` / ``PYSPARK_PYTHON`` names on the nodes. Without the check the first write fails
in its tasks, after their retries, with a ``ModuleNotFoundError`` that does not say what to do; with it,
``connect()`` fails at once with one line saying how to ship the environment, before anything is written.

The probe is a plain Python UDF over two rows whose function is built from source here, so it is pickled by
value and needs nothing but PySpark on the executor (it reports what is missing instead of failing on it).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import sys
from typing import Any

from pyspark.errors import PySparkException
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.exec.session import is_connect

#: module -> lowest version the writer tasks work with (pyproject's floors); hiveacid_sql must equal ours
REQUIRED: dict[str, tuple[int, ...]] = {
    "hiveacid_sql": (),
    "pyorc": (0, 10),
    "pyarrow": (15,),
    "numpy": (1, 24),
    "fastavro": (1, 9),
}

_PROBE_SOURCE = """
def probe(_):
    import importlib, importlib.metadata, json, sys
    found = {}
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except Exception:
            found[name] = None
            continue
        try:
            found[name] = importlib.metadata.version(DISTRIBUTIONS.get(name, name))
        except Exception:
            found[name] = str(getattr(module, "__version__", "0"))
    return json.dumps({"python": sys.executable, "modules": found})
"""

_checked: set[str] = set()
DISTRIBUTION = "hiveacid-sql"


def driver_version() -> str | None:
    """This package's installed version (None when it runs from a source tree that was not installed)."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


def _probe_function() -> Any:
    namespace: dict[str, Any] = {
        "__name__": "hiveacid_executor_probe",
        "MODULES": tuple(REQUIRED),
        "DISTRIBUTIONS": {"hiveacid_sql": DISTRIBUTION},
    }
    exec(compile(_PROBE_SOURCE, "<hiveacid executor probe>", "exec"), namespace)  # noqa: S102 - our own source
    return namespace["probe"]


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("."):
        digits = "".join(c for c in piece if c.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def _application_id(spark: SparkSession) -> str:
    try:
        return str(spark.conf.get("spark.app.id", None) or id(spark))
    except Exception:  # noqa: BLE001 - a server that does not say: check this session once
        return str(id(spark))


def _runs_here(spark: SparkSession) -> bool:
    """A classic local session whose Python workers are this interpreter: they import what we import."""
    if is_connect(spark):
        return False
    master = str(spark.conf.get("spark.master", "local"))
    if not (master == "local" or master.startswith("local[")):
        return False
    # PySpark starts workers with $PYSPARK_PYTHON (else python3); Spark's conf may name one too. A venv's
    # python is a symlink to the system's: compare the paths as given, not resolved.
    pythons = [os.environ.get("PYSPARK_PYTHON", "python3"), spark.conf.get("spark.pyspark.python", None)]
    here = os.path.abspath(sys.executable)
    return all(os.path.abspath(shutil.which(p) or p) == here for p in pythons if p)


SHIP = (
    "ship this environment to the executors with spark.archives (a venv-pack or conda-pack archive, e.g. "
    "spark.archives=env.tar.gz#env and spark.pyspark.python=./env/bin/python) or install hiveacid-sql=={v} "
    "(with pyorc and pyarrow) on every node"
)


def executor_problems(reports: list[dict[str, Any]]) -> list[str]:
    """What the executors' Pythons lack, from the probe's reports (one per task): ``[]`` when all is well."""
    problems: list[str] = []
    ours = driver_version()
    for report in reports:
        for name, version in report["modules"].items():
            if version is None:
                problem = f"has no module {name}"
            elif name == "hiveacid_sql" and ours is not None and version != ours:
                problem = f"has hiveacid_sql {version}, this driver {ours}"
            elif name != "hiveacid_sql" and _version(version) < REQUIRED[name]:
                floor = ".".join(map(str, REQUIRED[name]))
                problem = f"has {name} {version}, the writer tasks need >= {floor}"
            else:
                continue
            text = f"{report['python']} {problem}"
            if text not in problems:
                problems.append(text)
    return problems


def check_executors(spark: SparkSession) -> None:
    """Raise a one-line :class:`HiveAcidError` if the executors' Python cannot import what the writer tasks
    need (once per Spark application; a local session on this interpreter is not asked)."""
    app = _application_id(spark)
    if app in _checked or _runs_here(spark):
        return
    probe = F.udf(_probe_function(), "string", useArrow=False)
    try:
        rows = spark.range(0, 2, 1, 2).select(probe(F.col("id")).alias("r")).distinct().collect()
    except PySparkException as exc:
        from hiveacid_sql.exec.binder import first_line

        raise HiveAcidError(
            f"Spark's executors cannot run Python tasks ({first_line(exc)}): "
            + SHIP.format(v=driver_version() or "<this version>")
        ) from exc
    problems = executor_problems([json.loads(r.r) for r in rows])
    if problems:
        raise HiveAcidError(
            f"Spark's executors cannot run hiveacid-sql's writer tasks: their Python {'; '.join(problems)}: "
            + SHIP.format(v=driver_version() or "<this version>")
        )
    _checked.add(app)
