"""An entropy that slid all along is not one that "held, then fell now".

The early collapse warning reads a fall that began after a steady stretch.  A noisy entropy sliding
slowly over the whole run (0.7 -> 0.2, a reasoning model's healthy range) crosses the line that
dates its onset for the last time late, on its last noisy excursion; the goal, which made its gains
early and then plateaued, is flat after that date -- and "learning stopped with it" would be read
into a stop that came long before.  The median of the entropy before such an onset is already well
on its way down: no steady stretch, no early warning.
"""

from __future__ import annotations

import numpy as np

from rlvitals.diagnose import diagnose
from rlvitals.run import Run, Series

N = 100
S = np.arange(1, N + 1)


def _run(seed: int, *, steady_then_fall: bool = False) -> Run:
    r = np.random.default_rng(seed)
    gains = 1 - np.exp(-S / 15.0)  # the gains come early, then a plateau
    if steady_then_fall:  # held its level for 60 steps, then more than half of it gone
        base = np.where(S <= 60, 0.7, 0.7 * np.exp(-(S - 60) / 18.0))
        gains = np.where(S <= 60, S / 60.0, 1.0)  # learning until the fall, nothing after it
    else:
        base = 0.2 + 0.5 * np.exp(-S / 45.0)
    entropy = base * np.exp(r.normal(0, 0.3 if not steady_then_fall else 0.05, N))
    ev = S[::10]
    run = Run.from_arrays("slide", S, dict(reward=0.55 + 0.15 * gains + r.normal(0, 0.05, N), entropy=entropy))
    ev_gain = np.interp(ev, S, gains)
    run.series["val_acc"] = Series("val_acc", ev, 0.48 + 0.19 * ev_gain + r.normal(0, 0.006, ev.size))
    return run


def test_a_noisy_slide_all_along_is_not_an_early_collapse():
    for seed in range(12):
        d = diagnose(_run(seed))
        assert d.verdict == "learning", (seed, [(f.id, f.severity, f.onset_step) for f in d.findings])
        assert not any(f.id == "entropy_collapse" and f.severity != "info" for f in d.findings), seed


def test_a_steady_entropy_that_then_falls_with_the_goal_stopping_still_warns():
    for seed in range(4):
        d = diagnose(_run(seed, steady_then_fall=True))
        assert any(f.id == "entropy_collapse" and f.severity != "info" for f in d.findings), (
            seed,
            [(f.id, f.severity, f.onset_step) for f in d.findings],
        )
