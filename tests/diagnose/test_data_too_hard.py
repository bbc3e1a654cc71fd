"""data_too_hard: a near-zero goal creeping up is still all wrong unless it is on course to leave the
all-wrong zone within another stretch as long as the run."""

from __future__ import annotations

import diag_curves as dc
import numpy as np
from diag_curves import N, S

from rlvitals.diagnose import diagnose
from rlvitals.run import Run


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


def _small_groups(acc: np.ndarray, adv_std: float, seed: int = 0) -> Run:
    """A small-group run (half a group of four right on the steps it scores at all) with `acc` as given."""
    r = np.random.default_rng(seed)
    n = acc.size
    s = np.arange(1, n + 1)
    return Run.from_arrays(
        "small",
        s,
        dict(
            acc=acc,
            reward=1.5 * acc + 0.4 + r.normal(0, 0.05, n),
            adv_std=adv_std + r.normal(0, 0.02, n),
            entropy=0.6 + r.normal(0, 0.01, n),
            kl=0.01 + 0.0002 * s + np.abs(r.normal(0, 0.001, n)),
            len=300 + r.normal(0, 8, n),
        ),
    )


def test_all_wrong_is_a_sustained_level_not_a_last_window():
    # half of a group right on every third step (a sixth of the answers) for 100 steps, the last tenth
    # drawing one such step: that window reads 5%, the last min_points steps 12% -- not all wrong
    acc = np.where(np.arange(100) % 3 == 2, 0.5, 0.0)
    acc[-10:] = 0.0
    acc[-4] = 0.5
    d = diagnose(_small_groups(acc, adv_std=0.3))
    assert "data_too_hard" not in {f.id for f in d.findings}, [(f.id, f.severity) for f in d.findings]
    # the same on one step in twenty throughout (2.5%): all wrong, whatever window is read
    rare = np.where(np.arange(100) % 20 == 7, 0.5, 0.0)
    d = diagnose(_small_groups(rare, adv_std=0.3))
    assert d.top is not None and d.top.id == "data_too_hard", [(f.id, f.severity) for f in d.findings]


def test_an_eval_that_gained_a_material_amount_says_the_data_can_be_learned():
    # the same creep inside the all-wrong zone, with an eval of a few points every N steps (greedy, on
    # held-out prompts) gaining 9 points: the prompts can be learned -- not "no signal to learn from"
    from rlvitals.run import Series

    for gain in (0.09, 0.0):
        run = _run(0.001, 0.04)
        ev = S[S % (N // 8) == 0]
        run.series["val_acc"] = Series("val_acc", ev, 0.06 + gain * (ev - ev[0]) / (ev[-1] - ev[0]), "eval_accuracy")
        ids = {f.id for f in diagnose(run).findings if f.severity != "info"}
        assert ("data_too_hard" in ids) == (gain == 0.0), (gain, ids)
