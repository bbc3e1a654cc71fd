"""The named predicates every rule shares.

One "entropy healthy", one "ratio steady", one "goal improving" ... for every rule: a rule weighs
its hypothesis for and against with these, and the "ruled out" lines of every finding are computed
from the same predicates (differential.py), so a look-alike is ruled out with the normal metric that
excludes it and never when that look-alike is itself a finding of the run.  Which of KL and entropy
moved first is measured in timing.py.

    p = pred(ctx, "entropy_healthy")   # Pred(holds, metric, value)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from .context import Ctx, rnd
from .materiality import learned_first, soft_first
from .stretches import aligned, spread, tail_excess
from .symptoms import goal, kl_clean, trend
from .thresholds import get
from .timing import (
    entropy_flattening,
    entropy_jump,
    entropy_led_kl,
    entropy_run_up,
    entropy_sharpening,
    kl_jump,
    kl_surge,
)

__all__ = ["PREDICATES", "Pred", "holds", "pred"]


@dataclass(frozen=True)
class Pred:
    """A predicate's answer: does it hold, and the metric/value a report shows for it."""

    holds: bool
    metric: str
    value: Any = None
    known: bool = True  # False when the deciding metric is missing (then `holds` is False)
    reason: str | None = None  # the i18n ruled-out reason when it is not the RULERS' one


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
    above its own line before, beyond `len_accel_z` standard errors: it is running up now
    (`timing.entropy_run_up`)."""
    if not ctx.has("entropy"):
        return Pred(False, "entropy", None, False)
    up = entropy_run_up(ctx)
    if up is not None:
        return Pred(True, "entropy", f"+{up:.0%} over its trend")
    t = tail_excess(ctx, "entropy", get("clip_tail"), log=True)
    return Pred(False, "entropy", f"+{np.expm1(t[1]):.0%} over its trend" if t is not None else None)


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
    from .symptoms import components

    if not ctx.has("reward"):
        return Pred(False, "reward", None, False)
    truths = [m for m in ("acc",) if ctx.has(m)]
    truths += [f"component:{k}" for k, (kind, _) in components(ctx).items() if kind == "correctness"]
    truths += [m for m in ("val_acc",) if ctx.has(m)]
    for t in truths:
        _, r, a = aligned(ctx, t)
        if r.size < 2 * get("truth_min_after"):
            continue
        # step by step: the reward's changes are the accuracy's (it is the verifier's score, give or
        # take a constant term) -- two climbs alone cannot say so, any two ramps look alike
        dr, da = np.diff(r), np.diff(a)
        if not (np.std(dr) > 0 and np.std(da) > 0):
            continue
        corr = float(np.corrcoef(dr, da)[0, 1])
        d = r / (spread(r) or 1.0) - a / (spread(a) or 1.0)
        k = max(3, d.size // 10)
        move = float(d[-k:].mean() - d[:k].mean())
        return Pred(
            corr >= get("track_corr") and move < get("hack_gap"),
            t[10:] if t.startswith("component:") else t,
            f"step-change correlation {corr:.2f}",
        )
    return Pred(False, "reward", None, False)


def reward_climbs_alone(ctx: Ctx) -> Pred:
    """The goal is not the reward, and the reward climbs clearly -- it rose, by more than three step-to-step
    noises and `reward_climb` of its start, still rising -- without only moving with the truth
    (`reward_tracks_truth`), and not through a format term learned first while the truth waits its
    turn (`materiality.learned_first`): something is being learned or gamed.  A format term learned
    first over a truth that stayed all wrong (`goal_not_zero` fails), with the groups now uniform
    (`groups_uniform`), is not that either: the format was all the groups had to teach, and the run is
    the data's question (data_too_hard), not the reward's.  Without adv_std the groups cannot be
    called uniform, and the climb stays the reward's."""
    g = goal(ctx)
    if g is None or g == "reward" or not ctx.has("reward"):
        return Pred(False, "reward", None, ctx.has("reward"))
    rw = trend(ctx, "reward")
    ok = (
        rw is not None
        and rw.rose
        and rw.move > 3 * rw.noise
        and ctx.gained("reward", rel=get("reward_climb"))
        and ctx.still_rising("reward", 0.0)
        and not holds(ctx, "reward_tracks_truth")
        and learned_first(ctx) is None  # a format term learned first carries it: no gaming yet
        and not (soft_first(ctx) is not None and not holds(ctx, "goal_not_zero") and holds(ctx, "groups_uniform"))
    )
    return Pred(ok, "reward", f"{rw.start:.4g} → {rw.end:.4g}" if rw is not None else None)


def reward_paid_in_length(ctx: Ctx) -> Pred:
    """Since the reward parted from the truth, the answers grew while the truth gained nothing
    (`reward_hacking.parted_through_length`): the reward is paid through length."""
    from .reward_hacking import parted_through_length

    return Pred(parted_through_length(ctx), "len", None, ctx.has("len"))


def entropy_gone_no_progress(ctx: Ctx) -> Pred:
    """`entropy_to_zero` holds and the goal is not improving (it did not rise, or fell back from its peak)."""
    g = goal(ctx)
    tr = trend(ctx, g) if g else None
    ok = holds(ctx, "entropy_to_zero") and not (tr is not None and tr.rose and not tr.fell_back)
    return Pred(ok, "entropy", pred(ctx, "entropy_to_zero").value, ctx.has("entropy"))


def policy_narrowing(ctx: Ctx) -> Pred:
    """The entropy fell, relatively, at least as far as adv_std with the answers below their ceiling
    (`data_too_easy.narrowing`): the groups turn uniform because the policy narrows (pair B)."""
    from .data_too_easy import narrowing

    return Pred(narrowing(ctx), "entropy", None, ctx.has("entropy"))


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
    bad = [
        m
        for m in ("loss", "gnorm", "kl", "reward", "entropy")
        if (s := ctx.series(m)) is not None and (~s.finite).any()
    ]
    metric = next((m for m in ("gnorm", "loss", "kl", "reward") if ctx.series(m) is not None), "reward")
    return Pred(not bad, metric, "finite" if not bad else "NaN/inf")


# -- KL -------------------------------------------------------------------------------------------
def kl_steady(ctx: Ctx) -> Pred:
    """KL (one-step spikes removed) neither surged `kl_surge` times within a fifth of the run nor ended above `kl_danger`."""
    if not ctx.has("kl"):
        return Pred(False, "kl", None, False)
    _, v, _ = kl_clean(ctx)
    k = max(1, v.size // 10)
    end = float(np.mean(v[-k:]))
    ok = kl_surge(ctx) < get("kl_surge") and end < get("kl_danger")
    return Pred(ok, "kl", rnd(end))


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


def kl_sharpening(ctx: Ctx) -> Pred:
    """The entropy fell and slid rather than dropped at once, and the KL never ran more than `kl_sharpen` times
    ahead of the entropy lost (`timing.entropy_sharpening`): the KL is what the narrowing costs."""
    if not ctx.has("kl") or not ctx.has("entropy"):
        return Pred(False, "kl", None, False)
    return Pred(entropy_sharpening(ctx), "kl")


def kl_flattening(ctx: Ctx) -> Pred:
    """The entropy rose and the KL never gained more than `kl_flatten` times the entropy's gain
    (`timing.entropy_flattening`): the KL is what the run-up costs."""
    if not ctx.has("kl") or not ctx.has("entropy"):
        return Pred(False, "kl", None, False)
    return Pred(entropy_flattening(ctx), "kl")


def _tenths(v: np.ndarray) -> float:
    """Median of the last tenth (at least 3 points) over the median of the tenth before (1.0 when too short)."""
    k = max(3, v.size // 10)
    if v.size < 2 * k:
        return 1.0
    before = float(np.median(v[-2 * k : -k]))
    return float(np.median(v[-k:])) / before if before > 0 else 1.0


def kl_lifted_by_updates(ctx: Ctx) -> Pred:
    """The KL is only taking off (`kl_blowup.only_taking_off`: no surge, not past `kl_danger`, not multiplying
    with the entropy) while the step size is up -- the clip fraction or the grad norm high, the updates growing
    (`updates.growing`), or either's last tenth `update_growth` times the tenth before: the learning rate's."""
    from .kl_blowup import only_taking_off

    if not ctx.has("kl"):
        return Pred(False, "kl", None, False)
    lifted = (
        holds(ctx, "clip_high")
        or holds(ctx, "gnorm_high")
        or _updates(ctx).growing
        or any(_tenths(ctx.data(m)[1]) >= get("update_growth") for m in ("clip_frac", "gnorm") if ctx.applicable(m))
    )
    return Pred(lifted and only_taking_off(ctx), "kl")


def kl_jumped_at_cut(ctx: Ctx) -> Pred:
    """The KL's median over the twentieth of the run after the truncation rate began its rise is `kl_fast`
    times (+ `kl_floor`) its median before (`truncation_starvation.kl_jumped_at_cut`): the policy broke away
    as the answers ran long."""
    from .truncation_starvation import kl_jumped_at_cut as jumped

    return Pred(jumped(ctx), "kl", None, ctx.has("kl"))


def length_term_jumped(ctx: Ctx) -> Pred:
    """The reward's parting from its truth is a logged length term jumping
    (`reward_hacking.length_term_carries`)."""
    from .reward_hacking import length_term_carries

    return Pred(length_term_carries(ctx), "reward", None, ctx.has("reward"))


def cut_undecided(ctx: Ctx) -> Pred:
    """The growing answers run into the cap and neither the reward paying for length nor growth past a
    flat truth before the cap decides the pair with truncation_starvation yet
    (`length_hacking.cut_undecided`)."""
    from .length_hacking import cut_undecided as undecided

    return Pred(undecided(ctx), "trunc", None, ctx.has("trunc"))


def len_with_kl_breaking(ctx: Ctx) -> Pred:
    """No whole-run length test fired and the KL's last stretch runs `kl_breaking` times above its own line
    (`length_hacking.breaking_away`): growing answers are the policy's break-up."""
    from .length_hacking import breaking_away

    return Pred(breaking_away(ctx, "kl"), "kl", None, ctx.has("kl"))


def len_with_entropy_breaking(ctx: Ctx) -> Pred:
    """No whole-run length test fired and the entropy's last stretch runs `len_accel` above its own line
    (`length_hacking.breaking_away`): growing answers are a flattening policy's rambling."""
    from .length_hacking import breaking_away

    return Pred(breaking_away(ctx, "entropy"), "entropy", None, ctx.has("entropy"))


def entropy_with_kl_leaving(ctx: Ctx) -> Pred:
    """Only entropy_explosion's on-the-way run-up test is asked, and the KL left its own line upward with it by
    more than the run-up costs (`entropy_explosion.kl_left_with_run_up`): the entropy may follow a blow-up."""
    from .entropy_explosion import kl_left_with_run_up

    return Pred(kl_left_with_run_up(ctx), "kl", None, ctx.has("kl"))


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


def groups_uniform(ctx: Ctx) -> Pred:
    """adv_std ends at or below `adv_std_healthy` - `adv_std_margin`: most groups score alike, so they
    carry little to learn from (data_too_hard asks it of an all-wrong goal)."""
    if not ctx.has("adv_std"):
        return Pred(False, "adv_std", None, False)
    a1 = ctx.end("adv_std")
    return Pred(a1 <= get("adv_std_healthy") - get("adv_std_margin"), "adv_std", rnd(a1))


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
            pinned = float(np.mean(v[int(0.7 * v.size) :] >= 0.98 * float(np.max(v))))
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
    "entropy_healthy": entropy_healthy,
    "entropy_to_zero": entropy_to_zero,
    "entropy_rising": entropy_rising,
    "entropy_running_up": entropy_running_up,
    "ratio_steady": ratio_steady,
    "goal_improving": goal_improving,
    "goal_not_zero": goal_not_zero,
    "reward_tracks_truth": reward_tracks_truth,
    "clip_normal": clip_normal,
    "clip_high": clip_high,
    "gnorm_normal": gnorm_normal,
    "gnorm_high": gnorm_high,
    "all_finite": all_finite,
    "kl_steady": kl_steady,
    "adv_std_normal": adv_std_normal,
    "groups_uniform": groups_uniform,
    "trunc_low": trunc_low,
    "answers_cut": answers_cut,
    "len_not_exploding": len_not_exploding,
    "kl_follows_entropy": kl_follows_entropy,
    "kl_moved_with_entropy": kl_moved_with_entropy,
    "kl_sharpening": kl_sharpening,
    "kl_flattening": kl_flattening,
    "kl_lifted_by_updates": kl_lifted_by_updates,
    "kl_jumped_at_cut": kl_jumped_at_cut,
    "reward_climbs_alone": reward_climbs_alone,
    "reward_paid_in_length": reward_paid_in_length,
    "entropy_gone_no_progress": entropy_gone_no_progress,
    "policy_narrowing": policy_narrowing,
    "cut_undecided": cut_undecided,
    "length_term_jumped": length_term_jumped,
    "len_with_kl_breaking": len_with_kl_breaking,
    "len_with_entropy_breaking": len_with_entropy_breaking,
    "entropy_with_kl_leaving": entropy_with_kl_leaving,
}


def pred(ctx: Ctx, name: str) -> Pred:
    key = f"pred:{name}"
    if key not in ctx._results:
        ctx._results[key] = PREDICATES[name](ctx)
    return cast(Pred, ctx._results[key])


def holds(ctx: Ctx, name: str) -> bool:
    return pred(ctx, name).holds
