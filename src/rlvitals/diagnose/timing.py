"""Which moved first, and how fast: the KL and entropy measures the differential rests on.

The lesson's rule for a pair of curves that both went wrong: the one that began first is the
cause (谁先动谁是因).  A KL that jumps within a few steps is a blow-up's; a KL that climbs while the
entropy slides down is what a sharpening policy costs; an entropy that drops at once after a steady
stretch is an update-scale event.  Each measure is computed once per diagnosis (cached on the Ctx)
and shared by kl_blowup, entropy_collapse, verdict.py and the predicates.  Every KL measure reads
the KL with its one-step spikes taken out first (`kl_clean`; outlier_step names them).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar, cast

import numpy as np

from ..stats import blocks
from .arith import EPS, robust_sd
from .context import Ctx
from .stretches import tail_excess
from .symptoms import covers, gap, per_point, trend
from .thresholds import get

__all__ = [
    "entropy_dropped_at_once",
    "entropy_flattening",
    "entropy_jump",
    "entropy_led_kl",
    "entropy_plunge_share",
    "entropy_run_up",
    "entropy_sharpening",
    "first_entropy",
    "flattening_ratio",
    "jump_window",
    "kl_clean",
    "kl_jump",
    "kl_rise_step",
    "kl_surge",
    "rolled",
    "sharpening_ratio",
]

R = TypeVar("R")


def _once(measure: Callable[[Ctx], R]) -> Callable[[Ctx], R]:
    """Compute a measure once per diagnosis, cached on the Ctx under its name (every rule that asks
    for it gets the same number)."""

    @functools.wraps(measure)
    def cached(ctx: Ctx) -> R:
        if measure.__name__ not in ctx._results:
            ctx._results[measure.__name__] = measure(ctx)
        return cast(R, ctx._results[measure.__name__])

    return cached


@_once
def kl_surge(ctx: Ctx) -> float:
    """Largest rise of (kl + kl_floor) within a fifth of the run (isolated spikes removed) to a level
    held over two blocks running: a surge is a level reached, and an excursion of a few steps that a
    spiky KL's handful rule left in (one block's median on a short log) reaches none."""
    s, v, _ = kl_clean(ctx)
    best = 1.0
    if v.size >= 10:
        _, x = blocks(s, v, 100)
        x = np.maximum(x, 0.0) + get("kl_floor")
        x = np.minimum(x[:-1], x[1:])  # each block's level with the next: the last block alone is no level yet
        w = max(1, x.size // 5)
        for i in range(x.size - 1):
            best = max(best, float(np.max(x[i + 1 : i + w + 1]) / x[i]))
    return best


def jump_window(t: np.ndarray, logged_every: float = 1.0) -> int:
    """`kl_jump_steps` in blocks (at least one) of the block steps `t`; one block more on a log written
    every few steps (`symptoms.gap` > 1): each point is its window's mean, so a change made within a few
    steps is spread over the two windows it straddles."""
    per = float(t[-1] - t[0]) / max(t.size - 1, 1) if t.size > 1 else 1.0
    return max(1, int(round(get("kl_jump_steps") / max(per, 1e-9)))) + (1 if logged_every > 1 else 0)


@_once
def kl_jump(ctx: Ctx) -> float:
    """Share of the KL's peak (one-step spikes removed, 100 blocks) gained within `kl_jump_steps`:
    near 1 when the KL jumped in a few steps (a blow-up), small when it climbed (in step with something else)."""
    s, v, _ = kl_clean(ctx)
    share = 0.0
    if v.size >= 10:
        t, x = blocks(s, v, 100)
        x = np.maximum(x, 0.0)
        w = jump_window(t, gap(ctx, "kl"))
        if x.size > w and float(np.max(x)) > 0:
            share = float(np.max(x[w:] - x[:-w]) / np.max(x))
    return share


def _entropy_move_share(ctx: Ctx, up: bool) -> float:
    """Share of the entropy's rise (up: first tenth to its peak) or fall (first tenth to its low),
    over 100 blocks, made within `kl_jump_steps`; 0 when it did not move that way."""
    s, v = ctx.data("entropy")
    share = 0.0
    if v.size >= 10:
        t, x = blocks(s, v, 100)
        w = jump_window(t, gap(ctx, "entropy"))
        first = float(np.mean(x[: max(1, x.size // 10)]))
        move = float(np.max(x)) - first if up else first - float(np.min(x))
        if x.size > w and move > 0:
            step = x[w:] - x[:-w] if up else x[:-w] - x[w:]
            share = float(np.max(step) / move)
    return share


@_once
def entropy_jump(ctx: Ctx) -> float:
    """Share of the entropy's rise (start to peak, 100 blocks) made within `kl_jump_steps`: near 1
    when the entropy leapt (to a uniform policy's ceiling), small when it drifted up; 0 when it did not rise."""
    return _entropy_move_share(ctx, up=True)


@_once
def kl_rise_step(ctx: Ctx) -> int | None:
    """Step where the KL (one-step spikes removed, 100 blocks) left its starting level for good, in orders of
    magnitude: log10(kl + a thousandth of its peak) past `kl_rise_start` of its way from the first tenth's level to
    the last tenth's (the block after the last one below).  None when the KL did not rise."""
    s, v, _ = kl_clean(ctx)
    out: int | None = None
    if v.size >= 10:
        t, x = blocks(s, v, 100)
        x = np.maximum(x, 0.0)
        y = np.log10(x + 1e-3 * float(np.max(x))) if float(np.max(x)) > 0 else x
        k = max(1, y.size // 10)
        a, b = float(np.median(y[:k])), float(np.median(y[-k:]))
        if b > a:
            below = np.nonzero(y < a + get("kl_rise_start") * (b - a))[0]
            out = int(t[min(int(below[-1]) + 1 if below.size else 0, t.size - 1)])
    return out


@_once
def entropy_plunge_share(ctx: Ctx) -> float:
    """Share of the entropy's fall (first tenth to its low, 100 blocks) made within `kl_jump_steps`: near 1 when
    the entropy dropped at once (an update-scale event), small when it slid down; 0 when it did not fall."""
    return _entropy_move_share(ctx, up=False)


def entropy_dropped_at_once(ctx: Ctx) -> bool:
    """The entropy made `entropy_at_once` of its fall within kl_jump_steps (`entropy_plunge_share`) after a
    steady stretch of `min_points` points or more (asked in steps on a sparse log, `symptoms.covers`): an
    update-scale event, a blow-up's.  A fall that began within the first min_points points has no steady
    level to have dropped from (in a 20-step prefix any fall is "within kl_jump_steps" of half the prefix)."""
    if entropy_plunge_share(ctx) < get("entropy_at_once"):
        return False
    began = ctx.crossing("entropy", get("entropy_fall_start"))
    s, _ = ctx.data("entropy")
    return began is not None and covers(int(np.searchsorted(s, began)), began - int(s[0]), get("min_points"))


def entropy_led_kl(ctx: Ctx) -> bool:
    """The entropy's fall (`entropy_fall_start` of its way down) began with the KL's rise (`kl_rise_step`), within
    `kl_jump_steps` of it (a fall that began long before a later KL rise -- a slow decline, then a run-away -- is
    not tied to it), and slid down rather than dropping at once (`entropy_dropped_at_once`: a drop in the same
    few steps as a KL jump, after a steady stretch, is one update-scale event, a blow-up's): of the
    pair, the entropy moved first (the lesson: the one that began first is the cause)."""
    tr = trend(ctx, "entropy") if ctx.has("kl") and ctx.has("entropy") else None
    if tr is None or not tr.end < tr.start:
        return False  # (an entropy that rose did not narrow the policy)
    k = kl_rise_step(ctx)
    e = ctx.crossing("entropy", get("entropy_fall_start"))
    return k is not None and e is not None and abs(e - k) <= get("kl_jump_steps") and not entropy_dropped_at_once(ctx)


def rolled(v: np.ndarray, w: int = 5) -> np.ndarray:
    """Trailing median of w points (the first w-1 over what there is): a level, not one step's noise."""
    if v.size < w:
        return np.array([float(np.median(v[: i + 1])) for i in range(v.size)])
    win = np.lib.stride_tricks.sliding_window_view(v, w)
    head = [float(np.median(v[: i + 1])) for i in range(w - 1)]
    return np.concatenate((head, np.median(win, axis=1)))


def first_entropy(ctx: Ctx) -> float:
    """The entropy at the first steps (median of the first 5 points): the reference's own, before any update."""
    return float(np.median(ctx.data("entropy")[1][:5]))


@_once
def flattening_ratio(ctx: Ctx) -> float | None:
    """The most the KL gained (since its first points) ran ahead of the entropy gained, over the points
    where the entropy (trailing 5-point medians, interpolated onto the KL's steps) stood a tenth or more
    above its first points; None without both metrics or when the entropy never rose that far.

    A policy that only flattened (pi = ref^b/Z, b < 1: an entropy bonus pushing it toward uniform) moves
    off the reference by less than the entropy it gained, so a KL within `kl_flatten` of the entropy's
    gain is the run-away's consequence; a blow-up leaves the reference first and by more."""
    if not (ctx.has("entropy") and ctx.has("kl")):
        return None
    s, v, _ = kl_clean(ctx)
    se, ve = ctx.data("entropy")
    out: float | None = None
    if v.size >= 5 and ve.size >= 5:
        e0 = first_entropy(ctx)
        gained = np.interp(s, se, rolled(ve)) - e0
        m = gained >= 0.1 * abs(e0)
        if m.any() and e0 > 0:
            k = rolled(v) - float(np.median(v[:5]))
            out = float(np.max(k[m] / gained[m]))
    return out


def entropy_flattening(ctx: Ctx) -> bool:
    """The entropy rose and the KL never ran ahead of its gain (`flattening_ratio` <= `kl_flatten`)."""
    r = flattening_ratio(ctx)
    return r is not None and r <= get("kl_flatten")


def sharpening_ratio(ctx: Ctx) -> float | None:
    """The most the KL ran ahead of the entropy lost: max, over the KL's points at kl_high or more (a
    level that matters; below it the entropy's own step noise is a fair share of what it lost), of
    kl / (entropy at the first points - entropy then), both as trailing 5-point medians (one-step KL
    spikes removed), the entropy interpolated onto the KL's steps.  None without entropy or a KL that
    never reached kl_high; inf when the KL was high while the entropy had lost nothing.

    A policy that only sharpened is no further from the reference than the entropy it lost: for
    pi = ref^b / Z with b >= 1, KL(pi||ref) = CE(pi, ref) - H(pi) <= H(ref) - H(pi) (the mass moves
    to tokens the reference already favoured, so CE(pi, ref) <= H(ref)).  A blow-up leaves the
    reference first and by more (the KL jumps before the entropy follows: RL loop x2-4 at the steps
    it jumps, sim x300); the rolled levels keep that lead visible for a few steps, where block
    medians over a long run would average it away."""
    if not ctx.has("entropy"):
        return None
    s, v, _ = kl_clean(ctx)
    k = rolled(v)
    m = k >= get("kl_high")
    se, ve = ctx.data("entropy")
    if not m.any() or ve.size == 0:
        return None
    lost = first_entropy(ctx) - np.interp(s[m], se, rolled(ve))
    if (lost <= 0).any():
        return float("inf")
    return float(np.max(k[m] / lost))


def entropy_sharpening(ctx: Ctx) -> bool:
    """The entropy fell, the KL never ran more than kl_sharpen times ahead of the entropy lost
    (sharpening_ratio), and the entropy slid rather than dropped at once (entropy_dropped_at_once): the KL
    is what the narrowing costs (谁先动谁是因), whether or not the entropy has passed half its level yet."""
    r = sharpening_ratio(ctx)
    return (
        r is not None
        and r <= get("kl_sharpen")
        and ctx.end("entropy") < first_entropy(ctx)
        and not entropy_dropped_at_once(ctx)
    )


def entropy_run_up(ctx: Ctx) -> float | None:
    """The entropy's last stretch (`clip_tail` of the span, at least 6 points) sits `entropy_bend`
    (relative) above its own line before, beyond `len_accel_z` standard errors: it is running up now.
    Returns that excess (0.25 = 25% over its trend), else None."""
    if not ctx.has("entropy"):
        return None
    t = tail_excess(ctx, "entropy", get("clip_tail"), log=True)
    if t is None or t[2] < get("len_accel_z") or float(np.expm1(t[1])) < get("entropy_bend"):
        return None
    return float(np.expm1(t[1]))


def kl_clean(ctx: Ctx) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """KL with isolated one-step spikes replaced by their neighbours' level, and the spike steps.

    A spike is a point far above both neighbours (more than kl_spike times their level, and
    spike_z robust sigmas) that is gone the next step: evidence of one outlier step, never a trend.
    More than a handful of them make a spiky KL: its level is its running median (SPIKY_WIDTH
    points), and the spikes are the points kl_spike times above that level.
    Two points far above the level either side and gone after them are one excursion too: a bad
    batch replayed, or on a log written every few steps a spike averaged into the two windows it
    straddles (as `excursions` reads them; there the ratio is `per_point(kl_spike)`)."""
    key = "kl_clean"
    if key in ctx._results:
        return cast("tuple[np.ndarray, np.ndarray, list[int]]", ctx._results[key])
    s, v = ctx.data("kl")
    spikes: list[int] = []
    if v.size >= 5:
        d = np.diff(v[:: max(1, v.size // 65536)])
        mad = robust_sd(d) or EPS
        windowed = gap(ctx, "kl") > 1
        ratio = per_point(ctx, "kl", get("kl_spike")) if windowed else get("kl_spike")
        runs = [(int(i), 1) for i in np.nonzero(_above(v[1:-1], v[:-2], v[2:], ratio, mad))[0] + 1]
        if v.size >= 6:
            pair = _above(np.minimum(v[1:-2], v[2:-1]), v[:-3], v[3:], ratio, mad)
            taken = {i for i, _ in runs}
            runs += [(int(i), 2) for i in np.nonzero(pair)[0] + 1 if i not in taken and i + 1 not in taken]
        # a handful of outliers (one straddling two windows is one): each replaced by its neighbours
        if runs and len(runs) <= max(3, v.size // 50):
            v = v.copy()
            for i, k in sorted(runs):
                v[i : i + k] = 0.5 * (v[i - 1] + v[i + k])
            spikes = sorted(int(s[i]) for i, _ in runs)
        elif runs and v.size >= 2 * SPIKY_WIDTH:
            # more than a handful: a spiky KL whose level is read through its spikes -- the running
            # median of SPIKY_WIDTH points keeps a level that holds (a blow-up, a step) and drops
            # excursions of up to two points, however many; the spikes are those excursions
            level = _running_median(v, SPIKY_WIDTH)
            far = (v > get("kl_spike") * np.maximum(np.abs(level), get("kl_floor"))) & (
                v - level > get("spike_z") * mad
            )
            if far.any() and np.count_nonzero(far) * 2 < v.size:
                spikes = [int(x) for x in s[far]]
                v = level
    ctx._results[key] = (s, v, spikes)
    return s, v, spikes


# the points a running median reads a level over: it drops an excursion of up to two points
SPIKY_WIDTH = 5


def _running_median(v: np.ndarray, width: int) -> np.ndarray:
    """Each point's median over the `width` points centred on it (the ends over the points they have)."""
    h = width // 2
    pad = np.concatenate((np.full(h, np.nan), v, np.full(h, np.nan)))
    return np.asarray(np.nanmedian(np.lib.stride_tricks.sliding_window_view(pad, width), axis=1), dtype=float)


def _above(mid: np.ndarray, left: np.ndarray, right: np.ndarray, ratio: float, mad: float) -> np.ndarray:
    """Where `mid` stands above both neighbours: `ratio` times their level (at least kl_floor) and
    spike_z robust sigmas, neither neighbour far below 0."""
    lo, hi = np.minimum(left, right), np.maximum(left, right)
    out: np.ndarray = (mid > ratio * np.maximum(np.abs(hi), get("kl_floor"))) & (mid - hi > get("spike_z") * mad)
    out &= lo >= -np.abs(hi)
    return out
