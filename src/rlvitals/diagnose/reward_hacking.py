"""reward_hacking: the reward climbs while accuracy does not (the lesson's "reward 与 acc 背离").

Needs both curves: with no acc (or val_acc) logged the tool does not guess; it says so.
When the answers are also exploding in length the more specific length_hacking owns the run.
"""

from __future__ import annotations

from . import length_hacking
from .actions import action_for
from .context import Ctx, ro, rnd
from .model import Finding

ID = "reward_hacking"


def _truth(ctx: Ctx) -> str | None:
    for m in ("acc", "val_acc"):
        if m in ctx.shapes and ctx.shapes[m].word != "short":
            return m
    return None


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("reward") or not ctx.gained("reward", rel=0.15):
        return None
    truth = _truth(ctx)
    if truth is None:
        return None
    a0, a1 = ctx.start(truth), ctx.end(truth)
    r0, r1 = ctx.start("reward"), ctx.end("reward")
    if ctx.gained(truth, rel=0.08) and a1 - a0 > 0.02:
        return None
    ev = {"reward_start": rnd(r0), "reward_end": rnd(r1), "acc_start": rnd(a0), "acc_end": rnd(a1),
          "acc_metric": truth, "acc_constant": ctx.word(truth) == "constant"}
    ruled, missing = [], []
    if ctx.has("len"):
        l0, l1 = ctx.start("len"), ctx.end("len")
        ev["len_start"], ev["len_end"] = rnd(l0), rnd(l1)
        if length_hacking.check(ctx) is not None:
            return None  # the length rule is the more specific explanation
        ruled.append(ro("length_hacking", "len", f"{l0:.4g} → {l1:.4g}", "len_not_exploding"))
    else:
        missing.append("len")
    if ctx.has("kl"):
        ruled.append(ro("kl_blowup", "kl", ctx.end("kl"), "kl_steady"))
    onset = ctx.onset("reward", "start")
    drop = max(0.0, a0 - a1)
    conf = min(1.0, 0.75 + 0.5 * drop + 0.1 * (ctx.word(truth) in ("constant", "flat", "falling")))
    return Finding(ID, "critical", onset, ev, tuple(ruled), tuple(missing), action_for(ID), round(conf, 3))
