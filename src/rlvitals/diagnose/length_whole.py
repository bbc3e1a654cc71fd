"""length_hacking's whole-run tests: with the full picture, the answers grew while the truth did not
(`_whole`), a term nobody logged pays for length (`_paid`), or a logged length term rose while the
correctness term did not (`_paid_term`) -- and whether the growing answers already run into the cap
(`into_the_cap`), the pair with truncation_starvation.  The rule (`length_hacking.check`) asks
`whole_run` first and its on-the-way tests only when none of these fires.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..stats import blocks, step_noise
from . import confidence as C
from .actions import action_for
from .arith import EPS, pair_se
from .context import Ctx, rnd
from .lengths import log_rates
from .model import Finding
from .stretches import eval_lags, since, tail_excess
from .symptoms import components, goal, trend
from .thresholds import get

__all__ = ["into_the_cap", "whole_run"]

RULE = "length_hacking"  # the finding these tests report (its rule module: length_hacking.py)


def whole_run(ctx: Ctx) -> Finding | None:
    """The whole-run tests (`_whole`, `_paid`, `_paid_term`: the first that fires), once per diagnosis."""
    key = "length_hacking.whole"
    if key not in ctx._results:
        ctx._results[key] = _whole(ctx) or _paid(ctx) or _paid_term(ctx)
    return cast("Finding | None", ctx._results[key])


def into_the_cap(ctx: Ctx) -> int | None:
    """Over the last stretch (len_tail of the steps) the truncation rate's mean climbs above its own
    line (beyond goal_z standard errors; the mean, since the rate lags the length by a step or two
    and rises inside the stretch): the growing answers are already running into the cap.  That is
    the lesson's confusable pair -- length hacking or truncation starvation -- and what decides it
    is whether the reward collapses with the cut answers or rises with the length, which has not
    shown yet on the way up.  The on-the-way tests stand back (the whole-run test, and
    truncation_starvation's, read the reward).  Returns the first step of that stretch, or None."""
    te = tail_excess(ctx, "trunc", get("len_tail"), mean=True) if ctx.has("trunc") else None
    return te[0] if te is not None and te[1] > 0 and te[2] >= get("goal_z") else None


def _whole(ctx: Ctx) -> Finding | None:
    """Whole run: the answers grew len_growth_healthy times while the truth did not gain from where the
    growth began (or the eval accuracy lagged the training one), and hit the cap more often
    (trunc_rise) -- or exploded (len_explode) with the eval lagging or no trunc logged; with no
    accuracy, only an explosion running into the cap (trunc_high)."""
    ln = trend(ctx, "len")
    if ln is None or not ln.start > 0:
        return None
    l0, l1 = ln.start, ln.end
    growth = l1 / l0
    g = goal(ctx)
    if growth < get("len_growth_healthy") or ctx.word("len") not in ("rising", "spike", "oscillating"):
        return None
    onset = _growth_began(ctx)
    truth = g if g is not None and g != "reward" else None
    ev: dict[str, Any] = {"len_start": rnd(l0), "len_end": rnd(l1), "len_growth": rnd(growth, 3)}
    missing: list[str] = []
    trunc_up = None
    if ctx.has("trunc"):
        t0, t1 = ctx.start("trunc"), ctx.end("trunc")
        ev["trunc_start"], ev["trunc_end"] = rnd(t0), rnd(t1)
        trunc_up = t1 >= t0 + get("trunc_rise") or (
            t1 >= t0 + get("trunc_rise_exploding") * get("trunc_rise") and growth >= get("len_explode")
        )
    else:
        missing.append("trunc")
    if truth is not None:
        s, _ = ctx.data(truth)
        a = min(float(np.searchsorted(s, onset)) / max(s.size, 1), get("judge_from_max")) if onset is not None else 0.0
        tt = trend(ctx, truth)
        ev["acc_metric"] = truth
        ev["acc_start"], ev["acc_end"] = rnd(tt.start) if tt else None, rnd(tt.end) if tt else None
        lag = eval_lags(ctx)
        if lag is not None:
            ev["train_acc_gain"], ev["eval_acc_gain"] = rnd(lag[0]), rnd(lag[1])
        elif ctx.gained(truth, rel=get("len_truth_gain"), a=a) or _climbing_past(ctx, truth, a):
            return None  # pair C1: longer and more right (judged from where the growth began)
        clear = lag is not None and growth >= get("len_explode")  # exploding, and eval does not follow
        if trunc_up is False and not clear:
            return None  # longer, but barely hitting the cap more often: not (yet) an explosion
        if trunc_up is None and growth < get("len_explode"):
            return None  # without trunc, only a clear explosion is unambiguous
    else:
        missing.append("acc")
        # no accuracy: only the strong signal -- an explosion that runs into the cap
        if not (growth >= get("len_explode") and trunc_up and ctx.end("trunc") >= get("trunc_high")):
            return None
    if ctx.has("reward"):
        ev["reward_start"], ev["reward_end"] = rnd(ctx.start("reward")), rnd(ctx.end("reward"))
        # the pair with truncation_starvation: answers running into the cap, and too few reward
        # points since the growth began (min_points) to say the reward did not collapse with them
        sr, _ = ctx.data("reward")
        fresh = onset is None or sr.size - int(np.searchsorted(sr, onset)) < get("min_points")
        if fresh and into_the_cap(ctx) is not None:
            return None
    conf = min(1.0, C.FIRM + C.SIGN * (growth - get("len_growth_healthy")) + C.SIGN * bool(truth))
    return Finding(RULE, "warning", onset, ev, (), tuple(missing), action_for(RULE), round(conf, 3))


def _climbing_past(ctx: Ctx, truth: str, a: float) -> bool:
    """The truth is still climbing after fraction a (`Ctx.still_rising`) and its last tenth already
    stands above its tenth from a, beyond goal_z standard errors of the difference: on its way to
    the gain the longer answers bought.  A truth that dipped while the answers grew and is climbing
    back to where it stood has bought nothing yet."""
    if not ctx.still_rising(truth, a):
        return False
    _, v = ctx.data(truth)
    i, tenth = int(a * v.size), max(1, v.size // 10)
    rise = float(v[-tenth:].mean()) - float(v[i : i + tenth].mean())
    return rise > get("goal_z") * ctx.noise(truth) * pair_se(tenth)


def _growth_began(ctx: Ctx) -> int | None:
    """Where the answers began to grow: the length's bend, unless the bend is where the growth slowed
    (its log-rate before the bend at least len_bend_accel times the rate after, the mirror of
    `_early`'s speed-up) -- then the growth was under way before it, and began where the length left
    its starting level (onset_share of the way, on log length).  Judging the truth from a slowing
    would read a noisy stretch after it as the gain the longer answers bought."""
    onset = ctx.onset("len", "bend", log=True)
    if onset is None:
        return None
    rates = log_rates(ctx, onset)
    if rates is not None and rates[0] > 0 and rates[0] >= get("len_bend_accel") * max(rates[1], 0.0):
        began = ctx.crossing("len", get("onset_share"), log=True)
        if began is not None and began < onset:
            return began
    return onset


def _paid(ctx: Ctx) -> Finding | None:
    """A term nobody logged pays for length: the reward components are logged, and the part of the
    reward they do not explain (reward minus their sum, in the reward's own units) climbed in step
    with the length (their 16 block medians correlate at least track_corr) by more than goal_z
    standard errors and hack_shift of the reward's 10-90% spread, the length grew len_growth_healthy times, and the correctness term did not
    gain faster after the length bent than before (the extra length bought nothing: pair C2); before
    the bend the logged terms explained the reward (the unexplained part moved at most hack_share as
    much as after it).
    The lesson's "涨的是真能力，不是格式分" with the paying term hidden."""
    comps = components(ctx)
    correct = [k for k, (kind, _) in comps.items() if kind == "correctness"]
    ln = trend(ctx, "len")
    if (
        not correct
        or not ctx.has("reward")
        or ln is None
        or not ln.start > 0
        or ln.end / ln.start < get("len_growth_healthy")
    ):
        return None
    sr, vr = ctx.data("reward")
    total = np.zeros_like(vr)
    for _, cs in comps.values():
        if cs.steps.shape != sr.shape or not np.array_equal(cs.steps, sr):
            return None  # terms on other steps: their sum is not defined step by step
        total = total + np.nan_to_num(cs.values)
    u = vr - total
    k = max(3, u.size // 10)
    noise = step_noise(u) or EPS
    gain = float(u[-k:].mean() - u[:k].mean())
    q = np.percentile(vr, [10, 90])
    if (
        u.size < 2 * get("min_points")
        or gain <= get("goal_z") * noise * pair_se(k)
        or gain < get("hack_shift") * float(q[1] - q[0])
    ):
        return None  # (a size too: hack_shift of the reward's 10-90% spread, not float dust)
    _, bu = blocks(sr, u, 16)
    sl, vl = ctx.data("len")
    _, bl = blocks(sl, vl, 16)
    if bu.size != bl.size or bu.size < 4 or float(np.corrcoef(bu, bl)[0, 1]) < get("track_corr"):
        return None
    onset = ctx.onset("len", "bend", log=True, until_peak=True)
    sc, vc = ctx.data(f"component:{correct[0]}")
    if onset is None or sc.size < 2 * get("min_points"):
        return None
    j = int(np.searchsorted(sc, onset))
    if j < 3 or sc.size - j < 3:
        return None
    # the logged terms explained the reward until the length bent: the unexplained part moved at most
    # hack_share as much before the bend as after it (a partly logged reward whose other terms are
    # learned all along -- a format score -- is no hidden length term)
    i = int(np.searchsorted(sr, onset))
    kb = max(3, min(k, i // 2))
    if i < 2 * kb or abs(float(u[i - kb : i].mean() - u[:kb].mean())) > get("hack_share") * float(
        u[-k:].mean() - u[i - kb : i].mean()
    ):
        return None
    before = (float(np.mean(vc[j - 3 : j])) - float(np.mean(vc[:3]))) / max(float(sc[j - 1] - sc[0]), 1.0)
    after = (float(np.mean(vc[-3:])) - float(np.mean(vc[j : j + 3]))) / max(float(sc[-1] - sc[j]), 1.0)
    if after > before:
        return None  # the correctness sped up with the length: pair C1
    ev = {
        "len_start": rnd(ln.start),
        "len_end": rnd(ln.end),
        "len_growth": rnd(ln.end / ln.start, 3),
        "reward_unexplained_start": rnd(float(u[:k].mean())),
        "reward_unexplained_end": rnd(float(u[-k:].mean())),
        "acc_metric": correct[0],
        "acc_rate_before_per100": rnd(100 * before, 3),
        "acc_rate_after_per100": rnd(100 * after, 3),
        "since_step": onset,
    }
    missing = [] if ctx.has("trunc") else ["trunc"]
    return Finding(RULE, "warning", onset, ev, (), tuple(missing), action_for(RULE), C.FIRM)


def _paid_term(ctx: Ctx) -> Finding | None:
    """Whole run: a logged length term rose (from where it left its starting level) while the
    correctness term, in the same reward units, gained at most hack_share of what it gained -- the
    reward rose through what it pays for length, not for being right."""
    comps = components(ctx)
    correct = [k for k, (kind, _) in comps.items() if kind == "correctness"]
    if not ctx.has("len") or not ctx.end("len") >= get("len_grown") * ctx.start("len"):
        return None  # a length term is a bonus or a penalty: only growing answers say which
    for k, (kind, _) in comps.items():
        if kind != "length" or not correct:
            continue
        t = trend(ctx, f"component:{k}")
        if t is None or not t.rose or t.n < 2 * get("hack_min_after"):
            continue
        onset = ctx.crossing(f"component:{k}", get("onset_share"))
        la, lb, _ = since(ctx, f"component:{k}", onset)
        ca, cb, _ = since(ctx, f"component:{correct[0]}", onset)
        if not (lb - la > 0 and cb - ca <= get("hack_share") * (lb - la)):
            continue
        ev = {
            "length_term": k,
            "length_term_start": rnd(la),
            "length_term_end": rnd(lb),
            "acc_metric": correct[0],
            "acc_start": rnd(ca),
            "acc_end": rnd(cb),
            "since_step": onset,
        }
        if ctx.has("len"):
            ev["len_start"], ev["len_end"] = rnd(ctx.start("len")), rnd(ctx.end("len"))
        return Finding(RULE, "warning", onset, ev, (), (), action_for(RULE), C.FIRM)
    return None
