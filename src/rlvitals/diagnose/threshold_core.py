"""The threshold table's building blocks: a row's type, the `row` helper and the source strings.

The row modules (threshold_rows_*.py) build their rows from these; thresholds.py assembles the table.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LESSON", "OURS_SIM", "OURS_WORLDS", "Threshold", "row"]

LESSON = "the lesson (lesson-read-your-first-curves)"
OURS_SIM = "ours, checked on the simulator and the six real logs"
OURS_WORLDS = (
    "ours, scored on every world of bench_worlds (both simulators, the peers' files, the real corpus) "
    "and on their growing prefixes (bench_stability)"
)


@dataclass(frozen=True)
class Threshold:
    name: str
    value: float
    meaning: str
    source: str
    grid: tuple[float, ...] = ()  # candidate values for calibration (empty = fixed from a source)


def row(name: str, value: float, meaning: str, source: str, grid: tuple[float, ...] = ()) -> tuple[str, Threshold]:
    return name, Threshold(name, value, meaning, source, grid)
