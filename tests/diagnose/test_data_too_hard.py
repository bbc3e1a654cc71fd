"""data_too_hard: a near-zero goal creeping up is still all wrong unless it is on course to leave the
all-wrong zone within another stretch as long as the run."""

from __future__ import annotations

import diag_curves as dc
import numpy as np
from diag_curves import N, S

from rlvitals.diagnose import diagnose


def _run(acc_start: float, acc_end: float, seed: int = 2):
    """acc and the reward (the verifier's score) rise steadily from `acc_start` to `acc_end`; adv_std stays low."""
    r = np.random.default_rng(seed)
    acc = np.clip(acc_start + (acc_end - acc_start) * S / N + r.normal(0, 0.002, N), 0, None)
    return dc.healthy(
        seed,
        acc=acc,
        reward=acc.copy(),
        adv_std=0.1 + 0.2 * S / N + r.normal(0, 0.02, N),
        len=np.full(N, 90.0) + r.normal(0, 2, N),
    )


def test_a_goal_creeping_inside_the_all_wrong_zone_is_too_hard():
    # 0.1% -> 4% at a steady pace: another run as long would still leave it under near_zero (10%)
    d = diagnose(_run(0.001, 0.04))
    assert d.verdict == "dead" and d.top.id == "data_too_hard", [f.id for f in d.findings]


def test_a_goal_on_course_to_leave_the_all_wrong_zone_is_not_too_hard():
    # 3% -> 7.5%: under near_zero / 2 gained and still under near_zero, but at this pace it passes
    # 10% within another run as long
    d = diagnose(_run(0.03, 0.075))
    assert "data_too_hard" not in {f.id for f in d.findings}
