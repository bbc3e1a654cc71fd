"""kl_blowup: KL to the reference runs away (陡增 = 跑飞); entropy often rises with it.

A healthy KL rises slowly all run (0.002 → 0.045 in the lesson: 20x, but gradual), and a learning
rate that is too high lifts it a few-fold along with clip_frac.  A blow-up is a sustained jump of
more than an order of magnitude over the KL's own level just before it began, to a level that
matters.  Isolated one-step spikes are removed first (`symptoms.kl_clean`): a spike gone the next
step is an outlier step, never a blow-up.  NaNs make it numeric_instability's (verdict.SUPPRESSES).
"""

from __future__ import annotations

import numpy as np

from ..shapes import blocks
from .actions import action_for
from .context import Ctx, rnd
from .model import Finding
from .predicates import kl_surge
from .symptoms import kl_clean
from .thresholds import get

ID = "kl_blowup"


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("kl"):
        return None
    s, v, _ = kl_clean(ctx)
    if v.size < 10:
        return None
    k = max(1, v.size // 10)
    end = float(np.mean(v[-k:]))
    if end < get("kl_min"):
        return None
    surge = kl_surge(ctx)
    onset = _onset(s, v)
    before = v[s < onset] if onset is not None else v[:0]
    pre = float(np.median(before[-max(3, before.size // 3):])) if before.size else float(np.mean(v[:k]))
    after = v[s >= onset] if onset is not None else v
    top = float(np.max(after)) if after.size else end
    # fast (an order of magnitude within a fifth of the run) or slower but far past any sane KL
    if surge < get("kl_surge") and not (end >= get("kl_danger") and end >= 10 * max(pre, 1e-6)):
        return None
    if end < 3 * max(pre, get("kl_floor")):
        return None   # it surged and came back down: not a run-away now
    ev = {"kl_start": rnd(float(np.mean(v[:k]))), "kl_before": rnd(pre), "kl_end": rnd(end),
          "kl_surge": rnd(max(top, end) / max(abs(pre), 1e-6), 3), "kl_window_rise": rnd(surge, 3), "kl_max": rnd(top)}
    missing = []
    if ctx.has("entropy"):
        ev["entropy_start"], ev["entropy_end"] = rnd(ctx.start("entropy")), rnd(ctx.end("entropy"))
    else:
        missing.append("entropy")
    conf = min(1.0, 0.8 + 0.05 * np.log10(surge))
    return Finding(ID, "critical", onset, ev, (), tuple(missing), action_for(ID), round(float(conf), 3))


def _onset(s: np.ndarray, v: np.ndarray) -> int | None:
    """Where log(kl + kl_floor) had made a fifth of its total rise."""
    t, x = blocks(s, v, 100)
    y = np.log10(np.maximum(x, 0.0) + get("kl_floor"))
    k = max(1, y.size // 10)
    a, b = float(np.median(y[:k])), float(np.max(y))
    if b <= a:
        return None
    below = np.nonzero(y < a + 0.2 * (b - a))[0]
    first_peak = int(np.argmax(y))
    below = below[below < first_peak]
    j = int(below[-1]) + 1 if below.size else 0
    return int(t[min(j, t.size - 1)])
