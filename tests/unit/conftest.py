"""The unit tier starts no JVM: ``pytest tests/unit`` checks sql, plan, acid and txn in seconds.

A unit test that asks for the SparkSession (or a connection, which needs one) fails here: it belongs in
``tests/spark``.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    raise pytest.UsageError("tests/unit starts no Spark: move a test that needs a SparkSession to tests/spark")


@pytest.fixture()
def acid():
    raise pytest.UsageError("tests/unit starts no Spark: move a test that needs a connection to tests/spark")
