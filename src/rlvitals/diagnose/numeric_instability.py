"""numeric_instability: NaN / inf, or a loss / grad norm exploding by orders of magnitude (dead).

A lone early grad-norm spike in an otherwise healthy run (the verl baseline: actor 66, critic
950) is not an explosion: the rule wants NaN/inf, or repeated points >= 100x the run's median,
or a level that keeps climbing (the verl FAQ: a rising grad_norm suggests a precision problem).
A KL below zero by more than noise means the estimator itself broke (rookworld) and counts too.
"""

from __future__ import annotations

import numpy as np

from .actions import action_for
from .context import Ctx, rnd
from .model import Finding
from .thresholds import get

ID = "numeric_instability"
WATCH = ("loss", "gnorm", "kl", "reward", "entropy", "adv_std", "ratio_mean", "acc", "len", "clip_frac")


def _explodes(ctx: Ctx, m: str) -> tuple[int, float, int | None]:
    """(points >= BLOWUP x median, peak / median, first such step) for a magnitude metric."""
    s, v = ctx.data(m)
    if v.size < 10:
        return 0, 0.0, None
    a = np.abs(v)
    # baseline from the non-zero values: a grad norm that is 0 on most steps (no gradient at all,
    # as in a collapsed run) must not make its ordinary non-zero steps look like explosions
    nz = a[: max(10, v.size // 2)]
    nz = nz[nz > 0]
    if nz.size < 3:
        nz = a[a > 0]
    if nz.size < 3:
        return 0, 0.0, None
    med = max(float(np.median(nz)), get("magnitude_floor"))
    big = a >= get("gnorm_blowup") * med
    n = int(big.sum())
    # once an explosion is confirmed, it began where the magnitude first left its range (10x)
    first = int(s[np.argmax(a >= 10 * med)]) if n else None
    return n, float(a.max() / max(med, 1e-12)), first


def check(ctx: Ctx) -> Finding | None:
    ev: dict = {}
    onset = None
    nonfinite = {}
    for m in WATCH:
        s = ctx.series(m)
        if s is not None:
            bad = ~s.finite
            if bad.any():
                nonfinite[m] = int(bad.sum())
                first = int(s.steps[np.argmax(bad)])
                onset = first if onset is None else min(onset, first)
    if nonfinite:
        ev.update({f"{m}_nonfinite": c for m, c in nonfinite.items()})
    for m in ("loss", "gnorm"):
        n, ratio, st = _explodes(ctx, m)
        # st is None exactly when n == 0
        if st is not None and (n >= 3 or st >= ctx.last_step() - 0.1 * (ctx.last_step() - ctx.first_step())):
            ev[f"{m}_peak_over_median"] = rnd(ratio, 3)
            ev[f"{m}_points_100x"] = n
            onset = st if onset is None else min(onset, st)
    if ctx.has("kl"):
        _, kv = ctx.data("kl")
        neg = float(np.min(kv))
        lim = get("kl_negative")
        if neg < lim and neg < -10 * abs(float(np.median(kv))) and (kv < lim).sum() >= 3:
            ev["kl_min"] = rnd(neg)
            ev["kl_negative_points"] = int((kv < lim).sum())
    if not ev or (list(ev) == ["kl_min", "kl_negative_points"]):
        return None
    if ctx.has("gnorm"):  # the grad norm starts to climb before the first NaN: that is the onset
        g = ctx.crossing("gnorm", 0.1, log=True)
        if g is not None and (onset is None or g < onset) and ctx.end("gnorm") > 10 * ctx.start("gnorm"):
            onset = g
    if len(ctx.run.segments) > 1:
        ev["segments"] = len(ctx.run.segments)
    missing = []
    if not ctx.has("gnorm"):
        missing.append("gnorm")
    if ctx.has("reward"):
        ev["reward_end"] = rnd(ctx.end("reward"))
    conf = 0.95 if nonfinite else 0.9
    return Finding(ID, "critical", onset, ev, (), tuple(missing), action_for(ID), conf)
