"""The scenario registry: importing this package registers every scenario that can run today.

A scenario is a module with one ``@register``-ed :class:`~benchmarks.scenarios.base.Scenario` subclass,
imported below.
"""

from benchmarks.scenarios import (  # noqa: F401  (registration)
    arrow_read,
    compaction,
    dml,
    many_deltas,
    merge,
    scan,
    small,
    store,
)
from benchmarks.scenarios.base import OURS, SCENARIOS, BenchContext, Contender, Scenario, register

__all__ = ["OURS", "SCENARIOS", "BenchContext", "Contender", "Scenario", "register"]
