"""Hive 3.1's string -> timestamp / date casts, in pure Python: the model the planner folds literals with
and the Spark tasks run for string columns (no JVM needed to test it).

Why: Spark's cast of a string to a timestamp is strict where Hive's is lenient, so the same ``UPDATE ..
SET t = '2014-09-01 09:44.23.23'`` stored ``NULL`` here and ``2014-09-01 00:00:00`` in Hive (its q-test
``update_all_types``). Hive 3.1 casts a string to a timestamp in
``PrimitiveObjectInspectorUtils.getTimestampFromString`` -> ``TimestampUtils.stringToTimestamp`` (the
``org.apache.hadoop.hive.common.type`` classes of HIVE-20007), tried in this order:

1. the text trimmed, fraction digits past the ninth dropped (``trimNanoTimestamp``);
2. exactly 10 characters: a date (``Date.valueOf``), at midnight;
3. ``Timestamp.valueOf``: ``y-M-d[ H:m:s[.f]]`` with 1-10 digit years, 1-2 digit fields, 1-9 fraction digits,
   resolved LENIENT (``2014-02-30`` is ``2014-03-02``, ``24:00:00`` the next day); else ISO
   ``yyyy-MM-ddTHH:mm[:ss[.f]]`` resolved STRICT;
4. a zoned timestamp (``TimestampTZUtil.parse``: ``yyyy-MM-dd[ HH:mm:ss[.f]][ ]zone``, SMART): the local date
   and time as written, the zone dropped (a time in the zone's DST gap moves forward by the gap);
5. last, ``Date.valueOf`` of the text up to its first blank (or ``T``): the date at midnight, so
   ``'2014-09-01 09:44.23.23'`` is ``2014-09-01 00:00:00``;
6. anything else is NULL.

A string cast to a date (``PrimitiveObjectInspectorUtils.getDate``) is ``Date.valueOf`` for 10 characters and
the date of the timestamp above otherwise. Values Spark cannot hold (years outside 1-9999 here; Hive keeps
them) are NULL, and nanoseconds are cut to microseconds (Spark's precision).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import zoneinfo
from functools import lru_cache

_DATE_LENGTH = 10
_YMD = r"([0-9]{1,10})-([0-9]{1,2})-([0-9]{1,2})"
# Timestamp.valueOf's PARSE_FORMATTER (LENIENT), whole text.
_HIVE_TS = re.compile(_YMD + r"(?: ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.([0-9]{1,9}))?)?")
# LocalDateTime.parse's ISO_LOCAL_DATE_TIME (STRICT; 'T' in any case).
_ISO_TS = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{0,9}))?)?")
# TimestampTZUtil's FORMATTER: date, optional time, optional blank, zone.
_ZONED_TS = re.compile(
    r"([0-9]{4,})-([0-9]{2})-([0-9]{2})(?: ([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?)? ?(\S+)"
)
_DATE = re.compile(_YMD)
_OFFSET = re.compile(r"(?:UTC|GMT|UT)?[+-][0-9]{1,2}(?::?[0-9]{2}(?::?[0-9]{2})?)?")


def _java_trim(text: str) -> str:
    """``String.trim``: every character up to U+0020 off both ends."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def _trim_nanos(text: str) -> str:
    """Hive's ``trimNanoTimestamp``: fraction digits after the ninth (up to the second blank) dropped."""
    period = text.find(".")
    if period == -1:
        return text
    first_space = text.find(" ")
    second_space = -1 if first_space < 0 else text.find(" ", first_space + 1)
    end = len(text) if second_space == -1 else second_space
    if end - period > 10:
        return text[: period + 10] + text[end:]
    return text


def _lenient(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0, nanos: int = 0) -> dt.datetime | None:
    """java.time's LENIENT resolution: Jan 1 of the year plus (month-1) months plus (day-1) days plus the
    time of day (overflowing into the next days); None outside the years a Python/Spark value holds."""
    if not 1 <= y <= 9999:
        return None
    months = y * 12 + (mo - 1)
    year, month = divmod(months, 12)
    if not 1 <= year <= 9999:
        return None
    try:
        base = dt.datetime(year, month + 1, 1)
        return base + dt.timedelta(days=d - 1, hours=h, minutes=mi, seconds=s, microseconds=nanos // 1000)
    except OverflowError:
        return None


def _nanos(fraction: str | None) -> int:
    return int((fraction or "").ljust(9, "0")[:9] or "0")


def _valid(y: int, mo: int, d: int, h: int, mi: int, s: int) -> bool:
    try:
        dt.datetime(y, mo, d, h, mi, s)
    except ValueError:
        return False
    return True


def _date_value_of(text: str) -> dt.date | None:
    """``Date.valueOf``: trimmed, cut at the first blank (else at a ``T``), ``y-M-d`` resolved LENIENT."""
    text = _java_trim(text)
    cut = text.find(" ")
    if cut == -1:
        cut = text.find("T")
    if cut != -1:
        text = text[:cut]
    m = _DATE.fullmatch(text)
    if m is None:
        return None
    value = _lenient(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    return None if value is None else value.date()


@lru_cache(maxsize=256)
def _zone(name: str) -> dt.tzinfo | None:
    """The zone a ``TimestampTZUtil`` zone text names (offsets, UTC/GMT/Z, region ids), None if none."""
    if name == "Z" or name in ("UTC", "GMT", "UT"):
        return dt.timezone.utc
    if _OFFSET.fullmatch(name):
        return dt.timezone.utc  # a fixed offset has no gap: only the local time matters
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


def _zoned(text: str) -> dt.datetime | None:
    m = _ZONED_TS.fullmatch(text)
    if m is None:
        return None
    zone = _zone(m.group(8))
    if zone is None:
        return None
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    h, mi, s = (int(m.group(i)) if m.group(i) else 0 for i in (4, 5, 6))
    if not (1 <= mo <= 12 and 1 <= d <= 31 and h <= 23 and mi <= 59 and s <= 59) or not 1 <= y <= 9999:
        return None
    d = min(d, calendar.monthrange(y, mo)[1])  # SMART: day 30 of February is its last day
    local = dt.datetime(y, mo, d, h, mi, s, _nanos(m.group(7)) // 1000)
    # ZonedDateTime.of: a local time in a DST gap moves forward by the gap's length.
    return local.replace(tzinfo=zone).astimezone(dt.timezone.utc).astimezone(zone).replace(tzinfo=None)


def hive_timestamp(text: str | None) -> dt.datetime | None:
    """Hive 3.1's ``CAST(text AS timestamp)`` (see the module docstring), None where Hive gives NULL."""
    if text is None:
        return None
    text = _trim_nanos(_java_trim(text))
    if len(text) == _DATE_LENGTH:
        day = _date_value_of(text)
        return None if day is None else dt.datetime(day.year, day.month, day.day)
    m = _HIVE_TS.fullmatch(text)
    if m is not None:
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        h, mi, s = (int(m.group(i)) if m.group(i) else 0 for i in (4, 5, 6))
        return _lenient(y, mo, d, h, mi, s, _nanos(m.group(7)))
    m = _ISO_TS.fullmatch(text)
    if m is not None:
        y, mo, d, h, mi = (int(m.group(i)) for i in range(1, 6))
        s = int(m.group(6) or 0)
        if _valid(y, mo, d, h, mi, s) and y >= 1:
            return dt.datetime(y, mo, d, h, mi, s, _nanos(m.group(7)) // 1000)
    zoned = _zoned(text)
    if zoned is not None:
        return zoned
    day = _date_value_of(text)
    return None if day is None else dt.datetime(day.year, day.month, day.day)


def hive_date(text: str | None) -> dt.date | None:
    """Hive 3.1's ``CAST(text AS date)``: ``Date.valueOf`` for 10 characters, else the timestamp's date."""
    if text is None:
        return None
    trimmed = _java_trim(text)
    if len(trimmed) == _DATE_LENGTH:
        return _date_value_of(trimmed)
    ts = hive_timestamp(trimmed)
    return None if ts is None else ts.date()
