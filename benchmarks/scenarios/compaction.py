"""Scenario 5: a major compaction of the table after 10 DML statements, beside a plain Spark rewrite.

The start state is scenario 4's (``dml10``: 5 UPDATEs and 5 DELETEs leave 5 insert deltas and 10 delete
deltas over the loaded delta, 1% of the rows deleted). Ours runs ``ALTER TABLE .. COMPACT 'major' AND WAIT``
(the worker's Spark job into ``base_N``, row ids kept; the cleaner is not part of the timed run). The peer
is what a user without a table format does to get the same compact table: read the live rows (plain ORC,
produced independently of our reader) and write them all out again. Both end with the same rows.
"""

from __future__ import annotations

from benchmarks import contents
from benchmarks.data import TABLE, ensure_base
from benchmarks.scenarios.base import OURS, Contender, Scenario, register
from benchmarks.scenarios.common import AcidTable, clear, spark_rewrite
from benchmarks.scenarios.scan import STATE, statements


@register
class MajorCompaction(Scenario):
    name = "major_compaction"
    title = "5. Major compaction after 10 DML statements"

    def setup(self) -> None:
        spark, data = self.ctx.spark, self.ctx.data
        ensure_base(spark, data)
        self.acid = AcidTable(spark, data)

        def build() -> None:
            self.acid.reopen()
            for text in statements():
                self.acid.sql(text)
            self.acid.close()

        data.ensure_state(STATE, build, after="base")
        self.live_source = data.root / "plain_live"
        if not (self.live_source / "_BENCH_COMPLETE").is_file():
            from benchmarks.scenarios.scan import live_rows

            live_rows(spark.read.orc(str(data.plain))).write.mode("overwrite").orc(str(self.live_source))
            (self.live_source / "_BENCH_COMPLETE").write_text("{}")

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
            Contender(
                OURS,
                run=self.run_ours,
                prepare=lambda: self.acid.reopen(lambda: data.restore(STATE, "acid")),
                contents=lambda: self.acid.contents(exact=exact),
            ),
            Contender(
                "spark-rewrite",
                run=lambda: spark_rewrite(spark, self.live_source, data.plain_out, lambda df: df),
                prepare=lambda: clear(data.plain_out),
                contents=lambda: contents.of_spark(spark.read.orc(str(data.plain_out)), exact=exact),
            ),
        ]

    def close(self) -> None:
        self.acid.close()
