"""watch follows every rotated file to its end, however fast rotations come: a writer at ~10k
lines/s rotating every 0.5 s (renaming the log aside, as logrotate does), polled every second; every
line is seen once, by its id."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from rlvitals.watch.follow import Follower

RATE = 10_000
ROTATE = 0.5


def writer(path: Path, seconds: float, late: float, stop: threading.Event) -> int:
    """Write lines `id=N` at RATE a second, rotating every ROTATE s; for `late` seconds after each
    rotation the old file still gets the lines (a trainer that reopens late).  The count written."""
    n, k = 0, 0
    fh = open(path, "a", buffering=1 << 16)
    old = None
    t0 = time.monotonic()
    next_rot = t0 + ROTATE
    late_until = 0.0
    while (now := time.monotonic()) - t0 < seconds and not stop.is_set():
        due = int((now - t0) * RATE)
        target = old if (old is not None and now < late_until) else fh
        while n < due:
            target.write(f"id={n} reward=0.5\n")
            n += 1
        target.flush()
        if old is not None and now >= late_until:
            old.close()
            old = None
        if now >= next_rot:
            k += 1
            os.rename(path, path.with_name(f"{path.name}.{k}"))
            if old is not None:
                old.close()
            old, fh = fh, open(path, "a", buffering=1 << 16)
            late_until, next_rot = now + late, now + ROTATE
        time.sleep(0.005)
    for f in (fh, old):
        if f is not None:
            f.close()
    return n


@pytest.mark.parametrize("late", [0.0, 0.3])
def test_every_line_of_every_rotated_file_is_read(tmp_path, late):
    path = tmp_path / "train.log"
    path.touch()
    f = Follower(path, rotate_grace=0.2)
    stop = threading.Event()
    result: list[int] = []
    th = threading.Thread(target=lambda: result.append(writer(path, 2.0, late, stop)))
    th.start()
    seen: list[int] = []
    try:
        while th.is_alive():
            lines, _ = f.poll()
            seen += [int(x.split()[0][3:]) for x in lines]
            while f.more_pending:
                lines, _ = f.poll()
                seen += [int(x.split()[0][3:]) for x in lines]
            time.sleep(1.0)
        deadline = time.monotonic() + 10
        while len(seen) < result[0] and time.monotonic() < deadline:
            lines, _ = f.poll()
            seen += [int(x.split()[0][3:]) for x in lines]
            time.sleep(0.05)
    finally:
        stop.set()
        th.join()
        f.close()
    written = result[0]
    assert written > 12_000
    assert len(seen) == len(set(seen)) == written, (len(seen), len(set(seen)), written)
    assert sorted(seen) == list(range(written))
