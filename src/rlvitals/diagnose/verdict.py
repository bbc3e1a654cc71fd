"""Order the findings and derive the verdict (learning / cheating / dead / unstable).

Findings are ordered by severity, then confidence.  The top finding at warning or above sets the
verdict through `model.FINDING_IDS`.  With nothing above info the run is `learning` when its
reward or accuracy went up (or it plateaued after rising); otherwise the evidence is too thin to
call it dead without a finding, so it stays `learning` and the run summary says what is missing.
"""

from __future__ import annotations

from .context import Ctx
from .model import FINDING_IDS, Finding

__all__ = ["order", "verdict_of"]


def order(findings: list[Finding]) -> tuple[Finding, ...]:
    # stable: equal rank keeps registry order (more specific rules are registered first)
    return tuple(sorted(findings, key=lambda f: f.rank))


def verdict_of(findings: tuple[Finding, ...], ctx: Ctx) -> str:
    for f in findings:
        if f.severity != "info":
            return FINDING_IDS[f.id]
        break
    return "learning"
