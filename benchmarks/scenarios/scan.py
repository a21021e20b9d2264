"""Scenario 4: a full scan with an aggregate over every column, after 10 DML statements.

The statements (5 UPDATEs of 0.1% of the rows each, 5 DELETEs of 0.2% each, alternating) leave
5 insert deltas and 10 delete deltas over the base, with 1% of the rows deleted and 0.5% updated.
The peer scans the same live rows stored as plain ORC; those rows are produced independently of our
reader (the same changes applied to the plain rows with DataFrame operations), so the two answers
checking equal is a real check of our scan. Nothing is changed by a run, so nothing is restored.
"""

from __future__ import annotations

import json
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from benchmarks.data import TABLE, DataSet, ensure_base
from benchmarks.scenarios.base import OURS, Contender, Scenario, register
from benchmarks.scenarios.common import AcidTable

STATE = "dml10"
PLAIN_VIEW = "bench_plain_live"
AGGREGATE = (
    "SELECT count(*) AS n, sum(id) AS sum_id, sum(salary) AS sum_salary, min(name) AS min_name, "
    "max(name) AS max_name, min(dept) AS min_dept, max(dept) AS max_dept FROM {table}"
)


def statements() -> list[str]:
    out = []
    for k in range(5):
        out.append(f"UPDATE {TABLE} SET salary = salary + 1 WHERE id % 1000 = {k}")
        out.append(f"DELETE FROM {TABLE} WHERE id % 500 = {100 + k}")
    return out


def live_rows(df: DataFrame) -> DataFrame:
    """The same 10 statements as DataFrame operations on the plain rows."""
    updated = F.when(F.col("id") % 1000 < 5, F.col("salary") + 1).otherwise(F.col("salary")).cast("int")
    deleted = (F.col("id") % 500 >= 100) & (F.col("id") % 500 <= 104)
    return df.withColumn("salary", updated).where(~deleted)


def ensure_after_dml(spark: SparkSession, data: DataSet, acid: AcidTable) -> Path:
    """The state after the 10 statements (frozen as :data:`STATE`, built once per size) and the same live
    rows as plain ORC in ``plain_live/``, produced from the plain rows by :func:`live_rows`; returns that path."""
    ensure_base(spark, data)

    def build() -> None:
        acid.reopen()
        for text in statements():
            acid.sql(text)
        acid.close()

    data.ensure_state(STATE, build, after="base")
    plain_live = data.root / "plain_live"
    marker = plain_live / "_BENCH_COMPLETE"
    if not marker.is_file():
        live_rows(spark.read.orc(str(data.plain))).write.mode("overwrite").orc(str(plain_live))
        marker.write_text(json.dumps({"rows": data.rows}))
    return plain_live


@register
class ScanAfterDml(Scenario):
    name = "scan_after_dml"
    title = "4. Full scan + aggregate after 10 DML statements"

    def setup(self) -> None:
        spark, data = self.ctx.spark, self.ctx.data
        self.acid = AcidTable(spark, data)
        self.plain_live = ensure_after_dml(spark, data, self.acid)
        self.acid.reopen(lambda: data.restore(STATE, "acid"))
        spark.read.orc(str(self.plain_live)).createOrReplaceTempView(PLAIN_VIEW)
        self.answers: dict[str, dict] = {}
        self.ctx.notes["acid_directories"] = sorted(
            p.name for p in (data.acid_warehouse / TABLE).iterdir() if not p.name.startswith((".", "_"))
        )

    def run_ours(self) -> None:
        self.answers[OURS] = self.acid.sql(AGGREGATE.format(table=TABLE)).first().asDict()

    def run_plain(self) -> None:
        self.answers["spark-orc-scan"] = self.ctx.spark.sql(AGGREGATE.format(table=PLAIN_VIEW)).first().asDict()

    def contenders(self) -> list[Contender]:
        return [
            Contender(OURS, run=self.run_ours, contents=lambda: self.answers[OURS]),
            Contender("spark-orc-scan", run=self.run_plain, contents=lambda: self.answers["spark-orc-scan"]),
        ]

    def close(self) -> None:
        self.ctx.spark.catalog.dropTempView(PLAIN_VIEW)
        self.acid.close()
