"""Scenario 8: the whole table into a ``pyarrow.Table`` with ``hiveacid_sql.read_table`` (no Spark).

Two states of the same table: ``arrow_read_loaded`` right after the load (one insert delta, no delete), and
``arrow_read_after_dml`` after scenario 4's 10 DML statements (5 insert deltas and 10 delete deltas over it,
1% of the rows deleted). The peer is pyarrow itself reading the same live rows stored as plain ORC
(``pyarrow.dataset``, multi-threaded), i.e. what the ACID layer costs on top of reading ORC. Both read every
column; only Python and Arrow run (the Spark session of the worker only builds the data, once).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds

from benchmarks import contents
from benchmarks.data import TABLE, ensure_base
from benchmarks.scenarios.base import OURS, Contender, Scenario, register
from benchmarks.scenarios.common import AcidTable
from benchmarks.scenarios.scan import STATE, ensure_after_dml

PEER = "pyarrow-orc"


def read_plain_orc(path: Path) -> pa.Table:
    """pyarrow reading a directory of plain ORC files (Spark's ``part-*.orc``) into one table."""
    return ds.dataset(str(path), format="orc", exclude_invalid_files=True).to_table()


class _ArrowRead(Scenario):
    """Ours: ``read_table`` by name (store lookup, snapshot, read lease included); peer: pyarrow on plain ORC."""

    def plain_rows(self) -> Path:
        raise NotImplementedError

    def setup(self) -> None:
        self.plain = self.plain_rows()
        self.tables: dict[str, pa.Table] = {}

    def run_ours(self) -> None:
        import hiveacid_sql

        self.tables[OURS] = hiveacid_sql.read_table(TABLE, warehouse=self.ctx.data.acid_warehouse)

    def run_peer(self) -> None:
        self.tables[PEER] = read_plain_orc(self.plain)

    def _contents(self, name: str) -> dict:
        table = self.tables[name]
        return contents.of_arrow_batches(table.to_batches(), exact=self.ctx.exact)

    def contenders(self) -> list[Contender]:
        return [
            Contender(OURS, run=self.run_ours, contents=lambda: self._contents(OURS)),
            Contender(PEER, run=self.run_peer, contents=lambda: self._contents(PEER)),
        ]

    def close(self) -> None:
        self.tables.clear()


@register
class ArrowReadLoaded(_ArrowRead):
    name = "arrow_read_loaded"
    title = "8a. read_table (pyarrow, no Spark) of the loaded table"

    def plain_rows(self) -> Path:
        ensure_base(self.ctx.spark, self.ctx.data)
        self.ctx.data.restore("base", "acid")
        return self.ctx.data.plain


@register
class ArrowReadAfterDml(_ArrowRead):
    name = "arrow_read_after_dml"
    title = "8b. read_table (pyarrow, no Spark) after 10 DML statements"

    def plain_rows(self) -> Path:
        acid = AcidTable(self.ctx.spark, self.ctx.data)
        plain_live = ensure_after_dml(self.ctx.spark, self.ctx.data, acid)
        self.ctx.data.restore(STATE, "acid")
        return plain_live
