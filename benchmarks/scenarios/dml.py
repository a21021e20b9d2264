"""Scenarios 1 and 2: one UPDATE by key and one DELETE of 1% of the rows, on the freshly loaded table.

Every run starts from the ``base`` state (restored by hard-link copy, untimed). The plain-Spark peer
reads the untouched plain ORC rows and writes the changed table to ``work/plain_out``.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from benchmarks.data import TABLE, ensure_base
from benchmarks.scenarios.base import Contender, Scenario, register
from benchmarks.scenarios.common import (
    AcidTable,
    DeltaTable,
    delta_rs,
    ours,
    plain_rewrite,
    spark_rewrite,
)


class _BaseDml(Scenario):
    """A single statement on the base table, done by us, delta-rs and a plain Spark rewrite."""

    sql_predicate: str
    sql_statement: str

    def setup(self) -> None:
        ensure_base(self.ctx.spark, self.ctx.data)
        self.acid = AcidTable(self.ctx.spark, self.ctx.data)
        self.delta = DeltaTable(self.ctx.data)

    def run_ours(self) -> None:
        result = self.acid.sql(self.sql_statement)
        self.ctx.notes["hiveacid_rows_affected"] = result.num_affected_rows
        self.ctx.notes["hiveacid_files_written"] = result.num_files_written

    def run_delta(self) -> None:
        raise NotImplementedError

    def change(self, df: DataFrame) -> DataFrame:
        raise NotImplementedError

    def contenders(self) -> list[Contender]:
        data, spark, exact = self.ctx.data, self.ctx.spark, self.ctx.exact
        return [
            ours(self.acid, data, "base", self.run_ours, exact=exact),
            delta_rs(self.delta, data, "base", self.run_delta, exact=exact),
            plain_rewrite(spark, data, lambda: spark_rewrite(spark, data.plain, data.plain_out, self.change), exact=exact),
        ]

    def close(self) -> None:
        self.acid.close()


@register
class UpdateOne(_BaseDml):
    name = "update_one"
    title = "1. UPDATE of 1 row by key"

    @property
    def key(self) -> int:
        return self.ctx.data.rows // 2

    @property
    def sql_statement(self) -> str:
        return f"UPDATE {TABLE} SET salary = salary + 1 WHERE id = {self.key}"

    def run_delta(self) -> None:
        self.delta.update(f"id = {self.key}", {"salary": "salary + 1"})

    def change(self, df: DataFrame) -> DataFrame:
        salary = F.when(F.col("id") == self.key, F.col("salary") + 1).otherwise(F.col("salary"))
        return df.withColumn("salary", salary.cast("int"))


@register
class DeleteOnePercent(_BaseDml):
    name = "delete_1pct"
    title = "2. DELETE of 1% of the rows"
    sql_predicate = "id % 100 = 7"

    @property
    def sql_statement(self) -> str:
        return f"DELETE FROM {TABLE} WHERE {self.sql_predicate}"

    def run_delta(self) -> None:
        self.delta.delete(self.sql_predicate)

    def change(self, df: DataFrame) -> DataFrame:
        return df.where(F.col("id") % 100 != 7)
