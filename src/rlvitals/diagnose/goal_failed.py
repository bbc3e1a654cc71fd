"""Whether the goal failed to improve: `not_learning` ("not learning -- cause undetermined") and
the goal summary the verdict "learning" rests on.  `verdict.resolve` adds not_learning when nothing
warns and the goal did not improve, or when the goal collapsed before anything that warns began.
Also what the goal says of a KL blow-up when the goal is something a KL can buy (`bought_by_kl`,
`rose_through_kl`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ingest.components import names_the_reward
from .actions import action_for
from .arith import pair_se
from .context import Ctx, rnd
from .differential import DECIDES, LOOKALIKES, RULERS
from .materiality import bounded, fall_slack, few_evals, few_evals_gained, goal_effect, material_move, pinned, solved
from .model import Finding
from .predicates import pred
from .symptoms import Trend, goal, trend
from .thresholds import get

__all__ = ["bought_by_kl", "goal_summary", "held_through", "improved", "not_learning", "rose_through_kl"]


def not_learning(ctx: Ctx, fired: set[str]) -> Finding | None:
    """not_learning ("not learning -- cause undetermined"): no finding warns, yet the goal does not improve.

    Added by `resolve` (it is not a rule of its own) once the goal has at least `min_points` points
    and is demonstrably flat (its fitted change plus two standard errors within one step-to-step
    noise), fell, peaked and fell back, or (over twice min_points) does not go up at all (the fitted
    change's upper goal_z bound within one noise) -- and no other score (reward, acc, eval acc) is
    still climbing, or undecided beside a goal that neither fell nor fell back (a reward that only
    moves with the accuracy, `reward_tracks_truth`, is not another score).  An accuracy at its
    `ceiling` that did not fall is not "not learning".
    A goal logged at the very same value at every point (`const_points` points over `const_span`
    steps: a reward of exactly 0 at every step) needs no min_points: there is no noise to wait out.
    A 0..1 goal that rose and then scored under near_zero at its last const_points points
    (`wiped_out`) needs no min_points either.
    An adv_std at round-off of zero at every step (`no_spread`) means no batch told one sample from
    another: the reward taught nothing, whatever the training score did -- unless an eval rose.
    Severity warning, verdict dead.  Evidence: the goal metric, its start, end and peak, its move in standard errors, how it
    failed to improve (`goal_trend`), and the `candidates`: the look-alike causes the shared
    predicates could not rule out; `missing` names the metrics that would decide between them.
    """
    g = goal(ctx)
    tr = trend(ctx, g) if g else None
    if tr is None or g is None:
        return None  # nothing to judge by: no verdict from absence
    short = not tr.enough(get("min_points"))
    # a score that rose and then scored nothing: no noise to wait out (dated where it hit the floor)
    wiped = _wiped_out(ctx, g, tr) if short else None
    if _constant_goal(ctx, g):
        how = "constant"  # not a noisy stretch: the same value at every logged step
    elif wiped is not None:
        how = "wiped_out"
    elif short:
        return None  # too early: no verdict from absence
    elif _no_spread(ctx):
        how = "no_spread"
    else:
        found = _goal_failed(ctx, g, tr)
        if found is None:
            return None
        how = found
    ev: dict[str, Any] = {
        "goal_metric": g,
        "goal_start": rnd(tr.start),
        "goal_end": rnd(tr.end),
        "goal_peak": rnd(tr.peak),
        "goal_move_in_se": rnd(tr.z, 3),
        "goal_trend": how,
    }
    if how == "constant":
        ev["goal_points"] = tr.n
        ev["goal_span_steps"] = tr.span
    if how == "no_spread":
        _, a = ctx.data("adv_std")
        ev["adv_std_max"] = f"{float(np.max(np.abs(a))):.2g}"
        ev["adv_std_points"] = int(a.size)
    candidates = []
    for look in LOOKALIKES["not_learning"]:
        if look in fired:
            continue
        if not any(pred(ctx, p).holds for p, _ in RULERS.get(look, ())):
            candidates.append(look)
    ev["candidates"] = ", ".join(candidates) if candidates else "—"
    # the metric that would decide each candidate, where the log lacks it (e.g. no trunc in torchtune)
    missing = tuple(dict.fromkeys(DECIDES[c] for c in candidates if c in DECIDES and not ctx.has(DECIDES[c])))
    conf = 0.5 + 0.1 * min(abs(tr.z), 3.0) / 3.0 if how != "constant" else 0.6
    since = wiped if how == "wiped_out" and wiped is not None else ctx.first_step()
    return Finding("not_learning", "warning", since, ev, (), missing, action_for("not_learning"), round(conf, 3))


def _constant_goal(ctx: Ctx, g: str) -> bool:
    """The goal logged at the very same value at every point (materiality.pinned: a reward of exactly 0
    at every step): no noise to wait out, so `const_points` points over `const_span` steps decide it,
    however few."""
    if not pinned(ctx, g):
        return False
    _, v = ctx.data(g)
    at_ceiling = g in ("acc", "val_acc") and float(v[0]) >= get("ceiling")
    return not at_ceiling  # every answer right from the start is data_too_easy's reading


def _no_spread(ctx: Ctx) -> bool:
    """adv_std at the round-off of zero (`adv_dust`) at every one of min_points points or more, and not
    exactly 0 at all of them (a column of zeros may never have been computed: not applicable): every
    sample of every batch got the same advantage, so none was preferred to another and the reward
    taught nothing -- a training score that moved did so with the draw of prompts.  An eval that rose
    (a trend of its own, or a few points gaining a material amount) says the column is not what its
    name says, and the goal's judgement stands."""
    if not ctx.has("adv_std"):
        return False
    _, a = ctx.data("adv_std")
    if a.size < get("min_points") or not bool(np.all(np.abs(a) <= get("adv_dust"))) or not bool(np.any(a)):
        return False
    ev = trend(ctx, "val_acc") if ctx.has("val_acc") else None
    return not ((ev is not None and ev.rose) or few_evals_gained(ctx))


def _wiped_out(ctx: Ctx, g: str, tr: Trend) -> int | None:
    """A 0..1 goal whose last `const_points` points all score under near_zero after it held a level out
    of the all-wrong zone (a mean over as many consecutive points of twice near_zero, as data_too_hard
    reads a score that left it) a material amount above them (goal_material, and goal_z standard
    errors of the difference of two such means at the goal's own noise), keeping at most reward_died
    of it (a score that died, not a noisy low one) -- while no other score rose.
    Everything right became everything wrong: that needs no min_points, as a noisy score of a few
    samples a step does not sit at 0 for that long by chance, and one lucky step is no level.
    Returns the step where the final stretch under near_zero began, or None."""
    k = int(get("const_points"))
    s, v = ctx.data(g)
    low = v < get("near_zero")
    if not bounded(ctx, g) or v.size < 2 * k or not bool(np.all(low[-k:])):
        return None
    begun = int(np.flatnonzero(~low)[-1]) + 1 if not bool(np.all(low)) else 0
    if begun < k:
        return None
    level = float(np.max(np.convolve(v[:begun], np.ones(k) / k, mode="valid")))
    now = float(np.mean(v[-k:]))
    fall = level - now
    # nothing: the stretch kept at most reward_died of that level (a noisy low score is not nothing)
    if level < 2 * get("near_zero") or fall < get("goal_material") or now > get("reward_died") * level:
        return None
    if fall < get("goal_z") * tr.noise * pair_se(k):
        return None
    others = (trend(ctx, m) for m in ("reward", "acc", "val_acc") if m != g and ctx.has(m))
    if any(o is not None and o.rose for o in others):
        return None
    return int(s[begun])


def _no_material_gain(ctx: Ctx, m: str, tr: Trend, *, sparse_ok: bool = False) -> bool:
    """After a fair number of points a score that never gained a material amount of its own range --
    neither at the end (the difference of its tenths; within two of its standard errors, no more
    than its fitted line's change), nor at its peak past the peak's chance margin (`Trend.margin`),
    nor along its fitted line -- and did not rise has not learned.

    A fair number is twice min_points points (points, not steps: a sparse log's few noisy points
    prove little on their own) -- or fewer, when the points decide: they cover `proof_points` steps
    and the fitted line's upper goal_z bound is under the material amount (`decisive`: nothing
    material happened, shown rather than assumed), or (`sparse_ok`, a sparse goal) they cover twice
    min_points steps beside dense scores that resolve a gain and show none.
    Its points must resolve such a gain: the fitted change's standard error under the material
    amount (a noisier score could hide one; then it is undecided, never a guess) -- or, for a sparse
    goal (`sparse_ok`), the dense scores beside it resolve one and show none."""
    material = material_move(ctx, m)
    decisive = _gain_bound(tr) < material
    enough = (
        tr.n >= 2 * get("min_points")
        or (decisive and tr.enough(get("proof_points")))
        or (sparse_ok and tr.enough(2 * get("min_points")))
    )
    # (the peak is the highest of 16 noisy block medians: only what clears its chance margin is a gain;
    # a fitted line that climbed a material amount, beyond two of its standard errors, is one too)
    peak_gain = tr.peak - tr.start - tr.margin
    fit_gain = tr.line_gain if tr.line_gain > 2 * tr.fit_se else 0.0
    # the tenths' difference at face value -- unless it is within two of its standard errors and the
    # fitted line, which reads every point, says less: then the line's change stands for it
    end_gain = tr.move if tr.move > 2 * tr.se else min(tr.move, tr.fit_move)
    resolved = tr.fit_se < material or sparse_ok
    return bool(enough and resolved and not tr.rose and max(end_gain, peak_gain, fit_gain) < material)


def _goal_failed(ctx: Ctx, g: str | None, tr: Trend) -> str | None:
    """How a goal with enough points failed to improve (fell, fell_back, flat, not_rising,
    no_material_gain), or None."""
    # "does not go up at all" must be shown, not drawn from a noisy stretch: the fitted change's
    # upper goal_z bound within one step-to-step noise (a short or noisy goal stays undecided)
    no_rise = tr.not_rising and _gain_bound(tr) < tr.noise
    others = [o for m in ("reward", "acc", "val_acc") if m != g and ctx.has(m) and (o := trend(ctx, m)) is not None]
    # a sparse goal (an eval every N steps) covering those steps counts when every dense score
    # beside it shows no material gain over as many points either
    stuck = g is not None and _no_material_gain(
        ctx, g, tr, sparse_ok=bool(others) and all(_no_material_gain(ctx, o.metric, o) for o in others)
    )
    if tr.rose or not (tr.flat or tr.fell or tr.fell_back or no_rise or stuck):
        return None
    if few_evals_gained(ctx):
        return None  # the eval, logged too seldom for a trend, gained a material amount: undecided
    if tr.rate and tr.end >= get("ceiling") and not (tr.fell or tr.fell_back):
        return None  # an accuracy at its ceiling has nowhere to go (data_too_easy's reading)
    if g is not None and solved(ctx) and tr.start - tr.end < material_move(ctx, g):
        return None  # a training score at its ceiling and a goal that lost no material part: converged
    for m in ("reward", "acc", "val_acc"):
        other = trend(ctx, m) if m != g and ctx.has(m) else None
        if (
            m == "reward"
            and other is not None
            and g != "reward"
            and (tr.flat or no_rise)
            and pred(ctx, "reward_tracks_truth").holds
        ):
            continue  # a still goal, and the reward only moves with it: the goal's judgement stands
        if other is not None and (
            other.rose
            or not (
                tr.fell  # a goal that fell, or gave its gain back, is shown: only a climbing score asks more
                or tr.fell_back
                or other.still
                or other.fell
                or other.fell_back
                or other.not_rising
                or (stuck and _no_material_gain(ctx, m, other))
            )
        ):
            return None  # another score climbs (reward_hacking's question) or is still undecided
    return (
        "fell"
        if tr.fell
        else "fell_back"
        if tr.fell_back
        else "flat"
        if tr.flat
        else "not_rising"
        if no_rise
        else "no_material_gain"
    )


def goal_summary(ctx: Ctx) -> dict[str, Any] | None:
    """What the verdict "learning" rests on: the goal metric, its start and end, how many points over
    how many steps, and whether it improved beyond its noise (`improved`).  A report with no warning
    whose goal did not improve must not call the run healthy: it says learning is not shown yet."""
    g = goal(ctx)
    tr = trend(ctx, g) if g else None
    if g is None or tr is None:
        return _short_goal(ctx)
    return {
        "metric": g,
        **_key(ctx, g),
        "start": rnd(tr.start),
        "end": rnd(tr.end),
        "points": tr.n,
        "span": tr.span,
        "improved": (up := improved(tr)),
        # a training score at its ceiling: nothing left to learn, not "not shown yet" (materiality.solved)
        **({"solved": s} if not up and (s := solved(ctx)) else {}),
        "min_points": int(get("min_points")),
        # enough to judge (min_points points, or a sparse log's points covering that many steps):
        # a goal that did not improve over as much is undecided by its noise, not by its length
        "enough": tr.enough(get("min_points")),
        **_few_evals(ctx),
        **({} if up else _noise_hides(ctx, g, tr)),
    }


def _gain_bound(tr: Trend) -> float:
    """The largest gain a score's points leave possible: its fitted change plus goal_z standard errors."""
    return tr.fit_move + get("goal_z") * tr.fit_se


def _noise_hides(ctx: Ctx, g: str, tr: Trend) -> dict[str, Any]:
    """Of a goal that did not improve: the largest gain its noise could still hide (`_gain_bound`,
    `hidden_gain`) when that reaches a material amount (`material`) -- why "not shown yet" is
    undecided, in numbers.  Else nothing (its points rule a material gain out)."""
    hidden, material = _gain_bound(tr), material_move(ctx, g)
    return {} if hidden < material else {"hidden_gain": rnd(hidden), "material": rnd(material)}


def improved(tr: Trend) -> bool:
    """The goal improved beyond its noise: by the window means (`rose`) or by the least-squares line
    over every point (more power on a sparse log)."""
    fitted = (
        tr.tau > 0 and tr.line_gain > get("goal_z") * tr.fit_se and not (tr.rate and tr.line_gain < get("rate_move"))
    )
    return bool(tr.rose or fitted)


def bought_by_kl(ctx: Ctx) -> bool:
    """The goal is something a KL can buy: the reward, or an eval of the reward itself (`eval_reward`:
    the reward model's score on held-out prompts, `components.names_the_reward`), not of the answers
    -- a policy that moved away from the reference to please the reward model pleases it on new
    prompts too, so neither can clear the move."""
    g = goal(ctx)
    s = ctx.series("val_acc") if g == "val_acc" else None
    return g == "reward" or (s is not None and names_the_reward(s.source or ""))


def rose_through_kl(ctx: Ctx, f: Finding) -> dict[str, object] | None:
    """Of a KL blow-up that stopped climbing (verdict asks `kl_blowup.settled` first: one still
    multiplying is a run-away in progress) and bought a goal it can buy (`bought_by_kl`): when that
    goal held through it (`held_through`), the evidence to keep -- the finding still warns (KL x N is
    material in its own range, and only a truth can say whether the reward's gain is real or the
    reward model gamed: the lesson's "reward 暴涨 = 可能在刷分"), but the verdict is the goal's, not
    "dead": a run whose reward kept climbing did not die.  Else None."""
    held = held_through(ctx, f)
    return None if held is None else {**held, "reading": "bought", "goal_sets_verdict": True}


def held_through(ctx: Ctx, f: Finding) -> dict[str, object] | None:
    """The goal's numbers when it held through `f`: it gained a material amount of its range over the
    run (by the end windows, or the line over every point), beyond its noise, did not give it back,
    and lost none after f's onset (a move on the last steps has not had its effect on the goal yet:
    the climb so far is what there is to judge).  Else None."""
    g = goal(ctx)
    tr = trend(ctx, g) if g else None
    if g is None or tr is None or not improved(tr) or tr.fell_back:
        return None
    material = material_move(ctx, g)
    if max(tr.move, tr.line_gain) < material:
        return None
    eff = goal_effect(ctx, f.onset_step, 1, by_steps=True)
    if eff is not None and eff.gain <= -fall_slack(eff, tr.noise):
        return None
    return {
        "goal_metric": g,
        "goal_start": rnd(tr.start),
        **({"goal_at_onset": rnd(eff.at_onset)} if eff is not None else {}),
        "goal_end": rnd(tr.end),
        "goal_material_move": rnd(material),
    }


def _short_goal(ctx: Ctx) -> dict[str, Any] | None:
    """A goal logged at too few points to be one (`symptoms.goal` asks for a trend): what it did so far,
    never "improved" -- a report must say learning is not shown yet, not that no goal is logged."""
    for m in ("val_acc", "acc", "reward"):
        s, v = ctx.data(m)
        if v.size:
            return {
                "metric": m,
                **_key(ctx, m),
                "start": rnd(float(v[0])),
                "end": rnd(float(v[-1])),
                "points": int(v.size),
                "span": int(s[-1] - s[0]),
                "improved": False,
                "min_points": int(get("min_points")),
                "enough": False,
            }
    return None


def _key(ctx: Ctx, m: str) -> dict[str, Any]:
    """The log's own name of an eval goal (`dev_chrf` read as val_acc), for the report to say."""
    s = ctx.series(m) if m == "val_acc" else None
    return {"key": s.source} if s is not None and s.source else {}


def _few_evals(ctx: Ctx) -> dict[str, Any]:
    """An eval logged beside the goal at too few points for a trend of its own: its first and last
    values and its points, so a report does not ask for an eval the log already has."""
    v = few_evals(ctx)
    s = ctx.series("val_acc")
    if v.size < 2 or s is None:
        return {}
    return {
        "eval_metric": s.source or "val_acc",
        "eval_start": rnd(v[0]),
        "eval_end": rnd(v[-1]),
        "eval_points": int(v.size),
    }
