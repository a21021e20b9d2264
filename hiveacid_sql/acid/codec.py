"""The ``bucket`` column codec and ROW__ID ordering.

Port of hive3/hive4 ``ql/.../io/BucketCodec.java`` (identical in both) and of the ordering of
``RecordIdentifier.compareTo``. Hive 3+ only writes V1; V0 (whole int = bucket id) is decoded for old data.
Values are Java ``int``s: a property may arrive as a negative Python int (top bit set), which is handled.
"""

from __future__ import annotations

from dataclasses import dataclass

from hiveacid_sql.errors import AcidFormatError

V0 = 0
V1 = 1
MAX_BUCKET_ID = 4095  # also the bucket id's mask once shifted down: V1 holds it in bits 16-27
BUCKET_ID_SHIFT = 16
MAX_STATEMENT_ID = 4095
_VERSION_MASK = 0xE0000000
_BUCKET_MASK = 0x0FFF0000
_STMT_MASK = 0x00000FFF


def _unsigned(prop: int) -> int:
    if not -(2**31) <= prop <= 2**32 - 1:
        raise AcidFormatError(f"bucket property {prop} does not fit 32 bits")
    return prop & 0xFFFFFFFF


def to_signed32(value: int) -> int:
    """A 32-bit pattern as Java's signed ``int`` (the ORC ``bucket`` column type)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def codec_version(prop: int) -> int:
    """``BucketCodec.determineVersion``: top 3 bits; only 0 (V0) and 1 (V1) exist, anything else is an error."""
    version = (_unsigned(prop) & _VERSION_MASK) >> 29
    if version not in (V0, V1):
        raise AcidFormatError(f"Illegal 'bucket' format. Version={version}")
    return version


def encode_bucket(bucket_id: int, statement_id: int) -> int:
    """``BucketCodec.V1.encode``: ``1<<29 | bucketId<<16 | stmtId``; statement id -1 (compactor) is encoded as 0.

    Hive rejects ids outside 0..4095; so do we (Trino accepts wider values that Hive then cannot decode).
    """
    if statement_id == -1:
        statement_id = 0
    if not 0 <= bucket_id <= MAX_BUCKET_ID:
        raise AcidFormatError(f"bucketId out of range: {bucket_id} (must be 0..{MAX_BUCKET_ID})")
    if not 0 <= statement_id <= MAX_STATEMENT_ID:
        raise AcidFormatError(f"statementId out of range: {statement_id} (must be 0..{MAX_STATEMENT_ID})")
    return (1 << 29) | (bucket_id << 16) | statement_id


def decode_bucket_id(prop: int) -> int:
    """``BucketCodec.decodeWriterId``: V1 ``(v & 0x0FFF0000) >>> 16``; V0 the whole value."""
    if codec_version(prop) == V0:
        return prop
    return (_unsigned(prop) & _BUCKET_MASK) >> 16


def decode_statement_id(prop: int) -> int:
    """``BucketCodec.decodeStatementId``: V1 ``v & 0xFFF``; V0 has no statement id (0)."""
    if codec_version(prop) == V0:
        return 0
    return _unsigned(prop) & _STMT_MASK


@dataclass(frozen=True, order=True)
class RecordIdentifier:
    """A ROW__ID ``(originalTransaction/writeId, bucket property, rowId)``.

    Field order gives ``RecordIdentifier.compareToInternal``'s ordering: write id, then the bucket property
    compared as a *signed* Java int, then row id. ``bucket`` is normalised to its signed value.
    """

    write_id: int
    bucket: int
    row_id: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "bucket", to_signed32(_unsigned(self.bucket)))

    @property
    def bucket_id(self) -> int:
        """Decoded bucket/writer id of ``bucket``."""
        return decode_bucket_id(self.bucket)

    @property
    def statement_id(self) -> int:
        """Decoded statement id of ``bucket``."""
        return decode_statement_id(self.bucket)
