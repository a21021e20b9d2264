"""Result rows as text, in beeline's output formats: ``table``, ``vertical``, ``csv2``, ``tsv2``, ``json``.

Values are shown as Hive shows them: ``NULL`` for null (``--nullemptystring`` makes it empty, as in
beeline), ``true``/``false``, timestamps as ``yyyy-mm-dd hh:mm:ss[.f]``, and complex values in Hive's
JSON-like form (``{"writeid":1,"bucketid":536870912,"rowid":0}``, ``[1,2]``, ``{"k":"v"}``).

``csv2``/``tsv2`` quote a value only when it holds the delimiter, a quote or a line break (beeline's
SuperCSV writer).  ``json`` is beeline's ``{"resultset":[{...},...]}`` on one line, with numbers and
booleans as JSON numbers and booleans and every other type as a string; ``jsonfile`` (beeline 4) is one
object per line.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

FORMATS = ("table", "vertical", "csv2", "tsv2", "dsv", "json", "jsonfile")

_NUMBER_TYPES = ("ByteType", "ShortType", "IntegerType", "LongType", "FloatType", "DoubleType", "DecimalType")


def hive_string(value: Any, null: str = "NULL") -> str:
    """A top-level value as the Hive CLI prints it."""
    if value is None:
        return null
    if isinstance(value, str):
        return value
    return _nested(value)


def _nested(value: Any) -> str:
    """A value inside a complex one (strings quoted, nulls as ``null``), or a scalar at the top."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, dt.datetime):
        text = value.replace(tzinfo=None).isoformat(sep=" ")
        return text.rstrip("0").rstrip(".") if "." in text else text
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if hasattr(value, "asDict"):  # a Spark Row: a struct
        return "{" + ",".join(f"{json.dumps(k)}:{_nested(v)}" for k, v in value.asDict().items()) + "}"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_nested(k) if not isinstance(k, str) else json.dumps(k)}:{_nested(v)}"
                              for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_nested(v) for v in value) + "]"
    return str(value)


def render(fmt: str, columns: Sequence[str], types: Sequence[str], rows: Sequence[Sequence[Any]], *,
           header: bool = True, null: str = "NULL", delimiter: str = "|") -> str:
    """The text for one result (ending with a newline unless it is empty).

    ``types`` are Spark type names (``IntegerType`` ...), used by the JSON formats only.
    """
    if fmt in ("json", "jsonfile"):
        objects = [_json_object(columns, types, row) for row in rows]
        if fmt == "jsonfile":
            return "".join(obj + "\n" for obj in objects)
        return '{"resultset":[' + ",".join(objects) + "]}\n"
    cells = [[hive_string(v, null) for v in row] for row in rows]
    if fmt == "table":
        return _table(list(columns), cells, header)
    if fmt == "vertical":
        return _vertical(list(columns), cells)
    sep = {"csv2": ",", "tsv2": "\t", "dsv": delimiter}[fmt]
    out = io.StringIO()
    writer = csv.writer(out, delimiter=sep, quotechar='"', lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    if header:
        writer.writerow(columns)
    writer.writerows(cells)
    return out.getvalue()


def _table(columns: list[str], cells: list[list[str]], header: bool) -> str:
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+\n"

    def line(values: Sequence[str]) -> str:
        return "|" + "|".join(f" {v.ljust(w)} " for v, w in zip(values, widths, strict=True)) + "|\n"

    parts = [rule, line(columns), rule] if header else [rule]
    parts += [line(row) for row in cells]
    parts.append(rule)
    return "".join(parts)


def _vertical(columns: list[str], cells: list[list[str]]) -> str:
    width = max((len(c) for c in columns), default=0)
    blocks = ["".join(f"{c.ljust(width)}  {v}\n" for c, v in zip(columns, row, strict=True)) for row in cells]
    return "\n".join(blocks)


def _json_object(columns: Sequence[str], types: Sequence[str], row: Sequence[Any]) -> str:
    fields = []
    for name, kind, value in zip(columns, types, row, strict=True):
        fields.append(f"{json.dumps(name, ensure_ascii=False)}:{_json_value(kind, value)}")
    return "{" + ",".join(fields) + "}"


def _json_value(kind: str, value: Any) -> str:
    if value is None:
        return "null"
    if kind == "BooleanType":
        return "true" if value else "false"
    if kind in _NUMBER_TYPES and not (isinstance(value, float) and not math.isfinite(value)):
        return format(value, "f") if isinstance(value, Decimal) else str(value)
    return json.dumps(hive_string(value), ensure_ascii=False)
