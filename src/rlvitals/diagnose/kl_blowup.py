"""kl_blowup: KL to the reference runs away (陡增 = 跑飞); entropy often rises with it.

A healthy KL rises slowly all run (0.002 → 0.045 in the lesson: 20x, but gradual), and a learning
rate that is too high lifts it a few-fold along with clip_frac.  A blow-up is a sustained jump of
more than an order of magnitude over the KL's own level just before it began, to a level that
matters.  Isolated one-step spikes are removed first (`timing.kl_clean`): a spike gone the next
step is an outlier step, never a blow-up.  NaNs make it numeric_instability's (verdict.SUPPRESSES).

Critical needs the KL to end at `kl_high` or above (PTT: kl > 0.3 high); an order-of-magnitude rise
to a modest level (0.03 -> 0.14 while a hack drags the policy along) is a warning, so the cause it
follows ranks first.  A KL that has stopped (`settled`: its last fifth and tenth under kl_fast times a
level it already held) is judged by what it did to a truth (verdict._own_material), from where it
came within kl_fast of that level (`kl_reached_at`): leaving the reference while the accuracy
learns, then holding, is what the learning cost.  Early (a prefix, as `watch` sees it) the KL is
multiplying now: its last stretch `kl_fast` times above its own line before, at a level that
matters (kl_min), with the entropy rising beyond its noise over the same steps (the lesson: "entropy 上升 = 可能 KL 跑飞") -- a warning.  Whose the case is
when the KL only follows something else is declared in registry.RELATIONS, not here: a KL taking off
while the step size grows (clip fraction, grad norm: updates.growing) and the entropy holds is the
learning rate's (lr_too_high); a KL that only costs what the entropy's slide or run-up costs
(predicates.kl_sharpening, kl_flattening) is the entropy finding's.
"""

from __future__ import annotations

import numpy as np

from ..stats import blocks
from . import confidence as C
from .actions import action_for
from .arith import MICRO
from .context import Ctx, rnd
from .model import Finding
from .stretches import tail_excess
from .symptoms import gap
from .thresholds import get
from .timing import jump_window, kl_clean, kl_surge

ID = "kl_blowup"


def _end_level(v: np.ndarray) -> float:
    """Where the KL sits now: its last tenth's median when it holds three points or more, else their
    mean -- a run-away lifts every point of the tenth, not one, and excursions of a few steps (spikes
    the handful rule of kl_clean left in a spiky log) are no level."""
    tail = v[-max(1, v.size // 10) :]
    return float(np.mean(tail)) if tail.size < 3 else float(np.median(tail))


def _levels(s: np.ndarray, v: np.ndarray) -> tuple[float, int | None, float]:
    """(the KL's end level (`_end_level`), its onset (`_onset`), its level just before the onset)."""
    k = max(1, v.size // 10)
    end = _end_level(v)
    onset = _onset(s, v)
    before = v[s < onset] if onset is not None else v[:0]
    pre = float(np.median(before[-max(3, before.size // 3) :])) if before.size else float(np.mean(v[:k]))
    return end, onset, pre


def _slow(ctx: Ctx, end: float, pre: float) -> bool:
    """Neither fast (an order of magnitude within a fifth of the run) nor far past any sane KL."""
    return kl_surge(ctx) < get("kl_surge") and not (end >= get("kl_danger") and end >= 10 * max(pre, MICRO))


def only_taking_off(ctx: Ctx) -> bool:
    """The KL's only evidence is the early kind: slow (no surge, not past kl_danger), not multiplying with the
    entropy (`_multiplying`), its last tenth taking off (`_taking_off`).  Whether that is the learning rate's
    is a relation (registry.RELATIONS, predicates.kl_lifted_by_updates), not this rule's call."""
    if not ctx.has("kl"):
        return False
    s, v, _ = kl_clean(ctx)
    if v.size < 10:
        return False
    end, _, pre = _levels(s, v)
    return _slow(ctx, end, pre) and not _multiplying(ctx) and _taking_off(v)


def check(ctx: Ctx) -> Finding | None:
    if not ctx.has("kl"):
        return None
    s, v, _ = kl_clean(ctx)
    if v.size < 10:
        return None
    k = max(1, v.size // 10)
    end = _end_level(v)
    if end < get("kl_min"):
        return None
    surge = kl_surge(ctx)
    end, onset, pre = _levels(s, v)
    after = v[s >= onset] if onset is not None else v
    top = float(np.max(after)) if after.size else end
    sev = "critical"
    if _slow(ctx, end, pre):
        if not _multiplying(ctx) and not _taking_off(v):
            return None
        sev = "warning"  # early: multiplying now, not yet an order of magnitude
    # it surged and came back down: not a run-away now.  Back to what: the level before the rise --
    # the one just before the onset, or the run's first tenth when lower (the onset, a fifth of the
    # log rise to the peak so far, moves later as a higher peak comes, and its level with it)
    base = min(pre, float(np.median(v[:k])))
    if end < 3 * max(base, get("kl_floor")):
        return None
    if end < get("kl_high"):
        sev = "warning"  # an order of magnitude up, but still at a level PTT calls normal: not dead yet
    ev = {
        "kl_start": rnd(float(np.mean(v[:k]))),
        "kl_before": rnd(pre),
        "kl_end": rnd(end),
        "kl_surge": rnd(max(top, end) / max(abs(pre), MICRO), 3),
        "kl_window_rise": rnd(surge, 3),
        "kl_max": rnd(top),
    }
    held, last = _held(s, v)
    if held is not None:
        ev["kl_held_before"], ev["kl_last_fifth"] = rnd(held), rnd(last)
        # where it came within kl_fast of that level: the goal is judged from there (verdict._material)
        ev["kl_reached_at"] = int(s[int(np.argmax(v >= held / get("kl_fast")))])
    missing = []
    if ctx.has("entropy"):
        ev["entropy_start"], ev["entropy_end"] = rnd(ctx.start("entropy")), rnd(ctx.end("entropy"))
    else:
        missing.append("entropy")
    conf = min(1.0, C.STRONG + C.DECADE * np.log10(surge))
    since = _jumped_at(s, v, gap(ctx, "kl")) or onset
    return Finding(ID, sev, since, ev, (), tuple(missing), action_for(ID), round(float(conf), 3))


def _held(s: np.ndarray, v: np.ndarray) -> tuple[float | None, float]:
    """(the highest level the KL held -- a twentieth of the run, block medians -- before the run's
    last fifth, or None on too few blocks; the last fifth's level).  A run-away is still multiplying
    at the end; a KL whose last fifth sits near a level it already held has stopped (`settled`)."""
    _, x = blocks(s, v, 100)
    cut = x.size - max(2, x.size // 5)
    w = max(3, x.size // 20)
    last = float(np.median(x[cut:]))
    if cut < w:
        return None, last
    return max(float(np.median(x[i : i + w])) for i in range(cut - w + 1)), last


def settled(f: Finding) -> bool:
    """The blow-up's KL has stopped running away: its last fifth and its last tenth are less than
    kl_fast times a level it already held (evidence kl_last_fifth, kl_end < kl_fast x kl_held_before;
    a run-away multiplies).  Whether it did harm is then the goal's to say
    (verdict._own_material): a KL that rose while the goal learned and then held is the distance
    the learning cost -- a PPO run leaving its reference in its first steps, a fast learner."""
    held = f.evidence.get("kl_held_before")
    if not isinstance(held, float):
        return False  # too short a log to have held a level before its last fifth
    now = [x for x in (f.evidence.get("kl_last_fifth"), f.evidence.get("kl_end")) if isinstance(x, float)]
    return bool(now) and max(now) < get("kl_fast") * held  # (the last tenth: a jump there too)


def _multiplying(ctx: Ctx) -> bool:
    """The KL's last stretch (clip_tail of the span) is kl_fast times above its own line before, beyond
    len_accel_z standard errors and at kl_min or more, while the entropy rose beyond len_accel_z over it."""
    k = tail_excess(ctx, "kl", get("clip_tail"), log=True)
    if k is None or k[2] < get("len_accel_z") or float(np.exp(k[1])) < get("kl_fast"):
        return False
    s, v = ctx.data("kl")
    if float(np.median(v[int(np.searchsorted(s, k[0])) :])) < get("kl_min") or not ctx.has("entropy"):
        return False
    e = tail_excess(ctx, "entropy", get("clip_tail"))
    return e is not None and e[1] > 0 and e[2] >= get("len_accel_z")


def _taking_off(v: np.ndarray) -> bool:
    """The last tenth of the KL is kl_fast times the tenth before it (both + kl_floor), at a level
    that matters (kl_min), with at least min_points points: a run-away on its way."""
    if v.size < get("min_points"):
        return False
    k = max(3, v.size // 10)
    now, before = float(np.median(v[-k:])), float(np.median(v[-2 * k : -k]))
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
    return int(t[i + 1 + int(np.argmax(np.diff(y[i : i + w + 1])))])


def _log_blocks(s: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(block steps, log10(kl + kl_floor) over 100 blocks, its first tenth's median, its peak)."""
    t, x = blocks(s, v, 100)
    y = np.log10(np.maximum(x, 0.0) + get("kl_floor"))
    k = max(1, y.size // 10)
    return t, y, float(np.median(y[:k])), float(np.max(y))
