"""Notebook variables in SQL text: ``{{var}}`` pastes text, ``:var`` binds a value as a SQL literal.

These are jupysql's conventions. ``:var`` is replaced only outside quoted text and comments, only when
not glued to a word or another ``:`` (so ``struct<a:int>``, ``${hivevar:x}`` and ``::`` stay as they are),
and only for names the notebook defines; a value becomes a Hive literal: strings quoted with Hive's
backslash escapes, ``None`` as ``NULL``, dates and datetimes typed, lists and tuples as ``(a, b, c)``
for ``IN :ids``.  ``{{var}}`` is plain text (a table name, a column list) and must be defined.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from hiveacid_sql.errors import HiveAcidError

_TEMPLATE = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")
_PARAM = re.compile(r"(?<![\w:]):([A-Za-z_]\w*)")


class ParameterError(HiveAcidError):
    """A ``{{var}}`` the notebook does not define, or a value with no SQL literal."""


def substitute(sql: str, namespace: Mapping[str, Any]) -> str:
    """``sql`` with ``{{var}}`` pasted and ``:var`` bound from ``namespace``."""
    return bind(paste(sql, namespace), namespace)


def paste(text: str, namespace: Mapping[str, Any]) -> str:
    """``text`` with every ``{{var}}`` replaced by the variable's text (also used on the magic's options)."""

    def template(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in namespace:
            raise ParameterError(f"{{{{{name}}}}} is not defined in the notebook")
        return str(namespace[name])

    return _TEMPLATE.sub(template, text)


def bind(sql: str, namespace: Mapping[str, Any]) -> str:
    """``sql`` with every ``:var`` outside quoted text and comments replaced by the value's literal."""
    out: list[str] = []
    for code, text in _segments(sql):
        out.append(_PARAM.sub(lambda m: _bind(m, namespace), text) if code else text)
    return "".join(out)


def literal(value: Any) -> str:
    """A Python value as a Hive SQL literal."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ParameterError(f"{value!r} has no SQL literal")
        return repr(value)
    if isinstance(value, Decimal):
        return format(value, "f") + "BD"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value.replace(tzinfo=None).isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        if not items:
            raise ParameterError("an empty list has no SQL literal")
        return "(" + ", ".join(literal(v) for v in items) + ")"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    raise ParameterError(f"a {type(value).__name__} has no SQL literal")


def _bind(match: re.Match[str], namespace: Mapping[str, Any]) -> str:
    name = match.group(1)
    return literal(namespace[name]) if name in namespace else match.group(0)


def _segments(sql: str) -> list[tuple[bool, str]]:
    """``sql`` cut into (is code, text) pieces: quoted text and comments are not code."""
    pieces: list[tuple[bool, str]] = []
    start = i = 0
    n = len(sql)
    while i < n:
        ch = sql[i]
        end = -1
        if ch in "'\"`":
            j = i + 1
            while j < n and sql[j] != ch:
                j += 2 if sql[j] == "\\" and ch != "`" else 1
            end = min(j + 1, n)
        elif sql.startswith("--", i):
            j = sql.find("\n", i)
            end = n if j < 0 else j
        elif sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            end = n if j < 0 else j + 2
        if end < 0:
            i += 1
            continue
        pieces.append((True, sql[start:i]))
        pieces.append((False, sql[i:end]))
        start = i = end
    pieces.append((True, sql[start:]))
    return pieces
