"""Did ours and a peer end with the same table? A correctness check on the final state, never a timing.

Small tables are compared row by row (sorted by every column). Large ones are compared by a fingerprint of
aggregates computed where the data lives (Spark for ours and the plain peer, Arrow streaming for delta-rs),
so no table is collected to the driver: row count, sums of ``id``, ``salary`` and ``id * salary``, total
string lengths, and min / max of the strings. A changed, lost or duplicated row moves at least one of them
for every change the scenarios make.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

EXACT_MAX_ROWS = 200_000
SCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string()), ("salary", pa.int32()), ("dept", pa.string())])
_ORDER = [(name, "ascending") for name in SCHEMA.names]

Contents = dict[str, Any]


def _exact(table: pa.Table) -> Contents:
    table = table.select(SCHEMA.names).cast(SCHEMA).sort_by(_ORDER)
    return {"rows": table.to_pylist()}


def of_spark(df: DataFrame, *, exact: bool) -> Contents:
    """Contents of a Spark DataFrame with the benchmark columns."""
    if exact:
        return _exact(df.select(*SCHEMA.names).toArrow())
    row = df.agg(
        F.count(F.lit(1)).alias("count"),
        F.sum(F.col("id").cast("long")).alias("sum_id"),
        F.sum(F.col("salary").cast("long")).alias("sum_salary"),
        F.sum(F.col("id").cast("long") * F.col("salary")).alias("sum_id_salary"),
        F.sum(F.length("name")).alias("len_name"),
        F.sum(F.length("dept")).alias("len_dept"),
        F.min("name").alias("min_name"),
        F.max("name").alias("max_name"),
    ).first()
    return {k: (int(v) if isinstance(v, int) else v) for k, v in row.asDict().items()}


def of_arrow_batches(batches, *, exact: bool) -> Contents:
    """Contents of a stream of Arrow record batches (a delta-rs table), aggregated batch by batch."""
    if exact:
        return _exact(pa.Table.from_batches(list(batches)))
    acc: Contents = {"count": 0, "sum_id": 0, "sum_salary": 0, "sum_id_salary": 0, "len_name": 0, "len_dept": 0,
                     "min_name": None, "max_name": None}
    for batch in batches:
        if batch.num_rows == 0:
            continue
        ids = pc.cast(batch.column("id"), pa.int64())
        salary = pc.cast(batch.column("salary"), pa.int64())
        name = pc.cast(batch.column("name"), pa.string())
        acc["count"] += batch.num_rows
        acc["sum_id"] += pc.sum(ids).as_py()
        acc["sum_salary"] += pc.sum(salary).as_py()
        acc["sum_id_salary"] += pc.sum(pc.multiply(ids, salary)).as_py()
        acc["len_name"] += pc.sum(pc.utf8_length(name)).as_py()
        acc["len_dept"] += pc.sum(pc.utf8_length(pc.cast(batch.column("dept"), pa.string()))).as_py()
        lo, hi = pc.min_max(name).values()
        acc["min_name"] = lo.as_py() if acc["min_name"] is None else min(acc["min_name"], lo.as_py())
        acc["max_name"] = hi.as_py() if acc["max_name"] is None else max(acc["max_name"], hi.as_py())
    return acc


def summary(contents: Contents) -> Contents:
    """What to print of a contents value (the exact form would print every row)."""
    if "rows" in contents:
        return {"rows": len(contents["rows"])}
    return contents
