"""plateau: learned, then flattened (平掉 after 缓升) -- converged or out of easy gains (info).

Still `learning`; the finding marks where the gains stopped so the user can evaluate, move to
harder data, or stop.  The knee is the better of two fits (a sharp knee, a smooth approach);
on a smooth approach that fit puts the knee where the slope reaches exactly 0, late, so the gains
are taken to have run out at the earlier of the knee and the settling point -- where the curve
first made `plateau_settle` of its rise to the level after the knee (the control-engineering
rise-time convention).  Both fits take the part after the knee to be exactly flat; a goal that
levels off but keeps creeping up a little (a few unsolvable prompts, a slip rate the policy
cannot unlearn) pushes their knee late, so a third fit is tried when they do not show a plateau:
one line whose slope changes once (the knee where the rate of gain dropped).  The run has
plateaued when the slope after that point is under `plateau_slope` (a fifth) of the slope before
it and the flat part covers at least a quarter of the run.  A slow creep after the knee does not
undo it: gains at a fifth of the early rate or less are the diminishing returns the lesson calls
平掉 (the knob is the data, the curriculum or the learning rate, not patience).
"""

from __future__ import annotations

import numpy as np

from ..stats import theil_sen
from . import confidence as C
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


def _slopes(ctx: Ctx, goal: str, onset: int) -> tuple[float, float] | None:
    """Theil-Sen slopes of the goal's 64 block medians before and after `onset` (None when fewer
    than 3 blocks precede it or 4 follow it)."""
    t, x = ctx.blocks(goal, 64)
    before, after = t < onset, t >= onset
    if before.sum() < 3 or after.sum() < 4:
        return None
    return theil_sen(t[before], x[before]), theil_sen(t[after], x[after])


def _knees(ctx: Ctx, goal: str) -> list[int]:
    """Candidate steps where the gains ran out: the better of the flat-after fits (sharp knee,
    smooth approach), then the knee of one line that changes slope; each moved back to its
    settling point (`_settled`)."""
    out: list[int] = []
    knee = ctx.onset(goal, "plateau")
    if knee is not None:
        out.append(_settled(ctx, goal, knee))
    bend = ctx.onset(goal, "bend")
    if bend is not None:
        b = _settled(ctx, goal, bend)
        if b not in out:
            out.append(b)
    return out


def check(ctx: Ctx) -> Finding | None:
    goal = goal_of(ctx)
    if goal is None or not ctx.has(goal) or not ctx.gained(goal, rel=get("plateau_gain")):
        return None
    first, last = ctx.first_step(), ctx.last_step()
    for onset in _knees(ctx, goal):
        if last - onset < get("plateau_share") * max(last - first, 1) or onset <= first:
            continue
        sl = _slopes(ctx, goal, onset)
        if sl is None:
            continue
        pre, post = sl
        if pre <= 0 or post > get("plateau_slope") * pre:
            continue
        ev = {
            f"{goal}_start": rnd(ctx.start(goal)),
            f"{goal}_end": rnd(ctx.end(goal)),
            "slope_before_per100": rnd(pre * 100, 3),
            "slope_after_per100": rnd(post * 100, 3),
            "flat_since": onset,
        }
        conf = float(np.clip(C.STRONG - 2 * max(post, 0.0) / pre, C.LOW, C.STRONG))
        return Finding(ID, "info", onset, ev, (), (), action_for(ID), round(conf, 3))
    return None
