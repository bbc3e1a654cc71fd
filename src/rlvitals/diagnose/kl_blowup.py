"""kl_blowup: KL to the reference runs away (陡增 = 跑飞); entropy often rises with it.

A healthy KL rises slowly all run (0.002 → 0.045 in the lesson: 20x, but gradual), and a learning
rate that is too high lifts it a few-fold along with clip_frac.  A blow-up is a sustained jump of
more than an order of magnitude over the KL's own level just before it began, to a level that
matters.  Isolated one-step spikes are removed first (`symptoms.kl_clean`): a spike gone the next
step is an outlier step, never a blow-up.  NaNs make it numeric_instability's (verdict.SUPPRESSES).

Critical needs the KL to end at `kl_high` or above (PTT: kl > 0.3 high); an order-of-magnitude rise
to a modest level (0.03 -> 0.14 while a hack drags the policy along) is a warning, so the cause it
follows ranks first.  Early (a prefix, as `watch` sees it) the KL is multiplying now: its last stretch `kl_fast` times
above its own line before, at a level that matters (kl_min), with the entropy rising beyond its
noise over the same steps (the lesson: "entropy 上升 = 可能 KL 跑飞") -- a warning.  A KL taking off
while the step size grows (clip fraction, grad norm: updates.growing) and the entropy holds is the
learning rate's (lr_too_high), not a blow-up.
"""

from __future__ import annotations

import numpy as np

from ..shapes import blocks
from . import confidence as C
from .actions import action_for
from .arith import MICRO
from .context import Ctx, rnd
from .model import Finding
from .predicates import holds
from .symptoms import gap, kl_clean, tail_excess
from .thresholds import get
from .timing import entropy_dropped_at_once, entropy_flattening, first_entropy, jump_window, kl_surge, rolled
from .updates import assess

ID = "kl_blowup"


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("kl"):
        return None
    s, v, _ = kl_clean(ctx)
    if v.size < 10:
        return None
    k = max(1, v.size // 10)
    end = float(np.mean(v[-k:]))
    if end < get("kl_min"):
        return None
    surge = kl_surge(ctx)
    onset = _onset(s, v)
    before = v[s < onset] if onset is not None else v[:0]
    pre = float(np.median(before[-max(3, before.size // 3):])) if before.size else float(np.mean(v[:k]))
    after = v[s >= onset] if onset is not None else v
    top = float(np.max(after)) if after.size else end
    sev = "critical"
    # fast (an order of magnitude within a fifth of the run) or slower but far past any sane KL
    if surge < get("kl_surge") and not (end >= get("kl_danger") and end >= 10 * max(pre, MICRO)):
        lifted = (holds(ctx, "clip_high") or holds(ctx, "gnorm_high") or assess(ctx).growing
                  or any(_tenths(ctx.data(m)[1]) >= get("update_growth") for m in ("clip_frac", "gnorm") if ctx.applicable(m)))
        if not _multiplying(ctx) and (not _taking_off(v) or lifted):
            return None     # (a KL lifted with clip and grad norm is the learning rate's: lr_too_high)
        sev = "warning"                      # early: multiplying now, not yet an order of magnitude
    if end < 3 * max(pre, get("kl_floor")):
        return None   # it surged and came back down: not a run-away now
    if _sharpening(ctx):
        return None   # the KL is what the entropy's slide costs: entropy_collapse's to name, not a blow-up
    if entropy_flattening(ctx):
        return None   # the KL is what the entropy's run-up costs: entropy_explosion's to name
    if end < get("kl_high"):
        sev = "warning"   # an order of magnitude up, but still at a level PTT calls normal: not dead yet
    ev = {"kl_start": rnd(float(np.mean(v[:k]))), "kl_before": rnd(pre), "kl_end": rnd(end),
          "kl_surge": rnd(max(top, end) / max(abs(pre), MICRO), 3), "kl_window_rise": rnd(surge, 3), "kl_max": rnd(top)}
    missing = []
    if ctx.has("entropy"):
        ev["entropy_start"], ev["entropy_end"] = rnd(ctx.start("entropy")), rnd(ctx.end("entropy"))
    else:
        missing.append("entropy")
    conf = min(1.0, C.STRONG + C.DECADE * np.log10(surge))
    since = _jumped_at(s, v, gap(ctx, "kl")) or onset
    return Finding(ID, sev, since, ev, (), tuple(missing), action_for(ID), round(float(conf), 3))


def sharpening_ratio(ctx: Ctx) -> float | None:
    """The most the KL ran ahead of the entropy lost: max, over the KL's points at kl_high or more (a
    level that matters; below it the entropy's own step noise is a fair share of what it lost), of
    kl / (entropy at the first points - entropy then), both as trailing 5-point medians (one-step KL
    spikes removed), the entropy interpolated onto the KL's steps.  None without entropy or a KL that
    never reached kl_high; inf when the KL was high while the entropy had lost nothing.

    A policy that only sharpened is no further from the reference than the entropy it lost: for
    pi = ref^b / Z with b >= 1, KL(pi||ref) = CE(pi, ref) - H(pi) <= H(ref) - H(pi) (the mass moves
    to tokens the reference already favoured, so CE(pi, ref) <= H(ref)).  A blow-up leaves the
    reference first and by more (the KL jumps before the entropy follows: RL loop x2-4 at the steps
    it jumps, sim x300); the rolled levels keep that lead visible for a few steps, where block
    medians over a long run would average it away."""
    if not ctx.has("entropy"):
        return None
    s, v, _ = kl_clean(ctx)
    k = rolled(v)
    m = k >= get("kl_high")
    se, ve = ctx.data("entropy")
    if not m.any() or ve.size == 0:
        return None
    lost = first_entropy(ctx) - np.interp(s[m], se, rolled(ve))
    if (lost <= 0).any():
        return float("inf")
    return float(np.max(k[m] / lost))


def _sharpening(ctx: Ctx) -> bool:
    """The entropy fell, the KL never ran more than kl_sharpen times ahead of the entropy lost
    (sharpening_ratio), and the entropy slid rather than dropped at once (timing.entropy_dropped_at_once): the KL
    is what the narrowing costs, entropy_collapse's to name (谁先动谁是因), whether or not the entropy
    has passed half its level yet."""
    r = sharpening_ratio(ctx)
    return (r is not None and r <= get("kl_sharpen") and ctx.end("entropy") < first_entropy(ctx)
            and not entropy_dropped_at_once(ctx))


def _multiplying(ctx: Ctx) -> bool:
    """The KL's last stretch (clip_tail of the span) is kl_fast times above its own line before, beyond
    len_accel_z standard errors and at kl_min or more, while the entropy rose beyond len_accel_z over it."""
    k = tail_excess(ctx, "kl", get("clip_tail"), log=True)
    if k is None or k[2] < get("len_accel_z") or float(np.exp(k[1])) < get("kl_fast"):
        return False
    s, v = ctx.data("kl")
    if float(np.median(v[int(np.searchsorted(s, k[0])):])) < get("kl_min") or not ctx.has("entropy"):
        return False
    e = tail_excess(ctx, "entropy", get("clip_tail"))
    return e is not None and e[1] > 0 and e[2] >= get("len_accel_z")


def _tenths(v: np.ndarray) -> float:
    """Median of the last tenth (at least 3 points) over the median of the tenth before (1.0 when too short)."""
    k = max(3, v.size // 10)
    if v.size < 2 * k:
        return 1.0
    before = float(np.median(v[-2 * k:-k]))
    return float(np.median(v[-k:])) / before if before > 0 else 1.0


def _taking_off(v: np.ndarray) -> bool:
    """The last tenth of the KL is kl_fast times the tenth before it (both + kl_floor), at a level
    that matters (kl_min), with at least min_points points: a run-away on its way."""
    if v.size < get("min_points"):
        return False
    k = max(3, v.size // 10)
    now, before = float(np.median(v[-k:])), float(np.median(v[-2 * k:-k]))
    fl = get("kl_floor")
    return now >= get("kl_min") and (now + fl) >= get("kl_fast") * (max(before, 0.0) + fl)


def _onset(s: np.ndarray, v: np.ndarray) -> int | None:
    """Where log(kl + kl_floor) had made a fifth of its total rise (the level before it is `kl_before`)."""
    t, y, a, b = _log_blocks(s, v)
    if b <= a:
        return None
    below = np.nonzero(y < a + get("kl_onset_share") * (b - a))[0]
    first_peak = int(np.argmax(y))
    below = below[below < first_peak]
    j = int(below[-1]) + 1 if below.size else 0
    return int(t[min(j, t.size - 1)])


def _jumped_at(s: np.ndarray, v: np.ndarray, every: float = 1.0) -> int | None:
    """When one kl_jump_steps window carries kl_jump_share of the KL's whole log rise (it jumped), the
    block that window's largest one-block rise lands in: the step the report says it began.  A healthy
    KL climbing slowly to 0.06 before a jump to 1.2 makes a fifth of its log rise (`_onset`) long before
    anything went wrong: RL-loop blow-ups at steps 76-113 read "since step 39-43"."""
    t, y, a, b = _log_blocks(s, v)
    w = jump_window(t, every)
    if not b > a or y.size <= w:
        return None
    rise = y[w:] - y[:-w]
    i = int(np.argmax(rise))
    if float(rise[i]) < get("kl_jump_share") * (b - a):
        return None
    return int(t[i + 1 + int(np.argmax(np.diff(y[i:i + w + 1])))])


def _log_blocks(s: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(block steps, log10(kl + kl_floor) over 100 blocks, its first tenth's median, its peak)."""
    t, x = blocks(s, v, 100)
    y = np.log10(np.maximum(x, 0.0) + get("kl_floor"))
    k = max(1, y.size // 10)
    return t, y, float(np.median(y[:k])), float(np.max(y))
