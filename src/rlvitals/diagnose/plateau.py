"""plateau: learned, then flattened (平掉 after 缓升) -- converged or out of easy gains (info).

Still `learning`; the finding marks where the gains stopped so the user can evaluate, move to
harder data, or stop.  The knee is the better of two fits (a sharp knee, a smooth approach);
on a smooth approach that fit puts the knee where the slope reaches exactly 0, late, so the gains
are taken to have run out at the earlier of the knee and the settling point -- where the curve
first made `plateau_settle` of its rise to the level after the knee (the control-engineering
rise-time convention).  The run has plateaued when the slope after that point is under a fifth of
the slope before it and the flat part covers at least a quarter of the run.
"""

from __future__ import annotations

import numpy as np

from ..shapes import _theil_sen
from .actions import action_for
from .context import Ctx, rnd
from .model import Finding
from .symptoms import goal as goal_of
from .thresholds import get

ID = "plateau"


def _settled(ctx: Ctx, goal: str, knee: int) -> int:
    """The earlier of the knee and the first of 16 block medians past `plateau_settle` of the way
    from the start (the first two blocks) to the level after the knee."""
    t, x = ctx.blocks(goal, 16)
    after = x[t >= knee]
    if x.size < 4 or after.size == 0:
        return knee
    a = float(np.median(x[:2]))
    level = float(np.median(after))
    hit = np.nonzero(x >= a + get("plateau_settle") * (level - a))[0] if level > a else np.empty(0, int)
    return min(knee, int(t[hit[0]])) if hit.size else knee


def check(ctx: Ctx) -> Finding | None:
    goal = goal_of(ctx)
    if goal is None or not ctx.has(goal) or not ctx.gained(goal, rel=0.1):
        return None
    knee = ctx.onset(goal, "plateau")
    onset = _settled(ctx, goal, knee) if knee is not None else None
    first, last = ctx.first_step(), ctx.last_step()
    if onset is None or last - onset < get("plateau_share") * max(last - first, 1) or onset <= first:
        return None
    t, x = ctx.blocks(goal, 64)
    before, after = t < onset, t >= onset
    if before.sum() < 3 or after.sum() < 4:
        return None
    pre = _theil_sen(t[before], x[before])
    post = _theil_sen(t[after], x[after])
    if pre <= 0 or post > get("plateau_slope") * pre:
        return None
    s, _ = ctx.data(goal)
    if ctx.still_rising(goal, float(np.searchsorted(s, onset)) / max(s.size, 1)):
        return None  # slow but steady gains after the knee (the verl baseline): not flat yet
    ev = {f"{goal}_start": rnd(ctx.start(goal)), f"{goal}_end": rnd(ctx.end(goal)),
          "slope_before_per100": rnd(pre * 100, 3), "slope_after_per100": rnd(post * 100, 3),
          "flat_since": onset}
    missing = tuple(m for m in ("ratio_mean",) if not ctx.has(m))
    conf = float(np.clip(0.8 - 2 * max(post, 0.0) / pre, 0.4, 0.8))
    return Finding(ID, "info", onset, ev, (), missing, action_for(ID), round(conf, 3))
