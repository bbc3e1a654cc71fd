"""stalled: nothing moves -- reward, acc and the policy itself stay where they started (dead).

The last resort among the "flat reward" causes: it fires only when no more specific cause
(collapse, sync, all-wrong data, truncation) explains the flat line, and it names the metric
that would have decided when one is missing (no ratio_mean: could be a weight-sync failure).
"""

from __future__ import annotations

import numpy as np

from . import (
    data_too_hard,
    entropy_collapse,
    entropy_explosion,
    kl_blowup,
    numeric_instability,
    sync_failure,
    truncation_starvation,
)
from .actions import action_for
from .context import Ctx, rnd, ro
from .model import Finding

ID = "stalled"
MIN_POINTS = 30


def check(ctx: Ctx) -> Finding | None:
    goals = [g for g in ("acc", "reward") if ctx.has(g) or ctx.word(g) == "constant"]
    if not goals or max(len(ctx.data(g)[1]) for g in goals) < MIN_POINTS:
        return None  # "nothing moves" needs time to be true: a 10-step run has not had it
    # the last resort: a more specific cause of a flat line owns the run when it fires
    if any(ctx.check(m) is not None for m in (numeric_instability, sync_failure, truncation_starvation,
                                              entropy_collapse, data_too_hard, kl_blowup, entropy_explosion)):
        return None
    for g in goals:
        if ctx.gained(g, rel=0.1) or ctx.word(g) in ("rising", "falling", "spike", "to_zero"):
            return None
        g0, g1 = ctx.start(g), ctx.end(g)
        if abs(g1 - g0) > max(0.1 * abs(g0), 0.02):
            return None  # it moved, just too noisily to be sure how: not "nothing moves"
        noise = ctx.noise(g) * 4 / np.sqrt(max(1, len(ctx.data(g)[1]) // 16))
        if ctx.peak(g) > ctx.start(g) + max(0.15 * abs(ctx.start(g)), 0.05, noise) and ctx.word(g) != "constant":
            return None  # it rose, then fell back or flattened: not a stall
    ev: dict = {}
    for g in goals:
        ev[f"{g}_start"], ev[f"{g}_end"] = rnd(ctx.start(g)), rnd(ctx.end(g))
    ruled, missing = [], []
    if ctx.has("entropy"):
        e0, e1 = ctx.start("entropy"), ctx.end("entropy")
        ev["entropy_end"] = rnd(e1)
        if e0 > 0 and e1 / e0 > 0.3:
            ruled.append(ro("entropy_collapse", "entropy", e1, "entropy_healthy"))
    else:
        missing.append("entropy")
    if ctx.has("ratio_mean"):
        ruled.append(ro("sync_failure", "ratio_mean", ctx.end("ratio_mean"), "ratio_steady"))
    else:
        missing.append("ratio_mean")
    if ctx.has("kl"):
        ev["kl_end"] = rnd(ctx.end("kl"))
    if ctx.has("adv_std"):
        ev["adv_std_end"] = rnd(ctx.end("adv_std"))
    return Finding(ID, "critical", ctx.first_step(), ev, tuple(ruled), tuple(missing), action_for(ID), 0.6)
