"""Diagnose a run: name each curve's shape, run every finding rule, order them, give the verdict.

    diagnose(run, samples=None) -> Diagnosis

One module per finding, each with `check(ctx) -> Finding | None`; `RULES` lists them in the order
used to break ties (more specific causes first).  Everything is linear in the run's length: the
shapes do one O(n) pass per metric and the rules read their cached numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..i18n import Msg
from ..run import CANONICAL, VITALS, Run
from ..samples import Samples
from ..shapes import shapes_of
from . import (
    batch_noise,
    data_too_easy,
    data_too_hard,
    entropy_collapse,
    entropy_explosion,
    kl_blowup,
    length_hacking,
    lr_too_high,
    numeric_instability,
    outlier_step,
    plateau,
    reward_hacking,
    stalled,
    sync_failure,
    truncation_starvation,
)
from .context import Ctx
from .episodes import BLOW_UPS, recovered, recovered_dip
from .episodes import notes as episode_notes
from .model import FINDING_IDS, Diagnosis, Finding
from .registry import SPECS
from .thresholds import get
from .verdict import goal_summary, order, resolve, verdict_of

__all__ = ["FINDING_IDS", "RULES", "Diagnosis", "Finding", "diagnose"]

# clip_frac is exactly 0 and ratio_mean exactly 1 when each batch gets one optimizer step; a KL is
# exactly 0 at every step when it is not computed (no reference model, a KL coefficient of 0)
BY_CONSTRUCTION = frozenset({"clip_frac", "ratio_mean", "kl"})

# one module per finding (diagnose/<id>.py), run in the registry's order
_BY_ID = {
    m.ID: m
    for m in (
        batch_noise,
        data_too_easy,
        data_too_hard,
        entropy_collapse,
        entropy_explosion,
        kl_blowup,
        length_hacking,
        lr_too_high,
        numeric_instability,
        outlier_step,
        plateau,
        reward_hacking,
        stalled,
        sync_failure,
        truncation_starvation,
    )
}
MODULES = tuple(_BY_ID[sp.id] for sp in SPECS if sp.rule)
RULES: tuple[tuple[str, Callable[[Ctx], Finding | None]], ...] = tuple((m.ID, m.check) for m in MODULES)
# not_learning is not a rule of its own: verdict.resolve adds it when nothing else explains a goal
# that does not improve.


def _kl_sign(ctx: Ctx) -> list[Msg]:
    """A KL logged below 0 on average (its mean beyond goal_z standard errors under 0, over at least
    min_points points): KL(pi || ref) is never negative on average, so the estimator or its sign is
    broken (a per-token k1 estimate averages to about 0 near the reference, not clearly below it)."""
    _, v = ctx.data("kl")
    if v.size < get("min_points"):
        return []
    mean, sd = float(np.mean(v)), float(np.std(v))
    z = -mean / (sd / np.sqrt(v.size)) if sd > 0 else (np.inf if mean < 0 else 0.0)
    if mean >= 0 or z < get("goal_z"):
        return []
    return [Msg("note.kl_negative", share=f"{float(np.mean(v < 0)):.0%}", mean=f"{mean:.3g}", z=f"{min(z, 999.0):.0f}")]


def _run_summary(run: Run, ctx: Ctx, findings: tuple[Finding, ...]) -> dict[str, Any]:
    series = [s for s in run.series.values() if len(s)]
    # the union of steps costs a sort; skip it when every series shares one step array
    if series and all(s.steps is series[0].steps or np.array_equal(s.steps, series[0].steps) for s in series):
        n = len(series[0])
    else:
        n = run.n_steps
    return {
        "name": run.name,
        "format": run.format,
        "steps": n,
        "first_step": ctx.first_step() if series else None,
        "last_step": ctx.last_step() if series else None,
        "segments": len(run.segments),
        **({"interleaved": True} if run.meta.get("interleaved") else {}),
        # an episode a finding already tells (reading "recovered") is not said twice
        "notes": list(run.notes)
        + _kl_sign(ctx)
        + ([] if any(f.evidence.get("reading") == "recovered" for f in findings) else episode_notes(ctx)),
        "skipped": dict(run.skipped),
        "dropped": dict(run.dropped),
        "missing_vitals": [m for m in VITALS if m not in run.series],
        # constant by construction when there is one update per batch: not a health signal
        "not_applicable": sorted(m for m, sh in ctx.shapes.items() if sh.word == "constant" and m in BY_CONSTRUCTION),
        "proxies": {m: s.note or s.source for m, s in run.series.items() if s.proxy},
        "goal": goal_summary(ctx) if series else None,
    }


def diagnose(run: Run, samples: Samples | None = None) -> Diagnosis:
    """The verdict, findings most important first, each curve's shape, and a run summary."""
    ctx = _context(run, samples)
    shapes = dict(ctx.shapes)  # the curves' own shapes, before a rule adds a reward term's (Ctx.has)
    findings = _with_recovered(_findings(ctx), run, ctx, samples)
    return Diagnosis(verdict_of(findings, ctx), findings, shapes, _run_summary(run, ctx, findings))


def _context(run: Run, samples: Samples | None) -> Ctx:
    """The rules' context: the run, each canonical curve's shape, the samples."""
    return Ctx(
        run, shapes_of(Run(run.name, run.format, {k: s for k, s in run.series.items() if k in CANONICAL})), samples
    )


def _findings(ctx: Ctx) -> tuple[Finding, ...]:
    """Every rule's finding, resolved (precedence, materiality, the ruled-out lines) and ordered."""
    found: list[Finding] = []
    for module in MODULES:
        f = ctx.check(module)
        if f is not None:
            found.append(f)
    return resolve(found, ctx)


def _with_recovered(findings: tuple[Finding, ...], run: Run, ctx: Ctx, samples: Samples | None) -> tuple[Finding, ...]:
    """A blow-up the goal came back from (episodes.recovered_dip) is named by the rules read on the run
    up to the dip's end: their top finding, when it names a vital that broke there (episodes.BLOW_UPS),
    stays as a warning reading "recovered" (verdict unstable) -- unless a finding of that kind warns now."""
    dip = recovered_dip(ctx)
    if dip is None:
        return findings
    then = next(iter(_findings(_context(run.upto(dip["to_step"]), samples))), None)  # the rules as they read then
    if then is None or then.severity == "info" or then.id not in BLOW_UPS or then.evidence.get("reading"):
        return findings  # no cause named (or only the goal's own state): the note says the episode
    if any(f.id == then.id and f.severity != "info" for f in findings):
        return findings
    return order([*findings, recovered(dip, then)])


# deprecated: `rlvitals.diagnose(run)` still calls diagnose() and warns, until 0.3 (rlvitals._deprecated)
from .._deprecated import warn_when_called  # noqa: E402

warn_when_called(__name__)
