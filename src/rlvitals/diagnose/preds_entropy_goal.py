"""The named predicates of the entropy, the ratio and the goal (the accuracy, and a reward that
climbs with it or alone): the families predicates.py collects into `PREDICATES`."""

from __future__ import annotations

import numpy as np

from .context import Ctx, rnd
from .materiality import learned_first, soft_first
from .pred_core import Pred, ends, holds, pred
from .stretches import aligned, spread, tail_excess
from .symptoms import goal, trend
from .thresholds import get
from .timing import entropy_run_up

__all__ = [
    "entropy_gone_no_progress",
    "entropy_healthy",
    "entropy_rising",
    "entropy_running_up",
    "entropy_to_zero",
    "goal_improving",
    "goal_not_zero",
    "policy_narrowing",
    "ratio_steady",
    "reward_climbs_alone",
    "reward_paid_in_length",
    "reward_tracks_truth",
]


# -- entropy --------------------------------------------------------------------------------------
def entropy_healthy(ctx: Ctx) -> Pred:
    """entropy ends above `entropy_healthy` of its start and below `entropy_rise` times it: far from 0, not
    running away -- and above `entropy_floor`: an entropy that began at 0 (a resumed run, an excerpt)
    and stayed there kept its start's share without being far from 0."""
    e = ends(ctx, "entropy")
    if e is None:
        return Pred(False, "entropy", None, False)
    e0, e1 = e
    ok = e0 > 0 and e1 / e0 > get("entropy_healthy") and e1 / e0 < get("entropy_rise") and e1 >= get("entropy_floor")
    return Pred(ok, "entropy", rnd(e1))


def entropy_to_zero(ctx: Ctx) -> Pred:
    """entropy ends below (1 - `entropy_drop`) of its start and has not really recovered (back above twice its low and by a tenth of its start)."""
    e = ends(ctx, "entropy")
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
    e = ends(ctx, "entropy")
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
