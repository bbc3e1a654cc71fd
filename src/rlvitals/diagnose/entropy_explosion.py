"""entropy_explosion: entropy runs up and output turns to noise while the score falls (dead).

Entropy may rise healthily under an entropy bonus (a verl LoRA run: 0.13 → 0.26 while its score
rose); the rule wants a relative rise (entropy_rise_fail: x1.3; a uniform policy's ceiling can be only
x1.5 above a healthy start) AND the goal (or reward) giving ground from its peak (critical from entropy_rise: x1.6).
Below the lesson's absolute band (entropy_ok) only a rise of entropy_rise or more counts, and the
score must have given back most of its gain (low_entropy_loss), not dipped on a plateau: a reasoning
model whose entropy lives near 0.15 runs away at x5 to 0.75 without ever reaching the band.  Early (a
prefix): the entropy running up now (predicates.entropy_running_up) while the training score does not
gain over those steps is a warning.  When KL surges
first, kl_blowup owns the run (verdict.SUPPRESSES); when the entropy leapt with the KL, or the KL
climbed in step with it, the KL is its consequence (predicates.kl_follows_entropy, verdict.CHAINS).
An entropy running up on the way while the KL leaves its own line defers to kl_blowup
(registry.RELATIONS, `kl_left_with_run_up`): the detector reports the run-up only.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..stats import step_noise
from . import confidence as C
from .actions import action_for
from .arith import pair_se
from .context import Ctx, rnd
from .model import Finding
from .stretches import since, tail_excess
from .symptoms import goal
from .thresholds import get
from .timing import entropy_flattening, entropy_run_up

ID = "entropy_explosion"


def _running_up(ctx: Ctx) -> Finding | None:
    """Running up now (timing.entropy_run_up) while the training score (acc, else the reward:
    dense, unlike a sparse eval) does not gain over the same stretch (not goal_z above its own line).
    A KL that left its own line with it is a relation (`kl_left_with_run_up`), not this test's call."""
    up = entropy_run_up(ctx)
    if up is None:
        return None
    score = next((m for m in ("acc", "reward") if ctx.has(m)), None)
    t = tail_excess(ctx, score, get("clip_tail")) if score is not None else None
    if t is None or t[2] >= get("goal_z"):
        return None
    e = tail_excess(ctx, "entropy", get("clip_tail"), log=True)
    assert e is not None
    ev = {
        "entropy_now": rnd(float(np.median(ctx.data("entropy")[1][-6:]))),
        "entropy_over_trend": f"+{up:.0%} over its trend",
        f"{score}_vs_trend": rnd(t[1]),
    }
    return Finding(ID, "warning", e[0], ev, (), (), action_for(ID), C.FAIR)


def _early(ctx: Ctx) -> tuple[Finding | None, bool]:
    """On the way up: since entropy bent upward it rose beyond 2 x goal_z standard errors and by
    a tenth, while the goal fell beyond goal_z standard errors over the same steps.  (The finding,
    whether the run-up test is asked instead.)"""
    g = goal(ctx)
    if g is None or ctx.data("entropy")[1].size < get("min_points"):
        return None, False
    onset = ctx.onset("entropy", "bend", until_peak=True)
    ea, eb, ez = since(ctx, "entropy", onset)
    ga, gb, gz = since(ctx, g, onset)
    if not (ea > 0 and eb / ea >= get("bend_rise") and ez >= 2 * get("goal_z") and gz <= -get("goal_z")):
        return None, True
    return Finding(ID, "warning", onset, _evidence(ea, eb, g, ga, gb), (), (), action_for(ID), C.FAIR), False


def _evidence(e0: float, e1: float, g: str, peak: float, end: float) -> dict[str, Any]:
    """The entropy's start, end and rise beside the goal's peak and end: what every test fires on."""
    return {
        "entropy_start": rnd(e0),
        "entropy_end": rnd(e1),
        "entropy_rise": rnd(e1 / e0, 3),
        f"{g}_peak": rnd(peak),
        f"{g}_end": rnd(end),
    }


def check(ctx: Ctx) -> Finding | None:
    f, ask = _settled(ctx)
    return _running_up(ctx) if ask else f


def _settled(ctx: Ctx) -> tuple[Finding | None, bool]:
    """The whole-run or since-the-bend test's finding, and whether the on-the-way run-up test is asked
    instead (`_whole`), once per diagnosis."""
    key = "entropy_explosion.whole"
    if key not in ctx._results:
        ctx._results[key] = _whole(ctx)
    return cast("tuple[Finding | None, bool]", ctx._results[key])


def kl_left_with_run_up(ctx: Ctx) -> bool:
    """Only the on-the-way run-up test is asked (no whole-run or since-the-bend evidence), and over the
    same last stretch the KL left its own line upward (len_accel_z) by more than the run-up costs (not
    timing.entropy_flattening): the entropy may be following a KL blow-up (the lesson's "entropy 上升 =
    可能 KL 跑飞").  Who names that case is a relation (registry.RELATIONS), not this rule's call."""
    if not ctx.has("kl") or not ctx.has("entropy") or not _settled(ctx)[1]:
        return False
    k = tail_excess(ctx, "kl", get("clip_tail"), log=True)
    return k is not None and k[2] >= get("len_accel_z") and not entropy_flattening(ctx)


def _rise_z(ctx: Ctx) -> float:
    """The entropy's last tenth of points against its first tenth (at least 3 each), on a log scale,
    in standard errors of the difference (step_noise of the log): an entropy's wobble grows with its
    level, so a level that rose x5 is judged by the noise of the ratio, not by its high part's."""
    _, v = ctx.data("entropy")
    v = v[v > 0]
    k = max(3, v.size // 10)
    if v.size < 2 * k:
        return 0.0
    x = np.log(v)
    se = step_noise(x) * pair_se(k)
    move = float(np.mean(x[-k:]) - np.mean(x[:k]))
    return move / se if se > 0 else (np.inf if move > 0 else 0.0)


def _whole(ctx: Ctx) -> tuple[Finding | None, bool]:
    if not ctx.has("entropy"):
        return None, False
    e0, e1 = ctx.start("entropy"), ctx.end("entropy")
    low = e1 < get("entropy_ok")
    if not (e0 > 0) or (low and e1 / e0 < get("entropy_rise")):
        return None, False  # (rising but still below entropy_ok: an entropy bonus at work, not noise)
    # the rise must be beyond the entropy's own noise (`_rise_z`): a noisy entropy's last window a
    # spike above its first is no run-away; one whose level left for good is, whether its shape reads
    # rising, spike or oscillating (a per-step entropy of few samples wobbles by much of its level)
    if ctx.word("entropy") not in ("rising", "spike", "oscillating") or _rise_z(ctx) < get("goal_z"):
        return None, True
    if e1 / e0 < get("entropy_rise_fail"):
        return _early(ctx)
    goal, peak, g1 = None, float("nan"), float("nan")
    for g in ("acc", "val_acc", "reward"):
        if not ctx.has(g):
            continue
        p, e = ctx.peak(g), ctx.end(g)
        # the score gave ground: the tenth-of-run mean sits well below the best block
        se = get("goal_z") * ctx.noise(g) / np.sqrt(max(1, len(ctx.data(g)[1]) // 10))
        if p - e > max(get("score_drop") * abs(p), se) and not (
            low and p - e < get("low_entropy_loss") * max(p - ctx.start(g), 0.0)
        ):
            goal, peak, g1 = g, p, e
            break
    if goal is None:
        # (between entropy_rise_fail and entropy_rise the rise alone is no explosion: the goal must give ground)
        return _early(ctx) if e1 / e0 < get("entropy_rise") and not low else (None, False)
    ev = _evidence(e0, e1, goal, peak, g1)
    if ctx.has("kl"):
        ev["kl_end"] = rnd(ctx.end("kl"))
    onset = ctx.onset("entropy", "bend", until_peak=True)
    # below entropy_rise the run-away is real (the goal gave ground) but smaller: a warning
    sev = "critical" if e1 / e0 >= get("entropy_rise") else "warning"
    return Finding(ID, sev, onset, ev, (), (), action_for(ID), C.VERY_STRONG if sev == "critical" else C.FIRM), False
