"""What a scenario is: a setup, our run, the peers' runs, and a way to read each one's final table.

Adding a scenario is one class with :func:`register`: ``setup`` builds (once per size) and restores its
data, ``contenders`` lists ours first and then the peers. The runner times only ``Contender.run``;
``prepare`` (restoring the start state) and ``contents`` (the correctness check) are never timed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pyspark.sql import SparkSession

from benchmarks.data import DataSet

OURS = "hiveacid"


@dataclass
class Contender:
    """One way of doing the scenario's work."""

    name: str
    run: Callable[[], Any]
    prepare: Callable[[], None] = lambda: None
    contents: Callable[[], dict] | None = None  # None: nothing to compare (e.g. a trivial Spark job)


@dataclass
class BenchContext:
    """What a scenario gets: the Spark session, its data set, and the exact-vs-fingerprint choice."""

    spark: SparkSession
    data: DataSet
    notes: dict[str, Any] = field(default_factory=dict)  # facts worth printing (file counts, rows changed)

    @property
    def exact(self) -> bool:
        from benchmarks.contents import EXACT_MAX_ROWS

        return self.data.rows <= EXACT_MAX_ROWS


class Scenario:
    """Base class; subclasses set ``name`` / ``title`` and implement ``setup`` and ``contenders``."""

    name: ClassVar[str]
    title: ClassVar[str]
    fixed_rows: ClassVar[int | None] = None  # a scenario on a table of its own size (ignores --rows)

    def __init__(self, ctx: BenchContext) -> None:
        self.ctx = ctx

    def setup(self) -> None:
        raise NotImplementedError

    def contenders(self) -> list[Contender]:
        raise NotImplementedError

    def close(self) -> None:
        """Release what ``setup`` opened (sessions, views)."""


SCENARIOS: dict[str, type[Scenario]] = {}


def register(cls: type[Scenario]) -> type[Scenario]:
    if cls.name in SCENARIOS:
        raise ValueError(f"scenario {cls.name!r} registered twice")
    SCENARIOS[cls.name] = cls
    return cls
