"""The cluster tier: executors in processes of their own (``local-cluster[2,1,1024]``: a standalone master, two
workers, one executor JVM each, each with its own Python workers).

Why: on one machine the writer tasks run in Python workers of the driver's own interpreter and see what it
sees. On a cluster they run in the executors' Python, which must have hiveacid_sql, pyorc and pyarrow: the
DML subset must give the same results there, and an executor Python without the package must stop
``connect()`` with one line saying how to ship it, before anything is written. Each case runs in a child
process (:mod:`tests.support.cluster_run`), because a process holds one SparkContext.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(mode: str, warehouse: Path, python: str) -> dict:
    env = {**os.environ, "PYSPARK_PYTHON": python}
    env.pop("SPARK_CONNECT_MODE_ENABLED", None)
    proc = subprocess.run(
        [sys.executable, "-m", "tests.support.cluster_run", mode, str(warehouse)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def python_without_package(root: Path) -> str:
    """A Python with PySpark (so it can be an executor's Python) but without hiveacid_sql and pyorc."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    site = Path(sysconfig.get_paths()["purelib"])
    only = root / "only-pyspark"
    only.mkdir()
    for name in ("pyspark", "py4j"):
        (only / name).symlink_to(site / name)
    target_site = next((root / "lib").glob("python3*/site-packages"))
    (target_site / "only_pyspark.pth").write_text(f"{only}\n")
    # A PYTHONPATH naming a checkout (a developer's worktree) must not give this Python the package either.
    (target_site / "no_checkout.pth").write_text(
        "import os, sys; sys.path[:] = [p for p in sys.path if not os.path.isdir(os.path.join(p, 'hiveacid_sql'))]\n"
    )
    return str(root / "bin" / "python")


def test_dml_subset_on_executors_in_other_processes(tmp_path: Path):
    assert run("dml", tmp_path / "warehouse", sys.executable) == {"ok": True}


@pytest.mark.release  # CI budget: a cluster of its own (~30 s); CI runs the DML subset on one
def test_executors_without_the_package_fail_connect_in_one_line(tmp_path: Path):
    python = python_without_package(tmp_path / "env")
    warehouse = tmp_path / "warehouse"
    message = run("connect", warehouse, python)["error"]
    assert "\n" not in message
    assert "has no module hiveacid_sql" in message and "has no module pyorc" in message
    assert "spark.archives" in message and "install hiveacid-sql==" in message
    assert python in message
    assert not warehouse.exists()  # nothing was created
