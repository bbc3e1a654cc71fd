"""The rows of a TRL console as `TrlParser` keeps them until the steps are known: `Chunk`s of
many rows read in blocks (trl_blocks.py) beside the line parser's own rows, and `row_table`, what
the step inference reads of them all."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .pydict import numeric
from .values import STEP_LIMIT

__all__ = ["SUMMARY_KEYS", "Bars", "Chunk", "is_eval_keys", "logging_every", "moved", "row_table", "steps_run"]

SUMMARY_KEYS = ("train_runtime", "train_samples_per_second", "train_steps_per_second", "train_loss")


def logging_every(steps: list[int] | np.ndarray) -> int | None:
    """The logging interval when the steps are evenly spaced from it (10, 20, 30 …), else None."""
    gaps = np.diff(steps)
    if gaps.size and np.all(gaps == gaps[0]) and steps[0] == gaps[0]:
        return int(gaps[0])
    return None


def is_eval_keys(keys: Iterable[str]) -> bool:
    ks = [k for k in keys if k not in ("epoch", "step")]
    return bool(ks) and all(k.startswith("eval_") for k in ks)


@dataclass(slots=True)
class Chunk:
    """Consecutive rows with the same keys, read in one go: what a `_Row` holds, as columns."""

    keys: tuple[str, ...]
    columns: list[np.ndarray]  # one float64 column per key
    lines: np.ndarray  # each row's line number (int64)
    epochs: np.ndarray  # float64, NaN where the row has no usable epoch
    bars: dict[int, tuple[np.ndarray, np.ndarray]]  # tqdm total -> (counter, draw no.), -1 when not drawn yet
    is_eval: bool

    def __len__(self) -> int:
        return int(self.lines.size)


Bars = dict[int, tuple[np.ndarray, np.ndarray]]


def row_table(parts: list[Any]) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, Bars]:
    """Every row's is_eval, explicit step (-1: none; None when no row has one), epoch (NaN: none)
    and, per tqdm total, the counter and draw number it saw (-1: not drawn yet), in row order,
    from `Chunk`s and the line parser's rows (objects with is_eval, step, epoch and bar_items)."""
    totals: set[int] = set()
    seen: set[int] = set()
    explicit = False
    for part in parts:
        if isinstance(part, Chunk):
            totals.update(part.bars)
            continue
        explicit = explicit or part.step is not None
        if id(part.bar_items) not in seen:  # (rows share their bars until one moves)
            seen.add(id(part.bar_items))
            totals.update(t for t, _ in part.bar_items)
    flags: list[np.ndarray] = []
    steps: list[np.ndarray] = []
    epochs: list[np.ndarray] = []
    bars: dict[int, tuple[list[np.ndarray], list[np.ndarray]]] = {t: ([], []) for t in totals}
    pending: list[Any] = []

    def flush() -> None:
        if not pending:
            return
        flags.append(np.array([r.is_eval for r in pending], dtype=bool))
        steps.append(np.array([-1 if r.step is None else r.step for r in pending], dtype=np.int64))
        epochs.append(np.array([math.nan if r.epoch is None else r.epoch for r in pending], dtype=np.float64))
        seen = [dict(r.bar_items) for r in pending]
        for t, (c, d) in bars.items():
            got = [b.get(t, (-1, -1)) for b in seen]
            c.append(np.array([g[0] for g in got], dtype=np.int64))
            d.append(np.array([g[1] for g in got], dtype=np.int64))
        pending.clear()

    for part in parts:
        if not isinstance(part, Chunk):
            pending.append(part)
            continue
        flush()
        k = len(part)
        flags.append(np.full(k, part.is_eval))
        if explicit:
            steps.append(np.full(k, -1, dtype=np.int64))
        epochs.append(part.epochs)
        for t, (c, d) in bars.items():
            got = part.bars.get(t)
            c.append(got[0] if got is not None else np.full(k, -1, dtype=np.int64))
            d.append(got[1] if got is not None else np.full(k, -1, dtype=np.int64))
    flush()
    join = np.concatenate
    if not flags:
        return np.zeros(0, bool), None, np.zeros(0), {t: (np.zeros(0, np.int64),) * 2 for t in totals}
    # (a million rows read in blocks have no explicit step: no column of -1 for them)
    return (
        join(flags),
        join(steps) if explicit else None,
        join(epochs),
        {t: (join(c), join(d)) for t, (c, d) in bars.items()},
    )


def steps_run(summary: Mapping[str, object]) -> int | None:
    """The steps a finished run took, from its end-of-training summary: runtime x steps per second
    (printed to 3 or 4 significant digits, so within half a percent); None when it lacks either."""
    row, _ = numeric(summary)
    runtime, rate = row.get("train_runtime"), row.get("train_steps_per_second")
    if runtime is None or rate is None or not (math.isfinite(runtime) and math.isfinite(rate)):
        return None
    total = round(runtime * rate)
    return total if 1 <= total < STEP_LIMIT else None


def moved(counts: np.ndarray) -> bool:
    """A bar's counter, as the rows saw it (-1: not drawn yet), took more than one value."""
    seen = counts[counts >= 0]
    return bool(seen.size) and int(seen.max()) > int(seen.min())
