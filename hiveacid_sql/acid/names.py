"""Names of Hive ACID directories and files: the constants, the builders and the parsers.

Everything here mirrors ``AcidUtils`` (hive3 ``ql/.../io/AcidUtils.java``) and ``AcidConstants`` (hive4
``storage-api``). Builders emit exactly what Hive 3.1 writes (``%07d`` ids, ``_%04d`` statement ids, never a
``_v`` visibility suffix, because Hive 3.1's ``parseBase``/``parseDelta`` cannot read it). Parsers are lenient the
way ``Long.parseLong`` is: any digit width, negative base ids (``base_-9223372036854775808`` from the first
compaction of a converted table) and Hive 4 ``_vNNN`` suffixes are accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hiveacid_sql.errors import AcidFormatError

BASE_PREFIX = "base_"
DELTA_PREFIX = "delta_"
DELETE_DELTA_PREFIX = "delete_delta_"
BUCKET_PREFIX = "bucket_"
VISIBILITY_PREFIX = "_v"
COPY_KEYWORD = "_copy_"
FLUSH_LENGTH_SUFFIX = "_flush_length"
"""``OrcAcidUtils.DELTA_SIDE_FILE_SUFFIX``: the streaming side file of ``bucket_N`` is ``bucket_N_flush_length``."""

ACID_VERSION_FILE = "_orc_acid_version"
"""Written into every base/delta dir by ``OrcRecordUpdater``/``CompactorMR``; Trino reads it (§1.4)."""
ACID_VERSION_CONTENT = b"2"
"""``OrcAcidVersion.writeVersionFile`` writes the single ASCII byte ``2`` (``ORC_ACID_VERSION``), no newline."""

METADATA_FILE = "_metadata_acid"
"""``AcidUtils.MetaDataFile``: JSON marker that a base was produced by the compactor."""
COMPACTED_METADATA = b'{"thisFileVersion":"0","dataFormat":"compacted"}'
"""What ``MetaDataFile.createCompactorMarker`` writes: Jackson serialises a ``HashMap`` whose iteration order puts
``thisFileVersion`` (bucket 2) before ``dataFormat`` (bucket 6), compact separators."""

LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1
INT_MAX = 2**31 - 1
MAX_STATEMENTS_PER_TXN = 10000

_BASE_RE = re.compile(r"^base_(-?\d+)(?:_v(\d+))?$")
_DELTA_RE = re.compile(r"^(delete_delta_|delta_)(\d+)_(\d+)(?:_(\d+))?(?:_v(\d+))?$")
_BUCKET_RE = re.compile(r"^bucket_(\d+)(?:_(\d+))?$")  # hive4 AcidUtils.BUCKET_PATTERN (attempt id optional)
_ORIGINAL_RE = re.compile(r"^(\d+)_(\d+)(?:_copy_(\d+))?$")  # ORIGINAL_PATTERN / ORIGINAL_PATTERN_COPY


@dataclass(frozen=True)
class ParsedBase:
    """A ``base_N`` or ``base_N_vT`` directory (``AcidUtils.ParsedBase``).

    ``visibility_txn_id`` is 0 when there is no ``_v`` suffix ("_v0 is equivalent to no suffix", hive4).
    """

    write_id: int
    visibility_txn_id: int
    name: str

    @property
    def has_visibility_suffix(self) -> bool:
        """A ``_vT`` (T > 0) base was written by the Hive 4 compactor, so it is a compacted base."""
        return self.visibility_txn_id > 0


@dataclass(frozen=True)
class ParsedDelta:
    """A ``delta_*`` / ``delete_delta_*`` directory (``AcidUtils.ParsedDelta``).

    ``statement_id`` is None for ``delta_MIN_MAX`` (minor compaction output or legacy); Hive represents that as -1.
    """

    min_write_id: int
    max_write_id: int
    statement_id: int | None
    is_delete: bool
    visibility_txn_id: int
    name: str

    def sort_key(self) -> tuple[int, int, int, str]:
        """Hive's ``ParsedDelta.compareTo``: min ascending, max descending (wider first), statement id ascending
        with "no statement" (-1) first, then the path (all share one parent, so the name decides).

        Because ``"delete_delta_..." < "delta_..."`` the delete twin of a range sorts before the insert delta.
        """
        stmt = -1 if self.statement_id is None else self.statement_id
        return (self.min_write_id, -self.max_write_id, stmt, self.name)

    def same_range(self, other: ParsedDelta) -> bool:
        """Same (min, max, statement id): the "twin" test of ``findBestWorkingDeltas``."""
        return (
            self.min_write_id == other.min_write_id
            and self.max_write_id == other.max_write_id
            and self.statement_id == other.statement_id
        )


def _long(text: str, name: str) -> int:
    value = int(text)
    if not LONG_MIN <= value <= LONG_MAX:
        raise AcidFormatError(f"ACID directory name {name!r}: id {text} does not fit a Java long")
    return value


def parse_dir_name(name: str) -> ParsedBase | ParsedDelta | None:
    """Parse a base/delta/delete_delta directory name; None for a name without an ACID prefix.

    A name that starts with ``base_``, ``delta_`` or ``delete_delta_`` but does not parse raises
    :class:`AcidFormatError`, as Hive's ``parseBase``/``parseDelta`` (``Long.parseLong``) would fail on it rather
    than read it as an original directory.
    """
    if name.startswith(BASE_PREFIX):
        m = _BASE_RE.match(name)
        if m is None:
            raise AcidFormatError(f"Malformed ACID base directory name {name!r}")
        vis = _long(m.group(2), name) if m.group(2) is not None else 0
        return ParsedBase(_long(m.group(1), name), vis, name)
    if name.startswith(DELTA_PREFIX) or name.startswith(DELETE_DELTA_PREFIX):
        m = _DELTA_RE.match(name)
        if m is None:
            raise AcidFormatError(f"Malformed ACID delta directory name {name!r}")
        lo = _long(m.group(2), name)
        hi = _long(m.group(3), name)
        stmt: int | None = None
        if m.group(4) is not None:
            stmt = int(m.group(4))
            if stmt > INT_MAX:
                raise AcidFormatError(
                    f"ACID delta directory name {name!r}: statement id does not fit a Java int"
                )
        if lo > hi:
            raise AcidFormatError(f"ACID delta directory name {name!r}: min write id > max write id")
        vis = _long(m.group(5), name) if m.group(5) is not None else 0
        return ParsedDelta(lo, hi, stmt, m.group(1) == DELETE_DELTA_PREFIX, vis, name)
    return None


def _check_id(value: int, what: str) -> None:
    if not 0 <= value <= LONG_MAX:
        raise AcidFormatError(f"{what} {value} out of range")


def _check_stmt(statement_id: int | None) -> str:
    if statement_id is None or statement_id == -1:
        return ""
    if not 0 <= statement_id < MAX_STATEMENTS_PER_TXN:
        raise AcidFormatError(f"statement id {statement_id} out of range 0..{MAX_STATEMENTS_PER_TXN - 1}")
    return f"_{statement_id:04d}"


def base_dir_name(write_id: int) -> str:
    """``AcidUtils.baseDir``: ``base_%07d``. Never a ``_v`` suffix (unreadable by Hive 3.1)."""
    if write_id != LONG_MIN:
        _check_id(write_id, "base write id")
    return f"{BASE_PREFIX}{write_id:07d}"


def delta_dir_name(min_write_id: int, max_write_id: int, statement_id: int | None) -> str:
    """``AcidUtils.deltaSubdir``: ``delta_%07d_%07d`` plus ``_%04d`` unless the statement id is None/-1."""
    return _delta(DELTA_PREFIX, min_write_id, max_write_id, statement_id)


def delete_delta_dir_name(min_write_id: int, max_write_id: int, statement_id: int | None) -> str:
    """``AcidUtils.deleteDeltaSubdir``: as :func:`delta_dir_name` with the ``delete_delta_`` prefix."""
    return _delta(DELETE_DELTA_PREFIX, min_write_id, max_write_id, statement_id)


def _delta(prefix: str, lo: int, hi: int, statement_id: int | None) -> str:
    _check_id(lo, "min write id")
    _check_id(hi, "max write id")
    if lo > hi:
        raise AcidFormatError(f"min write id {lo} > max write id {hi}")
    return f"{prefix}{lo:07d}_{hi:07d}{_check_stmt(statement_id)}"


def with_visibility(dir_name: str, txn_id: int) -> str:
    """Hive 4 ``AcidUtils.addVisibilitySuffix``: ``<base or delta>_v%07d`` of the transaction that wrote it (a
    compaction on a store without atomic rename). Readable by Hive 4 and later, not by Hive 3.1."""
    _check_id(txn_id, "visibility transaction id")
    return f"{dir_name}{VISIBILITY_PREFIX}{txn_id:07d}"


def bucket_file_name(bucket_id: int) -> str:
    """``AcidUtils.createBucketFile``: ``bucket_%05d``. No attempt suffix (Hive 3.1 cannot parse it, trino#31302)."""
    if not 0 <= bucket_id <= INT_MAX:
        raise AcidFormatError(f"bucket id {bucket_id} out of range")
    return f"{BUCKET_PREFIX}{bucket_id:05d}"


def parse_bucket_file(name: str) -> int | None:
    """Bucket id of ``bucket_N`` or ``bucket_N_A`` (hive4 ``BUCKET_PATTERN``); None otherwise, including the
    ``bucket_N_flush_length`` side files that ``bucketFileFilter`` excludes."""
    m = _BUCKET_RE.match(name)
    if m is None:
        return None
    value = int(m.group(1))
    return value if value <= INT_MAX else None


def parse_original_file(name: str) -> tuple[int, int] | None:
    """(bucket id, copy index) of an original file ``NNNNNN_N`` or ``NNNNNN_N_copy_K``; None otherwise.

    The bucket/writer id is the integer before the first ``_`` (``AcidUtils.parseBucketId``); copy index 0 when
    there is no ``_copy_K`` suffix.
    """
    m = _ORIGINAL_RE.match(name)
    if m is None:
        return None
    bucket = int(m.group(1))
    if bucket > INT_MAX:
        return None
    return bucket, int(m.group(3)) if m.group(3) is not None else 0


def original_file_name(bucket: int, copy: int = 0) -> str:
    """Hive's name of a plain data file of writer (bucket) ``bucket``: ``000003_0`` (``Utilities.getTaskId``'s
    six digits and attempt 0, which FileSinkOperator sets to the bucket number in a bucketed table), with
    ``_copy_K`` when ``Hive.mvFile`` finds the name taken (INSERT INTO a directory already holding it).
    :func:`parse_original_file` reads it back."""
    if bucket < 0 or bucket > INT_MAX or copy < 0:
        raise AcidFormatError(f"invalid original file name parts: bucket {bucket}, copy {copy}")
    return f"{bucket:06d}_0" + (f"{COPY_KEYWORD}{copy}" if copy else "")


def is_hidden(name: str) -> bool:
    """``AcidUtils.hiddenFileFilter``: names starting with ``_`` or ``.`` are invisible to ``getAcidState``."""
    return name.startswith("_") or name.startswith(".")


def is_side_file(name: str) -> bool:
    """A streaming ``_flush_length`` side file (``OrcAcidUtils.DELTA_SIDE_FILE_SUFFIX``)."""
    return name.endswith(FLUSH_LENGTH_SUFFIX)
