"""data_too_hard: groups come back all-wrong, so there is nothing to learn from (dead).

The goal (an accuracy, or a reward with adv_std to say the groups are uniform) stays near zero
and adv_std low (most groups have zero variance); entropy is not heading to 0, answers are not cut
at the cap (else truncation_starvation), nothing improves.  A reward that keeps climbing on top of
an all-wrong accuracy is being learned or gamed, not starved: that is reward hacking's question --
unless the reward only moves with the accuracy (a reward that is the verifier's score: its "climb"
from 0.0003 to 0.002 is the accuracy's, and an accuracy judged in points has not moved).  Those
cases are declared as relations (registry.RELATIONS: data_too_hard defers while `answers_cut`,
`entropy_to_zero` or `reward_climbs_alone` holds); this detector reports the all-wrong groups only.
A goal creeping up inside the all-wrong zone is still starved unless it is on course to leave it
within another stretch as long as the run (the run's own steps are the horizon).  "All wrong" is a
sustained level, as a ceiling is (materiality.settled_level: the last min_points points): a small
group's last window drawing no right answer is not the floor.  An eval logged too seldom for a
trend of its own that gained a material amount (materiality.few_evals_gained) says the prompts can
be learned: the better witness, as it is for not_learning and stalled.
"""

from __future__ import annotations

from . import confidence as C
from .actions import action_for
from .context import Ctx, rnd
from .materiality import few_evals_gained, settled_level
from .model import Finding
from .predicates import pred
from .symptoms import Trend, goal, trend
from .thresholds import get

ID = "data_too_hard"


def _leaving(ctx: Ctx, g: str, tr: Trend) -> bool:
    """A near-zero goal climbing steadily out of the all-wrong zone: still rising (Kendall's tau),
    by at least rate_move, and on course to pass `near_zero` within another stretch as long as the
    run so far (its end plus the fitted change over the run).  A rate creeping from 0.1% to 4% over
    1000 steps is learning something, but at that pace it is all wrong for another 1000: the data
    is still too hard."""
    return (
        ctx.still_rising(g, 0.0)
        and tr.end - tr.start >= get("rate_move")
        and tr.end + max(tr.fit_move, 0.0) > get("near_zero")
    )


def check(ctx: Ctx) -> Finding | None:
    g = goal(ctx)
    tr = trend(ctx, g) if g else None
    if g is None or tr is None:
        return None
    if g == "reward" and not ctx.has("adv_std"):
        return None  # a reward of unknown scale near 0 says nothing on its own
    near = get("near_zero")
    # a rate creeping from 0.0003 to 0.004 is "x13" but still all-wrong: near-zero gains are
    # judged in absolute terms (acc is a fraction), or by a steady trend
    # (a climb from below 0 -- penalties fading -- up to 0 has not left the all-wrong zone: judged from 0)
    if tr.end > near or tr.peak > 2 * near or tr.end - max(tr.start, 0.0) > near / 2 or _leaving(ctx, g, tr):
        return None
    if settled_level(ctx, g) > near:
        return None  # "all wrong" is a sustained level, as a ceiling is: not a last window of a few noisy points
    if few_evals_gained(ctx):
        return None  # an eval too sparse for a trend gained a material amount: the data can be learned
    ev = {f"{g}_start": rnd(tr.start), f"{g}_end": rnd(tr.end)}
    missing = []
    uniform = pred(ctx, "groups_uniform")
    if uniform.known:
        ev["adv_std_end"] = uniform.value
        if not uniform.holds:
            return None
    else:
        missing.append("adv_std")
    conf = C.VERY_STRONG + C.SIGN * (tr.end < C.ALL_WRONG)
    return Finding(ID, "critical", ctx.first_step(), ev, (), tuple(missing), action_for(ID), round(conf, 3))
