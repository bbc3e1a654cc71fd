"""How violent are the updates?  Shared by lr_too_high and batch_noise (lesson pair D).

D1: clip 1.1%, grad norm 0.8, batch 8 -> the jitter is observation noise.
D2: clip 41.9%, grad norm 6, batch 64 -> single updates are too big: lower the learning rate.
clip_frac identically 0 means one update per batch (not applicable): then only the grad norm
and the curves' own jitter can decide, and the finding says clip_frac was not applicable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from .context import Ctx
from .stretches import tail_excess
from .symptoms import trend
from .thresholds import get


@dataclass(frozen=True)
class Violence:
    clip: float | None  # clip_frac over the last 30% of the run (median), None when missing
    clip_na: bool  # logged but identically constant (one update per batch)
    gnorm: float | None  # grad norm over the last 30% (median), None when missing
    gnorm_rise: float | None  # that level / the first 30%'s level
    gnorm_jitter: float | None
    jitter_metric: str | None  # the curve that oscillates most (reward, acc, loss), if any
    jitter: float  # its step-to-step noise / the range of its trend (scale-free)
    clip_held: bool = False  # clip_frac held at or above clip_high beyond its own noise (see _held)
    clip_growth: float = 1.0  # the last stretch of clip_frac over its own line before (1 = on the line; see _growth)
    gnorm_growth: float = 1.0  # the same for the grad norm

    @property
    def growing(self) -> bool:
        """The step size is growing now: the clip fraction or the grad norm left its own line upward by
        `update_growth` times, far beyond its noise (a learning rate too high shows here before 20%)."""
        return max(self.clip_growth, self.gnorm_growth) >= get("update_growth")

    @property
    def clip_high(self) -> bool:
        """The lesson's clip > 20%, held over the late stretch (not a few noisy points at the end)."""
        return self.clip is not None and self.clip_held

    @property
    def clip_normal(self) -> bool:
        return self.clip is not None and self.clip < get("clip_normal")

    @property
    def gnorm_high(self) -> bool:
        return self.gnorm is not None and (
            self.gnorm >= get("gnorm_high")
            or (self.gnorm_jitter or 0) >= get("gnorm_jitter")
            or (self.gnorm_rise or 0) >= get("gnorm_rise")
        )

    @property
    def gnorm_moved(self) -> bool:
        """High against its own start or jumpy (gnorm_rise, gnorm_jitter): what a grad norm says on its
        own, with no clip fraction beside it -- its level alone depends on the model, the loss's
        normalisation and whether it is logged before clipping (healthy runs log 4 to 50,000)."""
        return self.gnorm is not None and (
            (self.gnorm_jitter or 0) >= get("gnorm_jitter") or (self.gnorm_rise or 0) >= get("gnorm_rise")
        )

    @property
    def gnorm_normal(self) -> bool:
        return self.gnorm is not None and not self.gnorm_high


def assess(ctx: Ctx) -> Violence:
    """How violent the updates are (computed once per diagnosis)."""
    if "updates" not in ctx._results:
        ctx._results["updates"] = _assess(ctx)
    return cast(Violence, ctx._results["updates"])


def _held(ctx: Ctx, noise: float) -> float | None:
    """The level of a clip fraction held at or above `clip_high`, or None.

    Held = on at least min_points points, a stretch at the end -- the last 30% of the points, or
    the last `clip_tail` of the step span (at least 6 points: a jump as `watch` sees it) -- whose
    median is at or above clip_high by more than goal_z standard errors of that median (the clip
    fraction's own step noise: a small batch's clip_frac flickers past 20% by chance).
    """
    s, v = ctx.data("clip_frac")
    if v.size < get("min_points"):
        return None
    cut = float(s[-1]) - get("clip_tail") * float(s[-1] - s[0])
    i_tail = min(int(np.searchsorted(s, cut, side="right")), v.size - 6)
    for i in (int(0.7 * v.size), i_tail):
        seg = v[i:]
        med = float(np.median(seg))
        if med - get("clip_high") >= get("goal_z") * 1.253 * noise / np.sqrt(seg.size):
            return med
    return None


def _growth(ctx: Ctx, name: str) -> float:
    """exp(excess of log(metric) on its last `clip_tail` stretch over the line before it -- the stretch's
    lower third, so most of it must be up: a jump one or two steps old is not yet a growth) when that
    excess is beyond len_accel_z standard errors; 1.0 otherwise (or when the metric is 0 on some late steps)."""
    _, v = ctx.data(name)
    if v.size < 2 * get("min_points") or not np.all(v[v.size // 2 :] > 0):
        return 1.0
    t = tail_excess(ctx, name, get("clip_tail"), log=True, q=1 / 3)
    return float(np.exp(t[1])) if t is not None and t[2] >= get("len_accel_z") else 1.0


def _late(ctx: Ctx, m: str) -> float:
    """A metric's late level: the median of its last 30% of points or of its last tenth, whichever is
    higher -- the tenth at least three points, so that on a short log one step just logged (a spike
    the next step may take back) is never the level on its own."""
    _, v = ctx.data(m)
    return max(ctx.window(m, 0.7, 1.0), float(np.median(v[-max(3, v.size // 10) :])))


def _early_gnorm(ctx: Ctx) -> float:
    """The grad norm's early level: the median of its first 30% of points -- of those above 0 when
    there are three or more.  A grad norm of exactly 0 is a step with no gradient at all (no group
    with a reward spread, the optimizer skipping the step): no level of the updates, as
    numeric_instability's ordinary level leaves it out too.  A run whose first tens of steps had
    nothing to learn from would otherwise read as a grad norm rising 30x once gradients flowed."""
    _, v = ctx.data("gnorm")
    head = v[: max(1, int(0.3 * v.size))]
    pos = head[head > 0]
    return float(np.median(pos)) if pos.size >= 3 else ctx.window("gnorm", 0.0, 0.3)


def _assess(ctx: Ctx) -> Violence:
    clip = None
    clip_held = False
    clip_na = "clip_frac" in ctx.shapes and ctx.word("clip_frac") == "constant"
    if ctx.applicable("clip_frac"):
        # late: a warm-up that overshoots shows up late (the last tenth of the steps, or the last
        # 30% of the points when that is higher: a long high stretch is as telling)
        ct = trend(ctx, "clip_frac")
        clip = _late(ctx, "clip_frac")  # medians, as for the grad norm below
        tail = _held(ctx, ct.noise if ct is not None else 0.0)
        clip_held = tail is not None
        if tail is not None:
            clip = max(clip, tail)
    gnorm = jit = rise = None
    if ctx.has("gnorm"):
        # medians: a jump one or two steps old must not lift the level (a mean of the last tenth would)
        gnorm = _late(ctx, "gnorm")
        early = _early_gnorm(ctx)
        rise = gnorm / early if early > 0 else None
        jit = float(ctx.shapes["gnorm"].stats.get("resid_rel", 0.0))
    best, best_j = None, 0.0
    for m in ("reward", "acc"):  # not the loss: a policy loss always jitters around 0
        if m not in ctx.shapes or not ctx.applicable(m):
            continue
        tr = trend(ctx, m)
        if tr is None or tr.n < get("min_points"):
            continue
        # noise next to the trend's own range: invariant to shifting or scaling the curve
        # (a curve at one value on most steps has block medians without a range: its values' range)
        span = tr.peak - tr.trough or float(np.ptp(ctx.data(m)[1]))
        j = tr.noise / max(span, 1e-12)
        noisy = j >= get("noisy") or (tr.rate and tr.noise >= get("noisy_rate"))
        if noisy and j > best_j:
            best, best_j = m, j
    cg = _growth(ctx, "clip_frac") if ctx.applicable("clip_frac") else 1.0
    gg = _growth(ctx, "gnorm") if ctx.has("gnorm") else 1.0
    return Violence(clip, clip_na, gnorm, rise, jit, best, best_j, clip_held, cg, gg)
