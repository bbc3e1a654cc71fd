"""plateau: learned, then flattened (平掉 after 缓升) -- converged or out of easy gains (info).

Still `learning`; the finding marks where the gains stopped so the user can evaluate, move to
harder data, or stop.  Onset = the hinge where the rise turned flat.
"""

from __future__ import annotations

from .actions import action_for
from .context import Ctx, rnd
from .model import Finding

ID = "plateau"


def check(ctx: Ctx) -> Finding | None:
    goal = "acc" if ctx.has("acc") else "reward" if ctx.has("reward") else None
    if goal is None or not ctx.gained(goal, rel=0.1):
        return None
    late = ctx.late_gain(goal, 0.3)
    if not (abs(late) < 0.1):
        return None
    onset = ctx.onset(goal, "plateau")
    first, last = ctx.first_step(), ctx.last_step()
    if onset is None or last - onset < 0.25 * max(last - first, 1):
        return None
    ev = {f"{goal}_start": rnd(ctx.start(goal)), f"{goal}_end": rnd(ctx.end(goal)),
          f"{goal}_late_gain": rnd(late, 3), "flat_since": onset}
    missing = tuple(m for m in ("ratio_mean",) if not ctx.has(m))
    return Finding(ID, "info", onset, ev, (), missing, action_for(ID), 0.6)
