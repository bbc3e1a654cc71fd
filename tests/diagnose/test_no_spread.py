"""An adv_std at the round-off of zero at every step: no sample was ever preferred to another.

The reward then teaches nothing, whatever the training score does: a score that depends on which
prompts were drawn can still wander up.  Such a run is not learning ("not learning", the groups
without spread), unless an eval rose -- then the column is not what its name says.  A column of
exact zeros may never have been computed (not applicable, as a clip fraction of 0 with one update
per batch) and says nothing.
"""

from __future__ import annotations

import numpy as np

from rlvitals.diagnose import diagnose
from rlvitals.run import Run, Series

N = 60
S = np.arange(1, N + 1)


def _run(adv: str, *, eval_rises: bool = False, seed: int = 3) -> Run:
    r = np.random.default_rng(seed)
    # a score that drifts up with the draw of prompts (easier ones late), heavy-tailed
    reward = 0.3 + 0.35 * S / N + r.choice([0.0, 0.0, 0.0, 0.3, 1.0], N)
    if adv == "dust":
        a = np.where(r.random(N) < 0.2, 1.1920929e-07, 0.0)
    elif adv == "zeros":
        a = np.zeros(N)
    else:
        a = 0.9 + r.normal(0, 0.03, N)
    run = Run.from_arrays("spread", S, dict(reward=reward, kl=0.002 + 0.0001 * S, adv_std=a))
    ev = S[9::10]
    val = 0.2 + (0.25 * ev / N if eval_rises else 0.0) + r.normal(0, 0.002, ev.size)
    run.series["val_acc"] = Series("val_acc", ev, val)
    return run


def test_dust_at_every_step_is_not_learning_whatever_the_reward_did():
    d = diagnose(_run("dust"))
    assert d.verdict == "dead", [(f.id, f.severity) for f in d.findings]
    top = d.findings[0]
    assert top.id == "not_learning" and top.evidence["goal_trend"] == "no_spread"
    assert top.evidence["adv_std_points"] == N and float(top.evidence["adv_std_max"]) < 1e-6


def test_exact_zeros_are_not_applicable_and_decide_nothing():
    d = diagnose(_run("zeros"))
    assert not any(f.evidence.get("goal_trend") == "no_spread" for f in d.findings)


def test_an_eval_that_rose_keeps_the_goals_judgement():
    d = diagnose(_run("dust", eval_rises=True))
    assert not any(f.evidence.get("goal_trend") == "no_spread" for f in d.findings)


def test_the_same_scores_with_a_spread_are_learning():
    run = _run("spread")
    del run.series["val_acc"]  # the reward alone: it rose, and the groups told their samples apart
    d = diagnose(run)
    assert d.verdict == "learning", [(f.id, f.severity) for f in d.findings]
