"""The one scheduler `watch` and `Monitor` share: cadence by steps, hard signals at once, CPU budget."""

from __future__ import annotations

import math

from watch_helpers import fake_diagnose, kv_lines

from rlvitals.watch import Monitor, Watcher
from rlvitals.watch.schedule import Scheduler, SpikeWatch


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def checks_at(sch, n, cost=0.0, clock=None, hard_at=()):
    out = []
    for step in range(1, n + 1):
        if clock is not None:
            clock.now += 1.0
        sch.note(1, hard=step in hard_at)
        if sch.due():
            out.append(step)
            sch.ran(cost)
    return out


def test_cadence_is_every_step_early_then_one_percent_of_the_run():
    sch = Scheduler(max_overhead=0, max_wait=math.inf)
    got = checks_at(sch, 1000)
    assert got[:100] == list(range(1, 101))  # 1% of < 100 steps rounds up to 1
    gaps = [b - a for a, b in zip(got, got[1:])]
    assert gaps[-1] == math.ceil(0.01 * got[-2])  # ~1% of the steps at the last check
    assert len(got) < 100 + 100 * math.log(10) + 10  # ~ln(n/100)/1% checks after the first 100


def test_a_hard_signal_is_checked_at_once_but_cannot_turn_the_cadence_off():
    sch = Scheduler(max_overhead=0, max_wait=math.inf, min_every=50)
    assert checks_at(sch, 120, hard_at={7}) == [7, 57, 107]
    sch = Scheduler(max_overhead=0, max_wait=math.inf, min_every=50)
    # a hard signal on every step: at most one extra check per cadence period
    assert len(checks_at(sch, 200, hard_at=set(range(1, 201)))) <= 2 * 200 // 50 + 1


def test_cpu_budgets_space_the_checks_by_their_cost():
    clock = Clock()
    sch = Scheduler(max_overhead=0.01, max_wait=math.inf, clock=clock, burst=0)
    got = checks_at(sch, 100, cost=0.05, clock=clock)  # 50 ms per check, one step a second
    assert [b - a for a, b in zip(got, got[1:])] == [5] * (len(got) - 1)  # 1% of the wall time
    sch = Scheduler(max_overhead=0, step_budget=0.001, max_wait=math.inf)
    got = checks_at(sch, 100, cost=0.01)  # 10 ms per check, 1 ms per step allowed
    assert [b - a for a, b in zip(got, got[1:])] == [10] * (len(got) - 1)


def test_spike_watch():
    sw = SpikeWatch()
    assert not any(sw("kl", 0.01 + 0.001 * (i % 3)) for i in range(50))
    assert sw("kl", 5.0)  # a huge jump
    assert not sw("kl", 0.011)  # the level it is measured against did not move
    assert sw("x", float("nan")) and sw("y", float("inf"))
    # a step change to a new level: a few spikes, then the new level is the level
    flags = [sw("kl", 2.0) for _ in range(6)]
    assert flags[:3] == [True] * 3 and not any(flags[3:])


def test_watcher_checks_at_once_when_a_line_carries_a_nan(kv_format):
    calls = []

    def counting(run):
        calls.append(run.n_steps)
        return fake_diagnose(run)

    clock = Clock()
    w = Watcher(fmt="kvtest", diagnose_fn=counting, clock=clock, max_overhead=0, max_wait=math.inf)
    w.feed(kv_lines([1.0] * 3000))
    w.check()
    lines = kv_lines([1.0] * 60, start=3000)
    lines[12] = lines[12].replace("entropy=1.0000", "entropy=nan")
    for line in lines:
        clock.now += 1
        w.feed([line])
        w.check()
    # the NaN line (the 13th) is checked as it arrives, then the regular cadence: 1% of 3,013
    assert calls == [3000, 3013, 3044]


def test_watcher_and_monitor_share_the_cadence():
    w = Watcher(fmt="lesson", max_overhead=0)
    m = Monitor(stream=None, max_overhead=0, step_budget=0)
    assert type(w.schedule) is type(m.schedule) is Scheduler
    assert (w.schedule.fraction, w.schedule.min_every) == (m.schedule.fraction, m.schedule.min_every)


def test_scan_line_finds_nans_in_every_line_format():
    from rlvitals.watch.session import scan_line

    nan_lines = [
        "step:9 - actor/entropy:np.float64(nan) - actor/kl_loss:np.float64(0.01)",
        '{"step": 9, "data": {"actor/entropy": NaN, "kl": 0.01}}',
        "[   9] reward=0.5 entropy=nan kl=0.01",
        "Global step 9: {'kl': tensor(inf), 'reward': 0.5}",
    ]
    for line in nan_lines:
        assert scan_line(line, SpikeWatch()), line
    calm = SpikeWatch()
    assert not any(scan_line(f"step:{i} - actor/kl_loss:np.float64({0.01 + 1e-4 * (i % 5)})", calm) for i in range(50))
    assert scan_line("step:50 - actor/kl_loss:np.float64(10.5)", calm)  # a KL blow-up spike


def test_a_burst_lets_a_short_fast_stretch_follow_its_steps_but_not_a_long_one():
    clock = Clock()
    sch = Scheduler(max_overhead=0.01, max_wait=math.inf, clock=clock, burst=0.5)

    def fast(n):  # 80 steps a second, 50 ms per check
        out = []
        for _ in range(n):
            clock.now += 1 / 80
            sch.note(1)
            if sch.due():
                out.append(sch.seen)
                sch.ran(0.05)
        return out

    first = fast(10)
    assert first == list(range(1, 11))  # the burst: every step checked
    cpu_before = 0.05 * len(first)
    later = fast(8000)  # 100 s at 80 steps a second
    # over the long stretch the checks stay within 1% of the wall time (+ the burst)
    assert 0.05 * len(later) <= 0.01 * 100 + 0.5 - cpu_before + 0.05
