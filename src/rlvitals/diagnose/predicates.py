"""The named predicates every rule shares.

One "entropy healthy", one "ratio steady", one "goal improving" ... for every rule: a rule weighs
its hypothesis for and against with these, and the "ruled out" lines of every finding are computed
from the same predicates (differential.py), so a look-alike is ruled out with the normal metric that
excludes it and never when that look-alike is itself a finding of the run.  Which of KL and entropy
moved first is measured in timing.py.

    p = pred(ctx, "entropy_healthy")   # Pred(holds, metric, value)

The answer (`Pred`), the table and the memoised look-up (`pred`, `holds`) are in pred_core.py; the
entropy, ratio and goal predicates in preds_entropy_goal.py; the updates and KL predicates in
preds_kl_updates.py; those of the advantages, the truncation and the length here.  This module fills
`PREDICATES` and is the one to import from.
"""

from __future__ import annotations

import numpy as np

from .context import Ctx, rnd
from .pred_core import NO, PREDICATES, Pred, ends, holds, pred
from .preds_entropy_goal import (
    entropy_gone_no_progress,
    entropy_healthy,
    entropy_rising,
    entropy_running_up,
    entropy_to_zero,
    goal_improving,
    goal_not_zero,
    policy_narrowing,
    ratio_steady,
    reward_climbs_alone,
    reward_paid_in_length,
    reward_tracks_truth,
)
from .preds_kl_updates import (
    all_finite,
    clip_high,
    clip_normal,
    cut_undecided,
    entropy_with_kl_leaving,
    gnorm_high,
    gnorm_normal,
    kl_flattening,
    kl_follows_entropy,
    kl_jumped_at_cut,
    kl_lifted_by_updates,
    kl_moved_with_entropy,
    kl_sharpening,
    kl_steady,
    len_with_entropy_breaking,
    len_with_kl_breaking,
    length_term_jumped,
)
from .thresholds import get

__all__ = ["NO", "PREDICATES", "Pred", "holds", "pred"]


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


def finished_scored_alike(ctx: Ctx) -> Pred:
    """A material share of the answers finished (the truncation rate ends at or below 1 - trunc_high)
    and yet (nearly) no group has any reward spread (adv_std ends at or below adv_none): the answers
    that finished scored what the cut ones did, so the cap is not what keeps the reward down."""
    if not (ctx.logged("trunc") and ctx.logged("adv_std")):
        return Pred(False, "adv_std", None, False)
    a1 = ctx.end("adv_std")
    return Pred(ctx.end("trunc") <= 1 - get("trunc_high") and a1 <= get("adv_none"), "adv_std", rnd(a1))


def trunc_low(ctx: Ctx) -> Pred:
    """truncation rate ends below `trunc_high`."""
    if not ctx.logged("trunc"):
        return Pred(False, "trunc", None, False)
    t1 = ctx.end("trunc")
    return Pred(t1 < get("trunc_high"), "trunc", rnd(t1))


def answers_cut(ctx: Ctx) -> Pred:
    """truncation rate ends at or above `trunc_high`, or (no trunc) the length sits at its maximum on `len_pinned` of late steps."""
    if ctx.has("trunc"):
        t1 = ctx.end("trunc")
        return Pred(t1 >= get("trunc_high"), "trunc", rnd(t1))
    if ctx.logged("len"):
        _, v = ctx.data("len")
        if v.size >= 5:
            pinned = float(np.mean(v[int(0.7 * v.size) :] >= 0.98 * float(np.max(v))))
            if pinned >= get("len_pinned") and ctx.word("len") in ("constant", "flat", "rising", "spike"):
                return Pred(True, "len", f"{float(np.max(v)):g} (at the cap on {pinned:.0%} of late steps)")
        return Pred(False, "len", None)
    return Pred(False, "trunc", None, False)


def len_growth(ctx: Ctx) -> float:
    e = ends(ctx, "len")
    if e is None or not e[0] > 0:
        return float("nan")
    return e[1] / e[0]


def len_not_exploding(ctx: Ctx) -> Pred:
    """length grew less than `len_explode` times."""
    e = ends(ctx, "len")
    if e is None:
        return Pred(False, "len", None, False)
    g = len_growth(ctx)
    return Pred(not (g >= get("len_explode")), "len", f"{e[0]:.4g} → {e[1]:.4g}")


PREDICATES.update(
    {
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
        "finished_scored_alike": finished_scored_alike,
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
)
