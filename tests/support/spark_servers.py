"""Spark processes the cluster and Connect tiers run against, started from this interpreter's pyspark install.

Why here: `tests/system/test_spark_connect.py` needs a Spark Connect server in its own JVM (as a user runs
`sbin/start-connect-server.sh` from their Spark), and a server that cannot start must fail the tier loudly,
never skip it. The server runs in the foreground (`--wait`) in a process group of its own, so the fixture
stops exactly what it started.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyspark

from hiveacid_sql.exec.session import DEFAULT_CONF

SPARK_HOME = Path(pyspark.__file__).parent
START_TIMEOUT_S = 180.0


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ConnectServer:
    """A Spark Connect server (`sbin/start-connect-server.sh --wait`) on a free port, master ``local[2]``,
    its Python workers this interpreter (they import hiveacid_sql, pyorc and pyarrow), logging to ``log``."""

    def __init__(self, workdir: Path, *, master: str = "local[2]") -> None:
        self.port = free_port()
        self.url = f"sc://127.0.0.1:{self.port}"
        self.log = workdir / "connect-server.log"
        env = {
            **os.environ,
            "SPARK_HOME": str(SPARK_HOME),
            "SPARK_PID_DIR": str(workdir),
            "SPARK_LOG_DIR": str(workdir),
            "SPARK_IDENT_STRING": f"hiveacid-test-{self.port}",
            "PYSPARK_PYTHON": sys.executable,
        }
        env.pop("SPARK_CONNECT_MODE_ENABLED", None)
        conf = {
            **DEFAULT_CONF,
            "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": str(self.port),
            "spark.pyspark.python": sys.executable,
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
        }
        args = [
            str(SPARK_HOME / "sbin" / "start-connect-server.sh"),
            "--wait",
            "--master",
            master,
            "--driver-memory",
            "1g",
        ]
        for key, value in conf.items():
            args += ["--conf", f"{key}={value}"]
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                args,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self._wait_until_listening()

    def _wait_until_listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(
                    f"the Spark Connect server exited ({self.proc.returncode}):\n{self.log_tail()}"
                )
            if b"Spark Connect server started" in self.log.read_bytes():
                with socket.socket() as sock:
                    if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                        return
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(
            f"the Spark Connect server did not start in {START_TIMEOUT_S:.0f}s:\n{self.log_tail()}"
        )

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        """Stop the server's process group (spark-submit's JVM and its Python workers)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


class S3Server:
    """An S3-compatible server on a free port (moto in server mode, a child process of its own), and the
    environment that points the AWS SDK (pyarrow's S3 file system) at it."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.log = workdir / "s3-server.log"
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"the S3 server exited ({self.proc.returncode}):\n{self.log.read_text()[-3000:]}"
                )
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the S3 server did not start in 60s:\n{self.log.read_text()[-3000:]}")

    @property
    def env(self) -> dict[str, str]:
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": "test",
            "AWS_SECRET_ACCESS_KEY": "test",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_EC2_METADATA_DISABLED": "true",
        }

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=30)
