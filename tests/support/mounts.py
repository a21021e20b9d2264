"""Small filesystems of a test's own: a full disk or a read-only one, for the tests of what a write does then."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def tmpfs(path: Path, size: str = "1M") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``path`` and unmounted after (root only: the test says so, by a skip
    with mount's message, where the mount is refused; CI runs as root)."""
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)
