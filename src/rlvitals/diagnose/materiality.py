"""Material, not merely significant: did a finding hurt the goal?

At a few hundred samples a step every drift is "beyond noise"; what sets the verdict is what a
finding did to the goal.  The goal (eval > acc > correctness term > reward, `symptoms.goal`) is read
at the finding's onset and at the end of the run, and judged in its own range:

- a rate in [0, 1] (an accuracy, a pass rate, a reward bounded by 0 and 1) has range 1: a gain of
  `goal_material` (5 points) is material;
- a goal of its own units (a sum of reward functions) has the range its run spans (the 5th to the
  95th percentile, at least its level): a gain of `goal_material` of that is material.

A finding leaves the goal *unhurt* when, after its onset, the goal went on to gain a material amount
and kept it (the run still learns), or when the goal sits at its ceiling and did not lose a material
amount (a solved task has nothing left to lose: entropy near 0 there is not a collapse).  A
one-step outlier leaves it unhurt when the goal holds its level after it (no fall both material
and beyond its noise); jitter when the goal holds
its level and the run learns.  Unhurt findings do not set the verdict: `verdict.resolve` keeps them as info notes that
say so, with the numbers.  Without enough points after the onset nothing is unhurt: no demotion
without evidence, so a live run is still alerted at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..run import in_unit_range
from .context import Ctx, rnd
from .symptoms import goal, trend
from .thresholds import get

__all__ = ["Effect", "at_ceiling", "bounded", "bounded_above_zero", "goal_effect", "goal_scale", "solved", "unhurt"]


@dataclass(frozen=True)
class Effect:
    """The goal from a finding's onset to the end of the run, in the goal's own range."""

    goal: str
    at_onset: float      # mean of the goal's points around the onset
    end: float           # mean of its last points
    peak_after: float    # highest block mean after the onset
    scale: float         # the goal's own range (1 for a rate)
    points_after: int

    @property
    def gain(self) -> float:
        return self.end - self.at_onset

    @property
    def material(self) -> float:
        return get("goal_material") * self.scale

    def evidence(self) -> dict[str, Any]:
        return {"goal_metric": self.goal, "goal_at_onset": rnd(self.at_onset), "goal_end": rnd(self.end),
                "goal_material_move": rnd(self.material)}


def bounded(ctx: Ctx, g: str) -> bool:
    """A goal on a 0..1 scale: every value within [0, 1], give or take run.FRACTION_SLACK of noise (an
    "accuracy" summed over two checks is not)."""
    _, v = ctx.data(g)
    return bool(v.size) and in_unit_range(v)


def bounded_above_zero(ctx: Ctx, g: str) -> bool:
    """A 0..1 goal that was ever clearly above 0 (its highest block mean at least near_zero): a score
    that only ever sat at 0 says nothing about whether the groups are all right."""
    return bounded(ctx, g) and ctx.peak(g) >= get("near_zero")


def solved(ctx: Ctx) -> str | None:
    """A training score on a 0..1 scale (the goal, acc, or the reward) that ends at its ceiling: the
    task is solved and nothing is left to learn ("平掉" of a run that converged, or one resumed at its
    plateau).  Returns the metric, or None."""
    for m in dict.fromkeys([goal(ctx), "acc", "reward"]):
        if m and ctx.has(m) and bounded(ctx, m):
            tr = trend(ctx, m)
            if tr is not None and tr.end >= get("ceiling"):
                return m
    return None


def goal_scale(ctx: Ctx, g: str) -> float:
    """The goal's own range: 1 for a 0..1 scale; else the span of its middle 90%, at least its level
    (its largest value when it sits at 0 on most steps)."""
    if bounded(ctx, g):
        return 1.0
    _, v = ctx.data(g)
    if not v.size:
        return 0.0
    x = v[:: max(1, v.size // 65536)]
    lo, hi = np.percentile(x, [5, 95])
    # a goal at one value on most steps (0, with a few right answers) has no middle 90%: its extremes
    return float(max(hi - lo, abs(hi), abs(lo))) or float(np.max(np.abs(x)))


def goal_effect(ctx: Ctx, onset: int | None, windows_after: int = 2, metric: str | None = None) -> Effect | None:
    """The goal (or `metric`) from `onset` to the end, or None when it is missing or has fewer than
    `windows_after` windows (a tenth of its points each) after the onset."""
    g = metric or goal(ctx)
    if g is None or onset is None:
        return None
    s, v = ctx.data(g)
    if v.size < get("min_points"):
        return None
    w = max(3, v.size // 10)
    i = int(np.searchsorted(s, onset))
    after = v.size - i
    if after < windows_after * w:
        return None          # too little after the onset to say what it did
    at = float(np.mean(v[max(0, i - w // 2): i + w // 2 + 1]))
    tail = v[i:]
    nb = max(1, min(8, tail.size // w))
    peak = float(max(np.mean(b) for b in np.array_split(tail, nb)))
    return Effect(g, at, float(np.mean(v[-w:])), peak, goal_scale(ctx, g), int(after))


def at_ceiling(ctx: Ctx, onset: int | None, *, by_reward: bool = True) -> Effect | None:
    """The Effect when the task is solved (`solved`: the goal, else -- `by_reward` -- a training score
    on a 0..1 scale at its ceiling) and the goal lost no material part of its level since `onset`
    (a solved task has nothing left to lose), else None.  A cheating finding asks with by_reward
    False: a reward at its ceiling is what a gamed reward looks like."""
    eff = goal_effect(ctx, onset, 1)
    if eff is None:
        return None
    at_top = bounded(ctx, eff.goal) and eff.end >= get("ceiling")
    if not at_top and not (by_reward and solved(ctx)):
        return None
    return eff if eff.gain > -eff.material else None


def unhurt(ctx: Ctx, onset: int | None, *, kind: str = "") -> Effect | None:
    """The Effect when the goal was not hurt after `onset` (see the module docstring), else None.

    kind "step": one step that came back (the goal holding its level after it is enough);
    "transient": jitter, unhurt when the goal holds its level in a run that learns; "cheat": a reward
    parting from the goal, unhurt when the goal gained a material amount and at least
    hack_share_follow of the reward's share of its own range; "": a failure,
    unhurt when the goal gained a material amount after its onset and kept it."""
    eff = goal_effect(ctx, onset, 1 if kind == "step" else 2)
    if eff is None:
        return None
    tr = trend(ctx, eff.goal)
    kept = eff.end >= eff.peak_after - eff.material        # did not give back a material part of its gains
    if kind == "step":
        # hurt only by a fall that is material and beyond the noise of two window means
        se = (tr.noise if tr is not None else 0.0) * float(np.sqrt(2.0 / max(3, eff.points_after // 10 or 1)))
        return eff if eff.gain > -max(eff.material, get("goal_z") * se) else None
    if kind == "cheat":
        # the reward parted from the goal only if the goal's share of its range fell behind the reward's
        rw = goal_effect(ctx, onset, 2, "reward")
        if rw is None or eff.gain / (eff.scale or 1.0) < get("hack_share_follow") * rw.gain / (rw.scale or 1.0):
            return None
        return eff if eff.gain >= eff.material and kept else None
    if kind == "transient":
        learns = tr is not None and (tr.rose or tr.fit_move > get("goal_z") * tr.fit_se)
        return eff if learns and kept and eff.gain > -eff.material else None
    return eff if eff.gain >= eff.material and kept and tr is not None and not tr.fell_back else None
