"""entropy_explosion: entropy runs up and output turns to noise while reward falls (dead).

Entropy may rise healthily under an entropy bonus (a verl LoRA run: 0.13 → 0.26 while its score
rose); the rule wants a large relative rise (x2.5) AND the reward or accuracy giving ground.
"""

from __future__ import annotations

import numpy as np

from . import kl_blowup
from .actions import action_for
from .context import Ctx, rnd, ro
from .model import Finding

ID = "entropy_explosion"
RISE = 1.6         # end/start; an entropy bonus can double a low entropy healthily (0.13 → 0.26)


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("entropy"):
        return None
    e0, e1 = ctx.start("entropy"), ctx.end("entropy")
    if not (e0 > 0) or e1 / e0 < RISE or ctx.word("entropy") not in ("rising", "spike"):
        return None
    goal, peak, g1 = None, float("nan"), float("nan")
    for g in ("acc", "reward"):
        if not ctx.has(g):
            continue
        p, e = ctx.peak(g), ctx.end(g)
        # the score gave ground: the tenth-of-run mean sits well below the best block
        se = 3 * ctx.noise(g) / np.sqrt(max(1, len(ctx.data(g)[1]) // 10))
        if p - e > max(0.1 * abs(p), se):
            goal, peak, g1 = g, p, e
            break
    if goal is None:
        return None
    ev = {"entropy_start": rnd(e0), "entropy_end": rnd(e1), "entropy_rise": rnd(e1 / e0, 3),
          f"{goal}_peak": rnd(peak), f"{goal}_end": rnd(g1)}
    ruled, missing = [], []
    if ctx.has("kl"):
        k1 = ctx.end("kl")
        ev["kl_end"] = rnd(k1)
        if ctx.check(kl_blowup) is not None:
            return None  # a KL surge leads and entropy follows: kl_blowup owns it
        ruled.append(ro("kl_blowup", "kl", k1, "kl_steady"))
    else:
        missing.append("kl")
    onset = ctx.onset("entropy", "bend", until_peak=True)
    return Finding(ID, "critical", onset, ev, tuple(ruled), tuple(missing), action_for(ID), 0.85)
