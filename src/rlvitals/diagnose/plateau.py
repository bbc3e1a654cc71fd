"""plateau: learned, then flattened (平掉 after 缓升) -- converged or out of easy gains (info).

Still `learning`; the finding marks where the gains stopped so the user can evaluate, move to
harder data, or stop.  The knee is the better of two fits (a sharp knee, a smooth approach);
the run has plateaued when the slope after the knee is under a fifth of the slope before it
and the flat part covers at least a quarter of the run.
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


def check(ctx: Ctx) -> Finding | None:
    goal = goal_of(ctx)
    if goal is None or not ctx.has(goal) or not ctx.gained(goal, rel=0.1):
        return None
    onset = ctx.onset(goal, "plateau")
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
