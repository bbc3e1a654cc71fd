"""The lesson's exercises: six curve sets to sort, the four confusable pairs A-D, three questions.

"给你六组真实形状的训练曲线，判断哪些是在学、哪些是在作弊、哪些已经废了。"  Two of each verdict:
learning (healthy, healthy_long), cheating (reward_hacking, length_hacking), dead
(entropy_collapse, sync_failure).  The pairs are the lesson's: A flat reward (collapse vs broken
sync), B adv_std low (easy data vs collapse), C length rising (healthy vs explosion), D jitter
(small batch vs learning rate too high).  The three closing questions have runs of their own.

Every stage reads its own runs: each run's simulator seed is derived from the level's seed and
the stage's key (`stage_seed`), so set 3, pair side A1 and question 1 are three different draws
even where they show the same failure -- a stage tests reading, not remembering another stage.
The lesson's own numbers are kept only where the lesson states them for that stage: its three
questions (Q1 entropy=0.009 ratio=1.0000 vs entropy=1.774 ratio=0.5407; Q2 adv_std 0.24; Q3
clip 0.011 / gnorm 0.8 / batch 8 vs clip 0.419 / gnorm 6 / batch 64) use the pinned lesson runs
(`seed=None`) when the level is the default one.  Any other level seed gives fresh variants of
everything (and a shuffled order for the six sets).

The lesson's numbers: with seed=None a scenario is pinned so its curves end (and start) on them.
Pinning multiplies the simulated curve by a smooth ramp that is 1 before it applies and lands the
first/last value exactly on the lesson's number, so the noise and the shape stay the dice's own.
An end pin ramps in from the failure's onset, so the healthy part before it is left untouched.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..run import Run
from ..stats import ends

__all__ = [
    "LESSON_PINS",
    "PAIR_SCENARIOS",
    "QUIZ_SCENARIOS",
    "SET_SCENARIOS",
    "LabCase",
    "LabPair",
    "LabQuiz",
    "apply_pins",
    "lesson_case",
    "lesson_pairs",
    "lesson_quiz",
    "lesson_sets",
    "pin_series",
    "stage_seed",
]

LESSON_STEPS = 200

# scenario -> metric -> (start or None, end or None).  Sources: the lesson's healthy table and its
# four confusable pairs (A: 0.009 / 1.0000 vs 1.774 / 0.5407; B: adv_std 0.24, entropy ~1.4,
# acc ~57%; D: clip 0.011, gnorm 0.8 vs clip 0.419, gnorm 6).
LESSON_PINS: dict[str, dict[str, tuple[float | None, float | None]]] = {
    "healthy": {
        "reward": (0.412, 0.847),
        "acc": (0.211, 0.574),
        "entropy": (1.842, 1.498),
        "kl": (0.002, 0.045),
        "adv_std": (1.031, 0.664),
        "clip_frac": (None, 0.041),
        "len": (78.0, 152.0),
        "ratio_mean": (None, 1.0),
    },
    "entropy_collapse": {"entropy": (None, 0.009), "ratio_mean": (None, 1.0), "adv_std": (None, 0.24)},
    "sync_failure": {"entropy": (None, 1.774), "ratio_mean": (None, 0.5407)},
    "data_too_easy": {"adv_std": (None, 0.24), "entropy": (None, 1.40), "acc": (None, 0.574)},
    "batch_noise": {"clip_frac": (None, 0.011), "gnorm": (None, 0.8)},
    "lr_too_high": {"clip_frac": (None, 0.419), "gnorm": (None, 6.0)},
}


def _edge(v: np.ndarray, at_end: bool) -> float:
    """The curve's level at one end: a straight line fitted to the last (first) 5% of points.

    Pinning the level, not the single noisy endpoint, keeps the pinned point in line with its
    neighbours (a lone outlier at step 200 would read as a spike).
    """
    k = max(4, v.size // 20)
    seg = v[-k:] if at_end else v[:k]
    x = np.arange(k, dtype=float)
    ok = np.isfinite(seg)
    if ok.sum() < 2:
        return float(v[-1] if at_end else v[0])
    slope, icpt = np.polyfit(x[ok], seg[ok], 1)
    return float(icpt + slope * (k - 1 if at_end else 0))


def pin_series(
    v: np.ndarray, start: float | None, end: float | None, from_index: int = 0, level: str = "point"
) -> np.ndarray:
    """`v` bent so it starts at `start` and ends at `end`; an end-only pin ramps in from `from_index`.

    level="point": the first/last logged values land exactly on the numbers (what a log line
    quotes: the questions' "entropy=0.009").  level="ends": the curve's start and end as every
    report measures them (`shapes.ends`, the mean of the first and the last tenth) land on them,
    so the healthy table's "0.412 → 0.847" is what `diagnose` and the lab print for that run.
    """
    v = np.array(v, dtype=float)
    n = v.size
    if start is not None:
        x = np.arange(n) / max(n - 1, 1)
    else:
        x = np.clip((np.arange(n) - from_index) / max(n - 1 - from_index, 1), 0.0, 1.0)
    for _ in range(4 if level == "ends" else 1):
        if level == "ends":
            s0, s1 = ends(v[np.isfinite(v)])
        else:
            s0, s1 = _edge(v, False), _edge(v, True)
        lo = np.log(start / s0) if start is not None and s0 > 0 else 0.0
        hi = np.log(end / s1) if end is not None and s1 > 0 else 0.0
        v = v * np.exp(lo * (1 - x) + hi * x) if start is not None else v * np.exp(hi * x)
    if level == "point":  # land exactly on the lesson's printed numbers
        if start is not None:
            v[0] = start
        if end is not None:
            v[-1] = end
    return v


def apply_pins(name: str, columns: dict[str, np.ndarray], onset: int | None) -> None:
    """Pin `columns` in place to the lesson's numbers for scenario `name` (no-op for others)."""
    level = "ends" if name == "healthy" else "point"  # the healthy table is start → end; the rest quote log lines
    for metric, (start, end) in LESSON_PINS.get(name, {}).items():
        columns[metric] = pin_series(columns[metric], start, end, onset or 0, level)


# The order a learner meets them in the lesson (seed=None): verdicts interleaved.
SET_SCENARIOS: tuple[str, ...] = (
    "healthy",
    "reward_hacking",
    "entropy_collapse",
    "healthy_long",
    "length_hacking",
    "sync_failure",
)
# key -> (left scenario, right scenario, question id).  Left/right follow the lesson's A1/A2 ...:
# "A2 的 adv_std 正常 → 问题在同步", "B1 的 entropy 正常 → 是模型真变强了", "D1 的 clip 和 gnorm 正常 → 只是观测噪声".
PAIR_SCENARIOS: dict[str, tuple[str, str, str]] = {
    "A": ("entropy_collapse", "sync_failure", "flat_reward_cause"),
    "B": ("data_too_easy", "entropy_collapse", "adv_std_drop_cause"),
    "C": ("healthy_long", "length_hacking", "length_rise_cause"),
    "D": ("batch_noise", "lr_too_high", "jitter_cause"),
}
# The three closing questions: the runs whose numbers each question quotes, in the order it quotes
# them.  Q2 quotes one run's adv_std ("adv_std 降到 0.24"); which cause is behind it is drawn.
QUIZ_SCENARIOS: dict[str, tuple[str, ...]] = {
    "Q1": ("entropy_collapse", "sync_failure"),
    "Q2": ("data_too_easy",),
    "Q3": ("batch_noise", "lr_too_high"),
}
Q2_CAUSES: tuple[str, str] = ("data_too_easy", "entropy_collapse")


def stage_seed(seed: int | None, key: str) -> int:
    """The simulator seed of one stage's run ("3", "A1", "Q1a" ...) in the level of `seed`.

    Distinct keys give distinct seeds, so no two stages of a level share a run; the same (seed,
    key) always gives the same run.
    """
    level = "lesson" if seed is None else str(int(seed))
    return zlib.crc32(f"rlvitals-lab:{level}:{key}".encode()) & 0x7FFFFFFF


@dataclass(frozen=True)
class LabCase:
    """One curve set: the run, its truth (run.meta["truth"]) and its rollout samples (or None)."""

    key: str
    run: Run
    truth: dict[str, Any]
    samples: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class LabPair:
    """Two look-alike runs and what is asked about them (a short English id, not a sentence)."""

    key: str
    left: LabCase
    right: LabCase
    question: str


@dataclass(frozen=True)
class LabQuiz:
    """The runs behind one closing question ("Q1".."Q3"), in the order the question quotes them."""

    key: str
    cases: tuple[LabCase, ...]


def lesson_case(key: str, scenario: str, seed: int | None, *, samples: bool = True) -> LabCase:
    """One stage's run, drawn with the simulator's "lab" profile (the lesson's table holds over it)."""
    from . import simulate, simulate_samples

    run = simulate(scenario, seed=seed, steps=LESSON_STEPS, profile="lab")
    recs = simulate_samples(scenario, seed=seed, steps=LESSON_STEPS, profile="lab") if samples else None
    truth = run.meta["truth"]
    assert isinstance(truth, dict)
    return LabCase(key=key, run=run, truth=dict(truth), samples=recs)


def lesson_sets(seed: int | None = None, *, samples: bool = True) -> list[LabCase]:
    """The six curve sets, keyed "1".."6" (the key never gives the answer away), each its own run."""
    names = list(SET_SCENARIOS)
    if seed is not None:
        np.random.default_rng([7, int(seed)]).shuffle(names)
    return [
        lesson_case(str(i + 1), name, stage_seed(seed, str(i + 1)), samples=samples) for i, name in enumerate(names)
    ]


def lesson_pairs(seed: int | None = None, *, samples: bool = True) -> dict[str, LabPair]:
    """The four confusable pairs "A".."D"; sides keyed "A1"/"A2" ... as in the lesson, each its own run."""
    out = {}
    for key, (left, right, question) in PAIR_SCENARIOS.items():
        a, b = f"{key}1", f"{key}2"
        out[key] = LabPair(
            key=key,
            left=lesson_case(a, left, stage_seed(seed, a), samples=samples),
            right=lesson_case(b, right, stage_seed(seed, b), samples=samples),
            question=question,
        )
    return out


def lesson_quiz(seed: int | None = None) -> dict[str, LabQuiz]:
    """The runs behind the three closing questions (no rollout samples: a question quotes numbers).

    seed=None: the lesson's pinned runs, so the questions read exactly as the lesson asks them.
    Another seed: fresh runs (Q2's cause drawn from `Q2_CAUSES`), whose own numbers the questions quote.
    """
    out = {}
    for key, names in QUIZ_SCENARIOS.items():
        if seed is not None and key == "Q2":
            names = (Q2_CAUSES[int(np.random.default_rng([11, int(seed)]).integers(2))],)
        cases = tuple(
            lesson_case(
                f"{key}{chr(97 + i)}",
                name,
                None if seed is None else stage_seed(seed, f"{key}{chr(97 + i)}"),
                samples=False,
            )
            for i, name in enumerate(names)
        )
        out[key] = LabQuiz(key=key, cases=cases)
    return out
