"""Name a curve's shape in the lesson's small vocabulary.

    rising       缓升      gradual rise
    falling      缓降      gradual fall
    flat         平掉      no longer changing (converged or stuck)
    spike        陡增/暴涨  jumps by an order of magnitude within a few steps
    drift        单调偏离  a quantity that should stay put moves steadily one way (ratio_mean)
    oscillating  剧烈抖动  large back-and-forth around the trend
    constant     恒定      exactly the same value at every step (clip_frac 0 with one update per batch:
                           "not applicable", never "healthy")
    short        数据不足  too few points to say

O(n) in time and memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .run import Run, Series

__all__ = ["WORDS", "Shape", "classify", "shapes_of"]

WORDS: tuple[str, ...] = ("rising", "falling", "flat", "spike", "drift", "oscillating", "constant", "short")


@dataclass(frozen=True)
class Shape:
    """The word for a curve and the numbers behind it.

    start/end: robust level of the first and last tenth of the finite values (mean of each tenth).
    slope:     Theil-Sen-like trend per 100 steps.
    rel_change: (end - start) / max(|start|, scale floor).
    onset_step: where the named behaviour began (the spike, the drift, the flattening), if any.
    stats:     the other numbers the word was decided on (tau, noise ratio, spike z, ...).
    """

    metric: str
    word: str
    start: float
    end: float
    slope: float = 0.0
    rel_change: float = 0.0
    onset_step: int | None = None
    stats: dict[str, float] = field(default_factory=dict)


def classify(series: Series) -> Shape:  # implemented in the diagnosis work
    raise NotImplementedError


def shapes_of(run: Run) -> dict[str, Shape]:
    """Shape of every canonical series present in `run`."""
    return {name: classify(s) for name, s in run.series.items()}
