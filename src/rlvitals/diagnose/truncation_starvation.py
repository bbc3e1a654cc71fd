"""truncation_starvation: answers are cut at the length cap, so every reward is 0 (dead).

The trunc rate is read directly when logged (PTT fires at > 0.3; verl: clipped_ratio 1.0 gives
zero reward variance and zero gradient).  Without it, lengths pinned at their maximum with a
reward that never leaves 0 are the stand-in, and the finding says trunc was missing.
"""

from __future__ import annotations

import numpy as np

from .actions import action_for
from .context import Ctx, rnd, ro
from .model import Finding

ID = "truncation_starvation"
HIGH = 0.5


def _pinned(ctx: Ctx, a: float = 0.0) -> float:
    """Fraction of steps (after fraction a of the run) whose length is within 2% of its maximum."""
    _, v = ctx.data("len")
    if v.size < 5:
        return 0.0
    return float(np.mean(v[int(a * v.size):] >= 0.98 * float(np.max(v))))


def check(ctx: Ctx) -> Finding | None:
    goal = "reward" if ("reward" in ctx.shapes) else "acc" if ("acc" in ctx.shapes) else None
    if goal is None:
        return None
    g1, peak = ctx.end(goal), ctx.peak(goal)
    ev: dict = {f"{goal}_end": rnd(g1)}
    missing = []
    from_start = False
    if ctx.has("trunc"):
        t1 = ctx.end("trunc")
        if t1 < HIGH:
            return None
        if ctx.gained(goal, rel=0.1, a=0.3):
            return None
        ev["trunc_end"] = rnd(t1)
    else:
        missing.append("trunc")
        if not ctx.has("len"):
            return None
        if ctx.word(goal) == "constant" and abs(g1) < 1e-9:
            pinned = _pinned(ctx)            # zero reward from step one: pinned most of the run
            from_start = True
        elif g1 <= 0.1 * abs(peak) and ctx.word("len") in ("rising", "spike"):
            pinned = _pinned(ctx, 0.7)        # grew into the cap and the reward died with it
        else:
            return None
        if pinned < 0.7:
            return None
        ev["len_max"] = rnd(float(np.max(ctx.data("len")[1])))
        ev["len_pinned_at_max"] = rnd(pinned, 3)
    if ctx.has("len"):
        ev["len_end"] = rnd(ctx.end("len"))
    # without trunc, the deciding fact is the length pinned at its cap: say it in length units
    cut_metric, cut_value = (("trunc", ev["trunc_end"]) if "trunc_end" in ev else
                             ("len", f"{ev['len_max']:g} (at the cap on {ev['len_pinned_at_max']:.0%} of steps)"))
    ruled = [ro("data_too_hard", cut_metric, cut_value, "answers_cut")]
    if ctx.has("entropy"):
        ruled.append(ro("entropy_collapse", "entropy", ctx.end("entropy"), "entropy_healthy"))
    ruled.append(ro("stalled", cut_metric, cut_value, "answers_cut"))
    # the answers began to outgrow the cap where length bent upward (trunc only follows later)
    onset = (ctx.first_step() if from_start
             else ctx.onset("len", "bend", log=True, until_peak=True) if ctx.has("len") and ctx.word("len") != "constant"
             else ctx.crossing("trunc", 0.1) if ctx.has("trunc") else ctx.first_step())
    conf = 0.9 if "trunc_end" in ev else 0.75
    return Finding(ID, "critical", onset, ev, tuple(ruled), tuple(missing), action_for(ID), conf)
