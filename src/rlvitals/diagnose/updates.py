"""How violent are the updates?  Shared by lr_too_high and batch_noise (lesson pair D).

D1: clip 1.1%, grad norm 0.8, batch 8 -> the jitter is observation noise.
D2: clip 41.9%, grad norm 6, batch 64 -> single updates are too big: lower the learning rate.
clip_frac identically 0 means one update per batch (not applicable): then only the grad norm
and the curves' own jitter can decide, and the finding says clip_frac was not applicable.
"""

from __future__ import annotations

from dataclasses import dataclass

from .context import Ctx

CLIP_HIGH = 0.20      # lesson: > 20% = single steps too big (PTT: > 0.2-0.3)
CLIP_NORMAL = 0.10    # classic PPO late ~10%; LLM runs sit at a few percent
GNORM_JITTER = 0.5    # grad-norm residual / level: PTT calls std > 3x baseline unstable
GNORM_HIGH = 3.0      # absolute grad norm (after clipping most runs log < 1-2)
# step-to-step jitter (residual around the trend / level) that a 64-prompt batch does not show:
# healthy simulated and real runs sit at 0.02-0.07 (reward) and 0.05-0.10 (acc)
JITTER = {"reward": 0.10, "acc": 0.15}
GNORM_RISE = 3.0      # late grad norm vs early: PTT flags 3x baseline as unstable


@dataclass(frozen=True)
class Violence:
    clip: float | None        # clip_frac over the last 30% of the run (median), None when missing
    clip_na: bool             # logged but identically constant (one update per batch)
    gnorm: float | None       # grad norm over the last 30% (median), None when missing
    gnorm_rise: float | None  # that level / the first 30%'s level
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
        return self.gnorm is not None and (self.gnorm >= GNORM_HIGH or (self.gnorm_jitter or 0) >= GNORM_JITTER
                                           or (self.gnorm_rise or 0) >= GNORM_RISE)

    @property
    def gnorm_normal(self) -> bool:
        return self.gnorm is not None and not self.gnorm_high


def assess(ctx: Ctx) -> Violence:
    clip = None
    clip_na = "clip_frac" in ctx.shapes and ctx.word("clip_frac") == "constant"
    if ctx.applicable("clip_frac"):
        clip = ctx.window("clip_frac", 0.7, 1.0)   # late: a warm-up that overshoots shows up late
    gnorm = jit = rise = None
    if ctx.has("gnorm"):
        gnorm = ctx.window("gnorm", 0.7, 1.0)
        early = ctx.window("gnorm", 0.0, 0.3)
        rise = gnorm / early if early > 0 else None
        jit = float(ctx.shapes["gnorm"].stats.get("resid_rel", 0.0))
    best, best_j = None, 0.0
    for m in ("reward", "acc"):  # not the loss: a policy loss always jitters around 0
        if m not in ctx.shapes or not ctx.applicable(m):
            continue
        st = ctx.shapes[m].stats
        if st.get("level", 0.0) < 0.05:
            continue  # jitter relative to a level near 0 (an all-wrong run) means nothing
        j = float(st.get("resid_rel", 0.0))
        if (ctx.word(m) == "oscillating" or j >= JITTER.get(m, float("inf"))) and j > best_j:
            best, best_j = m, j
    return Violence(clip, clip_na, gnorm, rise, jit, best, best_j)
