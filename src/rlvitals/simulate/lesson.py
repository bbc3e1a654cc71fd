"""The lesson's exercises: six curve sets to sort, and the four confusable pairs A-D.

"给你六组真实形状的训练曲线，判断哪些是在学、哪些是在作弊、哪些已经废了。"  Two of each verdict:
learning (healthy, healthy_long), cheating (reward_hacking, length_hacking), dead
(entropy_collapse, sync_failure).  The pairs are the lesson's: A flat reward (collapse vs broken
sync), B adv_std low (easy data vs collapse), C length rising (healthy vs explosion), D jitter
(small batch vs learning rate too high).  seed=None reproduces the lesson's numbers; any other
seed gives fresh variants of the same mechanisms (and a shuffled order for the six sets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..run import Run

__all__ = ["LabCase", "LabPair", "SET_SCENARIOS", "PAIR_SCENARIOS", "lesson_sets", "lesson_pairs", "lesson_case"]

LESSON_STEPS = 200
# The order a learner meets them in the lesson (seed=None): verdicts interleaved.
SET_SCENARIOS: tuple[str, ...] = ("healthy", "reward_hacking", "entropy_collapse", "healthy_long",
                                  "length_hacking", "sync_failure")
# key -> (left scenario, right scenario, question id).  Left/right follow the lesson's A1/A2 ...:
# "A2 的 adv_std 正常 → 问题在同步", "B1 的 entropy 正常 → 是模型真变强了", "D1 的 clip 和 gnorm 正常 → 只是观测噪声".
PAIR_SCENARIOS: dict[str, tuple[str, str, str]] = {
    "A": ("entropy_collapse", "sync_failure", "flat_reward_cause"),
    "B": ("data_too_easy", "entropy_collapse", "adv_std_drop_cause"),
    "C": ("healthy_long", "length_hacking", "length_rise_cause"),
    "D": ("batch_noise", "lr_too_high", "jitter_cause"),
}


@dataclass(frozen=True)
class LabCase:
    """One curve set: the run, its truth (run.meta["truth"]) and its rollout samples (or None)."""

    key: str
    run: Run
    truth: dict
    samples: list[dict] | None = None


@dataclass(frozen=True)
class LabPair:
    """Two look-alike runs and what is asked about them (a short English id, not a sentence)."""

    key: str
    left: LabCase
    right: LabCase
    question: str


def lesson_case(key: str, scenario: str, seed: int | None, *, samples: bool = True) -> LabCase:
    from . import simulate, simulate_samples

    run = simulate(scenario, seed=seed, steps=LESSON_STEPS)
    recs = simulate_samples(scenario, seed=seed, steps=LESSON_STEPS) if samples else None
    return LabCase(key=key, run=run, truth=dict(run.meta["truth"]), samples=recs)


def lesson_sets(seed: int | None = None) -> list[LabCase]:
    """The six curve sets, keyed "1".."6" (the key never gives the answer away)."""
    names = list(SET_SCENARIOS)
    if seed is not None:
        np.random.default_rng([7, int(seed)]).shuffle(names)
    return [lesson_case(str(i + 1), name, seed) for i, name in enumerate(names)]


def lesson_pairs(seed: int | None = None) -> dict[str, LabPair]:
    """The four confusable pairs "A".."D"; sides keyed "A1"/"A2" ... as in the lesson."""
    out = {}
    for key, (left, right, question) in PAIR_SCENARIOS.items():
        out[key] = LabPair(key=key, left=lesson_case(f"{key}1", left, seed), right=lesson_case(f"{key}2", right, seed),
                           question=question)
    return out
