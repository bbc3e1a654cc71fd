"""What a log says of the sampler and the trainer, read for what it measures.

- TRL logs the mean per-token gap between the trainer's and the sampler's log-probs
  (`sampling/sampling_logp_difference/mean`) beside its importance-sampling ratio; in its sequence
  modes that ratio is a product over the answer's tokens, far under 1 when every token agrees to a
  hundredth.  The per-token gap stands in for ratio_mean (exp(-gap): 1 when they agree), ahead of
  the ratio: a run that learns with a gap of a hundredth is no sync failure; a gap that grows to
  half a nat is.
- A grad norm alternating between steps whose groups had no reward spread (only the KL term's
  gradient, a hundredth of the ordinary one) and ordinary steps leaves its log line whenever the
  mix changes; it explodes only when it passes the highest level it reached at two points at least
  (one early spike sets no level).
- A measured curve (a KL) NaN at lone points among finite ones, a minority of them, finite at its
  level after each, could not be measured there: a note, not numeric instability.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from rlvitals import read
from rlvitals.diagnose import _context, diagnose, numeric_instability
from rlvitals.run import Run

N = 120
S = np.arange(1, N + 1)


def _jsonl(tmp_path, cols: dict[str, np.ndarray]) -> Run:
    path = tmp_path / "trl.jsonl"
    rows = [{"step": int(st), **{k: float(v[i]) for k, v in cols.items()}} for i, st in enumerate(S)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return read(path)


def _trl(seed: int, gap_end: float) -> dict[str, np.ndarray]:
    r = np.random.default_rng(seed)
    acc = np.clip(0.35 + 0.35 * S / N + r.normal(0, 0.05, N), 0, 1)
    gap = np.abs(0.012 + (gap_end - 0.012) * (S / N) ** 2 + r.normal(0, 0.002, N))
    return {
        "reward": acc,
        "rewards/correctness_reward/mean": acc,
        "entropy": 0.5 - 0.2 * S / N + r.normal(0, 0.01, N),
        "kl": 0.001 + 0.01 * S / N + np.abs(r.normal(0, 0.001, N)),
        "sampling/sampling_logp_difference/mean": gap,
        # per sequence: exp(-sum of ~300 token gaps), nowhere near 1 even when the gap is tiny
        "sampling/importance_sampling_ratio/mean": np.exp(-300 * gap * r.uniform(0.3, 1.0, N)),
    }


@pytest.mark.parametrize("seed", range(3))
def test_a_per_sequence_ratio_far_under_one_is_no_sync_failure(seed, tmp_path):
    run = _jsonl(tmp_path, _trl(seed, 0.012))
    assert 0.97 < run.series["ratio_mean"].values.mean() < 1.0  # exp(-gap), not the sequence's ratio
    d = diagnose(run)
    assert d.verdict == "learning" and not [f for f in d.findings if f.id == "sync_failure"]


@pytest.mark.parametrize("seed", range(3))
def test_a_per_token_gap_that_grows_is_still_a_sync_failure(seed, tmp_path):
    d = diagnose(_jsonl(tmp_path, _trl(seed, 0.6)))
    assert any(f.id == "sync_failure" and f.severity != "info" for f in d.findings), [
        (f.id, f.severity) for f in d.findings
    ]


def _bimodal(seed: int, *, explodes: bool) -> Run:
    """One prompt a step, logged in five windows of 12 steps across 500: a step whose group was all
    right has no reward spread, and its grad norm is the KL term's alone, a few hundredths of the
    ordinary one.  The middle windows had few groups with a spread, the last many again."""
    r = np.random.default_rng(seed)
    s = np.concatenate([np.arange(a, a + 12) for a in (1, 126, 250, 375, 489)])
    p_signal = np.repeat([0.6, 0.4, 0.25, 0.25, 0.8], 12)
    signal = r.random(s.size) < p_signal
    gnorm = np.where(signal, 0.4 * np.exp(r.normal(0, 0.3, s.size)), 0.004 * np.exp(r.normal(0, 0.4, s.size)))
    if explodes:
        gnorm = np.where(s >= 489, 40 * 0.4 * np.exp(r.normal(0, 0.3, s.size)), gnorm)
    acc = np.where(signal, r.choice([0.625, 0.75, 0.875], s.size), 1.0)
    entropy = 0.4 - 0.2 * s / s[-1]
    return Run.from_arrays("one prompt a step", s, dict(reward=acc, gnorm=gnorm, entropy=entropy, clip_frac=0 * s))


@pytest.mark.parametrize("seed", range(3))
def test_a_grad_norm_back_among_its_levels_does_not_explode(seed):
    found = numeric_instability.check(_context(_bimodal(seed, explodes=False), None))
    assert found is None, found.evidence


@pytest.mark.parametrize("seed", range(3))
def test_a_grad_norm_past_every_level_it_reached_still_explodes(seed):
    found = numeric_instability.check(_context(_bimodal(seed, explodes=True), None))
    assert found is not None and found.severity != "info"


def _kl_with_nan(at) -> Run:
    r = np.random.default_rng(3)
    n = 30
    s = np.arange(5, 5 * n + 1, 5)
    kl = 0.001 + 0.01 * np.arange(n) / n + np.abs(r.normal(0, 0.001, n))
    kl[list(at)] = np.nan
    reward = 1.5 - 0.3 * np.arange(n) / n + r.normal(0, 0.05, n)
    return Run.from_arrays("kl gaps", s, dict(reward=reward, kl=kl, gnorm=0.14 + r.normal(0, 0.01, n)))


def test_a_kl_that_could_not_be_measured_at_lone_steps_is_a_note():
    d = diagnose(_kl_with_nan([0, 8, 17]))
    ni = next(f for f in d.findings if f.id == "numeric_instability")
    assert ni.severity == "info" and ni.evidence["kl_unmeasured_steps"] == 3


def test_a_kl_nan_two_steps_running_or_most_of_the_time_is_still_critical():
    for at in ([8, 9, 17], range(0, 30, 2)):
        d = diagnose(_kl_with_nan(at))
        ni = next(f for f in d.findings if f.id == "numeric_instability")
        assert ni.severity == "critical", at


def test_one_early_spike_sets_no_level_a_later_explosion_must_pass():
    # a first step's grad norm 250x its ordinary level, then a climb to 15x over the last stretch: the
    # lone spike is no level the run held, so the climb still explodes
    r = np.random.default_rng(7)
    s = np.arange(1, 201)
    g = 0.2 * np.exp(r.normal(0, 0.1, s.size))
    g[0] = 50.0
    g[s > 190] *= 15
    run = Run.from_arrays("late climb", s, dict(reward=0.3 + 0.002 * s, gnorm=g, entropy=0.9 - 0.001 * s))
    found = numeric_instability.check(_context(run, None))
    assert found is not None and found.severity == "warning" and found.evidence.get("gnorm_over_trend", 0) > 10
