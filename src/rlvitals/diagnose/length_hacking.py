"""length_hacking: answers grow long while accuracy does not (lesson pair C2), truncation rising.

Pair C1 -- length rising together with acc -- is healthy ("写详细带来了更高正确率") and stays
silent.  With an accuracy (or eval accuracy, or a correctness term) to judge by, the growth must
come without its gain.  With no accuracy at all the strong signal decides on its own: length
exploding (len_explode) while the truncation rate climbs past trunc_high -- more and more answers
cut at the cap -- even while the reward still rises.  GRPO's length bias (Dr. GRPO) also makes
wrong answers longer: the action names both fixes.  Answers growing on the way up while the KL or
the entropy breaks away are the break-up's, not a length exploit: a relation (registry.RELATIONS,
`breaking_away`), not this detector's call.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..shapes import step_noise
from . import confidence as C
from .actions import action_for
from .arith import EPS, TINY, pair_se
from .context import Ctx, rnd
from .lengths import length_term_excess, ln_points, paid_in_length
from .materiality import goal_scale
from .model import Finding
from .reward_hacking import parting
from .stretches import around, eval_lags, since, tail_excess
from .symptoms import components, goal, trend
from .thresholds import get

ID = "length_hacking"


def _early(ctx: Ctx, g: str | None) -> Finding | None:
    """On the way up: since the length bent upward it grew beyond 2 x goal_z standard errors and by a
    tenth, faster than before the bend, and the truth did not gain (within its noise and its range)."""
    if g is None or g == "reward" or ctx.word("len") not in ("rising", "spike"):
        return None
    if ctx.end("len") < get("len_grown") * ctx.start("len"):
        return None  # over the whole run the answers did not grow (a rebound after a collapse is not it)
    onset = ctx.onset("len", "bend", log=True)
    if onset is None or ln_points(ctx) < get("min_points"):
        return None
    if int(np.searchsorted(ctx.data("len")[0], onset)) < get("min_points"):
        return None  # the length's course before the bend is too short to say it accelerated
    # the truth with points of its own since the bend: a sparse eval (every N steps) that has too few
    # says nothing, and the training accuracy beside it, measured on every step, is asked instead
    g = next(
        (m for m in (g, "acc") if ctx.has(m) and int(np.sum(ctx.data(m)[0] >= onset)) >= get("truth_min_after")), None
    )
    if g is None:
        return None
    la, lb, lz = since(ctx, "len", onset)
    ta, tb, tz = since(ctx, g, onset)
    # the truth neither gains (pair C1) nor falls (a policy breaking down: KL, entropy own that)
    if not (la > 0 and lb / la >= get("bend_rise") and lz >= 2 * get("goal_z") and -get("goal_z") < tz <= 1.0):
        return None
    if tb - ta >= get("goal_material") * goal_scale(ctx, g):
        return None  # the truth gained a material amount of its range since the bend, however noisy: pair C1
    # and the growth sped up at the bend: its log-rate after is at least len_bend_accel times the rate before
    s, v = ctx.data("len")
    l0 = ctx.start("len")
    before = max(float(onset - s[0]), 1.0)
    after = max(float(s[-1] - onset), 1.0)
    rate_before = np.log(max(la, TINY) / max(l0, TINY)) / before
    rate_after = np.log(lb / la) / after
    if rate_after < get("len_bend_accel") * max(rate_before, 0.0) or rate_after <= 0:
        return None
    ev = {
        "len_start": rnd(la),
        "len_end": rnd(lb),
        "len_growth": rnd(lb / la, 3),
        "acc_metric": g,
        "acc_start": rnd(ta),
        "acc_end": rnd(tb),
        "since_step": onset,
    }
    missing = [] if ctx.has("trunc") else ["trunc"]
    return Finding(ID, "warning", onset, ev, (), tuple(missing), action_for(ID), C.FAIR)


def check(ctx: Ctx) -> Finding | None:
    """The whole-run test, and when it does not fire, the on-the-way-up test from the bend: a
    run whose answers already doubled healthily (pair C1) before the hack began would otherwise
    wait for the cap (truncation) to speak."""
    if not ctx.has("len"):
        return None
    f = _whole_run(ctx)
    if f is not None:
        return f
    g = goal(ctx)
    if _into_the_cap(ctx) is not None:
        f = _at_the_cap(ctx)
        if f is not None:
            return f
    return _early(ctx, g) or _tail(ctx, g) or _length_term(ctx) or _paid_by_length(ctx)


def _at_the_cap(ctx: Ctx) -> Finding | None:
    """Answers running into the cap (`_into_the_cap`) are the pair with truncation_starvation, decided
    by the reward: since it parted from the truth it rose with the length (`_paid_by_length`), where a
    cut answer's reward collapses -- or the answers had been growing past a flat truth for min_points
    points before they reached the cap (`_early`): the earliest failure owns the run, the cap is its
    aftermath.  None when neither says so yet (`cut_undecided`)."""
    cap = _into_the_cap(ctx)
    if cap is None:
        return None
    early = _early(ctx, goal(ctx))
    sl = ctx.data("len")[0]
    if early is not None and int(np.sum((sl >= early.onset_step) & (sl < cap))) >= get("min_points"):
        return early
    return _paid_by_length(ctx)


def cut_undecided(ctx: Ctx) -> bool:
    """No whole-run test fired, the growing answers run into the cap (`_into_the_cap`), and nothing
    decides the pair with truncation_starvation yet (`_at_the_cap`): the on-the-way tests' growth may
    be answers cut at the cap.  Who names that case is a relation (registry.RELATIONS), not this
    rule's call."""
    return ctx.has("len") and _whole_run(ctx) is None and _into_the_cap(ctx) is not None and _at_the_cap(ctx) is None


def _paid_by_length(ctx: Ctx) -> Finding | None:
    """The reward parted from the truth (reward_hacking's test, `parting`), and since then the answers
    grew len_accel (relative) and len_accel_z standard errors while the truth gained nothing
    (`paid_in_length`): the reward is paid through length -- the specific exploit, named first
    (verdict.SUPPRESSES: length_hacking owns reward_hacking)."""
    p = parting(ctx)
    if p is None:
        return None
    truth, onset = p
    paid = paid_in_length(ctx, onset, truth)
    if paid is None:
        return None
    la, lb, z, ta, tb = paid
    if lb / la < 1 + get("len_accel") or z < get("len_accel_z"):
        return None
    ev = {
        "len_start": rnd(la),
        "len_end": rnd(lb),
        "len_growth": rnd(lb / la, 3),
        "acc_metric": truth.split(":")[-1],
        "acc_start": rnd(ta),
        "acc_end": rnd(tb),
        "since_step": onset,
    }
    if ctx.has("reward"):
        ev["reward_start"], ev["reward_end"] = rnd(ctx.start("reward")), rnd(ctx.end("reward"))
    missing = [] if ctx.has("trunc") else ["trunc"]
    return Finding(ID, "warning", onset, ev, (), tuple(missing), action_for(ID), C.FAIR)


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
        return Finding(ID, "warning", onset, ev, (), (), action_for(ID), C.FIRM)
    return None


def _length_term(ctx: Ctx) -> Finding | None:
    """On the way in: a logged length term jumped over the last stretch by hack_shift of the reward's
    10-90% spread before it, while the correctness term gained at most hack_share of that over the
    stretch against the stretch before it (or, with acc only, nothing) -- the reward now pays for length, not for being right (the lesson:
    len 涨而 acc 不涨; the length follows what is paid for)."""
    lt = length_term_excess(ctx)
    if lt is None or not ctx.has("reward") or not ctx.has("len"):
        return None
    key, onset, excess, _ = lt
    sl, vl = ctx.data("len")
    n = int(np.sum(sl >= onset))
    if n < 3 or vl.size < 2 * n or float(vl[-n:].mean()) < float(vl[-2 * n : -n].mean()):
        return None  # the answers shrink with it: a length penalty paying for brevity
    sr, vr = ctx.data("reward")
    j = int(np.searchsorted(sr, onset))
    if j < get("min_points"):
        return None
    q = np.percentile(vr[:j], [10, 90])
    if excess < get("hack_shift") * float(q[1] - q[0] or EPS):
        return None
    truth = next((f"component:{c}" for c, (kind, _) in components(ctx).items() if kind == "correctness"), None)
    truth = truth or ("acc" if ctx.has("acc") else None)
    if truth is None:
        return None
    cut = around(ctx, truth, onset)
    if cut is None:
        return None
    ta, tb, m, tr = cut
    # a correctness term is in the reward's units: it may keep its pace, but gain at most hack_share
    # of what the length term gained; an accuracy (other units) must gain nothing
    same_units = truth.startswith("component:")
    if tb - ta > (get("hack_share") * excess if same_units else (tr.noise or EPS) * pair_se(m)):
        return None
    ev = {
        "length_term": key,
        "length_term_excess": rnd(excess),
        "acc_metric": truth.split(":")[-1],
        "acc_start": rnd(ta),
        "acc_end": rnd(tb),
        "since_step": onset,
    }
    if ctx.has("len"):
        ev["len_end"] = rnd(ctx.end("len"))
    return Finding(ID, "warning", onset, ev, (), (), action_for(ID), C.WEAK)


def _into_the_cap(ctx: Ctx) -> int | None:
    """Over the last stretch (len_tail of the steps) the truncation rate's mean climbs above its own
    line (beyond goal_z standard errors; the mean, since the rate lags the length by a step or two
    and rises inside the stretch): the growing answers are already running into the cap.  That is
    the lesson's confusable pair -- length hacking or truncation starvation -- and what decides it
    is whether the reward collapses with the cut answers or rises with the length, which has not
    shown yet on the way up.  The on-the-way tests stand back (the whole-run test, and
    truncation_starvation's, read the reward).  Returns the first step of that stretch, or None."""
    te = tail_excess(ctx, "trunc", get("len_tail"), mean=True) if ctx.has("trunc") else None
    return te[0] if te is not None and te[1] > 0 and te[2] >= get("goal_z") else None


def _whole_run(ctx: Ctx) -> Finding | None:
    """The whole-run tests (`_whole`, `_paid`, `_paid_term`: the first that fires), once per diagnosis."""
    key = "length_hacking.whole"
    if key not in ctx._results:
        ctx._results[key] = _whole(ctx) or _paid(ctx) or _paid_term(ctx)
    return cast("Finding | None", ctx._results[key])


def breaking_away(ctx: Ctx, m: str) -> bool:
    """No whole-run test fired (they have the full picture), and over the last stretch (len_tail of the
    steps) the KL (m="kl": kl_breaking times its own line) or the entropy (m="entropy": len_accel above
    it) runs away, beyond len_accel_z standard errors: answers growing now may be the policy breaking,
    not a term paying for length.  Who names that case is a relation (registry.RELATIONS), not this
    rule's call."""
    if not ctx.has("len") or not ctx.has(m) or _whole_run(ctx) is not None:
        return False
    size = float(np.log(get("kl_breaking"))) if m == "kl" else get("len_accel")
    te = tail_excess(ctx, m, get("len_tail"), log=True)
    return te is not None and te[1] >= size and te[2] >= get("len_accel_z")


def _tail(ctx: Ctx, g: str | None) -> Finding | None:
    """Earliest: the last stretch (len_tail of the steps) of log-length leaves the line it followed
    before by len_accel (relative) and len_accel_z standard errors, while over the same stretch
    the truth neither gains on the stretch before it nor rises above its own line (the growth
    comes without its gain) nor falls (a breaking policy is KL's and entropy's)."""
    if g is None or g == "reward" or ctx.end("len") < get("len_grown") * ctx.start("len"):
        return None  # the answers must have grown over the prefix (a wobble after shrinking is not it)
    te = tail_excess(ctx, "len", get("len_tail"), log=True)
    if te is None or te[1] < get("len_accel") or te[2] < get("len_accel_z"):
        return None
    onset = te[0]
    cut = around(ctx, g, onset)
    if cut is None:
        return None
    ta, tb, m, tr = cut
    se = (tr.noise or float(np.std(ctx.data(g)[1])) or EPS) * pair_se(m)
    own = tail_excess(ctx, g, get("len_tail"))
    if tb - ta > se or tb - ta < -get("goal_z") * se or (own is not None and own[2] > 1.0):
        return None
    sl, vl = ctx.data("len")
    k = int(np.searchsorted(sl, onset))
    la, lb = float(vl[max(0, k - (vl.size - k)) : k].mean()), float(vl[k:].mean())
    ev = {
        "len_start": rnd(la),
        "len_end": rnd(lb),
        "len_growth": rnd(lb / la, 3) if la > 0 else None,
        "len_above_trend": rnd(float(np.expm1(te[1])), 3),
        "acc_metric": g,
        "acc_start": rnd(ta),
        "acc_end": rnd(tb),
        "since_step": onset,
    }
    missing = [] if ctx.has("trunc") else ["trunc"]
    return Finding(ID, "warning", onset, ev, (), tuple(missing), action_for(ID), C.WEAK)


def _whole(ctx: Ctx) -> Finding | None:
    ln = trend(ctx, "len")
    if ln is None or not ln.start > 0:
        return None
    l0, l1 = ln.start, ln.end
    growth = l1 / l0
    g = goal(ctx)
    if growth < get("len_growth_healthy") or ctx.word("len") not in ("rising", "spike", "oscillating"):
        return None
    onset = ctx.onset("len", "bend", log=True)
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
        elif ctx.gained(truth, rel=get("len_truth_gain"), a=a) or ctx.still_rising(truth, a):
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
        if fresh and _into_the_cap(ctx) is not None:
            return None
    conf = min(1.0, C.FIRM + C.SIGN * (growth - get("len_growth_healthy")) + C.SIGN * bool(truth))
    return Finding(ID, "warning", onset, ev, (), tuple(missing), action_for(ID), round(conf, 3))


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
    from ..shapes import blocks

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
    return Finding(ID, "warning", onset, ev, (), tuple(missing), action_for(ID), C.FIRM)
