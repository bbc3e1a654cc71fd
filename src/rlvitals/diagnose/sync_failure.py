"""sync_failure: the rollout engine samples from stale weights (train/inference mismatch).

With one optimizer step per batch, ratio = pi/pi_old is 1 by construction; a ratio that moves
steadily away from 1 (lesson pair A2: 0.5407) means the sampler and the trainer disagree.
A mismatch metric logged as a proxy (probs_diff_mean, token_mult_prob_error) is judged by the
verl FAQ thresholds (< 0.005 normal, > 0.01 a problem) or NeMo-RL's (> 1.05).
"""

from __future__ import annotations

import numpy as np

from .actions import action_for
from .context import Ctx, rnd
from .model import Finding
from .symptoms import trend
from .thresholds import get

ID = "sync_failure"


def _deviation(ctx: Ctx) -> tuple[float, float, str]:
    """(start deviation, end deviation, kind) of the ratio or its proxy from its healthy value."""
    s = ctx.series("ratio_mean")
    r0, r1 = ctx.start("ratio_mean"), ctx.end("ratio_mean")
    if s is not None and s.proxy and abs(ctx.window("ratio_mean", 0, 1)) < 0.5:
        return abs(r0), abs(r1), "diff"      # a difference/KL-like proxy: healthy is 0
    # no further from 1 than the median of its last 3 points: an importance ratio knocked off 1 for a
    # single step by one huge update (a KL blow-up's step) is an excursion, not the lesson's monotonic
    # departure
    _, v = ctx.data("ratio_mean")
    now = float(np.median(v[-3:])) if v.size >= 3 else r1
    return abs(r0 - 1.0), min(abs(r1 - 1.0), abs(now - 1.0)), "ratio"


def _leaving(ctx: Ctx, d0: float, d1: float) -> bool:
    """The ratio is moving away from 1 now: half the steady band already, far beyond its own noise
    (2 x goal_z standard errors), more than 3x where it started, and further out than it ever was."""
    tr = trend(ctx, "ratio_mean")
    # half the steady band -- or a quarter of it when the shape is already a monotonic drift
    floor = 0.25 * get("ratio_tol") if ctx.word("ratio_mean") == "drift" else 0.5 * get("ratio_tol")
    if tr is None or d1 < floor or abs(tr.z) < 2 * get("goal_z") or d1 < 3 * max(d0, tr.noise):
        return False
    _, x = ctx.blocks("ratio_mean", 16)
    return bool(d1 >= float(np.max(np.abs(x[:-1] - 1.0)))) if x.size > 1 else False


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("ratio_mean"):
        return None
    d0, d1, kind = _deviation(ctx)
    sh = ctx.shapes["ratio_mean"]
    sev = "critical"
    if kind == "ratio":
        fired = d1 >= get("ratio_tol") and (sh.word == "drift" or d1 >= get("ratio_far")) and d1 > 2 * d0
        if not fired and _leaving(ctx, d0, d1):
            fired, sev = True, "warning"     # early: a steady move away from 1, not yet far
    else:
        fired = d1 > get("mismatch_high") and d1 > 2 * max(d0, 0.2 * get("mismatch_high"))
    if not fired:
        return None
    ev = {"ratio_start": rnd(ctx.start("ratio_mean"), 5), "ratio_end": rnd(ctx.end("ratio_mean"), 5),
          "ratio_deviation": rnd(d1, 3), "ratio_tau": rnd(sh.stats.get("tau", float("nan")), 3)}
    if ctx.has("entropy"):
        ev["entropy_end"] = rnd(ctx.end("entropy"))
    for g in ("reward", "acc"):
        if ctx.has(g):
            ev[f"{g}_late_gain"] = rnd(ctx.late_gain(g, 0.5), 3)
    onset = sh.onset_step if sh.onset_step is not None else ctx.onset("ratio_mean")
    conf = float(np.clip(0.7 + d1, 0.7, 1.0))
    return Finding(ID, sev, onset, ev, (), (), action_for(ID), round(conf, 3))
