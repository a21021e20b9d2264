"""Benchmark data: generated once per table size, kept on disk, restored before every destructive run.

Layout under ``<data dir>/rows-<N>/``:

* ``plain/``: the rows as plain ORC files written by Spark: the plain-Spark peer's input, and the source
  our ACID table and the delta-rs table are loaded from (so all three hold the same rows).
* ``golden/<state>/{acid,delta}``: frozen copies of a table state (``base``: the freshly loaded table;
  scenarios add their own, e.g. the table after 10 DML statements).
* ``work/{acid,delta}``: where runs happen. Our catalog records absolute table locations, so every state
  of one size is built and used at this same path, and "restore" means: delete ``work/<table>``, copy the
  frozen state of that table back into it.

Restoring is a hard-link copy: ACID event files, delta-rs parquet files and ORC files are never changed
once written (every statement writes new files), so the data files are linked, not copied, and a restore
of a 10-million-row table costs milliseconds. Files that *are* changed in place are copied for real: the
SQLite transaction store (``.hiveacid/``), the delta log (``_delta_log/``) and anything small (markers).
Each repeat of a destructive scenario therefore starts from byte-identical files, and restores are never
inside a timed region.

Rows: ``id`` = 0..N-1 (int), ``name`` = ``'name_<id>'``, ``salary`` = 1000 + (id * 7919) % 9000,
``dept`` = one of 10 department names, by ``id % 10``; deterministic, so every size is reproducible.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

# Bump when the generated rows or layout change: cached data of another version is rebuilt.
DATA_VERSION = 1
ROWS_PER_PLAIN_FILE = 2_500_000
TABLE = "employee"
COLUMNS_DDL = "id int, name string, salary int, dept string"
DEPTS = ("eng", "ops", "sales", "hr", "legal", "finance", "it", "support", "research", "admin")
_COPY_ALWAYS = (".hiveacid", "_delta_log")  # files changed in place: never share them between states
_LINK_MIN_BYTES = 64 * 1024


def _link_or_copy(src: str, dst: str) -> str:
    """Hard-link immutable data files, copy mutable and small files (see the module docstring)."""
    parts = Path(src).parts
    if any(p in _COPY_ALWAYS for p in parts) or os.path.getsize(src) < _LINK_MIN_BYTES:
        return shutil.copy2(src, dst)
    os.link(src, dst)
    return dst


def _copy_tree(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, copy_function=_link_or_copy)


@dataclass(frozen=True)
class DataSet:
    """All the files of one table size."""

    root: Path
    rows: int

    @property
    def plain(self) -> Path:
        return self.root / "plain"

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def acid_warehouse(self) -> Path:
        return self.work / "acid"

    @property
    def delta_table(self) -> Path:
        return self.work / "delta"

    @property
    def plain_out(self) -> Path:
        """Where the plain-Spark peer writes its rewritten table."""
        return self.work / "plain_out"

    def golden(self, state: str) -> Path:
        return self.root / "golden" / state

    def has_state(self, state: str) -> bool:
        marker = self.golden(state) / "COMPLETE"
        return marker.is_file() and json.loads(marker.read_text()).get("version") == DATA_VERSION

    def freeze(self, state: str) -> None:
        """Keep the current ``work/`` tables as ``state``."""
        target = self.golden(state)
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for name in ("acid", "delta"):
            if (self.work / name).exists():
                _copy_tree(self.work / name, target / name)
        (target / "COMPLETE").write_text(json.dumps({"version": DATA_VERSION, "rows": self.rows}))

    def restore(self, state: str, part: str) -> None:
        """Put table ``part`` (``acid`` or ``delta``) of ``state`` back into ``work/`` (untimed; the start
        of every destructive run). Each contender restores only its own table, so the final tables of all
        contenders are still there for the contents check after the last run."""
        target = self.work / part
        if target.exists():
            shutil.rmtree(target)
        self.work.mkdir(parents=True, exist_ok=True)
        if (self.golden(state) / part).exists():
            _copy_tree(self.golden(state) / part, target)

    def ensure_state(self, state: str, build: Callable[[], None], *, after: str | None = None) -> None:
        """Build ``state`` once (starting from state ``after`` when given) and freeze it."""
        if self.has_state(state):
            return
        if self.work.exists():
            shutil.rmtree(self.work)
        if after is not None:
            for part in ("acid", "delta"):
                self.restore(after, part)
        build()
        self.freeze(state)


def dataset(data_dir: Path, rows: int) -> DataSet:
    return DataSet(Path(data_dir) / f"rows-{rows}", rows)


def generate_rows(spark: SparkSession, rows: int):
    """The benchmark rows as a Spark DataFrame (deterministic, no Python per row)."""
    files = max(1, math.ceil(rows / ROWS_PER_PLAIN_FILE))
    depts = F.array(*[F.lit(d) for d in DEPTS])
    return spark.range(0, rows, numPartitions=files).select(
        F.col("id").cast("int").alias("id"),
        F.concat(F.lit("name_"), F.col("id").cast("string")).alias("name"),
        (F.lit(1000) + (F.col("id") * 7919) % 9000).cast("int").alias("salary"),
        F.element_at(depts, (F.col("id") % len(DEPTS) + 1).cast("int")).alias("dept"),
    )


def ensure_base(spark: SparkSession, data: DataSet) -> None:
    """Generate the plain ORC rows and load them into our ACID table and a delta-rs table (once per size)."""
    if data.has_state("base"):
        return

    def build() -> None:
        if data.plain.exists():
            shutil.rmtree(data.plain)
        generate_rows(spark, data.rows).write.orc(str(data.plain))
        _load_acid(spark, data)
        _load_delta(data)

    data.ensure_state("base", build)


def _load_acid(spark: SparkSession, data: DataSet) -> None:
    """Load through our own INSERT ... SELECT, so the table is laid out exactly as a user's would be."""
    import hiveacid_sql

    with hiveacid_sql.connect(spark=spark, warehouse=data.acid_warehouse) as acid:
        acid.sql(f"CREATE TABLE {TABLE} ({COLUMNS_DDL}) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
        acid.sql(f"CREATE EXTERNAL TABLE bench_source ({COLUMNS_DDL}) STORED AS ORC LOCATION '{data.plain}'")
        acid.sql(f"INSERT INTO {TABLE} SELECT * FROM bench_source")


def _load_delta(data: DataSet) -> None:
    """delta-rs writes the same rows, streamed from the plain ORC files (never all in memory)."""
    import pyarrow.dataset as ds
    from deltalake import write_deltalake

    source = ds.dataset(str(data.plain), format="orc", exclude_invalid_files=True)
    write_deltalake(str(data.delta_table), source.scanner().to_reader(), mode="error")
