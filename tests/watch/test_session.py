"""`Watcher` and `watch_file` on the kvtest format with a one-rule diagnosis: cadence, sniffing,
alerts once, `--until`, `--exec`, `--webhook`, truncation, rotation, a late file, `--once`."""

from __future__ import annotations

import io
import json
import os
import time

import pytest
from watch_helpers import Session, fake_diagnose, kv_lines, wait_for, write

from rlvitals.errors import NotAFile, UnknownFormat
from rlvitals.watch import Watcher, watch_file

COLLAPSE = [1.5] * 20 + [0.05] * 10 + [0.005] * 10  # warning from step 20, critical from 30
HEALTHY = [1.5 - 0.01 * i for i in range(40)]


# -- Watcher ---------------------------------------------------------------------------------
class Clock:
    """A hand-driven clock: one `tick()` per line, as if the trainer logged once a second."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def tick(self, dt=1.0):
        self.now += dt


def stream(w, lines, clock):
    alerts = []
    for line in lines:
        clock.tick()
        w.feed([line])
        alerts += w.check()
    return alerts


def test_watcher_sniffs_then_alerts_once_per_finding(kv_format):
    clock = Clock()
    w = Watcher(diagnose_fn=fake_diagnose, name="t", clock=clock, max_overhead=0)
    w.feed(["some banner", "another"])
    assert w.sniffing and w.check() == []
    alerts = stream(w, kv_lines(COLLAPSE), clock)
    assert w.fmt == "kvtest"
    assert [(a.id, a.severity, a.escalated) for a in alerts] == [
        ("entropy_collapse", "warning", False),
        ("entropy_collapse", "critical", True),
    ]
    # the warning once named again two steps later (20, 21, 22), the critical at its first check
    assert [a.step for a in alerts] == [22, 30]
    assert alerts[0].onset_step == 20


def test_watcher_healthy_stays_silent(kv_format):
    clock = Clock()
    w = Watcher(diagnose_fn=fake_diagnose, clock=clock, max_overhead=0)
    assert stream(w, kv_lines(HEALTHY), clock) == []
    assert w.checks == len(HEALTHY) and w.diagnosis.verdict == "learning"


def test_cadence_thins_out_on_long_runs(kv_format):
    calls = []

    def counting(run):
        calls.append(run.n_steps)
        return fake_diagnose(run)

    clock = Clock()
    w = Watcher(fmt="kvtest", diagnose_fn=counting, clock=clock, max_overhead=0)
    w.feed(kv_lines([1.0] * 2000))
    w.check()  # one check after a backlog, however long
    assert calls == [2000]
    stream(w, kv_lines([1.0] * 50, start=2000), clock)
    # at 2000 steps a check is due every 1% of them: 20 new steps, then 21 (1% of 2020)
    assert calls[1:] == [2020, 2041]


def test_cpu_cap_spaces_out_slow_diagnoses(kv_format):
    calls = []
    spent = Clock()

    def slow(run):  # "takes" 0.5 s by the timer
        calls.append(run.n_steps)
        spent.tick(0.5)
        return fake_diagnose(run)

    clock = Clock()
    w = Watcher(fmt="kvtest", diagnose_fn=slow, clock=clock, timer=spent, max_overhead=0.05, burst=0)
    stream(w, kv_lines([1.0] * 25), clock)
    # 0.5 s per diagnosis at most 5% of the time: one check per 10 s, i.e. per 10 lines here
    assert calls == [1, 11, 21]


def test_watcher_survives_a_failing_rule(kv_format):
    def broken(run):
        raise ZeroDivisionError("boom")

    w = Watcher(fmt="kvtest", diagnose_fn=broken)
    w.feed(kv_lines([1.0] * 3))
    assert w.check() == []
    assert "ZeroDivisionError: boom" in w.errors[0]


def test_restart_forgets_the_old_run(kv_format):
    w = Watcher(diagnose_fn=fake_diagnose, persist=1)
    w.feed(kv_lines([0.05] * 20))
    assert w.check() == [] and w.tracker.unconfirmed  # seen once
    w.feed(kv_lines([0.05] * 3, start=20))
    assert len(w.check()) == 1  # seen again three steps later
    w.restart()
    assert w.sniffing and w.diagnosis is None
    w.feed(kv_lines([0.05] * 20))
    assert w.check() == []  # the old run's sightings are forgotten too
    w.feed(kv_lines([0.05] * 3, start=20))
    assert len(w.check()) == 1  # the new run's collapse is news again


# -- watch_file --once -----------------------------------------------------------------------
def test_once_reads_all_alerts_and_summarises(kv_format, tmp_path):
    p = tmp_path / "run.log"
    write(p, ["starting", *kv_lines(COLLAPSE)])
    out, err = io.StringIO(), io.StringIO()
    code = watch_file(p, once=True, out=out, err=err, diagnose_fn=fake_diagnose)
    text = out.getvalue()
    assert code == 0
    assert text.count("entropy_collapse") >= 1 and "[CRITICAL] step 39" in text
    assert "40 steps" in text  # the summary header
    assert "kvtest" in err.getvalue()


def test_once_until_exits_3(kv_format, tmp_path):
    p = tmp_path / "run.log"
    write(p, kv_lines(COLLAPSE))
    err = io.StringIO()
    assert watch_file(p, once=True, until="critical", out=io.StringIO(), err=err, diagnose_fn=fake_diagnose) == 3
    assert "--until critical" in err.getvalue()
    p2 = tmp_path / "ok.log"
    write(p2, kv_lines(HEALTHY))
    assert (
        watch_file(p2, once=True, until="warning", out=io.StringIO(), err=io.StringIO(), diagnose_fn=fake_diagnose) == 0
    )


def test_once_bad_inputs_are_one_line_errors(kv_format, tmp_path):
    with pytest.raises(NotAFile):
        watch_file(tmp_path / "nope.log", once=True)
    with pytest.raises(NotAFile):
        watch_file(tmp_path, once=True)
    p = tmp_path / "prose.txt"
    write(p, ["just some prose", "and more"])
    with pytest.raises(UnknownFormat):
        watch_file(p, once=True, out=io.StringIO(), err=io.StringIO())


def test_once_exec_and_webhook(kv_format, tmp_path, local_server):
    url, received = local_server
    p = tmp_path / "run.log"
    write(p, kv_lines(COLLAPSE))
    marker = tmp_path / "fired.txt"
    code = watch_file(
        p,
        once=True,
        exec_cmd=f'echo "$RLVITALS_FINDING $RLVITALS_SEVERITY" >> {marker}',
        webhook=url + "/ok",
        out=io.StringIO(),
        err=io.StringIO(),
        diagnose_fn=fake_diagnose,
    )
    assert code == 0
    # --once sees the whole log in one check: one alert, already critical
    assert marker.read_text().split("\n")[0] == "entropy_collapse critical"
    assert [b["finding"] for _, b in received] == ["entropy_collapse"]


# -- following, in a thread ------------------------------------------------------------------
def test_follow_late_file_growth_truncation_restart(kv_format, tmp_path):
    p = tmp_path / "live.log"
    s = Session(p, max_wait=0.05)  # a log gone quiet confirms a pending finding after 0.05 s
    assert wait_for(lambda: "waiting" in s.err.getvalue())
    lines = kv_lines(COLLAPSE[:25])
    write(p, lines[:1])
    for line in lines[1:]:
        write(p, [line])
        time.sleep(0.005)
    assert wait_for(lambda: "entropy_collapse" in s.out.getvalue())
    # the trainer restarts and truncates its log: a new run, which collapses again
    write(p, kv_lines([1.2, 1.1]), mode="w")
    assert wait_for(lambda: "truncated" in s.err.getvalue())
    for line in kv_lines([1.1] * 18 + [0.04] * 8, start=2):
        write(p, [line])
    assert wait_for(lambda: s.out.getvalue().count("[WARNING]") == 2)
    assert s.end() == 0
    out = s.out.getvalue()
    assert out.count("[WARNING]") == 2 and "[CRITICAL]" not in out
    assert "28 steps" in out  # the summary is of the new run


def test_follow_rotation_keeps_the_run(kv_format, tmp_path):
    p = tmp_path / "live.log"
    write(p, kv_lines(COLLAPSE[:22]))
    s = Session(p, max_wait=0.05)
    assert wait_for(lambda: "[WARNING]" in s.out.getvalue())
    os.rename(p, tmp_path / "live.log.1")
    write(p, kv_lines(COLLAPSE[22:], start=22))
    assert wait_for(lambda: "[CRITICAL]" in s.out.getvalue())
    assert s.end() == 0
    assert "rotated" in s.err.getvalue() and "40 steps" in s.out.getvalue()
    assert s.out.getvalue().count("[WARNING]") == 1


def test_follow_until_critical_stops_by_itself(kv_format, tmp_path):
    p = tmp_path / "live.log"
    s = Session(p, until="critical", max_wait=0.05)
    write(p, kv_lines(COLLAPSE))
    s.th.join(10)
    assert s.code == 3 and "[CRITICAL]" in s.out.getvalue()


def test_follow_tail_ignores_history(kv_format, tmp_path):
    p = tmp_path / "live.log"
    write(p, kv_lines([0.01] * 10))  # a collapse already in the file
    s = Session(p, from_start=False)
    time.sleep(0.1)
    write(p, kv_lines(HEALTHY, start=10))
    assert wait_for(lambda: "40 steps" in (s.end() is not None and s.out.getvalue()))
    assert "entropy_collapse" not in s.out.getvalue().split("40 steps")[0]


def test_alert_json_via_webhook_while_following(kv_format, tmp_path, local_server):
    url, received = local_server
    p = tmp_path / "live.log"
    s = Session(p, webhook=url + "/ok", max_wait=0.05)
    write(p, kv_lines(COLLAPSE[:25]))
    assert wait_for(lambda: len(received) == 1)
    write(p, kv_lines(COLLAPSE[25:], start=25))
    assert wait_for(lambda: len(received) == 2)
    s.end()
    assert [(b["severity"], b["escalated"]) for _, b in received] == [("warning", False), ("critical", True)]
    json.dumps(received[0][1], allow_nan=False)


# -- faults while following -------------------------------------------------------------------
def test_follow_truncate_and_refill_between_polls_is_a_new_run(kv_format, tmp_path):
    p = tmp_path / "live.log"
    write(p, ["trainer v1 starting", *kv_lines([1.5] * 10)])
    s = Session(p)
    assert wait_for(lambda: "format: kvtest" in s.err.getvalue())
    time.sleep(0.05)
    # the trainer restarts: same banner, more steps than before, all written between two polls
    with open(p, "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in ["trainer v1 starting", *kv_lines([1.4] * 30)]))
    # open(.., "w") empties the file before it writes: a poll may land in between (a loaded machine)
    # and see it truncated; either way the file started over
    assert wait_for(lambda: "rewritten" in s.err.getvalue() or "truncated" in s.err.getvalue())
    assert s.end() == 0
    out = s.out.getvalue()
    assert "30 steps" in out  # the new run alone: not merged with the old one, nothing lost
    # no fragment read as a line: the only line not used is the new run's banner
    assert "lines skipped: other 1\n" in out.split("30 steps")[1]


def test_follow_says_once_when_the_file_cannot_be_read(kv_format, tmp_path):
    p = tmp_path / "live.log"
    write(p, kv_lines([1.5] * 5))
    s = Session(p, rotate_grace=0)
    assert wait_for(lambda: "format: kvtest" in s.err.getvalue())
    os.rename(p, tmp_path / "old.log")
    p.mkdir()  # something replaced the log with a directory
    assert wait_for(lambda: "cannot be read" in s.err.getvalue())
    time.sleep(0.1)  # many polls later: still said once
    p.rmdir()
    write(p, kv_lines([1.5] * 5, start=5))
    assert wait_for(lambda: "rotated" in s.err.getvalue())
    assert s.end() == 0
    assert s.err.getvalue().count("cannot be read") == 1
    assert "10 steps" in s.out.getvalue()


def test_a_hanging_exec_never_blocks_following(kv_format, tmp_path):
    p = tmp_path / "live.log"
    s = Session(p, exec_cmd="sleep 100", exec_timeout=30, exit_wait=0.5, max_wait=0.05)
    write(p, kv_lines(COLLAPSE[:25]))
    assert wait_for(lambda: "[WARNING]" in s.out.getvalue())
    t0 = time.monotonic()
    write(p, kv_lines(COLLAPSE[25:], start=25))  # while `sleep 100` runs for the warning
    assert wait_for(lambda: "[CRITICAL]" in s.out.getvalue())
    assert time.monotonic() - t0 < 5
    t0 = time.monotonic()
    assert s.end() == 0
    assert time.monotonic() - t0 < 5  # exit waits `exit_wait`, then kills the command's group
    # at exit the running command (the warning's) is killed with its group, the critical's never
    # started: both are said to be undelivered
    assert "--exec: 2 alert(s) were not delivered" in s.err.getvalue()


def test_a_bad_webhook_stops_watch_before_it_starts(kv_format, tmp_path):
    from rlvitals.watch.sinks import BadWebhook

    with pytest.raises(BadWebhook):
        watch_file(tmp_path / "x.log", webhook="http://host:abc/", out=io.StringIO(), err=io.StringIO())


def test_follow_rotation_reads_late_lines_of_the_old_file_first(kv_format, tmp_path):
    p = tmp_path / "live.log"
    write(p, kv_lines([1.5] * 10))
    s = Session(p, rotate_grace=0.3)
    assert wait_for(lambda: "format: kvtest" in s.err.getvalue())
    os.rename(p, tmp_path / "live.log.1")
    write(p, kv_lines([1.5] * 10, start=20))  # the new file
    write(tmp_path / "live.log.1", kv_lines([1.5] * 10, start=10))  # late lines to the old one
    assert wait_for(lambda: "rotated" in s.err.getvalue())
    assert s.end() == 0
    out = s.out.getvalue()
    # all 30 steps, in order, one run: nothing written late was lost, no restart
    assert "30 steps (30 lines read" in out


def test_sigterm_ends_a_watch_with_its_summary(tmp_path):
    import signal
    import subprocess
    import sys

    p = tmp_path / "train.log"
    p.write_text("".join(f"[{i:4d}] reward=0.5 entropy=1.5 kl=0.001\n" for i in range(1, 31)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rlvitals", "watch", str(p), "--interval", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        end = time.monotonic() + 30
        line = ""
        while "format:" not in line and time.monotonic() < end:  # following has begun
            line = proc.stderr.readline()
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0
    assert "summary after 30 steps" in out


def test_a_warning_seen_once_is_confirmed_two_steps_later_not_a_cadence_period_later(kv_format):
    """At step 500 the cadence is every 5 steps; a first sighting brings the next check forward to
    two steps later (the confirmation), then the cadence resumes."""
    calls = []

    def diag(run):
        calls.append(int(run.steps[-1]))
        return fake_diagnose(run)

    clock = Clock()
    w = Watcher(diagnose_fn=diag, clock=clock, max_overhead=0, scan=False)  # the step cadence alone
    alerts = stream(w, kv_lines([1.5] * 500 + [0.05] * 30), clock)
    first = next(s for s in calls if s >= 500)  # the first check that sees the collapse
    i = calls.index(first)
    assert first - calls[i - 1] == 5  # the cadence at step ~500: 1% = 5 steps
    assert calls[i + 1] == first + 2  # the confirmation, two steps later
    assert [(a.severity, a.step) for a in alerts] == [("warning", first + 2)]
    assert calls[i + 2] - calls[i + 1] in (5, 6)  # back to the cadence
