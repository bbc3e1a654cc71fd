"""kl_blowup: KL to the reference runs away (陡增 = 跑飞); entropy often rises with it.

A healthy KL rises slowly all run (0.002 → 0.045 in the lesson: 20x, but gradual), and a learning
rate that is too high lifts it a few-fold along with clip_frac.  A blow-up is a jump of more than
an order of magnitude over the KL's own level just before it began, to a level that matters.
"""

from __future__ import annotations

import numpy as np

from . import numeric_instability
from .actions import action_for
from .context import Ctx, rnd, ro
from .model import Finding
from .updates import assess

ID = "kl_blowup"
SURGE = 20.0       # rise of (kl + KL_FLOOR) within a fifth of the run (blow-ups: 58-370x; lr too high: < 10x)
KL_FLOOR = 0.01    # KL this small is noise-level (Spinning Up target_kl 0.01)
HIGH = 0.5         # a KL this large has left the reference whatever the speed (PTT: > 0.3 high)
FLOOR = 0.05       # below this a KL is not dangerous whatever its shape (PTT: > 0.3 is high)


def window_surge(ctx: Ctx) -> tuple[float, int | None]:
    """Largest rise of (kl + KL_FLOOR) within a fifth of the run, and the step it started from.

    Adding KL_FLOOR (Spinning Up's target_kl 0.01) keeps a KL growing from 0.002 to 0.01 -- five
    times, but harmless -- from counting as an order of magnitude.
    """
    t, x = ctx.blocks("kl", 100)
    x = np.maximum(x, 0.0) + KL_FLOOR
    w = max(1, x.size // 5)
    best, at = 1.0, None
    for i in range(x.size - 1):
        r = float(np.max(x[i + 1:i + w + 1]) / x[i])
        if r > best:
            best, at = r, int(t[i])
    return best, at


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("kl") or ctx.word("kl") not in ("spike", "rising"):
        return None
    s, v = ctx.data("kl")
    end = ctx.end("kl")
    if end < FLOOR:
        return None
    surge, _ = window_surge(ctx)
    onset = _onset(ctx)
    before = v[s < onset] if onset is not None else v[:0]
    pre = float(np.median(before[-max(3, before.size // 3):])) if before.size else ctx.start("kl")
    # fast (an order of magnitude within a fifth of the run) or slower but far past any sane KL
    if surge < SURGE and not (end >= HIGH and end >= 10 * max(pre, 1e-6)):
        return None
    if ctx.check(numeric_instability) is not None:
        return None  # NaNs or an exploding loss: the KL is a casualty, numeric_instability owns it
    ev = {"kl_start": rnd(ctx.start("kl")), "kl_before": rnd(pre), "kl_end": rnd(end),
          "kl_surge": rnd(end / max(abs(pre), 1e-6), 3), "kl_window_rise": rnd(surge, 3), "kl_max": rnd(float(np.max(v)))}
    ruled, missing = [], []
    if ctx.has("entropy"):
        ev["entropy_start"], ev["entropy_end"] = rnd(ctx.start("entropy")), rnd(ctx.end("entropy"))
    else:
        missing.append("entropy")
    u = assess(ctx)
    if u.clip is not None and not u.clip_high:
        ruled.append(ro("lr_too_high", "clip_frac", u.clip, "clip_normal"))
    elif u.clip is None:
        missing.append("clip_frac")
    ruled.append(ro("numeric_instability", "kl", "finite", "all_finite"))
    conf = min(1.0, 0.8 + 0.05 * np.log10(surge))
    return Finding(ID, "critical", onset, ev, tuple(ruled), tuple(missing), action_for(ID), round(float(conf), 3))


def _onset(ctx: Ctx) -> int | None:
    """Where log(kl + KL_FLOOR) had made a fifth of its total rise."""
    t, x = ctx.blocks("kl", 100)
    y = np.log10(np.maximum(x, 0.0) + KL_FLOOR)
    k = max(1, y.size // 10)
    a, b = float(np.median(y[:k])), float(np.max(y))
    if b <= a:
        return None
    below = np.nonzero(y < a + 0.2 * (b - a))[0]
    first_peak = int(np.argmax(y))
    below = below[below < first_peak]
    j = int(below[-1]) + 1 if below.size else 0
    return int(t[min(j, t.size - 1)])
