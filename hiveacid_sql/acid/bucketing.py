"""Hive's bucket hash, bit for bit: which ``bucket_N`` file a row of a ``CLUSTERED BY`` table belongs to.

Hive, Trino and our writers must agree on the bucket of every row, or bucket pruning and bucketed joins return wrong
results. The rules (``ObjectInspectorUtils``, hive3 ``serde/.../objectinspector/ObjectInspectorUtils.java``; format
reference §7):

* bucket = ``(hash & 0x7fffffff) % num_buckets`` (``getBucketNumber``); several columns:
  ``hash = 31 * hash + field_hash`` with 32-bit wrap-around (``getBucketHashCode`` / ``getBucketHashCodeOld``);
* ``bucketing_version`` 2 (``hashCodeMurmur``): Murmur3 x86_32 with seed 104729 (``Murmur3.hash32``) over the
  value's big-endian bytes, with Hive's quirks: tail bytes sign-extended, float/double hashed through
  ``putFloat((float) floatToIntBits(f))``, tinyint and boolean not hashed at all, char stripped of trailing spaces,
  timestamps as ``TimestampWritableV2`` bytes, decimals as ``BigInteger.toByteArray`` of the trimmed unscaled value,
  map values hashed with version 1;
* ``bucketing_version`` 1 (``hashCode``): Java ``hashCode`` style per type.

NULL hashes to 0 in both versions. Values are Hive values: a decimal is first rounded (HALF_UP) to its column's scale,
then trimmed of trailing zeros as ``HiveDecimal`` is; a timestamp is a wall-clock value. :func:`bucket_numbers` does
the same on Arrow columns as Spark hands them to ``mapInArrow``, vectorized with numpy.

This module knows nothing of SQL, Spark or SQLAlchemy.
"""

from __future__ import annotations

import datetime
import decimal
import struct
from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.acid.partitions import finite_tuple
from hiveacid_sql.errors import AcidFormatError

__all__ = [
    "MURMUR3_SEED",
    "bucket_number",
    "bucket_numbers",
    "field_hash",
    "murmur3_32",
    "row_hash",
    "row_hashes",
]

MURMUR3_SEED = 104729
"""``Murmur3.DEFAULT_SEED``, the seed of every version-2 bucket hash."""

_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF
_INT_MAX = 0x7FFFFFFF
_C1, _C2 = 0xCC9E2D51, 0x1B873593
_FLOAT_NAN_BITS = 0x7FC00000  # Float.floatToIntBits(NaN)
_DOUBLE_NAN_BITS = 0x7FF8000000000000  # Double.doubleToLongBits(NaN)
_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()
_EPOCH = datetime.datetime(1970, 1, 1)

_INTEGER_BITS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}
_STRING_TYPES = frozenset({"string", "varchar", "char"})


def _signed32(x: int) -> int:
    x &= _M32
    return x - 0x1_0000_0000 if x & 0x8000_0000 else x


def _check_version(version: int) -> None:
    if version not in (1, 2):
        raise AcidFormatError(f"unknown bucketing_version {version!r}: Hive knows 1 and 2")


# ---------------------------------------------------------------------------------------------------------
# Murmur3, as Hive's storage-api Murmur3.hash32 computes it
# ---------------------------------------------------------------------------------------------------------


def _rotl32(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def _mix_k(k: int) -> int:
    return (_rotl32((k * _C1) & _M32, 15) * _C2) & _M32


def murmur3_32(data: bytes, seed: int = MURMUR3_SEED) -> int:
    """Hive's ``Murmur3.hash32(data, 0, len, seed)`` as a signed 32-bit int.

    The body reads little-endian 4-byte blocks like every MurmurHash3 x86_32; the tail does not mask its bytes
    (``k1 ^= data[i + 2] << 16`` with Java's signed bytes), so a tail holding a byte >= 0x80 (non-ASCII UTF-8)
    hashes differently from the reference MurmurHash3 (``mmh3``). Hive and Trino use this very code.
    """
    h = seed & _M32
    length = len(data)
    nblocks = length >> 2
    for i in range(0, nblocks << 2, 4):
        h ^= _mix_k(int.from_bytes(data[i : i + 4], "little"))
        h = (_rotl32(h, 13) * 5 + 0xE6546B64) & _M32
    tail = data[nblocks << 2 :]
    if tail:
        k1 = 0
        for shift, byte in zip((0, 8, 16), tail, strict=False):
            k1 ^= ((byte - 256 if byte >= 128 else byte) << shift) & _M32
        h ^= _mix_k(k1)
    h ^= length
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _M32
    h ^= h >> 16
    return _signed32(h)


# ---------------------------------------------------------------------------------------------------------
# Value -> the bytes / numbers Hive hashes (shared by both versions)
# ---------------------------------------------------------------------------------------------------------


def _float_bits(value: float) -> int:
    """``Float.floatToIntBits`` of the value as a 32-bit float (NaN canonicalised)."""
    f32 = np.float32(value)
    if np.isnan(f32):
        return _FLOAT_NAN_BITS
    return int(f32.view(np.uint32))


def _double_bits(value: float) -> int:
    """``Double.doubleToLongBits`` (NaN canonicalised), as an unsigned 64-bit pattern."""
    value = float(value)
    if value != value:
        return _DOUBLE_NAN_BITS
    return struct.unpack(">Q", struct.pack(">d", value))[0]


def _java_signed64(bits: int) -> int:
    return bits - (1 << 64) if bits & (1 << 63) else bits


def _check_int(value: object, htype: HiveType) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise AcidFormatError(f"bucketing value {value!r} is not a {htype.name}")
    bits = _INTEGER_BITS[htype.name]
    v = int(value)
    if not -(1 << (bits - 1)) <= v < (1 << (bits - 1)):
        raise AcidFormatError(f"bucketing value {v} is out of range for {htype.name}")
    return v


def _text_bytes(value: object, htype: HiveType) -> bytes:
    if not isinstance(value, str):
        raise AcidFormatError(f"bucketing value {value!r} is not a {htype.to_string()}")
    if htype.name == "char":
        value = value.rstrip(" ")  # HiveChar.getStrippedValue: trailing spaces only
    return value.encode("utf-8")


def _epoch_day(value: object) -> int:
    if isinstance(value, datetime.datetime) or not isinstance(value, datetime.date):
        raise AcidFormatError(f"bucketing value {value!r} is not a date")
    return value.toordinal() - _EPOCH_ORDINAL


def _seconds_nanos(value: object) -> tuple[int, int]:
    """Wall-clock epoch seconds and nanoseconds of a timestamp (Hive's ``Timestamp.toEpochSecond`` in UTC)."""
    if not isinstance(value, datetime.datetime) or value.tzinfo is not None:
        raise AcidFormatError(f"bucketing value {value!r} is not a wall-clock (naive) timestamp")
    delta = value - _EPOCH
    seconds = delta.days * 86400 + delta.seconds
    # pandas.Timestamp (what Arrow gives for timestamp[ns]) carries nanoseconds beyond the microseconds.
    return seconds, delta.microseconds * 1000 + int(getattr(value, "nanosecond", 0))


def _decimal_parts(value: object, htype: HiveType) -> tuple[int, int]:
    """Unscaled value and scale of a decimal as ``HiveDecimal`` holds it: rounded to the type, trailing zeros trimmed."""
    if isinstance(value, bool) or not isinstance(value, (decimal.Decimal, int)):
        raise AcidFormatError(f"bucketing value {value!r} is not a {htype.to_string()}")
    d = decimal.Decimal(value)
    if not d.is_finite():
        raise AcidFormatError(f"bucketing value {value!r} is not a {htype.to_string()}")
    with decimal.localcontext() as ctx:
        ctx.prec = 100
        d = d.quantize(decimal.Decimal(1).scaleb(-htype.scale), rounding=decimal.ROUND_HALF_UP)
    sign, digits, exp = finite_tuple(d)
    unscaled = int("".join(map(str, digits)) or "0")
    if sign:
        unscaled = -unscaled
    return _trim_decimal(unscaled, -exp)


def _trim_decimal(unscaled: int, scale: int) -> tuple[int, int]:
    if unscaled == 0:
        return 0, 0
    while scale > 0 and unscaled % 10 == 0:
        unscaled //= 10
        scale -= 1
    if scale < 0:  # HiveDecimal never keeps a negative scale
        unscaled *= 10**-scale
        scale = 0
    return unscaled, scale


def _big_integer_bytes(v: int) -> bytes:
    """``BigInteger.toByteArray()``: minimal big-endian two's complement, at least one byte."""
    length = (v.bit_length() if v >= 0 else (~v).bit_length()) // 8 + 1
    return v.to_bytes(length, "big", signed=True)


def _big_integer_hash(v: int) -> int:
    """``BigInteger.hashCode()``: ``31 * h + word`` over the magnitude's 32-bit words, times the sign."""
    mag = abs(v)
    h = 0
    for shift in range(((mag.bit_length() + 31) // 32 - 1) * 32, -1, -32):
        h = (31 * h + ((mag >> shift) & _M32)) & _M32
    return (-h if v < 0 else h) & _M32


def _timestamp_writable_bytes(seconds: int, nanos: int) -> bytes:
    """``TimestampWritableV2.getBytes()``: the serialized form Hive's v2 hash reads.

    4 bytes big-endian of the low 31 bits of the seconds, the top bit set when a VInt follows; then the
    nanoseconds with their 9 decimal digits reversed (``0.1`` s -> 1) as a Hadoop VLong, written as
    ``-reversed - 1`` when the seconds need a second VLong (negative or beyond 2^31 - 1), which holds
    ``seconds >> 31`` (``convertTimestampToBytes`` / ``setNanosBytes``).
    """
    reversed_nanos = 0
    if nanos:
        n = nanos
        for _ in range(9):
            reversed_nanos = reversed_nanos * 10 + n % 10
            n //= 10
    has_second_vint = seconds < 0 or seconds > _INT_MAX
    out = bytearray()
    first = seconds & _M32
    if reversed_nanos or has_second_vint:
        first |= 0x8000_0000
        out += first.to_bytes(4, "big")
        out += _vlong(-reversed_nanos - 1 if has_second_vint else reversed_nanos)
        if has_second_vint:
            out += _vlong(seconds >> 31)
    else:
        out += (first & _INT_MAX).to_bytes(4, "big")
    return bytes(out)


def _vlong(v: int) -> bytes:
    """Hadoop ``WritableUtils.writeVLong`` / ``LazyBinaryUtils.writeVLongToByteArray``."""
    if -112 <= v <= 127:
        return (v & 0xFF).to_bytes(1, "big")
    marker = -112
    if v < 0:
        v = ~v
        marker = -120
    n = (v.bit_length() + 7) // 8
    return ((marker - n) & 0xFF).to_bytes(1, "big") + v.to_bytes(n, "big")


def _java_hash_bytes(data: bytes, start: int) -> int:
    """``r = 31 * r + b`` over signed bytes: Hive's v1 string hash (start 0) and Hadoop ``hashBytes`` (start 1)."""
    r = start
    for b in data:
        r = (31 * r + (b - 256 if b >= 128 else b)) & _M32
    return r


# ---------------------------------------------------------------------------------------------------------
# Scalar field hashes
# ---------------------------------------------------------------------------------------------------------


def _map_items(value: object, htype: HiveType) -> list[tuple[object, object]]:
    if isinstance(value, Mapping):
        return list(value.items())
    if isinstance(value, (list, tuple)) and all(isinstance(e, (list, tuple)) and len(e) == 2 for e in value):
        return [(k, v) for k, v in value]
    raise AcidFormatError(f"bucketing value {value!r} is not a {htype.to_string()}")


def _struct_values(value: object, htype: HiveType) -> list[object]:
    fields = htype.fields
    if isinstance(value, Mapping):
        if set(value) - {name for name, _ in fields}:
            raise AcidFormatError(f"bucketing value {value!r} is not a {htype.to_string()}")
        return [value.get(name) for name, _ in fields]
    if isinstance(value, (list, tuple)) and len(value) == len(fields):
        return list(value)
    raise AcidFormatError(f"bucketing value {value!r} is not a {htype.to_string()}")


def _list_values(value: object, htype: HiveType) -> list[object]:
    if isinstance(value, (list, tuple, np.ndarray)):
        return list(value)
    raise AcidFormatError(f"bucketing value {value!r} is not a {htype.to_string()}")


def _hash_v1(value: object, t: HiveType) -> int:
    """``ObjectInspectorUtils.hashCode`` as an unsigned 32-bit pattern."""
    if value is None:
        return 0
    name = t.name
    if name == "boolean":
        if not isinstance(value, (bool, np.bool_)):
            raise AcidFormatError(f"bucketing value {value!r} is not a boolean")
        return 1 if value else 0
    if name in _INTEGER_BITS:
        v = _check_int(value, t) & _M64
        return (v ^ (v >> 32)) & _M32 if name == "bigint" else v & _M32
    if name == "float":
        return _float_bits(_check_float(value, t))
    if name == "double":
        bits = _double_bits(_check_float(value, t))
        return (bits ^ (bits >> 32)) & _M32
    if name == "string":
        return _java_hash_bytes(_text_bytes(value, t), 0)
    if name in ("varchar", "char"):
        return _java_hash_bytes(_text_bytes(value, t), 1)  # Text.hashCode (char: of the stripped value)
    if name == "binary":
        return _java_hash_bytes(_check_binary(value), 1)  # BytesWritable.hashCode
    if name == "date":
        return _epoch_day(value) & _M32  # DateWritableV2.hashCode: days since epoch
    if name == "timestamp":
        seconds, nanos = _seconds_nanos(value)
        bits = ((seconds << 30) | nanos) & _M64  # TimestampWritableV2.hashCode
        return (bits ^ (bits >> 32)) & _M32
    if name == "decimal":
        unscaled, scale = _decimal_parts(value, t)
        return (31 * _big_integer_hash(unscaled) + scale) & _M32  # BigDecimal.hashCode
    if name == "array":
        r = 0
        for element in _list_values(value, t):
            r = (31 * r + _hash_v1(element, t.children[0])) & _M32
        return r
    if name == "map":
        key_type, value_type = t.children
        r = 0
        for k, item in _map_items(value, t):
            r = (r + (_hash_v1(k, key_type) ^ _hash_v1(item, value_type))) & _M32
        return r
    if name == "struct":
        r = 0
        for field_value, (_, field_type) in zip(_struct_values(value, t), t.fields, strict=True):
            r = (31 * r + _hash_v1(field_value, field_type)) & _M32
        return r
    raise AcidFormatError(f"type {t.to_string()} cannot be a bucketing column")


def _hash_v2(value: object, t: HiveType) -> int:
    """``ObjectInspectorUtils.hashCodeMurmur`` as an unsigned 32-bit pattern."""
    if value is None:
        return 0
    name = t.name
    if name == "boolean" or name == "tinyint":
        return _hash_v1(value, t)  # 1/0 and the byte value itself, no murmur
    if name in ("smallint", "int", "bigint"):
        width = _INTEGER_BITS[name] // 8
        return murmur3_32(_check_int(value, t).to_bytes(width, "big", signed=True)) & _M32
    if name == "float":
        # putFloat(Float.floatToIntBits(f)): the int bit pattern converted to float as a number, then its raw bits.
        as_float = float(np.float32(_signed32(_float_bits(_check_float(value, t)))))
        return murmur3_32(struct.pack(">f", as_float)) & _M32
    if name == "double":
        as_double = float(_java_signed64(_double_bits(_check_float(value, t))))
        return murmur3_32(struct.pack(">d", as_double)) & _M32
    if name in _STRING_TYPES:
        return murmur3_32(_text_bytes(value, t)) & _M32
    if name == "binary":
        # Hive hashes BytesWritable.getBytes(), the whole backing array: a writable filled by set() has 1.5x
        # capacity, so Hive's own v2 binary hash can include zero padding. We hash the value's bytes, which is
        # what Hive computes for a writable sized to its value (new BytesWritable(bytes)).
        return murmur3_32(_check_binary(value)) & _M32
    if name == "date":
        return murmur3_32(_epoch_day(value).to_bytes(4, "big", signed=True)) & _M32
    if name == "timestamp":
        return murmur3_32(_timestamp_writable_bytes(*_seconds_nanos(value))) & _M32
    if name == "decimal":
        unscaled, _ = _decimal_parts(value, t)
        return murmur3_32(_big_integer_bytes(unscaled)) & _M32  # HiveDecimalWritable.getInternalStorage
    if name == "array":
        r = 0
        for element in _list_values(value, t):
            r = (31 * r + _hash_v2(element, t.children[0])) & _M32
        return r
    if name == "map":
        key_type, value_type = t.children
        r = 0
        for k, v in _map_items(value, t):
            # Sic: keys with murmur, values with the version-1 hash (hashCodeMurmur's MAP case).
            r = (r + (_hash_v2(k, key_type) ^ _hash_v1(v, value_type))) & _M32
        return r
    if name == "struct":
        r = 0
        for field_value, (_, field_type) in zip(_struct_values(value, t), t.fields, strict=True):
            r = (31 * r + _hash_v2(field_value, field_type)) & _M32
        return r
    raise AcidFormatError(f"type {t.to_string()} cannot be a bucketing column")


def _check_float(value: object, t: HiveType) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise AcidFormatError(f"bucketing value {value!r} is not a {t.name}")
    return float(value)


def _check_binary(value: object) -> bytes:
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise AcidFormatError(f"bucketing value {value!r} is not binary")
    return bytes(value)


def _check_type(t: object) -> HiveType:
    if not isinstance(t, HiveType):
        raise AcidFormatError(f"expected a HiveType, got {type(t).__name__}")
    if t.name in _SUPPORTED:
        for child in t.children:
            _check_type(child[1] if isinstance(child, tuple) else child)
        return t
    raise AcidFormatError(f"type {t.to_string()} cannot be a bucketing column")


_SUPPORTED = frozenset(
    {*_INTEGER_BITS, "boolean", "float", "double", "decimal", *_STRING_TYPES, "binary", "date", "timestamp"}
    | {"array", "map", "struct"}
)


def field_hash(value: object, hive_type: HiveType, version: int) -> int:
    """Hive's hash of one bucketing-column value (signed 32-bit): version 2 = Murmur3, version 1 = Java style.

    Python values as Arrow's ``to_pylist`` gives them: int, bool, float, str, bytes, ``datetime.date``,
    naive ``datetime.datetime`` (wall clock), ``decimal.Decimal``, list, dict or list of pairs for maps,
    dict or tuple for structs; None is NULL.
    """
    _check_version(version)
    _check_type(hive_type)
    return _signed32(_hash_v2(value, hive_type) if version == 2 else _hash_v1(value, hive_type))


def row_hash(values: Sequence[object], types: Sequence[HiveType], version: int) -> int:
    """The row's bucket hash: ``h = 31 * h + field_hash`` over the bucketing columns (signed 32-bit)."""
    _check_version(version)
    if len(values) != len(types) or not types:
        raise AcidFormatError(f"{len(values)} bucketing values for {len(types)} bucketing columns")
    h = 0
    for value, t in zip(values, types, strict=True):
        h = (31 * h + field_hash(value, t, version)) & _M32
    return _signed32(h)


def _check_buckets(num_buckets: int) -> None:
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, (int, np.integer)) or num_buckets <= 0:
        raise AcidFormatError(f"number of buckets must be > 0, got {num_buckets!r}")


def bucket_number(values: Sequence[object], types: Sequence[HiveType], num_buckets: int, version: int) -> int:
    """``(row_hash & 0x7fffffff) % num_buckets``: the N of the row's ``bucket_N`` file."""
    _check_buckets(num_buckets)
    return (row_hash(values, types, version) & _INT_MAX) % int(num_buckets)


# ---------------------------------------------------------------------------------------------------------
# Vectorized: Arrow columns -> numpy
# ---------------------------------------------------------------------------------------------------------

_U32 = np.uint32


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << _U32(r)) | (x >> _U32(32 - r))


def _mix_k_np(k: np.ndarray) -> np.ndarray:
    return _rotl(k * _U32(_C1), 15) * _U32(_C2)


def _murmur3_rows(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Hive's Murmur3 over ``data[starts[i] : starts[i] + lengths[i]]`` for every row at once (uint32 results).

    Block ``j`` of all rows long enough is mixed in one numpy step; rows are ordered by length so each step works
    on a prefix, which keeps a few long values from slowing down a batch of short ones.
    """
    n = len(lengths)
    h = np.full(n, MURMUR3_SEED, dtype=_U32)
    if n == 0:
        return h
    lengths = lengths.astype(np.int64, copy=False)
    starts = starts.astype(np.int64, copy=False)
    nblocks = lengths >> 2
    max_blocks = int(nblocks.max())
    if max_blocks:
        uniform = bool((nblocks == max_blocks).all())
        order = np.arange(n) if uniform else np.argsort(-nblocks, kind="stable")
        sorted_blocks = nblocks[order]
        for j in range(max_blocks):
            count = n if uniform else int(np.searchsorted(-sorted_blocks, -j, side="left"))
            rows = order[:count]
            pos = starts[rows] + 4 * j
            k = (
                data[pos].astype(_U32)
                | (data[pos + 1].astype(_U32) << _U32(8))
                | (data[pos + 2].astype(_U32) << _U32(16))
                | (data[pos + 3].astype(_U32) << _U32(24))
            )
            hr = h[rows] ^ _mix_k_np(k)
            h[rows] = _rotl(hr, 13) * _U32(5) + _U32(0xE6546B64)
    rem = lengths & 3
    if rem.any():
        signed = data.view(np.int8)
        tail_rows = np.nonzero(rem)[0]
        idx = starts[tail_rows] + (nblocks[tail_rows] << 2)
        r = rem[tail_rows]
        k1 = np.zeros(len(tail_rows), dtype=_U32)
        for offset, shift in ((2, 16), (1, 8), (0, 0)):
            has = r > offset
            if has.any():
                sb = signed[idx[has] + offset].astype(np.int32).view(_U32)
                k1[has] ^= sb << _U32(shift)
        h[tail_rows] ^= _mix_k_np(k1)
    h ^= lengths.astype(_U32)
    h ^= h >> _U32(16)
    h *= _U32(0x85EBCA6B)
    h ^= h >> _U32(13)
    h *= _U32(0xC2B2AE35)
    h ^= h >> _U32(16)
    return h


def _fixed_murmur(big_endian: np.ndarray) -> np.ndarray:
    """Murmur3 of each element's big-endian bytes (a ``>i2``/``>i4``/``>i8``/``>f4``/``>f8`` array)."""
    width = big_endian.dtype.itemsize
    data = np.ascontiguousarray(big_endian).view(np.uint8)
    n = len(big_endian)
    return _murmur3_rows(data, np.arange(n, dtype=np.int64) * width, np.full(n, width, dtype=np.int64))


def _java_hash_rows(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, start: int) -> np.ndarray:
    """``r = 31 * r + (signed) b`` over each row's bytes, vectorized like :func:`_murmur3_rows`."""
    n = len(lengths)
    r = np.full(n, start, dtype=_U32)
    if n == 0:
        return r
    max_len = int(lengths.max())
    if not max_len:
        return r
    signed = data.view(np.int8)
    order = np.argsort(-lengths, kind="stable")
    sorted_lengths = lengths[order]
    for j in range(max_len):
        count = int(np.searchsorted(-sorted_lengths, -j, side="left"))
        rows = order[:count]
        b = signed[starts[rows] + j].astype(np.int32).view(_U32)
        r[rows] = r[rows] * _U32(31) + b
    return r


def _binary_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(data bytes, starts, lengths) of a string/binary Arrow array, honouring its slice offset."""
    large = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    buffers = arr.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64 if large else np.int32)[
        arr.offset : arr.offset + len(arr) + 1
    ].astype(np.int64)
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    if len(data) == 0:  # all values empty: keep indexing valid
        data = np.zeros(1, dtype=np.uint8)
    return data, offsets[:-1], np.diff(offsets)


def _timestamp_seconds_nanos(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Wall-clock epoch seconds and nanoseconds of a tz-less Arrow timestamp array of any unit."""
    unit = arr.type.unit
    per_second = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}[unit]
    raw = pc.fill_null(arr.cast(pa.int64()), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    seconds = np.floor_divide(raw, per_second)
    nanos = (raw - seconds * per_second) * (1_000_000_000 // per_second)
    return seconds, nanos


def _vlong_np(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorized :func:`_vlong`: a (n, 9) uint8 matrix and the byte length of each row."""
    n = len(values)
    out = np.zeros((n, 9), dtype=np.uint8)
    small = (values >= -112) & (values <= 127)
    out[small, 0] = (values[small] & 0xFF).astype(np.uint8)
    lengths = np.ones(n, dtype=np.int64)
    big = ~small
    if big.any():
        v = values[big]
        negative = v < 0
        mag = np.where(negative, ~v, v).astype(np.uint64)
        nbytes = np.zeros(len(v), dtype=np.int64)
        tmp = mag.copy()
        while tmp.any():
            nz = tmp != 0
            nbytes[nz] += 1
            tmp >>= np.uint64(8)
        marker = np.where(negative, -120, -112) - nbytes
        rows = np.zeros((len(v), 9), dtype=np.uint8)
        rows[:, 0] = (marker & 0xFF).astype(np.uint8)
        for i in range(8):  # byte i of the big-endian value goes to column 1 + i - (8 - nbytes)
            byte = ((mag >> np.uint64(8 * (7 - i))) & np.uint64(0xFF)).astype(np.uint8)
            col = 1 + i - (8 - nbytes)
            ok = col >= 1
            rows[np.nonzero(ok)[0], col[ok]] = byte[ok]
        out[big] = rows
        lengths[big] = 1 + nbytes
    return out, lengths


def _timestamp_v2(seconds: np.ndarray, nanos: np.ndarray) -> np.ndarray:
    """Vectorized murmur of :func:`_timestamp_writable_bytes`."""
    n = len(seconds)
    reversed_nanos = np.zeros(n, dtype=np.int64)
    rest = nanos.copy()
    for _ in range(9):
        reversed_nanos = reversed_nanos * 10 + rest % 10
        rest //= 10
    second_vint = (seconds < 0) | (seconds > _INT_MAX)
    flagged = second_vint | (reversed_nanos != 0)
    first = (seconds & _M32).astype(np.uint64)
    first = np.where(flagged, first | np.uint64(0x8000_0000), first & np.uint64(_INT_MAX)).astype(">u4")
    width = 4 + 9 + 9
    matrix = np.zeros((n, width), dtype=np.uint8)
    matrix[:, :4] = first.view(np.uint8).reshape(n, 4)
    lengths = np.full(n, 4, dtype=np.int64)
    v1_bytes, v1_len = _vlong_np(np.where(second_vint, -reversed_nanos - 1, reversed_nanos))
    v2_bytes, v2_len = _vlong_np(seconds >> 31)
    cols = np.arange(9)
    for rows, vb, vl in (
        (np.nonzero(flagged)[0], v1_bytes, v1_len),
        (np.nonzero(second_vint)[0], v2_bytes, v2_len),
    ):
        if len(rows) == 0:
            continue
        at = lengths[rows]
        target = at[:, None] + cols[None, :]
        keep = cols[None, :] < vl[rows][:, None]
        matrix[np.repeat(rows, keep.sum(axis=1)), target[keep]] = vb[rows][keep]
        lengths[rows] += vl[rows]
    return _murmur3_rows(matrix.reshape(-1), np.arange(n, dtype=np.int64) * width, lengths)


def _bit_length(x: np.ndarray) -> np.ndarray:
    """``int.bit_length`` of non-negative uint64 values."""
    x = x.copy()
    bits = np.zeros(len(x), dtype=np.int64)
    for shift in (32, 16, 8, 4, 2, 1):
        big = x >= np.uint64(1 << shift)
        bits[big] += shift
        x[big] >>= np.uint64(shift)
    return bits + (x > 0)


def _decimal_hashes(arr: pa.Array, t: HiveType, version: int) -> np.ndarray:
    """Decimal field hashes; unscaled values that fit in 64 bits are hashed with numpy, the rest one by one.

    Mirrors :func:`_decimal_parts` (trim trailing zeros) and then ``BigDecimal.hashCode`` (v1: ``31 * h + scale``
    with ``h`` the two 32-bit words ``31 * high + low``, negated for negative values) or the murmur of
    ``BigInteger.toByteArray`` (v2: the value's shortest two's complement, the tail of its 8 big-endian bytes).
    """
    if not pa.types.is_decimal128(arr.type) or arr.type.scale != t.scale:
        return _per_value(arr, t, version)
    n = len(arr)
    words = np.frombuffer(arr.buffers()[1], dtype=np.int64).reshape(-1, 2)[arr.offset : arr.offset + n]
    unscaled = words[:, 0].copy()
    fits = words[:, 1] == (unscaled >> 63)
    if arr.null_count:
        valid = arr.is_valid().to_numpy(zero_copy_only=False)
        unscaled[~valid] = 0
        fits |= ~valid
    unscaled[~fits] = 0
    scale = np.full(n, t.scale, dtype=np.int64)
    for _ in range(t.scale):
        trim = (scale > 0) & (unscaled % 10 == 0) & (unscaled != 0)
        if not trim.any():
            break
        unscaled[trim] //= 10
        scale[trim] -= 1
    scale[unscaled == 0] = 0
    raw = unscaled.view(np.uint64)
    negative = unscaled < 0
    if version == 1:
        magnitude = np.where(negative, ~raw + np.uint64(1), raw)
        h = (magnitude >> np.uint64(32)) * np.uint64(31) + (magnitude & np.uint64(_M32))
        h = np.where(negative, ~h + np.uint64(1), h) & np.uint64(_M32)
        hashes = (h * np.uint64(31) + scale.astype(np.uint64)).astype(_U32)
    else:
        nbytes = _bit_length(np.where(negative, ~raw, raw)) // 8 + 1
        data = unscaled.astype(">i8").view(np.uint8)
        hashes = _murmur3_rows(data, np.arange(n, dtype=np.int64) * 8 + (8 - nbytes), nbytes)
    if not fits.all():
        rest = np.nonzero(~fits)[0]
        hashes[rest] = _per_value(arr.take(pa.array(rest)), t, version)
    return hashes


_ARROW_INTEGER = {"tinyint": pa.int8(), "smallint": pa.int16(), "int": pa.int32(), "bigint": pa.int64()}


_ARROW_KINDS = {
    "tinyint": pa.types.is_integer,
    "smallint": pa.types.is_integer,
    "int": pa.types.is_integer,
    "bigint": pa.types.is_integer,
    "float": lambda at: pa.types.is_floating(at) or pa.types.is_integer(at),
    "double": lambda at: pa.types.is_floating(at) or pa.types.is_integer(at),
    "boolean": pa.types.is_boolean,
    "date": pa.types.is_date,
}


def _numpy_of(arr: pa.Array, arrow_type: pa.DataType, t: HiveType, fill: object) -> np.ndarray:
    """The column as a numpy array of ``arrow_type`` (nulls filled), refusing columns of another kind of type."""
    if not _ARROW_KINDS[t.name](arr.type):
        raise AcidFormatError(f"column of Arrow type {arr.type} cannot hold {t.to_string()} values")
    try:
        cast = arr.cast(arrow_type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise AcidFormatError(
            f"column of Arrow type {arr.type} cannot hold {t.to_string()} values: {e}"
        ) from None
    return pc.fill_null(cast, fill).to_numpy(zero_copy_only=False)


def _per_value(arr: pa.Array, t: HiveType, version: int) -> np.ndarray:
    scalar = _hash_v2 if version == 2 else _hash_v1
    return np.fromiter((scalar(v, t) for v in arr.to_pylist()), dtype=_U32, count=len(arr))


def _column_hashes(arr: pa.Array, t: HiveType, version: int) -> np.ndarray:
    """uint32 field hashes of one Arrow column; nulls hash to 0."""
    name = t.name
    n = len(arr)
    if name in _INTEGER_BITS:
        v = _numpy_of(arr, _ARROW_INTEGER[name], t, 0)
        if version == 1 or name == "tinyint":
            if name == "bigint":
                u = v.astype(np.int64).view(np.uint64)
                h = ((u ^ (u >> np.uint64(32))) & np.uint64(_M32)).astype(_U32)
            else:
                h = v.astype(np.int32).view(_U32)
        else:
            h = _fixed_murmur(v.astype(">" + v.dtype.str[1:]))
    elif name == "boolean":
        h = _numpy_of(arr, pa.bool_(), t, False).astype(_U32)
    elif name == "float":
        f = _numpy_of(arr, pa.float32(), t, 0.0).astype(np.float32)
        bits = np.where(np.isnan(f), _U32(_FLOAT_NAN_BITS), f.view(_U32))
        # v2: putFloat(floatToIntBits(f)) converts the int bit pattern to float as a number.
        h = bits if version == 1 else _fixed_murmur(bits.view(np.int32).astype(np.float32).astype(">f4"))
    elif name == "double":
        f = _numpy_of(arr, pa.float64(), t, 0.0).astype(np.float64)
        bits = np.where(np.isnan(f), np.uint64(_DOUBLE_NAN_BITS), f.view(np.uint64))
        if version == 1:
            h = ((bits ^ (bits >> np.uint64(32))) & np.uint64(_M32)).astype(_U32)
        else:
            h = _fixed_murmur(bits.view(np.int64).astype(np.float64).astype(">f8"))
    elif name == "date":
        days = _numpy_of(arr, pa.date32(), t, 0).astype("datetime64[D]").astype(np.int32)
        h = days.view(_U32) if version == 1 else _fixed_murmur(days.astype(">i4"))
    elif name == "timestamp":
        if not pa.types.is_timestamp(arr.type) or arr.type.tz is not None:
            raise AcidFormatError(f"column of Arrow type {arr.type} cannot hold wall-clock timestamp values")
        seconds, nanos = _timestamp_seconds_nanos(arr)
        if version == 1:
            bits = ((seconds << 30) | nanos).view(np.uint64)
            h = ((bits ^ (bits >> np.uint64(32))) & np.uint64(_M32)).astype(_U32)
        else:
            h = _timestamp_v2(seconds, nanos)
    elif name in _STRING_TYPES or name == "binary":
        expect = pa.types.is_binary if name == "binary" else pa.types.is_string
        large = pa.types.is_large_binary if name == "binary" else pa.types.is_large_string
        if not (expect(arr.type) or large(arr.type)):
            raise AcidFormatError(f"column of Arrow type {arr.type} cannot hold {t.to_string()} values")
        if name == "char":
            arr = pc.utf8_rtrim(arr, characters=" ")
        data, starts, lengths = _binary_buffers(arr)
        if version == 2:
            h = _murmur3_rows(data, starts, lengths)
        else:
            h = _java_hash_rows(data, starts, lengths, 0 if name == "string" else 1)
    elif name == "decimal":
        h = _decimal_hashes(arr, t, version)
    elif name in ("array", "map", "struct"):
        return _per_value(arr, t, version)
    else:
        raise AcidFormatError(f"type {t.to_string()} cannot be a bucketing column")
    if arr.null_count:
        h = np.where(arr.is_valid().to_numpy(zero_copy_only=False), h, _U32(0))
    return h.astype(_U32, copy=False) if len(h) == n else h


def row_hashes(
    columns: Sequence[pa.Array | pa.ChunkedArray], types: Sequence[HiveType], version: int
) -> np.ndarray:
    """:func:`row_hash` of every row of Arrow columns, as an int32 numpy array."""
    _check_version(version)
    if len(columns) != len(types) or not types:
        raise AcidFormatError(f"{len(columns)} bucketing columns for {len(types)} bucketing types")
    arrays = []
    for column in columns:
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        if not isinstance(column, pa.Array):
            raise AcidFormatError(f"expected an Arrow array, got {type(column).__name__}")
        arrays.append(column)
    n = len(arrays[0])
    if any(len(a) != n for a in arrays):
        raise AcidFormatError("bucketing columns have different lengths")
    h = np.zeros(n, dtype=_U32)
    for arr, t in zip(arrays, types, strict=True):
        h = h * _U32(31) + _column_hashes(arr, _check_type(t), version)
    return h.view(np.int32)


def bucket_numbers(
    columns: Sequence[pa.Array | pa.ChunkedArray], types: Sequence[HiveType], num_buckets: int, version: int
) -> np.ndarray:
    """:func:`bucket_number` of every row of Arrow columns (int32), for ``mapInArrow`` batches.

    Columns arrive as Spark writes them to Arrow: int8/16/32/64, float32/64, bool, date32, ``timestamp[us]``
    without a time zone holding the wall-clock value, decimal128, string or large_string (char values may be
    space-padded), binary, list/map/struct. Primitive types are hashed with numpy (decimals beyond 64-bit
    unscaled values and nested types value by value).
    """
    _check_buckets(num_buckets)
    hashes = row_hashes(columns, types, version).view(_U32)
    return ((hashes & _U32(_INT_MAX)) % _U32(num_buckets)).astype(np.int32)
