"""TensorBoard event files without TensorFlow: read every scalar out, write scalars in.

An event file is a stream of TFRecords, each framed as

    uint64 length | uint32 masked crc32c(length) | data[length] | uint32 masked crc32c(data)

and each record's data is an `Event` protobuf.  We decode only the few fields a scalar needs:

    Event         wall_time=1 (double), step=2 (int64), summary=5 (Summary)
    Summary       value=1 (repeated Value)
    Value         tag=1, simple_value=2 (float), metadata=9 (plugin name), tensor=8 (TensorProto);
                  histo=5 / image=4 / audio=6 / old histogram=3 are not scalars
    TensorProto   dtype=1, tensor_shape=2, tensor_content=4, float_val=5, double_val=6, int_val=7,
                  int64_val=10, bool_val=11, half_val=13, uint32_val=16, uint64_val=17

PyTorch's SummaryWriter writes `simple_value`; TF2's `tf.summary.scalar` writes a rank-0 tensor.
Anything else (histograms, images, text, hparams, tensors of more than one element) is skipped and
counted.  A record cut short at the end of a file is a trainer still writing: we stop there without
an error.  A checksum mismatch is corruption: `InputError` naming the file and the byte offset.

Both checksums of every record are verified.  crc32c is written here (a 256-entry table); to stay
fast without a C extension, the checksums of a whole file are computed in one numpy pass per byte
position across all records at once.
"""

from __future__ import annotations

import math
import os
import socket
import struct
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from ..errors import InputError, NotAFile

__all__ = ["iter_scalars", "write_scalars", "is_event_file", "event_files", "frame_records", "encode_event",
           "crc32c", "masked_crc32c"]

PATTERN = "events.out.tfevents.*"
_LONG = 4096  # records longer than this (graphs, images) get the per-byte crc, not the batch one
_NOT_SCALAR_PLUGINS = frozenset({"histograms", "images", "audio", "text", "hparams", "pr_curves",
                                 "mesh", "custom_scalars", "graphs", "projector", "distributions"})

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


def _masked_many(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
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
        s = int(starts[i])
        out[i] = crc32c(buf[s:s + int(lengths[i])].tobytes())
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


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
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


def _fields(buf: bytes, pos: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """(field number, wire type, value or start, end) for each field of the message in buf[pos:end].

    varint: value is the integer; fixed64/fixed32/length-delimited: value is the start offset.
    """
    while pos < end:
        key, pos = _varint(buf, pos)
        wt = key & 7
        if wt == 0:
            v, pos = _varint(buf, pos)
            yield key >> 3, 0, v, pos
            continue
        if wt == 2:
            n, pos = _varint(buf, pos)
        nxt = pos + n if wt == 2 else _skip(buf, pos, wt)
        yield key >> 3, wt, pos, nxt
        pos = nxt
    if pos != end:
        raise ValueError("field runs past its message")


def _skip(buf: bytes, pos: int, wt: int) -> int:
    """Offset just past one field value of wire type `wt` starting at `pos`."""
    if wt == 0:
        return _varint(buf, pos)[1]
    if wt == 2:
        n, pos = _varint(buf, pos)
        return pos + n
    if wt in (1, 5):
        return pos + (8 if wt == 1 else 4)
    raise ValueError(f"wire type {wt}")


def _key(field: int, wire: int) -> bytes:
    return _enc_varint(field << 3 | wire)


def _enc_varint(v: int) -> bytes:
    v &= (1 << 64) - 1  # negative int64 -> two's complement, ten bytes
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _enc_bytes(field: int, payload: bytes) -> bytes:
    return _key(field, 2) + _enc_varint(len(payload)) + payload


# TensorFlow DataType -> struct code of one element.  bfloat16 (14) is read as its 16 raw bits.
_DTYPES = {1: "<f", 2: "<d", 3: "<i", 4: "<B", 5: "<h", 6: "<b", 9: "<q", 10: "<?", 14: "<H", 17: "<H",
           19: "<e", 22: "<I", 23: "<Q"}
_VALUE_FIELDS = (5, 6, 7, 10, 11, 13, 16, 17)  # float_val, double_val, int_val, int64_val, bool_val, ...


def _tensor_scalar(buf: bytes, pos: int, end: int) -> float | None:
    """The value of a one-element numeric TensorProto, or None when it is not one."""
    dtype, count, raw = 0, 1, None
    for f, wt, a, b in _fields(buf, pos, end):
        if f == 1 and wt == 0:
            dtype = a
        elif f == 2 and wt == 2:  # TensorShapeProto: dim=2 { size=1 }
            for df, dwt, da, db in _fields(buf, a, b):
                if df == 2 and dwt == 2:
                    count *= next((sa for sf, swt, sa, _ in _fields(buf, da, db) if sf == 1 and swt == 0), 1)
        elif f == 4 and wt == 2:  # tensor_content: the raw little-endian bytes
            raw = buf[a:b]
        elif f in _VALUE_FIELDS and raw is None and (wt != 2 or b > a):
            # The typed repeated fields: float/double are fixed width, the rest varints (packed or
            # not).  Turn the first element back into bytes of the dtype's width.
            if f in (5, 6):
                raw = buf[a:a + (4 if f == 5 else 8)]
            else:
                v = _varint(buf, a)[0] if wt == 2 else a
                width = struct.calcsize(_DTYPES.get(dtype, "<q"))
                raw = (v & ((1 << 8 * width) - 1)).to_bytes(width, "little")
    code = _DTYPES.get(dtype)
    if code is None or count != 1:
        return None  # text, resource, complex; or a vector, matrix, histogram
    if raw is None:
        raw = bytes(struct.calcsize(code))  # a scalar tensor with no value is its dtype's zero
    if len(raw) != struct.calcsize(code):
        return None
    (value,) = struct.unpack(code, raw)
    if dtype == 14:  # bfloat16: the high half of a float32
        (value,) = struct.unpack("<f", struct.pack("<I", value << 16))
    return float(value)


# ---------------------------------------------------------------- reading


def event_files(path: str | os.PathLike) -> list[Path]:
    """The event files at `path`: the file itself, or every events.out.tfevents.* below a
    directory, sorted by path (one run's files then sort by their timestamp)."""
    p = Path(path)
    if p.is_dir():
        return sorted(f for f in p.rglob(PATTERN) if f.is_file())
    if p.is_file():
        return [p]
    raise NotAFile(f"{p}: no such file or directory.")


def is_event_file(path: str | os.PathLike) -> bool:
    """True when `path` is a file that starts with a valid TFRecord frame (whatever its name)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(12)
    except OSError:
        return False
    return len(head) == 12 and masked_crc32c(head[:8]) == struct.unpack("<I", head[8:])[0]


def _frames(path: Path, data: bytes, stats: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and lengths of the complete, checksum-verified records of one file."""
    n, off = len(data), 0
    offs: list[int] = []
    lens: list[int] = []
    unpack = struct.Struct("<Q").unpack_from
    while off + 12 <= n:
        (length,) = unpack(data, off)
        if off + 16 + length > n:
            break  # cut short: checked below
        offs.append(off)
        lens.append(length)
        off += 16 + length
    if off < n:
        # The tail is a record still being written, unless its length field is itself corrupt.
        if off + 12 <= n and masked_crc32c(data[off:off + 8]) != struct.unpack_from("<I", data, off + 8)[0]:
            raise InputError(f"{path}: corrupted TensorBoard record at byte offset {off} (length checksum).")
        stats["truncated TensorBoard record"] = stats.get("truncated TensorBoard record", 0) + 1
    o = np.array(offs, dtype=np.int64)
    ln = np.array(lens, dtype=np.int64)
    buf = np.frombuffer(data, dtype=np.uint8)

    def stored(at: np.ndarray) -> np.ndarray:
        return buf[at[:, None] + np.arange(4)].copy().view("<u4").ravel()

    for what, got, want in (("length", _masked_many(buf, o, np.full(o.size, 8)), stored(o + 8)),
                            ("data", _masked_many(buf, o + 12, ln), stored(o + 12 + ln))):
        bad = np.flatnonzero(got != want)
        if bad.size:
            raise InputError(f"{path}: corrupted TensorBoard record at byte offset {int(o[bad[0]])} "
                             f"({what} checksum).")
    return o + 12, ln


def _plugin_name(buf: bytes, a: int, b: int) -> str | None:
    """SummaryMetadata.plugin_data=1 { plugin_name=1 }."""
    for pa, pb in ((pa, pb) for f, wt, pa, pb in _fields(buf, a, b) if f == 1 and wt == 2):
        for na, nb in ((na, nb) for f, wt, na, nb in _fields(buf, pa, pb) if f == 1 and wt == 2):
            return buf[na:nb].decode("utf-8", "replace")
    return None


def _event_values(buf: bytes, pos: int, end: int, plugin: dict[str, str]
                  ) -> tuple[int, list[tuple[str, float | None]]]:
    """(step, [(tag, scalar or None)]) of one Event.  Written out by hand rather than with
    `_fields`: this loop runs once per scalar, and every field here has a one-byte key."""
    step, values = 0, []
    while pos < end:
        key = buf[pos]
        pos += 1
        if key == 0x09:  # wall_time
            pos += 8
        elif key == 0x10:  # step
            step, pos = _varint(buf, pos)
            if step >= 1 << 63:
                step -= 1 << 64
        elif key == 0x2A:  # summary
            n, p = _varint(buf, pos)
            pos = s_end = p + n
            while p < s_end:
                skey = buf[p]
                p += 1
                if skey != 0x0A:  # not Summary.value
                    if skey >= 0x80:
                        raise ValueError("unexpected field in Summary")
                    p = _skip(buf, p, skey & 7)
                    continue
                n = buf[p]  # one-byte lengths inline: the common case, and the hot loop
                n, p = (n, p + 1) if n < 0x80 else _varint(buf, p)
                v, v_end, p = p, p + n, p + n
                tag, value = "", None
                while v < v_end:
                    vkey = buf[v]
                    v += 1
                    if vkey == 0x0A:  # tag
                        n = buf[v]
                        n, v = (n, v + 1) if n < 0x80 else _varint(buf, v)
                        tag = buf[v:v + n].decode("utf-8", "replace")
                        v += n
                    elif vkey == 0x15:  # simple_value
                        value = _F32(buf, v)[0]
                        v += 4
                    elif vkey == 0x42:  # tensor
                        n, v = _varint(buf, v)
                        value = _tensor_scalar(buf, v, v + n)
                        v += n
                    elif vkey == 0x4A:  # metadata
                        n, v = _varint(buf, v)
                        name = _plugin_name(buf, v, v + n)
                        if name:  # TF2 names the plugin only in a tag's first event: remember it
                            plugin[tag] = name
                        v += n
                    elif vkey < 0x80:
                        v = _skip(buf, v, vkey & 7)
                    else:
                        raise ValueError("unexpected field in Summary.Value")
                if v != v_end:
                    raise ValueError("Summary.Value runs past its end")
                if plugin.get(tag) in _NOT_SCALAR_PLUGINS:
                    value = None
                values.append((tag, value))
            if p != s_end:
                raise ValueError("Summary runs past its end")
        elif key < 0x80:
            pos = _skip(buf, pos, key & 7)  # wall_time, file_version, graph_def, session_log, ...
        else:
            pos = _skip(buf, _varint(buf, pos - 1)[1], key & 7)
    if pos != end:
        raise ValueError("Event runs past its end")
    return step, values


_F32 = struct.Struct("<f").unpack_from


def _scan(path: Path, stats: dict[str, int]) -> Iterator[tuple[str, int, float]]:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise NotAFile(f"{path}: cannot be read ({e.strerror or e}).") from None
    starts, lengths = _frames(path, data, stats)
    skipped, plugin = 0, {}
    for start, length in zip(starts.tolist(), lengths.tolist()):
        try:
            step, values = _event_values(data, start, start + length, plugin)
        except (ValueError, IndexError, struct.error):
            raise InputError(f"{path}: malformed TensorBoard event at byte offset {start - 12}.") from None
        for tag, value in values:
            if value is None:  # histogram, image, text, a tensor of several elements, ...
                skipped += 1
            else:
                yield tag, step, value
    if skipped:
        stats["non-scalar TensorBoard values"] = stats.get("non-scalar TensorBoard values", 0) + skipped


def iter_scalars(path: str | os.PathLike, *, stats: dict[str, int] | None = None
                 ) -> Iterator[tuple[str, int, float]]:
    """Yield (tag, step, value) for every scalar in one event file or in every event file under a
    directory (sorted, recursive), in file order.  Values are float32 as stored, NaN/inf kept.

    `stats`, when given, receives counts of what was not yielded: "non-scalar TensorBoard values",
    "truncated TensorBoard record", and "files" read.
    """
    stats = {} if stats is None else stats
    files = event_files(path)
    if Path(path).is_dir() and not files:
        raise NotAFile(f"{path}: a directory with no TensorBoard event files ({PATTERN}).")
    for f in files:
        stats["files"] = stats.get("files", 0) + 1
        yield from _scan(f, stats)


# ---------------------------------------------------------------- writing

_seq = 0


def _f32(value: float) -> bytes:
    try:
        return struct.pack("<f", value)
    except OverflowError:  # beyond float32's range: TensorBoard would hold an infinity too
        return struct.pack("<f", math.copysign(math.inf, value))


def encode_event(wall_time: float, step: int, summary: bytes | None = None,
                 file_version: str | None = None) -> bytes:
    """One serialized Event (`summary` is an already serialized Summary message)."""
    out = _key(1, 1) + struct.pack("<d", wall_time)
    if step:
        out += _key(2, 0) + _enc_varint(step)
    if file_version is not None:
        out += _enc_bytes(3, file_version.encode())
    if summary is not None:
        out += _enc_bytes(5, summary)
    return out


def write_scalars(logdir: str | os.PathLike, records: Iterable[tuple[str, int, float]], *,
                  filename: str | None = None, wall_time: float | None = None, append: bool = False) -> Path:
    """Write (tag, step, value) records as a TensorBoard event file under `logdir`; return its path.

    A new file starts with the file_version event, as TensorFlow's writer does; each record becomes
    one Event with a float32 `simple_value`.  `append=True` adds to an existing file (a run that is
    still "training", for watch tests).  `wall_time` defaults to now.
    """
    global _seq
    d = Path(logdir)
    d.mkdir(parents=True, exist_ok=True)
    if filename is None:
        _seq += 1
        filename = f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}.{os.getpid()}.{_seq}"
    path = d / filename
    now = time.time() if wall_time is None else float(wall_time)
    payloads = [] if append and path.exists() and path.stat().st_size else [encode_event(now, 0, file_version="brain.Event:2")]
    for tag, step, value in records:
        summary = _enc_bytes(1, _enc_bytes(1, str(tag).encode()) + _key(2, 5) + _f32(float(value)))
        payloads.append(encode_event(now, int(step), summary))
    with open(path, "ab" if append else "wb") as fh:
        fh.write(frame_records(payloads))
    return path


def frame_records(payloads: list[bytes]) -> bytes:
    """TFRecord framing of serialized Events (both checksums computed in one batch)."""
    if not payloads:
        return b""
    lens = np.fromiter((len(p) for p in payloads), dtype=np.int64, count=len(payloads))
    starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
    head = np.frombuffer(lens.astype("<u8").tobytes(), dtype=np.uint8)
    len_crc = _masked_many(head, np.arange(lens.size, dtype=np.int64) * 8, np.full(lens.size, 8))
    data_crc = _masked_many(np.frombuffer(b"".join(payloads), dtype=np.uint8), starts, lens)
    pack_head, pack_crc = struct.Struct("<QI").pack, struct.Struct("<I").pack
    return b"".join(pack_head(n, lc) + p + pack_crc(dc)
                    for p, n, lc, dc in zip(payloads, lens.tolist(), len_crc.tolist(), data_crc.tolist()))
