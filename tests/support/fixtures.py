"""Where the test data lives: in this repository, so a clone anywhere runs every test.

``tests/fixtures/hive-written`` holds files written by Hive (and Impala) itself, copied from the project's
shared fixtures (see its README.md for where each comes from); ``HIVEACID_FIXTURES`` points elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent

#: the Hive-written tables and files (data, read-only: tests copy what they change into ``tmp_path``)
HIVE_WRITTEN = Path(os.environ.get("HIVEACID_FIXTURES", TESTS / "fixtures" / "hive-written"))
