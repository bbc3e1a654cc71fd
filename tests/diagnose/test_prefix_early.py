"""The diagnosis of a growing prefix names the failure soon after onset (issue 9's offline half of
early alarms), and the prefixes of healthy runs stay silent.

Seeds differ from the ones benchmarks/bench_prefix.py reports (0, 1, 2), except where a seed pins
a case that used to be late (length_hacking seed 2: healthy doubling of the length first).
"""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.context import Ctx
from rlvitals.diagnose.length_hacking import _tail as tail_early
from rlvitals.diagnose.reward_hacking import _early as reward_early
from rlvitals.diagnose.stalled import check as stalled_check
from rlvitals.run import Run, Series
from rlvitals.simulate import simulate

WARN = ("warning", "critical")


def first_named(name: str, seed: int, every: int = 2) -> float | None:
    """Delay from the true onset to the first prefix warning with the right finding (share of the run)."""
    run = simulate(name, seed=seed, steps=200)
    onset = run.meta["truth"]["onset_step"]
    s0, s1 = int(run.steps[0]), int(run.steps[-1])
    for step in range(max(onset, s0 + every), s1 + 1, every):
        d = diagnose(run.upto(step))
        if name in {f.id for f in d.findings if f.severity in WARN}:
            return (step - onset) / (s1 - s0)
    return None


@pytest.mark.parametrize("seed", [2, 101, 202])
def test_length_hacking_named_within_15_percent_even_after_healthy_doubling(seed):
    delay = first_named("length_hacking", seed)
    assert delay is not None and delay <= 0.15, delay


@pytest.mark.parametrize("seed", [101, 202, 303])
def test_reward_hacking_named_within_15_percent(seed):
    delay = first_named("reward_hacking", seed)
    assert delay is not None and delay <= 0.15, delay


@pytest.mark.parametrize("seed", [101, 202])
def test_stalled_warned_within_6_percent_then_critical(seed):
    delay = first_named("stalled", seed, every=1)
    assert delay is not None and delay <= 0.06, delay
    run = simulate("stalled", seed=seed, steps=200)
    early = next(f for f in diagnose(run.upto(int(run.steps[0]) + 11)).findings if f.id == "stalled")
    assert early.severity == "warning" and early.evidence["kl_max"] < 1e-4
    assert next(f for f in diagnose(run).findings if f.id == "stalled").severity == "critical"


@pytest.mark.parametrize("name", ["healthy", "healthy_long", "healthy_reasoning", "batch_noise"])
def test_healthy_prefixes_stay_silent(name):
    run = simulate(name, seed=404, steps=200)
    for step in range(int(run.steps[0]) + 4, int(run.steps[-1]) + 1, 4):
        d = diagnose(run.upto(step))
        warned = [(f.id, f.severity) for f in d.findings if f.severity in WARN and d.verdict != "learning"]
        assert not warned, (step, warned)


def _run(**cols: np.ndarray) -> Run:
    steps = np.arange(1, len(next(iter(cols.values()))) + 1)
    return Run("t", "test", {k: Series(k, steps, np.asarray(v, float)) for k, v in cols.items()})


def _ctx(run: Run) -> Ctx:
    from rlvitals.diagnose import CANONICAL
    from rlvitals.shapes import shapes_of

    return Ctx(run, dict(shapes_of(Run(run.name, run.format, {k: s for k, s in run.series.items() if k in CANONICAL}))))


def test_reward_parting_from_accuracy_is_seen_on_its_last_stretch():
    rng = np.random.default_rng(7)
    n = 120
    acc = np.clip(0.3 + 0.2 * np.minimum(np.arange(n), 100) / 100 + rng.normal(0, 0.03, n), 0, 1)
    reward = 0.1 + acc + rng.normal(0, 0.01, n)
    healthy = _run(acc=acc, reward=reward)
    assert "reward_hacking" not in {f.id for f in diagnose(healthy).findings}
    assert reward_early(_ctx(healthy), "acc") is None
    hacked = reward.copy()
    hacked[112:] += 0.15  # the last 8 steps: reward up, acc not
    f = reward_early(_ctx(_run(acc=acc, reward=hacked)), "acc")
    assert f is not None and f.severity == "warning" and f.onset_step >= 110 and f.evidence["reward_excess"] > 0.1
    assert "reward_hacking" in {f.id for f in diagnose(_run(acc=acc, reward=hacked)).findings}


def test_stall_dust_needs_a_kl_that_is_logged_not_exactly_zero():
    rng = np.random.default_rng(3)
    n = 12
    cols = {
        "acc": 0.4 + rng.normal(0, 0.03, n),
        "reward": 0.6 + rng.normal(0, 0.03, n),
        "entropy": 1.9 + rng.normal(0, 0.002, n),
    }
    dust = _run(kl=np.abs(rng.normal(0, 2e-6, n)), **cols)
    zero = _run(kl=np.zeros(n), **cols)
    moving = _run(kl=np.linspace(1e-3, 5e-3, n), **cols)
    f = stalled_check(_ctx(dust))
    assert f is not None and f.severity == "warning"
    assert stalled_check(_ctx(zero)) is None  # KL exactly 0 everywhere: not computed, not applicable
    assert stalled_check(_ctx(moving)) is None  # the policy left the reference


@pytest.mark.parametrize("seed", [101, 202])
def test_truncation_starvation_named_while_the_cap_starts_to_bite(seed):
    delay = first_named("truncation_starvation", seed)
    assert delay is not None and delay <= 0.08, delay


def test_length_wobble_after_shrinking_is_not_length_hacking():
    rng = np.random.default_rng(5)
    n = 200
    length = np.concatenate([np.geomspace(400, 15, 30), 15 + rng.normal(0, 0.5, n - 30)])
    length[-8:] *= 1.3  # the last stretch: +30% over a flat trend
    acc = np.zeros(n)
    grown = length.copy()
    grown[:30] = 15 + rng.normal(0, 0.5, 30)  # same stretch after a flat start of the same level
    grown = grown * np.linspace(1.0, 1.5, n)  # ... that grew healthily first
    assert tail_early(_ctx(_run(len=length, acc=acc + 0.3 + rng.normal(0, 0.02, n))), "acc") is None
    f = tail_early(_ctx(_run(len=grown, acc=0.3 + rng.normal(0, 0.02, n))), "acc")
    assert f is not None and f.severity == "warning" and f.onset_step >= n - 10
