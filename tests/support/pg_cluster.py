"""A throwaway PostgreSQL server that a test may stop and start (the shared one on 5432 must never be).

Made with the installed PostgreSQL binaries (``/usr/lib/postgresql/<v>/bin``: ``initdb``, ``pg_ctl``) in a
temporary directory owned by the ``postgres`` user, on a free port, without fsync (a test cluster: speed, not
durability of the host). Stopping it with ``immediate`` is what a crash or a killed server looks like to the
client: open connections are cut in the middle of whatever they were doing.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass


def _bin_dir() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        raise RuntimeError(
            "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)"
        )
    return os.path.dirname(found[-1])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgCluster:
    root: str
    port: int
    bin_dir: str

    @property
    def data(self) -> str:
        return os.path.join(self.root, "data")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def as_postgres(self, *args: str) -> None:
        cmd = ["runuser", "-u", "postgres", "--", os.path.join(self.bin_dir, args[0]), *args[1:]]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.strip() or done.stdout.strip()}")

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        self.as_postgres(
            "pg_ctl", "-D", self.data, "-o", opts, "-l", os.path.join(self.root, "log"), "-w", "start"
        )

    def stop(self, mode: str = "immediate") -> None:
        self.as_postgres("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")

    def running(self) -> bool:
        return os.path.exists(os.path.join(self.data, "postmaster.pid"))


@contextmanager
def throwaway_postgres() -> Iterator[PgCluster]:
    """A fresh cluster (trust authentication, user ``postgres``) started on a free port; removed at the end."""
    root = tempfile.mkdtemp(prefix="hiveacid-pg-")
    postgres = pwd.getpwnam("postgres")
    os.chown(root, postgres.pw_uid, postgres.pw_gid)
    cluster = PgCluster(root, _free_port(), _bin_dir())
    try:
        cluster.as_postgres("initdb", "-D", cluster.data, "-A", "trust", "-U", "postgres", "--no-sync")
        cluster.start()
        yield cluster
    finally:
        if cluster.running():
            with suppress(RuntimeError):
                cluster.stop()
        shutil.rmtree(root, ignore_errors=True)
