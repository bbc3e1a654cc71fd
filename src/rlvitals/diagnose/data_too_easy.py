"""data_too_easy: adv_std falls because groups come back all-correct (lesson pair B1).

The lesson's adv_std table sets the severity: 0.8-1.2 healthy (silent), 0.5-0.8 watch (info),
0.3-0.5 change data / dynamic sampling (warning), < 0.2 stop burning GPU hours (critical).
The cause is told apart from entropy collapse by entropy (still far from 0 -- and, while accuracy
is below its ceiling, not falling faster, relatively, than adv_std itself: groups turning uniform
because the policy narrows are a collapse under way, pair B's 单调趋近 0) and accuracy (high), and
-- the lesson's most practical check -- by samples that differ but are all right.  The two entropy
readings are relations (registry.RELATIONS: data_too_easy defers to entropy_collapse while
`entropy_gone_no_progress` or `policy_narrowing` holds), not this detector's call.
When the run also logs the share of groups with zero reward spread (the mechanism itself), that
share read as adv_std ≈ √(1 − share) decides the band when the logged adv_std reads healthy (a
batch-normalised adv_std stays near 1 whatever the groups do).
A set too easy *from the start* never shows the fall: accuracy sits at its ceiling from the first
steps and adv_std starts below the healthy band.  The table's 0.5-0.8 is "normal late in a run"
(后期正常: groups turn uniform as the model learns); below the healthy band before anything was
learned, with most answers already right, the groups were uniform from the start -- the set is
too easy for this model (a warning: change the data), read as soon as the levels are beyond noise.
Groups turning uniform while the goal falls or gives back its gain are uniformly wrong, never
all right: a reward logged as 0.5 + 0.2 x score reads "mostly right" at 0.5 when every answer fails.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import confidence as C
from .actions import action_for
from .arith import TENTH
from .context import Ctx, rnd, ro
from .materiality import bounded_above_zero
from .model import Finding
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


ZERO_STD_KEYS = ("frac_reward_zero_std", "zero_variance_group_frac")


def _groups(ctx: Ctx) -> tuple[str, float, float, float, int | None] | None:
    """The mechanism measured directly: a logged share of groups whose rewards have zero spread
    (TRL frac_reward_zero_std, rlprobe zero_variance_group_frac), read through the same
    adv_std ≈ √(1 − share) the readers use when adv_std itself is missing.  Returns (key, share at
    the end, adv_std-equivalent at the start and the end, the step it entered the band it ends in),
    or None when no such key is logged with min_points points."""
    src = ctx.extra(*ZERO_STD_KEYS)
    adv = ctx.series("adv_std")
    if src is None or (adv is not None and adv.proxy):
        return None  # not logged, or already what adv_std is read from
    ok = np.isfinite(src.values)
    s, f = src.steps[ok], np.clip(src.values[ok], 0.0, 1.0)
    if f.size < get("min_points"):
        return None
    eq = np.sqrt(1.0 - f)
    k = max(3, f.size // 10)
    e0, e1 = float(eq[:k].mean()), float(eq[-k:].mean())
    sev = band(e1)
    if sev is None:
        return None
    cut = {"info": get("adv_std_healthy"), "warning": get("adv_std_watch"), "critical": get("adv_std_stop")}[sev]
    m = max(1, f.size // 40)  # block means, as the lesson reads a band off the smoothed curve
    nb = f.size // m
    x = eq[: nb * m].reshape(nb, m).mean(axis=1)
    past = np.nonzero(x < cut)[0]
    onset = int(s[past[0] * m]) if past.size else None
    return src.name, float(f[-k:].mean()), e0, e1, onset


def _easy_from_start(ctx: Ctx, g: str | None, a0: float) -> bool:
    """Easy from the first steps: the goal is an accuracy whose start level is at its ceiling, and
    adv_std's start level sits below the healthy band by more than goal_z standard errors of it
    (its own step noise over the start window's points) and has not risen since."""
    tg = trend(ctx, g) if g else None
    ta = trend(ctx, "adv_std")
    if tg is None or ta is None or not tg.rate or tg.start < get("ceiling") or ta.rose:
        return False
    n0 = max(3, int(round(ta.n * TENTH)))
    return get("adv_std_healthy") - a0 > get("goal_z") * ta.noise / float(np.sqrt(n0))


def _reading(ctx: Ctx) -> tuple[float, float, tuple[str, float, float, float, int | None] | None, str | None, bool]:
    """(adv_std at the start and the end -- or the zero-spread share's equivalents when adv_std reads healthy
    and the share says the groups degenerated --, that share's reading (`_groups`), the band the end is in
    (`band`), and whether the set was too easy from the first steps (`_easy_from_start`))."""
    a0, a1 = ctx.start("adv_std"), ctx.end("adv_std")
    grp = _groups(ctx) if band(a1) is None else None
    if grp is not None:
        a0, a1 = grp[2], grp[3]  # adv_std reads healthy, the direct measure says the groups degenerated
    sev = band(a1)
    from_start = sev is not None and grp is None and _easy_from_start(ctx, goal(ctx), a0)
    return a0, a1, grp, sev, from_start


def narrowing(ctx: Ctx) -> bool:
    """The groups turn uniform because the policy narrows (pair B, 单调趋近 0), not because the set is easy:
    the entropy fell, relatively, at least as far as adv_std did, while the answers (the training accuracy,
    else the goal) are below their `ceiling` and the set was not too easy from the first steps.  Who names
    that case is a relation (registry.RELATIONS), not this rule's call."""
    if not (ctx.has("adv_std") and ctx.has("entropy")):
        return False
    a0, a1, _, _, from_start = _reading(ctx)
    g = goal(ctx)
    tr = trend(ctx, g) if g else None
    et = trend(ctx, "entropy")
    ta = trend(ctx, "acc") if ctx.has("acc") else None  # the groups are training answers: their accuracy
    if tr is None:
        return False
    right = ta.end if ta is not None else tr.end
    return bool(
        not from_start
        and et is not None
        and et.fell
        and et.start > 0
        and a0 > 0
        and right < get("ceiling")
        and 1 - et.end / et.start >= 1 - a1 / a0
    )


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("adv_std"):
        return None
    a0, a1, grp, sev, from_start = _reading(ctx)
    g = goal(ctx)
    tr = trend(ctx, g) if g else None
    if from_start and sev == "info":
        sev = "warning"  # below the healthy band before anything was learned: not "normal late in a run"
    if sev is None or (a1 > a0 - get("adv_std_fall") and not from_start):
        return None
    if g is None or tr is None:
        return None
    g1 = tr.end
    if g1 < get("mostly_right") and not tr.rose:
        return None  # groups neither mostly right nor getting right: easy data cannot be the cause
    if abs(g1) < get("near_zero") and not bounded_above_zero(ctx, g):
        return None  # groups uniform at a score of ~0 are all wrong, not all right (data_too_hard's reading)
    if tr.fell or tr.fell_back:
        # groups turning uniform while the goal gives back what it had are turning uniformly wrong
        # (a collapse's, a blow-up's or starvation's reading), whatever the level: a reward logged as
        # 0.5 + 0.2 x score sits at 0.5 when every answer is wrong
        return None
    ev: dict[str, Any] = {"adv_std_start": rnd(a0), "adv_std_end": rnd(a1), f"{g}_end": rnd(g1)}
    ruled, missing = [], []
    if ctx.has("entropy"):
        ev["entropy_end"] = rnd(ctx.end("entropy"))
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
    if grp is not None:
        ev["zero_std_groups_end"] = rnd(grp[1], 3)
        ev["adv_std_from"] = grp[0]
        onset = grp[4]
    elif from_start:
        ev[f"{g}_start"] = rnd(tr.start)
        onset = ctx.first_step()
    else:
        onset = ctx.crossing(
            "adv_std",
            below={"info": get("adv_std_healthy"), "warning": get("adv_std_watch"), "critical": get("adv_std_stop")}[
                sev
            ],
            first=True,
        )
    conf = C.FIRM + C.SIGN * (g1 >= get("mostly_right")) + C.SIGN * bool(quotes)
    return Finding(ID, sev, onset, ev, tuple(ruled), tuple(missing), action_for(ID), round(conf, 3), quotes)
