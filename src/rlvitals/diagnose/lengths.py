"""Measures of the answers' length shared by the rules: where the reward's excess went.

`paid_in_length`: since the reward parted from the truth, did the answers grow while the truth
gained nothing; `length_term_excess`: did a logged length term of the reward jump on its last
stretch.  length_hacking fires on them; reward_hacking reads them to leave the length channel to it.
"""

from __future__ import annotations

import numpy as np

from .arith import ls_fit
from .context import Ctx
from .stretches import around, tail_excess
from .symptoms import components
from .thresholds import get

__all__ = ["length_term_excess", "ln_points", "log_rates", "paid_in_length"]


def ln_points(ctx: Ctx) -> int:
    return int(ctx.data("len")[1].size)


def log_rates(ctx: Ctx, onset: int) -> tuple[float, float] | None:
    """The fitted growth rates of log length before and after `onset` (per step), or None when a side
    has fewer than 3 positive lengths."""
    s, v = ctx.data("len")
    ok = v > 0
    before, after = ok & (s < onset), ok & (s >= onset)
    if before.sum() < 3 or after.sum() < 3:
        return None
    return ls_fit(s[before], np.log(v[before]))[0], ls_fit(s[after], np.log(v[after]))[0]


def paid_in_length(
    ctx: Ctx, onset: int | None, truth: str, z: float | None = None
) -> tuple[float, float, float, float, float] | None:
    """Since `onset` (where the reward parted from the truth: reward_hacking's onset) the answers grew
    while the truth gained nothing -- the reward's excess came with longer answers and no gain (the
    lesson: len 涨而 acc 不涨 = 长度作弊).  The m length points from the onset on against the m before
    them grew beyond `z` standard errors (goal_z unless given; the growth in standard errors is returned), and
    the truth over the same stretch did not gain beyond goal_z standard errors on the stretch before it.
    Returns (len before, len since, growth in standard errors, truth before, truth since), or None.
    reward_hacking holds back while the answers grow beyond one standard error (z=1: the channel is
    decided by the length, which shows a few steps after the reward moved), and length_hacking fires
    once the growth is len_accel (relative) and len_accel_z standard errors (`_paid_by_length`)."""
    if onset is None or not ctx.has("len"):
        return None
    ln, tc = around(ctx, "len", onset), around(ctx, truth, onset)
    if ln is None or tc is None:
        return None
    la, lb, m, lt = ln
    ta, tb, mt, tt = tc
    lse = (lt.noise or 1e-12) * float(np.sqrt(2.0 / m))
    tse = (tt.noise or float(np.std(ctx.data(truth)[1])) or 1e-12) * float(np.sqrt(2.0 / mt))
    z = get("goal_z") if z is None else z
    if not (la > 0 and lb - la >= z * lse and tb - ta <= get("goal_z") * tse):
        return None
    return la, lb, (lb - la) / lse, ta, tb


def length_term_excess(ctx: Ctx) -> tuple[str, int, float, float] | None:
    """A logged length-kind reward component whose last stretch (len_tail of the steps) left the line
    it followed before, upward by more than len_accel_z standard errors: (its key, the first step of the
    stretch, its excess in reward units, that excess in standard errors), or None."""
    for k, (kind, _) in components(ctx).items():
        if kind != "length":
            continue
        te = tail_excess(ctx, f"component:{k}", get("len_tail"), mean=True)
        if te is not None and te[1] > 0 and te[2] >= get("len_accel_z"):
            return k, te[0], te[1], te[2]
    return None
