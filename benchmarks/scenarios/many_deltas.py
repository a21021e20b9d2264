"""Scenario 9: the same full scan after 0, 10, 50 and 200 small DML statements since the last compaction.

Every published account of Hive ACID slowness is about the *number* of delta and delete-delta directories,
not their bytes (Hive's own fixes: HIVE-23597, HIVE-24337), so this scenario holds the rows fixed and varies
only the directory count. Each statement is a one-row ``UPDATE ... SET salary = salary`` of a different row:
it writes one insert delta and one delete delta (two directories) and leaves the live rows as they were, so
all four states have the same answer, and each run's answer checking equal to the 0-statement state's is a
real check of the reader over hundreds of directories. Ours is the scan after 200 statements; the "peers"
are the same scan after 0, 10 and 50 (target: after 200 at most 2x after 0). The states are built once per
size, each from the one before; a contender's untimed ``prepare`` puts its state in place.
"""

from __future__ import annotations

import os

from benchmarks.data import TABLE, ensure_base
from benchmarks.scenarios.base import OURS, Contender, Scenario, register
from benchmarks.scenarios.common import AcidTable
from benchmarks.scenarios.scan import AGGREGATE

COUNTS = (0, 10, 50, 200)
#: Statement counts instead of :data:`COUNTS` (comma-separated, rising, the first 0): the test of the harness
#: runs the scenario with a few statements, since 200 statements take minutes at any table size.
COUNTS_ENV = "HIVEACID_BENCH_MANY_DELTAS"


def counts() -> tuple[int, ...]:
    text = os.environ.get(COUNTS_ENV)
    return tuple(int(n) for n in text.split(",")) if text else COUNTS


def state_name(count: int) -> str:
    return "base" if count == 0 else f"noop_updates{count}"


def statements(rows: int, start: int, stop: int) -> list[str]:
    """Statements ``start`` .. ``stop - 1``: one-row no-op UPDATEs spread over the key range."""
    return [f"UPDATE {TABLE} SET salary = salary WHERE id = {(k * 7919) % rows}" for k in range(start, stop)]


def contender_name(count: int, last: int) -> str:
    return OURS if count == last else f"after-{count}"


@register
class ScanManyDeltas(Scenario):
    name = "scan_many_deltas"
    title = "9. Full scan + aggregate after 0 / 10 / 50 / 200 one-row DML statements since compaction"

    def setup(self) -> None:
        spark, data = self.ctx.spark, self.ctx.data
        ensure_base(spark, data)
        self.acid = AcidTable(spark, data)
        self.counts = counts()
        for before, count in zip(self.counts, self.counts[1:], strict=False):

            def build(before: int = before, count: int = count) -> None:
                self.acid.reopen()
                for text in statements(data.rows, before, count):
                    self.acid.sql(text)
                self.acid.close()

            data.ensure_state(state_name(count), build, after=state_name(before))
        self.answers: dict[str, dict] = {}
        self.ctx.notes["statements"] = list(self.counts)

    def contender(self, count: int) -> Contender:
        name = contender_name(count, self.counts[-1])
        state = state_name(count)

        def prepare() -> None:
            self.acid.reopen(lambda: self.ctx.data.restore(state, "acid"))

        def run() -> None:
            self.answers[name] = self.acid.sql(AGGREGATE.format(table=TABLE)).first().asDict()

        return Contender(name, run=run, prepare=prepare, contents=lambda: self.answers[name])

    def contenders(self) -> list[Contender]:
        return [self.contender(self.counts[-1]), *(self.contender(n) for n in self.counts[:-1])]

    def close(self) -> None:
        self.acid.close()
