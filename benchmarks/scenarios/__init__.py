"""The scenario registry: importing this package registers every scenario that can run today.

A scenario is a module with one ``@register``-ed :class:`~benchmarks.scenarios.base.Scenario` subclass,
imported below.
"""

from benchmarks.scenarios import arrow_read, compaction, dml, merge, scan, small, store  # noqa: F401  (registration)
from benchmarks.scenarios.base import OURS, SCENARIOS, BenchContext, Contender, Scenario, register

__all__ = ["OURS", "SCENARIOS", "BenchContext", "Contender", "Scenario", "register"]
