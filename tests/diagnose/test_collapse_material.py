"""An entropy gone to 0 is excused as convergence only by a gain that is material, not merely significant.

Over a thousand steps the standard error of a tenth-of-run mean is tiny: a reward creeping 0.02
over the second half is "beyond its noise" and still learns nothing.  Long runs are built directly
(1000 steps, seeded noise): the entropy slides to 0 by step 300, and what differs is the score after.
"""

from __future__ import annotations

import numpy as np

from rlvitals.diagnose import diagnose
from rlvitals.run import Run

N = 1000
S = np.arange(1, N + 1)


def _run(late_gain: float, entropy_floor: float, seed: int = 0) -> Run:
    r = np.random.default_rng(seed)
    rise = np.minimum(S / 300.0, 1.0)  # the score climbs until step 300 ...
    late = np.clip((S - 300) / 700.0, 0, 1)  # ... then moves `late_gain` over the last 700 steps
    entropy = entropy_floor + (0.62 - entropy_floor) * np.exp(-S / 80.0)
    return Run.from_arrays(
        "long",
        S,
        dict(
            reward=0.25 + 0.28 * rise + late_gain * late + r.normal(0, 0.01, N),
            entropy=np.abs(entropy + r.normal(0, 0.002, N)),
            kl=0.01 + 0.3 * S / N + r.normal(0, 0.003, N),
            adv_std=0.95 + r.normal(0, 0.01, N),
            len=390 + 0.12 * S + r.normal(0, 5, N),
        ),
    )


def test_entropy_at_zero_with_a_reward_creeping_two_points_is_a_collapse():
    d = diagnose(_run(late_gain=0.02, entropy_floor=0.0005))
    assert d.verdict == "dead" and d.findings[0].id == "entropy_collapse", [(f.id, f.severity) for f in d.findings]


def test_entropy_at_zero_with_the_reward_still_climbing_materially_is_convergence():
    d = diagnose(_run(late_gain=0.15, entropy_floor=0.0005))
    assert d.verdict == "learning", [(f.id, f.severity) for f in d.findings]
    assert not any(f.id == "entropy_collapse" and f.severity != "info" for f in d.findings)


def test_an_entropy_that_only_halved_asks_no_more_than_the_noise():
    # a reasoning model's healthy entropy can sit at 0.2: a slow, significant climb is the normal course
    d = diagnose(_run(late_gain=0.02, entropy_floor=0.2))
    assert not any(f.id == "entropy_collapse" and f.severity != "info" for f in d.findings), [
        (f.id, f.severity) for f in d.findings
    ]
