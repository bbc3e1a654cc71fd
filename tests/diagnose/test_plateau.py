"""plateau: a goal that rose, then gains at a fifth of its early rate or less, is a plateau (info) --
also when it keeps creeping up a little after the knee; a goal still rising at its own pace is not."""

from __future__ import annotations

import diag_curves as dc
import numpy as np
from diag_curves import N, S

from rlvitals.diagnose import diagnose


def _plateau(d):
    return next((f for f in d.findings if f.id == "plateau"), None)


def _creep(seed: int, creep: float) -> np.ndarray:
    """0.25 → 0.35 by step 60, then `creep` of that early rate until the end (acc noise 0.01)."""
    r = np.random.default_rng(seed)
    early = 0.1 / 60
    acc = np.where(S <= 60, 0.25 + early * S, 0.35 + creep * early * (S - 60))
    return acc + r.normal(0, 0.01, N)


def test_a_goal_that_levels_off_but_keeps_creeping_is_a_plateau():
    # a few unsolvable prompts and a slip rate the policy cannot unlearn: after step 60 the goal
    # gains at 8% of its early rate, steadily (Kendall's tau of the tail is high) -- still 平掉
    for seed in range(3):
        acc = _creep(seed, 0.08)
        d = diagnose(dc.healthy(seed, acc=acc, reward=acc + 0.3))
        p = _plateau(d)
        assert p is not None and p.severity == "info" and d.verdict == "learning", [f.id for f in d.findings]
        assert 40 <= p.onset_step <= 110
        assert p.evidence["slope_after_per100"] < 0.2 * p.evidence["slope_before_per100"]


def test_a_goal_still_rising_at_its_own_pace_is_no_plateau():
    # the same start, but the rate after step 60 is 60% of the early one: slowing, not flat
    for seed in range(3):
        acc = _creep(seed, 0.6)
        d = diagnose(dc.healthy(seed, acc=acc, reward=acc + 0.3))
        assert _plateau(d) is None, [f.id for f in d.findings]


def test_a_straight_rise_is_no_plateau():
    r = np.random.default_rng(4)
    acc = np.linspace(0.2, 0.5, N) + r.normal(0, 0.01, N)
    d = diagnose(dc.healthy(4, acc=acc, reward=acc + 0.3))
    assert _plateau(d) is None


def test_a_plateau_says_it_is_not_a_collapse_nor_a_sync_failure_with_the_metrics_that_show_it():
    # the lesson's first pair: 平掉 from entropy collapse (entropy -> 0) vs from sync failure (ratio off 1);
    # a plateau rules out both with the normal metrics, and names ratio_mean when it is not logged
    acc = _creep(0, 0.0)
    d = diagnose(dc.healthy(0, acc=acc, reward=acc + 0.3))
    p = _plateau(d)
    assert p is not None
    ruled = {r.lookalike: r.metric for r in p.ruled_out}
    assert ruled.get("entropy_collapse") == "entropy" and ruled.get("sync_failure") == "ratio_mean"
    assert ruled.get("stalled") == "acc"
    d = diagnose(dc.healthy(0, acc=acc, reward=acc + 0.3, ratio_mean=None))
    p = _plateau(d)
    assert p is not None and "sync_failure" not in {r.lookalike for r in p.ruled_out} and "ratio_mean" in p.missing


def test_the_plateaus_sentence_names_the_step_its_header_does():
    """A log written every 5 steps: the knee's block centre is no logged step; the sentence says
    the logged step the finding's header says, not the centre."""
    from rlvitals.render.words import finding_summary
    from rlvitals.run import Run

    r = np.random.default_rng(1)
    steps = np.arange(5, 1095, 5)
    reward = np.where(steps < 250, -0.1 + 0.5 * steps / 250, 0.4 + 0.0002 * (steps - 250)) + r.normal(
        0, 0.02, steps.size
    )
    p = _plateau(diagnose(Run.from_arrays("every5", steps, {"reward": reward})))
    assert p is not None and p.onset_step % 5 == 0
    for lang, said in (("en", f"from step {p.onset_step} "), ("zh", f"从第 {p.onset_step} 步起")):
        assert said in finding_summary(p, lang)
