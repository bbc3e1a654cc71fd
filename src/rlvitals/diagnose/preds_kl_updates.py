"""The named predicates of the updates (clip fraction, grad norm, finite values) and of the KL,
with those that ask a rule's measure for a relation (registry.RELATIONS: the KL at the cut, a length
term jumping, answers growing while the KL or the entropy breaks away): the families predicates.py
collects into `PREDICATES`."""

from __future__ import annotations

from typing import Any

import numpy as np

from .context import Ctx, rnd
from .pred_core import Pred, ends, holds, pred
from .thresholds import get
from .timing import entropy_flattening, entropy_jump, entropy_led_kl, entropy_sharpening, kl_clean, kl_jump, kl_surge

__all__ = [
    "all_finite",
    "clip_high",
    "clip_normal",
    "cut_undecided",
    "entropy_with_kl_leaving",
    "gnorm_high",
    "gnorm_normal",
    "kl_flattening",
    "kl_follows_entropy",
    "kl_jumped_at_cut",
    "kl_lifted_by_updates",
    "kl_moved_with_entropy",
    "kl_sharpening",
    "kl_steady",
    "len_with_entropy_breaking",
    "len_with_kl_breaking",
    "length_term_jumped",
]


# -- updates --------------------------------------------------------------------------------------
def _updates(ctx: Ctx) -> Any:
    from .updates import assess

    return assess(ctx)


def _level(held: bool, metric: str, value: float | None) -> Pred:
    """A predicate on a late update level (clip fraction, grad norm): known only when logged."""
    return Pred(held, metric, rnd(value) if value is not None else None, value is not None)


def clip_normal(ctx: Ctx) -> Pred:
    """late clip fraction below `clip_normal`."""
    u = _updates(ctx)
    return _level(u.clip_normal, "clip_frac", u.clip)


def clip_high(ctx: Ctx) -> Pred:
    """late clip fraction at or above `clip_high`."""
    u = _updates(ctx)
    return _level(u.clip_high, "clip_frac", u.clip)


def gnorm_normal(ctx: Ctx) -> Pred:
    """grad norm logged and not high (absolute, jumpy or climbing)."""
    u = _updates(ctx)
    return _level(u.gnorm_normal, "gnorm", u.gnorm)


def gnorm_high(ctx: Ctx) -> Pred:
    """grad norm above `gnorm_high`, jumpy (`gnorm_jitter`) or `gnorm_rise` times its start."""
    u = _updates(ctx)
    return _level(u.gnorm_high, "gnorm", u.gnorm)


def all_finite(ctx: Ctx) -> Pred:
    """No NaN or inf in loss, grad norm, KL, reward or entropy."""
    bad = [
        m
        for m in ("loss", "gnorm", "kl", "reward", "entropy")
        if (s := ctx.series(m)) is not None and (~s.finite).any()
    ]
    metric = next((m for m in ("gnorm", "loss", "kl", "reward") if ctx.series(m) is not None), "reward")
    return Pred(not bad, metric, "finite" if not bad else "NaN/inf")


# -- KL -------------------------------------------------------------------------------------------
def kl_steady(ctx: Ctx) -> Pred:
    """KL (one-step spikes removed) neither surged `kl_surge` times within a fifth of the run nor ended above `kl_danger`."""
    if not ctx.has("kl"):
        return Pred(False, "kl", None, False)
    _, v, _ = kl_clean(ctx)
    k = max(1, v.size // 10)
    end = float(np.mean(v[-k:]))
    ok = kl_surge(ctx) < get("kl_surge") and end < get("kl_danger")
    return Pred(ok, "kl", rnd(end))


def kl_follows_entropy(ctx: Ctx) -> Pred:
    """KL climbed (no jump: `kl_jump` below `kl_abrupt`) while entropy fell past `entropy_half` of its start or rose
    `entropy_rise` times -- or the entropy itself leapt up `entropy_rise_fail` times, at least as abruptly as the KL
    (`entropy_jump` >= `entropy_leap` and >= `kl_jump`) -- or the entropy fell past `entropy_half` and its fall began
    with the KL's rise (`entropy_led_kl`), whatever the KL's speed: the policy sharpening (or flattening)
    moved it from the reference, the KL is a consequence."""
    if not ctx.has("kl"):
        return Pred(False, "kl", None, False)
    e = ends(ctx, "entropy")
    if e is None:
        return Pred(False, "entropy", None, False)
    e0, e1 = e
    moved = e0 > 0 and e1 >= 0 and (1 - e1 / e0 >= get("entropy_half") or e1 / e0 >= get("entropy_rise"))
    j = kl_jump(ctx)
    k = ends(ctx, "kl")
    shown = f"{k[0]:.3g} → {k[1]:.3g}" if k is not None else None
    if moved and j < get("kl_abrupt"):
        return Pred(True, "kl", shown)
    # sharpening first: the entropy fell past half and its fall had begun no later than the KL's
    # rise (谁先动谁是因) -- a KL that rose while the policy narrowed is the narrowing's, however fast
    if e0 > 0 and e1 >= 0 and 1 - e1 / e0 >= get("entropy_half") and entropy_led_kl(ctx):
        return Pred(True, "kl", shown)
    # the entropy leapt up (as abruptly as a KL jump) to well above its start: the policy flattened
    # at once and dragged the KL along in the same steps
    ej = entropy_jump(ctx)
    leapt = e0 > 0 and e1 / e0 >= get("entropy_rise_fail") and ej >= get("entropy_leap") and ej >= j
    return Pred(leapt, "kl", shown)


def kl_sharpening(ctx: Ctx) -> Pred:
    """The entropy fell and slid rather than dropped at once, and the KL never ran more than `kl_sharpen` times
    ahead of the entropy lost (`timing.entropy_sharpening`): the KL is what the narrowing costs."""
    if not ctx.has("kl") or not ctx.has("entropy"):
        return Pred(False, "kl", None, False)
    return Pred(entropy_sharpening(ctx), "kl")


def kl_flattening(ctx: Ctx) -> Pred:
    """The entropy rose and the KL never gained more than `kl_flatten` times the entropy's gain
    (`timing.entropy_flattening`): the KL is what the run-up costs."""
    if not ctx.has("kl") or not ctx.has("entropy"):
        return Pred(False, "kl", None, False)
    return Pred(entropy_flattening(ctx), "kl")


def _tenths(v: np.ndarray) -> float:
    """Median of the last tenth (at least 3 points) over the median of the tenth before (1.0 when too short)."""
    k = max(3, v.size // 10)
    if v.size < 2 * k:
        return 1.0
    before = float(np.median(v[-2 * k : -k]))
    return float(np.median(v[-k:])) / before if before > 0 else 1.0


def kl_lifted_by_updates(ctx: Ctx) -> Pred:
    """The KL is only taking off (`kl_blowup.only_taking_off`: no surge, not past `kl_danger`, not multiplying
    with the entropy) while the step size is up -- the clip fraction or the grad norm high, the updates growing
    (`updates.growing`), or either's last tenth `update_growth` times the tenth before: the learning rate's."""
    from .kl_blowup import only_taking_off

    if not ctx.has("kl"):
        return Pred(False, "kl", None, False)
    lifted = (
        holds(ctx, "clip_high")
        or holds(ctx, "gnorm_high")
        or _updates(ctx).growing
        or any(_tenths(ctx.data(m)[1]) >= get("update_growth") for m in ("clip_frac", "gnorm") if ctx.applicable(m))
    )
    return Pred(lifted and only_taking_off(ctx), "kl")


def kl_jumped_at_cut(ctx: Ctx) -> Pred:
    """The KL's median over the twentieth of the run after the truncation rate began its rise is `kl_fast`
    times (+ `kl_floor`) its median before (`truncation_starvation.kl_jumped_at_cut`): the policy broke away
    as the answers ran long."""
    from .truncation_starvation import kl_jumped_at_cut as jumped

    return Pred(jumped(ctx), "kl", None, ctx.has("kl"))


def length_term_jumped(ctx: Ctx) -> Pred:
    """The reward's parting from its truth is a logged length term jumping
    (`reward_hacking.length_term_carries`)."""
    from .reward_hacking import length_term_carries

    return Pred(length_term_carries(ctx), "reward", None, ctx.has("reward"))


def cut_undecided(ctx: Ctx) -> Pred:
    """The growing answers run into the cap and neither the reward paying for length nor growth past a
    flat truth before the cap decides the pair with truncation_starvation yet
    (`length_hacking.cut_undecided`)."""
    from .length_hacking import cut_undecided as undecided

    return Pred(undecided(ctx), "trunc", None, ctx.has("trunc"))


def len_with_kl_breaking(ctx: Ctx) -> Pred:
    """No whole-run length test fired and the KL's last stretch runs `kl_breaking` times above its own line
    (`length_hacking.breaking_away`): growing answers are the policy's break-up."""
    from .length_hacking import breaking_away

    return Pred(breaking_away(ctx, "kl"), "kl", None, ctx.has("kl"))


def len_with_entropy_breaking(ctx: Ctx) -> Pred:
    """No whole-run length test fired and the entropy's last stretch runs `len_accel` above its own line
    (`length_hacking.breaking_away`): growing answers are a flattening policy's rambling."""
    from .length_hacking import breaking_away

    return Pred(breaking_away(ctx, "entropy"), "entropy", None, ctx.has("entropy"))


def entropy_with_kl_leaving(ctx: Ctx) -> Pred:
    """Only entropy_explosion's on-the-way run-up test is asked, and the KL left its own line upward with it by
    more than the run-up costs (`entropy_explosion.kl_left_with_run_up`): the entropy may follow a blow-up."""
    from .entropy_explosion import kl_left_with_run_up

    return Pred(kl_left_with_run_up(ctx), "kl", None, ctx.has("kl"))


def kl_moved_with_entropy(ctx: Ctx) -> Pred:
    """The KL did move (not `kl_steady`) but `kl_follows_entropy`: the ruler a report shows for kl_blowup then
    (a steady KL is ruled out by kl_steady already; one line, not two)."""
    p = pred(ctx, "kl_follows_entropy")
    return Pred(p.holds and not pred(ctx, "kl_steady").holds, p.metric, p.value, p.known)
