"""Session settings: one typed registry (key, default, parser) for every Hive setting we act on.

Why one registry: a setting used to be a string read with a magic key and parsed where it was used, so a bad
value (``SET hive.txn.timeout=abc``) was accepted by ``SET`` and broke every later statement, and two time
parsers disagreed (``5min``). Here a value is parsed once, when it is set: a bad one is refused with one line
in Hive's words and the old value stays. Keys we do not know are kept as text (Hive and Spark keys a script
sets for someone else), as Hive's ``SET`` does.

This module is at the bottom of the layers (no Spark, no SQL): the engine, the compactor and the executors
all read settings through :class:`Settings`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from hiveacid_sql.errors import PlanError

# -- parsers: text -> value, ValueError with the reason ------------------------------------------------------

#: Hive's time units (HiveConf.unitFor), in seconds.
_TIME_UNITS: dict[str, float] = {}
for _names, _scale in (
    (("ns", "nsec", "nsecs", "nanosecond", "nanoseconds"), 1e-9),
    (("us", "usec", "usecs", "microsecond", "microseconds"), 1e-6),
    (("ms", "msec", "msecs", "millisecond", "milliseconds"), 1e-3),
    (("s", "sec", "secs", "second", "seconds"), 1.0),
    (("m", "min", "mins", "minute", "minutes"), 60.0),
    (("h", "hour", "hours"), 3600.0),
    (("d", "day", "days"), 86400.0),
):
    for _name in _names:
        _TIME_UNITS[_name] = _scale
_TIME = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([a-z]*)\s*")


def duration(text: str, default_unit: str = "s") -> float:
    """A Hive time value in seconds: ``300``, ``300s``, ``500ms``, ``5m``, ``5min``, ``1 hour``; a bare
    number is in ``default_unit`` (each setting's own, as in HiveConf). The one time parser of the package."""
    m = _TIME.fullmatch(text.lower())
    if m is None or (m.group(2) and m.group(2) not in _TIME_UNITS):
        raise ValueError(f"Not a time value: {text!r} (e.g. 300s, 500ms, 5min)")
    return float(m.group(1)) * _TIME_UNITS[m.group(2) or default_unit]


def _duration_in(default_unit: str) -> Callable[[str], float]:
    return lambda text: duration(text, default_unit)


def boolean(text: str) -> bool:
    """``true`` / ``false`` in any case, as HiveConf's boolean settings."""
    value = text.strip().lower()
    if value not in ("true", "false"):
        raise ValueError(f"Not a boolean: {text!r} (true or false)")
    return value == "true"


def _integer(minimum: int = 0) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise ValueError(f"Not an integer: {text!r}") from None
        if value < minimum:
            raise ValueError(f"{value} is below the minimum {minimum}")
        return value

    return parse


def _number(text: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise ValueError(f"Not a number: {text!r}") from None
    if value < 0:
        raise ValueError(f"{text.strip()} is negative")
    return value


def _choice(*allowed: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        value = text.strip().lower()
        if value not in allowed:
            raise ValueError(f"{text!r} is not one of {', '.join(allowed)}")
        return value

    return parse


# -- the registry -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One known setting: its key, default (as text, what ``SET k`` shows) and parser."""

    key: str
    default: str
    parse: Callable[[str], Any]
    doc: str = ""


TXN_TIMEOUT = "hive.txn.timeout"
LOCK_RETRIES = "hive.lock.numretries"
LOCK_SLEEP = "hive.lock.sleep.between.retries"
READ_LEASE_SECONDS = "hiveacid.read.lease.seconds"
CARDINALITY_CHECK = "hive.merge.cardinality.check"
DRIVER_WRITE_MAX_ROWS = "hiveacid.driver.write.max.rows"
DRIVER_WRITE_MAX_BYTES = "hiveacid.driver.write.max.bytes"
DRIVER_SCAN_MAX_ROWS = "hiveacid.driver.scan.max.rows"
DRIVER_POINT_MAX_ROWS = "hiveacid.driver.scan.point.max.rows"
WRITE_MAX_WRITERS = "hiveacid.write.max.writers"
WRITE_BYTES_PER_WRITER = "hiveacid.write.bytes.per.writer"
DEFAULT_FILEFORMAT = "hive.default.fileformat"
INITIATOR_ON = "hive.compactor.initiator.on"
WORKER_THREADS = "hive.compactor.worker.threads"
CHECK_INTERVAL = "hive.compactor.check.interval"
CLEANER_INTERVAL = "hive.compactor.cleaner.run.interval"
WORKER_TIMEOUT = "hive.compactor.worker.timeout"
FAILED_THRESHOLD = "hive.compactor.initiator.failed.compacts.threshold"
RETENTION = "hive.compactor.history.retention."
DELTA_NUM_THRESHOLD = "hive.compactor.delta.num.threshold"
DELTA_PCT_THRESHOLD = "hive.compactor.delta.pct.threshold"
ABORTED_TXN_THRESHOLD = "hive.compactor.abortedtxn.threshold"
STRICT_CASTS = "hiveacid.strict.casts"
CREATE_AS_ACID = "hive.create.as.acid"
CREATE_AS_INSERT_ONLY = "hive.create.as.insert.only"

REGISTRY: dict[str, Setting] = {
    s.key: s
    for s in (
        Setting(TXN_TIMEOUT, "300s", _duration_in("s"), "a transaction not heartbeated this long is aborted"),
        Setting(LOCK_RETRIES, "10", _integer(0), "how often a blocked lock request is retried"),
        Setting(LOCK_SLEEP, "0.5s", _duration_in("s"), "the wait between two lock retries"),
        Setting(READ_LEASE_SECONDS, "3600", _duration_in("s"), "how long the cleaner keeps a query's files"),
        Setting(CARDINALITY_CHECK, "true", boolean, "MERGE refuses a target row matched twice"),
        Setting(
            DRIVER_WRITE_MAX_ROWS, "10000", _integer(0),
            "up to this many changed rows are written on the driver (0: never)",
        ),
        Setting(
            DRIVER_WRITE_MAX_BYTES, "16777216", _integer(0),
            "a MERGE's changes over hiveacid.driver.write.max.rows are still written on the driver when Spark's "
            "estimate of their size is at most this many bytes (0: by rows only)",
        ),
        Setting(
            DRIVER_SCAN_MAX_ROWS, "5000", _integer(0),
            "a DML target of up to this many rows is read on the driver (0: never)",
        ),
        Setting(
            DRIVER_POINT_MAX_ROWS, "50000", _integer(0),
            "a larger DML target is read on the driver when the row groups its key filters (id = 7, IN, ranges "
            "on integer columns) leave hold up to this many rows (0, or hiveacid.driver.scan.max.rows 0: never)",
        ),
        Setting(
            WRITE_MAX_WRITERS, "0", _integer(0),
            "an INSERT .. SELECT into an un-bucketed ACID table spreads its rows over at most this many writer "
            "tasks, each its own bucket_N (0: Spark's default parallelism)",
        ),
        Setting(
            WRITE_BYTES_PER_WRITER, "262144", _integer(0),
            "one writer per this many bytes of Spark's size estimate of an INSERT .. SELECT's rows (0: the "
            "input's own tasks write)",
        ),
        Setting(DEFAULT_FILEFORMAT, "textfile", _choice("textfile", "orc", "parquet"), "CREATE TABLE's storage"),
        Setting(INITIATOR_ON, "false", boolean, "run the compaction initiator in this session"),
        Setting(WORKER_THREADS, "0", _integer(0), "compaction workers in this session"),
        Setting(CHECK_INTERVAL, "300s", _duration_in("s"), "how often the initiator looks"),
        Setting(CLEANER_INTERVAL, "5000ms", _duration_in("ms"), "how often the cleaner runs"),
        Setting(WORKER_TIMEOUT, "86400s", _duration_in("s"), "a compaction working longer is retried"),
        Setting(FAILED_THRESHOLD, "2", _integer(1), "failed compactions before the initiator stops"),
        Setting(RETENTION + "succeeded", "3", _integer(0), "succeeded compactions kept in the history"),
        Setting(RETENTION + "failed", "3", _integer(0), "failed compactions kept in the history"),
        Setting(RETENTION + "attempted", "2", _integer(0), "attempted compactions kept in the history"),
        Setting(DELTA_NUM_THRESHOLD, "10", _integer(0), "deltas that trigger a minor compaction"),
        Setting(DELTA_PCT_THRESHOLD, "0.1", _number, "delta/base size that triggers a major compaction"),
        Setting(ABORTED_TXN_THRESHOLD, "1000", _integer(0), "aborted transactions that trigger a compaction"),
        Setting(STRICT_CASTS, "false", boolean, "a value that does not fit its column fails the statement (not NULL)"),
        Setting(CREATE_AS_ACID, "false", boolean, "CREATE TABLE without 'transactional' makes an ORC table full ACID"),
        Setting(CREATE_AS_INSERT_ONLY, "false", boolean, "CREATE TABLE without 'transactional' makes it insert-only"),
    )
}


def parse_value(key: str, text: str) -> Any:
    """``text`` parsed by ``key``'s parser (the text itself for an unknown key); a bad value is a one-line
    :class:`PlanError` in Hive's words."""
    setting = REGISTRY.get(key)
    if setting is None:
        return text
    try:
        return setting.parse(text)
    except ValueError as exc:
        raise PlanError(f"'SET {key}={text}' FAILED in validation : {exc}.") from None


class Settings(Mapping[str, str]):
    """The settings of one session: the texts that were SET (a read-only mapping of them, which is what
    ``SET`` lists and what the compactor is configured with) and their parsed values.

    ``settings[key]`` / ``settings.get(key)`` give the text that was set; :meth:`value` gives the parsed
    value of a known key, its default when nothing was set.
    """

    def __init__(self, initial: Mapping[str, str] | None = None) -> None:
        self._texts: dict[str, str] = {}
        self._values: dict[str, Any] = {}
        for key, text in (initial or {}).items():
            self.set(key, text)

    def set(self, key: str, text: str) -> None:
        """Validate and store ``key=text``; a bad value raises and leaves the old value in place."""
        value = parse_value(key, text)
        self._texts[key] = text
        self._values[key] = value

    def value(self, key: str) -> Any:
        """The parsed value of a registered setting (its default when not set)."""
        if key in self._values:
            return self._values[key]
        return REGISTRY[key].parse(REGISTRY[key].default)

    def __getitem__(self, key: str) -> str:
        return self._texts[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def __repr__(self) -> str:
        return f"Settings({self._texts!r})"


def setting_value(conf: Mapping[str, str], key: str) -> Any:
    """``key``'s parsed value in a plain mapping of texts (table properties over session settings, as the
    compactor gets them), its default when absent."""
    text = conf.get(key)
    return parse_value(key, text) if text is not None else REGISTRY[key].parse(REGISTRY[key].default)
