"""Runs side by side (`rlvitals compare A B [C ...]`): the lesson's pair / diff for your own runs.

    part_ways(a, b) -> Parting        # the step where two runs part, and the metric that parts first
    summarize(run, diag) -> Row       # one run as a row: verdict, goal gain, top finding and onset
    ranked(rows) -> list[Row]         # what burns GPU hours first: dead, unstable, cheating, learning

Where two runs part: each metric both logged is compared on the steps both logged, each run
smoothed by a centred moving mean of w points; the two differ when the smoothed difference leaves
a band of 4 noise units (each run's step-to-step noise, robust, shrunk by √w) or 20% of the
metric's range over both runs, whichever is wider, and stays out of it, on one side, for 2w
points (a one-step spike moves a w-point mean for w points only, so it never counts).  The step
reported is where the difference first passed 0.3 of that band on its way out.  The metric whose
step is earliest parts first; ties go to the one furthest outside its band.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .diagnose.model import SEVERITIES, Diagnosis, Finding
from .run import CANONICAL, Run

__all__ = ["VERDICT_ORDER", "Parting", "Row", "part_ways", "ranked", "summarize"]

# what wastes GPU hours first: a dead run, then an unstable one, then a gamed reward, then learning
VERDICT_ORDER = {"dead": 0, "unstable": 1, "cheating": 2, "learning": 3}
_BAND_NOISE = 4.0
_BAND_RANGE = 0.2
_SKIP = frozenset({"lr"})  # a schedule is set, not measured: it parts by design


@dataclass(frozen=True)
class Parting:
    """step: where the runs part (None: they do not); metric: the first to diverge;
    by_metric: metric -> its own parting step (None: stayed together), in the order they part."""

    step: int | None
    metric: str | None
    by_metric: dict[str, int | None] = field(default_factory=dict)
    common_steps: int = 0


def _smooth(y: np.ndarray, w: int) -> np.ndarray:
    """Centred moving mean of w points (w odd), shrinking at the ends; O(n)."""
    c = np.concatenate(([0.0], np.cumsum(y)))
    n, h = y.size, w // 2
    lo = np.clip(np.arange(n) - h, 0, n)
    hi = np.clip(np.arange(n) + h + 1, 0, n)
    out: np.ndarray = (c[hi] - c[lo]) / (hi - lo)
    return out


def _noise(y: np.ndarray) -> float:
    d = np.diff(y)
    if not d.size:
        return 0.0
    return float(1.4826 * np.median(np.abs(d - np.median(d))) / np.sqrt(2.0))


def _metric_parting(xa: np.ndarray, ya: np.ndarray, xb: np.ndarray, yb: np.ndarray) -> tuple[int | None, float, int]:
    """(step, how far outside the band at the parting, common points) for one metric."""
    steps, ia, ib = np.intersect1d(xa, xb, assume_unique=True, return_indices=True)
    a, b = ya[ia], yb[ib]
    ok = np.isfinite(a) & np.isfinite(b)
    steps, a, b = steps[ok], a[ok], b[ok]
    n = steps.size
    if n < 10:
        return None, 0.0, int(n)
    w = max(5, n // 50) | 1
    d = _smooth(a, w) - _smooth(b, w)
    d = d - float(np.median(d[: max(w, n // 10)]))  # an offset held from the start is not parting
    both = np.concatenate((a, b))
    spread = float(np.percentile(both, 97.5) - np.percentile(both, 2.5))
    band = max(_BAND_NOISE * float(np.hypot(_noise(a), _noise(b))) / np.sqrt(w), _BAND_RANGE * spread, 1e-12)
    out = np.abs(d) > band
    sign = np.sign(d)
    need = min(2 * w, n)
    # runs of consecutive "out on the same side" points; the first long enough (or reaching the end)
    start = None
    i = 0
    idx = np.flatnonzero(out)
    while i < idx.size:
        j = i
        while j + 1 < idx.size and idx[j + 1] == idx[j] + 1 and sign[idx[j + 1]] == sign[idx[i]]:
            j += 1
        length = idx[j] - idx[i] + 1
        if length >= need or (idx[j] == n - 1 and length >= max(3, min(need, n - idx[i]))):
            start = int(idx[i])
            break
        i = j + 1
    if start is None:
        return None, 0.0, int(n)
    k = start
    while k > 0 and abs(d[k - 1]) > 0.3 * band and np.sign(d[k - 1]) == sign[start]:
        k -= 1
    return int(steps[k]), float(abs(d[start]) / band), int(n)


def part_ways(a: Run, b: Run, metrics: list[str] | None = None) -> Parting:
    """Where runs `a` and `b` part ways, and which metric parts first (see the module's doc)."""
    names = metrics or [m for m in CANONICAL if m in a.series and m in b.series and m not in _SKIP]
    found: list[tuple[int, float, str]] = []
    by: dict[str, int | None] = {}
    common = 0
    for m in names:
        sa, sb = a.series.get(m), b.series.get(m)
        if sa is None or sb is None:
            continue
        step, excess, n = _metric_parting(sa.steps, sa.values, sb.steps, sb.values)
        common = max(common, n)
        by[m] = step
        if step is not None:
            found.append((step, -excess, m))
    found.sort()
    order = {m: by[m] for _, _, m in found}
    order.update({m: None for m, s in by.items() if s is None})
    if not found:
        return Parting(None, None, order, common)
    return Parting(found[0][0], found[0][2], order, common)


@dataclass(frozen=True)
class Row:
    """One run in a comparison."""

    label: str
    run: Run
    diag: Diagnosis
    goal_metric: str | None
    goal_start: float | None
    goal_end: float | None
    top: Finding | None

    @property
    def gain(self) -> float | None:
        if self.goal_start is None or self.goal_end is None:
            return None
        return self.goal_end - self.goal_start

    @property
    def onset(self) -> int | None:
        return self.top.onset_step if self.top is not None else None

    def sort_key(self) -> tuple[Any, ...]:
        sev = -SEVERITIES.index(self.top.severity) if self.top is not None else 1
        onset = self.onset if self.onset is not None else 1 << 62
        gain = self.gain if self.gain is not None and np.isfinite(self.gain) else 0.0
        return (VERDICT_ORDER.get(self.diag.verdict, 9), sev, onset, gain, self.label)


def summarize(run: Run, diag: Diagnosis, label: str | None = None) -> Row:
    goal = diag.run.get("goal") if isinstance(diag.run, dict) else None
    top = next((f for f in sorted(diag.findings, key=lambda f: f.rank) if f.severity != "info"), None)
    if top is None and diag.findings:
        top = sorted(diag.findings, key=lambda f: f.rank)[0]

    def num(v: Any) -> float | None:
        return float(v) if isinstance(v, (int, float)) else None

    return Row(
        label or run.name,
        run,
        diag,
        (goal or {}).get("metric"),
        num((goal or {}).get("start")),
        num((goal or {}).get("end")),
        top,
    )


def ranked(rows: list[Row]) -> list[Row]:
    """Dead runs first, then unstable, cheating, learning; within each, the worst and earliest first."""
    return sorted(rows, key=Row.sort_key)
