"""The Python `Monitor`: framework keys in, alerts once, never an exception into the training loop."""

from __future__ import annotations

import io

import numpy as np
import pytest
from watch_helpers import fake_diagnose

from rlvitals.watch import Monitor


class Scalar:
    """Something like a 0-d torch tensor: has __float__ and numel()."""

    def __init__(self, v):
        self.v = v

    def __float__(self):
        return float(self.v)

    def numel(self):
        return 1


def trl_logs(entropy, length=120.0):
    # the keys TRL's GRPOTrainer passes to on_log
    return {
        "loss": 0.0012,
        "grad_norm": 0.31,
        "learning_rate": 1e-6,
        "reward": 0.6,
        "reward_std": 0.4,
        "frac_reward_zero_std": 0.25,
        "kl": 0.001,
        "entropy": entropy,
        "completions/mean_length": length,
        "clip_ratio/region_mean": 0.0,
        "epoch": 0.1,
    }


def test_framework_keys_are_mapped_like_the_readers_do():
    mon = Monitor(background=False, stream=None, diagnose_fn=fake_diagnose)
    for step in range(1, 4):
        mon.log(trl_logs(1.0), step * 10)
    run = mon.run()
    assert {"reward", "entropy", "kl", "len", "gnorm", "lr", "clip_frac", "adv_std"} <= set(run.series)
    assert run.series["len"].source == "completions/mean_length"
    assert run.series["adv_std"].proxy  # from frac_reward_zero_std, said so
    assert list(run.series["entropy"].steps) == [10, 20, 30]


def test_alerts_once_then_escalates_and_summarises():
    out = io.StringIO()
    seen = []
    mon = Monitor(
        background=False,
        stream=out,
        check_every=1,
        on_alert=seen.append,
        diagnose_fn=fake_diagnose,
        max_overhead=0,
        step_budget=0,
    )
    ents = [1.5] * 20 + [0.05] * 10 + [0.005] * 10
    raised = [a for step, e in enumerate(ents) for a in mon.log(trl_logs(e), step)]
    # the warning named from step 20, said once named again two steps later; the critical at once
    assert [(a.id, a.severity, a.step) for a in raised] == [
        ("entropy_collapse", "warning", 22),
        ("entropy_collapse", "critical", 30),
    ]
    assert seen == mon.alerts == raised
    assert [f.id for f in mon.findings] == ["entropy_collapse"]
    diag = mon.close()
    assert diag is mon.diagnosis and diag.verdict == "dead"
    text = out.getvalue()
    assert text.count("[WARNING]") == 1 and text.count("[CRITICAL]") == 1
    assert "40 steps" in text  # the summary
    assert mon.close() is diag and out.getvalue() == text  # closing twice says nothing more


def test_check_every_sets_the_cadence():
    calls = []

    def counting(run):
        calls.append(run.n_steps)
        return fake_diagnose(run)

    mon = Monitor(background=False, stream=None, check_every=5, diagnose_fn=counting, max_overhead=0, step_budget=0)
    for step in range(12):
        mon.log({"entropy": 1.0}, step)
    assert calls == [5, 10]
    mon.close()
    assert calls == [5, 10, 12]


def test_overhead_cap_skips_checks_while_the_last_one_is_recent():
    now, spent = [0.0], [0.0]
    calls = []

    def slow(run):
        calls.append(run.n_steps)
        spent[0] += 0.25  # each diagnosis "takes" 0.25 s
        return fake_diagnose(run)

    mon = Monitor(
        background=False,
        stream=None,
        check_every=1,
        diagnose_fn=slow,
        max_overhead=0.125,
        step_budget=0,
        clock=lambda: now[0],
        timer=lambda: spent[0],
        burst=0,
    )
    for step in range(10):
        now[0] += 1.0  # one training step a second
        mon.log({"entropy": 1.0}, step)
    # 0.25 s at most 12.5% of the time: a check at most every 2 s
    assert calls == [1, 3, 5, 7, 9]


def test_step_budget_spreads_checks_so_log_stays_cheap_per_step():
    spent = [0.0]
    calls = []

    def slow(run):
        calls.append(run.n_steps)
        spent[0] += 0.002  # each diagnosis "takes" 2 ms
        return fake_diagnose(run)

    # 2 ms per check at 0.5 ms per step allowed: a check at most every 4 logged steps
    mon = Monitor(
        background=False,
        stream=None,
        check_every=1,
        diagnose_fn=slow,
        max_overhead=0,
        step_budget=0.0005,
        timer=lambda: spent[0],
    )
    for step in range(13):
        mon.log({"entropy": 1.0}, step)
    assert calls == [1, 5, 9, 13]
    assert spent[0] / 13 <= 0.0005 * 1.25  # amortised cost per step stays near the budget


def test_never_raises_into_the_training_loop():
    def broken(run):
        raise RuntimeError("rule bug")

    def bad_callback(alert):
        raise ValueError("callback bug")

    out = io.StringIO()
    mon = Monitor(background=False, stream=out, check_every=1, diagnose_fn=broken)
    assert mon.log({"entropy": 1.0}, 1) == []
    assert mon.log(None, 2) == []  # not a mapping
    assert mon.log({"entropy": 1.0}, "x") == []  # not a step: skipped and counted, not an error
    assert mon.error_count == 2 and "RuntimeError: rule bug" in mon.errors[0]
    assert mon.skipped_steps == 1
    mon.close()  # its last check fails too: counted, said once
    assert "3 errors" in out.getvalue() and "rule bug" in out.getvalue()
    assert "1 rows had a step" in out.getvalue()

    mon2 = Monitor(
        background=False,
        stream=None,
        check_every=1,
        persist=1,
        on_alert=bad_callback,
        diagnose_fn=fake_diagnose,
        max_overhead=0,
        step_budget=0,
    )
    raised = [a for step in range(20) for a in mon2.log({"entropy": 0.01}, step)]
    assert len(raised) == 1  # the alert is still returned
    assert mon2.error_count == 1 and "callback bug" in mon2.errors[0]


def test_values_of_every_kind():
    mon = Monitor(background=False, stream=None, diagnose_fn=fake_diagnose)
    mon.log(
        {
            "entropy": Scalar(0.9),
            "acc": "57.4%",
            "kl": np.float32(0.002),
            "reward": None,
            "len": np.array([1.0, 2.0]),
            "note": "hello",
            "step": 99,
        },
        1,
    )
    run = mon.run()
    assert run.series["entropy"].values[0] == pytest.approx(0.9)
    assert run.series["acc"].values[0] == pytest.approx(0.574)
    assert run.series["kl"].values[0] == pytest.approx(0.002)
    assert "reward" not in run.series and "len" not in run.series
    # None is "no value this window" (TRL), not an error; the array and the text are counted
    assert mon.skipped_values == 2


def test_steps_default_to_counting_and_nan_is_kept():
    mon = Monitor(background=False, stream=None, diagnose_fn=fake_diagnose)
    for v in (1.0, float("nan"), 0.8):
        mon.log({"entropy": v})
    s = mon.run().series["entropy"]
    assert list(s.steps) == [0, 1, 2] and np.isnan(s.values[1])


def test_context_manager_closes():
    out = io.StringIO()
    with Monitor(background=False, stream=out, diagnose_fn=fake_diagnose) as mon:
        mon.log({"entropy": 1.0}, 0)
    assert mon.closed and "1 steps" in out.getvalue()
    assert mon.log({"entropy": 1.0}, 1) == [] and mon.steps_logged == 1


# -- bad steps and bounded memory -------------------------------------------------------------
@pytest.mark.parametrize(
    "bad",
    [2**70, -(2**70), -1, 2**53, 1e300, float("nan"), float("inf"), 12.5, "x", None, True, np.float64("nan"), [3]],
)
def test_a_bad_step_is_skipped_and_counted_never_raised_never_costs_good_rows(bad):
    mon = Monitor(
        background=False, stream=None, diagnose_fn=fake_diagnose, max_overhead=0, step_budget=0, check_every=10**9
    )
    good = 0
    for step in range(3000):  # more than the builder's 2,048-row hold
        if step % 7 == 3:
            assert mon.log({"entropy": 1.0}, bad if bad is not None else None) == []
        else:
            mon.log({"entropy": 1.0 - step * 1e-4}, step)
            good += 1
    run = mon.run()
    assert mon.error_count == 0, mon.errors
    if bad is None:  # no step given is not a bad step: it counts on from the last one
        assert mon.skipped_steps == 0
        return
    assert mon.skipped_steps == 3000 - good
    assert len(run.series["entropy"]) == good and mon.steps_logged == good
    out = io.StringIO()
    mon.stream = out
    mon.close()
    assert f"{3000 - good} rows had a step" in out.getvalue()


def test_whole_float_and_numpy_steps_are_fine():
    mon = Monitor(background=False, stream=None, diagnose_fn=fake_diagnose)
    for step in (1.0, np.int64(2), np.float32(3.0), "4", " 0005 ", Scalar(6.0)):
        mon.log({"entropy": 1.0}, step)
    assert list(mon.run().series["entropy"].steps) == [1, 2, 3, 4, 5, 6] and mon.skipped_steps == 0


def test_memory_stays_bounded_over_a_long_run_and_nans_are_kept():
    mon = Monitor(background=False, stream=None, diagnose_fn=fake_diagnose, capacity=256, max_overhead=0, step_budget=0)
    nans = {5_000, 33_333, 49_999}
    for step in range(50_000):
        mon.log({"entropy": float("nan") if step in nans else 1.0, "reward": 0.5}, step)
    h = mon.history
    assert len(h) <= 256 and h.arrived == 50_000
    run = mon.run()
    s = run.series["entropy"]
    assert nans <= set(s.steps[np.isnan(s.values)].tolist())  # every NaN step is still there
    d = np.diff(s.steps[np.isfinite(s.values)])
    assert d.max() == d.min() == h.stride  # the rest is a uniform grid over the whole run
    assert s.steps[0] == 0 and s.steps[-1] >= 50_000 - h.stride
    assert any("bounded memory" in n for n in run.notes)
    assert mon.checks > 0 and mon.error_count == 0


def test_a_ten_million_step_feed_stays_under_a_fixed_memory_bound():
    import tracemalloc

    from rlvitals.watch.history import History

    h = History()  # the Monitor's default capacity
    size = h.nbytes
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for k in range(0, 10**7, 10**5):
            steps = np.arange(k, k + 10**5)
            h.extend(steps, {"reward": np.sin(steps / 1e5), "kl": np.full(steps.size, 0.01)})
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert h.arrived == 10**7 and len(h) <= h.capacity
    assert h.nbytes == size  # the table never grew
    assert current - base < 1_000_000  # nothing else kept
    assert peak - base < 16_000_000  # a 10^5-row block in flight, not the history
    run = h.build("long")
    assert run.n_steps == len(h) and run.steps[-1] >= 10**7 - h.stride


def test_add_and_extend_keep_the_same_rows():
    from rlvitals.watch.history import History

    rng = np.random.default_rng(0)
    vals = rng.normal(size=5000)
    vals[rng.choice(5000, 30, replace=False)] = np.nan
    one, many = History(64), History(64)
    for i, v in enumerate(vals):
        one.add(i, {"a": float(v), "b": 1.0})
    for k in range(0, 5000, 333):
        many.extend(np.arange(k, min(k + 333, 5000)), {"a": vals[k : k + 333], "b": np.ones(len(vals[k : k + 333]))})
    a, b = one.build("x"), many.build("x")
    assert np.array_equal(
        a.extras["a"].steps if "a" in a.extras else a.series["a"].steps,
        b.extras["a"].steps if "a" in b.extras else b.series["a"].steps,
    )
    assert one.stride == many.stride and len(one) == len(many)


def test_background_checks_keep_log_out_of_the_diagnosis():
    import threading

    started, release = threading.Event(), threading.Event()

    def slow(run):  # a diagnosis that takes as long as the test wants
        started.set()
        release.wait(10)
        return fake_diagnose(run)

    seen = []
    mon = Monitor(stream=None, diagnose_fn=slow, max_overhead=0, on_alert=seen.append)
    assert mon.log({"entropy": 0.05}, 0) == []
    assert started.wait(10)  # the first check runs on the worker...
    for step in range(1, 30):  # ...while log() goes on, not waiting for it
        assert mon.log({"entropy": 0.05}, step) == []
    assert mon.steps_logged == 30 and mon.checks == 0
    release.set()
    for _ in range(500):  # the alert comes back through a later log()
        got = mon.log({"entropy": 0.05})
        if got:
            break
        threading.Event().wait(0.01)
    assert [(a.id, a.severity) for a in got] == [("entropy_collapse", "warning")]
    assert seen == got and mon.alerts == got
    mon.close()
    assert mon.closed and not mon._worker.is_alive()


def test_a_warning_is_confirmed_two_steps_after_its_first_sighting_whatever_the_cadence():
    calls = []

    def diag(run):
        calls.append(int(run.steps[-1]))
        return fake_diagnose(run)

    mon = Monitor(background=False, stream=None, diagnose_fn=diag, max_overhead=0, step_budget=0)
    raised = [a for step, e in enumerate([1.5] * 600 + [0.05] * 20) for a in mon.log({"entropy": e}, step)]
    first = next(s for s in calls if s >= 600)
    assert [(a.severity, a.step) for a in raised] == [("warning", first + 2)]
    assert calls[calls.index(first) + 1] == first + 2  # not the 1% cadence (6 steps here)


def test_what_a_broken_run_does_next_is_not_alerted_as_a_second_failure():
    """RL-loop truncation starvation (seed 1001): the length cap is cut at step 70 and the run starves;
    from step ~154 its updates jump (clip fraction past 20%).  The real diagnosis keeps that as the
    starvation's aftermath (an info note), so Monitor, on a simulated clock, alerts the starvation
    and nothing else."""
    from simruns import simulate_rl

    run = simulate_rl("truncation_starvation", seed=1001, steps=200)
    now = [0.0]
    mon = Monitor(background=False, stream=None, clock=lambda: now[0])
    names = list(run.series)
    table = {m: dict(zip(run.series[m].steps.tolist(), run.series[m].values.tolist())) for m in names}
    for step in run.steps.tolist():
        now[0] += 10.0
        mon.log({m: table[m][step] for m in names if step in table[m]}, step)
    mon.close()
    ids = [a.id for a in mon.alerts]
    assert ids and ids[0] == "truncation_starvation", ids
    assert set(ids) == {"truncation_starvation"}, ids


def test_a_flag_of_skipped_updates_is_read_not_counted_as_bad():
    # a loop logging `update_skipped: True` at every step: read as 1/0 as JSON Lines reads it, so the
    # run whose updates were all refused is alerted, and the flags are no "unreadable values"
    mon = Monitor(background=False, stream=io.StringIO())
    alerts = []
    for step in range(1, 80):
        alerts += mon.log({"grad_norm": 3400.0, "update_skipped": True, "learning_rate": 1e-6}, step)
    alerts += mon.check(final=True)
    assert mon.skipped_values == 0
    assert [a.finding.id for a in alerts] == ["numeric_instability"]
    assert alerts[0].finding.evidence["reading"] == "skipped"
