"""Episodes: the goal fell, a vital broke with it, and the goal came back.

A run that blew up and recovered is not "learning" again once its goal is back: the blow-up hurt the
goal, and the next one may not come back -- the lesson's "unstable" (spikes and blow-ups that hurt
the goal).  The run's notes say when, how far, and which vital moved with it (`notes`); when the
rules, read on the run up to the episode's end, name what broke (diagnose: the episode's finding,
reading "recovered"), that finding stays in the report as a warning and the verdict is "unstable".

A dip is the lowest mean of `w` consecutive goal points (a tenth of them, at least 3), with `w`
points or more before it and 2 w after it, that sits below the level before it (the median of the
3 w points before, out of the all-wrong zone: near_zero) by a material amount -- score_drop of that
level, goal_material of the goal's range, and goal_z standard errors of the difference; the
window's median too, so that one outlying point does not make a dip -- while the
goal's 2 w points after it came back to within the same margin, and by at least half of the fall.
A vital moved with it when over the dip's steps the entropy reached entropy_rise times its level
before, the ratio left 1 by ratio_far (having been within it), the KL reached kl_fast times its
level before (+ kl_floor), or the truncation rate rose by trunc_high.  A dip with no vital moving
is left unsaid: a noisy score dips on its own.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

import numpy as np

from ..i18n import Msg
from .arith import HALF
from .context import Ctx
from .materiality import goal_scale
from .model import Finding
from .symptoms import covers, goal
from .thresholds import get

__all__ = ["BLOW_UPS", "READS", "notes", "recovered", "recovered_dip"]

# the verdict an episode's reading gives its finding (verdict.verdict_of): the blow-up hurt the goal
READS = {"recovered": "unstable"}

# the findings that name a vital breaking (what `_moved` watches: entropy, ratio, KL, answers cut, or a
# NaN): a blow-up's cause.  Not the goal's own state (not_learning, stalled, data_too_hard): those read
# what the dip did, not what set it off, and name no cause of an episode that came back.
BLOW_UPS = frozenset(
    {
        "entropy_explosion",
        "entropy_collapse",
        "sync_failure",
        "kl_blowup",
        "truncation_starvation",
        "numeric_instability",
    }
)


def recovered_dip(ctx: Ctx) -> dict[str, Any] | None:
    """The goal's deepest dip that came back, with the vitals that moved over it, or None.  The run may
    have fallen again later: that is the verdict's to read; this is the episode before.  Found once per
    diagnosis (diagnose names it, the notes say it)."""
    key = "episodes.recovered_dip"
    if key not in ctx._results:
        ctx._results[key] = _deepest_dip(ctx)
    return cast("dict[str, Any] | None", ctx._results[key])


def _deepest_dip(ctx: Ctx) -> dict[str, Any] | None:
    g = goal(ctx)
    if g is None:
        return None
    s, v = ctx.data(g)
    n = v.size
    if n < 2 or not covers(n, float(s[-1] - s[0]), get("min_points")):
        return None
    w = max(3, n // 10)
    if n < 5 * w:
        return None
    c = np.concatenate(([0.0], np.cumsum(v)))
    roll = (c[w:] - c[:-w]) / w  # roll[i] = mean of v[i : i + w]
    lo, hi = w, n - 2 * w  # a dip with w points before it and 2 w after it
    noise = ctx.noise(g)
    scale = goal_scale(ctx, g) or 1.0
    # one candidate per stretch of w windows (its lowest), the largest fall from the mean before first
    starts = np.arange(lo, hi + 1, w)
    cand = [int(a + np.argmin(roll[a : min(a + w, hi + 1)])) for a in starts.tolist()]
    fall = [(c[j] - c[max(0, j - 3 * w)]) / (j - max(0, j - 3 * w)) - roll[j] for j in cand]
    for j in [cand[k] for k in np.argsort(fall)[::-1].tolist()]:
        pre, post = v[max(0, j - 3 * w) : j], v[j + w : j + 3 * w]
        before, low, after = float(np.median(pre)), float(roll[j]), float(np.median(post))
        drop_bar = max(
            get("score_drop") * abs(before),
            get("goal_material") * scale,
            get("goal_z") * noise * float(np.sqrt(1 / w + 1 / pre.size)),
        )
        if before - low < drop_bar or before - float(np.median(v[j : j + w])) < drop_bar:
            continue  # not a material fall -- or one carried by an outlier or two (the window's median held)
        if abs(before) < get("near_zero"):
            continue  # a goal in the all-wrong zone had nothing to lose
        back_bar = max(
            get("goal_material") * scale, get("goal_z") * noise * float(np.sqrt(1 / pre.size + 1 / post.size))
        )
        if after < before - back_bar or after - low < HALF * (before - low):
            continue  # it did not come back (to within the margin, and by at least half of its fall)
        a, b = int(s[j]), int(s[j + w - 1])
        moved = _moved(ctx, a, b)
        if moved:
            return {
                "goal": g,
                "before": before,
                "low": low,
                "after": after,
                "from_step": a,
                "to_step": b,
                "moved": moved,
            }
    return None


def _moved(ctx: Ctx, a: int, b: int) -> list[str]:
    """The vitals that broke over steps a..b against their level before a, as 'name value' words."""
    out: list[str] = []
    for m in ("entropy", "ratio_mean", "kl", "trunc"):
        s, v = ctx.data(m)
        if v.size == 0:
            continue
        inside, before = v[(s >= a) & (s <= b)], v[s < a]
        if inside.size == 0 or before.size < 3:
            continue
        base = float(np.median(before[-max(3, before.size // 2) :]))
        if m == "entropy" and base > 0 and float(np.max(inside)) >= get("entropy_rise") * base:
            out.append(f"entropy x{float(np.max(inside)) / base:.1f}")
        elif m == "ratio_mean":
            far = float(np.max(np.abs(inside - 1)))
            if far >= get("ratio_far") and abs(base - 1) < get("ratio_far"):
                out.append(f"ratio_mean {float(inside[int(np.argmax(np.abs(inside - 1)))]):.3g}")
        elif m == "kl":
            top = float(np.max(inside))
            if top + get("kl_floor") >= get("kl_fast") * (max(base, 0.0) + get("kl_floor")):
                out.append(f"kl {base:.3g} -> {top:.3g}")
        elif m == "trunc" and float(np.max(inside)) - base >= get("trunc_high"):
            out.append(f"trunc {base:.2g} -> {float(np.max(inside)):.2g}")
    return out


def notes(ctx: Ctx) -> list[Msg]:
    """The run's notes on an episode that came back (empty when there is none)."""
    d = recovered_dip(ctx)
    if d is None:
        return []
    return [
        Msg(
            "note.recovered_dip",
            goal=d["goal"],
            before=f"{d['before']:.3g}",
            low=f"{d['low']:.3g}",
            after=f"{d['after']:.3g}",
            start=d["from_step"],
            end=d["to_step"],
            moved=", ".join(d["moved"]),
        )
    ]


def recovered(dip: dict[str, Any], f: Finding) -> Finding:
    """`f`, what the rules named on the run up to the end of a dip that came back, kept as a warning
    reading "recovered", with the dip's numbers."""
    ev = {
        **f.evidence,
        "reading": "recovered",
        "goal_metric": dip["goal"],
        "goal_before": round(dip["before"], 4),
        "goal_low": round(dip["low"], 4),
        "goal_after": round(dip["after"], 4),
        "episode_steps": f"{dip['from_step']}-{dip['to_step']}",
        "episode_moved": ", ".join(dip["moved"]),
    }
    return replace(f, severity="warning", evidence=ev)
