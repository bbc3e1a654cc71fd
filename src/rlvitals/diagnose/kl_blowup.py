"""kl_blowup: KL to the reference runs away (陡增 = 跑飞); entropy often rises with it.

A healthy KL rises slowly all run (0.002 → 0.045 in the lesson: 20x, but gradual).  A blow-up is
a late surge: the last tenth far above the middle of the run and above any classic-PPO scale.
"""

from __future__ import annotations

import numpy as np

from .actions import action_for
from .context import Ctx, ro, rnd
from .model import Finding

ID = "kl_blowup"
SURGE = 5.0        # end level vs the middle of the run
FLOOR = 0.05       # below this a KL is not dangerous whatever its shape (PTT: > 0.3 is high)


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("kl"):
        return None
    _, v = ctx.data("kl")
    mid = ctx.window("kl", 0.3, 0.6)
    end = ctx.end("kl")
    late_max = float(np.max(v[int(0.8 * v.size):]))
    surge = end / max(abs(mid), 1e-6)
    if end < FLOOR or surge < SURGE or ctx.word("kl") not in ("spike", "rising"):
        return None
    ev = {"kl_start": rnd(ctx.start("kl")), "kl_mid": rnd(mid), "kl_end": rnd(end),
          "kl_surge": rnd(surge, 3), "kl_late_max": rnd(late_max)}
    ruled, missing = [], []
    if ctx.has("entropy"):
        e0, e1 = ctx.start("entropy"), ctx.end("entropy")
        ev["entropy_start"], ev["entropy_end"] = rnd(e0), rnd(e1)
    if ctx.applicable("clip_frac"):
        c = ctx.window("clip_frac", 0.0, 0.6)
        if c < 0.2:
            ruled.append(ro("lr_too_high", "clip_frac", c, "clip_normal_before"))
    for m in ("reward", "kl", "entropy", "gnorm", "loss"):
        s = ctx.series(m)
        if s is not None and (~s.finite).any():
            return None  # NaNs: numeric_instability owns the run
    ruled.append(ro("numeric_instability", "kl", "finite", "all_finite"))
    onset = ctx.onset("kl", "start", log=True)
    conf = min(1.0, 0.8 + 0.02 * np.log10(surge))
    return Finding(ID, "critical", onset, ev, tuple(ruled), tuple(missing), action_for(ID), round(float(conf), 3))
