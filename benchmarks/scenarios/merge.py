"""Scenario 3: MERGE of a source with 1% of the table's row count (100,000 rows into 10,000,000), half of
its rows matching existing ids (updated), half new ids (inserted).

The source is plain ORC written once per size (``merge_source/``), registered in our warehouse as an
external table in a golden state of its own (``merge_ready``: the base table plus that registration), so
every run starts from the same files. delta-rs merges the same rows, read from the same ORC files into
Arrow outside the timed region (delta-rs takes its source from memory); the plain-Spark peer joins the
plain rows with the source and rewrites the table.
"""

from __future__ import annotations

import json

import pyarrow.dataset as ds
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from benchmarks.data import COLUMNS_DDL, TABLE, DataSet, ensure_base
from benchmarks.scenarios.base import Contender, Scenario, register
from benchmarks.scenarios.common import AcidTable, DeltaTable, delta_rs, ours, plain_rewrite

STATE = "merge_ready"
SOURCE_TABLE = "merge_source"
MERGE_SQL = (
    f"MERGE INTO {TABLE} AS t USING {SOURCE_TABLE} AS s ON t.id = s.id "
    "WHEN MATCHED THEN UPDATE SET name = s.name, salary = s.salary, dept = s.dept "
    "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.name, s.salary, s.dept)"
)


def source_size(rows: int) -> int:
    """1% of the table, at least two rows (one matching, one new)."""
    return max(2, rows // 100)


def source_rows(spark: SparkSession, rows: int) -> DataFrame:
    """Half the source matches ids spread over the whole table, half are ids past its end."""
    half = source_size(rows) // 2
    step = max(1, rows // half)
    matched = spark.range(0, half).select((F.col("id") * step).alias("id"))
    new = spark.range(0, half).select((F.col("id") + rows).alias("id"))
    return matched.unionByName(new).select(
        F.col("id").cast("int").alias("id"),
        F.concat(F.lit("merged_"), F.col("id").cast("string")).alias("name"),
        (F.lit(50_000) + F.col("id") % 1000).cast("int").alias("salary"),
        F.lit("merge").alias("dept"),
    )


def ensure_source(spark: SparkSession, data: DataSet) -> None:
    """Write the source ORC files once per size."""
    marker = data.root / SOURCE_TABLE / "_BENCH_COMPLETE"
    if not marker.is_file():
        source_rows(spark, data.rows).write.mode("overwrite").orc(str(data.root / SOURCE_TABLE))
        marker.write_text(json.dumps({"rows": source_size(data.rows)}))


def merged(plain: DataFrame, source: DataFrame) -> DataFrame:
    """The MERGE as DataFrame operations: the plain-Spark peer's rewrite."""
    s = source.select(*[F.col(c).alias(f"s_{c}") for c in ("id", "name", "salary", "dept")])
    joined = plain.join(s, plain["id"] == s["s_id"], "full_outer")
    return joined.select(
        *[F.coalesce(F.col(f"s_{c}"), F.col(c)).alias(c) for c in ("id", "name", "salary", "dept")]
    )


@register
class MergeOnePercent(Scenario):
    name = "merge_1pct"
    title = "3. MERGE of 1% of the row count, half matching"

    def setup(self) -> None:
        spark, data = self.ctx.spark, self.ctx.data
        ensure_base(spark, data)
        ensure_source(spark, data)
        self.acid = AcidTable(spark, data)
        self.delta = DeltaTable(data)
        source_dir = data.root / SOURCE_TABLE

        def build() -> None:
            self.acid.reopen()
            self.acid.sql(
                f"CREATE EXTERNAL TABLE {SOURCE_TABLE} ({COLUMNS_DDL}) STORED AS ORC LOCATION '{source_dir}'"
            )
            self.acid.close()

        data.ensure_state(STATE, build, after="base")
        self.source_arrow = ds.dataset(str(source_dir), format="orc", exclude_invalid_files=True).to_table()
        self.ctx.notes["source_rows"] = self.source_arrow.num_rows

    def run_ours(self) -> None:
        result = self.acid.sql(MERGE_SQL)
        self.ctx.notes["hiveacid_rows_updated"] = result.num_updated_rows
        self.ctx.notes["hiveacid_rows_inserted"] = result.num_inserted_rows

    def run_delta(self) -> None:
        columns = ("id", "name", "salary", "dept")
        (
            self.delta.table()
            .merge(source=self.source_arrow, predicate="t.id = s.id", source_alias="s", target_alias="t")
            .when_matched_update(updates={c: f"s.{c}" for c in columns if c != "id"})
            .when_not_matched_insert(updates={c: f"s.{c}" for c in columns})
            .execute()
        )

    def run_spark(self) -> None:
        spark, data = self.ctx.spark, self.ctx.data
        source = spark.read.orc(str(data.root / SOURCE_TABLE))
        merged(spark.read.orc(str(data.plain)), source).write.mode("overwrite").orc(str(data.plain_out))

    def contenders(self) -> list[Contender]:
        data, spark, exact = self.ctx.data, self.ctx.spark, self.ctx.exact
        return [
            ours(self.acid, data, STATE, self.run_ours, exact=exact),
            delta_rs(self.delta, data, STATE, self.run_delta, exact=exact),
            plain_rewrite(spark, data, self.run_spark, exact=exact),
        ]

    def close(self) -> None:
        self.acid.close()
