"""batch_noise: the curves jitter but the updates are calm -- observation noise (pair D1), info only.

A small effective batch makes every logged mean noisy; nothing needs fixing.  The finding exists
to say *why* the jitter is harmless: clip_frac and grad norm are normal.
"""

from __future__ import annotations

from .actions import action_for
from .context import Ctx, rnd, ro
from .model import Finding
from .updates import assess

ID = "batch_noise"


def check(ctx: Ctx) -> Finding | None:
    u = assess(ctx)
    if u.jitter_metric is None or u.clip_high or u.gnorm_high:
        return None
    ev: dict[str, object] = {f"{u.jitter_metric}_jitter": rnd(u.jitter, 3)}
    ruled, missing = [], []
    if u.clip is not None:
        ev["clip_frac_late"] = rnd(u.clip, 3)
    if u.gnorm is not None:
        ev["gnorm_late"] = rnd(u.gnorm, 3)
    if u.clip_normal and u.gnorm_normal:
        ruled.append(ro("lr_too_high", "clip_frac", u.clip, "clip_normal"))
        ruled.append(ro("lr_too_high", "gnorm", u.gnorm, "gnorm_normal"))
    elif u.gnorm_normal:
        ruled.append(ro("lr_too_high", "gnorm", u.gnorm, "gnorm_normal"))
        if u.clip_na:
            ev["clip_frac"] = "not applicable (constant)"
        else:
            missing.append("clip_frac")
    elif u.clip_normal:
        ruled.append(ro("lr_too_high", "clip_frac", u.clip, "clip_normal"))
        missing.append("gnorm")
    else:
        missing.extend(m for m in ("clip_frac", "gnorm") if m not in ctx.shapes)
    conf = 0.6 + 0.2 * len(ruled)
    return Finding(ID, "info", ctx.first_step(), ev, tuple(ruled), tuple(missing), action_for(ID), round(min(conf, 1.0), 3))
