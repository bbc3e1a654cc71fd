"""data_too_hard: groups come back all-wrong, so there is nothing to learn from (dead).

Reward/acc stay near zero and adv_std low (most groups have zero variance); entropy is normal,
answers are not cut at the cap (else truncation_starvation), nothing improves.
"""

from __future__ import annotations

from .actions import action_for
from .context import Ctx, rnd, ro
from .model import Finding

ID = "data_too_hard"
NEAR_ZERO = 0.1


def check(ctx: Ctx) -> Finding | None:
    goal = "acc" if ctx.has("acc") else "reward" if ctx.has("reward") else None
    if goal is None:
        return None
    g0, g1, peak = ctx.start(goal), ctx.end(goal), ctx.peak(goal)
    if goal == "reward" and not ctx.has("adv_std"):
        return None  # a reward of unknown scale near 0 says nothing on its own
    # a rate creeping from 0.0003 to 0.004 is "x13" but still all-wrong: judge near-zero gains in
    # absolute terms (acc is a fraction), or by a steady trend
    if g1 > NEAR_ZERO or peak > 2 * NEAR_ZERO or g1 - g0 > NEAR_ZERO / 2 or ctx.still_rising(goal, 0.0):
        return None
    if goal != "reward" and ctx.has("reward") and ctx.gained("reward", rel=0.15) and ctx.still_rising("reward", 0.0):
        return None  # the reward climbs: something is being learned (or gamed), not nothing
    ev = {f"{goal}_start": rnd(g0), f"{goal}_end": rnd(g1)}
    ruled, missing = [], []
    if ctx.has("adv_std"):
        a1 = ctx.end("adv_std")
        ev["adv_std_end"] = rnd(a1)
        if a1 > 0.6:
            return None
    else:
        missing.append("adv_std")
    if ctx.has("trunc"):
        t1 = ctx.end("trunc")
        if t1 >= 0.3:
            return None
        ruled.append(ro("truncation_starvation", "trunc", t1, "trunc_low"))
    else:
        missing.append("trunc")
    if ctx.has("entropy"):
        e0, e1 = ctx.start("entropy"), ctx.end("entropy")
        if e0 > 0 and e1 / e0 < 0.2:
            return None
        ruled.append(ro("entropy_collapse", "entropy", e1, "entropy_healthy"))
    if ctx.has("ratio_mean") and abs(ctx.end("ratio_mean") - 1) < 0.02:
        ruled.append(ro("sync_failure", "ratio_mean", ctx.end("ratio_mean"), "ratio_steady"))
    conf = 0.85 + 0.1 * (g1 < 0.03)
    return Finding(ID, "critical", ctx.first_step(), ev, tuple(ruled), tuple(missing), action_for(ID), round(conf, 3))
