"""Prefixes of runs whose updates go wrong (lr_too_high, kl_blowup, numeric_instability, ...) are
named early and right; the small-batch run's flickering clip fraction never reads as a too-high LR.

Seeds differ from the ones benchmarks/bench_prefix.py reports (0-4 and 1000-1004).
"""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.context import Ctx
from rlvitals.diagnose.updates import assess
from rlvitals.run import Run
from rlvitals.simulate import simulate
from rlvitals.simulate.rlloop import simulate_rl

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
