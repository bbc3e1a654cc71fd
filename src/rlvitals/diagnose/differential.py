"""The differential: which look-alikes a finding is told apart from, and with which normal metric.

For each finding, its look-alikes (the lesson's confusable pairs and their kin); for each look-alike,
the predicates that rule it out (predicates.py) and the reason a report shows; and the metric that
would decide it when the log lacks it.  Every "ruled out" line of every finding comes from here.

    differential(ctx, "sync_failure", fired={"sync_failure"})  # -> (ruled_out, missing)
"""

from __future__ import annotations

from .context import Ctx, ro
from .model import RuledOut
from .predicates import pred
from .registry import SPECS

__all__ = ["DECIDES", "LOOKALIKES", "RULERS", "differential"]


# Read from the registry: for each look-alike, the predicates that rule it out (each that holds is
# listed) with the i18n reason shown; the look-alikes each finding is told apart from; the metric
# that would decide a look-alike when it is missing.
RULERS: dict[str, tuple[tuple[str, str], ...]] = {
    sp.id: sp.ruled_out_by for sp in SPECS if sp.ruled_out_by or sp.id == "reward_hacking"
}
LOOKALIKES: dict[str, tuple[str, ...]] = {sp.id: sp.lookalikes for sp in SPECS if sp.lookalikes}
DECIDES: dict[str, str] = {sp.id: sp.decides for sp in SPECS if sp.decides}


def differential(ctx: Ctx, finding_id: str, fired: set[str]) -> tuple[tuple[RuledOut, ...], tuple[str, ...]]:
    """Ruled-out look-alikes (each with the predicate that excludes it) and the metrics that would decide the rest.

    A look-alike that fired itself (`fired`) is never listed as ruled out.
    """
    ruled: list[RuledOut] = []
    missing: list[str] = []
    for look in LOOKALIKES.get(finding_id, ()):
        if look in fired or look == finding_id:
            continue
        found = False
        for pname, reason in RULERS.get(look, ()):
            p = pred(ctx, pname)
            if p.holds:
                ruled.append(ro(look, p.metric, p.value, p.reason or reason))
                found = True
        if not found:
            m = DECIDES.get(look)
            if m is not None and not ctx.has(m) and m not in missing:
                missing.append(m)
    return tuple(ruled), tuple(missing)
