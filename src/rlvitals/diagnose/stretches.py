"""Measures over a stretch of a run: since a step, around it, the last stretch against its own line.

`symptoms.py` says what each vital did over the whole run (its `Trend`); the rules also ask what a
metric did from a step on (`since`, `around`), whether its last stretch leaves the line it followed
before (`tail_excess`: the on-the-way tests), how the eval follows the training accuracy
(`eval_lags`) and how the reward and a truth move on their common steps (`aligned`, `spread`).
All of it is judged against each metric's own noise, by steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .symptoms import Trend, trend
from .thresholds import get

if TYPE_CHECKING:
    from .context import Ctx

__all__ = ["aligned", "around", "eval_lags", "since", "spread", "tail_excess"]


def since(ctx: Ctx, name: str, step: int | None) -> tuple[float, float, float]:
    """(level at `step`, level now, change in noise standard errors) of a metric from `step` on.

    The levels are means of the first and the last fifth (at least 3 points) of the points from
    `step`; (nan, nan, 0) when fewer than 6 points follow it.
    """
    s, v = ctx.data(name)
    if step is None or v.size == 0:
        return float("nan"), float("nan"), 0.0
    seg = v[int(np.searchsorted(s, step)) :]
    if seg.size < 6:
        return float("nan"), float("nan"), 0.0
    k = max(3, seg.size // 5)
    a, b = float(seg[:k].mean()), float(seg[-k:].mean())
    tr = trend(ctx, name)
    noise = tr.noise if tr is not None and tr.noise > 0 else (float(np.std(seg)) or 1e-12)
    return a, b, (b - a) / (noise * float(np.sqrt(2.0 / k)))


def around(ctx: Ctx, name: str, step: int) -> tuple[float, float, int, Trend] | None:
    """(mean before, mean from `step` on, m, the metric's Trend): the m points from `step` on against the
    m points just before them (a stretch against the stretch of equal length before it).  None when
    fewer than 3 points follow `step`, fewer than m precede it, or the metric has no trend."""
    s, v = ctx.data(name)
    j = int(np.searchsorted(s, step))
    m = v.size - j
    tr = trend(ctx, name)
    if tr is None or m < 3 or j < m:
        return None
    return float(v[j - m : j].mean()), float(v[j:].mean()), m, tr


def eval_lags(ctx: Ctx) -> tuple[float, float] | None:
    """(training-acc gain, eval-acc gain) when the eval accuracy does not follow the training one.

    Both are accuracies on one scale, so they compare directly: the training accuracy gained at
    least 5 x rate_move and the eval accuracy less than `eval_follow` of that.  None otherwise.
    """
    if not (ctx.has("acc") and ctx.has("val_acc")):
        return None
    ta, ev = trend(ctx, "acc"), trend(ctx, "val_acc")
    if ta is None or ev is None or ev.n < 4 or not ta.rose:
        return None
    gt, ge = ta.end - ta.start, ev.end - ev.start
    if gt >= 5 * get("rate_move") and ge < get("eval_follow") * gt:
        return gt, ge
    return None


def tail_excess(
    ctx: Ctx, name: str, tail: float, *, log: bool = False, mean: bool = False, q: float = 0.5
) -> tuple[int, float, float] | None:
    """Does the last stretch of a metric leave the line it followed before? (one-sided, by steps)

    The stretch is the last `tail` of the step span (at least 6 points); a least-squares line is
    fitted to the points before it (the later half of them, at least min_points: the local trend)
    and extrapolated over the stretch.  Returns (first step of the stretch, the stretch's median
    excess over the line, that excess in standard errors: the residual MAD noise over the stretch's
    points plus the line's own extrapolation error).  With log=True the metric's log is used, so the
    excess is a relative one (0.1 = 10% above the trend).  mean=True takes the stretch's mean
    instead of its median: it sees a rise that began inside the stretch (a rate lagging the length
    it follows), at the cost of robustness to one outlier.  q < 0.5 takes that quantile of the
    stretch's excess instead of its median (most of the stretch must then sit above the line: a jump
    one or two steps old does not count yet).  None when there are too few points.
    """
    fit = _tail_fit(ctx, name, tail, log)
    if fit is None:
        return None
    s, v, i, j, xm, sxx, slope, ym, sd = fit
    m = v.size - j

    def line(t: np.ndarray) -> np.ndarray:
        out: np.ndarray = ym + slope * (t - xm)
        return out

    xt = s[j:].astype(float)
    d = v[j:] - line(xt)
    excess = float(np.mean(d) if mean else np.median(d) if q == 0.5 else np.quantile(d, q))
    eff = 1.0 if mean else 1.253**2  # the variance of a mean, or of a median (x pi/2), of m points
    se = sd * float(np.sqrt(eff / m + 1.0 / (j - i) + (float(xt.mean()) - xm) ** 2 / sxx))
    return int(s[j]), excess, excess / se


_TailFit = tuple[np.ndarray, np.ndarray, int, int, float, float, float, float, float]


def _tail_fit(ctx: Ctx, name: str, tail: float, log: bool) -> _TailFit | None:
    """tail_excess's line before the stretch and its residual noise, once per (metric, tail, log):
    several rules ask the same question of a curve, and at a million points the two medians of
    the residuals are most of its cost."""
    key = f"tail_fit:{name}:{tail!r}:{log}"
    if key in ctx._results:
        cached: _TailFit | None = ctx._results[key]
        return cached
    s, v = ctx.data(name)
    if log:
        keep = v > 0
        s, v = s[keep], np.log(v[keep])
    n = v.size
    out: _TailFit | None = None
    if n >= 2 * get("min_points"):
        cut = float(s[-1]) - tail * float(s[-1] - s[0])
        j = min(int(np.searchsorted(s, cut, side="right")), n - 6)
        m = n - j
        i = max(0, min(j // 2, j - int(get("min_points"))))
        if not (j - i < get("min_points") or j < 2 * m):
            x, y = s[i:j].astype(float), v[i:j]
            xm = float(x.mean())
            sxx = float(((x - xm) ** 2).sum()) or 1.0
            slope = float(((x - xm) * (y - y.mean())).sum()) / sxx
            ym = float(y.mean())
            res = y - (ym + slope * (x - xm))
            sd = float(1.4826 * np.median(np.abs(res - np.median(res)))) or float(np.std(res)) or 1e-12
            out = (s, v, i, j, xm, sxx, slope, ym, sd)
    ctx._results[key] = out
    return out


def spread(v: np.ndarray) -> float:
    """The 10-90% spread of a series: the scale reward and truth are each put on to be compared."""
    q = np.percentile(v, [10, 90])
    return float(q[1] - q[0])


def aligned(ctx: Ctx, truth: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps, reward, truth) on the truth's steps; the reward averaged over each truth interval."""
    sr, vr = ctx.data("reward")
    sa, va = ctx.data(truth)
    if sr.size == sa.size and np.array_equal(sr, sa):
        return sr, vr, va
    keep = (sa >= sr[0]) & (sa <= sr[-1])
    sa, va = sa[keep], va[keep]
    if sa.size == 0:
        return sa, va, va
    c = np.concatenate(([0.0], np.cumsum(vr)))
    hi = np.searchsorted(sr, sa, side="right")
    lo = np.concatenate(([0], hi[:-1]))
    lo = np.minimum(lo, hi - 1)
    r = (c[hi] - c[lo]) / np.maximum(hi - lo, 1)
    return sa, r, va
