"""Snapshots: ``ValidWriteIdList`` (per table) and ``ValidTxnList`` (global), with Hive's string forms.

Ports of hive3 ``storage-api/.../common/ValidReaderWriteIdList.java``, ``ValidCompactorWriteIdList.java`` and
``ValidReadTxnList.java``. The string forms are exactly what Hive puts in ``hive.txn.valid.writeids`` /
``hive.txn.valid.txns`` so they can be handed to (or taken from) Hive and Trino unchanged.
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Iterable
from dataclasses import dataclass, replace

from hiveacid_sql.errors import AcidFormatError

LONG_MAX = 2**63 - 1


class RangeResponse(enum.Enum):
    """``ValidWriteIdList.RangeResponse``: how much of a write id range is valid (or aborted)."""

    NONE = "NONE"
    SOME = "SOME"
    ALL = "ALL"


def _normalise(obj: object, exceptions: Iterable[int], aborted: Iterable[int]) -> None:
    aborted_set = frozenset(int(a) for a in aborted)
    merged = tuple(sorted(set(int(e) for e in exceptions) | aborted_set))
    object.__setattr__(obj, "exceptions", merged)
    object.__setattr__(obj, "aborted", aborted_set)


def _range_valid(hwm: int, exceptions: tuple[int, ...], lo: int, hi: int) -> RangeResponse:
    # ValidReaderWriteIdList.isWriteIdRangeValid / ValidReadTxnList.isTxnRangeValid, line by line.
    if lo > hwm:
        return RangeResponse.NONE
    if exceptions and exceptions[0] > hi:
        return RangeResponse.ALL
    count = max(0, hi - hwm)
    count += bisect.bisect_right(exceptions, hi) - bisect.bisect_left(exceptions, lo)
    if count == 0:
        return RangeResponse.ALL
    if count == hi - lo + 1:
        return RangeResponse.NONE
    return RangeResponse.SOME


def _range_aborted(
    hwm: int, exceptions: tuple[int, ...], aborted: frozenset[int], lo: int, hi: int
) -> RangeResponse:
    # ValidReaderWriteIdList.isWriteIdRangeAborted: counts only aborted exceptions inside [lo, hi].
    if hwm < lo:
        return RangeResponse.NONE
    count = sum(1 for a in aborted if lo <= a <= hi)
    if count == 0:
        return RangeResponse.NONE
    if count == hi - lo + 1:
        return RangeResponse.ALL
    return RangeResponse.SOME


def _contains(exceptions: tuple[int, ...], value: int) -> bool:
    i = bisect.bisect_left(exceptions, value)
    return i < len(exceptions) and exceptions[i] == value


def _lists_to_string(exceptions: tuple[int, ...], aborted: frozenset[int]) -> str:
    open_ids = ",".join(str(e) for e in exceptions if e not in aborted)
    aborted_ids = ",".join(str(e) for e in exceptions if e in aborted)
    return f"{open_ids}:{aborted_ids}"


def _parse_ids(text: str, src: str) -> list[int]:
    if not text:
        return []
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise AcidFormatError(f"Malformed write/txn id list {src!r}") from None


def _java_split(src: str) -> list[str]:
    # Java String.split(":") drops trailing empty fields.
    parts = src.split(":")
    while parts and parts[-1] == "":
        parts.pop()
    return parts


@dataclass(frozen=True)
class ValidWriteIdList:
    """A reader's (or the compactor's) view of one table's write ids (``ValidReaderWriteIdList``).

    ``exceptions`` holds every open *and* aborted write id <= ``high_watermark``, sorted; ``aborted`` is the
    aborted subset (Hive's ``abortedBits``). ``min_open_write_id`` None stands for Hive's ``Long.MAX_VALUE``.
    ``compactor`` switches to ``ValidCompactorWriteIdList`` semantics for :meth:`is_write_id_range_valid`.
    """

    table_name: str | None
    high_watermark: int
    exceptions: tuple[int, ...] = ()
    aborted: frozenset[int] = frozenset()
    min_open_write_id: int | None = None
    compactor: bool = False

    def __post_init__(self) -> None:
        _normalise(self, self.exceptions, self.aborted)
        if self.min_open_write_id == LONG_MAX:
            object.__setattr__(self, "min_open_write_id", None)

    # -- constructors -------------------------------------------------------------------------------------
    @classmethod
    def all_committed(cls, table_name: str | None, high_watermark: int) -> ValidWriteIdList:
        """Everything up to ``high_watermark`` is committed (no open, no aborted write ids)."""
        return cls(table_name, high_watermark)

    @classmethod
    def create(
        cls,
        table_name: str | None,
        high_watermark: int,
        open_write_ids: Iterable[int] = (),
        aborted_write_ids: Iterable[int] = (),
    ) -> ValidWriteIdList:
        """Build from open/aborted id sets the way ``TxnHandler.getValidWriteIdsForTable`` does: only ids <= HWM are
        exceptions, and ``minOpenWriteId`` is the smallest open one."""
        open_ids = sorted({w for w in open_write_ids if w <= high_watermark})
        aborted = frozenset(w for w in aborted_write_ids if w <= high_watermark) - set(open_ids)
        return cls(table_name, high_watermark, tuple(open_ids), aborted, open_ids[0] if open_ids else None)

    def for_compactor(self) -> ValidWriteIdList:
        """``TxnUtils.createValidCompactWriteIdList``: HWM drops to just below the first open write id, only the
        aborted ids below it remain exceptions, and ranges are valid iff ``max <= HWM``
        (``ValidCompactorWriteIdList.isWriteIdRangeValid``)."""
        first_open = next((e for e in self.exceptions if e not in self.aborted), None)
        hwm = self.high_watermark if first_open is None else first_open - 1
        kept = tuple(e for e in self.exceptions if e <= hwm)
        return ValidWriteIdList(self.table_name, hwm, kept, frozenset(kept), first_open, compactor=True)

    # -- queries ------------------------------------------------------------------------------------------
    def is_write_id_valid(self, write_id: int) -> bool:
        """``isWriteIdValid``: committed in this snapshot = ``<= HWM`` and not an exception."""
        return write_id <= self.high_watermark and not _contains(self.exceptions, write_id)

    def is_write_id_aborted(self, write_id: int) -> bool:
        """``isWriteIdAborted``: listed as aborted."""
        return write_id in self.aborted

    def is_valid_base(self, write_id: int) -> bool:
        """``isValidBase``: a *compacted* base_N is usable only if no write id <= N can still be open:
        ``N < minOpenWriteId && N <= HWM``."""
        min_open = LONG_MAX if self.min_open_write_id is None else self.min_open_write_id
        return write_id < min_open and write_id <= self.high_watermark

    def is_write_id_range_valid(self, min_write_id: int, max_write_id: int) -> RangeResponse:
        """``isWriteIdRangeValid`` (ALL/SOME/NONE valid ids in ``[min, max]``), exact Hive arithmetic."""
        if self.compactor:
            return RangeResponse.ALL if self.high_watermark >= max_write_id else RangeResponse.NONE
        return _range_valid(self.high_watermark, self.exceptions, min_write_id, max_write_id)

    def is_write_id_range_aborted(self, min_write_id: int, max_write_id: int) -> RangeResponse:
        """``isWriteIdRangeAborted``: ALL means every id of the range aborted, so the dir is garbage."""
        return _range_aborted(self.high_watermark, self.exceptions, self.aborted, min_write_id, max_write_id)

    @property
    def open_write_ids(self) -> tuple[int, ...]:
        """Exceptions that are not aborted, ascending."""
        return tuple(e for e in self.exceptions if e not in self.aborted)

    def with_table_name(self, table_name: str | None) -> ValidWriteIdList:
        """Same snapshot, other table name."""
        return replace(self, table_name=table_name)

    # -- string form --------------------------------------------------------------------------------------
    def to_string(self) -> str:
        """``writeToString``: ``db.table:HWM:minOpenWriteId:open1,open2:aborted1,aborted2`` (``null`` table name,
        ``Long.MAX_VALUE`` for no open write id, empty fields kept)."""
        name = "null" if self.table_name is None else self.table_name
        min_open = LONG_MAX if self.min_open_write_id is None else self.min_open_write_id
        return f"{name}:{self.high_watermark}:{min_open}:{_lists_to_string(self.exceptions, self.aborted)}"

    @classmethod
    def from_string(cls, src: str) -> ValidWriteIdList:
        """``readFromString``: accepts 3, 4 or 5 ``:`` fields (Java's split drops trailing empty ones); an empty
        string means "everything valid" (HWM ``Long.MAX_VALUE``), as in Hive."""
        if not src:
            return cls(None, LONG_MAX)
        parts = _java_split(src)
        if len(parts) < 3 or len(parts) > 5:
            raise AcidFormatError(f"Malformed ValidWriteIdList string {src!r}")
        name: str | None = None if parts[0].lower() == "null" else parts[0]
        try:
            hwm = int(parts[1])
            min_open = int(parts[2])
        except ValueError:
            raise AcidFormatError(f"Malformed ValidWriteIdList string {src!r}") from None
        open_ids = _parse_ids(parts[3], src) if len(parts) > 3 else []
        aborted = _parse_ids(parts[4], src) if len(parts) > 4 else []
        return cls(name, hwm, tuple(open_ids), frozenset(aborted), None if min_open == LONG_MAX else min_open)

    def __str__(self) -> str:
        return self.to_string()


@dataclass(frozen=True)
class ValidTxnList:
    """Global transaction snapshot (``ValidReadTxnList``): string ``HWM:minOpenTxn:open..:aborted..``."""

    high_watermark: int
    exceptions: tuple[int, ...] = ()
    aborted: frozenset[int] = frozenset()
    min_open_txn: int | None = None

    def __post_init__(self) -> None:
        _normalise(self, self.exceptions, self.aborted)
        if self.min_open_txn == LONG_MAX:
            object.__setattr__(self, "min_open_txn", None)

    @classmethod
    def create(
        cls, high_watermark: int, open_txns: Iterable[int] = (), aborted_txns: Iterable[int] = ()
    ) -> ValidTxnList:
        """Build from open/aborted txn ids (``TxnUtils.createValidReadTxnList``): ids above HWM are dropped."""
        open_ids = sorted({t for t in open_txns if t <= high_watermark})
        aborted = frozenset(t for t in aborted_txns if t <= high_watermark) - set(open_ids)
        return cls(high_watermark, tuple(open_ids), aborted, open_ids[0] if open_ids else None)

    def is_txn_valid(self, txn_id: int) -> bool:
        """``isTxnValid``: committed in this snapshot."""
        return txn_id <= self.high_watermark and not _contains(self.exceptions, txn_id)

    def is_txn_aborted(self, txn_id: int) -> bool:
        """``isTxnAborted``."""
        return txn_id in self.aborted

    def is_txn_range_valid(self, min_txn: int, max_txn: int) -> RangeResponse:
        """``isTxnRangeValid``: same arithmetic as the write id version."""
        return _range_valid(self.high_watermark, self.exceptions, min_txn, max_txn)

    def is_txn_range_aborted(self, min_txn: int, max_txn: int) -> RangeResponse:
        """``isTxnRangeAborted``."""
        return _range_aborted(self.high_watermark, self.exceptions, self.aborted, min_txn, max_txn)

    @property
    def open_txns(self) -> tuple[int, ...]:
        """Exceptions that are not aborted, ascending."""
        return tuple(e for e in self.exceptions if e not in self.aborted)

    def to_string(self) -> str:
        """``ValidReadTxnList.writeToString``."""
        min_open = LONG_MAX if self.min_open_txn is None else self.min_open_txn
        return f"{self.high_watermark}:{min_open}:{_lists_to_string(self.exceptions, self.aborted)}"

    @classmethod
    def from_string(cls, src: str) -> ValidTxnList:
        """``ValidReadTxnList.readFromString``: 2, 3 or 4 fields; empty string = everything valid."""
        if not src:
            return cls(LONG_MAX)
        parts = _java_split(src)
        if len(parts) < 2 or len(parts) > 4:
            raise AcidFormatError(f"Malformed ValidTxnList string {src!r}")
        try:
            hwm = int(parts[0])
            min_open = int(parts[1])
        except ValueError:
            raise AcidFormatError(f"Malformed ValidTxnList string {src!r}") from None
        open_ids = _parse_ids(parts[2], src) if len(parts) > 2 else []
        aborted = _parse_ids(parts[3], src) if len(parts) > 3 else []
        return cls(hwm, tuple(open_ids), frozenset(aborted), None if min_open == LONG_MAX else min_open)

    def __str__(self) -> str:
        return self.to_string()
