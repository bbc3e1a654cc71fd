"""batch_noise: the curves jitter but the updates are calm -- observation noise (pair D1), info only.

A small effective batch makes every logged mean noisy; nothing needs fixing.  The finding exists
to say *why* the jitter is harmless: clip_frac and grad norm are normal.
"""

from __future__ import annotations

from . import confidence as C
from .actions import action_for
from .context import Ctx, rnd
from .model import Finding
from .updates import assess

ID = "batch_noise"


def check(ctx: Ctx) -> Finding | None:
    u = assess(ctx)
    if u.jitter_metric is None or u.clip_high or u.gnorm_high:
        return None
    ev: dict[str, object] = {f"{u.jitter_metric}_jitter": rnd(u.jitter, 3)}
    if u.clip is not None:
        ev["clip_frac_late"] = rnd(u.clip, 3)
    if u.gnorm is not None:
        ev["gnorm_late"] = rnd(u.gnorm, 3)
    if u.clip_na:
        ev["clip_frac"] = "not applicable (constant)"
    known = (u.clip is not None) + (u.gnorm is not None)
    conf = C.FAIR + 2 * C.SIGN * known
    return Finding(ID, "info", ctx.first_step(), ev, (), (), action_for(ID), round(min(conf, 1.0), 3))
