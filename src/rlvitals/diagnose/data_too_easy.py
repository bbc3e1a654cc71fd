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

ID = "data_too_easy"


def band(adv_std_end: float) -> str | None:
    """Severity for an end adv_std, per the lesson's table (None = healthy)."""
    if adv_std_end >= 0.8:
        return None
    if adv_std_end >= 0.5:
        return "info"
    if adv_std_end >= 0.2:
        return "warning"
    return "critical"


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("adv_std"):
        return None
    a0, a1 = ctx.start("adv_std"), ctx.end("adv_std")
    sev = band(a1)
    if sev is None or a1 > a0 - 0.05:
        return None
    goal = "acc" if ctx.has("acc") else "reward" if ctx.has("reward") else None
    if goal is None:
        return None
    g1 = ctx.end(goal)
    if g1 < 0.5:
        return None  # groups are not mostly right: easy data cannot be the cause
    ev = {"adv_std_start": rnd(a0), "adv_std_end": rnd(a1), f"{goal}_end": rnd(g1)}
    ruled, missing = [], []
    if ctx.has("entropy"):
        e0, e1 = ctx.start("entropy"), ctx.end("entropy")
        ev["entropy_end"] = rnd(e1)
        if e0 > 0 and e1 / e0 < 0.2 and not ctx.gained(goal, a=0.5):
            return None  # entropy gone and no progress: that is a collapse
        ruled.append(ro("entropy_collapse", "entropy", e1, "entropy_healthy"))
    else:
        missing.append("entropy")
    ruled.append(ro("data_too_hard", goal, g1, "acc_high"))
    quotes: tuple[str, ...] = ()
    smp = ctx.samples
    if smp is not None and smp.steps:
        d1 = smp.late_diversity()
        ev["sample_diversity_end"] = rnd(d1, 3)
        ev["samples_all_right"] = rnd(smp.late_all_right(), 3)
        if d1 >= 0.15:
            quotes = smp.quote(late=True, all_right=True)
            ruled.append(ro("entropy_collapse", "samples", rnd(d1, 3), "samples_diverse"))
    else:
        missing.append("samples")
    # the lesson's table: the onset is where adv_std entered the band it ends in
    onset = ctx.crossing("adv_std", below={"info": 0.8, "warning": 0.5, "critical": 0.2}[sev], first=True)
    conf = 0.7 + 0.1 * (g1 >= 0.5) + 0.1 * bool(quotes)
    return Finding(ID, sev, onset, ev, tuple(ruled), tuple(missing), action_for(ID), round(conf, 3), quotes)
