"""outlier_step: a KL spike that is gone the next step -- one bad step, not a trend (unstable).

An isolated one-step KL spike (far above both neighbours, back to its level the next step) is
evidence of an outlier batch or an update that overshot once; it is never a blow-up and never
makes a run "dead".  It warns when the spike reaches a KL that matters (kl_high), else it is info.
"""

from __future__ import annotations

import numpy as np

from . import confidence as C
from .actions import action_for
from .context import Ctx, rnd
from .model import Finding
from .thresholds import get
from .timing import kl_clean

ID = "outlier_step"


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("kl"):
        return None
    s, clean, spikes = kl_clean(ctx)
    if not spikes:
        return None
    _, raw = ctx.data("kl")
    idx = np.searchsorted(s, spikes)
    peak = float(np.max(raw[idx]))
    level = float(np.median(clean[max(0, int(idx[0]) - 5) : int(idx[0]) + 6]))
    sev = "warning" if peak >= get("kl_high") else "info"
    ev = {
        "kl_spike_max": rnd(peak),
        "kl_level_around": rnd(level),
        "kl_spike_steps": ", ".join(map(str, spikes[:5])),
        "kl_spikes": len(spikes),
    }
    return Finding(ID, sev, spikes[0], ev, (), (), action_for(ID), C.FIRM)
