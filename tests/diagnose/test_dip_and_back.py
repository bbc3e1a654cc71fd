"""A goal that fell into a dip and came back to where it started has gained nothing.

The least-squares line through such a curve climbs (the low points sit early, the recovered ones
late), so a line alone would call the run "learning".  The two end windows, where they resolve it,
overrule the line: the run ended below the line's climb by more than goal_z standard errors of
their difference, and no more than its noise above where it began.  A sparse log whose end windows
cannot resolve anything still leans on the line, and a dip followed by a real climb past the start
is learning.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.run import Run

N = 70
S = np.arange(1, N + 1)


def _run(seed: int, *, after: float, n: int = N) -> Run:
    """A 0..1 reward at 0.14, down to 0.01 from a tenth of the run to near half, then back to `after`."""
    r = np.random.default_rng(seed)
    s = np.arange(1, n + 1)
    a, b = n // 9, n * 4 // 9
    v = np.full(n, 0.14)
    v[a:b] = 0.01
    v[b:] = np.minimum(after, 0.01 + (after - 0.01) * (s[b:] - s[b]) / (n // 7))
    v = np.clip(v + r.normal(0, 0.03, n) * (v > 0.02), 0.0, 1.0)
    entropy = np.where((s > a) & (s < b), 0.3, 0.8) + r.normal(0, 0.02, n)
    return Run.from_arrays("dip", s, dict(reward=v, entropy=entropy))


@pytest.mark.parametrize("seed", range(6))
def test_back_where_it_started_is_not_learning(seed):
    d = diagnose(_run(seed, after=0.14))
    assert d.verdict == "dead", [(f.id, f.severity, f.evidence) for f in d.findings]
    assert d.findings[0].id == "not_learning"
    assert not d.run["goal"]["improved"]


@pytest.mark.parametrize("seed", range(6))
def test_back_and_well_past_the_start_is_learning(seed):
    d = diagnose(_run(seed, after=0.45))
    assert d.verdict == "learning", [(f.id, f.severity) for f in d.findings]
    assert d.run["goal"]["improved"]


def test_a_sparse_riser_still_leans_on_its_line():
    # an eval-like goal of 12 noisy points climbing 0.2 -> 0.5: its end windows are one point each
    r = np.random.default_rng(5)
    s = np.arange(10, 130, 10)
    v = 0.2 + 0.3 * (s - s[0]) / (s[-1] - s[0]) + r.normal(0, 0.06, s.size)
    d = diagnose(Run.from_arrays("sparse", s, dict(reward=np.clip(v, 0, 1))))
    assert d.verdict == "learning", [(f.id, f.severity) for f in d.findings]
