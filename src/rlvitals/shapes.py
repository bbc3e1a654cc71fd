"""Name a curve's shape in the lesson's small vocabulary.

    rising       缓升      gradual rise (less than two orders of magnitude: the lesson's healthy kl
                           goes 0.002 → 0.045, ×22, and is "缓慢上行")
    falling      缓降      gradual fall (ends above a tenth of its start)
    flat         平掉      no longer changing (converged or stuck); never a large relative move
    spike        陡增/暴涨  jumps by an order of magnitude within a few steps, or grows by two or
                           more orders of magnitude over the run (kl 0.004 → 18.6 is no 缓升)
    to_zero      趋近 0    falls to a tenth of its start or less (entropy 1.88 → 0.007); a negative
                           curve climbing toward 0 rises
    drift        单调偏离  a quantity that should stay put moves steadily one way (ratio_mean)
    oscillating  剧烈抖动  large back-and-forth around the trend
    constant     恒定      exactly the same value at every step (clip_frac 0 with one update per batch:
                           "not applicable", never "healthy")
    short        数据不足  too few points to say

O(n) in time and memory: the statistics that need pairs run on block medians (`stats.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .run import PERCENT_METRICS, Run, Series
from .stats import blocks, ends, hinge_onset, kendall_tau, step_noise, theil_sen

__all__ = [
    "STAY_PUT",
    "WORDS",
    "Shape",
    "blocks",
    "classify",
    "ends",
    "hinge_onset",
    "kendall_tau",
    "shapes_of",
    "step_noise",
    "theil_sen",
]

WORDS: tuple[str, ...] = ("rising", "falling", "flat", "spike", "to_zero", "drift", "oscillating", "constant", "short")
# Magnitude words: a rise of SURGE_TOTAL× or more over the run is a surge (陡增/暴涨) whatever its
# pace; a fall to TO_ZERO of the start or less is 趋近 0; a relative move of BIG_MOVE or more that is
# well above the noise is never "flat".
SURGE_TOTAL = 100.0
TO_ZERO = 0.1
BIG_MOVE = 0.25
# The one vital that should not move; any steady one-way movement of it is called out as drift.
STAY_PUT: frozenset[str] = frozenset({"ratio_mean"})
MIN_POINTS = 10
RATE_JUMP = 0.05  # rates are fractions: a spike must move one by at least 5 percentage points


@dataclass(frozen=True)
class Shape:
    """The word for a curve and the numbers behind it.

    start/end: robust level of the first and last tenth of the finite values (mean of each tenth).
    slope:     Theil-Sen-like trend per 100 steps.
    rel_change: (end - start) / max(|start|, scale floor).
    onset_step: where the named behaviour began (the spike, the drift, the flattening), if any.
    stats:     the other numbers the word was decided on (tau, noise ratio, spike z, ...).
    """

    metric: str
    word: str
    start: float
    end: float
    slope: float = 0.0
    rel_change: float = 0.0
    onset_step: int | None = None
    stats: dict[str, float] = field(default_factory=dict)


def _local_residual(steps: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """values minus a local baseline: block centres (16+ points each) joined by straight lines.

    Straight lines between block levels follow a steep but smooth fall (an entropy collapse)
    without calling it a spike, while a lone jump stays far from its block's level.  Used up to
    65,536 points; `_spike` has the linear-memory equivalent for longer runs.
    """
    n = values.size
    size = max(16, n // 4096)
    m = n // size
    if m < 2:
        # too short for two blocks: each point against the median of itself and its neighbours (the
        # ends against their own three): a steady fall stays on its line, a lone jump stands out
        base = np.full(n, float(np.median(values)))
        if n >= 3:
            mid = np.median(np.lib.stride_tricks.sliding_window_view(values, 3), axis=1)
            base = np.concatenate(([np.median(values[:3])], mid, [np.median(values[-3:])]))
        return values - base, base
    med = np.median(values[: m * size].reshape(m, size), axis=1)
    cen = steps[: m * size].reshape(m, size).mean(axis=1)
    base = np.interp(steps.astype(float), cen, med)
    return values - base, base


def _spike(steps: np.ndarray, v: np.ndarray, stride: int, fallback: float) -> tuple[int, float, float]:
    """(index, robust z, |value| / local level) of the point farthest from its local baseline.

    Up to 65,536 points: residuals to `_local_residual`.  Beyond, the same statistic without a
    full-size residual array: per block of 244+ points the largest distance from the block mean
    comes from the block's max and min (reductions over a reshaped view), and the MAD from a
    strided sample -- every point is still looked at once.
    """
    n = v.size
    if n <= 65536:
        loc, basev = _local_residual(steps, v)
        mad = float(1.4826 * np.median(np.abs(loc[::stride]))) or (fallback or 1e-12)
        z = np.abs(loc)
        zi = int(np.argmax(z))
        return zi, float(z[zi] / max(mad, 1e-12)), float(abs(v[zi]) / max(abs(basev[zi]), 1e-12))
    size = max(16, n // 4096)
    m = n // size
    view = v[: m * size].reshape(m, size)
    mean = view.mean(axis=1)
    far = np.maximum(view.max(axis=1) - mean, mean - view.min(axis=1))
    b = int(np.argmax(far))
    best = (b * size + int(np.argmax(np.abs(view[b] - mean[b]))), float(far[b]), float(mean[b]))
    if m * size < n:  # the tail shorter than a block is measured against the last block's mean
        tail = np.abs(v[m * size :] - mean[-1])
        j = int(np.argmax(tail))
        if tail[j] > best[1]:
            best = (m * size + j, float(tail[j]), float(mean[-1]))
    idx = np.arange(0, m * size, stride)
    mad = float(1.4826 * np.median(np.abs(v[idx] - mean[idx // size]))) or (fallback or 1e-12)
    zi, dist, base = best
    if zi < m * size:  # the block's level without the point itself (a spike lifts its own mean)
        base = (base * size - v[zi]) / (size - 1)
        dist = abs(v[zi] - base)
    return zi, dist / max(mad, 1e-12), float(abs(v[zi]) / max(abs(base), 1e-12))


def classify(series: Series) -> Shape:
    """The lesson's word for one curve, with the numbers it was decided on."""
    ok = series.finite
    nonfinite = int(ok.size - np.count_nonzero(ok))
    steps, v = (series.steps, series.values) if nonfinite == 0 else (series.steps[ok], series.values[ok])
    n = v.size
    if n == 0:
        return Shape(series.name, "short", float("nan"), float("nan"), stats={"n": 0.0, "nonfinite": float(nonfinite)})
    tenth = max(1, n // 10)
    start, end = ends(v)
    base = {"n": float(n), "nonfinite": float(nonfinite)}
    if np.all(v == v[0]):
        return Shape(series.name, "constant", start, end, stats=base)
    if n < MIN_POINTS:
        return Shape(series.name, "short", start, end, rel_change=_rel(start, end, v), stats=base)

    t, x = blocks(steps, v)
    tau = kendall_tau(x)
    slope = theil_sen(t, x)
    rel = _rel(start, end, v)
    level = float(np.median(np.abs(x))) or float(np.max(np.abs(v)))  # of the block medians: O(blocks)
    stride = max(1, n // 65536)  # pairs/residual statistics on a strided view of huge runs
    noise = step_noise(v, stride)
    # oscillation: residual around a smooth trend (block medians), relative to level and trend
    vs, ss = v[::stride], steps[::stride]
    resid = vs - np.interp(ss.astype(float), t, x)
    rstd = float(1.4826 * np.median(np.abs(resid - np.median(resid))))
    ac1 = _lag1(resid)
    # spike: robust z against a local baseline, and the jump relative to that baseline
    zi, spike_z, local_ratio = _spike(steps, v, stride, rstd)
    floor = max(level, 1e-12)
    peak_ratio = float(np.max(np.abs(v)) / floor)
    # an order of magnitude needs a baseline: a start within the noise of 0 (a score that begins
    # at -0.004 ± 0.08) is measured against the noise, or every rise from zero would be a surge
    surge_ratio = float(abs(end) / max(abs(start), noise, 1e-12))
    stats = dict(
        base,
        tau=tau,
        noise=noise,
        resid_std=rstd,
        resid_rel=rstd / floor,
        lag1=ac1,
        spike_z=spike_z,
        peak_ratio=peak_ratio,
        local_ratio=local_ratio,
        level=level,
    )
    per100 = slope * 100.0
    move = abs(end - start)

    # 1) a jump by an order of magnitude within a few steps (lone or sustained)
    # a rate (a fraction) must also jump by 5 points: 0.1% → 0.3% truncation is no 陡增
    big_enough = series.name not in PERCENT_METRICS or float(np.max(np.abs(v))) - abs(start) >= RATE_JUMP
    if spike_z >= 8 and local_ratio >= 5 and abs(v[zi]) >= 3 * floor and big_enough:
        return Shape(series.name, "spike", start, end, per100, rel, int(steps[zi]), stats)
    # a surge: an order of magnitude overall, most of it in the last quarter or in one step change
    late = float(np.median(np.abs(v[int(0.7 * n) : int(0.8 * n) + 1])))
    accel = abs(end) / max(late, 1e-12)
    stats["accel"] = accel
    # a move is "clear" of the noise when the two tenths' means differ by 4 standard errors of the
    # point-to-point scatter (plain std, not MAD: a mostly-zero curve with rare blips has MAD 0)
    clear = 4.0 * max(rstd, float(np.std(resid))) / np.sqrt(max(tenth, 1))
    big_move = series.name not in PERCENT_METRICS or move >= RATE_JUMP / 5  # a rate: 1 point at least
    if (
        surge_ratio >= 10
        and abs(end) > abs(start)
        and (accel >= 2.5 or _abrupt(t, x))
        and (series.name not in PERCENT_METRICS or abs(end - start) >= RATE_JUMP)
    ):
        k, _ = hinge_onset(t, np.log10(x) if np.all(x > 0) else x, "start")  # exponential → a line
        return Shape(series.name, "spike", start, end, per100, rel, int(t[k]), stats)
    # a rise by two orders of magnitude or more is never "slowly", however smooth
    if surge_ratio >= SURGE_TOTAL and abs(end) > abs(start) and big_move:
        k, _ = hinge_onset(t, np.log10(x) if np.all(x > 0) else x, "start")
        return Shape(series.name, "spike", start, end, per100, rel, int(t[k]), stats)
    # 1b) 趋近 0: a fall to a tenth of the start or less, well clear of the noise (a negative score
    #     climbing to near 0 rose: every reader of the word reads a loss)
    if start > 0 and 0 <= end <= TO_ZERO * start and move > clear and big_move:
        # the onset: where the curve fell a quarter of the way from its start toward 0 for good
        # (a level that then dies, a decay from the first step, a rise and then a crash: each gets
        # the step its fall became plain; a noisy dip that came back up does not count)
        down = (start - x) * np.sign(start) >= 0.25 * move
        k = int(down.size - np.argmax(~down[::-1])) if not down.all() else 0
        k = min(k, down.size - 1)
        return Shape(series.name, "to_zero", start, end, per100, rel, int(t[k]), stats)
    # 2) a stay-put quantity moving steadily one way
    if series.name in STAY_PUT:
        if abs(tau) >= 0.5 and move > max(4 * noise, 0.005):
            k, _ = hinge_onset(t, x, "start")
            return Shape(series.name, "drift", start, end, per100, rel, int(t[k]), stats)
    # 3) large back-and-forth around the trend, not explained by the trend itself
    if (
        stats["resid_rel"] >= 0.12
        and ac1 <= 0.3
        and rstd >= 0.35 * move
        and (series.name not in PERCENT_METRICS or rstd >= RATE_JUMP / 5)
    ):  # a rate: 1 point at least
        return Shape(series.name, "oscillating", start, end, per100, rel, None, stats)
    # 4) a trend that is steady (tau) and not small next to the noise and the level
    significant = move > max(3 * rstd / np.sqrt(max(tenth, 1)), 0.05 * floor)
    if significant and abs(rel) >= 0.05:
        k, fit = hinge_onset(t, x, "start")
        stats["hinge_fit"] = fit
        # steady all run (tau), or still for a while and then moving one way (a late ramp has a
        # low tau but a hinge that explains most of the variance)
        if abs(tau) >= 0.3 or (fit >= 0.8 and abs(rel) >= 0.2):
            word = "rising" if end > start else "falling"
            return Shape(series.name, word, start, end, per100, rel, int(t[k]) if k else None, stats)
        # or moved a long way early and then levelled off (the lesson's "缓升，后期趋平"): the
        # direction of the change is the word, not the flat tail that follows it
        if abs(rel) >= 0.2:
            k2, fit2 = hinge_onset(t, x, "stop")
            stats["stop_fit"] = fit2
            if fit2 >= 0.8:
                word = "rising" if end > start else "falling"
                return Shape(series.name, word, start, end, per100, rel, int(t[0]), stats)
        # a large move, clear of the noise, is never "flat" even when the path is ragged
        # (acc 26.7% → 42.4% beside a reward called rising)
        if abs(rel) >= BIG_MOVE and move > clear and big_move:
            word = "rising" if end > start else "falling"
            return Shape(series.name, word, start, end, per100, rel, int(t[k]) if k else None, stats)
    return Shape(series.name, "flat", start, end, per100, rel, None, stats)


def _abrupt(t: np.ndarray, x: np.ndarray) -> bool:
    """True when 80% of the total change happens within 10% of the run (a step, not a ramp)."""
    lo, hi = x[0], x[-1]
    if hi == lo:
        return False
    frac = (x - lo) / (hi - lo)
    a = t[np.argmax(frac >= 0.1)]
    b = t[np.argmax(frac >= 0.9)]
    return bool((b - a) <= 0.1 * (t[-1] - t[0]))


def _rel(start: float, end: float, v: np.ndarray) -> float:
    floor = max(abs(start), 1e-3 * max(float(np.max(np.abs(v))), 1e-12), 1e-12)
    return float((end - start) / floor)


def _lag1(r: np.ndarray) -> float:
    if r.size < 3:
        return 0.0
    a, b = r[:-1] - r[:-1].mean(), r[1:] - r[1:].mean()
    den = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / den) if den > 0 else 0.0


def shapes_of(run: Run) -> dict[str, Shape]:
    """Shape of every canonical series present in `run`."""
    return {name: classify(s) for name, s in run.series.items()}
