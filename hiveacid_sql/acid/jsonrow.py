"""Hive's ``JsonSerDe`` row format (``org.apache.hadoop.hive.serde2.JsonSerDe``, and hcatalog's
``org.apache.hive.hcatalog.data.JsonSerDe`` that delegates to it in Hive 3): one JSON object per line.

Reading follows ``HiveJsonStructReader``: keys name columns without regard to case, keys that are no column
are ignored, a missing key or ``null`` is NULL, and a primitive column takes the value's text (a JSON string
or the number or boolean as written) cast as Hive casts a string. A blank line is a row of NULLs. Writing
(``JsonSerDe.serialize``) gives every column, in order, ``null`` included: ``{"id":1,"s":"a"}``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

#: The serde class we record, and the class names a metastore may hold for the same format.
SERDE_CLASS = "org.apache.hadoop.hive.serde2.JsonSerDe"
SERDE_CLASSES = frozenset({SERDE_CLASS, "org.apache.hive.hcatalog.data.JsonSerDe"})


class JsonRowError(ValueError):
    """A line that is not one JSON object (Hive fails the query on it too)."""


def json_fields(
    line: str, names: Sequence[str], complex_columns: Sequence[bool], timestamp_columns: Sequence[bool] = (),
    timestamp_formats: str | None = None,
) -> list[str | None]:
    """Each column's text in one JSON row: a primitive's text (a number as written, ``true`` / ``false``),
    a complex column's JSON text (parsed by its type afterwards); None for a missing key or ``null``. With
    ``timestamp_formats`` (the table's ``timestamp.formats``), the text of each ``timestamp_columns`` column a
    format takes becomes Hive's default timestamp text (:mod:`hiveacid_sql.acid.timestamp_formats`)."""
    out = _json_fields(line, names, complex_columns)
    if timestamp_formats:
        from hiveacid_sql.acid.timestamp_formats import parser_of

        parser = parser_of(timestamp_formats)
        out = [parser.normalize(v) if ts else v for v, ts in zip(out, timestamp_columns, strict=True)]
    return out


def _json_fields(line: str, names: Sequence[str], complex_columns: Sequence[bool]) -> list[str | None]:
    if not line.strip():
        return [None] * len(names)
    try:
        obj = json.loads(line, parse_float=str, parse_int=str)
    except ValueError as exc:
        raise JsonRowError(f"JsonSerDe: a row is not a JSON object ({exc}): {line[:80]!r}") from None
    if not isinstance(obj, dict):
        raise JsonRowError(f"JsonSerDe: a row is not a JSON object: {line[:80]!r}")
    lowered = {str(k).lower(): v for k, v in obj.items()}
    # complex values keep their numbers as numbers (their type parses them); primitives take the text
    typed = {str(k).lower(): v for k, v in json.loads(line).items()} if any(complex_columns) else {}
    out: list[str | None] = []
    for name, is_complex in zip(names, complex_columns, strict=True):
        value = lowered.get(name.lower())
        if value is None:
            out.append(None)
        elif is_complex:
            out.append(json.dumps(typed[name.lower()]))
        elif isinstance(value, list | dict):
            out.append(json.dumps(value))
        elif isinstance(value, bool):
            out.append("true" if value else "false")
        else:
            out.append(str(value))
    return out
