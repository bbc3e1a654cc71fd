"""entropy_collapse: entropy heads to 0 and the run stops learning (lesson pair A1 / B2).

Low entropy alone is not a collapse: a healthy verl baseline ends at 0.056 while accuracy still
rises, and a reasoning model's healthy entropy can sit at 0.1-0.5.  So the rule needs the level
AND the slope (a large relative fall) AND a consequence: reward/acc stalling, groups turning
uniform (adv_std low), answers shrinking, or near-identical samples in the rollout dumps.
"""

from __future__ import annotations

from .actions import action_for
from .context import Ctx, rnd, ro
from .model import Finding

ID = "entropy_collapse"
DROP = 0.80          # entropy ends below 20% of where it started


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("entropy"):
        return None
    e0, e1 = ctx.start("entropy"), ctx.end("entropy")
    if not (e0 > 0) or e1 < 0:
        return None
    drop = 1.0 - e1 / e0
    if drop < DROP or ctx.gained("entropy", rel=0.0, a=0.6):
        return None
    ev: dict = {"entropy_start": rnd(e0), "entropy_end": rnd(e1), "entropy_drop": rnd(drop, 3)}
    consequences = 0
    goals = [g for g in ("acc", "val_acc", "reward") if ctx.has(g)]
    if goals:
        learning = [g for g in goals if ctx.gained(g, a=0.5) or ctx.still_rising(g, 0.5)]
        for g in goals:
            ev[f"{g}_late_gain"] = rnd(ctx.late_gain(g, 0.5), 3)
        if learning:
            # still learning: low entropy here is convergence, not collapse (the verl baseline
            # ends at 0.056 while its score and validation accuracy keep climbing)
            if not (ctx.has("adv_std") and ctx.end("adv_std") < 0.3):
                return None
            ev["still_rising"] = ", ".join(learning)
        else:
            consequences += 1
    if ctx.has("adv_std"):
        a1 = ctx.end("adv_std")
        ev["adv_std_end"] = rnd(a1)
        consequences += a1 < 0.5
    if ctx.has("len"):
        l0, l1 = ctx.start("len"), ctx.end("len")
        if l0 > 0 and l1 / l0 < 0.5:
            ev["len_start"], ev["len_end"] = rnd(l0), rnd(l1)
            consequences += 1
    quotes: tuple[str, ...] = ()
    smp = ctx.samples
    if smp is not None and smp.steps:
        d1 = smp.late_diversity()
        ev["sample_diversity_end"] = rnd(d1, 3)
        if d1 < 0.15:
            consequences += 1
            quotes = smp.quote(late=True)
    if consequences == 0:
        return None

    ruled = []
    missing = list(ctx.missing("ratio_mean"))
    ratio = ctx.series("ratio_mean")
    if ctx.has("ratio_mean") and ratio is not None and not ratio.proxy:
        r1 = ctx.end("ratio_mean")
        if abs(r1 - 1.0) < 0.02:
            ruled.append(ro("sync_failure", "ratio_mean", r1, "ratio_steady"))
            ev["ratio_end"] = rnd(r1, 5)
        else:
            return None  # ratio drifting: the sync rule owns this run
    ruled.append(ro("data_too_easy", "entropy", f"{e0:.3g} → {e1:.3g}", "entropy_to_zero"))
    if ctx.has("kl") and ctx.end("kl") < 5 * max(ctx.window("kl", 0.3, 0.6), 1e-6):
        ruled.append(ro("kl_blowup", "kl", ctx.end("kl"), "kl_steady"))
    if smp is None:
        missing.append("samples")
    onset = ctx.crossing("entropy", 0.25)
    conf = min(1.0, 0.6 + 0.1 * consequences + 0.2 * (drop - DROP) / (1 - DROP))
    return Finding(ID, "critical", onset, ev, tuple(ruled), tuple(missing), action_for(ID), round(conf, 3), quotes)
