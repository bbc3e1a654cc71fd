"""A grad norm of exactly 0 is a step with no gradient, not a small update.

A run whose first tens of steps had no group with a reward spread logs grad_norm 0.0 there; once
answers start to differ, a few steps carry a small gradient, then gradients flow at the run's
ordinary size.  Measured against a start made of those zeros, the grad norm "rose" 30x and the
run read as lr_too_high.  Its early level is the median of the early steps that had a gradient; a
grad norm that really grows from its first gradients is still named.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.run import Run

N = 200
S = np.arange(1, N + 1)


def _run(seed: int, *, grows: bool = False) -> Run:
    r = np.random.default_rng(seed)
    quiet = S <= 25  # no group with a reward spread yet: no gradient, nothing scored
    g = 0.09 * np.exp(r.normal(0, 0.15, N)) * (1 + (29 * (S - 25) / (N - 25) if grows else 0.0))
    # then a few steps where one group in many had a spread: a gradient, a twentieth of the ordinary one
    gnorm = np.where(quiet, 0.0, np.where(S <= 40, 0.05 * g, g))
    reward = np.where(quiet, 0.0, np.clip(0.05 + 0.25 * (S - 25) / (N - 25) + r.normal(0, 0.04, N), 0, 1))
    entropy = 0.45 + r.normal(0, 0.02, N)
    return Run.from_arrays("late start", S, dict(reward=reward, gnorm=gnorm, entropy=entropy))


@pytest.mark.parametrize("seed", range(5))
def test_steps_without_a_gradient_are_no_early_level(seed):
    d = diagnose(_run(seed))
    assert not any(f.id == "lr_too_high" for f in d.findings), [(f.id, f.severity, f.evidence) for f in d.findings]
    assert d.verdict == "learning"


@pytest.mark.parametrize("seed", range(3))
def test_a_grad_norm_growing_from_its_first_gradients_is_still_named(seed):
    # (a note, not a warning: the reward kept climbing, so it did not hurt the goal)
    d = diagnose(_run(seed, grows=True))
    lr = [f for f in d.findings if f.id == "lr_too_high"]
    assert lr and lr[0].evidence["gnorm_rise"] >= 5, [(f.id, f.severity) for f in d.findings]
