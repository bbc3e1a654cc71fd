"""`watch` keeps following through the lines that used to crash the readers (issue 8): a step of
20+ digits, `inf`, `nan`, `1e300` or 5,000 digits, a value wrapped a thousand times.  The line is
skipped and counted; the lines after it are read and alert as usual."""

from __future__ import annotations

import io
import threading
import time

from watch_helpers import fake_diagnose

from rlvitals.watch import Watcher, watch_file

CRASH_LINES = [
    "[" + "1" * 20 + "] reward=0.5 entropy=1.5",
    "[inf] reward=0.5 entropy=1.5",
    "[nan] reward=0.5 entropy=1.5",
    "[1e300] reward=0.5 entropy=1.5",
    "[" + "9" * 5000 + "] reward=0.5 entropy=1.5",
    "[-3] reward=0.5 entropy=1.5",
    "[19] reward=" + "np.float64(" * 1000 + "1" + ")" * 1000 + " entropy=1.5",
    "[19] reward=" + "9" * 400 + " entropy=1.5",
]


def lesson(entropies, start=0):
    return [f"[{start + i:4d}] reward=0.5 entropy={e:.4f}" for i, e in enumerate(entropies)]


def test_watcher_feeds_crash_lines_and_keeps_going():
    now = [0.0]  # a hand-driven clock: one second a line
    w = Watcher(diagnose_fn=fake_diagnose, name="t", clock=lambda: now[0], max_overhead=0)
    alerts = []
    for line in lesson([1.5] * 20) + CRASH_LINES + lesson([1.5] * 10 + [0.05] * 15, start=20):
        now[0] += 1.0
        w.feed([line])
        alerts += w.check()
    assert w.fmt == "lesson"
    assert [a.id for a in alerts] == ["entropy_collapse"]
    run = w._parser.snapshot()
    assert run.steps.tolist() == list(range(45))
    # `[20 digits]`, `[5000 digits]`, `[-3]` are steps out of range; `[inf]`, `[nan]`, `[1e300]` no step lines
    assert run.skipped.get("step out of range") == 3 and run.skipped.get("not a metric line") == 3
    assert run.dropped.get("value out of range", 0) == 1


def test_once_reads_past_crash_lines(tmp_path):
    p = tmp_path / "run.log"
    p.write_text("\n".join(lesson([1.5] * 20) + CRASH_LINES + lesson([1.5] * 10 + [0.05] * 15, start=20)) + "\n")
    out, err = io.StringIO(), io.StringIO()
    assert watch_file(p, once=True, out=out, err=err, diagnose_fn=fake_diagnose) == 0
    assert "entropy_collapse" in out.getvalue() and "Traceback" not in err.getvalue()


def test_following_a_live_file_survives_crash_lines(tmp_path):
    p = tmp_path / "live.log"
    p.write_text("")
    out, err, stop = io.StringIO(), io.StringIO(), threading.Event()
    result = {}
    th = threading.Thread(
        target=lambda: result.setdefault(
            "code", watch_file(p, interval=0.01, out=out, err=err, stop=stop, max_wait=0.05, diagnose_fn=fake_diagnose)
        ),
        daemon=True,
    )
    th.start()
    with open(p, "a", encoding="utf-8") as f:
        for line in lesson([1.5] * 20) + CRASH_LINES + lesson([1.5] * 10 + [0.05] * 15, start=20):
            f.write(line + "\n")
            f.flush()
            time.sleep(0.003)
    end = time.monotonic() + 10  # a bound on waiting, not a speed assertion
    while "entropy_collapse" not in out.getvalue() and time.monotonic() < end and th.is_alive():
        time.sleep(0.01)
    stop.set()
    th.join(10)
    assert result.get("code") == 0, err.getvalue()
    assert "entropy_collapse" in out.getvalue()
    assert "Traceback" not in err.getvalue()
