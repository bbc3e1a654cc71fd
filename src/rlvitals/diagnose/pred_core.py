"""The core of the named predicates: the answer a predicate gives (`Pred`), the table it is found in
by name (`PREDICATES`) and the memoised look-up every rule and predicate asks (`pred`, `holds`).

The predicates themselves live in their families (preds_entropy_goal.py, preds_kl_updates.py and
predicates.py itself), which import this module; predicates.py fills `PREDICATES`, in the order
docs/findings.md lists them, and is the one to import from.  A predicate that asks another
(`holds(ctx, "goal_not_zero")`) reaches it through this table, so no family imports another.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from .context import Ctx
from .symptoms import trend

__all__ = ["NO", "PREDICATES", "Pred", "ends", "holds", "pred"]


@dataclass(frozen=True)
class Pred:
    """A predicate's answer: does it hold, and the metric/value a report shows for it."""

    holds: bool
    metric: str
    value: Any = None
    known: bool = True  # False when the deciding metric is missing (then `holds` is False)
    reason: str | None = None  # the i18n ruled-out reason when it is not the RULERS' one


NO = Pred(False, "", None, False)

# name -> predicate; filled (in this order: docs/findings.md) by predicates.py
PREDICATES: dict[str, Callable[[Ctx], Pred]] = {}


def ends(ctx: Ctx, m: str) -> tuple[float, float] | None:
    """The start and end of `m`'s trend (None when it is not logged or has no trend)."""
    tr = trend(ctx, m) if ctx.has(m) else None
    return (tr.start, tr.end) if tr is not None else None


def pred(ctx: Ctx, name: str) -> Pred:
    """The answer of the predicate `name` (PREDICATES), computed once per diagnosis."""
    key = f"pred:{name}"
    if key not in ctx._results:
        ctx._results[key] = PREDICATES[name](ctx)
    return cast(Pred, ctx._results[key])


def holds(ctx: Ctx, name: str) -> bool:
    """Whether the predicate `name` holds (`pred(ctx, name).holds`)."""
    return pred(ctx, name).holds
