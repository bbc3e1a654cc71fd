"""The slowest prefix delays, named early: a data set too easy from the first step, and a stale
sampler's ratio on its way out (issue 9's prefix delays, issue 10's first alerts).

The simulated seeds are not the ones benchmarks/bench_prefix.py reports (1000-1004).
"""

from __future__ import annotations

import diag_curves as dc
import numpy as np
import pytest
from simruns import simulate_rl

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.context import Ctx
from rlvitals.diagnose.sync_failure import _drifting
from rlvitals.diagnose.thresholds import using
from rlvitals.shapes import classify

WARN = ("warning", "critical")


def first_warned(name: str, finding: str, seed: int, every: int = 2) -> tuple[int | None, int, int]:
    """(first prefix step whose warnings name `finding`, true onset, step span) of an RL-loop run."""
    run = simulate_rl(name, seed=seed, steps=200)
    onset = run.meta["truth"]["onset_step"]
    s0, s1 = int(run.steps[0]), int(run.steps[-1])
    for step in range(s0 + every, s1 + 1, every):
        if finding in {f.id for f in diagnose(run.upto(step)).findings if f.severity in WARN}:
            return step, onset, s1 - s0
    return None, onset, s1 - s0


def ctx_of(**cols) -> Ctx:
    """A diagnosis context over hand-built columns (steps 1..N)."""
    n = len(next(iter(cols.values())))
    run = dc.Run.from_arrays("t", np.arange(1, n + 1), cols)
    return Ctx(run, {k: classify(s) for k, s in run.series.items()})


# -- data_too_easy from the start ----------------------------------------------------------------
@pytest.mark.parametrize("seed", [1101, 1202])
def test_data_too_easy_from_the_start_is_named_within_6_percent(seed):
    step, onset, span = first_warned("data_too_easy", "data_too_easy", seed)
    assert step is not None and (step - onset) / span <= 0.06, (step, onset)
    run = simulate_rl("data_too_easy", seed=seed, steps=200)
    f = next(f for f in diagnose(run.upto(step)).findings if f.id == "data_too_easy")
    # the numbers it fired on: most answers right from the start, adv_std below the healthy band
    goal_start = f.evidence.get("acc_start", f.evidence.get("val_acc_start"))
    assert goal_start >= 0.9 and f.evidence["adv_std_start"] < 0.8
    assert f.onset_step == int(run.steps[0])


def test_a_low_adv_std_without_accuracy_at_the_ceiling_is_not_easy_data():
    # the same adv_std band from step 1, but accuracy in the middle: groups differ, not too easy
    rng = np.random.default_rng(7)
    n = 40
    adv = 0.55 + rng.normal(0, 0.05, n)
    for acc_level, warned in ((0.95, True), (0.55, False)):
        acc = acc_level + rng.normal(0, 0.015, n)
        run = dc.Run.from_arrays(
            "t",
            np.arange(1, n + 1),
            {"acc": acc, "reward": acc, "adv_std": adv, "entropy": 1.85 + rng.normal(0, 0.01, n)},
        )
        got = {f.id: f.severity for f in diagnose(run).findings}
        assert (got.get("data_too_easy") in WARN) is warned, (acc_level, got)


@pytest.mark.parametrize("name", ["healthy", "plateau", "entropy_collapse"])
def test_rl_prefixes_that_start_below_the_ceiling_never_read_as_easy_from_the_start(name):
    run = simulate_rl(name, seed=1303, steps=200)
    for step in range(12, 201, 6):
        easy = [f for f in diagnose(run.upto(step)).findings if f.id == "data_too_easy"]
        assert not any("acc_start" in f.evidence or "val_acc_start" in f.evidence for f in easy), step
        if name != "entropy_collapse":  # (a collapse's adv_std does fall while acc climbs: not this path)
            assert not any(f.severity in WARN for f in easy), step


def test_adv_std_falling_with_a_faster_falling_entropy_is_no_easy_data():
    # RL-loop collapse (seed 1004): before the true onset the entropy slides 1.23 -> 0.75 while adv_std
    # eases 0.54 -> 0.47 and acc climbs to 0.45 -- the policy narrowing (pair B), not the questions
    run = simulate_rl("entropy_collapse", seed=1004, steps=200)
    onset = run.meta["truth"]["onset_step"]
    for step in range(11, onset, 2):
        warned = {f.id for f in diagnose(run.upto(step)).findings if f.severity in WARN}
        assert "data_too_easy" not in warned, step


# -- sync_failure on its way out -----------------------------------------------------------------
@pytest.mark.parametrize("seed", [1101, 1202])
def test_a_stale_samplers_drift_is_named_within_10_percent(seed):
    step, onset, span = first_warned("sync_failure", "sync_failure", seed)
    assert step is not None and (step - onset) / span <= 0.10, (step, onset)


def _every(run, n: int):
    """`run` as a logger reporting every n steps the mean of its window would (TRL's logging_steps)."""
    from dataclasses import replace

    def thin(sr):
        keys = ((sr.steps - 1) // n + 1) * n
        uniq, idx = np.unique(keys, return_inverse=True)
        return replace(sr, steps=uniq, values=np.bincount(idx, sr.values) / np.bincount(idx))

    return dc.Run(name=run.name, format=run.format, series={k: thin(v) for k, v in run.series.items()})


@pytest.mark.parametrize("seed", [2000, 2002])
def test_a_drift_logged_every_10_steps_is_still_named(seed):
    # 30 points: the last blocks overlap the end window, so "further out than it was" compares with
    # the blocks before that window
    run = _every(simulate_rl("sync_failure", seed=seed, steps=300), 10)
    d = diagnose(run)
    assert d.verdict == "dead" and d.top.id == "sync_failure"
    with using({"ratio_drift_tau": 2.0}):  # the late test alone (the step-by-step shape test off)
        assert "sync_failure" in {f.id for f in diagnose(run).findings if f.severity in WARN}


def _ratio(shape: np.ndarray, noise: float, seed: int = 0) -> Ctx:
    rng = np.random.default_rng(seed)
    return ctx_of(ratio_mean=1.0 - shape + rng.normal(0, noise, shape.size))


def test_drift_is_a_steady_departure_not_a_jump_nor_noise():
    t = np.arange(100, dtype=float)
    ramp = np.where(t >= 80, 2.5e-4 * (t - 79), 0.0)  # a stale sampler: a little further each step
    assert _drifting(_ratio(ramp, 3e-5)) is not None
    jump = np.where(t >= 85, 4e-3, 0.0)  # knocked off 1 at once, then holding
    assert _drifting(_ratio(jump, 3e-5)) is None
    lurch = np.where(t >= 88, 3e-3, 0.0) + np.where(t == 87, 1.2e-3, 0.0)  # two steps, then holding
    assert _drifting(_ratio(lurch, 1e-4)) is None
    assert _drifting(_ratio(np.zeros(100), 1e-2)) is None  # a noisy ratio that never leaves 1
    dust = np.where(t >= 80, 5e-5 * (t - 79), 0.0)  # steady, but a drift of numerical dust
    assert _drifting(_ratio(dust, 1e-6)) is None
