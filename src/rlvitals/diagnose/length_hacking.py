"""length_hacking: answers grow long while accuracy does not (lesson pair C2), truncation rising.

Pair C1 -- length rising together with acc -- is healthy ("写详细带来了更高正确率") and stays
silent.  With no acc logged there is no way to tell the two apart, so the rule does not fire.
GRPO's length bias (Dr. GRPO) also makes wrong answers longer: the action names both fixes.
"""

from __future__ import annotations

import numpy as np

from . import entropy_explosion, truncation_starvation
from .actions import action_for
from .context import Ctx, rnd, ro
from .model import Finding

ID = "length_hacking"
GROWTH = 2.0        # the lesson's healthy run grows x1.95 while acc rises; an explosion is more


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("len") or not ctx.has("acc"):
        return None
    l0, l1 = ctx.start("len"), ctx.end("len")
    if not (l0 > 0) or l1 / l0 < GROWTH or ctx.word("len") not in ("rising", "spike", "oscillating"):
        return None
    onset = ctx.onset("len", "bend", log=True)
    s, _ = ctx.data("acc")
    a = min(float(np.searchsorted(s, onset)) / max(s.size, 1), 0.8) if onset is not None else 0.0
    a0, a1 = ctx.start("acc"), ctx.end("acc")
    if ctx.gained("acc", rel=0.05, a=a):
        return None  # pair C1: longer and more right (judged from where the growth began)
    if ctx.check(entropy_explosion) is not None:
        return None  # answers turning to noise grow long too: the entropy rule owns it
    ev = {"len_start": rnd(l0), "len_end": rnd(l1), "len_growth": rnd(l1 / l0, 3),
          "acc_start": rnd(a0), "acc_end": rnd(a1)}
    missing, ruled = [], []
    if ctx.check(truncation_starvation) is not None:
        return None  # everything cut and no reward left: truncation_starvation owns it
    if ctx.has("trunc"):
        t0, t1 = ctx.start("trunc"), ctx.end("trunc")
        ev["trunc_start"], ev["trunc_end"] = rnd(t0), rnd(t1)
        if not (t1 >= t0 + 0.05 or (t1 >= t0 + 0.02 and l1 / l0 >= 2.5)):
            return None  # longer, but barely hitting the cap more often: not (yet) an explosion
        if ctx.still_rising("acc", a):
            return None  # and accuracy is still climbing with it
    else:
        missing.append("trunc")
        if l1 / l0 < 2.5:
            return None  # without trunc, only a clear explosion is unambiguous
    if ctx.has("reward"):
        ev["reward_start"], ev["reward_end"] = rnd(ctx.start("reward")), rnd(ctx.end("reward"))
    ruled.append(ro("data_too_hard", "acc", a1, "acc_not_zero") if a1 > 0.05 else
                 ro("reward_hacking", "len", f"{l0:.4g} → {l1:.4g}", "len_explains"))
    if ctx.has("entropy"):
        ruled.append(ro("entropy_collapse", "entropy", ctx.end("entropy"), "entropy_healthy"))
    conf = min(1.0, 0.8 + 0.1 * (l1 / l0 - GROWTH))
    return Finding(ID, "warning", onset, ev, tuple(ruled), tuple(missing), action_for(ID), round(conf, 3))
