"""Which moved first, and how: KL in step with an entropy move is its consequence; a KL jump is a blow-up.

A collapse drags KL up gradually as the policy sharpens (the RL-loop simulator: KL 0.01 → 0.95 over
100+ steps while entropy falls 1.21 → 0.38); an explosion lifts entropy and KL together; a blow-up is
a KL that jumps several-fold within a few steps while entropy falls at once (the lesson: "kl 陡增 =
跑飞").
"""

from __future__ import annotations

import numpy as np
import pytest
from diag_curves import N, S, healthy, jitter

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.context import Ctx
from rlvitals.diagnose.predicates import pred
from rlvitals.shapes import shapes_of

STEP = 100  # where the failure starts (of N = 200)


def _ctx(run) -> Ctx:
    return Ctx(run, dict(shapes_of(run)), None)


def _sharpening(seed: int) -> object:
    """Entropy falls smoothly 1.2 → 0.4, KL climbs with it (KL grows as entropy leaves its start),
    the accuracy rises then stalls, the groups turn uniform (adv_std 1.0 → 0.15)."""
    e = 0.4 + 0.8 * np.exp(-(S - 1) / 50.0)
    kl = 1.2 * (1.2 - e) + np.abs(jitter(0.01, seed))
    return healthy(
        seed,
        entropy=e + jitter(0.01, seed + 1),
        kl=kl,
        acc=0.33 + 0.47 * (1 - np.exp(-(S - 1) / 25.0)) + jitter(0.012, seed + 2),
        reward=0.4 + 0.7 * (1 - np.exp(-(S - 1) / 25.0)) + jitter(0.02, seed + 3),
        adv_std=0.15 + 0.85 * np.exp(-(S - 1) / 40.0) + jitter(0.01, seed + 4),
    )


def _surge(seed: int) -> object:
    """The healthy run until STEP, then KL jumps x10 within 5 steps and entropy falls at once."""
    x = np.clip((S - STEP) / 5.0, 0, 1)
    kl = np.linspace(0.002, 0.045, N) * (1 - x) + 0.8 * x + np.abs(jitter(0.01, seed))
    e = np.linspace(1.84, 1.70, N) * (1 - x) + 0.1 * x + jitter(0.01, seed + 1)
    acc = np.where(S < STEP, np.linspace(0.21, 0.45, N), 0.15) + jitter(0.012, seed + 2)
    return healthy(seed, kl=kl, entropy=e, acc=acc, reward=acc + 0.2 + jitter(0.02, seed + 3))


def _flattening(seed: int, abrupt: bool) -> object:
    """Entropy runs up to a uniform policy's ceiling (x1.5 at once, or x2.5 gradually) and KL moves
    with it in the same steps, while the accuracy falls from its peak to ~0."""
    if abrupt:
        x = np.clip((S - STEP) / 3.0, 0, 1)
        e = 1.85 * (1 - x) + 2.77 * x
        kl = np.linspace(0.002, 0.1, N) * (1 - x) + 1.3 * x
    else:
        x = np.clip((S - 60) / 100.0, 0, 1)
        e = 1.0 + 1.5 * x
        kl = 0.002 + 1.0 * x
    acc = np.where(S < STEP, np.linspace(0.15, 0.5, N), 0.04) if abrupt else 0.5 - 0.45 * x
    return healthy(
        seed,
        entropy=e + jitter(0.01, seed + 1),
        kl=kl + np.abs(jitter(0.005, seed)),
        acc=acc + jitter(0.012, seed + 2),
        reward=acc + 0.25 + jitter(0.02, seed + 3),
    )


def _warning_ids(d) -> list[str]:
    return [f.id for f in d.findings if f.severity != "info"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradual_kl_with_collapsing_entropy_is_entropy_collapse(seed):
    run = _sharpening(seed)
    assert pred(_ctx(run), "kl_follows_entropy").holds
    d = diagnose(run)
    ids = _warning_ids(d)
    assert ids and ids[0] == "entropy_collapse", ids
    assert "kl_blowup" not in ids
    top = d.findings[0]
    # the look-alike is ruled out with the KL itself: it moved in step with the entropy
    assert any(r.lookalike == "kl_blowup" and r.metric == "kl" for r in top.ruled_out), top.ruled_out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_abrupt_kl_surge_is_kl_blowup(seed):
    run = _surge(seed)
    assert not pred(_ctx(run), "kl_follows_entropy").holds
    d = diagnose(run)
    ids = _warning_ids(d)
    assert ids and ids[0] == "kl_blowup", ids
    assert "entropy_collapse" not in ids


@pytest.mark.parametrize("abrupt", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_rising_entropy_with_kl_is_entropy_explosion(seed, abrupt):
    run = _flattening(seed, abrupt)
    assert pred(_ctx(run), "kl_follows_entropy").holds
    d = diagnose(run)
    ids = _warning_ids(d)
    assert ids and ids[0] == "entropy_explosion", ids
    assert "kl_blowup" not in ids


@pytest.mark.parametrize("seed", [1000, 1002, 1004])
def test_an_entropy_run_up_owns_the_kl_it_drags_in_its_first_steps(seed):
    # RL loop, an entropy bonus too large: the entropy leaves its line 2-4 steps before the KL, and
    # the KL gained stays within what the entropy gained (a flattening policy's cost) for ~10 steps.
    # Before: the explosion's early rule stood back once the KL moved and kl_blowup spoke first.
    from simruns import simulate_rl

    from rlvitals.diagnose.thresholds import get
    from rlvitals.diagnose.timing import flattening_ratio

    run = simulate_rl("entropy_explosion", seed=seed, steps=200)
    on = int(run.meta["truth"]["onset_step"])
    tops = []
    for step in range(on + 4, on + 11):
        d = diagnose(run.upto(step))
        warns = [f.id for f in d.findings if f.severity != "info"]
        assert "kl_blowup" not in warns[:1], (step, warns)
        tops.append(warns[0] if warns else None)
        r = flattening_ratio(_ctx(run.upto(step)))
        assert r is None or r <= get("kl_flatten"), (step, r)
    assert tops.count("entropy_explosion") >= 5, tops


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_a_blow_up_that_lifts_the_entropy_runs_ahead_of_it(seed):
    # the first simulator's blow-up: the entropy rises too, but the KL gains far more than it
    from rlvitals.diagnose.thresholds import get
    from rlvitals.diagnose.timing import flattening_ratio
    from rlvitals.simulate import simulate

    run = simulate("kl_blowup", seed=seed, steps=200)
    r = flattening_ratio(_ctx(run))
    assert r is not None and r > 3 * get("kl_flatten"), r
    assert diagnose(run).top.id == "kl_blowup"
