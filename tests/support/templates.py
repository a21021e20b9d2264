"""A warehouse built once per test module and restored, file for file, before each of its tests.

Why: many test files start every test from the same few tables, and building them is several Spark
statements (seconds) per test, most of a test's time. The store records absolute table locations, so the
copy is restored at the path it was built at: one live directory per module, replaced by the saved copy
before each test (modification times kept, as ``shutil.copytree`` does). Nothing a test does to the live
copy (files deleted, garbage written, the store changed) reaches the next test.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any


class WarehouseTemplate:
    """``build(acid)`` run once on a new warehouse; :meth:`restore` gives each test a fresh copy of it."""

    def __init__(self, root: Path, spark: Any, build: Callable[[Any], None]) -> None:
        import hiveacid_sql

        self.live = root / "live"
        self.saved = root / "saved"
        with hiveacid_sql.connect(spark=spark, warehouse=self.live / "warehouse") as acid:
            build(acid)
        shutil.copytree(self.live, self.saved, symlinks=True)

    def restore(self) -> Path:
        """The warehouse directory, exactly as ``build`` left it."""
        shutil.rmtree(self.live)
        shutil.copytree(self.saved, self.live, symlinks=True)
        return self.live / "warehouse"
