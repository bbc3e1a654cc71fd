"""lr_too_high: updates too big to trust (unstable): clip_frac > 20%, large or jumpy grad norm.

Verdict `unstable`: the run may still learn, but each step overshoots.  Told apart from
batch_noise (pair D) by the update metrics, never by the jitter of the reward alone.  With no clip
fraction to say so, the grad norm must be high against itself -- gnorm_rise times its start, or
jumpy (gnorm_jitter) -- not merely above a level: its units depend on the model, the loss's
normalisation and whether it is logged before clipping (`updates.Violence.gnorm_moved`).

Early (a prefix, as `watch` sees it): the step size growing now (updates.growing: the clip fraction
or the grad norm `update_growth` times above its own line) with the clip fraction already past
`clip_normal` on its last stretch.  Short of the lesson's clip > 20%, the entropy running up now
(predicates.entropy_running_up: an entropy bonus or a blow-up driving the steps) vetoes it; past it,
only while the clip fraction jumped there just now, with the entropy (an entropy bonus switched on
lifts both in the same steps: the entropy's rise then says whose the big steps are).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import confidence as C
from .actions import action_for
from .context import Ctx, rnd
from .model import Finding
from .predicates import holds
from .stretches import tail_excess
from .symptoms import WINDOW
from .thresholds import get
from .updates import assess

ID = "lr_too_high"


def _entropy_leaving(ctx: Ctx) -> bool:
    """The entropy is running up now (predicates.entropy_running_up), or its last stretch leaves its
    line upward beyond goal_z standard errors (it may be about to): a bonus or a flattening policy is
    driving the bigger steps -- wait for it to say whose they are."""
    e = tail_excess(ctx, "entropy", get("clip_tail"), log=True) if ctx.has("entropy") else None
    return holds(ctx, "entropy_running_up") or (e is not None and e[2] >= get("goal_z"))


def _jumped_now(ctx: Ctx) -> bool:
    """The clip fraction was within clip_high before its last stretch (clip_tail of the span): the big
    steps began just now, not from the start."""
    s, v = ctx.data("clip_frac")
    cut = float(s[-1]) - get("clip_tail") * float(s[-1] - s[0])
    before = v[s < cut]
    return before.size >= 3 and float(np.median(before[-6:])) < get("clip_high")


def check(ctx: Ctx) -> Finding | None:
    u = assess(ctx)
    if u.clip_high:
        # the lesson's own rule, a strong signal on its own: clip_frac > 20% = single steps too big --
        # unless the clip fraction jumped past it together with an entropy now leaving its line upward
        fired = not (_jumped_now(ctx) and _entropy_leaving(ctx))
    elif u.clip is None:  # missing or not applicable: the grad norm must say so, against its own
        # start or its own jitter (not its level alone), with jitter in the scores or by itself
        # climbing 5x (PTT: 3x baseline is already unstable; 10x an explosion)
        fired = u.gnorm_moved and (u.jitter_metric is not None or (u.gnorm_rise or 0) >= get("gnorm_climb"))
    else:
        # on the way up: clip already past normal and the grad norm climbing past gnorm_rise x its start
        fired = u.clip >= get("clip_normal") and (u.gnorm_rise or 0) >= get("gnorm_rise")
        if not fired and u.growing:
            _, cv = ctx.data("clip_frac")
            fired = float(np.median(cv[-6:])) >= get("clip_normal")
        # an entropy running up now drives the bigger steps (a bonus, a flattening policy): not the LR's;
        # one leaving its line upward at all (goal_z) may be about to: wait for it to say whose they are
        fired = fired and not _entropy_leaving(ctx)
    if not fired:
        return None
    ev: dict[str, Any] = {}
    missing = []
    if u.clip is not None:
        ev["clip_frac_late"] = rnd(u.clip, 3)
    elif u.clip_na:
        ev["clip_frac"] = "not applicable (constant)"
    else:
        missing.append("clip_frac")
    if u.gnorm is not None:
        ev["gnorm_late"] = rnd(u.gnorm, 3)
        ev["gnorm_rise"] = rnd(u.gnorm_rise, 3)
        ev["gnorm_jitter"] = rnd(u.gnorm_jitter, 3)
    else:
        missing.append("gnorm")
    if u.jitter_metric:
        ev[f"{u.jitter_metric}_jitter"] = rnd(u.jitter, 3)
    conf = min(1.0, C.FIRM + (u.clip or 0) + C.SIGN * u.gnorm_high)
    # onset: where clip_frac (else the grad norm) left its normal level for good
    onset = (
        ctx.crossing("clip_frac", get("onset_share"))
        if u.clip is not None
        else ctx.crossing("gnorm", get("onset_share"), log=True)
    )
    if u.clip is not None and ctx.start("clip_frac") >= get("clip_high"):
        onset = ctx.first_step()  # too big from the first step (no ramp to find)
    span = ctx.last_step() - ctx.first_step()
    if u.clip is None and onset is not None and onset > ctx.last_step() - WINDOW * span:
        # a jittering grad norm "leaving its level" only in the last window has not left it for good:
        # the jitter is the run's own, from its first step
        onset = ctx.first_step()
    return Finding(
        ID,
        "warning",
        onset if onset is not None else ctx.first_step(),
        ev,
        (),
        tuple(missing),
        action_for(ID),
        round(conf, 3),
    )
