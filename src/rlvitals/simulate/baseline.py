"""The healthy baseline every scenario bends, and the seeded draws it is built from.

    Draw(rng, lesson)          # seeded parameter draws; lesson mode returns the lesson's values
    baseline(dr, T) -> Fields  # the lesson's L2 run: acc 21% -> 57%, entropy 1.84 -> 1.50, len 78 -> 152
    onset_index(dr, T)         # where a failure begins (early on a lab stage)

`mechanisms.py` holds the builders that bend these curves, one per scenario.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "Built",
    "Draw",
    "Fields",
    "baseline",
    "degen_from_entropy",
    "ease",
    "fall_back",
    "freeze",
    "onset_index",
    "ramp",
    "skill_for",
]

T_ = TypeVar("T_")
Fields = dict[str, Any]  # a scenario's latent fields by name (arrays over the run, and scalars)
Built = tuple[Fields, int | None]  # a builder's fields and its onset index (None: no failure)


class Draw:
    """Seeded parameter draws; in lesson mode every draw returns its lesson value (or midpoint)."""

    def __init__(self, rng: np.random.Generator, lesson: bool, stage: bool = False):
        # stage=True: the lab's stages (profile "lab"), where the lesson's table must hold over the
        # whole run a learner reads: a failure begins early, so a dead run's goal never improves.
        self.rng, self.lesson, self.stage = rng, lesson, stage

    def u(self, lo: float, hi: float, lesson: float | None = None) -> float:
        x = float(self.rng.uniform(lo, hi))  # always consume, so lesson mode shares the stream
        return (lesson if lesson is not None else (lo + hi) / 2) if self.lesson else x

    def choice(self, options: list[T_], lesson: T_ | None = None) -> T_:
        x = options[int(self.rng.integers(len(options)))]
        return (lesson if lesson is not None else options[0]) if self.lesson else x


def ease(x: np.ndarray, tau: float) -> np.ndarray:
    """0 -> 1 with diminishing returns (fast early, flattening late)."""
    x = np.clip(x, 0.0, 1.0)
    return (1 - np.exp(-x / tau)) / (1 - math.exp(-1 / tau))


def skill_for(acc: float, sigma_d: float, bad: float = 0.0) -> float:
    """The skill whose expected accuracy is `acc` (logistic-normal approximation)."""
    a = min(max(acc / (1 - bad), 1e-4), 1 - 1e-4)
    return math.log(a / (1 - a)) * math.sqrt(1 + math.pi * sigma_d**2 / 8)


def ramp(T: int, t0: int, span: float) -> np.ndarray:
    """0 before step index t0, rising linearly to 1 over `span` steps, then 1."""
    return np.clip((np.arange(T) - t0) / max(span, 1.0), 0.0, 1.0)


def degen_from_entropy(h: np.ndarray, h_ref: float, c_max: float = 0.95) -> np.ndarray:
    """Share of groups whose 8 samples are one answer: none until entropy is below 30% of normal."""
    return c_max * np.clip(1 - (h / h_ref) / 0.3, 0.0, 1.0)


def baseline(dr: Draw, T: int) -> Fields:
    u = np.arange(T) / max(T - 1, 1)
    d: Fields = {"T": T, "u": u}
    d["B"] = dr.choice([32, 64], 64)
    if dr.stage:  # a lab stage: a flat curve must read flat (平掉), not as 32 prompts' sampling noise
        d["B"] = 256
    d["sigma_d"] = dr.u(3.4, 4.4, 3.9)
    d["bad"] = dr.u(0.18, 0.28, 0.23)
    d["w"] = 0.3
    acc0, acc1 = dr.u(0.17, 0.25, 0.211), dr.u(0.52, 0.64, 0.574)
    prog = ease(u, dr.u(0.3, 0.45, 0.38))
    d["prog"] = prog
    s0, s1 = skill_for(acc0, d["sigma_d"], d["bad"]), skill_for(acc1, d["sigma_d"], d["bad"])
    d["skill"] = s0 + (s1 - s0) * prog
    q0, q1 = dr.u(0.5, 0.65, 0.58), dr.u(0.88, 0.96, 0.93)
    d["fmt"] = q0 + (q1 - q0) * prog
    d["hack"] = np.zeros(T)
    h0 = dr.u(1.7, 1.98, 1.842)
    d["h_ref"] = h0
    d["entropy"] = h0 - h0 * (1 - dr.u(0.77, 0.86, 0.813)) * ease(u, 0.5)
    kl1 = dr.u(0.03, 0.065, 0.045)
    d["kl"] = 0.002 + (kl1 - 0.002) * u**1.2
    d["clip"] = dr.u(0.03, 0.055, 0.041) * ease(u, 0.35)
    if dr.lesson:  # the lesson's table: clip_frac "0.000 → 0.041", from 0 (its first tenth rounds to 0)
        d["clip"] = 0.041 * ease(np.clip((u - 0.1) / 0.9, 0.0, 1.0), 0.35)
    d["ratio"] = np.ones(T)
    d["gnorm"] = dr.u(0.7, 0.95, 0.81) * (1 - 0.12 * u)
    d["lr"] = 1e-6 * np.minimum(1.0, (np.arange(T) + 1) / max(1.0, 0.03 * T))
    l0 = dr.u(68, 95, 78)
    d["length"] = l0 + l0 * (dr.u(1.7, 2.1, 1.95) - 1) * prog
    d["cap"] = 512.0
    d["len_sigma"] = 0.6
    return d


def onset_index(dr: Draw, T: int, lesson_frac: float = 0.45) -> int:
    if dr.stage:  # a lab stage: the failure owns the run (the lesson's 平 is the whole curve's word)
        return int(round(dr.u(0.03, 0.1, 0.06) * (T - 1)))
    return int(round(dr.u(0.3, 0.6, lesson_frac) * (T - 1)))


def fall_back(skill: np.ndarray, t0: int, r: np.ndarray) -> None:
    """From t0 on, skill slides back to where the run began as r goes 0 -> 1 (a lab stage's
    cheating run: what acc gained before the loophole is lost to it, so acc does not rise)."""
    skill -= (skill[t0] - skill[0]) * r


def freeze(a: np.ndarray, t0: int) -> None:
    a[t0:] = a[t0]
