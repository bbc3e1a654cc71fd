"""The dependency-free TensorBoard reader/writer: framing, checksums, scalar kinds, cut-off files."""

from __future__ import annotations

import base64
import math
import struct

import numpy as np
import pytest

from rlvitals.errors import InputError, NotAFile
from rlvitals.ingest import tensorboard as tb
from rlvitals.ingest import tfrecord as wire
from rlvitals.ingest.tensorboard import (
    crc32c,
    encode_event,
    event_files,
    frame_records,
    is_event_file,
    iter_scalars,
    write_scalars,
)

# An event file written by TensorBoard's own writer (tensorboard 2.21.0 EventFileWriter, Events
# built with the official protobuf classes and tensor_util.make_tensor_proto), 736 bytes:
#   1 train/reward simple 0.5 | 2 train/reward simple NaN | 3 actor/entropy float32 tensor 1.25 with
#   plugin "scalars" | 4 actor/entropy float64 tensor -0.75 | 5 count int64 tensor -3 | 6 vec float32 [3]
#   | 7 h float64 [4,3] plugin "histograms" | 8 old_histo HistogramProto | 2**40 train/reward simple
#   1e-6 and half float16 tensor 0.5
TENSORBOARD_WRITTEN = base64.b64decode(
    "SAAAAAAAAAD+kkidCX4mwqZjw9pBGg1icmFpbi5FdmVudDoyUi4KLHRlbnNvcmJvYXJkLnN1bW1hcnkud3JpdGVyLmV2ZW50"
    "X2ZpbGVfd3JpdGVylEY3XyIAAAAAAAAAeBE9/QkAAABA/FTZQRABKhUKEwoMdHJhaW4vcmV3YXJkFQAAAD+CSpU3IgAAAAAA"
    "AAB4ET39CQAAAED8VNlBEAIqFQoTCgx0cmFpbi9yZXdhcmQVAADAf2Qt2lc3AAAAAAAAAOfoylkJAAAAQPxU2UEQAyoqCigK"
    "DWFjdG9yL2VudHJvcHlCCggBEgAqBAAAoD9KCwoJCgdzY2FsYXJzLrj51C4AAAAAAAAAxctX+gkAAABA/FTZQRAEKiEKHwoN"
    "YWN0b3IvZW50cm9weUIOCAISADIIAAAAAAAA6L80X7mmKAAAAAAAAAD/cBZKCQAAAED8VNlBEAUqGwoZCgVjb3VudEIQCAkS"
    "AFIK/f//////////Aeq0Kh4sAAAAAAAAAPSuzEUJAAAAQPxU2UEQBiofCh0KA3ZlY0IWCAESBBICCAMiDAAAgD8AAABAAABA"
    "QGK7Ce6UAAAAAAAAAF0l8QAJAAAAQPxU2UEQByqGAQqDAQoBaEJuCAISCBICCAQSAggDImAAAAAAAAAAAAAAAAAAAAAAAAAA"
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    "AAAAAABKDgoMCgpoaXN0b2dyYW1zqy5tJy4AAAAAAAAAxctX+gkAAABA/FTZQRAIKiEKHwoJb2xkX2hpc3RvKhIRAAAAAAAA"
    "8D8ZAAAAAAAAAECT9aN+OQAAAAAAAACLBzfxCQAAAED8VNlBEICAgICAIConChMKDHRyYWluL3Jld2FyZBW9N4Y1ChAKBGhh"
    "bGZCCAgTEgBqAoBwtvbjIw=="
)


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def value(
    tag: str,
    *,
    simple: float | None = None,
    tensor: bytes | None = None,
    histo: bool = False,
    plugin: str | None = None,
) -> bytes:
    """A serialized Summary.Value (field numbers from TensorFlow's summary.proto)."""
    out = wire.write_bytes_field(1, tag.encode())
    if simple is not None:
        out += wire.field_key(2, 5) + struct.pack("<f", simple)
    if histo:
        out += wire.write_bytes_field(5, wire.field_key(1, 1) + struct.pack("<d", 0.0))
    if tensor is not None:
        out += wire.write_bytes_field(8, tensor)
    if plugin is not None:
        out += wire.write_bytes_field(9, wire.write_bytes_field(1, wire.write_bytes_field(1, plugin.encode())))
    return out


def tensor(
    dtype: int,
    dims: tuple[int, ...] = (),
    *,
    content: bytes | None = None,
    field: int | None = None,
    packed: bytes | None = None,
) -> bytes:
    """A serialized TensorProto."""
    out = wire.field_key(1, 0) + wire.write_varint(dtype)
    shape = b"".join(wire.write_bytes_field(2, wire.field_key(1, 0) + wire.write_varint(d)) for d in dims)
    out += wire.write_bytes_field(2, shape)
    if content is not None:
        out += wire.write_bytes_field(4, content)
    if field is not None:
        out += wire.write_bytes_field(field, packed)
    return out


def write_events(path, events: list[tuple[int, list[bytes]]]) -> None:
    payloads = [encode_event(1.0, 0, file_version="brain.Event:2")]
    payloads += [encode_event(2.0, step, b"".join(wire.write_bytes_field(1, v) for v in vals)) for step, vals in events]
    path.write_bytes(frame_records(payloads))


def test_crc32c_matches_the_standard_check_value_and_the_batch_path():
    assert crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value (RFC 3720)
    rng = np.random.default_rng(1)
    lengths = np.array([0, 1, 7, 8, 100, 5000, 3], dtype=np.int64)  # 5000 takes the per-byte path
    buf = rng.integers(0, 256, int(lengths.sum()), dtype=np.uint8)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    batch = wire.masked_many(buf, starts, lengths)
    single = [tb.masked_crc32c(buf[s : s + n].tobytes()) for s, n in zip(starts, lengths)]
    assert batch.tolist() == single


def test_round_trip_keeps_nan_negative_tiny_and_large_steps(tmp_path):
    records = [
        ("reward", 0, 0.5),
        ("reward", 1, -2.25),
        ("kl", 1, 1e-6),
        ("kl", 2, float("nan")),
        ("len", 2**40, 152.0),
        ("gnorm", 3, float("inf")),
        ("gnorm", 4, 1e39),
        ("neg", -5, 1.0),
    ]
    path = write_scalars(tmp_path, records)
    assert path.name.startswith("events.out.tfevents.")
    got = list(iter_scalars(path))
    assert [(t, s) for t, s, _ in got] == [(t, s) for t, s, _ in records]
    for (_, _, want), (_, _, have) in zip(records, got):
        if math.isnan(want):
            assert math.isnan(have)
        elif abs(want) > 3.5e38:
            assert have == math.inf  # beyond float32: stored as inf, as TensorBoard would
        else:
            assert have == f32(want)
    assert got[2][2] != 0.0 and abs(got[2][2] - 1e-6) < 1e-12


def test_first_event_is_file_version(tmp_path):
    path = write_scalars(tmp_path, [("a", 1, 1.0)])
    data = path.read_bytes()
    (n,) = struct.unpack_from("<Q", data)
    assert b"brain.Event:2" in data[12 : 12 + n]


def test_reads_a_file_written_by_tensorboard_itself(tmp_path):
    path = tmp_path / "events.out.tfevents.1796050587.vm.18948.0.real"
    path.write_bytes(TENSORBOARD_WRITTEN)
    assert is_event_file(path)
    stats: dict[str, int] = {}
    got = list(iter_scalars(path, stats=stats))
    assert [(t, s) for t, s, _ in got] == [
        ("train/reward", 1),
        ("train/reward", 2),
        ("actor/entropy", 3),
        ("actor/entropy", 4),
        ("count", 5),
        ("train/reward", 2**40),
        ("half", 2**40),
    ]
    values = [v for _, _, v in got]
    assert values[0] == 0.5 and math.isnan(values[1])
    assert values[2:5] == [1.25, -0.75, -3.0] and values[5] == f32(1e-6) and values[6] == 0.5
    assert stats == {"files": 1, "non-scalar TensorBoard values": 3}


def test_tf2_tensor_scalars_are_read_and_non_scalars_skipped_and_counted(tmp_path):
    path = tmp_path / "events.out.tfevents.1.host"
    write_events(
        path,
        [
            (1, [value("loss", tensor=tensor(1, content=struct.pack("<f", 0.25)), plugin="scalars")]),
            (2, [value("loss", tensor=tensor(2, field=6, packed=struct.pack("<d", -1.5)))]),
            (3, [value("count", tensor=tensor(9, field=10, packed=wire.write_varint(-7)))]),
            (4, [value("half", tensor=tensor(19, field=13, packed=wire.write_varint(0x3C00)))]),  # 1.0 as float16
            (5, [value("bf16", tensor=tensor(14, content=struct.pack("<H", 0x4040)))]),  # 3.0 as bfloat16
            (6, [value("vec", tensor=tensor(1, (3,), content=struct.pack("<3f", 1, 2, 3)))]),  # shape [3]
            (7, [value("hist", histo=True)]),
            (8, [value("img", tensor=tensor(1, content=struct.pack("<f", 9.0)), plugin="images")]),
            (9, [value("img", tensor=tensor(1, content=struct.pack("<f", 9.0)))]),  # plugin named once per tag
            (10, [value("txt", tensor=tensor(7, content=b"hello"))]),
            (
                11,
                [
                    value("one", tensor=tensor(1, (1, 1), field=5, packed=struct.pack("<f", 4.0))),
                    value("also", simple=5.0),
                ],
            ),
        ],
    )
    stats: dict[str, int] = {}
    got = list(iter_scalars(path, stats=stats))
    assert got == [
        ("loss", 1, 0.25),
        ("loss", 2, -1.5),
        ("count", 3, -7.0),
        ("half", 4, 1.0),
        ("bf16", 5, 3.0),
        ("one", 11, 4.0),
        ("also", 11, 5.0),
    ]
    assert stats["non-scalar TensorBoard values"] == 5
    assert stats["files"] == 1


def test_a_file_cut_mid_record_stops_cleanly(tmp_path):
    path = write_scalars(tmp_path, [("r", i, float(i)) for i in range(10)])
    whole = path.read_bytes()
    last = len(frame_records([encode_event(0.0, 9, wire.write_bytes_field(1, value("r", simple=9.0)))]))
    for keep in (last - 3, 20, 12, 5):  # bytes of the last record written: data cut, header cut
        path.write_bytes(whole[: len(whole) - last + keep])
        stats: dict[str, int] = {}
        got = list(iter_scalars(path, stats=stats))
        assert [s for _, s, _ in got] == list(range(9))
        assert stats["truncated TensorBoard record"] == 1
    path.write_bytes(whole)
    stats = {}
    assert len(list(iter_scalars(path, stats=stats))) == 10 and "truncated TensorBoard record" not in stats


def test_directory_reads_every_run_sorted_and_recursive(tmp_path):
    write_scalars(tmp_path / "run_b", [("acc", 1, 0.2)], filename="events.out.tfevents.2.h")
    write_scalars(tmp_path / "run_a", [("acc", 1, 0.1), ("acc", 2, 0.3)], filename="events.out.tfevents.1.h")
    write_scalars(tmp_path / "run_a" / "nested", [("kl", 5, 0.5)], filename="events.out.tfevents.3.h")
    (tmp_path / "notes.txt").write_text("not an event file\n")
    assert [p.relative_to(tmp_path).as_posix() for p in event_files(tmp_path)] == [
        "run_a/events.out.tfevents.1.h",
        "run_a/nested/events.out.tfevents.3.h",
        "run_b/events.out.tfevents.2.h",
    ]
    stats: dict[str, int] = {}
    got = list(iter_scalars(tmp_path, stats=stats))
    assert got == [("acc", 1, f32(0.1)), ("acc", 2, f32(0.3)), ("kl", 5, 0.5), ("acc", 1, f32(0.2))]
    assert stats["files"] == 3


@pytest.mark.parametrize("where", ["data", "length"])
def test_corrupted_checksum_is_a_clean_error_with_file_and_offset(tmp_path, where):
    path = write_scalars(tmp_path, [("r", i, float(i)) for i in range(5)], filename="events.out.tfevents.9.x")
    data = bytearray(path.read_bytes())
    (first,) = struct.unpack_from("<Q", data)
    second = 16 + first  # offset of the first scalar record
    data[second + (14 if where == "data" else 9)] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(InputError) as e:
        list(iter_scalars(path))
    msg = str(e.value)
    assert "events.out.tfevents.9.x" in msg and f"byte offset {second}" in msg and where in msg
    assert "\n" not in msg


def test_corrupted_length_field_is_not_taken_for_a_truncated_tail(tmp_path):
    path = write_scalars(tmp_path, [("r", i, float(i)) for i in range(3)])
    data = bytearray(path.read_bytes())
    data[5] = 0x7F  # length of the first record now runs far past the end of the file
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match="byte offset 0"):
        list(iter_scalars(path))


def test_valid_frame_holding_garbage_is_a_clean_error(tmp_path):
    path = tmp_path / "events.out.tfevents.1.x"
    path.write_bytes(frame_records([b"\x2a\x05\x0a\x09zz"]))  # summary claims more bytes than it has
    with pytest.raises(InputError, match="malformed TensorBoard event at byte offset 0"):
        list(iter_scalars(path))


def test_is_event_file_sniffs_by_content(tmp_path):
    path = write_scalars(tmp_path, [("a", 1, 1.0)], filename="renamed.bin")
    assert is_event_file(path)
    (tmp_path / "log.txt").write_text("step:1 - reward:0.5\n" * 3)
    assert not is_event_file(tmp_path / "log.txt")
    assert not is_event_file(tmp_path)
    assert not is_event_file(tmp_path / "missing")
    (tmp_path / "tiny").write_bytes(b"\x00" * 5)
    assert not is_event_file(tmp_path / "tiny")


def test_missing_path_and_empty_directory_are_clean_errors(tmp_path):
    with pytest.raises(NotAFile):
        list(iter_scalars(tmp_path / "nope"))
    with pytest.raises(NotAFile, match="no TensorBoard event files"):
        list(iter_scalars(tmp_path))


def test_append_continues_a_live_file_without_a_second_header(tmp_path):
    path = write_scalars(tmp_path, [("r", 1, 1.0)], filename="events.out.tfevents.1.live")
    write_scalars(tmp_path, [("r", 2, 2.0), ("r", 3, 3.0)], filename=path.name, append=True)
    assert [s for _, s, _ in iter_scalars(path)] == [1, 2, 3]
    assert path.read_bytes().count(b"brain.Event:2") == 1


def test_empty_records_write_only_the_header(tmp_path):
    path = write_scalars(tmp_path, [])
    assert is_event_file(path) and list(iter_scalars(path)) == []


def test_fuzzed_payloads_decode_or_fail_cleanly(tmp_path):
    """Damaged but validly framed events (bytes overwritten, cut short, pure noise) either decode
    or raise one clean InputError: never an IndexError, a struct.error or a giant step."""
    rng = np.random.default_rng(7)
    path = tmp_path / "events.out.tfevents.fuzz"
    for _ in range(150):
        events = [
            encode_event(
                1.0,
                int(rng.integers(-(2**62), 2**62)),
                wire.write_bytes_field(1, value("t" * int(rng.integers(0, 9)), simple=float(rng.normal()))),
            )
            for _ in range(int(rng.integers(0, 4)))
        ]
        if events:
            i = int(rng.integers(len(events)))
            ev = bytearray(events[i])
            for _ in range(int(rng.integers(1, 5))):
                ev[int(rng.integers(len(ev)))] = int(rng.integers(256))
            events[i] = bytes(ev[: int(rng.integers(len(ev) + 1))])
        events.append(rng.bytes(int(rng.integers(0, 40))))
        path.write_bytes(frame_records(events))
        try:
            for tag, step, x in iter_scalars(path):
                assert isinstance(tag, str) and -(2**63) <= step < 2**63 and isinstance(x, float)
        except InputError as e:
            assert "malformed TensorBoard event" in str(e)


def test_a_log_whose_text_looks_like_a_path_is_never_sniffed_as_tensorboard(tmp_path, monkeypatch):
    # TensorBoard is told by its path, never by a log's text: the text "/" once walked the filesystem
    from rlvitals.ingest import read, sniff_text

    write_scalars(tmp_path / "tb" / "events.out.tfevents.1.host", [("train/reward", 1, 0.5), ("train/reward", 2, 0.6)])
    monkeypatch.chdir(tmp_path)
    assert sniff_text("tb") is None and sniff_text(str(tmp_path / "tb")) is None and sniff_text("/") is None
    assert read(tmp_path / "tb").format == "tensorboard"  # the directory itself still reads
