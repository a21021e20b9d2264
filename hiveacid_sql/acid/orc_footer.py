"""What a reader needs from an ORC file before reading it: row count, schema, user metadata, and whether
its dates and timestamps may reach back before the Gregorian calendar.

Only the file tail is read, so choosing and grouping files stays cheap on the driver.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow.fs as pafs
import pyorc

from hiveacid_sql.errors import AcidFormatError

#: From this day on the hybrid Julian/Gregorian and the proleptic Gregorian calendars agree
#: (1582-10-15, the Gregorian cut-over), with a margin for the coarse timestamp statistics
#: (milliseconds, ORC C++ rounds them) and for Spark's per-zone rebase tables.
GREGORIAN_SAFE_FROM = dt.date(1583, 1, 1)

_TEMPORAL = frozenset({pyorc.TypeKind.DATE, pyorc.TypeKind.TIMESTAMP, pyorc.TypeKind.TIMESTAMP_INSTANT})


@dataclass(frozen=True)
class OrcFooter:
    """The parts of an ORC footer the scan and the dumper use.

    ``pre_gregorian``: a date or timestamp column (at any depth) may hold a value before 1583, where the
    calendar a reader assumes changes the value (its statistics say so, or it has no usable statistics).
    Files without such values can be read by Spark's ORC reader as they are; the others need the exact
    path of :mod:`hiveacid_sql.exec.columns`.
    """

    path: str
    num_rows: int
    type_string: str
    metadata: dict[str, bytes]
    num_stripes: int
    pre_gregorian: bool = False


def read_footer(fs: pafs.FileSystem, path: str) -> OrcFooter:
    """Read the footer of ``path`` on ``fs``; a file that is not ORC is an :class:`AcidFormatError`."""
    try:
        with fs.open_input_file(path) as f:
            reader = pyorc.Reader(f)
            return OrcFooter(
                path=path,
                num_rows=len(reader),
                type_string=str(reader.schema),
                metadata=dict(reader.user_metadata),
                num_stripes=reader.num_of_stripes,
                pre_gregorian=_may_hold_pre_gregorian(reader),
            )
    except (pyorc.ParseError, OSError) as exc:
        raise AcidFormatError(f"cannot read ORC file {path}: {exc}") from exc


def _temporal_column_ids(td: pyorc.TypeDescription) -> Iterator[int]:
    if td.kind in _TEMPORAL:
        yield td.column_id
    elif td.kind == pyorc.TypeKind.STRUCT:
        for child in td.fields.values():
            yield from _temporal_column_ids(child)
    elif td.kind == pyorc.TypeKind.LIST:
        yield from _temporal_column_ids(td.type)
    elif td.kind == pyorc.TypeKind.MAP:
        yield from _temporal_column_ids(td.key)
        yield from _temporal_column_ids(td.value)
    elif td.kind == pyorc.TypeKind.UNION:
        for child in td.cont_types:
            yield from _temporal_column_ids(child)


def _may_hold_pre_gregorian(reader: pyorc.Reader) -> bool:
    """Whether any date/timestamp column's file statistics reach before :data:`GREGORIAN_SAFE_FROM`."""
    for column_id in _temporal_column_ids(reader.schema):
        try:
            stats = reader[column_id].statistics
            if not stats.get("number_of_values"):
                continue
            low = stats["minimum"]
        except (KeyError, ValueError, OverflowError, pyorc.ParseError):
            return True  # no statistics, or a minimum Python cannot even represent (before year 1)
        low_date = low.date() if isinstance(low, dt.datetime) else low
        if low is None or low_date < GREGORIAN_SAFE_FROM:
            return True
    return False
