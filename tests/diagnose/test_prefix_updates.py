"""Prefixes of runs whose updates go wrong (lr_too_high, kl_blowup, numeric_instability, ...) are
named early and right; the small-batch run's flickering clip fraction never reads as a too-high LR.

Seeds differ from the ones benchmarks/bench_prefix.py reports (0-4 and 1000-1004).
"""

from __future__ import annotations

import numpy as np
import pytest
from simruns import simulate_rl

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.context import Ctx
from rlvitals.diagnose.updates import assess
from rlvitals.run import Run
from rlvitals.simulate import simulate

WARN = ("warning", "critical")


def make(engine: str, name: str, seed: int, steps: int = 200) -> Run:
    return simulate(name, seed=seed, steps=steps) if engine == "sim" else simulate_rl(name, seed=seed, steps=steps)


def scan(run: Run, want: str | None, every: int = 2) -> tuple[float | None, list[str]]:
    """(delay from the true onset to the first prefix warning naming `want`, as a share of the run;
    the findings that warned before it)."""
    onset = run.meta["truth"]["onset_step"] or int(run.steps[0])
    s0, s1 = int(run.steps[0]), int(run.steps[-1])
    before: list[str] = []
    for step in range(s0 + every, s1 + 1, every):
        warned = [f.id for f in diagnose(run.upto(step)).findings if f.severity in WARN]
        if want is not None and want in warned:
            return max(0, step - onset) / (s1 - s0), before
        before += [w for w in warned if w not in before]
    return None, before


def _ctx(**cols: np.ndarray) -> Ctx:
    from rlvitals.shapes import shapes_of

    n = len(next(iter(cols.values())))
    run = Run.from_arrays("t", np.arange(1, n + 1), cols, format="test", source="test")
    return Ctx(run, dict(shapes_of(run)))


def test_a_clip_fraction_flickering_past_20_percent_is_not_held():
    rng = np.random.default_rng(7)
    # a 32-answer batch: clip_frac in steps of 1/32 around 0.21, +-0.07 a step
    v = np.clip(np.round((0.21 + 0.07 * rng.standard_normal(60)) * 32) / 32, 0, 1)
    u = assess(_ctx(clip_frac=v, reward=rng.normal(0.5, 0.1, 60)))
    assert not u.clip_high


def test_a_clip_fraction_that_jumps_past_20_percent_is_held_on_its_last_stretch():
    rng = np.random.default_rng(8)
    v = np.r_[0.06 + 0.01 * rng.standard_normal(80), 0.25 + 0.01 * rng.standard_normal(8)]
    u = assess(_ctx(clip_frac=v, reward=rng.normal(0.5, 0.1, 88)))
    assert u.clip_high and u.clip is not None and u.clip > 0.2


@pytest.mark.parametrize("seed", [1010, 1011])
def test_rl_lr_too_high_named_within_5_percent(seed):
    delay, before = scan(make("rl", "lr_too_high", seed), "lr_too_high")
    assert delay is not None and delay <= 0.05, (delay, before)


@pytest.mark.parametrize("seed", [1010, 1011, 1012])
def test_rl_small_batch_prefixes_never_warn(seed):
    _, warned = scan(make("rl", "batch_noise", seed), None, every=3)
    assert "lr_too_high" not in warned, warned


# -- numeric_instability before the first NaN ---------------------------------------------------
@pytest.mark.parametrize("seed", [101, 202])
def test_exploding_grad_norm_names_numeric_instability_before_the_nan(seed):
    run = simulate("numeric_instability", seed=seed, steps=200)
    delay, before = scan(run, "numeric_instability", every=1)
    assert delay is not None and delay <= 0.05, (delay, before)
    assert before == [], before
    # the first warning comes while every curve is still finite, from the grad norm alone
    onset = run.meta["truth"]["onset_step"]
    first_nan = min(int(s.steps[np.argmax(~s.finite)]) for s in run.series.values() if (~s.finite).any())
    step = onset + round(delay * (int(run.steps[-1]) - int(run.steps[0])))
    assert step < first_nan
    f = next(f for f in diagnose(run.upto(step)).findings if f.id == "numeric_instability")
    assert f.severity == "warning" and f.evidence["gnorm_over_trend"] >= 3


def test_a_grad_norm_that_grows_with_the_clip_fraction_is_not_numeric():
    rng = np.random.default_rng(3)
    n = 120
    ramp = np.r_[np.zeros(100), np.arange(1, 21)]
    gnorm = 0.8 * np.exp(0.12 * ramp) * (1 + 0.05 * rng.standard_normal(n))
    clip = 0.03 * np.exp(0.1 * ramp) * (1 + 0.05 * rng.standard_normal(n))
    reward = 0.4 + 0.002 * np.arange(n) + 0.02 * rng.standard_normal(n)
    run = Run.from_arrays(
        "lr", np.arange(1, n + 1), {"gnorm": gnorm, "clip_frac": clip, "reward": reward}, format="test", source="test"
    )
    ids = {f.id for f in diagnose(run).findings}
    assert "numeric_instability" not in ids
    # the same grad norm with a clip fraction that holds its line is the numbers going
    run.series["clip_frac"] = Run.from_arrays(
        "c",
        np.arange(1, n + 1),
        {"clip_frac": 0.03 * (1 + 0.05 * rng.standard_normal(n))},
        format="test",
        source="test",
    ).series["clip_frac"]
    assert "numeric_instability" in {f.id for f in diagnose(run).findings}


def test_counted_nan_gradients_are_numeric_instability_though_every_curve_is_finite():
    from pathlib import Path

    from rlvitals import read

    path = Path(__file__).parents[1] / "fixtures" / "peers" / "rlprobe" / "grad_pathology" / "steps.jsonl"
    run = read(str(path))
    assert all(s.finite.all() for s in run.series.values())
    top = diagnose(run).top
    assert top is not None and top.id == "numeric_instability"
    assert top.evidence["nan_count_steps"] > 0 and top.evidence["gnorm_spikes_10x"] >= 3


# -- lr_too_high and kl_blowup told apart on the way up -----------------------------------------
@pytest.mark.parametrize("seed", [101, 202, 303])
def test_sim_lr_too_high_named_early_and_never_taken_for_a_kl_blowup(seed):
    delay, before = scan(make("sim", "lr_too_high", seed), "lr_too_high")
    assert delay is not None and delay <= 0.08, (delay, before)
    assert "kl_blowup" not in before


@pytest.mark.parametrize("seed", [101, 202, 303])
def test_sim_kl_blowup_named_early_and_never_taken_for_a_too_high_lr(seed):
    delay, before = scan(make("sim", "kl_blowup", seed), "kl_blowup")
    assert delay is not None and delay <= 0.08, (delay, before)
    assert "lr_too_high" not in before


# -- entropy_explosion on the way up ------------------------------------------------------------
@pytest.mark.parametrize("engine,seed", [("sim", 101), ("sim", 202), ("rl", 1010), ("rl", 1011)])
def test_entropy_running_up_names_the_explosion_before_the_lr_or_the_kl(engine, seed):
    delay, before = scan(make(engine, "entropy_explosion", seed), "entropy_explosion", every=1)
    assert delay is not None and delay <= 0.06, (delay, before)
    assert not {"lr_too_high", "kl_blowup"} & set(before), before


def test_an_entropy_rising_steadily_is_not_running_up():
    from rlvitals.diagnose.predicates import pred

    rng = np.random.default_rng(11)
    n = 150
    steady = 1.2 + 0.004 * np.arange(n) + 0.01 * rng.standard_normal(n)  # a bonus at work all along
    assert not pred(_ctx(entropy=steady), "entropy_running_up").holds
    bent = steady.copy()
    bent[-8:] += 0.03 * np.arange(1, 9)  # bends up in the last 8 steps
    assert pred(_ctx(entropy=bent), "entropy_running_up").holds


# -- kl_blowup's severity follows the KL's level --------------------------------------------------
@pytest.mark.parametrize("top,sev", [(0.25, "warning"), (1.5, "critical")])
def test_an_order_of_magnitude_kl_rise_is_critical_only_at_a_level_that_matters(top, sev):
    rng = np.random.default_rng(5)
    n = 200
    kl = np.r_[np.full(120, 0.002), 0.002 * (top / 0.002) ** (np.arange(1, 81) / 20).clip(max=1)]
    kl = kl * (1 + 0.05 * rng.standard_normal(n))
    reward = 0.5 + 0.02 * rng.standard_normal(n)
    run = Run.from_arrays("kl", np.arange(1, n + 1), {"kl": kl, "reward": reward}, format="test", source="test")
    f = next(f for f in diagnose(run).findings if f.id == "kl_blowup")
    assert f.severity == sev, f.evidence


@pytest.mark.parametrize("k,fires", [(2, False), (7, True)])
def test_repeated_gradient_spikes_are_numeric_instability_the_odd_one_is_not(k, fires):
    rng = np.random.default_rng(9)
    n = 400
    gnorm = 0.5 * (1 + 0.1 * rng.standard_normal(n))
    at = rng.choice(np.arange(40, n), size=k, replace=False)
    gnorm[at] *= rng.uniform(40, 90, size=k)  # one-step spikes, back the next step
    reward = 0.3 + 0.001 * np.arange(n) + 0.03 * rng.standard_normal(n)
    run = Run.from_arrays("g", np.arange(1, n + 1), {"gnorm": gnorm, "reward": reward}, format="test", source="test")
    assert ("numeric_instability" in {f.id for f in diagnose(run).findings}) == fires


@pytest.mark.parametrize("learns", [True, False])
def test_grad_norm_points_at_100x_that_each_came_back_are_judged_by_the_goal(learns):
    # a dozen grad-norm points 150-400x its level, each back the next step: they stopped, not a
    # run-away -- named, and cleared only by a goal that learned through them (not one that fell)
    rng = np.random.default_rng(4)
    n = 240
    gnorm = 0.5 * (1 + 0.1 * rng.standard_normal(n))
    at = np.arange(20, 200, 15)
    gnorm[at] *= rng.uniform(150, 400, size=at.size)
    s = np.arange(1, n + 1)
    goal = 0.4 + 0.4 * s / n if learns else np.where(s < 60, 0.4 + 0.004 * s, 0.25)
    reward = goal + 0.03 * rng.standard_normal(n)
    d = diagnose(Run.from_arrays("g", s, {"gnorm": gnorm, "reward": reward}, format="test", source="test"))
    f = {x.id: x for x in d.findings}["numeric_instability"]
    assert f.evidence["gnorm_points_100x"] >= 10 and f.evidence["gnorm_back_after_each"] is True
    assert (f.severity == "info" and d.verdict == "learning") if learns else d.verdict != "learning"
    # the same points with the grad norm staying up after the last: an explosion, whatever the goal did
    gnorm[200:] *= 300
    d = diagnose(Run.from_arrays("g", s, {"gnorm": gnorm, "reward": reward}, format="test", source="test"))
    f = {x.id: x for x in d.findings}["numeric_instability"]
    assert "gnorm_back_after_each" not in f.evidence and f.severity == "critical"


# -- entropy_collapse: a sparse eval's slow drift is not "still learning" ---------------------------
def test_entropy_at_zero_with_training_acc_flat_is_a_collapse_though_a_sparse_eval_drifts_up():
    rng = np.random.default_rng(13)
    n = 400
    t = np.arange(1, n + 1)
    entropy = 0.6 * np.exp(-t / 60) + 0.005
    acc = np.minimum(0.2 + 0.002 * t, 0.45) + 0.01 * rng.standard_normal(n)
    run = Run.from_arrays("ec", t, {"entropy": entropy, "acc": acc, "reward": acc + 0.1}, format="test", source="test")
    ev_steps = np.arange(1, n + 1, 25)
    ev = np.minimum(0.17 + 0.003 * ev_steps, 0.40) + 0.0001 * ev_steps + 0.02 * rng.standard_normal(ev_steps.size)
    from rlvitals.run import Series

    run.series["val_acc"] = Series("val_acc", ev_steps, ev, "test")
    top = diagnose(run).top
    assert top is not None and top.id == "entropy_collapse", diagnose(run).findings


@pytest.mark.parametrize("seed", [101, 202])
def test_sim_entropy_plunge_names_the_collapse_within_6_percent(seed):
    delay, before = scan(make("sim", "entropy_collapse", seed), "entropy_collapse", every=1)
    assert delay is not None and delay <= 0.06, (delay, before)
    assert before == [], before


# -- sync_failure: one huge step's ratio excursion is not a monotonic departure ---------------------
def test_a_ratio_knocked_off_1_for_one_step_is_not_a_sync_failure_a_drift_is():
    rng = np.random.default_rng(17)
    n = 120
    ratio = 1.0 + 3e-5 * rng.standard_normal(n)
    knocked = ratio.copy()
    knocked[-1] = 0.70  # the last logged step: one huge update
    reward = 0.4 + 0.002 * np.arange(n) + 0.02 * rng.standard_normal(n)
    run = Run.from_arrays(
        "r", np.arange(1, n + 1), {"ratio_mean": knocked, "reward": reward}, format="test", source="test"
    )
    assert "sync_failure" not in {f.id for f in diagnose(run).findings}
    drift = ratio - np.r_[np.zeros(80), 0.0008 * np.arange(1, 41)]  # 1.0 -> 0.968, steadily
    run = Run.from_arrays(
        "r", np.arange(1, n + 1), {"ratio_mean": drift, "reward": reward}, format="test", source="test"
    )
    assert "sync_failure" in {f.id for f in diagnose(run).findings}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_grad_norm_step_just_logged_on_a_short_log_is_no_late_level(seed):
    """16 steps, no clip fraction: the grad norm near 0.6 and its last point x25 (a step the next
    may take back).  The last tenth of 16 points is two; their median is that spike's half: no
    level.  Three points up at the end are one."""
    r = np.random.default_rng(seed)
    s = np.arange(1, 17)
    g = 0.6 + r.normal(0, 0.05, s.size)
    acc = np.linspace(0.40, 0.55, s.size) + r.normal(0, 0.04, s.size)
    one = g.copy()
    one[-1] = 15.0
    u = assess(_ctx(gnorm=one, acc=acc, reward=acc))
    assert u.gnorm is not None and u.gnorm < 1.0
    three = g.copy()
    three[-3:] = 15.0
    assert (assess(_ctx(gnorm=three, acc=acc, reward=acc)).gnorm or 0) > 10


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_grad_norm_high_only_in_its_own_units_is_no_overshoot(seed):
    """No clip fraction, a noisy accuracy: a grad norm holding at 6 (a large model's pre-clip norm)
    says nothing of the step size -- the rule stays silent; the same grad norm climbing from 0.5 to 6
    says the steps grew, and the rule fires (whether it sets the verdict is the goal's to say)."""
    from rlvitals.diagnose import lr_too_high

    r = np.random.default_rng(seed)
    n = 120
    acc = np.clip(0.6 + r.normal(0, 0.15, n), 0, 1)
    held = 6.0 * (1 + r.normal(0, 0.05, n))
    climbing = np.linspace(0.5, 6.0, n) * (1 + r.normal(0, 0.05, n))
    assert lr_too_high.check(_ctx(acc=acc, reward=acc, gnorm=held)) is None
    f = lr_too_high.check(_ctx(acc=acc, reward=acc, gnorm=climbing))
    assert f is not None and f.evidence["gnorm_rise"] >= 3
