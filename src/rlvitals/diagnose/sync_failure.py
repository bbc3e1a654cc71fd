"""sync_failure: the rollout engine samples from stale weights (train/inference mismatch).

With one optimizer step per batch, ratio = pi/pi_old is 1 by construction; a ratio that moves
steadily away from 1 (lesson pair A2: 0.5407) means the sampler and the trainer disagree.
A mismatch metric logged as a proxy (probs_diff_mean, token_mult_prob_error) is judged by the
verl FAQ thresholds (< 0.005 normal, > 0.01 a problem) or NeMo-RL's (> 1.05).
"""

from __future__ import annotations

import numpy as np

from .actions import action_for
from .context import Ctx, rnd, ro
from .model import Finding

ID = "sync_failure"


def _deviation(ctx: Ctx) -> tuple[float, float, str]:
    """(start deviation, end deviation, kind) of the ratio or its proxy from its healthy value."""
    s = ctx.series("ratio_mean")
    r0, r1 = ctx.start("ratio_mean"), ctx.end("ratio_mean")
    if s is not None and s.proxy and abs(ctx.window("ratio_mean", 0, 1)) < 0.5:
        return abs(r0), abs(r1), "diff"      # a difference/KL-like proxy: healthy is 0
    return abs(r0 - 1.0), abs(r1 - 1.0), "ratio"


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("ratio_mean"):
        return None
    d0, d1, kind = _deviation(ctx)
    sh = ctx.shapes["ratio_mean"]
    if kind == "ratio":
        fired = d1 >= 0.02 and (sh.word == "drift" or d1 >= 0.1) and d1 > 2 * d0
    else:
        fired = d1 > 0.01 and d1 > 2 * max(d0, 0.002)
    if not fired:
        return None
    ev = {"ratio_start": rnd(ctx.start("ratio_mean"), 5), "ratio_end": rnd(ctx.end("ratio_mean"), 5),
          "ratio_deviation": rnd(d1, 3), "ratio_tau": rnd(sh.stats.get("tau", float("nan")), 3)}
    ruled, missing = [], []
    if ctx.has("entropy"):
        e0, e1 = ctx.start("entropy"), ctx.end("entropy")
        if e0 > 0 and e1 / e0 > 0.3:
            ruled.append(ro("entropy_collapse", "entropy", e1, "entropy_healthy"))
        ev["entropy_end"] = rnd(e1)
    else:
        missing.append("entropy")
    if ctx.has("adv_std"):
        a1 = ctx.end("adv_std")
        if a1 >= 0.5:
            ruled.append(ro("data_too_easy", "adv_std", a1, "adv_std_normal"))
    else:
        missing.append("adv_std")
    for g in ("reward", "acc"):
        if ctx.has(g):
            ev[f"{g}_late_gain"] = rnd(ctx.late_gain(g, 0.5), 3)
    onset = sh.onset_step if sh.onset_step is not None else ctx.onset("ratio_mean")
    conf = float(np.clip(0.7 + d1, 0.7, 1.0))
    return Finding(ID, "critical", onset, ev, tuple(ruled), tuple(missing), action_for(ID), round(conf, 3))
