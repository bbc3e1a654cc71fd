"""The data model every stage shares: a `Run` is a set of canonical `Series`.

ingest builds a Run from a log; simulate builds one from dice; shapes, diagnose,
render, watch and lab only ever read it.  Arrays are numpy, NaN is kept (a NaN
is evidence, not noise), steps are int64 and strictly increasing per series.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "CANONICAL",
    "EXTRAS",
    "FRACTION_SLACK",
    "PERCENT_METRICS",
    "VITALS",
    "Run",
    "Segment",
    "Series",
    "in_unit_range",
]

# The lesson's eight vitals, in the order its figure draws them.
VITALS: tuple[str, ...] = ("reward", "acc", "entropy", "kl", "adv_std", "clip_frac", "ratio_mean", "len")
# Drawn and diagnosed when logged: grad norm, truncation rate (fraction of answers cut at the
# length cap), learning rate, policy loss, validation accuracy (its own cadence).
EXTRAS: tuple[str, ...] = ("gnorm", "trunc", "lr", "loss", "val_acc")
CANONICAL: tuple[str, ...] = VITALS + EXTRAS
# Stored as fractions in [0, 1]; shown as percentages.
PERCENT_METRICS: frozenset[str] = frozenset({"acc", "clip_frac", "trunc", "val_acc"})
# a fraction logged with a little noise (a mean of noisy estimates) may stray this far outside [0, 1]
FRACTION_SLACK = 0.05


def in_unit_range(values: np.ndarray) -> bool:
    """Every finite value within [0, 1] (give or take FRACTION_SLACK): a fraction, not its own units."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    return not v.size or bool(v.min() >= -FRACTION_SLACK and v.max() <= 1.0 + FRACTION_SLACK)


@dataclass(frozen=True)
class Series:
    """One metric over steps.

    name:   canonical name (one of CANONICAL) or, for extras, the framework key.
    steps:  int64 array, strictly increasing.
    values: float64 array, same length, NaN/inf kept as logged.
    source: the framework key it was read from ("critic/score/mean"), or "simulated".
    proxy:  True when it is a stand-in for the metric (e.g. adv_std derived from
            frac_reward_zero_std); `note` then says how.
    """

    name: str
    steps: np.ndarray
    values: np.ndarray
    source: str = ""
    proxy: bool = False
    note: str = ""

    def __post_init__(self) -> None:
        steps = np.asarray(self.steps, dtype=np.int64)
        values = np.asarray(self.values, dtype=np.float64)
        if steps.shape != values.shape or steps.ndim != 1:
            raise ValueError(f"series {self.name!r}: steps {steps.shape} and values {values.shape} differ")
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "values", values)

    def __len__(self) -> int:
        return int(self.values.size)

    def __repr__(self) -> str:
        """Short: name, size, step range, first → last value, source (never the arrays)."""
        n = len(self)
        if not n:
            return f"Series({self.name!r}, n=0)"
        tail = f", source={self.source!r}" if self.source and self.source != self.name else ""
        tail += ", proxy" if self.proxy else ""
        return (
            f"Series({self.name!r}, n={n}, steps {int(self.steps[0])}→{int(self.steps[-1])}, "
            f"{float(self.values[0]):.4g}→{float(self.values[-1]):.4g}{tail})"
        )

    @property
    def finite(self) -> np.ndarray:
        """Mask of finite values."""
        mask: np.ndarray = np.isfinite(self.values)
        return mask

    @property
    def is_constant(self) -> bool:
        """True when every finite value is the same (e.g. clip_frac exactly 0 throughout)."""
        v = self.values[self.finite]
        return v.size > 0 and bool(np.all(v == v[0]))

    @property
    def scored_share(self) -> float:
        """Share of the finite values that are not exactly 0.  A reward term behind a strict format
        gate scores 0 on every answer the gate turns away: this is how many steps it scored at all."""
        v = self.values[self.finite]
        return float(np.count_nonzero(v)) / v.size if v.size else 0.0

    @property
    def answer_rank(self) -> tuple[bool, float]:
        """How a reward term ranks among several said to check the answer, higher first: one that pays
        for it (some finite value above 0; a penalty, `premature_answer` at 0 or below on every step,
        only takes away), then the one that scored on the most steps (`scored_share`).  The reader's
        goal and diagnose's "correctness term" both order by it, so they cannot disagree."""
        v = self.values[self.finite]
        return bool(np.any(v > 0)), self.scored_share

    def upto(self, step: int) -> Series:
        """The part of the series at or before `step` (used by watch and by onset tests)."""
        k = int(np.searchsorted(self.steps, step, side="right"))
        return Series(self.name, self.steps[:k], self.values[:k], self.source, self.proxy, self.note)


@dataclass(frozen=True)
class Segment:
    """A stretch of the log whose step counter ran forward (a restart begins a new one)."""

    first_step: int
    last_step: int
    first_line: int = 0
    rows: int = 0


@dataclass
class Run:
    """Everything read from one training log.

    series:        canonical name -> Series (only the metrics present).
    extras:        other numeric keys kept as logged, key -> Series (for `vitals` and proxies).
    unrecognized:  keys seen but not mapped, key -> count of values.
    skipped:       reason -> count of lines skipped ("no metrics", "truncated last line", ...).
    dropped:       reason -> count of single values dropped from lines that were kept
                   ("unreadable value": `reward=abc` beside readable keys).
    segments:      one per forward run of the step counter; more than one means a resume or
                   concatenated runs (the later segment wins on overlapping steps).
    notes:         human sentences about choices made ("adv_std derived from frac_reward_zero_std").
    meta:          free-form facts (e.g. {"logging_steps": 10, "step_inferred": True}); a file holding
                   several runs sets "run_index" (1-based) and "run_count".
    components:    reward components, name ("xmlcount_reward_func") -> Series (source = the key).
    component_kinds: same names -> "correctness" | "format" | "length" | "style" | "other".
    evals:         evaluation metrics, key ("eval/accuracy") -> Series on its own cadence; never vitals.
    file_runs:     every run found in the file (this one included), when the step counter restarted
                   at step <= 1; empty when the file holds one run.  `ingest.read(path, run=K)` picks.
    """

    name: str
    format: str
    series: dict[str, Series] = field(default_factory=dict)
    extras: dict[str, Series] = field(default_factory=dict)
    unrecognized: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    segments: list[Segment] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)  # heterogeneous by design (see above)
    components: dict[str, Series] = field(default_factory=dict)
    component_kinds: dict[str, str] = field(default_factory=dict)
    evals: dict[str, Series] = field(default_factory=dict)
    file_runs: list[Run] = field(default_factory=list, repr=False, compare=False)

    def get(self, name: str) -> Series | None:
        return self.series.get(name)

    def __getitem__(self, name: str) -> Series:
        """`run["reward"]`: a canonical metric, else an extra kept as logged; KeyError names what exists."""
        s = self.series.get(name)
        if s is None:
            s = self.extras.get(name)
        if s is None:
            extras = f"; {len(self.extras)} other keys (run.extras)" if self.extras else ""
            raise KeyError(f"{name!r} is not in run {self.name!r}: metrics {', '.join(self.series) or 'none'}{extras}")
        return s

    def __repr__(self) -> str:
        """Short (a few hundred characters at most): never the arrays."""
        steps = self.steps
        span = f"{steps.size} steps ({int(steps[0])}→{int(steps[-1])})" if steps.size else "0 steps"
        names = list(self.series)
        shown = ", ".join(names[:13]) + (f", … {len(names) - 13} more" if len(names) > 13 else "")
        extra = f", extras={len(self.extras)}" if self.extras else ""
        return f"Run({self.name!r}, format={self.format!r}, {span}, metrics=[{shown}]{extra})"

    def __contains__(self, name: str) -> bool:
        return name in self.series

    @property
    def steps(self) -> np.ndarray:
        """Sorted union of the steps of every canonical series."""
        if not self.series:
            return np.empty(0, dtype=np.int64)
        arrs = [s.steps for s in self.series.values()]
        first = arrs[0]
        # the usual case: every series logged at the same steps (readers share one array)
        if all(a is first or (a.size == first.size and np.array_equal(a, first)) for a in arrs[1:]):
            return first
        # sort + drop equal neighbours: np.unique is ~20x slower on 1e7 int64 (numpy 2.4)
        a = np.sort(np.concatenate(arrs))
        return a[np.concatenate(([True], a[1:] != a[:-1]))]

    @property
    def n_steps(self) -> int:
        return int(self.steps.size)

    def restart_steps(self) -> list[int]:
        """Where a resumed run's step counter ran forward again (each segment after the first), for the
        charts to mark; none when the segments are two writers interleaved (meta["interleaved"])."""
        return [] if self.meta.get("interleaved") else [int(seg.first_step) for seg in self.segments[1:]]

    def upto(self, step: int) -> Run:
        """A copy holding only what was logged at or before `step`."""

        def cut(d: dict[str, Series]) -> dict[str, Series]:
            out = {k: s.upto(step) for k, s in d.items()}
            return {k: s for k, s in out.items() if len(s)}

        comps = cut(self.components)
        return Run(
            name=self.name,
            format=self.format,
            series=cut(self.series),
            extras=cut(self.extras),
            unrecognized=dict(self.unrecognized),
            skipped=dict(self.skipped),
            dropped=dict(self.dropped),
            segments=list(self.segments),
            notes=list(self.notes),
            meta=dict(self.meta),
            components=comps,
            component_kinds={k: v for k, v in self.component_kinds.items() if k in comps},
            evals=cut(self.evals),
        )

    @classmethod
    def from_arrays(
        cls,
        name: str,
        steps: ArrayLike,
        columns: Mapping[str, object],
        *,
        format: str = "memory",
        source: str = "simulated",
    ) -> Run:
        """Build a run from one step array and equal-length columns, every value kept (NaN too).

        A column that is logged on its own cadence should be passed as a ready `Series` instead.
        """
        steps = np.asarray(steps, dtype=np.int64)
        series: dict[str, Series] = {}
        for key, col in columns.items():
            series[key] = col if isinstance(col, Series) else Series(key, steps, np.asarray(col, float), source)
        return cls(name=name, format=format, series=series)
