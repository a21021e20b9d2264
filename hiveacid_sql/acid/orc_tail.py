"""Read and patch the tail of an ORC file: stripe row counts, column types, calendar and user metadata.

Why: pyarrow's ORC writer (ORC C++, Arrow in) is fast but can neither set user metadata (the
``hive.acid.*`` keys every ACID file needs) nor declare ``char(n)``/``varchar(n)`` columns. Both live in
the file Footer, after all the data, so the fast event writer lets ORC C++ write the file and rewrites the
Footer and PostScript on the way out. ORC encodes STRING, VARCHAR and CHAR columns identically, so turning
a STRING type into VARCHAR/CHAR with its ``maximumLength`` changes only the Footer.

The calendar (Footer field 11, ``CalendarKind``): dates and timestamps are day and second counts, and
which calendar turns them into ``yyyy-MM-dd`` matters before 1582-10-15. Hive 3.1 (ORC 1.5.x) and ORC C++
(pyorc, pyarrow) count in the proleptic Gregorian calendar and write no calendar field; ORC Java 1.5.9+
writes the field, ``JULIAN_GREGORIAN`` (the hybrid calendar of Hive 2, Spark and, by default, Hive 4)
unless ``orc.proleptic.gregorian`` is set, and its readers assume hybrid for a file without the field
(``orc.proleptic.gregorian.default`` = false, whose description says "Only Hive 3.1 and the C++ library
wrote using the proleptic"). So both our writers mark their files ``PROLEPTIC_GREGORIAN`` through this
module: Hive 3.1 ignores the field (same values), Hive 4, Spark and Trino then read the days as written.

Layout (apache/orc ``proto/orc_proto.proto`` and the ORC specification, "File Tail"): ``... stripes |
Metadata | Footer | PostScript | 1 byte PostScript length``. Metadata and Footer are compressed streams
unless the file is uncompressed: chunks, each behind a 3-byte little-endian header ``length << 1 |
original`` (``original`` = stored as is). The PostScript is never compressed and gives the lengths of
the Footer and Metadata, the compression kind and block size. All three are protocol buffers; this
module decodes just enough of the wire format to replace fields and keeps every other field's bytes.

This layer knows nothing of SQL, Spark or SQLAlchemy.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import BinaryIO

import pyarrow as pa

from hiveacid_sql.errors import AcidFormatError

__all__ = [
    "CALENDAR_JULIAN_GREGORIAN",
    "CALENDAR_PROLEPTIC_GREGORIAN",
    "TYPE_CHAR",
    "TYPE_STRING",
    "TYPE_VARCHAR",
    "OrcTail",
    "ProtoField",
    "TailPatchingSink",
    "decode_message",
    "encode_message",
    "patch_tail",
    "read_tail",
]

#: ``CalendarKind`` values of the Footer's ``calendar`` field (orc_proto.proto).
CALENDAR_JULIAN_GREGORIAN = 1
CALENDAR_PROLEPTIC_GREGORIAN = 2

#: ``Type.Kind`` values this module rewrites.
TYPE_STRING = 7
TYPE_VARCHAR = 16
TYPE_CHAR = 17

# CompressionKind (PostScript field 2).
_NONE, _ZLIB, _SNAPPY, _LZO, _LZ4, _ZSTD = range(6)
_CODEC_NAMES = {_NONE: "none", _ZLIB: "zlib", _SNAPPY: "snappy", _LZO: "lzo", _LZ4: "lz4", _ZSTD: "zstd"}

# Protocol buffer wire types.
_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5

# Field numbers (orc_proto.proto).
_PS_FOOTER_LENGTH, _PS_COMPRESSION, _PS_BLOCK_SIZE, _PS_METADATA_LENGTH = 1, 2, 3, 5
_FOOTER_STRIPES, _FOOTER_TYPES, _FOOTER_METADATA, _FOOTER_CALENDAR = 3, 4, 5, 11
_STRIPE_ROWS = 5
_TYPE_KIND, _TYPE_MAX_LENGTH = 1, 4
_ITEM_NAME, _ITEM_VALUE = 1, 2


@dataclass(frozen=True)
class ProtoField:
    """One encoded field: its number, wire type and value (an int for varints, the raw bytes otherwise)."""

    number: int
    wire: int
    value: int | bytes


def decode_message(data: bytes) -> list[ProtoField]:
    """The fields of one protocol buffer message, in the order they were written."""
    fields: list[ProtoField] = []
    pos = 0
    end = len(data)
    while pos < end:
        tag, pos = _read_varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == _VARINT:
            value, pos = _read_varint(data, pos)
            fields.append(ProtoField(number, wire, value))
        elif wire == _LEN:
            size, pos = _read_varint(data, pos)
            if pos + size > end:
                raise AcidFormatError("corrupt ORC tail: a protobuf field runs past the end of its message")
            fields.append(ProtoField(number, wire, bytes(data[pos : pos + size])))
            pos += size
        elif wire in (_I64, _I32):
            size = 8 if wire == _I64 else 4
            fields.append(ProtoField(number, wire, bytes(data[pos : pos + size])))
            pos += size
        else:
            raise AcidFormatError(f"corrupt ORC tail: protobuf wire type {wire} in field {number}")
    return fields


def encode_message(fields: Iterable[ProtoField]) -> bytes:
    """Encode fields in the given order (the inverse of :func:`decode_message`)."""
    out = bytearray()
    for f in fields:
        out += _varint(f.number << 3 | f.wire)
        if f.wire == _VARINT:
            out += _varint(f.value)  # type: ignore[arg-type]
        elif f.wire == _LEN:
            out += _varint(len(f.value))  # type: ignore[arg-type]
            out += f.value  # type: ignore[operator]
        else:
            out += f.value  # type: ignore[operator]
    return bytes(out)


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise AcidFormatError("corrupt ORC tail: truncated protobuf varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # int64 varints are two's complement on the wire
    out = bytearray()
    while True:
        bits = value & 0x7F
        value >>= 7
        if value:
            out.append(bits | 0x80)
        else:
            out.append(bits)
            return bytes(out)


def _get(fields: Sequence[ProtoField], number: int, default: int = 0) -> int:
    """The last value of a scalar varint field (protobuf: the last occurrence wins)."""
    value = default
    for f in fields:
        if f.number == number:
            value = f.value  # type: ignore[assignment]
    return value


# -- the tail -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OrcTail:
    """The decoded tail of an ORC file; ``footer_start`` is the Footer's offset inside the bytes read."""

    postscript: list[ProtoField]
    footer: list[ProtoField]
    footer_start: int

    @property
    def compression(self) -> int:
        """``CompressionKind`` (0 none, 1 zlib, 2 snappy, 3 lzo, 4 lz4, 5 zstd)."""
        return _get(self.postscript, _PS_COMPRESSION)

    @property
    def block_size(self) -> int:
        """Compression block size (ORC's default when absent)."""
        return _get(self.postscript, _PS_BLOCK_SIZE, 256 * 1024)

    @property
    def stripe_rows(self) -> list[int]:
        """``numberOfRows`` of every stripe, in file order."""
        return [
            _get(decode_message(f.value), _STRIPE_ROWS)  # type: ignore[arg-type]
            for f in self.footer
            if f.number == _FOOTER_STRIPES
        ]

    @property
    def stripe_ends(self) -> list[int]:
        """Rows in the file up to and including each stripe."""
        return list(accumulate(self.stripe_rows))

    @property
    def types(self) -> list[list[ProtoField]]:
        """The Footer's ``types`` (pre-order: 0 is the root struct), each as its decoded fields."""
        return [decode_message(f.value) for f in self.footer if f.number == _FOOTER_TYPES]  # type: ignore[arg-type]

    @property
    def calendar(self) -> int | None:
        """The Footer's ``CalendarKind`` (1 hybrid, 2 proleptic Gregorian); None when the writer set none."""
        values = [f.value for f in self.footer if f.number == _FOOTER_CALENDAR]
        return values[-1] if values else None  # type: ignore[return-value]

    @property
    def user_metadata(self) -> dict[str, bytes]:
        """The Footer's user metadata items."""
        out: dict[str, bytes] = {}
        for f in self.footer:
            if f.number == _FOOTER_METADATA:
                item = decode_message(f.value)  # type: ignore[arg-type]
                name = next((i.value for i in item if i.number == _ITEM_NAME), b"")
                value = next((i.value for i in item if i.number == _ITEM_VALUE), b"")
                out[name.decode("utf-8")] = value  # type: ignore[union-attr,assignment]
        return out


def read_tail(data: bytes) -> OrcTail:
    """Decode the PostScript and Footer at the end of ``data`` (the last bytes of an ORC file)."""
    if len(data) < 4:
        raise AcidFormatError("not an ORC file: too short for a tail")
    ps_length = data[-1]
    ps_start = len(data) - 1 - ps_length
    postscript = decode_message(data[ps_start:-1])
    magic = next((f.value for f in postscript if f.number == 8000), None)
    if magic != b"ORC":
        raise AcidFormatError("not an ORC file: no ORC magic in the PostScript")
    footer_length = _get(postscript, _PS_FOOTER_LENGTH)
    footer_start = ps_start - footer_length
    if footer_start < 0:
        raise AcidFormatError("ORC tail not complete: the Footer starts before the bytes given")
    kind = _get(postscript, _PS_COMPRESSION)
    footer = decode_message(_decompress(data[footer_start:ps_start], kind))
    return OrcTail(postscript, footer, footer_start)


def patch_tail(
    data: bytes,
    *,
    string_types: Mapping[int, tuple[int, int]] | None = None,
    metadata: Sequence[tuple[str, bytes]] = (),
    calendar: int | None = None,
) -> bytes:
    """``data`` (the end of an ORC file, whole Footer and PostScript included) with a rewritten tail.

    ``string_types`` maps a type id (the Footer's pre-order numbering) to ``(kind, maximumLength)``: a
    STRING type becomes VARCHAR or CHAR. ``metadata`` items are added as user metadata (replacing items
    of the same name). ``calendar`` sets the Footer's ``CalendarKind``. Every other Footer field keeps its
    bytes; the Footer is re-compressed with the file's codec and the PostScript's ``footerLength`` updated.
    Everything before the Footer (stripes, stripe statistics) is returned unchanged.
    """
    tail = read_tail(data)
    names = {name for name, _ in metadata}
    footer: list[ProtoField] = []
    type_id = 0
    for f in tail.footer:
        if f.number == _FOOTER_TYPES:
            patch = (string_types or {}).get(type_id)
            if patch is not None:
                f = ProtoField(f.number, f.wire, _patch_type(f.value, type_id, *patch))  # type: ignore[arg-type]
            type_id += 1
        elif _replaced(f, names, calendar):
            continue
        footer.append(f)
    missing = sorted(set(string_types or {}) - set(range(type_id)))
    if missing:
        raise AcidFormatError(f"ORC footer has no type ids {missing} to patch")
    for name, value in metadata:
        item = encode_message([ProtoField(_ITEM_NAME, _LEN, name.encode("utf-8")), ProtoField(_ITEM_VALUE, _LEN, value)])
        footer.append(ProtoField(_FOOTER_METADATA, _LEN, item))
    if calendar is not None:
        footer.append(ProtoField(_FOOTER_CALENDAR, _VARINT, calendar))
    # Fields in field-number order, as protobuf serializers write them (repeated fields keep their order).
    footer.sort(key=lambda f: f.number)
    new_footer = _compress(encode_message(footer), tail.compression, tail.block_size)
    postscript = [
        ProtoField(f.number, f.wire, len(new_footer)) if f.number == _PS_FOOTER_LENGTH else f for f in tail.postscript
    ]
    new_ps = encode_message(postscript)
    if len(new_ps) > 255:
        raise AcidFormatError("ORC PostScript longer than 255 bytes")
    return bytes(data[: tail.footer_start]) + new_footer + new_ps + bytes([len(new_ps)])


class TailPatchingSink:
    """The file object an ORC writer writes to: bytes go straight to ``out``, except those written while
    capturing (during the writer's close: the last stripe and the tail), which are held to be patched.

    So a writer whose tail we rewrite (:func:`patch_tail`) still streams: it never seeks and works on
    non-seekable outputs (S3 through ``pyarrow.fs``). Never closes ``out``.
    """

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._captured: bytearray | None = None
        self._discarding = False
        self.closed = False

    def write(self, data: bytes) -> int:
        if self._discarding:
            pass
        elif self._captured is not None:
            self._captured += data
        else:
            self._out.write(data)
        return len(data)

    def flush(self) -> None:
        """Nothing buffered here; the caller flushes its own stream."""

    def writable(self) -> bool:
        return True

    def close(self) -> None:
        self.closed = True

    def capture(self) -> None:
        """Hold every byte written from now on (call right before the writer's close)."""
        self._captured = bytearray()

    def captured(self) -> bytes:
        return bytes(self._captured or b"")

    def release(self, data: bytes) -> None:
        """Write the patched tail and drop anything the writer might write later."""
        self._out.write(data)
        self._captured = None
        self._discarding = True

    def discard(self) -> None:
        """Write nothing more to ``out`` (the file is abandoned)."""
        self._discarding = True


def _replaced(f: ProtoField, metadata_names: set[str], calendar: int | None) -> bool:
    """Whether a Footer field is one :func:`patch_tail` writes anew (a user metadata item, the calendar)."""
    if f.number == _FOOTER_METADATA:
        return _item_name(f.value) in metadata_names  # type: ignore[arg-type]
    return f.number == _FOOTER_CALENDAR and calendar is not None


def _patch_type(encoded: bytes, type_id: int, kind: int, max_length: int) -> bytes:
    fields = decode_message(encoded)
    current = _get(fields, _TYPE_KIND)
    if current != TYPE_STRING:
        raise AcidFormatError(f"ORC type {type_id} is kind {current}, not STRING: cannot make it kind {kind}")
    fields = [f for f in fields if f.number not in (_TYPE_KIND, _TYPE_MAX_LENGTH)]
    fields += [ProtoField(_TYPE_KIND, _VARINT, kind), ProtoField(_TYPE_MAX_LENGTH, _VARINT, max_length)]
    fields.sort(key=lambda f: f.number)
    return encode_message(fields)


def _item_name(encoded: bytes) -> str:
    return next((f.value for f in decode_message(encoded) if f.number == _ITEM_NAME), b"").decode("utf-8")  # type: ignore[union-attr]


# -- compressed streams -----------------------------------------------------------------------------------


def _decompress(data: bytes, kind: int) -> bytes:
    """A whole compressed ORC stream (Metadata or Footer) back to its protobuf bytes."""
    if kind == _NONE:
        return bytes(data)
    out = bytearray()
    pos = 0
    while pos < len(data):
        if pos + 3 > len(data):
            raise AcidFormatError("corrupt ORC tail: truncated compression chunk header")
        header = data[pos] | data[pos + 1] << 8 | data[pos + 2] << 16
        pos += 3
        size = header >> 1
        chunk = bytes(data[pos : pos + size])
        pos += size
        out += chunk if header & 1 else _decompress_chunk(chunk, kind)
    return bytes(out)


def _decompress_chunk(chunk: bytes, kind: int) -> bytes:
    if kind == _ZLIB:
        return zlib.decompress(chunk, wbits=-15)
    if kind == _SNAPPY:
        size, _ = _read_varint(chunk, 0)  # raw snappy starts with the uncompressed length
        return pa.Codec("snappy").decompress(chunk, decompressed_size=size, asbytes=True)
    if kind == _ZSTD:
        return pa.input_stream(pa.py_buffer(chunk), compression="zstd").read()
    if kind == _LZ4:
        return _lz4_block_decompress(chunk)
    raise AcidFormatError(f"cannot read an ORC tail compressed with {_CODEC_NAMES.get(kind, kind)}")


def _compress(data: bytes, kind: int, block_size: int) -> bytes:
    """``data`` as an ORC compressed stream: chunks of at most ``block_size`` input bytes, each stored
    compressed or, when that is not smaller, as is (the ``original`` bit), as ORC writers do."""
    if kind == _NONE:
        return data
    out = bytearray()
    for start in range(0, len(data), block_size):
        raw = data[start : start + block_size]
        packed = _compress_chunk(raw, kind)
        if len(packed) < len(raw):
            out += (len(packed) << 1).to_bytes(3, "little") + packed
        else:
            out += (len(raw) << 1 | 1).to_bytes(3, "little") + raw
    return bytes(out)


def _compress_chunk(raw: bytes, kind: int) -> bytes:
    if kind == _ZLIB:
        packer = zlib.compressobj(wbits=-15)
        return packer.compress(raw) + packer.flush()
    codec = {_SNAPPY: "snappy", _LZ4: "lz4_raw", _ZSTD: "zstd"}.get(kind)
    if codec is None or not pa.Codec.is_available(codec):
        return raw  # stored as is: always valid
    return pa.Codec(codec).compress(raw, asbytes=True)


def _lz4_block_decompress(src: bytes) -> bytes:
    """Decode one raw LZ4 block (what ORC's LZ4 codec writes); the Footer is small, so plain Python."""
    out = bytearray()
    pos = 0
    end = len(src)
    while pos < end:
        token = src[pos]
        pos += 1
        literals = token >> 4
        if literals == 15:
            while True:
                extra = src[pos]
                pos += 1
                literals += extra
                if extra != 255:
                    break
        out += src[pos : pos + literals]
        pos += literals
        if pos >= end:  # the last sequence has literals only
            break
        offset = src[pos] | src[pos + 1] << 8
        pos += 2
        length = token & 15
        if length == 15:
            while True:
                extra = src[pos]
                pos += 1
                length += extra
                if extra != 255:
                    break
        length += 4
        start = len(out) - offset
        if offset == 0 or start < 0:
            raise AcidFormatError("corrupt LZ4 block in ORC tail")
        for i in range(length):  # may overlap its own output
            out.append(out[start + i])
    return bytes(out)
