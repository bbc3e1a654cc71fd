"""entropy_explosion: entropy runs up and output turns to noise while reward falls (dead).

Entropy may rise healthily under an entropy bonus (a verl LoRA run: 0.13 → 0.26 while its score
rose); the rule wants a large relative rise (x2.5) AND the reward or accuracy giving ground.
"""

from __future__ import annotations

from .actions import action_for
from .context import Ctx, ro, rnd
from .model import Finding

ID = "entropy_explosion"
RISE = 2.5


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("entropy"):
        return None
    e0, e1 = ctx.start("entropy"), ctx.end("entropy")
    if not (e0 > 0) or e1 / e0 < RISE or ctx.word("entropy") not in ("rising", "spike"):
        return None
    goal = "acc" if ctx.has("acc") else "reward" if ctx.has("reward") else None
    if goal is None:
        return None
    peak, g1 = ctx.peak(goal), ctx.end(goal)
    lost = peak - g1
    if lost <= max(0.1 * abs(peak), 3 * ctx.noise(goal)):
        return None
    ev = {"entropy_start": rnd(e0), "entropy_end": rnd(e1), "entropy_rise": rnd(e1 / e0, 3),
          f"{goal}_peak": rnd(peak), f"{goal}_end": rnd(g1)}
    ruled, missing = [], []
    if ctx.has("kl"):
        k_mid, k1 = ctx.window("kl", 0.3, 0.6), ctx.end("kl")
        ev["kl_end"] = rnd(k1)
        if k1 >= 5 * max(k_mid, 1e-6) and k1 >= 0.05:
            return None  # a KL surge leads: kl_blowup owns it
        ruled.append(ro("kl_blowup", "kl", k1, "kl_steady"))
    else:
        missing.append("kl")
    onset = ctx.onset("entropy", "start")
    return Finding(ID, "critical", onset, ev, tuple(ruled), tuple(missing), action_for(ID), 0.85)
