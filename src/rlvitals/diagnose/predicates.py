"""The named predicates every rule shares, and the differential computed from them.

One "entropy healthy", one "ratio steady", one "goal improving" ... for every rule: a rule weighs
its hypothesis for and against with these, and the "ruled out" lines of every finding are computed
here from the same predicates, so a look-alike is ruled out with the normal metric that excludes it
and never when that look-alike is itself a finding of the run.

    p = pred(ctx, "entropy_healthy")   # Pred(holds, metric, value)
    differential(ctx, "sync_failure", fired={"sync_failure"})  # -> (ruled_out, missing)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .context import Ctx, rnd, ro
from .model import RuledOut
from .symptoms import covers, gap, goal, kl_clean, trend
from .thresholds import get

__all__ = ["LOOKALIKES", "PREDICATES", "Pred", "differential", "holds", "pred"]


@dataclass(frozen=True)
class Pred:
    """A predicate's answer: does it hold, and the metric/value a report shows for it."""

    holds: bool
    metric: str
    value: Any = None
    known: bool = True      # False when the deciding metric is missing (then `holds` is False)
    reason: str | None = None   # the i18n ruled-out reason when it is not the RULERS' one


NO = Pred(False, "", None, False)


def _ends(ctx: Ctx, m: str) -> tuple[float, float] | None:
    tr = trend(ctx, m) if ctx.has(m) else None
    return (tr.start, tr.end) if tr is not None else None


# -- entropy --------------------------------------------------------------------------------------
def entropy_healthy(ctx: Ctx) -> Pred:
    """entropy ends above `entropy_healthy` of its start and below `entropy_rise` times it: far from 0, not running away."""
    e = _ends(ctx, "entropy")
    if e is None:
        return Pred(False, "entropy", None, False)
    e0, e1 = e
    ok = e0 > 0 and e1 / e0 > get("entropy_healthy") and e1 / e0 < get("entropy_rise")
    return Pred(ok, "entropy", rnd(e1))


def entropy_to_zero(ctx: Ctx) -> Pred:
    """entropy ends below (1 - `entropy_drop`) of its start and has not really recovered (back above twice its low and by a tenth of its start)."""
    e = _ends(ctx, "entropy")
    if e is None:
        return Pred(False, "entropy", None, False)
    e0, e1 = e
    tr = trend(ctx, "entropy")
    assert tr is not None
    # a late recovery must be real: back above twice its lowest level and by a tenth of its start
    # (a floor at 0.004 flickering to 0.006 is still at 0)
    recovering = e1 > 2 * max(tr.trough, 0.0) and e1 - tr.trough > 0.1 * e0 and ctx.gained("entropy", rel=0.0, a=0.6)
    ok = e0 > 0 and e1 >= 0 and 1 - e1 / e0 >= get("entropy_drop") and not recovering
    return Pred(ok, "entropy", f"{e0:.3g} → {e1:.3g}")


def entropy_rising(ctx: Ctx) -> Pred:
    """entropy ends at least `entropy_rise` times its start."""
    e = _ends(ctx, "entropy")
    if e is None:
        return Pred(False, "entropy", None, False)
    e0, e1 = e
    return Pred(e0 > 0 and e1 / e0 >= get("entropy_rise"), "entropy", rnd(e1))


def entropy_running_up(ctx: Ctx) -> Pred:
    """entropy's last stretch (`clip_tail` of the span, at least 6 points) sits `entropy_bend` (relative)
    above its own line before, beyond `len_accel_z` standard errors: it is running up now."""
    from .symptoms import tail_excess
    if not ctx.has("entropy"):
        return Pred(False, "entropy", None, False)
    t = tail_excess(ctx, "entropy", get("clip_tail"), log=True)
    ok = t is not None and t[2] >= get("len_accel_z") and float(np.exp(t[1])) - 1 >= get("entropy_bend")
    return Pred(ok, "entropy", f"+{np.expm1(t[1]):.0%} over its trend" if t is not None else None)


# -- ratio ----------------------------------------------------------------------------------------
def ratio_steady(ctx: Ctx) -> Pred:
    """ratio_mean (logged, not a proxy) ends within `ratio_tol` of 1."""
    s = ctx.series("ratio_mean")
    if s is None or s.proxy or not ctx.has("ratio_mean"):
        return Pred(False, "ratio_mean", None, ctx.has("ratio_mean"))
    r1 = ctx.end("ratio_mean")
    return Pred(abs(r1 - 1.0) < get("ratio_tol"), "ratio_mean", rnd(r1, 5))


# -- the goal -------------------------------------------------------------------------------------
def goal_improving(ctx: Ctx) -> Pred:
    """The goal (eval acc, acc, correctness term, reward) rose beyond `goal_z` standard errors (or kept most of a real peak)."""
    g = goal(ctx)
    tr = trend(ctx, g) if g else None
    if tr is None or g is None:
        return Pred(False, "goal", None, False)
    return Pred(tr.rose, g, f"{tr.start:.4g} → {tr.end:.4g}")


def reward_tracks_truth(ctx: Ctx) -> Pred:
    """The reward moves with the accuracy (training acc, else the correctness term, else eval acc):
    their step-to-step changes correlate at least `track_corr`, and, each scaled by its own 10-90%
    spread, their difference changes less than `hack_gap` from the first tenth to the last -- so a
    reward "climb" is the accuracy's own move (judged by the rate rules), not something else being
    learned or gamed."""
    from .reward_hacking import _aligned, _spread
    from .symptoms import components
    if not ctx.has("reward"):
        return Pred(False, "reward", None, False)
    truths = [m for m in ("acc",) if ctx.has(m)]
    truths += [f"component:{k}" for k, (kind, _) in components(ctx).items() if kind == "correctness"]
    truths += [m for m in ("val_acc",) if ctx.has(m)]
    for t in truths:
        _, r, a = _aligned(ctx, t)
        if r.size < 2 * get("truth_min_after"):
            continue
        # step by step: the reward's changes are the accuracy's (it is the verifier's score, give or
        # take a constant term) -- two climbs alone cannot say so, any two ramps look alike
        dr, da = np.diff(r), np.diff(a)
        if not (np.std(dr) > 0 and np.std(da) > 0):
            continue
        corr = float(np.corrcoef(dr, da)[0, 1])
        d = r / (_spread(r) or 1.0) - a / (_spread(a) or 1.0)
        k = max(3, d.size // 10)
        move = float(d[-k:].mean() - d[:k].mean())
        return Pred(corr >= get("track_corr") and move < get("hack_gap"), t[10:] if t.startswith("component:") else t,
                    f"step-change correlation {corr:.2f}")
    return Pred(False, "reward", None, False)


def goal_not_zero(ctx: Ctx) -> Pred:
    """The goal (an accuracy) ends or peaks above `near_zero`: the questions are solvable.  A goal
    that peaked and then fell to near 0 shows its peak ("peaked at 48%"), never its end ("0%: is not
    near 0" would contradict itself)."""
    g = goal(ctx)
    if g is None or g == "reward":
        return Pred(False, g or "goal", None, False)
    tr = trend(ctx, g)
    if tr is None:
        return Pred(False, g, None, False)
    if tr.end <= get("near_zero") < tr.peak:
        return Pred(True, g, rnd(tr.peak), reason="acc_peaked")
    return Pred(max(tr.end, tr.peak) > get("near_zero"), g, rnd(tr.end))


# -- updates --------------------------------------------------------------------------------------
def _updates(ctx: Ctx) -> Any:
    from .updates import assess
    return assess(ctx)


def _level(held: bool, metric: str, value: float | None) -> Pred:
    """A predicate on a late update level (clip fraction, grad norm): known only when logged."""
    return Pred(held, metric, rnd(value) if value is not None else None, value is not None)


def clip_normal(ctx: Ctx) -> Pred:
    """late clip fraction below `clip_normal`."""
    u = _updates(ctx)
    return _level(u.clip_normal, "clip_frac", u.clip)


def clip_high(ctx: Ctx) -> Pred:
    """late clip fraction at or above `clip_high`."""
    u = _updates(ctx)
    return _level(u.clip_high, "clip_frac", u.clip)


def gnorm_normal(ctx: Ctx) -> Pred:
    """grad norm logged and not high (absolute, jumpy or climbing)."""
    u = _updates(ctx)
    return _level(u.gnorm_normal, "gnorm", u.gnorm)


def gnorm_high(ctx: Ctx) -> Pred:
    """grad norm above `gnorm_high`, jumpy (`gnorm_jitter`) or `gnorm_rise` times its start."""
    u = _updates(ctx)
    return _level(u.gnorm_high, "gnorm", u.gnorm)


def all_finite(ctx: Ctx) -> Pred:
    """No NaN or inf in loss, grad norm, KL, reward or entropy."""
    bad = [m for m in ("loss", "gnorm", "kl", "reward", "entropy") if (s := ctx.series(m)) is not None and (~s.finite).any()]
    metric = next((m for m in ("gnorm", "loss", "kl", "reward") if ctx.series(m) is not None), "reward")
    return Pred(not bad, metric, "finite" if not bad else "NaN/inf")


# -- KL -------------------------------------------------------------------------------------------
def kl_surge(ctx: Ctx) -> float:
    """Largest rise of (kl + kl_floor) within a fifth of the run (isolated spikes removed)."""
    key = "kl_surge"
    if key not in ctx._results:
        from ..shapes import blocks
        s, v, _ = kl_clean(ctx)
        best = 1.0
        if v.size >= 10:
            _, x = blocks(s, v, 100)
            x = np.maximum(x, 0.0) + get("kl_floor")
            w = max(1, x.size // 5)
            for i in range(x.size - 1):
                best = max(best, float(np.max(x[i + 1:i + w + 1]) / x[i]))
        ctx._results[key] = best
    return ctx._results[key]


def kl_steady(ctx: Ctx) -> Pred:
    """KL (one-step spikes removed) neither surged `kl_surge` times within a fifth of the run nor ended above `kl_danger`."""
    if not ctx.has("kl"):
        return Pred(False, "kl", None, False)
    _, v, _ = kl_clean(ctx)
    k = max(1, v.size // 10)
    end = float(np.mean(v[-k:]))
    ok = kl_surge(ctx) < get("kl_surge") and end < get("kl_danger")
    return Pred(ok, "kl", rnd(end))


def _window(t: np.ndarray, logged_every: float = 1.0) -> int:
    """`kl_jump_steps` in blocks (at least one) of the block steps `t`; one block more on a log written
    every few steps (`symptoms.gap` > 1): each point is its window's mean, so a change made within a few
    steps is spread over the two windows it straddles."""
    per = float(t[-1] - t[0]) / max(t.size - 1, 1) if t.size > 1 else 1.0
    return max(1, int(round(get("kl_jump_steps") / max(per, 1e-9)))) + (1 if logged_every > 1 else 0)


def kl_jump(ctx: Ctx) -> float:
    """Share of the KL's peak (one-step spikes removed, 100 blocks) gained within `kl_jump_steps`:
    near 1 when the KL jumped in a few steps (a blow-up), small when it climbed (in step with something else)."""
    key = "kl_jump"
    if key not in ctx._results:
        from ..shapes import blocks
        s, v, _ = kl_clean(ctx)
        share = 0.0
        if v.size >= 10:
            t, x = blocks(s, v, 100)
            x = np.maximum(x, 0.0)
            w = _window(t, gap(ctx, "kl"))
            if x.size > w and float(np.max(x)) > 0:
                share = float(np.max(x[w:] - x[:-w]) / np.max(x))
        ctx._results[key] = share
    return ctx._results[key]


def _entropy_move_share(ctx: Ctx, up: bool) -> float:
    """Share of the entropy's rise (up: first tenth to its peak) or fall (first tenth to its low),
    over 100 blocks, made within `kl_jump_steps`; 0 when it did not move that way."""
    key = "entropy_jump" if up else "entropy_plunge_share"
    if key not in ctx._results:
        from ..shapes import blocks
        s, v = ctx.data("entropy")
        share = 0.0
        if v.size >= 10:
            t, x = blocks(s, v, 100)
            w = _window(t, gap(ctx, "entropy"))
            first = float(np.mean(x[:max(1, x.size // 10)]))
            move = float(np.max(x)) - first if up else first - float(np.min(x))
            if x.size > w and move > 0:
                step = x[w:] - x[:-w] if up else x[:-w] - x[w:]
                share = float(np.max(step) / move)
        ctx._results[key] = share
    return ctx._results[key]


def entropy_jump(ctx: Ctx) -> float:
    """Share of the entropy's rise (start to peak, 100 blocks) made within `kl_jump_steps`: near 1
    when the entropy leapt (to a uniform policy's ceiling), small when it drifted up; 0 when it did not rise."""
    return _entropy_move_share(ctx, up=True)


def kl_rise_step(ctx: Ctx) -> int | None:
    """Step where the KL (one-step spikes removed, 100 blocks) left its starting level for good, in orders of
    magnitude: log10(kl + a thousandth of its peak) past `kl_rise_start` of its way from the first tenth's level to
    the last tenth's (the block after the last one below).  None when the KL did not rise."""
    key = "kl_rise_step"
    if key not in ctx._results:
        from ..shapes import blocks
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
        ctx._results[key] = out
    return ctx._results[key]


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
    ends = _ends(ctx, "entropy") if ctx.has("kl") else None
    if ends is None or not ends[1] < ends[0]:
        return False      # (an entropy that rose did not narrow the policy)
    k = kl_rise_step(ctx)
    e = ctx.crossing("entropy", get("entropy_fall_start"))
    return (k is not None and e is not None and abs(e - k) <= get("kl_jump_steps")
            and not entropy_dropped_at_once(ctx))


def kl_follows_entropy(ctx: Ctx) -> Pred:
    """KL climbed (no jump: `kl_jump` below `kl_abrupt`) while entropy fell past `entropy_half` of its start or rose
    `entropy_rise` times -- or the entropy itself leapt up `entropy_rise_fail` times, at least as abruptly as the KL
    (`entropy_jump` >= `entropy_leap` and >= `kl_jump`) -- or the entropy fell past `entropy_half` and its fall began
    with the KL's rise (`entropy_led_kl`), whatever the KL's speed: the policy sharpening (or flattening)
    moved it from the reference, the KL is a consequence."""
    if not ctx.has("kl"):
        return Pred(False, "kl", None, False)
    e = _ends(ctx, "entropy")
    if e is None:
        return Pred(False, "entropy", None, False)
    e0, e1 = e
    moved = e0 > 0 and e1 >= 0 and (1 - e1 / e0 >= get("entropy_half") or e1 / e0 >= get("entropy_rise"))
    j = kl_jump(ctx)
    k = _ends(ctx, "kl")
    shown = f"{k[0]:.3g} → {k[1]:.3g}" if k is not None else None
    if moved and j < get("kl_abrupt"):
        return Pred(True, "kl", shown)
    # sharpening first: the entropy fell past half and its fall had begun no later than the KL's
    # rise (谁先动谁是因) -- a KL that rose while the policy narrowed is the narrowing's, however fast
    if e0 > 0 and e1 >= 0 and 1 - e1 / e0 >= get("entropy_half") and entropy_led_kl(ctx):
        return Pred(True, "kl", shown)
    # the entropy leapt up (as abruptly as a KL jump) to well above its start: the policy flattened
    # at once and dragged the KL along in the same steps
    ej = entropy_jump(ctx)
    leapt = e0 > 0 and e1 / e0 >= get("entropy_rise_fail") and ej >= get("entropy_leap") and ej >= j
    return Pred(leapt, "kl", shown)


def kl_moved_with_entropy(ctx: Ctx) -> Pred:
    """The KL did move (not `kl_steady`) but `kl_follows_entropy`: the ruler a report shows for kl_blowup then
    (a steady KL is ruled out by kl_steady already; one line, not two)."""
    p = pred(ctx, "kl_follows_entropy")
    return Pred(p.holds and not pred(ctx, "kl_steady").holds, p.metric, p.value, p.known)


# -- advantages, truncation, length ---------------------------------------------------------------
def adv_std_normal(ctx: Ctx) -> Pred:
    """adv_std ends at or above `adv_std_watch`."""
    if not ctx.has("adv_std"):
        return Pred(False, "adv_std", None, False)
    a1 = ctx.end("adv_std")
    return Pred(a1 >= get("adv_std_watch"), "adv_std", rnd(a1))


def trunc_low(ctx: Ctx) -> Pred:
    """truncation rate ends below `trunc_high`."""
    if not ctx.has("trunc") and ctx.word("trunc") != "constant":
        return Pred(False, "trunc", None, False)
    t1 = ctx.end("trunc")
    return Pred(t1 < get("trunc_high"), "trunc", rnd(t1))


def answers_cut(ctx: Ctx) -> Pred:
    """truncation rate ends at or above `trunc_high`, or (no trunc) the length sits at its maximum on `len_pinned` of late steps."""
    if ctx.has("trunc"):
        t1 = ctx.end("trunc")
        return Pred(t1 >= get("trunc_high"), "trunc", rnd(t1))
    if ctx.has("len") or ctx.word("len") == "constant":
        _, v = ctx.data("len")
        if v.size >= 5:
            pinned = float(np.mean(v[int(0.7 * v.size):] >= 0.98 * float(np.max(v))))
            if pinned >= get("len_pinned") and ctx.word("len") in ("constant", "flat", "rising", "spike"):
                return Pred(True, "len", f"{float(np.max(v)):g} (at the cap on {pinned:.0%} of late steps)")
        return Pred(False, "len", None)
    return Pred(False, "trunc", None, False)


def len_growth(ctx: Ctx) -> float:
    e = _ends(ctx, "len")
    if e is None or not e[0] > 0:
        return float("nan")
    return e[1] / e[0]


def len_not_exploding(ctx: Ctx) -> Pred:
    """length grew less than `len_explode` times."""
    e = _ends(ctx, "len")
    if e is None:
        return Pred(False, "len", None, False)
    g = len_growth(ctx)
    return Pred(not (g >= get("len_explode")), "len", f"{e[0]:.4g} → {e[1]:.4g}")


PREDICATES: dict[str, Callable[[Ctx], Pred]] = {
    "entropy_healthy": entropy_healthy, "entropy_to_zero": entropy_to_zero, "entropy_rising": entropy_rising,
    "entropy_running_up": entropy_running_up,
    "ratio_steady": ratio_steady, "goal_improving": goal_improving, "goal_not_zero": goal_not_zero,
    "reward_tracks_truth": reward_tracks_truth,
    "clip_normal": clip_normal, "clip_high": clip_high, "gnorm_normal": gnorm_normal, "gnorm_high": gnorm_high,
    "all_finite": all_finite, "kl_steady": kl_steady, "adv_std_normal": adv_std_normal, "trunc_low": trunc_low,
    "answers_cut": answers_cut, "len_not_exploding": len_not_exploding,
    "kl_follows_entropy": kl_follows_entropy, "kl_moved_with_entropy": kl_moved_with_entropy,
}


def pred(ctx: Ctx, name: str) -> Pred:
    key = f"pred:{name}"
    if key not in ctx._results:
        ctx._results[key] = PREDICATES[name](ctx)
    return ctx._results[key]


def holds(ctx: Ctx, name: str) -> bool:
    return pred(ctx, name).holds


# For each look-alike: the predicates that rule it out (each that holds is listed) and the i18n
# reason shown with it.  The reason key is the predicate's name unless given.
RULERS: dict[str, tuple[tuple[str, str], ...]] = {
    "entropy_collapse": (("entropy_healthy", "entropy_healthy"),),
    "sync_failure": (("ratio_steady", "ratio_steady"),),
    "data_too_easy": (("adv_std_normal", "adv_std_normal"), ("entropy_to_zero", "entropy_to_zero")),
    "data_too_hard": (("answers_cut", "answers_cut"), ("goal_not_zero", "acc_not_zero")),
    "truncation_starvation": (("trunc_low", "trunc_low"),),
    "kl_blowup": (("kl_steady", "kl_steady"), ("kl_moved_with_entropy", "kl_follows_entropy")),
    "numeric_instability": (("all_finite", "all_finite"),),
    "lr_too_high": (("clip_normal", "clip_normal"), ("gnorm_normal", "gnorm_normal")),
    "batch_noise": (("clip_high", "clip_high"), ("gnorm_high", "gnorm_high")),
    "length_hacking": (("len_not_exploding", "len_not_exploding"),),
    "stalled": (("answers_cut", "answers_cut"), ("goal_improving", "goal_improving")),
    "reward_hacking": (),
    "entropy_explosion": (("entropy_healthy", "entropy_healthy"),),
    "not_learning": (("goal_improving", "goal_improving"),),
}

# The look-alikes each finding is told apart from (the lesson's confusable pairs and their kin).
LOOKALIKES: dict[str, tuple[str, ...]] = {
    "entropy_collapse": ("sync_failure", "data_too_easy", "kl_blowup"),
    "sync_failure": ("entropy_collapse", "data_too_easy"),
    "data_too_easy": ("entropy_collapse", "data_too_hard"),
    "data_too_hard": ("truncation_starvation", "entropy_collapse", "sync_failure"),
    "stalled": ("entropy_collapse", "sync_failure", "truncation_starvation", "kl_blowup"),
    "truncation_starvation": ("data_too_hard", "entropy_collapse", "stalled"),
    "reward_hacking": ("length_hacking", "kl_blowup", "numeric_instability"),
    "length_hacking": ("data_too_hard", "entropy_collapse", "entropy_explosion"),
    "kl_blowup": ("lr_too_high", "numeric_instability"),
    "lr_too_high": ("batch_noise", "numeric_instability"),
    "batch_noise": ("lr_too_high",),
    "numeric_instability": ("lr_too_high",),
    "entropy_explosion": ("kl_blowup",),
    "not_learning": ("entropy_collapse", "sync_failure", "data_too_hard", "truncation_starvation", "kl_blowup"),
    "plateau": ("entropy_collapse", "sync_failure", "stalled"),   # the lesson: 平掉 = converged, or stuck (A1 vs A2)
    "outlier_step": ("kl_blowup", "numeric_instability"),
}

# The metric that would decide a look-alike when it is missing.
DECIDES: dict[str, str] = {
    "entropy_collapse": "entropy", "sync_failure": "ratio_mean", "data_too_easy": "adv_std",
    "truncation_starvation": "trunc", "kl_blowup": "kl", "lr_too_high": "clip_frac", "length_hacking": "len",
    "data_too_hard": "acc", "entropy_explosion": "entropy",
}


def differential(ctx: Ctx, finding_id: str, fired: set[str]) -> tuple[tuple[RuledOut, ...], tuple[str, ...]]:
    """Ruled-out look-alikes (each with the predicate that excludes it) and the metrics that would decide the rest.

    A look-alike that fired itself (`fired`) is never listed as ruled out.
    """
    ruled: list[RuledOut] = []
    missing: list[str] = []
    for look in LOOKALIKES.get(finding_id, ()):
        if look in fired or look == finding_id:
            continue
        found = False
        for pname, reason in RULERS.get(look, ()):
            p = pred(ctx, pname)
            if p.holds:
                ruled.append(ro(look, p.metric, p.value, p.reason or reason))
                found = True
        if not found:
            m = DECIDES.get(look)
            if m is not None and not ctx.has(m) and m not in missing:
                missing.append(m)
    return tuple(ruled), tuple(missing)
