"""stalled: nothing moves -- reward, acc and the policy itself stay where they started (dead).

The last resort among the "flat reward" causes: a more specific cause (collapse, sync, all-wrong
data, truncation) owns the run when it fires (verdict.SUPPRESSES), and the differential names the
metric that would have decided when one is missing (no ratio_mean: could be a weight-sync failure).
"Nothing moves" is judged by steps and against each curve's own noise: the goal and the reward
show no evidence of a move over at least min_points points, and the policy (entropy, KL) is still
too -- or, with neither logged, the scores are demonstrably flat on their own.
"""

from __future__ import annotations

from .actions import action_for
from .context import Ctx, rnd
from .model import Finding
from .symptoms import Trend, goal, trend
from .thresholds import get

ID = "stalled"


def _still(t: Trend, n_min: float) -> bool:
    """A policy metric that did not move: no evidence of a move, or a move under 1% of its level
    (start, end and peak), or (KL) a level that never left the reference (below kl_floor / 100)."""
    if t.still_over(n_min) or max(abs(t.end - t.start), abs(t.peak - t.start), abs(t.start - t.trough)) < 0.01 * abs(t.start):
        return True
    return t.metric == "kl" and max(abs(t.start), abs(t.end), abs(t.peak)) < 0.01 * get("kl_floor")


def check(ctx: Ctx) -> Finding | None:
    g = goal(ctx)
    names = [m for m in dict.fromkeys([g, "acc", "reward"]) if m and (ctx.has(m) or ctx.word(m) == "constant")]
    trs = [trend(ctx, m) for m in names]
    if not trs or any(t is None for t in trs):
        return None
    # "nothing moves" includes the policy: entropy and KL still too (then stall_points points
    # suffice) -- or, when neither is logged, the scores must be demonstrably flat on their own
    policy = [trend(ctx, m) for m in ("entropy", "kl") if ctx.has(m)]
    n_min = get("stall_points") if policy else get("min_points")

    def quiet(t: Trend) -> bool:   # no evidence of a move, or at most a slight drift down
        return t.still_over(n_min) or (t.not_rising and abs(t.fit_move) < 4 * t.fit_se
                                       and abs(t.move) < get("goal_z") * t.se)

    if not all(quiet(t) or (t.n >= 12 and ctx.word(t.metric) == "constant") for t in trs if t is not None):
        return None
    if policy and not all(p is not None and _still(p, n_min) for p in policy):
        return None      # the policy changes while the score does not: not "nothing moves" (not_learning)
    if not policy and not all(t.flat or ctx.word(t.metric) == "constant" for t in trs if t is not None):
        return None
    ev: dict = {}
    for t in trs:
        if t is not None:
            ev[f"{t.metric}_start"], ev[f"{t.metric}_end"] = rnd(t.start), rnd(t.end)
    for m in ("entropy", "kl", "adv_std"):
        if ctx.has(m):
            ev[f"{m}_end"] = rnd(ctx.end(m))
    missing = [m for m in ("entropy", "ratio_mean") if not ctx.has(m)]
    return Finding(ID, "critical", ctx.first_step(), ev, (), tuple(missing), action_for(ID), 0.6)
