"""Symptoms first: one pass measures what each vital is doing, scale-free and by steps.

The lesson's method is "the symptom says something is wrong, the normal metrics say where".  This
module is the first half: for each logged vital a `Trend` -- its level at the start and the end of
the run (means over a tenth of the *step span*, so logging every 10th step reads the same), its
robust step-to-step noise (MAD of first differences: invariant to shifting the curve by a
constant, proportional to scaling it), how far it moved in noise standard errors (z), its
steadiness (Kendall's tau on block medians), its peak and where it sits now against that peak.
Nothing here depends on the absolute level of a reward, so a reward living in [-1, 1] and the
same reward shifted to [2, 7] give the same symptoms.

`goal(ctx)` picks the metric that says whether the run learns: eval accuracy when logged, else
training accuracy, else the correctness component of the reward, else the reward itself.  The
named predicates every rule shares (`predicates.py`) are built on these trends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from ..run import PERCENT_METRICS, Series, in_unit_range
from ..stats import kendall_tau
from .thresholds import get

if TYPE_CHECKING:
    from .context import Ctx

__all__ = [
    "Trend",
    "components",
    "covers",
    "excursions",
    "gap",
    "goal",
    "per_point",
    "trend",
    "window_mean",
    "window_spread",
]

WINDOW = 0.1  # the start/end windows: a tenth of the step span (and at least MIN_WINDOW points)
MIN_WINDOW = 3


@dataclass(frozen=True)
class Trend:
    """What one metric did over the run, measured by steps and against its own noise."""

    metric: str
    n: int  # finite points
    span: int  # steps from the first to the last finite point
    start: float  # mean of the first tenth of the step span
    end: float  # mean of the last tenth
    peak: float  # highest of up to 16 block medians
    trough: float  # lowest of them
    noise: float  # robust per-point noise (MAD of first differences / sqrt 2, or residual MAD)
    se: float  # standard error of end - start
    tau: float  # Kendall's tau of the block medians (steadiness, -1..1)
    rate: bool  # a fraction in [0, 1] (acc, trunc, clip_frac): moves are also judged in points
    fit_move: float = 0.0  # the least-squares line's change over the span
    fit_se: float = 0.0  # its standard error (from the noise)

    @property
    def move(self) -> float:
        return self.end - self.start

    @property
    def z(self) -> float:
        """end - start in standard errors of that difference."""
        return self.move / self.se if self.se > 0 else (np.sign(self.move) * np.inf if self.move else 0.0)

    def big(self, delta: float, z: float | None = None) -> bool:
        """Is a move of `delta` (positive) real: beyond goal_z standard errors and, for a rate, rate_move points?"""
        zz = get("goal_z") if z is None else z
        if delta <= zz * self.se:
            return False
        return not (self.rate and delta < get("rate_move"))

    @property
    def margin(self) -> float:
        """How far the highest of 16 noisy block medians sits above the level by chance alone
        (about 2.5 block-median sigmas): a peak must clear it to be a peak."""
        return 2.5 * 1.253 * self.noise / float(np.sqrt(max(1.0, self.n / 16)))

    def big_peak(self, delta: float) -> bool:
        return self.big(delta - self.margin)

    @property
    def rose(self) -> bool:
        """Went up for real: the end beyond the start (or, after a peak, kept most of the gain)."""
        if self.big(self.move) and self.tau > 0:
            return True
        gain = self.peak - self.start
        return self.big_peak(gain) and self.end - self.start >= 0.5 * gain and self.big(self.end - self.start, 2.0)

    @property
    def line_gain(self) -> float:
        """The fitted line's change as evidence of a gain: it reads every point, so it resolves a rise
        the two end windows cannot -- unless those windows resolve that the run ended below the line,
        by more than goal_z standard errors of their difference: a line through a dip and its way back
        climbs without the run having gained anything (0.14, down to 0.01, back to 0.14)."""
        if self.fit_move - self.move > get("goal_z") * self.se:
            return 0.0
        return self.fit_move

    @property
    def fell(self) -> bool:
        return self.big(-self.move) and self.tau < 0

    @property
    def fell_back(self) -> bool:
        """Rose to a peak, then gave a real part of it back (peaked and fell)."""
        gain, loss = self.peak - self.start, self.peak - self.end
        return self.big_peak(gain) and self.big_peak(loss) and loss >= 0.3 * gain

    @property
    def flat(self) -> bool:
        """Demonstrably still: `still`, and the fitted change plus two of its standard errors stays
        within one step-to-step noise (evidence of no move, not just no evidence of a move)."""
        return self.still and abs(self.fit_move) + 2 * self.fit_se < self.noise

    def enough(self, n_min: float) -> bool:
        """Enough data to judge: n_min points, or points that cover n_min steps (`covers`)."""
        return covers(self.n, self.span, n_min)

    @property
    def not_rising(self) -> bool:
        """Twice min_points (or steps covered), no real rise, and the fitted line does not go up at all
        (a slight drift down that is not yet a significant fall is not learning either)."""
        return self.enough(2 * get("min_points")) and not self.rose and self.fit_move <= 0

    @property
    def still(self) -> bool:
        """Enough points and no evidence of a move: the fitted line's change within 2.5 standard
        errors, the window means within goal_z, no steady trend, no real peak or trough."""
        return self.still_over(get("min_points"))

    def still_over(self, n_min: float) -> bool:
        """`still`, asking for at least n_min points (or points covering n_min steps)."""
        if not self.enough(n_min) or self.rose or self.fell or self.fell_back:
            return False
        if self.noise == 0:
            return self.move == 0
        return (
            abs(self.fit_move) < 2.5 * self.fit_se
            and abs(self.move) < get("goal_z") * self.se
            and abs(self.tau) < 0.45
            and not self.big_peak(self.peak - self.start)
            and not self.big_peak(self.start - self.trough)
        )


def covers(n: int, span: float, n_min: float) -> bool:
    """Do n points over `span` steps hold enough data for a rule that asks for n_min?

    Rules count steps, not points: n_min points, or -- a log written every few steps, each point the
    mean of its window (TRL's logging_steps) -- points that stand for n_min steps (n times the mean
    step gap), at least `sparse_points` of them.  A dense log (a point a step) reads as before."""
    if n >= n_min:
        return True
    return n >= get("sparse_points") and n > 1 and span * n / (n - 1) >= n_min


def gap(ctx: Ctx, name: str) -> float:
    """The metric's typical step gap between logged points (1 for a point a step): the median gap."""
    key = f"gap:{name}"
    if key not in ctx._results:
        s, _ = ctx.data(name)
        d = np.diff(s[:: max(1, s.size // 65536)])
        ctx._results[key] = max(1.0, float(np.median(d))) if d.size else 1.0
    return cast(float, ctx._results[key])


def per_point(ctx: Ctx, name: str, ratio: float) -> float:
    """A one-step excursion of `ratio` times a metric's ordinary level as a logged point shows it.

    A log written every g steps carries each window's mean: one step at `ratio` times the level among
    g - 1 ordinary ones is a point at 1 + (ratio - 1) / g times it (a 30x gradient spike in a window of
    10 logs as 3.9x).  A point a step (g = 1) keeps the ratio."""
    return 1.0 + (ratio - 1.0) / gap(ctx, name)


# Metrics a trainer logging every N steps reports as the mean over the steps since its last log (TRL's
# GRPO metrics and the HF Trainer's loss).  The grad norm is not among them: the HF Trainer logs the
# norm of the step it logs at, so a sparse grad norm is a sample, its spikes full-size or unseen.
WINDOW_MEANS = frozenset(
    {"loss", "reward", "acc", "kl", "entropy", "len", "clip_frac", "trunc", "adv_std", "ratio_mean"}
)


def excursions(ctx: Ctx, name: str, a: np.ndarray, level: float, ratio: float) -> np.ndarray:
    """Which points of `a` (a metric's magnitudes) are excursions to `ratio` times `level` or more.

    A point a step must reach `ratio` x level.  On a log written every few steps a short excursion
    (one or two steps) is averaged into its window, so a run of at most two points standing above
    `per_point(ratio)` x level counts too when the points either side of it are back at the ordinary
    level (nearer it than that threshold, in orders of magnitude); a level that stays up (a climb, a
    run-away) is no window mean of a spike and must reach the full ratio.  Only for the metrics
    trainers average over their logging window (WINDOW_MEANS: not the grad norm, a sample)."""
    big = a >= ratio * level
    if name in WINDOW_MEANS and gap(ctx, name) > 1 and a.size:
        thr = per_point(ctx, name, ratio)
        hi = np.r_[False, a >= thr * level, False]
        calm = np.r_[True, a < float(np.sqrt(thr)) * level, True]  # the ends count as calm
        edges = np.flatnonzero(np.diff(hi.astype(np.int8)))
        for i, j in zip(edges[::2], edges[1::2]):
            if j - i <= 2 and calm[i] and calm[j + 1]:
                big[i:j] = True
    return big


def window_mean(s: np.ndarray, v: np.ndarray, a: float, b: float) -> tuple[float, int]:
    """Mean of the values whose steps lie in fractions [a, b] of the step span, and how many.

    At least MIN_WINDOW points are used (taken from the near end) so sparse logs still have a level.
    """
    n = v.size
    if n == 0:
        return float("nan"), 0
    s0, s1 = float(s[0]), float(s[-1])
    span = s1 - s0
    i = int(np.searchsorted(s, s0 + a * span, side="left"))
    j = int(np.searchsorted(s, s0 + b * span, side="right"))
    k = min(MIN_WINDOW, n)
    if j - i < k:
        if a <= 0.0:
            i, j = 0, max(j, k)
        elif b >= 1.0:
            i, j = min(i, n - k), n
        else:
            mid = (i + j) // 2
            i = max(0, min(mid - k // 2, n - k))
            j = i + k
    seg = v[i:j]
    if seg.size > 65536:
        seg = seg[:: seg.size // 65536]
    return float(seg.mean()), int(j - i)


def window_spread(s: np.ndarray, v: np.ndarray, a: float, b: float) -> float:
    """The spread of the values a `window_mean` averages, about their own straight line (a level's
    trend inside the window is not spread): what a heavy-tailed score's spikes add to that mean's
    error, which the step-to-step noise (robust by design) does not see."""
    n = v.size
    if n < 4:
        return 0.0
    s0, s1 = float(s[0]), float(s[-1])
    span = s1 - s0
    i = int(np.searchsorted(s, s0 + a * span, side="left"))
    j = int(np.searchsorted(s, s0 + b * span, side="right"))
    if j - i < 4:
        return 0.0
    x, y = s[i:j].astype(float), v[i:j]
    if y.size > 65536:
        x, y = x[:: y.size // 65536], y[:: y.size // 65536]
    x = x - x.mean()
    sxx = float(x @ x)
    res = y - y.mean() - (float(x @ (y - y.mean())) / sxx * x if sxx > 0 else 0.0)
    return float(np.sqrt(float(res @ res) / max(y.size - 2, 1)))


def _noise(ctx: Ctx, name: str, v: np.ndarray) -> float:
    sh = ctx.shapes.get(name)
    st = sh.stats if sh is not None else {}
    diff_noise = float(st.get("noise", 0.0))
    resid = float(st.get("resid_std", 0.0))
    if not st and v.size >= 3:
        d = np.diff(v[:: max(1, v.size // 65536)])
        diff_noise = float(1.4826 * np.median(np.abs(d - np.median(d))) / np.sqrt(2))
    # a smoothed (autocorrelated) log has small first differences but wanders: take the larger
    noise = max(diff_noise, resid)
    if noise == 0 and v.size >= 3:
        # most steps at one exact value (a reward of exactly 0 but for a few steps): the robust
        # estimate breaks down (over half the differences are 0), the plain one does not
        d = np.diff(v[:: max(1, v.size // 65536)])
        noise = float(np.std(d) / np.sqrt(2))
    return noise


def trend(ctx: Ctx, name: str) -> Trend | None:
    """The Trend of a metric (canonical, component or eval), cached on the context."""
    key = f"trend:{name}"
    if key in ctx._results:
        return cast("Trend | None", ctx._results[key])
    s, v = ctx.data(name)
    out = None
    if v.size >= 3:
        start, n1 = window_mean(s, v, 0.0, WINDOW)
        end, n2 = window_mean(s, v, 1.0 - WINDOW, 1.0)
        _, x = ctx.blocks(name, 16)
        noise = _noise(ctx, name, v)
        # each window mean's error from the spread of what it averages, at least the noise: spikes of
        # a heavy-tailed score do not make a lucky window "significant"
        sd1 = max(noise, window_spread(s, v, 0.0, WINDOW))
        sd2 = max(noise, window_spread(s, v, 1.0 - WINDOW, 1.0))
        se = float(np.sqrt(sd1 * sd1 / max(n1, 1) + sd2 * sd2 / max(n2, 1)))
        tau = kendall_tau(x)  # 0 under 3 blocks
        # a rate is a fraction in [0, 1]: an "acc" standing in for a correctness term that pays 2.0
        # (or -6..6) keeps its own units, and its ceiling is not a rate's
        rate = (name in PERCENT_METRICS or name.startswith("eval:")) and in_unit_range(v)
        k = max(1, v.size // 65536)
        ts, vs = s[::k].astype(float), v[::k]
        tc = ts - ts.mean()
        sxx = float((tc * tc).sum()) or 1.0
        slope = float((tc * (vs - vs.mean())).sum()) / sxx
        span = float(s[-1] - s[0])
        fit_se = noise / np.sqrt(sxx) * span * np.sqrt(k)
        out = Trend(
            name,
            int(v.size),
            int(span),
            start,
            end,
            float(np.max(x)),
            float(np.min(x)),
            noise,
            se,
            tau,
            rate,
            slope * span,
            float(fit_se),
        )
    ctx._results[key] = out
    return out


def components(ctx: Ctx) -> dict[str, tuple[str, Series]]:
    """Reward components the reader kept: name -> (kind, series); empty when there are none.

    Of several correctness terms, one that pays for the answer (some value above 0: a penalty named
    for the answer never is) and of those the one that scored on the most steps comes first, so that "the
    correctness term" (the goal, the truth the reward is held against) is it: a term behind a strict
    format gate (an exact `<answer>` block) scores 0 on every answer the gate turns away, while a
    lenient one beside it (the number in the answer) reads whether those answers are right."""
    key = "symptoms.components"
    if key in ctx._results:
        cached: dict[str, tuple[str, Series]] = ctx._results[key]
        return cached
    comps = getattr(ctx.run, "components", None) or {}
    kinds = getattr(ctx.run, "component_kinds", None) or {}
    out: dict[str, tuple[str, Series]] = {}
    for k, s in comps.items():
        if isinstance(s, Series) and len(s):
            out[k] = (kinds.get(k, "other"), s)
    correct = [k for k, (kind, _) in out.items() if kind == "correctness"]
    if len(correct) > 1:
        # Series.answer_rank, as the reader's goal; sorted is stable (reverse too): ties keep the log's order
        first = sorted(correct, key=lambda k: out[k][1].answer_rank, reverse=True)
        out = {**{k: out[k] for k in first}, **{k: v for k, v in out.items() if k not in first}}
    ctx._results[key] = out
    return out


def goal(ctx: Ctx) -> str | None:
    """The metric that says whether the run learns: eval acc, acc, the correctness term, the reward
    (the user's `--map goal=KEY`, kept by the reader in `run.meta["goal"]`, first)."""
    chosen = (getattr(ctx.run, "meta", None) or {}).get("goal")
    if isinstance(chosen, dict) and chosen.get("by") == "user" and isinstance(chosen.get("metric"), str):
        if trend(ctx, chosen["metric"]) is not None:
            return str(chosen["metric"])
    for m in ("val_acc", "acc"):
        if ctx.logged(m):
            tr = trend(ctx, m)
            if tr is not None and tr.n >= 4:
                return m
    for k, (kind, _) in components(ctx).items():
        if kind == "correctness" and trend(ctx, f"component:{k}") is not None:
            return f"component:{k}"
    if ctx.logged("reward"):
        return "reward"
    return None
