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

Both checksums of every record are verified; the framing, crc32c and the protobuf wire helpers
live in `tfrecord.py`.
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
from .tfrecord import (
    crc32c,
    field_key,
    frame_records,
    iter_fields,
    masked_crc32c,
    masked_many,
    read_varint,
    skip_field,
    write_bytes_field,
    write_varint,
)

__all__ = [
    "crc32c",
    "encode_event",
    "event_files",
    "frame_records",
    "is_event_file",
    "iter_scalars",
    "masked_crc32c",
    "write_scalars",
]

PATTERN = "events.out.tfevents.*"
_NOT_SCALAR_PLUGINS = frozenset(
    {
        "histograms",
        "images",
        "audio",
        "text",
        "hparams",
        "pr_curves",
        "mesh",
        "custom_scalars",
        "graphs",
        "projector",
        "distributions",
    }
)

_DTYPES = {
    1: "<f",
    2: "<d",
    3: "<i",
    4: "<B",
    5: "<h",
    6: "<b",
    9: "<q",
    10: "<?",
    14: "<H",
    17: "<H",
    19: "<e",
    22: "<I",
    23: "<Q",
}
_VALUE_FIELDS = (5, 6, 7, 10, 11, 13, 16, 17)  # float_val, double_val, int_val, int64_val, bool_val, ...


def _tensor_scalar(buf: bytes, pos: int, end: int) -> float | None:
    """The value of a one-element numeric TensorProto, or None when it is not one."""
    dtype, count, raw = 0, 1, None
    for f, wt, a, b in iter_fields(buf, pos, end):
        if f == 1 and wt == 0:
            dtype = a
        elif f == 2 and wt == 2:  # TensorShapeProto: dim=2 { size=1 }
            for df, dwt, da, db in iter_fields(buf, a, b):
                if df == 2 and dwt == 2:
                    count *= next((sa for sf, swt, sa, _ in iter_fields(buf, da, db) if sf == 1 and swt == 0), 1)
        elif f == 4 and wt == 2:  # tensor_content: the raw little-endian bytes
            raw = buf[a:b]
        elif f in _VALUE_FIELDS and raw is None and (wt != 2 or b > a):
            # The typed repeated fields: float/double are fixed width, the rest varints (packed or
            # not).  Turn the first element back into bytes of the dtype's width.
            if f in (5, 6):
                raw = buf[a : a + (4 if f == 5 else 8)]
            else:
                v = read_varint(buf, a)[0] if wt == 2 else a
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


def event_files(path: str | os.PathLike[str]) -> list[Path]:
    """The event files at `path`: the file itself, or every events.out.tfevents.* below a
    directory, sorted by path (one run's files then sort by their timestamp)."""
    p = Path(path)
    if p.is_dir():
        return sorted(f for f in p.rglob(PATTERN) if f.is_file())
    if p.is_file():
        return [p]
    raise NotAFile(f"{p}: no such file or directory.")


def is_event_file(path: str | os.PathLike[str]) -> bool:
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
        if off + 12 <= n and masked_crc32c(data[off : off + 8]) != struct.unpack_from("<I", data, off + 8)[0]:
            raise InputError(f"{path}: corrupted TensorBoard record at byte offset {off} (length checksum).")
        stats["truncated TensorBoard record"] = stats.get("truncated TensorBoard record", 0) + 1
    o = np.array(offs, dtype=np.int64)
    ln = np.array(lens, dtype=np.int64)
    buf = np.frombuffer(data, dtype=np.uint8)

    def stored(at: np.ndarray) -> np.ndarray:
        return buf[at[:, None] + np.arange(4)].copy().view("<u4").ravel()

    for what, got, want in (
        ("length", masked_many(buf, o, np.full(o.size, 8)), stored(o + 8)),
        ("data", masked_many(buf, o + 12, ln), stored(o + 12 + ln)),
    ):
        bad = np.flatnonzero(got != want)
        if bad.size:
            raise InputError(f"{path}: corrupted TensorBoard record at byte offset {int(o[bad[0]])} ({what} checksum).")
    return o + 12, ln


def _plugin_name(buf: bytes, a: int, b: int) -> str | None:
    """SummaryMetadata.plugin_data=1 { plugin_name=1 }."""
    for pa, pb in ((pa, pb) for f, wt, pa, pb in iter_fields(buf, a, b) if f == 1 and wt == 2):
        for na, nb in ((na, nb) for f, wt, na, nb in iter_fields(buf, pa, pb) if f == 1 and wt == 2):
            return buf[na:nb].decode("utf-8", "replace")
    return None


def _event_values(buf: bytes, pos: int, end: int, plugin: dict[str, str]) -> tuple[int, list[tuple[str, float | None]]]:
    """(step, [(tag, scalar or None)]) of one Event.  Written out by hand rather than with
    `iter_fields`: this loop runs once per scalar, and every field here has a one-byte key."""
    step, values = 0, []
    while pos < end:
        key = buf[pos]
        pos += 1
        if key == 0x09:  # wall_time
            pos += 8
        elif key == 0x10:  # step
            step, pos = read_varint(buf, pos)
            if step >= 1 << 63:
                step -= 1 << 64
        elif key == 0x2A:  # summary
            n, p = read_varint(buf, pos)
            pos = s_end = p + n
            while p < s_end:
                skey = buf[p]
                p += 1
                if skey != 0x0A:  # not Summary.value
                    if skey >= 0x80:
                        raise ValueError("unexpected field in Summary")
                    p = skip_field(buf, p, skey & 7)
                    continue
                n = buf[p]  # one-byte lengths inline: the common case, and the hot loop
                n, p = (n, p + 1) if n < 0x80 else read_varint(buf, p)
                v, v_end, p = p, p + n, p + n
                tag, value = "", None
                while v < v_end:
                    vkey = buf[v]
                    v += 1
                    if vkey == 0x0A:  # tag
                        n = buf[v]
                        n, v = (n, v + 1) if n < 0x80 else read_varint(buf, v)
                        tag = buf[v : v + n].decode("utf-8", "replace")
                        v += n
                    elif vkey == 0x15:  # simple_value
                        value = _F32(buf, v)[0]
                        v += 4
                    elif vkey == 0x42:  # tensor
                        n, v = read_varint(buf, v)
                        value = _tensor_scalar(buf, v, v + n)
                        v += n
                    elif vkey == 0x4A:  # metadata
                        n, v = read_varint(buf, v)
                        name = _plugin_name(buf, v, v + n)
                        if name:  # TF2 names the plugin only in a tag's first event: remember it
                            plugin[tag] = name
                        v += n
                    elif vkey < 0x80:
                        v = skip_field(buf, v, vkey & 7)
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
            pos = skip_field(buf, pos, key & 7)  # wall_time, file_version, graph_def, session_log, ...
        else:
            pos = skip_field(buf, read_varint(buf, pos - 1)[1], key & 7)
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
    skipped = 0
    plugin: dict[str, str] = {}
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


def iter_scalars(
    path: str | os.PathLike[str], *, stats: dict[str, int] | None = None, bad: list[str] | None = None
) -> Iterator[tuple[str, int, float]]:
    """Yield (tag, step, value) for every scalar in one event file or in every event file under a
    directory (sorted, recursive), in file order.  Values are float32 as stored, NaN/inf kept.

    `stats`, when given, receives counts of what was not yielded: "non-scalar TensorBoard values",
    "truncated TensorBoard record", and "files" read.

    In a directory, one damaged or unreadable file does not spoil the others: it is left out whole
    and, when `bad` is given, named there (its one-line reason); only when no file can be read is
    the first file's error raised.  A single file's error is raised as it is.
    """
    stats = {} if stats is None else stats
    files = event_files(path)
    if not Path(path).is_dir():
        for f in files:
            stats["files"] = stats.get("files", 0) + 1
            yield from _scan(f, stats)
        return
    if not files:
        raise NotAFile(f"{path}: a directory with no TensorBoard event files ({PATTERN}).")
    first: InputError | None = None
    read = 0
    for f in files:
        mine: dict[str, int] = {}
        try:
            records = list(_scan(f, mine))  # whole, or not at all
        except InputError as e:
            first = first or e
            if bad is not None:  # named from the folder: "eval/events…: corrupted record at …"
                bad.append(f"{f.relative_to(path)}: {str(e).replace(f'{f}: ', '', 1)}")
            continue
        read += 1
        stats["files"] = stats.get("files", 0) + 1
        for k, v in mine.items():
            stats[k] = stats.get(k, 0) + v
        yield from records
    if not read and first is not None:
        raise first


# ---------------------------------------------------------------- writing

_seq = 0


def _f32(value: float) -> bytes:
    try:
        return struct.pack("<f", value)
    except OverflowError:  # beyond float32's range: TensorBoard would hold an infinity too
        return struct.pack("<f", math.copysign(math.inf, value))


def encode_event(wall_time: float, step: int, summary: bytes | None = None, file_version: str | None = None) -> bytes:
    """One serialized Event (`summary` is an already serialized Summary message)."""
    out = field_key(1, 1) + struct.pack("<d", wall_time)
    if step:
        out += field_key(2, 0) + write_varint(step)
    if file_version is not None:
        out += write_bytes_field(3, file_version.encode())
    if summary is not None:
        out += write_bytes_field(5, summary)
    return out


def write_scalars(
    logdir: str | os.PathLike[str],
    records: Iterable[tuple[str, int, float]],
    *,
    filename: str | None = None,
    wall_time: float | None = None,
    append: bool = False,
) -> Path:
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
    payloads = (
        [] if append and path.exists() and path.stat().st_size else [encode_event(now, 0, file_version="brain.Event:2")]
    )
    for tag, step, value in records:
        summary = write_bytes_field(1, write_bytes_field(1, str(tag).encode()) + field_key(2, 5) + _f32(float(value)))
        payloads.append(encode_event(now, int(step), summary))
    with open(path, "ab" if append else "wb") as fh:
        fh.write(frame_records(payloads))
    return path
