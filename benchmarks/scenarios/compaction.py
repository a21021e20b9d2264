"""Scenario 5: a major compaction of the table after 10 DML statements, beside a plain Spark rewrite.

The start state is scenario 4's (``dml10``: 5 UPDATEs and 5 DELETEs leave 5 insert deltas and 10 delete
deltas over the loaded delta, 1% of the rows deleted). Ours runs ``ALTER TABLE .. COMPACT 'major' AND WAIT``
(the worker's Spark job into ``base_N``, row ids kept; the cleaner is not part of the timed run). The peer
is what a user without a table format does to get the same compact table: read the live rows (plain ORC,
produced independently of our reader) and write them all out again. Both end with the same rows.
"""

from __future__ import annotations

from benchmarks.data import TABLE
from benchmarks.scenarios.base import Contender, Scenario, register
from benchmarks.scenarios.common import AcidTable, ours, plain_rewrite, spark_rewrite
from benchmarks.scenarios.scan import STATE, ensure_after_dml


@register
class MajorCompaction(Scenario):
    name = "major_compaction"
    title = "5. Major compaction after 10 DML statements"

    def setup(self) -> None:
        self.acid = AcidTable(self.ctx.spark, self.ctx.data)
        self.live_source = ensure_after_dml(self.ctx.spark, self.ctx.data, self.acid)

    def run_ours(self) -> None:
        (row,) = self.acid.sql(f"ALTER TABLE {TABLE} COMPACT 'major' AND WAIT").collect()
        if row.state != "ready for cleaning":
            raise RuntimeError(f"compaction ended {row.state}: {row.message}")
        table = self.ctx.data.acid_warehouse / TABLE
        self.ctx.notes["acid_directories_after"] = sorted(
            p.name for p in table.iterdir() if not p.name.startswith((".", "_"))
        )

    def contenders(self) -> list[Contender]:
        data, spark, exact = self.ctx.data, self.ctx.spark, self.ctx.exact
        return [
            ours(self.acid, data, STATE, self.run_ours, exact=exact),
            plain_rewrite(spark, data, lambda: spark_rewrite(spark, self.live_source, data.plain_out, lambda df: df), exact=exact),
        ]

    def close(self) -> None:
        self.acid.close()
