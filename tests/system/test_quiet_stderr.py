"""One quiet line per error, checked on the real stderr of fresh processes (each starts its own JVM, as a
user's does): the CLI's start-up prints nothing of Spark's or the JVM's, a failing statement is one line,
and ``connect()`` in a script prints nothing at all while its errors arrive as one-line exceptions."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from hiveacid_sql.exec.session import DRIVER_JVM_OPTIONS

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def _run(tmp_path: Path, *args: str, drop: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_CONF_DIR", "SPARK_HOME", *drop)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=tmp_path, timeout=600, env=env)


def test_cli_runtime_error_is_exactly_one_line(tmp_path):
    """A task failure (raise_error inside the UPDATE's Spark job) and nothing else: no incubator warning, no
    log level hint, no Executor / TaskSetManager trace."""
    script = (f"CREATE TABLE e (id int, status string) {ACID}; INSERT INTO e VALUES (1, 'a');\n"
              "UPDATE e SET status = raise_error('boom');")
    proc = _run(tmp_path, "-m", "hiveacid_sql.cli", "--silent", "--master", "local[1]", "-e", script)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == ["Error: <-e>:2: boom (statement: UPDATE e SET status = raise_error('boom'))"]


def test_connect_prints_nothing_and_errors_are_one_line(tmp_path):
    code = textwrap.dedent(f"""
        import hiveacid_sql
        from hiveacid_sql.errors import HiveAcidError
        acid = hiveacid_sql.connect(master="local[1]")
        acid.sql("CREATE TABLE e (id int, status string) {ACID}")
        acid.sql("INSERT INTO e VALUES (1, 'a')")
        acid.sql("CREATE TABLE p (ts timestamp) STORED AS ORC")
        for bad in ("UPDATE e SET status = 'x' WHERE nosuch = 1", "UPDATE e SET status = raise_error('boom')",
                    "INSERT INTO p VALUES (TIMESTAMP '1969-12-31 23:59:59.5')"):
            try:
                acid.sql(bad)
            except HiveAcidError as exc:
                print(type(exc).__name__, str(exc).count(chr(10)), str(exc))
        jvm = acid.running_spark().sparkContext._jvm
        print(*[a for a in jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
                if a.startswith("-XX:")])
        acid.close()
    """)
    # no SPARK_SUBMIT_OPTS (the tests' JVM options): the JVM runs with the options a user's gets
    proc = _run(tmp_path, "-c", code, drop=("SPARK_SUBMIT_OPTS",))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr == ""
    *lines, jvm_options = proc.stdout.splitlines()
    assert set(DRIVER_JVM_OPTIONS.split()) <= set(jvm_options.split())  # Spark adds one of its own
    assert [line.split(" ", 2)[:2] for line in lines] == [["PlanError", "0"]] + [["ExecutionError", "0"]] * 2
    assert "nosuch" in lines[0] and lines[1].endswith("boom") and "1969-12-31 23:59:59.5" in lines[2]
