"""sync_failure: the rollout engine samples from stale weights (train/inference mismatch).

With one optimizer step per batch, ratio = pi/pi_old is 1 by construction; a ratio that moves
steadily away from 1 (lesson pair A2: 0.5407) means the sampler and the trainer disagree.
A mismatch metric logged as a proxy (probs_diff_mean, token_mult_prob_error) is judged by the
verl FAQ thresholds (< 0.005 normal, > 0.01 a problem) or NeMo-RL's (> 1.05).
Early, before the ratio leaves the steady band, the shape decides (the lesson's red y = 1.0
line: 单调偏离 = 权重没同步): over its last stretch (ratio_tail of the step span) the ratio's
distance from 1 grows steadily, step by step, with no single jump carrying it (a learning rate
raised mid-run knocks the ratio off 1 in one step, then it holds or wobbles), far beyond the
ratio's own step noise before the stretch, further out than it ever was, and past a small floor.
Stale weights do exactly this: every update moves the trainer further from the sampler's frozen
copy, so the gap widens with each step.
"""

from __future__ import annotations

import numpy as np

from ..stats import kendall_tau, step_noise
from . import confidence as C
from .actions import action_for
from .arith import HALF, MAD_SIGMA, SQRT2, TINY
from .context import Ctx, rnd
from .model import Finding
from .symptoms import trend
from .thresholds import get
from .timing import rolled

ID = "sync_failure"


def _deviation(ctx: Ctx) -> tuple[float, float, str]:
    """(start deviation, end deviation, kind) of the ratio or its proxy from its healthy value."""
    s = ctx.series("ratio_mean")
    r0, r1 = ctx.start("ratio_mean"), ctx.end("ratio_mean")
    if s is not None and s.proxy and abs(ctx.window("ratio_mean", 0, 1)) < get("proxy_diff_level"):
        return abs(r0), abs(r1), "diff"  # a difference/KL-like proxy: healthy is 0
    # no further from 1 than the nearest of its last 3 points: an importance ratio knocked off 1 for a
    # step or two by huge updates (a KL blow-up's step, a bad batch) is an excursion, not the lesson's
    # monotonic departure, which holds
    _, v = ctx.data("ratio_mean")
    now = float(np.min(np.abs(v[-3:] - 1.0))) if v.size >= 3 else abs(r1 - 1.0)
    return abs(r0 - 1.0), min(abs(r1 - 1.0), now), "ratio"


def _leaving(ctx: Ctx, d0: float, d1: float) -> bool:
    """The ratio is moving away from 1 now: half the steady band already, far beyond its own noise
    (2 x goal_z standard errors), more than 3x where it started, and further out than it ever was."""
    tr = trend(ctx, "ratio_mean")
    # half the steady band -- or a quarter of it when the shape is already a monotonic drift
    floor = (get("ratio_leaving_drift") if ctx.word("ratio_mean") == "drift" else get("ratio_leaving")) * get(
        "ratio_tol"
    )
    if tr is None or d1 < floor or abs(tr.z) < 2 * get("goal_z") or d1 < 3 * max(d0, tr.noise):
        return False
    # further out than every block before the end window (the last tenth of the points the end level
    # is the mean of): on a sparse log the last blocks overlap that window and would hold it to itself
    s, v = ctx.data("ratio_mean")
    t, x = ctx.blocks("ratio_mean", 16)
    before = x[t < float(s[-max(1, v.size // 10)])]
    return bool(d1 >= float(np.max(np.abs(before - 1.0)))) if before.size else False


STRETCH = 10  # points at least in the stretch: Kendall's tau of fewer is too coarse to call a drift steady


def _drifting(ctx: Ctx) -> float | None:
    """The distance of the ratio from 1 now (median of its last 3 points) when it is drifting away
    step by step over the last `ratio_tail` of the step span (at least STRETCH points), else None.

    Steady: Kendall's tau of the stretch's distances >= ratio_drift_tau.  Gradual: no single step
    from the 3 points before the stretch to now carries more than ratio_jump_share of the rise (the
    distance now against the median of those 3 points), and the stretch's later half still carries
    ratio_late_share of it (a jump a few steps long that then holds has made its whole move early).
    Beyond its own noise: that rise is more than
    2 x goal_z step-noise standard errors of the points just before the stretch (MAD of their first
    differences, over the later half of them, at least min_points: the ratio's local noise), the
    distance now is 3x its median distance before the stretch and beyond every block before it,
    and at least ratio_drift_min."""
    s, v = ctx.data("ratio_mean")
    n = v.size
    if n < get("min_points"):
        return None
    cut = float(s[-1]) - get("ratio_tail") * float(s[-1] - s[0])
    j = min(int(np.searchsorted(s, cut, side="right")), n - STRETCH)
    if j < get("min_points") // 2:
        return None
    x = np.abs(v - 1.0)
    xs = x[j:]
    now = float(np.median(xs[-3:]))
    if now < get("ratio_drift_min") or kendall_tau(xs) < get("ratio_drift_tau"):
        return None
    rise = now - float(np.median(x[max(0, j - 3) : j]))
    i = max(0, min(j // 2, j - int(get("min_points"))))
    sig = step_noise(v[i:j])
    bt, blk = ctx.blocks("ratio_mean", 16)
    out_before = np.abs(blk[bt < float(s[j])] - 1.0)
    h = j + xs.size // 2
    late = now - float(np.median(x[h - 1 : h + 2]))  # the rise over the stretch's later half
    if (
        rise <= 0
        or float(np.max(np.diff(x[max(0, j - 3) :]))) > get("ratio_jump_share") * rise
        or late < get("ratio_late_share") * rise
        or rise < 2 * get("goal_z") * np.sqrt(2) * sig
        or now < 3 * max(float(np.median(x[:j])), sig)
        or (out_before.size and now < float(np.max(out_before)))
    ):
        return None
    return now


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("ratio_mean"):
        return None
    d0, d1, kind = _deviation(ctx)
    sh = ctx.shapes["ratio_mean"]
    sev = "critical"
    if kind == "ratio":
        fired = d1 >= get("ratio_tol") and (sh.word == "drift" or d1 >= get("ratio_far")) and d1 > 2 * d0
        if not fired and (_leaving(ctx, d0, d1) or _drifting(ctx) is not None):
            fired, sev = True, "warning"  # early: a steady move away from 1, not yet far
    else:
        fired = d1 > get("mismatch_high") and d1 > 2 * max(d0, get("mismatch_start") * get("mismatch_high"))
    if not fired:
        return None
    ev = {
        "ratio_start": rnd(ctx.start("ratio_mean"), 5),
        "ratio_end": rnd(ctx.end("ratio_mean"), 5),
        "ratio_deviation": rnd(d1, 3),
        "ratio_tau": rnd(sh.stats.get("tau", float("nan")), 3),
    }
    if ctx.has("entropy"):
        ev["entropy_end"] = rnd(ctx.end("entropy"))
    for g in ("reward", "acc"):
        if ctx.has(g):
            ev[f"{g}_late_gain"] = rnd(ctx.late_gain(g, HALF), 3)
    onset = _left_one(ctx) if kind == "ratio" else None
    if onset is None:
        onset = sh.onset_step if sh.onset_step is not None else ctx.onset("ratio_mean")
    conf = float(np.clip(C.FIRM + d1, C.FIRM, 1.0))
    return Finding(ID, sev, onset, ev, (), (), action_for(ID), round(conf, 3))


def _left_one(ctx: Ctx) -> int | None:
    """Where the ratio left 1 for good: the first step from which the 5-point rolling median of
    |ratio - 1| stays above its level over the first fifth of the run (at least 10 points) by goal_z
    step-to-step noise standard errors.  A slow drift that accelerates is dated where it began, not at
    the knee of a two-line fit (RL-loop sync failures at steps 64-77 read "since step 103-112")."""
    s, v = ctx.data("ratio_mean")
    d = np.abs(v - 1.0)
    n = max(10, d.size // 5)
    if d.size < 2 * n:
        return None
    base = float(np.median(d[:n]))
    noise = float(MAD_SIGMA * np.median(np.abs(np.diff(d[:n])))) / SQRT2 or TINY
    # centred 5-point median (3 and 4 points at the ends): the trailing one shifted by two steps
    med = np.concatenate((rolled(d)[2:], [np.median(d[-4:]), np.median(d[-3:])]))
    inside = np.nonzero(med <= base + get("goal_z") * noise)[0]
    i = int(inside[-1]) + 1 if inside.size else 0
    return int(s[i]) if i < s.size else None
