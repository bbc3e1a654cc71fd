"""outlier_step: a KL spike that is gone the next step -- one bad step, not a trend (unstable).

An isolated one-step KL spike (far above both neighbours, back to its level the next step) is
evidence of an outlier batch or an update that overshot once; it is never a blow-up and never
makes a run "dead".  It warns when the spike reaches a KL that matters (kl_high), else it is info.
Of several spikes (`timing.kl_clean`: a spiky KL keeps its level between them) the finding names
the largest, its step and the level around it, and counts them all.
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
    top = int(idx[int(np.argmax(raw[idx]))])  # the largest spike is the one the finding names
    peak = float(raw[top])
    level = float(np.median(clean[max(0, top - 5) : top + 6]))
    sev = "warning" if peak >= get("kl_high") else "info"
    ev = {
        "kl_spike_max": rnd(peak),
        "kl_level_around": rnd(level),
        "kl_spike_steps": ", ".join(map(str, spikes[:5])),
        "kl_spikes": len(spikes),
    }
    return Finding(ID, sev, int(s[top]), ev, (), (), action_for(ID), C.FIRM)
