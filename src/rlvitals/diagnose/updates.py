"""How violent are the updates?  Shared by lr_too_high and batch_noise (lesson pair D).

D1: clip 1.1%, grad norm 0.8, batch 8 -> the jitter is observation noise.
D2: clip 41.9%, grad norm 6, batch 64 -> single updates are too big: lower the learning rate.
clip_frac identically 0 means one update per batch (not applicable): then only the grad norm
and the curves' own jitter can decide, and the finding says clip_frac was not applicable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .context import Ctx

CLIP_HIGH = 0.20      # lesson: > 20% = single steps too big (PTT: > 0.2-0.3)
CLIP_NORMAL = 0.10    # classic PPO late ~10%; LLM runs sit at a few percent
GNORM_JITTER = 0.5    # grad-norm residual / level: PTT calls std > 3x baseline unstable
GNORM_HIGH = 3.0      # absolute grad norm (after clipping most runs log < 1-2)


@dataclass(frozen=True)
class Violence:
    clip: float | None        # median clip_frac, None when missing
    clip_na: bool             # logged but identically constant (one update per batch)
    gnorm: float | None       # median grad norm, None when missing
    gnorm_jitter: float | None
    jitter_metric: str | None  # the curve that oscillates most (reward, acc, loss), if any
    jitter: float             # its residual / level

    @property
    def clip_high(self) -> bool:
        return self.clip is not None and self.clip >= CLIP_HIGH

    @property
    def clip_normal(self) -> bool:
        return self.clip is not None and self.clip < CLIP_NORMAL

    @property
    def gnorm_high(self) -> bool:
        return self.gnorm is not None and (self.gnorm >= GNORM_HIGH or (self.gnorm_jitter or 0) >= GNORM_JITTER)

    @property
    def gnorm_normal(self) -> bool:
        return self.gnorm is not None and not self.gnorm_high


def assess(ctx: Ctx) -> Violence:
    clip = None
    clip_na = "clip_frac" in ctx.shapes and ctx.word("clip_frac") == "constant"
    if ctx.applicable("clip_frac"):
        _, v = ctx.data("clip_frac")
        clip = float(np.median(v))
    gnorm = jit = None
    if ctx.has("gnorm"):
        _, g = ctx.data("gnorm")
        gnorm = float(np.median(g))
        jit = float(ctx.shapes["gnorm"].stats.get("resid_rel", 0.0))
    best, best_j = None, 0.0
    for m in ("reward", "acc", "loss"):
        if ctx.word(m) == "oscillating":
            j = float(ctx.shapes[m].stats.get("resid_rel", 0.0))
            if j > best_j:
                best, best_j = m, j
    return Violence(clip, clip_na, gnorm, jit, best, best_j)
