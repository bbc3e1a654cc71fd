"""data_too_easy: adv_std falls because groups come back all-correct (lesson pair B1).

The lesson's adv_std table sets the severity: 0.8-1.2 healthy (silent), 0.5-0.8 watch (info),
0.3-0.5 change data / dynamic sampling (warning), < 0.2 stop burning GPU hours (critical).
The cause is told apart from entropy collapse by entropy (still far from 0) and accuracy (high),
and -- the lesson's most practical check -- by samples that differ but are all right.
"""

from __future__ import annotations

from .actions import action_for
from .context import Ctx, rnd, ro
from .model import Finding
from .predicates import holds
from .symptoms import goal, trend
from .thresholds import get

ID = "data_too_easy"


def band(adv_std_end: float) -> str | None:
    """Severity for an end adv_std, per the lesson's table (None = healthy)."""
    if adv_std_end >= get("adv_std_healthy"):
        return None
    if adv_std_end >= get("adv_std_watch"):
        return "info"
    if adv_std_end >= get("adv_std_stop"):
        return "warning"
    return "critical"


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("adv_std"):
        return None
    a0, a1 = ctx.start("adv_std"), ctx.end("adv_std")
    sev = band(a1)
    if sev is None or a1 > a0 - 0.05:
        return None
    g = goal(ctx)
    tr = trend(ctx, g) if g else None
    if g is None or tr is None:
        return None
    g1 = tr.end
    if g1 < 0.5 and not tr.rose:
        return None  # groups neither mostly right nor getting right: easy data cannot be the cause
    ev = {"adv_std_start": rnd(a0), "adv_std_end": rnd(a1), f"{g}_end": rnd(g1)}
    ruled, missing = [], []
    if ctx.has("entropy"):
        ev["entropy_end"] = rnd(ctx.end("entropy"))
        if holds(ctx, "entropy_to_zero") and not (tr.rose and not tr.fell_back):
            return None  # entropy gone and no progress: that is a collapse
    else:
        missing.append("entropy")
    quotes: tuple[str, ...] = ()
    smp = ctx.samples
    if smp is not None and smp.steps:
        d1 = smp.late_diversity()
        ev["sample_diversity_end"] = rnd(d1, 3)
        ev["samples_all_right"] = rnd(smp.late_all_right(), 3)
        if d1 >= get("diversity_low"):
            quotes = smp.quote(late=True, all_right=True)
            ruled.append(ro("entropy_collapse", "samples", rnd(d1, 3), "samples_diverse"))
    else:
        missing.append("samples")
    # the lesson's table: the onset is where adv_std entered the band it ends in
    onset = ctx.crossing("adv_std", below={"info": get("adv_std_healthy"), "warning": get("adv_std_watch"),
                                           "critical": get("adv_std_stop")}[sev], first=True)
    conf = 0.7 + 0.1 * (g1 >= 0.5) + 0.1 * bool(quotes)
    return Finding(ID, sev, onset, ev, tuple(ruled), tuple(missing), action_for(ID), round(conf, 3), quotes)
