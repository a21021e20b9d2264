"""Events per second of the two ACID event writers, on the employee rows of issue 8.

    python benchmarks/event_writers.py [--rows 1000000] [--repeat 3]

Writes one insert file of ``(id int, name string, salary int, dept string)`` rows and one delete file of as
many events, in Arrow batches of 10 000 events (Spark's ``maxRecordsPerBatch``), through a ``pyarrow.fs``
output stream as the Spark tasks do, with the pyorc writer's ``write_batch`` and the Arrow writer's
``write_batch`` (the pyorc per-event API measured in RESULTS.md is gone: the tasks never used it again). Prints the median wall and CPU seconds,
events/s and file sizes. Standalone on purpose: the benchmark harness of issue 8 can import ``measure``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.fs as pafs

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.orc_fast_writer import FastAcidEventWriter
from hiveacid_sql.acid.orc_writer import AcidEventWriter

COLUMNS = [(n, parse_hive_type(t)) for n, t in (("id", "int"), ("name", "string"), ("salary", "int"), ("dept", "string"))]
BUCKET_0 = 1 << 29
BATCH = 10_000


def employee_events(rows: int) -> tuple[pa.Table, pa.Table]:
    """Insert events (write id 5) and delete events (of write id 5's rows, by write id 6)."""
    ids = np.arange(rows, dtype=np.int32)
    row = pa.StructArray.from_arrays(
        [
            pa.array(ids),
            pa.array([f"employee-{i:08d}" for i in range(rows)]),
            pa.array(3000 + (ids * 7919) % 9000),
            pa.array([f"dept-{i % 40:02d}" for i in range(rows)]),
        ],
        names=["id", "name", "salary", "dept"],
    )

    def events(op: int, current: int, row_col: pa.Array) -> pa.Table:
        return pa.table(
            {
                "operation": pa.array(np.full(rows, op, np.int32)),
                "originalTransaction": pa.array(np.full(rows, 5, np.int64)),
                "bucket": pa.array(np.full(rows, BUCKET_0, np.int32)),
                "rowId": pa.array(np.arange(rows, dtype=np.int64)),
                "currentTransaction": pa.array(np.full(rows, current, np.int64)),
                "row": row_col,
            }
        )

    return events(0, 5, row), events(2, 6, pa.nulls(rows, row.type))


def _batches(writer, events: pa.Table) -> None:
    for batch in events.to_batches(BATCH):
        writer.write_batch(batch)


WRITERS: dict[str, tuple[Callable, Callable]] = {
    "pyorc write_batch": (AcidEventWriter, _batches),
    "arrow write_batch": (FastAcidEventWriter, _batches),
}


def measure(name: str, events: pa.Table, path: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, file bytes) of writing ``events`` to ``path`` with writer ``name``."""
    make, feed = WRITERS[name]
    fs = pafs.LocalFileSystem()
    wall, cpu = time.perf_counter(), time.process_time()
    with fs.open_output_stream(str(path)) as out:
        writer = make(out, COLUMNS, path=str(path))
        feed(writer, events)
        writer.close()
    return time.perf_counter() - wall, time.process_time() - cpu, path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    inserts, deletes = employee_events(args.rows)
    print(f"{args.rows:,} events, median of {args.repeat} runs")
    print(f"{'file':8} {'writer':20} {'wall s':>8} {'cpu s':>8} {'events/s':>12} {'bytes':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for kind, events in (("insert", inserts), ("delete", deletes)):
            for name in WRITERS:
                runs = [measure(name, events, Path(tmp) / f"{kind}-{i}") for i in range(args.repeat)]
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                print(f"{kind:8} {name:20} {wall:8.2f} {cpu:8.2f} {args.rows / wall:12,.0f} {runs[0][2]:12,}")


if __name__ == "__main__":
    main()
