"""Hand-built runs for the diagnosis tests: the lesson's healthy run and each failure's mechanism.

Each builder starts from the lesson's healthy table (reward 0.412 → 0.847, acc 21% → 57%,
entropy 1.84 → 1.50, kl 0.002 → 0.045, adv_std 1.03 → 0.66, clip 0 → 4%, ratio ≡ 1, len 78 → 152)
and changes only what the failure changes, with seeded noise so each rule sees realistic jitter.
"""

from __future__ import annotations

import json

import numpy as np

from rlvitals.ingest import read_text
from rlvitals.run import Run

N = 200
S = np.arange(1, N + 1)


def _ease(a: float, b: float, tau: float = 70.0, s: np.ndarray = S) -> np.ndarray:
    return a + (b - a) * (1 - np.exp(-(s - 1) / tau)) / (1 - np.exp(-(N - 1) / tau))


def healthy(seed: int = 0, **over) -> Run:
    r = np.random.default_rng(seed)

    def noise(sd: float) -> np.ndarray:
        return r.normal(0, sd, N)

    cols = dict(
        reward=_ease(0.412, 0.847) + noise(0.02),
        acc=_ease(0.211, 0.574) + noise(0.012),
        entropy=np.linspace(1.842, 1.498, N) + noise(0.01),
        kl=np.linspace(0.002, 0.045, N) + noise(0.001),
        adv_std=np.linspace(1.031, 0.664, N) + noise(0.01),
        clip_frac=np.clip(np.linspace(0.0, 0.041, N) + noise(0.002), 0, 1),
        ratio_mean=1.0 + noise(0.0003),
        len=np.linspace(78, 152, N) + noise(3.0),
        gnorm=0.8 + noise(0.05),
    )
    for k, v in over.items():
        if v is None:
            cols.pop(k, None)
        else:
            cols[k] = v(r) if callable(v) else v
    return Run.from_arrays("synthetic", S, cols)


def ramp(a: float, b: float, start: int, end: int = N) -> np.ndarray:
    """a until `start`, then linearly to b at `end`."""
    x = np.clip((S - start) / max(end - start, 1), 0, 1)
    return a + (b - a) * x


def jitter(sd: float, seed: int = 7) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, sd, N)


# -- the lesson's four pairs --------------------------------------------------------------------


def pair_a1_collapse(seed: int = 0) -> Run:
    """Flat reward from entropy collapse: entropy → 0.009, ratio = 1.0000."""
    return healthy(
        seed,
        entropy=np.maximum(1.84 * np.exp(-(S - 1) / 25), 0.009) + np.abs(jitter(0.001, seed)),
        reward=np.minimum(_ease(0.41, 0.6, 20), 0.6) + jitter(0.02, seed + 1),
        acc=_ease(0.21, 0.35, 20) + jitter(0.01, seed + 2),
        adv_std=_ease(1.0, 0.24, 30) + jitter(0.01, seed + 3),
    )


def pair_a2_sync(seed: int = 0) -> Run:
    """Flat reward from broken weight sync: entropy 1.77 normal, ratio drifting to 0.54."""
    return healthy(
        seed,
        ratio_mean=ramp(1.0, 0.5407, 60) + jitter(0.002, seed),
        reward=0.45 + jitter(0.02, seed + 1),
        acc=0.25 + jitter(0.01, seed + 2),
        entropy=np.linspace(1.82, 1.774, N) + jitter(0.01, seed + 3),
        adv_std=np.linspace(1.02, 0.98, N) + jitter(0.01, seed + 4),
    )


def pair_b1_easy(seed: int = 0) -> Run:
    """adv_std falls because the model got stronger: entropy ~1.4, acc high."""
    return healthy(
        seed,
        adv_std=np.linspace(1.0, 0.24, N) + jitter(0.01, seed),
        acc=_ease(0.3, 0.85) + jitter(0.01, seed + 1),
        reward=_ease(0.35, 0.9) + jitter(0.02, seed + 2),
        entropy=np.linspace(1.6, 1.4, N) + jitter(0.01, seed + 3),
    )


def pair_b2_collapse(seed: int = 0) -> Run:
    """adv_std falls because entropy collapsed: entropy → 0, acc stuck midway."""
    return pair_a1_collapse(seed)


def pair_c1_long(seed: int = 0) -> Run:
    """Length rising together with acc (healthy), truncation low."""
    return healthy(
        seed, len=np.linspace(200, 900, N) + jitter(10, seed), trunc=np.clip(0.01 + jitter(0.003, seed + 1), 0, 1)
    )


def pair_c2_explode(seed: int = 0) -> Run:
    """Length explosion: acc flat, truncation rising."""
    return healthy(
        seed,
        len=np.minimum(150 * np.exp((S - 1) / 70), 4096) + jitter(10, seed),
        acc=0.22 + jitter(0.01, seed + 1),
        reward=_ease(0.4, 0.55) + jitter(0.02, seed + 2),
        trunc=np.clip(ramp(0.01, 0.6, 80) + jitter(0.01, seed + 3), 0, 1),
    )


def pair_d1_noise(seed: int = 0) -> Run:
    """Jitter from a small batch: clip 1.1%, grad norm 0.8."""
    return healthy(
        seed,
        clip_frac=np.clip(0.011 + jitter(0.002, seed), 0, 1),
        gnorm=0.8 + jitter(0.05, seed + 1),
        reward=_ease(0.45, 0.6) + jitter(0.15, seed + 2),
        acc=_ease(0.25, 0.35) + jitter(0.1, seed + 3),
    )


def pair_d2_lr(seed: int = 0) -> Run:
    """Jitter from a learning rate too high: clip 41.9%, grad norm 6."""
    return healthy(
        seed,
        clip_frac=np.clip(0.419 + jitter(0.05, seed), 0, 1),
        gnorm=np.abs(6 + jitter(2, seed + 1)),
        reward=_ease(0.45, 0.6) + jitter(0.15, seed + 2),
        acc=_ease(0.25, 0.35) + jitter(0.1, seed + 3),
    )


def jsonl_run(steps: np.ndarray, columns: dict[str, np.ndarray]) -> Run:
    """The run a JSONL log with one row per step and these framework keys reads as: the reader's key
    mapping and reward components come into play, as they do for a real log."""
    rows = (json.dumps({"step": int(st), **{k: float(v[i]) for k, v in columns.items()}}) for i, st in enumerate(steps))
    return read_text("\n".join(rows) + "\n", "jsonl")
