"""The lesson's numbers: with seed=None a scenario is pinned so its curves end (and start) on them.

Pinning multiplies the simulated curve by a smooth ramp that is 1 before it applies and lands the
first/last value exactly on the lesson's number, so the noise and the shape stay the dice's own.
An end pin ramps in from the failure's onset, so the healthy part before it is left untouched.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LESSON_PINS", "pin_series", "apply_pins"]

# scenario -> metric -> (start or None, end or None).  Sources: the lesson's healthy table and its
# four confusable pairs (A: 0.009 / 1.0000 vs 1.774 / 0.5407; B: adv_std 0.24, entropy ~1.4,
# acc ~57%; D: clip 0.011, gnorm 0.8 vs clip 0.419, gnorm 6).
LESSON_PINS: dict[str, dict[str, tuple[float | None, float | None]]] = {
    "healthy": {
        "reward": (0.412, 0.847), "acc": (0.211, 0.574), "entropy": (1.842, 1.498), "kl": (0.002, 0.045),
        "adv_std": (1.031, 0.664), "clip_frac": (None, 0.041), "len": (78.0, 152.0), "ratio_mean": (None, 1.0),
    },
    "entropy_collapse": {"entropy": (None, 0.009), "ratio_mean": (None, 1.0), "adv_std": (None, 0.24)},
    "sync_failure": {"entropy": (None, 1.774), "ratio_mean": (None, 0.5407)},
    "data_too_easy": {"adv_std": (None, 0.24), "entropy": (None, 1.40), "acc": (None, 0.574)},
    "batch_noise": {"clip_frac": (None, 0.011), "gnorm": (None, 0.8)},
    "lr_too_high": {"clip_frac": (None, 0.419), "gnorm": (None, 6.0)},
}


def pin_series(v: np.ndarray, start: float | None, end: float | None, from_index: int = 0) -> np.ndarray:
    """`v` bent so v[0] == start and v[-1] == end; an end-only pin ramps in from `from_index`."""
    v = np.array(v, dtype=float)
    n = v.size
    x = np.clip((np.arange(n) - from_index) / max(n - 1 - from_index, 1), 0.0, 1.0)
    lo = 0.0 if start is None or v[0] == 0 else np.log(start / v[0])
    hi = 0.0 if end is None or v[-1] == 0 else np.log(end / v[-1])
    if start is not None:
        x = np.arange(n) / max(n - 1, 1)
        v = v * np.exp(lo * (1 - x) + hi * x)
    else:
        v = v * np.exp(hi * x)
    # Exact landing (multiplying cannot move a zero; those pins are additive on the endpoint).
    if start is not None:
        v[0] = start
    if end is not None:
        v[-1] = end
    return v


def apply_pins(name: str, columns: dict[str, np.ndarray], onset: int | None) -> None:
    """Pin `columns` in place to the lesson's numbers for scenario `name` (no-op for others)."""
    for metric, (start, end) in LESSON_PINS.get(name, {}).items():
        columns[metric] = pin_series(columns[metric], start, end, onset or 0)
