"""Read a 1,000,000-step W&B offline run (`.wandb`): time and peak memory.

wandb itself logs a few thousand steps a second offline, so the 1M-step file is written here by
our own writer of the same framing and records, shaped like wandb 0.31's: per step one history
record (the metrics, `_timestamp`, `_runtime`, `_step`, the step) and one summary record with the
same items, as wandb >= 0.2x writes them (tests/fixtures/wandb/ holds files the real library wrote,
and a test checks this writer's output reads like them).

    .venv/bin/python benchmarks/bench_wandb.py [--steps 1000000] [--keys 8] [--keep FILE]

Prints the file size, the read's wall and CPU time and its peak resident memory (the read runs in
a child process, so the writer's memory is not counted).
"""

from __future__ import annotations

import argparse
import os
import resource
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from rlvitals.ingest.tfrecord import write_bytes_field, write_varint

BLOCK, HEADER = 32768, 7
KEYS = (
    "env/all/reward/total",
    "env/all/correct",
    "optim/entropy",
    "optim/kl_sample_train_v1",
    "env/all/ac_tokens_per_turn",
    "optim/lr",
    "env/all/frac_mixed",
    "time/total",
    "optim/grad_norm",
    "env/all/by_group/frac_all_good",
    "progress/done_frac",
    "optim/loss",
)


_ld = write_bytes_field  # a length-delimited protobuf field, as the TensorBoard writer makes them
_varint = write_varint


def _item(key: str, value: str) -> bytes:
    return _ld(1, _ld(2, key.encode()) + _ld(16, value.encode()))


class Writer:
    """The `.wandb` framing: header, 32 KiB blocks, FULL / FIRST-MIDDLE-LAST chunks, CRC-32."""

    def __init__(self, fh) -> None:
        self.fh = fh
        self.at = 0
        self._out(b":W&B" + struct.pack("<HB", 0xBEE1, 0))

    def _out(self, b: bytes) -> None:
        self.fh.write(b)
        self.at += len(b)

    def record(self, payload: bytes) -> None:
        first = True
        while True:
            left = BLOCK - self.at % BLOCK
            if left < HEADER:
                self._out(bytes(left))
                left = BLOCK
            room = left - HEADER
            piece, payload = payload[:room], payload[room:]
            kind = (1 if not payload else 2) if first else (4 if not payload else 3)
            crc = zlib.crc32(piece, zlib.crc32(bytes([kind])))
            self._out(struct.pack("<IHB", crc, len(piece), kind) + piece)
            first = False
            if not payload:
                return


def write_run(path: Path, steps: int, keys: int, digits: int = 6) -> None:
    names = KEYS[:keys]
    with open(path, "wb", buffering=1 << 20) as fh:
        w = Writer(fh)
        run = _ld(1, b"bench1m") + _ld(3, b"rlvitals") + _ld(4, _item("lr", "1e-06") + _item("group_size", "8"))
        w.record(_varint(1 << 3) + _varint(1) + _ld(17, run))
        t0 = 1.7e9
        for s in range(steps):
            x = s / steps
            vals = (0.2 + 0.5 * x + 0.01 * ((s * 7 + j) % 13) / 13 + 1e-9 * s for j in range(len(names)))
            items = b"".join(_item(k, repr(round(v, digits) if digits else v)) for k, v in zip(names, vals))
            items += _item("_timestamp", repr(t0 + s * 0.5)) + _item("_runtime", repr(s * 0.5)) + _item("_step", str(s))
            w.record(
                _varint(1 << 3) + _varint(s + 2) + _ld(2, items + _ld(2, _varint(1 << 3) + _varint(s) if s else b""))
            )
            w.record(_varint(1 << 3) + _varint(s + 3) + _ld(3, items))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--keys", type=int, default=8)
    ap.add_argument(
        "--digits",
        type=int,
        default=6,
        help="decimals the values are rounded to (0: full precision, 17 digits as a float mean prints)",
    )
    ap.add_argument("--keep", type=Path, help="write the file here and keep it")
    ap.add_argument("--read-only", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.read_only:
        from rlvitals import read

        t, c = time.perf_counter(), time.process_time()
        run = read(a.read_only)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"read {run.n_steps:,} steps, {len(run.series)} vitals + {len(run.extras)} extras: "
            f"{wall:.2f} s wall, {cpu:.2f} s CPU, peak {peak:.0f} MB"
        )
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = a.keep or Path(tmp) / "run-bench1m.wandb"
        t = time.perf_counter()
        write_run(path, a.steps, a.keys, a.digits)
        print(
            f"wrote {path.name}: {a.steps:,} steps × {a.keys} metrics ({a.digits or 'all'} digits), "
            f"{os.path.getsize(path) / 1e6:.0f} MB "
            f"in {time.perf_counter() - t:.1f} s"
        )
        subprocess.run([sys.executable, __file__, "--read-only", str(path)], check=True)


if __name__ == "__main__":
    main()
