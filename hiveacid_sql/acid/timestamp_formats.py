"""Hive 3.1's ``TimestampParser`` (``org.apache.hive.common.util``): the ``timestamp.formats`` serde property of
``JsonSerDe`` (and LazySimpleSerDe).

Why: a JSON file from another system often holds timestamps as ``2024-01-02T03:04:05Z`` or epoch
milliseconds; Hive 3.1 reads them through this property. Its value is a comma-separated list of Joda-Time
patterns (``\\,`` for a comma inside one; ``HiveStringUtils.splitAndUnEscape``) and the word ``millis``
(milliseconds since the epoch, a fraction dropped). A text is parsed by the first pattern that takes all of it,
in UTC with 1970-01-01 00:00:00.000 for the fields the pattern lacks (a zone in the text moves the value to
UTC), to milliseconds; a text no pattern takes is left to Hive's default timestamp text (``Timestamp.valueOf``).

Patterns of the letters Joda parses for a timestamp are supported: ``y``/``Y``, ``M`` (numbers; ``MMM`` and
longer: English month names), ``d``, ``H``, ``k``, ``h`` with ``a``, ``m``, ``s``, ``S`` (fraction), ``Z``
(offset or ``Z``), ``E`` (day name, not checked), quoted literals and other characters as themselves. Other
letters (time zone names, week dates, ..) are refused where the table is created.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

#: The serde property (``serdeConstants.TIMESTAMP_FORMATS``).
PROPERTY = "timestamp.formats"
MILLIS = "millis"
_EPOCH = datetime.datetime(1970, 1, 1)
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMERIC = frozenset("yYdHkhmsM")


class TimestampFormatError(ValueError):
    """A ``timestamp.formats`` pattern this parser cannot follow."""


def split_formats(value: str) -> list[str]:
    """``HiveStringUtils.splitAndUnEscape``: the patterns of the property, split at commas not escaped by a
    backslash, the escapes then removed."""
    out, current, escaped = [], [], False
    for ch in value:
        if escaped:
            current.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            out.append("".join(current))
            current = []
        else:
            current.append(ch)
    out.append("".join(current))
    return out


def _tokens(pattern: str) -> list[tuple[str, int] | str]:
    """A Joda pattern as (letter, count) fields and literal strings."""
    out: list[tuple[str, int] | str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "'":
            end = pattern.find("'", i + 1)
            if end == i + 1:  # '' is a quote
                out.append("'")
                i += 2
                continue
            if end < 0:
                raise TimestampFormatError(f"unterminated quote in timestamp format {pattern!r}")
            out.append(pattern[i + 1:end].replace("''", "'"))
            i = end + 1
        elif ch.isalpha():
            j = i
            while j < len(pattern) and pattern[j] == ch:
                j += 1
            out.append((ch, j - i))
            i = j
        else:
            out.append(ch)
            i += 1
    return out


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    fields: tuple[str, ...]


def _compile(pattern: str) -> _Pattern:
    tokens = _tokens(pattern)
    parts, fields = [], []
    for i, tok in enumerate(tokens):
        if isinstance(tok, str):
            parts.append(re.escape(tok))
            continue
        letter, count = tok
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        # Joda: a number directly followed by another number field is read at its pattern's width
        fixed = isinstance(nxt, tuple) and nxt[0] in _NUMERIC and not (nxt[0] == "M" and nxt[1] >= 3)
        name = f"g{i}"
        if letter in "yY":
            body = rf"\d{{{count}}}" if fixed or count == 2 else r"[-+]?\d{1,9}"
        elif letter == "M" and count >= 3:
            body = "[A-Za-z]+"
        elif letter in "MdHkhms":
            body = rf"\d{{{count}}}" if fixed else r"\d{1,2}"
        elif letter == "S":
            body = rf"\d{{{count}}}" if fixed else r"\d{1,9}"
        elif letter == "a":
            body = "[AaPp][Mm]"
        elif letter == "Z":
            body = r"Z|[-+]\d{2}:?\d{2}"
        elif letter == "E":
            body = "[A-Za-z]+"
        else:
            raise TimestampFormatError(f"timestamp format {pattern!r}: pattern letter {letter!r} is not supported here")
        parts.append(f"(?P<{name}>{body})")
        fields.append(f"{letter}{count}")
    return _Pattern(re.compile("".join(parts) + r"\Z", re.IGNORECASE), tuple(fields))


def check_formats(value: str) -> None:
    """Refuse (:class:`TimestampFormatError`) a property value holding a pattern this parser cannot follow."""
    for pattern in split_formats(value):
        if pattern.lower() not in (MILLIS, ""):
            _compile(pattern)


def _apply(pattern: _Pattern, text: str) -> datetime.datetime | None:
    match = pattern.regex.match(text)
    if match is None:
        return None
    values = dict(year=1970, month=1, day=1, hour=0, minute=0, second=0, micro=0)
    pm: bool | None = None
    twelve = False
    offset = datetime.timedelta(0)
    for field, raw in zip(pattern.fields, match.groups(), strict=True):
        letter, count = field[0], int(field[1:])
        if letter in "yY":
            values["year"] = _two_digit_year(int(raw)) if count == 2 and len(raw) == 2 else int(raw)
        elif letter == "M" and count >= 3:
            month = next((n for n, m in enumerate(_MONTHS, 1) if m.startswith(raw.lower()) and len(raw) >= 3), None)
            if month is None:
                return None
            values["month"] = month
        elif letter == "M":
            values["month"] = int(raw)
        elif letter == "d":
            values["day"] = int(raw)
        elif letter in "Hk":
            values["hour"] = int(raw) % 24 if letter == "k" else int(raw)
        elif letter == "h":
            values["hour"], twelve = int(raw) % 12, True
        elif letter == "m":
            values["minute"] = int(raw)
        elif letter == "s":
            values["second"] = int(raw)
        elif letter == "S":
            values["micro"] = int(raw[:3].ljust(3, "0")) * 1000  # milliseconds, as Joda keeps
        elif letter == "a":
            pm = raw.lower() == "pm"
        elif letter == "Z" and raw.upper() != "Z":
            sign = -1 if raw[0] == "-" else 1
            digits = raw[1:].replace(":", "")
            offset = sign * datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        elif letter == "E" and not any(d.startswith(raw.lower()) for d in _DAYS):
            return None
    if twelve and pm:
        values["hour"] += 12
    try:
        out = datetime.datetime(values["year"], values["month"], values["day"], values["hour"], values["minute"],
                                values["second"], values["micro"])
    except ValueError:
        return None
    return out - offset


def _two_digit_year(yy: int) -> int:
    """Joda's ``yy``: the year within 50 years of this one ending in ``yy``."""
    now = datetime.date.today().year
    year = now // 100 * 100 + yy
    if year > now + 49:
        year -= 100
    elif year < now - 50:
        year += 100
    return year


@functools.lru_cache(maxsize=16)
def parser_of(value: str) -> TimestampParser:
    """The parser of a ``timestamp.formats`` value (cached: each row of a task asks)."""
    return TimestampParser(split_formats(value))


class TimestampParser:
    """The parser of one table's ``timestamp.formats``: its patterns in order, ``None`` for ``millis``."""

    def __init__(self, formats: Sequence[str]) -> None:
        self.patterns = [None if f.lower() == MILLIS else _compile(f) for f in formats if f]

    def normalize(self, text: str | None) -> str | None:
        """``text`` as Hive's default timestamp text when a format takes all of it (the first in the list
        that does); else ``text`` itself (Hive then reads it as its default timestamp text, or NULL)."""
        if text is None:
            return None
        for pattern in self.patterns:
            value = _millis(text) if pattern is None else _apply(pattern, text)
            if value is not None:
                return _text(value)
        return text


def _millis(text: str) -> datetime.datetime | None:
    """``millis``: a number of milliseconds since the epoch, its fraction dropped."""
    if not re.fullmatch(r"-?\d+(\.\d+)?", text):
        return None
    try:
        millis = int(decimal.Decimal(text).to_integral_value(rounding=decimal.ROUND_DOWN))
        return _EPOCH + datetime.timedelta(milliseconds=millis)
    except (decimal.InvalidOperation, OverflowError):
        return None


def _text(value: datetime.datetime) -> str:
    return f"{value.year:04d}-{value:%m-%d %H:%M:%S}.{value.microsecond:06d}"
