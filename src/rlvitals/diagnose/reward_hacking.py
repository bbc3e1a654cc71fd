"""reward_hacking: the reward climbs while accuracy does not (the lesson's "reward 与 acc 背离").

Both curves are put on one scale (each divided by its own spread) and their difference is
watched: in a healthy run they move together and the difference stays flat; when the policy
finds a loophole the difference starts to climb.  From that onset the reward must still gain and
the accuracy must not.  Needs both curves: with no acc (or val_acc) logged the tool does not
guess.  When the answers are also exploding in length the more specific length_hacking owns it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..shapes import blocks, hinge_onset
from . import data_too_hard, kl_blowup, length_hacking
from .actions import action_for
from .context import Ctx, rnd, ro
from .model import Finding

ID = "reward_hacking"
MIN_AFTER = 10   # points after the onset: fewer cannot show a trend one way and flatness the other


def _truth(ctx: Ctx) -> str | None:
    for m in ("acc", "val_acc"):
        if m in ctx.shapes and ctx.shapes[m].word != "short":
            return m
    return None


def _spread(v: np.ndarray) -> float:
    q = np.percentile(v, [10, 90])
    return float(q[1] - q[0])


def divergence_onset(ctx: Ctx, truth: str) -> int | None:
    """Step where reward and truth (both scaled by their spread) began to part ways."""
    sr, vr = ctx.data("reward")
    sa, va = ctx.data(truth)
    if sr.size == sa.size and np.array_equal(sr, sa):   # the usual case: logged together
        common, r, a = sr, vr, va
    else:
        common, ir, ia = np.intersect1d(sr, sa, return_indices=True)
        r, a = vr[ir], va[ia]
    if common.size < 10:
        return None
    d = r / (_spread(r) or 1.0) - a / (_spread(a) or 1.0)
    t, x = blocks(common, d, 64)
    k, _ = hinge_onset(t, x, "start")
    return int(t[k])


def _gain_in_spreads(ctx: Ctx, name: str, a: float) -> float:
    """Change from the tenth after fraction a to the last tenth, in units of the 10-90% spread."""
    _, v = ctx.data(name)
    k = max(1, v.size // 10)
    i = int(a * v.size)
    spread = _spread(v) or 1.0
    return (float(v[-k:].mean()) - float(v[i:i + k].mean())) / spread


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("reward") or not ctx.gained("reward", rel=0.15):
        return None
    truth = _truth(ctx)
    if truth is None:
        return None
    onset = divergence_onset(ctx, truth)
    if onset is None:
        return None
    s, _ = ctx.data("reward")
    a = float(np.searchsorted(s, onset)) / max(s.size, 1)
    a = min(a, 0.8)
    sa, _ = ctx.data(truth)
    a_truth = min(float(np.searchsorted(sa, onset)) / max(sa.size, 1), 0.8)
    if s.size - int(a * s.size) < MIN_AFTER or not ctx.gained("reward", rel=0.1, a=a):
        return None
    if ctx.gained(truth, rel=0.05, a=a_truth) or ctx.still_rising(truth, a_truth):
        return None
    # the parting must be real: after the onset the reward gains at least half its spread more
    # than acc does (both in their own spread units), not one noisy tenth against another
    gr, ga = _gain_in_spreads(ctx, "reward", a), _gain_in_spreads(ctx, truth, a_truth)
    if gr - ga < 0.5:
        return None
    a0, a1 = ctx.start(truth), ctx.end(truth)
    r0, r1 = ctx.start("reward"), ctx.end("reward")
    ev: dict[str, Any] = {"reward_start": rnd(r0), "reward_end": rnd(r1), "acc_start": rnd(a0), "acc_end": rnd(a1),
          "acc_at_onset": rnd(ctx.window(truth, a_truth, a_truth + 0.1)), "acc_metric": truth,
          "acc_constant": ctx.word(truth) == "constant"}
    if ctx.check(data_too_hard) is not None:
        return None  # a reward creeping up from ~0 on all-wrong groups is not a loophole
    ruled, missing = [], []
    if ctx.has("len"):
        l0, l1 = ctx.start("len"), ctx.end("len")
        ev["len_start"], ev["len_end"] = rnd(l0), rnd(l1)
        if ctx.check(length_hacking) is not None:
            return None  # the length rule is the more specific explanation
        ruled.append(ro("length_hacking", "len", f"{l0:.4g} → {l1:.4g}", "len_not_exploding"))
    else:
        missing.append("len")
    if ctx.has("kl") and ctx.check(kl_blowup) is None:
        ruled.append(ro("kl_blowup", "kl", ctx.end("kl"), "kl_steady"))
    drop = max(0.0, ev["acc_at_onset"] - a1) if ev["acc_at_onset"] is not None else 0.0
    conf = min(1.0, 0.8 + 0.5 * drop + 0.1 * (ctx.word(truth) in ("constant", "flat", "falling")))
    return Finding(ID, "critical", onset, ev, tuple(ruled), tuple(missing), action_for(ID), round(conf, 3))
