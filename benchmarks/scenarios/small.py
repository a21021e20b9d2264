"""Scenario 6: small statements on a warm session, on a 1,000-row table whatever ``--rows`` says.

INSERT of one row and UPDATE of one row, each against a trivial Spark job (``spark.range(1).count()``,
the floor of any Spark statement) and against delta-rs doing the same statement. Each run starts from
the freshly loaded 1,000-row table (restored, untimed), so the table does not grow run after run.
"""

from __future__ import annotations

import pyarrow as pa

from benchmarks.contents import SCHEMA
from benchmarks.data import TABLE, ensure_base
from benchmarks.scenarios.base import Contender, Scenario, register
from benchmarks.scenarios.common import AcidTable, DeltaTable, delta_rs, ours

SMALL_ROWS = 1_000


class _Small(Scenario):
    fixed_rows = SMALL_ROWS

    def setup(self) -> None:
        ensure_base(self.ctx.spark, self.ctx.data)
        self.acid = AcidTable(self.ctx.spark, self.ctx.data)
        self.delta = DeltaTable(self.ctx.data)

    def run_ours(self) -> None:
        raise NotImplementedError

    def run_delta(self) -> None:
        raise NotImplementedError

    def contenders(self) -> list[Contender]:
        data, spark, exact = self.ctx.data, self.ctx.spark, self.ctx.exact
        return [
            ours(self.acid, data, "base", self.run_ours, exact=exact),
            Contender("spark-range-count", run=lambda: spark.range(1).count()),
            delta_rs(self.delta, data, "base", self.run_delta, exact=exact),
        ]

    def close(self) -> None:
        self.acid.close()


@register
class SmallInsert(_Small):
    name = "small_insert"
    title = "6a. INSERT of one row (warm session)"

    def run_ours(self) -> None:
        self.acid.sql(f"INSERT INTO {TABLE} VALUES ({SMALL_ROWS}, 'name_new', 4242, 'eng')")

    def run_delta(self) -> None:
        self.delta.append(pa.table({"id": [SMALL_ROWS], "name": ["name_new"], "salary": [4242], "dept": ["eng"]},
                                   schema=SCHEMA))


@register
class SmallUpdate(_Small):
    name = "small_update"
    title = "6b. UPDATE of one row in a 1,000-row table (warm session)"

    def run_ours(self) -> None:
        self.acid.sql(f"UPDATE {TABLE} SET salary = salary + 1 WHERE id = 500")

    def run_delta(self) -> None:
        self.delta.update("id = 500", {"salary": "salary + 1"})
