"""numeric_instability: NaN / inf, or a loss / grad norm exploding by orders of magnitude (dead).

A lone early grad-norm spike in an otherwise healthy run (the verl baseline: actor 66, critic
950) is not an explosion: the rule wants NaN/inf, or repeated points >= 100x the run's median,
or a level that keeps climbing (the verl FAQ: a rising grad_norm suggests a precision problem).
A KL below zero by more than noise means the estimator itself broke (rookworld) and counts too.

Before the first NaN (a prefix, as `watch` sees it) two things say the numbers are going: a logged
count of non-finite gradients above 0 (rlprobe's nan_count / inf_count: the optimizer skipped those
steps, the metrics stay finite), and a grad norm exploding while the update it drives does not grow
-- its last stretch `gnorm_rise` times above its own line (far beyond its noise) with the clip
fraction still on its line and below `clip_normal` (a too-high learning rate lifts both together:
lr_too_high), or `gnorm_explode` times above it when no clip fraction is logged -- and its median
above every level it reached before at two points at least (a lone spike sets no level; a grad norm
alternating between steps without reward spread, only the KL term's gradient, and ordinary steps
leaves its log line as the mix changes, not its range).  Each is a warning;
Repeated grad-norm spikes (`gnorm_spikes` points at `gnorm_spike` times its ordinary level: the
odd noisy batch spikes once or twice) warn too.  NaN/inf or the 100x explosion is critical; 100x
points that each came back (all later points under gnorm_explode x the median: evidence
`<metric>_back_after_each`) stopped: verdict._harm has the goal judge them (cleared only when it
gained a material amount after them).

One curve other than the loss non-finite at a step or two (nan_skips), finite at its level after
each and every other curve finite all along, is named as info: broken weights would leave every
later point NaN.  The grad norm's are steps a loss scaler skipped; another curve's (a KL averaged
over no tokens) could not be measured there.  A NaN loss is the update itself: never.

An optimizer that skipped its update (a logged flag or count: `update_skipped`, Megatron's skipped
iterations, an fp16 overflow) at skip_share or more of the points of the last half of the run, and
at min_points of them at least, is critical too (reading "skipped"): the weights barely moved,
whatever the curves of the samples say.

A general trainer's log (loss, grad norm, lr: no RL vital at all) has no other curve to judge by,
so two more things are read there.  A loss that turns and climbs back to `update_growth` times its
lowest level (16 block medians), still there at the end, is diverging: a warning from where it
turned.  A loss or grad-norm point `gnorm_rise` times above both neighbours and `spike_z` robust
sigmas out, gone the next step, is a spike: named as info (the run recovered; the verdict stays).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ingest.values import is_skip_flag
from ..run import VITALS
from . import confidence as C
from .actions import action_for
from .arith import EPS, HALF, robust_sd
from .context import Ctx, rnd
from .model import Finding
from .stretches import tail_excess
from .symptoms import excursions
from .thresholds import get

ID = "numeric_instability"
WATCH = ("loss", "gnorm", "kl", "reward", "entropy", "adv_std", "ratio_mean", "acc", "len", "clip_frac")
# framework keys that count non-finite gradients or values at a step (rlprobe: nan_count, inf_count)
COUNTS = ("nan_count", "inf_count", "grad_nan_count", "grad_inf_count", "nonfinite_count")


def _counted(ctx: Ctx) -> dict[str, tuple[int, int]]:
    """{key: (steps with a count above 0, first such step)} of the logged non-finite counters."""
    out: dict[str, tuple[int, int]] = {}
    for k in COUNTS:
        s = ctx.extra(k)
        if s is None or not len(s):
            continue
        hit = s.finite & (np.nan_to_num(s.values) > 0)
        if hit.any():
            out[k] = (int(hit.sum()), int(s.steps[np.argmax(hit)]))
    return out


def _skipped(ctx: Ctx) -> tuple[str, int, int, int] | None:
    """(key, points with an update skipped, points, first step of their stretch) when a logged flag or
    count of skipped updates (values.is_skip_flag) is above 0 at skip_share or more of its points over
    the last half of its steps, and at min_points of them or more: the optimizer refused most recent
    updates, so the weights barely moved.  A loss scaler's skips while it finds its scale are normal
    and stay unsaid: from fp16's usual 2**16 it reaches 1 in 16 halvings, fewer than min_points.  None
    otherwise."""
    for k, s in ctx.run.extras.items():
        if not is_skip_flag(k) or len(s) == 0:
            continue
        st, hit = s.steps, np.nan_to_num(s.values) > 0
        late = st >= st[0] + HALF * (st[-1] - st[0])
        n, m = int(hit[late].sum()), int(late.sum())
        if n < get("min_points") or n < get("skip_share") * m:
            continue
        i = int(np.argmax(late & hit))
        while i > 0 and hit[i - 1]:
            i -= 1  # back to the start of the stretch of skips it belongs to
        return k, n, m, int(st[i])
    return None


def _exploding(ctx: Ctx) -> tuple[int, float] | None:
    """(first step of the stretch, its grad norm over the line) when the grad norm explodes while the
    update does not grow (see the module doc); None otherwise."""
    if not ctx.has("gnorm"):
        return None
    gs, gv = ctx.data("gnorm")
    if not np.all(gv[gv.size // 2 :] > 0):
        return None  # a grad norm exactly 0 on some steps (no gradient there): no line to leave
    g = tail_excess(ctx, "gnorm", get("clip_tail"), log=True)
    if g is None or g[2] < get("len_accel_z"):
        return None
    before, tail = gv[gs < g[0]], gv[gs >= g[0]]
    # the highest level it had reached at two points at least (one lone spike sets no level)
    if before.size >= 2 and float(np.median(tail)) <= float(np.partition(before, -2)[-2]):
        return None  # back among its levels (a grad norm alternating between steps with no reward spread,
        # only the KL term's gradient, and ordinary ones leaves its log line, not its range)
    rise = float(np.exp(g[1]))
    if ctx.applicable("clip_frac"):
        c = tail_excess(ctx, "clip_frac", get("clip_tail"))
        _, cv = ctx.data("clip_frac")
        if c is None or c[2] >= get("goal_z") or float(np.median(cv[-6:])) >= get("clip_normal"):
            return None  # the update grows with it (the clip fraction rises, or is already high): not a grad norm outrunning its update
        need = get("gnorm_rise")
    else:
        need = get("gnorm_explode")
    return (g[0], rise) if rise >= need else None


def _base(a: np.ndarray) -> float | None:
    """The ordinary level of a magnitude (absolute values): the median of the first half's non-zero
    points, floored at magnitude_floor.  A grad norm that is 0 on most steps (no gradient at all, as
    in a collapsed run) must not make its ordinary non-zero steps look like explosions."""
    nz = a[: max(10, a.size // 2)]
    nz = nz[nz > 0]
    if nz.size < 3:
        nz = a[a > 0]
    if nz.size < 3:
        return None
    return max(float(np.median(nz)), get("magnitude_floor"))


def _spikes(ctx: Ctx) -> tuple[int, int] | None:
    """(grad-norm points at gnorm_spike x its ordinary level or more, the first one's step) when there
    are at least gnorm_spikes of them: repeated gradient spikes, not the odd noisy batch."""
    if not ctx.has("gnorm"):
        return None
    s, v = ctx.data("gnorm")
    a = np.abs(v)
    med = _base(a) if v.size >= 10 else None
    if med is None:
        return None
    big = excursions(ctx, "gnorm", a, med, get("gnorm_spike"))
    n = int(big.sum())
    return (n, int(s[np.argmax(big)])) if n >= get("gnorm_spikes") else None


def _explodes(ctx: Ctx, m: str) -> tuple[int, float, int | None, int | None]:
    """(points >= BLOWUP x median, peak / median, first such step, last such step) for a magnitude metric."""
    s, v = ctx.data(m)
    if v.size < 10:
        return 0, 0.0, None, None
    a = np.abs(v)
    med = _base(a)
    if med is None:
        return 0, 0.0, None, None
    big = excursions(ctx, m, a, med, get("gnorm_blowup"))
    n = int(big.sum())
    # once an explosion is confirmed, it began where the magnitude first left its range (10x)
    first = int(s[np.argmax(a >= 10 * med)]) if n else None
    last = int(s[np.flatnonzero(big)[-1]]) if n else None
    return n, float(a.max() / max(med, EPS)), first, last


def _came_back(ctx: Ctx, m: str, step: int) -> bool:
    """Points follow `step` and every one is back under gnorm_explode x the metric's median: the
    excursion at `step` was one step (or a few) that came back, not an explosion under way."""
    s, v = ctx.data(m)
    after = np.abs(v[s > step])
    med = _base(np.abs(v))
    return bool(after.size) and med is not None and bool(np.all(after < get("gnorm_explode") * med))


def _general(ctx: Ctx) -> bool:
    """A general trainer's log: loss / grad norm / lr, none of the RL vitals."""
    return not any(ctx.series(m) is not None for m in VITALS)


def _diverging(ctx: Ctx) -> tuple[int, float] | None:
    """(step where the loss turned, its end over its lowest level) when it climbs back to
    update_growth x its lowest block median and is there at the end; None otherwise."""
    s, v = ctx.data("loss")
    if v.size < get("min_points"):
        return None
    cs, x = ctx.blocks("loss", 16)
    if x.size < 4 or not np.all(x > 0):
        return None
    lo = int(np.argmin(x))
    end = float(np.median(v[-max(3, v.size // 10) :]))
    if lo >= x.size - 2 or end < get("update_growth") * float(x[lo]):
        return None
    return int(s[min(int(np.searchsorted(s, cs[lo])), s.size - 1)]), end / float(x[lo])


def _one_step_spikes(ctx: Ctx, m: str) -> tuple[int, int, float] | None:
    """(points, first step, highest ratio) of one-step spikes: gnorm_rise x both neighbours and
    spike_z robust sigmas above them, on a positive magnitude (a loss, a grad norm)."""
    s, v = ctx.data(m)
    if v.size < 5 or not np.all(v > 0):
        return None
    level = np.maximum(v[:-2], v[2:])
    d = np.diff(v)
    mad = robust_sd(d) or EPS
    hit = (v[1:-1] >= get("gnorm_rise") * level) & (v[1:-1] - level > get("spike_z") * mad)
    if not hit.any():
        return None
    i = np.flatnonzero(hit)
    return int(i.size), int(s[i[0] + 1]), float(np.max(v[1:-1][hit] / level[hit]))


def _general_finding(ctx: Ctx) -> Finding | None:
    """What a general trainer's log shows beyond NaN and 100x: a diverging loss, one-step spikes."""
    if ctx.has("loss"):
        div = _diverging(ctx)
        if div is not None:
            return Finding(
                ID,
                "warning",
                div[0],
                {"loss_end_over_lowest": rnd(div[1], 3), "loss_turned_at": div[0]},
                (),
                ("gnorm",) if not ctx.has("gnorm") else (),
                action_for(ID),
                C.FIRM,
            )
    ev: dict[str, Any] = {}
    onset = None
    for m in ("loss", "gnorm"):
        got = _one_step_spikes(ctx, m) if ctx.has(m) else None
        if got is not None:
            ev.update({f"{m}_spikes": got[0], f"{m}_spike_over_level": rnd(got[2], 3)})
            onset = got[1] if onset is None else min(onset, got[1])
    return Finding(ID, "info", onset, ev, (), (), action_for(ID), C.FAIR) if ev else None


def check(ctx: Ctx) -> Finding | None:
    ev: dict[str, Any] = {}
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
        n, ratio, st, last = _explodes(ctx, m)
        # st is None exactly when n == 0; a recent one is the explosion starting -- unless the points
        # after it are all back within gnorm_explode x the median: one step that came back is a spike
        if st is not None and (
            n >= 3
            or (
                st >= ctx.last_step() - get("explode_recent") * (ctx.last_step() - ctx.first_step())
                and not _came_back(ctx, m, st)
            )
        ):
            ev[f"{m}_peak_over_median"] = rnd(ratio, 3)
            ev[f"{m}_points_100x"] = n
            if last is not None and _came_back(ctx, m, last):
                ev[f"{m}_back_after_each"] = True  # finite excursions, each one back: steps, not a run-away
            onset = st if onset is None else min(onset, st)
    if ctx.has("kl"):
        _, kv = ctx.data("kl")
        neg = float(np.min(kv))
        lim = get("kl_negative")
        if neg < lim and neg < -10 * abs(float(np.median(kv))) and (kv < lim).sum() >= 3:
            ev["kl_min"] = rnd(neg)
            ev["kl_negative_points"] = int((kv < lim).sum())
    skipped = _skipped(ctx)
    if skipped is not None:
        ev.update(reading="skipped", skip_key=skipped[0], skipped_points=skipped[1], skip_window=skipped[2])
        onset = skipped[3] if onset is None else min(onset, skipped[3])
    sev = "critical"
    if not ev or (list(ev) == ["kl_min", "kl_negative_points"]):
        # no NaN in the curves yet: a counted non-finite gradient or an exploding grad norm warns
        counted, boom, spiky = _counted(ctx), _exploding(ctx), _spikes(ctx)
        if not counted and boom is None and spiky is None:
            return _general_finding(ctx) if _general(ctx) and not ev else None
        ev = {}
        if spiky is not None:
            ev["gnorm_spikes_30x"] = spiky[0]
            onset = spiky[1] if onset is None else min(onset, spiky[1])
        for k, (n, first) in counted.items():
            ev[f"{k}_steps"] = n
            onset = first if onset is None else min(onset, first)
        if counted and ctx.has("gnorm"):
            # the grad-norm spikes that came with them (gnorm_explode x its median): where the trouble began
            gs, gv = ctx.data("gnorm")
            spikes = np.abs(gv) >= get("gnorm_explode") * max(float(np.median(np.abs(gv))), EPS)
            if spikes.any():
                ev["gnorm_spikes_10x"] = int(spikes.sum())
                onset = min(onset if onset is not None else int(gs[-1]), int(gs[np.argmax(spikes)]))
        if boom is not None:
            ev["gnorm_over_trend"] = rnd(boom[1], 3)
            ev["clip_frac_now"] = (
                rnd(float(np.median(ctx.data("clip_frac")[1][-6:]))) if ctx.applicable("clip_frac") else None
            )
            onset = boom[0] if onset is None else min(onset, boom[0])
        sev = "warning"
    if ctx.has("gnorm"):  # the grad norm starts to climb before the first NaN: that is the onset
        g = ctx.crossing("gnorm", get("rise_start"), log=True)
        if g is not None and (onset is None or g < onset) and ctx.end("gnorm") > 10 * ctx.start("gnorm"):
            onset = g
    if len(ctx.run.segments) > 1:
        ev["segments"] = len(ctx.run.segments)
    missing = []
    if not ctx.has("gnorm"):
        missing.append("gnorm")
    if ctx.has("reward"):
        ev["reward_end"] = rnd(ctx.end("reward"))
    conf = C.CERTAIN if nonfinite else C.SURE if sev == "critical" else C.FIRM
    lone = _one_metric_glitch(ctx, nonfinite)
    if lone is not None and set(ev) <= {f"{lone}_nonfinite", "reward_end"}:
        # nothing but a step or two one curve could not measure: the run went on with finite numbers
        # (the verdict stays).  The grad norm's are steps a loss scaler skipped; another curve's, an
        # estimate taken over nothing that step (a KL averaged over no tokens)
        kind = "skipped" if lone == "gnorm" else "unmeasured"
        sev, ev[f"{lone}_{kind}_steps"] = "info", nonfinite[lone]
    return Finding(ID, sev, onset, ev, (), tuple(missing), action_for(ID), conf)


def _one_metric_glitch(ctx: Ctx, nonfinite: dict[str, int]) -> str | None:
    """The one curve, other than the loss, that was ever non-finite, when it was so at nan_skips steps
    or fewer -- or, not the grad norm, at lone points among finite ones, under half of them -- and
    after each came back finite at its ordinary level (under gnorm_explode x its median) for the rest
    of the run: had the weights broken, every curve after would be NaN too.  None otherwise."""
    if len(nonfinite) != 1 or "loss" in nonfinite:
        return None  # (a NaN loss is the update itself going NaN, not a curve that failed to measure)
    ((m, n),) = nonfinite.items()
    s = ctx.series(m)
    if s is None:
        return None
    bad = ~s.finite
    if n > get("nan_skips"):
        # more often: a measured curve (a KL over no tokens) whose every NaN stands alone among finite
        # points, a minority of them, failed to measure; a grad norm's recurring ones are an overflow
        # the loss scaler meets again and again
        if m == "gnorm" or bool(np.any(bad[1:] & bad[:-1])) or n >= HALF * bad.size:
            return None
    last_bad = int(s.steps[np.nonzero(bad)[0][-1]])
    back = int(np.sum(s.steps > last_bad)) >= get("nan_skips") and _came_back(ctx, m, last_bad)
    return m if back else None
