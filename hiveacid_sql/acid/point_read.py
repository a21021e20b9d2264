"""The insert events of an event file's row groups that integer conditions may match, read on the driver.

Why: a point statement on a large table (``UPDATE .. WHERE id = 7`` of 1 M rows) needs the rows of one
10,000-row group of one file; Spark's reader launches a job for them, which costs more than the read. ORC's
own search argument (ORC C++ through pyorc's ``predicate=``, the same row-group statistics Spark's reader is
given by :mod:`hiveacid_sql.exec.sarg`) picks the stripes and row groups here, and only their rows are
decoded. What is returned is every insert event of those row groups: the caller applies the statement's full
condition to them (a row group is skipped only when its statistics exclude every row the statement keeps).

What ORC C++ does with a search argument, checked on event files (``tests/unit/test_acid_point_read.py``):

* a leaf's column name is looked up depth first over every struct's field names, ``operation`` ..
  ``row`` first, so a bare ``id`` finds ``row.id`` (``row.id`` itself matches nothing and reads all). So a
  condition is used only when its field's name occurs once in the file's schema (case-insensitively); a
  table column called ``bucket`` or ``row`` gets none;
* NULLs satisfy no comparison; a row group of NULLs only is skipped for ``=``/``<``/...; row groups with
  some NULLs are kept when their min/max allow a match.

Only files whose values pyorc's Python objects give exactly as the Spark scan does are read here (plain
types written with the table's types: :func:`~hiveacid_sql.acid.small_events.insert_events_readable`);
the caller checks that. This layer knows nothing of SQL or Spark.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyorc
from pyorc.predicates import PredicateColumn

from hiveacid_sql.acid.arrow_scan import BUCKET, OP_INSERT, OWID, ROWID, Columns, valid_write_id_mask
from hiveacid_sql.acid.arrow_values import arrow_type
from hiveacid_sql.acid.hive_types import HiveType, parse_hive_type
from hiveacid_sql.acid.orc_footer import OrcFooter
from hiveacid_sql.acid.writeids import ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError

_KINDS = {
    "tinyint": pyorc.TypeKind.BYTE,
    "smallint": pyorc.TypeKind.SHORT,
    "int": pyorc.TypeKind.INT,
    "bigint": pyorc.TypeKind.LONG,
}
_INT64 = (-(1 << 63), (1 << 63) - 1)
#: Rows decoded per call of pyorc's reader: a row group's worth, so going over the bound costs one more at most.
_CHUNK = 10_000


@dataclass(frozen=True)
class IntCondition:
    """``row`` field at ``position`` (table column i is physical field i) ``op`` ``values``: ``=``, ``in``,
    ``<``, ``<=``, ``>``, ``>=``. Every row the caller keeps satisfies it."""

    position: int
    op: str
    values: tuple[int, ...]

    @property
    def usable(self) -> bool:
        """Whether it has values, each a bigint (a literal beyond bigint filters nothing here)."""
        return bool(self.values) and all(_INT64[0] <= v <= _INT64[1] for v in self.values)


def _field_names(t: HiveType) -> list[str]:
    out: list[str] = []
    for child in t.children:
        if isinstance(child, tuple):
            out.append(child[0].lower())
            out += _field_names(child[1])
        else:
            out += _field_names(child)
    return out


def search_argument(
    footer: OrcFooter, table_columns: Columns, conditions: Sequence[IntCondition]
) -> pyorc.predicates.Predicate | None:
    """ORC's search argument for the conditions usable on this event file (None: none is): fields of an
    integral type that is the table column's, whose names ORC C++ resolves to the ``row`` field itself."""
    root = parse_hive_type(footer.type_string)
    if root.name != "struct" or len(root.fields) != 6 or root.fields[5][1].name != "struct":
        return None
    physical = root.fields[5][1].fields
    names = _field_names(root)
    out = None
    for c in conditions:
        if c.position >= len(physical) or c.position >= len(table_columns):
            continue
        name, ptype = physical[c.position]
        if (
            ptype.name not in _KINDS
            or ptype.name != table_columns[c.position][1].name
            or names.count(name.lower()) != 1
        ):
            continue
        if not c.usable:
            continue
        col = PredicateColumn(_KINDS[ptype.name], name)
        if c.op in ("=", "in"):
            leaf = col == c.values[0]
            for v in c.values[1:]:
                leaf = leaf | (col == v)
        else:
            v = c.values[0]
            leaf = {"<": col < v, "<=": col <= v, ">": col > v, ">=": col >= v}[c.op]
        out = leaf if out is None else out & leaf
    return out


def estimated_rows(footer: OrcFooter, conditions: Sequence[IntCondition]) -> float:
    """The rows of an event file that ``conditions`` would keep if each field's values were spread evenly over
    its footer's [min, max] (:attr:`~hiveacid_sql.acid.orc_footer.OrcFooter.int_ranges`), by the narrowest
    condition alone (a field without them: every row). A guess, to leave a statement whose ranges cover most
    of a file (a MERGE's source key range) to Spark before decoding anything; the bound that counts is the one
    on the rows decoded."""
    ranges = dict(footer.int_ranges)
    fraction = 1.0
    for c in conditions:
        if c.position not in ranges:
            continue
        span = ranges[c.position]
        if span is None:
            return 0.0
        low, high = span
        width = high - low + 1
        if c.op in ("=", "in"):
            covered = sum(1 for v in set(c.values) if low <= v <= high)
        else:
            v = c.values[0]
            lo, hi = {"<": (low, v - 1), "<=": (low, v), ">": (v + 1, high), ">=": (v, high)}[c.op]
            covered = max(0, min(hi, high) - max(lo, low) + 1)
        fraction = min(fraction, covered / width)
    return footer.num_rows * fraction


def point_events(
    fs: pafs.FileSystem,
    footer: OrcFooter,
    table_columns: Columns,
    predicate: pyorc.predicates.Predicate,
    write_ids: ValidWriteIdList | None,
    max_rows: int,
) -> tuple[pa.Table, int] | None:
    """The insert events valid in ``write_ids`` (None: all) of the row groups ``predicate`` (from
    :func:`search_argument`) keeps: ``__owid, __bucket, __rowid``, then every table column as the table's
    Arrow type (a column the file predates: NULL); and the number of events decoded. None when those row
    groups hold more than ``max_rows`` events (decoding stops there)."""
    root = parse_hive_type(footer.type_string)
    physical = root.fields[5][1].fields
    rows: list[tuple] = []
    try:
        with fs.open_input_file(footer.path) as f:
            reader = pyorc.Reader(f, predicate=predicate, struct_repr=pyorc.StructRepr.TUPLE)
            while True:
                chunk = reader.read(_CHUNK)
                if not chunk:
                    break
                rows += chunk
                if len(rows) > max_rows:
                    return None
    except (pyorc.ParseError, OSError) as exc:
        raise AcidFormatError(f"cannot read ORC file {footer.path}: {exc}") from exc
    except (ValueError, OverflowError):  # a value pyorc cannot give as a Python object (a year past 9999)
        return None
    try:
        return _events(rows, len(physical), table_columns, write_ids)
    except (ValueError, OverflowError, pa.ArrowException):  # a value Python or Arrow cannot hold: Spark's scan
        return None


def _events(
    rows: list[tuple], n_physical: int, table_columns: Columns, write_ids: ValidWriteIdList | None
) -> tuple[pa.Table, int]:
    n = len(rows)
    if n:
        op, owid, bucket, rowid, cwid, row = zip(*rows, strict=True)
    else:
        op = owid = bucket = rowid = cwid = row = ()
    keep = pc.and_(
        pc.equal(pa.array(op, pa.int32()), OP_INSERT), pa.array([r is not None for r in row], pa.bool_())
    )
    out: dict[str, pa.Array] = {
        OWID: pa.array(owid, pa.int64()),
        BUCKET: pa.array(bucket, pa.int32()),
        ROWID: pa.array(rowid, pa.int64()),
    }
    values = (
        list(zip(*[r if r is not None else (None,) * n_physical for r in row], strict=True)) if n else []
    )
    for i, (name, htype) in enumerate(table_columns):
        target = arrow_type(htype)
        out[name] = pa.array(values[i], target) if i < n_physical and n else pa.nulls(n, target)
    table = pa.table(out)
    valid = (
        valid_write_id_mask(pa.chunked_array([pa.array(cwid, pa.int64())]), write_ids)
        if write_ids is not None and n
        else None
    )
    if valid is not None:
        keep = pc.and_(keep, valid.combine_chunks())
    return (table if n == 0 or pc.all(keep).as_py() else table.filter(keep)), n


def satisfying(events: pa.Table, table_columns: Columns, conditions: Sequence[IntCondition]) -> pa.Table:
    """The events whose integral table columns satisfy ``conditions`` (NULL satisfies none): a key filter is a
    conjunct of the statement's WHERE, so a row failing it is one the statement drops anyway, and the row
    groups' other rows need not reach Spark (10,000 rows handed over and filtered there for a one-row UPDATE)."""
    mask = None
    for c in conditions:
        name, htype = table_columns[c.position]
        if htype.name not in _KINDS or not c.usable:
            continue
        col = events.column(name).cast(pa.int64())
        if c.op in ("=", "in"):
            hit = pc.is_in(col, value_set=pa.array(c.values, pa.int64()))
            hit = pc.and_(hit, pc.is_valid(col))
        else:
            hit = {"<": pc.less, "<=": pc.less_equal, ">": pc.greater, ">=": pc.greater_equal}[c.op](col, c.values[0])
        mask = hit if mask is None else pc.and_(mask, hit)
    return events if mask is None else events.filter(pc.fill_null(mask, False))
