"""Every number the diagnosis decides on, in one table, each with its meaning and its source.

    from rlvitals.diagnose.thresholds import get, using
    get("clip_high")                      # 0.2: the value in force
    with using({"goal_z": 2.5}):          # a temporary override (the calibration harness uses it)
        diagnose(run)

Sources come first from the lesson's own tables (adv_std bands, clip > 20%, ratio = 1), then from
papers and framework defaults (shared/reference/rules-of-thumb.md), and last "ours": numbers we
chose, with the worlds they were checked on.  A threshold with a `grid` is one the calibration
harness may tune (chosen on some worlds, scored on the others); a threshold without one is fixed
by its source and never tuned.  Rules read every value through `get()` at call time, so `using`
reaches all of them.  docs/findings.md is generated from this table (`python -m
rlvitals.diagnose.docs`).

The rows live by section in threshold_rows_sources.py (the lesson's tables, papers and framework
defaults), threshold_rows_ours.py and threshold_rows_rules.py, built on threshold_core.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .threshold_core import Threshold
from .threshold_rows_ours import OURS_ROWS
from .threshold_rows_rules import RULES_ROWS
from .threshold_rows_sources import SOURCE_ROWS

__all__ = ["TABLE", "Threshold", "calibrated", "get", "using"]

TABLE: dict[str, Threshold] = dict([*SOURCE_ROWS, *OURS_ROWS, *RULES_ROWS])


_OVERRIDES: dict[str, float] = {}


def get(name: str) -> float:
    """The value in force (an override from `using`, else the table's)."""
    if name in _OVERRIDES:
        return _OVERRIDES[name]
    return TABLE[name].value


@contextmanager
def using(overrides: dict[str, float]) -> Iterator[None]:
    """Temporarily override threshold values (not thread-safe)."""
    unknown = set(overrides) - set(TABLE)
    if unknown:
        raise KeyError(f"unknown thresholds: {sorted(unknown)}")
    saved = dict(_OVERRIDES)
    _OVERRIDES.update({k: float(v) for k, v in overrides.items()})
    try:
        yield
    finally:
        _OVERRIDES.clear()
        _OVERRIDES.update(saved)


def calibrated() -> dict[str, Threshold]:
    """The thresholds a calibration may tune (those with a grid)."""
    return {k: t for k, t in TABLE.items() if t.grid}
