"""TFRecord framing and the protobuf wire format, the two layers under a TensorBoard event file.

    uint64 length | uint32 masked crc32c(length) | data[length] | uint32 masked crc32c(data)

crc32c (Castagnoli, reflected) is written here with a 256-entry table; `masked_many` computes the
checksums of many records in one numpy pass per byte position, so a whole file is verified without
a C extension.  The protobuf helpers read and write varints and length-delimited fields: just what
`tensorboard.py` needs to decode and encode scalar Events.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

import numpy as np

__all__ = [
    "crc32c",
    "field_key",
    "frame_records",
    "iter_fields",
    "masked_crc32c",
    "masked_many",
    "read_varint",
    "skip_field",
    "write_bytes_field",
    "write_varint",
]

_LONG = 4096  # records longer than this (graphs, images) get the per-byte crc, not the batch one

# ---------------------------------------------------------------- crc32c (Castagnoli, reflected)


def _crc_entry(c: int) -> int:
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c


_TABLE = [_crc_entry(i) for i in range(256)]
_NP_TABLE = np.array(_TABLE, dtype=np.uint32)


def crc32c(data: bytes) -> int:
    """CRC-32C of `data` (the checksum TFRecord uses)."""
    crc, table = 0xFFFFFFFF, _TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    # TFRecord stores a rotated, offset crc so that a crc of data holding crcs stays well mixed.
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def masked_many(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Masked crc32c of many byte ranges of `buf` at once (uint32 array, in input order).

    Ranges are sorted longest first so that at byte position j the ranges still running are a
    prefix: one vectorised table step per position instead of one Python step per byte.
    """
    n = starts.size
    out = np.empty(n, dtype=np.uint32)
    if n == 0:
        return out
    long = lengths > _LONG
    for i in np.flatnonzero(long):
        at = int(starts[i])
        out[i] = crc32c(buf[at : at + int(lengths[i])].tobytes())
    short = np.flatnonzero(~long)
    order = short[np.argsort(-lengths[short], kind="stable")]
    s, ln = starts[order], lengths[order]
    crc = np.full(order.size, 0xFFFFFFFF, dtype=np.uint32)
    if order.size:
        active = np.searchsorted(-ln, -np.arange(int(ln[0])), side="left")  # how many have len > j
        for j, k in enumerate(active.tolist()):
            c = crc[:k]
            crc[:k] = _NP_TABLE[(c ^ buf[s[:k] + j]) & 0xFF] ^ (c >> 8)
        out[order] = crc ^ np.uint32(0xFFFFFFFF)
    c = out.astype(np.uint64)
    return ((((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF).astype(np.uint32)


# ---------------------------------------------------------------- protobuf, the little we need


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    b = buf[pos]
    if b < 0x80:
        return b, pos + 1
    result, shift = b & 0x7F, 7
    while True:
        pos += 1
        b = buf[pos]
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos + 1
        shift += 7
        if shift > 63:
            raise ValueError("varint longer than 64 bits")


def iter_fields(buf: bytes, pos: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """(field number, wire type, value or start, end) for each field of the message in buf[pos:end].

    varint: value is the integer; fixed64/fixed32/length-delimited: value is the start offset.
    """
    while pos < end:
        key, pos = read_varint(buf, pos)
        wt = key & 7
        if wt == 0:
            v, pos = read_varint(buf, pos)
            yield key >> 3, 0, v, pos
            continue
        if wt == 2:
            n, pos = read_varint(buf, pos)
        nxt = pos + n if wt == 2 else skip_field(buf, pos, wt)
        yield key >> 3, wt, pos, nxt
        pos = nxt
    if pos != end:
        raise ValueError("field runs past its message")


def skip_field(buf: bytes, pos: int, wt: int) -> int:
    """Offset just past one field value of wire type `wt` starting at `pos`."""
    if wt == 0:
        return read_varint(buf, pos)[1]
    if wt == 2:
        n, pos = read_varint(buf, pos)
        return pos + n
    if wt in (1, 5):
        return pos + (8 if wt == 1 else 4)
    raise ValueError(f"wire type {wt}")


def field_key(field: int, wire: int) -> bytes:
    return write_varint(field << 3 | wire)


def write_varint(v: int) -> bytes:
    v &= (1 << 64) - 1  # negative int64 -> two's complement, ten bytes
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def write_bytes_field(field: int, payload: bytes) -> bytes:
    return field_key(field, 2) + write_varint(len(payload)) + payload


# TensorFlow DataType -> struct code of one element.  bfloat16 (14) is read as its 16 raw bits.


def frame_records(payloads: list[bytes]) -> bytes:
    """TFRecord framing of serialized Events (both checksums computed in one batch)."""
    if not payloads:
        return b""
    lens = np.fromiter((len(p) for p in payloads), dtype=np.int64, count=len(payloads))
    starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
    head = np.frombuffer(lens.astype("<u8").tobytes(), dtype=np.uint8)
    len_crc = masked_many(head, np.arange(lens.size, dtype=np.int64) * 8, np.full(lens.size, 8))
    data_crc = masked_many(np.frombuffer(b"".join(payloads), dtype=np.uint8), starts, lens)
    pack_head, pack_crc = struct.Struct("<QI").pack, struct.Struct("<I").pack
    return b"".join(
        pack_head(n, lc) + p + pack_crc(dc)
        for p, n, lc, dc in zip(payloads, lens.tolist(), len_crc.tolist(), data_crc.tolist())
    )
