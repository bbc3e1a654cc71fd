"""Precedence, materiality and the verdict -- in one place, read from the registry's two tables.

1. `resolve`: first a finding that defers to another while a named predicate holds (DEFERS: a KL
   that only costs what the entropy's slide costs is entropy_collapse's) is dropped; of two
   look-alikes that cause one another (CHAINS: a KL blow-up and an entropy
   collapse or explosion, or a ratio leaving 1), the one that began first is the cause and the
   other is dropped; then a finding at warning or above *owns* the run against the look-alikes it
   explains (SUPPRESSES: numeric_instability outranks reward_hacking once NaNs appear, ...); owned
   findings are dropped.  After a critical finding of a dead run, a warning of another kind that
   began later is its aftermath, kept as an info note (`_aftermath`).  A finding that did not hurt
   the goal (`_material`: the task solved, or an effect not material in its own range after which
   the goal kept learning) is kept as an info note with the goal's numbers.
2. The verdict is goal-first: "learning" needs the goal to improve and nothing material to warn.
   When no finding warns and the goal does not improve (flat, falling, peaked and fell back, or no
   material gain after a fair number of points), the run gets `not_learning` -- "not learning,
   cause undetermined" -- with the candidate causes the predicates could not rule out and the
   metrics that would decide (verdict dead).  It gets it too when the goal learned and collapsed
   before anything that warns began, and nothing says the run died or cheated (`_collapse_first`):
   the earliest failure owns the run, and the later warnings are its aftermath.
3. `order`: severity first, then PRIORITY (the more specific cause first), then confidence.
4. Every finding's `ruled_out` and `missing` are recomputed from the shared predicates
   (`differential.differential`), so a look-alike that fired is never listed as ruled out.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .context import Ctx
from .differential import differential
from .episodes import READS
from .goal_failed import bought_by_kl, goal_summary, held_through, not_learning, rose_through_kl
from .kl_blowup import settled
from .materiality import at_ceiling, too_soon, unhurt
from .model import FINDING_IDS, SEVERITIES, Finding
from .predicates import pred
from .registry import RELATIONS, SPECS
from .symptoms import goal, trend
from .thresholds import get
from .timing import kl_jump

__all__ = [
    "CHAINS",
    "DEFERS",
    "PRIORITY",
    "SUPPRESSES",
    "goal_summary",
    "not_learning",
    "order",
    "resolve",
    "verdict_of",
]

# Most specific cause first; used after severity (the registry's order).
PRIORITY: tuple[str, ...] = tuple(sp.id for sp in SPECS)

# owner -> the findings it explains when it fires at warning or above (registry.RELATIONS "explains")
SUPPRESSES: dict[str, frozenset[str]] = {
    o: frozenset(r.other for r in RELATIONS if r.kind == "explains" and r.owner == o)
    for o in dict.fromkeys(r.owner for r in RELATIONS if r.kind == "explains")
}

# Look-alikes that often fire together because one causes the other (registry.RELATIONS "chain"):
# the one that began first is the cause and owns the run -- when they are more than `together` of
# the run apart and the later one is not more severe; otherwise severity and SUPPRESSES decide.
# Whatever the onsets, a KL that climbed (no jump) in step with an entropy heading to 0 or running up
# is that entropy move's consequence (predicates.kl_follows_entropy): the entropy finding owns the
# pair; and when they began together but the KL jumped (kl_abrupt: several-fold within a few steps,
# "kl 陡增 = 跑飞"), the blow-up owns it; for other pairs that began together, UPSTREAM names the cause.
CHAINS: tuple[frozenset[str], ...] = tuple(frozenset(r.other.split("|")) for r in RELATIONS if r.kind == "chain")
UPSTREAM: dict[frozenset[str], str] = {
    frozenset(r.other.split("|")): r.owner for r in RELATIONS if r.kind == "chain" and r.owner
}

# finding -> the predicates while which it stands back for another (registry.RELATIONS "defers")
DEFERS: dict[str, tuple[str, ...]] = {
    o: tuple(r.when for r in RELATIONS if r.kind == "defers" and r.other == o)
    for o in dict.fromkeys(r.other for r in RELATIONS if r.kind == "defers")
}

# What a finding did to the goal decides whether it sets the verdict (materiality; registry.HARM_KINDS).
# 1. At its ceiling: a goal that sits at its ceiling (or, but for a cheating finding, a training
#    score on a 0..1 scale at its ceiling: materiality.solved) and lost no material part after the
#    onset was not hurt, whatever the finding (entropy near 0 on a solved task is no collapse; nothing
#    moving in a run resumed at its plateau is no stall: there is nothing left to learn).  Never asked
#    of the findings of harm "never" (about the goal itself, already "learning", or a NaN; finite
#    grad-norm spikes alone are steps, `_harm`).
# 2. Judged by the goal: a finding whose evidence is not material in its own metric's range -- a
#    one-step outlier, jitter of the grad norm with no clip fraction to say so (clip n/a, or not
#    logged), a reward parting from a truth that kept up, a ratio drifting less than ratio_far --
#    sets the verdict only if the goal was hurt (materiality.unhurt by its harm kind).  Findings of
#    harm "own" (entropy toward 0, answers cut, length x N with a flat truth) are material in their
#    own range by their own definition and keep their severity; so is a KL x N (harm "settled")
#    while it still multiplies -- once it stopped (kl_blowup.settled) it is judged by a truth (never
#    by the reward alone, which KL buys: materiality.unhurt "settled").  A KL still multiplying
#    through a goal that learned and held (`_material`) keeps its severity, and the verdict is unstable,
#    not dead: the goal has not paid for it yet.  A step (harm "step") with
#    too few goal points after it to judge (materiality.too_soon) waits as a note until they come.
HARM_KIND: dict[str, str] = {sp.id: sp.harm for sp in SPECS}


def _own_material(f: Finding, ctx: Ctx) -> bool:
    """Is the finding's own evidence material in its metric's range (see HARM_KIND)?"""
    if HARM_KIND[f.id] == "settled":
        # a KL that stopped climbing is judged by what it did to a truth; a reward can be bought
        # with KL (over-optimisation), so a rising reward alone never clears it
        return not settled(f) or bought_by_kl(ctx)
    if HARM_KIND[f.id] == "own":
        return True
    if f.id == "lr_too_high":
        return "clip_frac_late" in f.evidence  # the clip fraction itself says the steps are too big
    if f.id == "sync_failure":
        _, r = ctx.data("ratio_mean")
        return bool(r.size) and float(np.max(np.abs(r[-max(3, r.size // 10) :] - 1.0))) > get("ratio_far")
    return False


# numeric_instability's evidence of finite spikes only: grad-norm points far above its level that came
# back, the numbers still finite -- steps, judged by the goal (a NaN or a 100x explosion is never)
SPIKES_ONLY = frozenset({"gnorm_spikes_30x", "reward_end", "segments"})


# a loss or grad norm at 100x its median, every such point back under gnorm_explode x it afterwards
BACK_AFTER_EACH = ("_peak_over_median", "_points_100x", "_back_after_each")


def _harm(f: Finding) -> str:
    """The finding's harm kind (registry.HARM_KINDS), read from its evidence where a finding holds
    several: repeated finite grad-norm spikes are steps (`SPIKES_ONLY`); points 100x the median that
    each came back (`BACK_AFTER_EACH`) stopped -- "settled": cleared only by a goal that ended a
    material amount above its level at their onset; a NaN, or a 100x level still there, is never."""
    if f.id == "numeric_instability":
        keys = set(f.evidence)
        if keys <= SPIKES_ONLY:
            return "step"
        big = {k.removesuffix("_points_100x") for k in keys if k.endswith("_points_100x")}
        spikes = {k for k in keys if k.endswith(BACK_AFTER_EACH)}
        if keys - spikes <= SPIKES_ONLY and all(f"{m}_back_after_each" in keys for m in big):
            return "settled"
    return HARM_KIND[f.id]


def _judged_from(f: Finding, harm: str) -> int | None:
    """The step the goal is judged from: the onset -- for a KL that stopped, the later step where it
    came within kl_fast of the level it held (`kl_reached_at`): a KL creeping up healthily for a
    hundred steps before it jumped must not lend the jump the goal's gains of that creep."""
    reached = f.evidence.get("kl_reached_at")
    if harm == "settled" and isinstance(reached, int):
        return max(f.onset_step if f.onset_step is not None else reached, reached)
    return f.onset_step


def _material(found: list[Finding], ctx: Ctx) -> list[Finding]:
    """Findings that did not hurt the goal become info notes saying so (with the goal's numbers)."""
    g = goal(ctx)
    out = []
    for f in found:
        eff = None
        harm = _harm(f)
        if _warns(f) and harm != "never" and not (FINDING_IDS[f.id] == "cheating" and g == "reward"):
            # a KL that bought its reward is not excused by that reward at its ceiling (nor by an eval
            # of the same reward): only a truth at its ceiling says the task was solved
            bought = harm == "settled" and bought_by_kl(ctx)
            eff = None if bought else at_ceiling(ctx, f.onset_step, by_reward=FINDING_IDS[f.id] != "cheating")
            if eff is None and not _own_material(f, ctx):
                eff = unhurt(ctx, _judged_from(f, harm), kind=harm)
            # one step that came back, with the goal not yet logged after it: whether it hurt the goal
            # is not known yet, and a step is no failure until the goal says so (it waits as a note)
            if eff is None and harm == "step" and (soon := too_soon(ctx, f.onset_step)) is not None:
                out.append(replace(f, severity="info", evidence={**f.evidence, **soon}))
                continue
            if eff is None and bought and settled(f) and (rose := rose_through_kl(ctx, f)) is not None:
                # the truth that would decide is not logged (the goal is the reward, or an eval of it)
                miss = f.missing if ctx.has("acc") else tuple(dict.fromkeys((*f.missing, "acc")))
                out.append(replace(f, evidence={**f.evidence, **rose}, missing=miss))
                continue
            if eff is None and f.id == "kl_blowup" and not settled(f) and (held := held_through(ctx, f)) is not None:
                # a KL still running away through a goal that learned and held: it keeps its severity,
                # and the verdict is unstable, not dead -- the goal has not paid for it yet (`goal_held`;
                # an entropy collapse or a sampler out of sync ends the learning where it stands: dead)
                out.append(replace(f, evidence={**f.evidence, **held, "goal_held": True}))
                continue
        if eff is None:
            out.append(f)
            continue
        ev = {**f.evidence, **eff.evidence(), "goal_unhurt": True}
        out.append(replace(f, severity="info", evidence=ev))
    return out


# The entropy findings of CHAINS: a KL that climbed in step with their move is its consequence.
ENTROPY_MOVES = frozenset({"entropy_collapse", "entropy_explosion"})


def _chain_losers(found: list[Finding], ctx: Ctx) -> dict[str, Finding]:
    """Of each CHAINS pair that both warn, the one that follows (-> the finding that owns it)."""
    span = max(ctx.last_step() - ctx.first_step(), 1)
    by = {f.id: f for f in found if _warns(f)}
    out: dict[str, Finding] = {}
    for pair in CHAINS:
        a, b = sorted(pair)
        fa, fb = by.get(a), by.get(b)
        if fa is None or fb is None:
            continue
        if "kl_blowup" in pair and pair & ENTROPY_MOVES and pred(ctx, "kl_follows_entropy").holds:
            # a KL that climbed in step with the entropy is its consequence
            out["kl_blowup"] = fb if a == "kl_blowup" else fa
            continue
        if fa.onset_step is None or fb.onset_step is None:
            continue
        if abs(fa.onset_step - fb.onset_step) <= get("together") * span:
            if pair in UPSTREAM:
                out[b if UPSTREAM[pair] == a else a] = by[UPSTREAM[pair]]
            elif "kl_blowup" in pair and kl_jump(ctx) >= get("kl_abrupt"):
                out[b if a == "kl_blowup" else a] = by["kl_blowup"]  # together, but the KL jumped: the blow-up drives
            continue
        first, later = (fa, fb) if fa.onset_step < fb.onset_step else (fb, fa)
        if SEVERITIES.index(later.severity) <= SEVERITIES.index(first.severity):
            out[later.id] = first  # (a later but more severe finding stays: severity orders them)
    return out


def _as_note(f: Finding, kind: str, owner: str, step: int | None) -> Finding:
    """`f` kept as an info note naming the finding that owns it, with no action of its own: the
    report still shows what it did.  kind "consequence": a chain's loser (its owner began first, or
    drives it); "aftermath": it began after the run broke."""
    ev = {**f.evidence, f"{kind}_of": owner, f"{kind}_since_step": step}
    return replace(f, severity="info", evidence=ev, action=None)


def _aftermath(found: list[Finding], ctx: Ctx) -> list[Finding]:
    """Once a critical finding says the run died (verdict dead: a blow-up, a collapse, starved or
    stalled updates) at its onset, a warning of another kind that began after it (beyond `together`
    of the run) reads what the broken run does next -- answers cut, steps jumping, a flat accuracy
    -- not a cause of its own (the lesson: "正常的指标告诉你不对在哪"; after the break no metric is
    normal).  It stays in the report as an info note naming the failure it follows, with no action
    of its own.  A NaN poisons every metric from its own step on, so after numeric_instability at
    critical "after" starts at its onset; and a NaN is news whenever it comes (never an aftermath)."""
    span = max(ctx.last_step() - ctx.first_step(), 1)
    owners = [
        (f.onset_step, f.id)
        for f in found
        if f.severity == "critical" and FINDING_IDS[f.id] == "dead" and f.onset_step is not None
    ]
    out = []
    for f in found:
        after = [
            (step, oid)
            for step, oid in owners
            if oid != f.id
            and f.onset_step is not None
            and (
                f.onset_step > step + get("together") * span or (oid == "numeric_instability" and f.onset_step >= step)
            )
        ]
        # present from the first logged point, a finding follows nothing the log shows
        if not after or not _warns(f) or f.id == "numeric_instability" or f.onset_step == ctx.first_step():
            out.append(f)
            continue
        step, oid = min(after)
        out.append(_as_note(f, "aftermath", oid, step))
    return out


def _collapse_first(found: list[Finding], ctx: Ctx) -> list[Finding] | None:
    """The goal's own collapse, when it came first, owns the run (the earliest failure owns it).

    The goal learned, then gave a real part of it back (`Trend.fell_back`, not_learning's reading),
    and every finding that warns is of a kind that does not say the run died or cheated (unstable,
    or notes of a learning run) and began after the goal left its peak (the highest of 16 block
    medians), beyond `together` of the run: a log that lacks the metric that would name the cause
    (no trunc, no entropy) still shows the goal dying, and what the broken run does next (steps
    jumping, the clip fraction climbing as it thrashes) is its aftermath, kept as an info note.
    The findings with not_learning added, or None."""
    warned = [f for f in found if _warns(f)]
    if not warned or any(FINDING_IDS[f.id] in ("dead", "cheating") for f in warned):
        return None
    g = goal(ctx)
    tr = trend(ctx, g) if g else None
    if g is None or tr is None or not tr.fell_back:
        return None
    c, x = ctx.blocks(g, 16)
    if not x.size:
        return None
    peak = int(c[int(np.argmax(x))])
    span = max(ctx.last_step() - ctx.first_step(), 1)
    if any(f.onset_step is None or f.onset_step <= peak + get("together") * span for f in warned):
        return None
    nl = not_learning(ctx, set())
    if nl is None or nl.evidence.get("goal_trend") not in ("fell", "fell_back"):
        return None
    out = [_as_note(f, "aftermath", nl.id, peak) if _warns(f) else f for f in found]
    return [*out, replace(nl, onset_step=peak)]


def _logged(found: list[Finding], ctx: Ctx) -> list[Finding]:
    """Each onset on a step the log holds (its densest metric's steps): a block centre -- the mean step
    of two points logged every 10 -- is none, so the nearest logged step is said (the later of two
    equally near)."""
    series = [s for s in ctx.run.series.values() if len(s)]
    if not series:
        return found
    steps = max((s.steps for s in series), key=len)
    out = []
    for f in found:
        at = f.onset_step
        if at is None:
            out.append(f)
            continue
        i = int(np.searchsorted(steps, at))
        if i < steps.size and int(steps[i]) == at:
            out.append(f)
            continue
        near = min((int(steps[j]) for j in (i - 1, i) if 0 <= j < steps.size), key=lambda x: (abs(x - at), -x))
        out.append(replace(f, onset_step=near))
    return out


def _warns(f: Finding) -> bool:
    return f.severity != "info"


def order(findings: list[Finding]) -> tuple[Finding, ...]:
    return tuple(sorted(findings, key=lambda f: (-SEVERITIES.index(f.severity), PRIORITY.index(f.id), -f.confidence)))


def _explained(fid: str, owners: set[str]) -> bool:
    """Another warning among `owners` explains `fid` (SUPPRESSES): it is dropped from the report."""
    return any(fid in SUPPRESSES.get(o, ()) for o in owners if o != fid)


def resolve(found: list[Finding], ctx: Ctx) -> tuple[Finding, ...]:
    """Apply precedence, add not_learning when nothing explains a goal that does not improve,
    recompute every ruled-out line from the shared predicates, and order."""
    found = _logged([f for f in found if not any(pred(ctx, p).holds for p in DEFERS.get(f.id, ()))], ctx)
    losers = _chain_losers(found, ctx)
    # a chain's owner that another finding explains is dropped below: its loser then stands on its own
    # (a note naming a cause the report no longer shows would explain nothing)
    owners = {f.id for f in found if _warns(f) and f.id not in losers}
    gone = {o for o in owners if _explained(o, owners)}
    losers = {k: v for k, v in losers.items() if v.id not in gone}
    found = [
        _as_note(f, "consequence", losers[f.id].id, losers[f.id].onset_step) if f.id in losers else f for f in found
    ]
    owners = {f.id for f in found if _warns(f)}
    kept = _aftermath([f for f in found if not _explained(f.id, owners)], ctx)
    kept = _material(kept, ctx)
    fired = {f.id for f in kept if _warns(f)}
    if not fired:
        nl = not_learning(ctx, fired)
        if nl is not None:
            kept.append(nl)
            fired.add(nl.id)
    elif (collapse := _collapse_first(kept, ctx)) is not None:
        kept = collapse
        fired = {f.id for f in kept if _warns(f)}
    out = []
    for f in kept:
        ruled, missing = differential(ctx, f.id, fired)
        extra = tuple(r for r in f.ruled_out if r.metric == "samples" and r.lookalike not in fired)
        miss = tuple(dict.fromkeys((*f.missing, *missing)))
        out.append(replace(f, ruled_out=ruled + extra, missing=miss))
    return order(out)


def verdict_of(findings: tuple[Finding, ...], ctx: Ctx) -> str:
    """The top warning's verdict; "learning" when nothing warns, or when what warns left the verdict to
    a goal that kept rising through it (evidence `goal_sets_verdict`: a KL that bought the reward);
    "unstable" when it reads a blow-up that came back (episodes.READS), or one the goal held through
    (`goal_held`, `_material`)."""
    for f in findings:
        if f.severity == "info":
            break
        if f.evidence.get("reading") in READS:  # a blow-up that came back
            return READS[str(f.evidence["reading"])]
        if f.evidence.get("goal_held"):  # a blow-up the goal has not paid for (yet)
            return "unstable"
        if not f.evidence.get("goal_sets_verdict"):
            return FINDING_IDS[f.id]
    return "learning"
