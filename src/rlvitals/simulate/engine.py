"""The dice: turn a scenario's latent state into the metrics a GRPO trainer would log.

Every step draws B prompts x G=8 responses.  Each response lands in one class from one uniform
draw (correct, reward-hacked, wrong-but-formatted, wrong-unformatted, truncated), so reward, acc,
adv_std, the zero-std fraction and trunc all come from the same dice.  Advantages are GRPO's:
(r - group mean) / group std, zero for a group whose rewards are all equal; adv_std is their std
over the batch's response tokens (token-weighted, as verl computes masked metrics).  Hence
adv_std ~ sqrt(1 - frac_reward_zero_std), a little above it early (right answers run longer)
and a little below it late.  The mechanism-driven metrics (entropy, kl, clip_frac, ratio_mean,
gnorm, lr) come from the latent curves with multiplicative noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["GROUP_BUDGET", "G", "Latent", "moving_mean", "norm_cdf", "roll_dice", "trunc_prob"]

G = 8  # responses per prompt (group size)
_CHUNK_RESPONSES = 1 << 21  # responses per chunk: bounds memory at a few MB per array
GROUP_BUDGET = 8_000_000  # groups rolled per run at most (200 steps x 64 = 12,800; 1M steps -> 8 a step)
# Relative token length of each reward class: right answers run longer ("写详细带来了更高正确率"),
# so token-weighted adv_std sits slightly above sqrt(1 - frac_zero_std) while most answers are wrong.
_LEN_HI, _LEN_W, _LEN_0 = 1.4, 1.0, 0.85


@dataclass
class Latent:
    """The hidden state of a run, one value per step (arrays of length T) unless noted.

    skill:   logit-scale ability; p(prompt) = sigmoid(skill - difficulty), difficulty ~ N(0, sigma_d).
    fmt:     P(a wrong answer still earns the format score).   w: format score (correct = 1 + w).
    hack:    P(a wrong answer games the reward and gets full reward).
    degen:   P(a group's 8 responses are one response repeated) — driven by entropy.
    length:  mean response length (tokens) before the cap;  cap: max response length (scalar).
    """

    T: int
    B: int
    sigma_d: float
    w: float
    skill: np.ndarray
    fmt: np.ndarray
    hack: np.ndarray
    degen: np.ndarray
    entropy: np.ndarray
    kl: np.ndarray
    clip: np.ndarray
    ratio: np.ndarray
    gnorm: np.ndarray
    lr: np.ndarray
    length: np.ndarray
    cap: float
    len_sigma: float = 0.45
    bad: float = 0.0  # share of prompts no policy can solve (wrong keys, missing facts)
    noise: float = 1.0  # multiplier on the metric noise
    nan_from: int | None = None  # index where numeric_instability turns values to NaN/inf
    extra: dict[str, Any] = field(default_factory=dict)


def norm_cdf(z: np.ndarray) -> np.ndarray:
    """Standard normal CDF (Abramowitz–Stegun 7.1.26, |error| < 1.5e-7), numpy only."""
    z = np.asarray(z, dtype=np.float64)
    x = np.abs(z) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = 1.0 - poly * np.exp(-x * x)
    cdf: np.ndarray = 0.5 * (1.0 + np.sign(z) * erf)
    return cdf


def trunc_prob(length: np.ndarray, cap: float, sigma: float) -> np.ndarray:
    """P(response longer than the cap) for lognormal lengths with the given mean."""
    mu = np.log(np.maximum(length, 1.0)) - sigma**2 / 2
    return 1.0 - norm_cdf((np.log(cap) - mu) / sigma)


def _combo_tables(w: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-group outcome (n_correct, n_hacked, n_formatted_wrong) -> what it adds to the step's sums.

    Columns: reward sum, correct count, zero-std flag, token mass S0, S1 = sum(l*a), S2 = sum(l*a^2).
    A group's contribution depends only on its counts, so a step's totals are the histogram of its
    groups' outcomes times this table.  Returns (compact id of each of the 729 raw codes, table).
    """
    levels = np.array([1.0 + w, w, 0.0])
    weights = np.array([_LEN_HI, _LEN_W, _LEN_0])
    ids = np.zeros(729, dtype=np.int64)
    rows: list[tuple[float, ...]] = []
    for nc in range(9):
        for nh in range(9 - nc):
            for nw in range(9 - nc - nh):
                n = np.array([nc + nh, nw, G - nc - nh - nw], dtype=float)
                mean = n @ levels / G
                std = np.sqrt(n @ (levels - mean) ** 2 / G)
                adv = (levels - mean) / std if std > 1e-9 else np.zeros(3)
                tok = n * weights
                ids[(nc * 9 + nh) * 9 + nw] = len(rows)
                rows.append((n @ levels, nc, float(std <= 1e-9), tok.sum(), tok @ adv, tok @ adv**2))
    return ids, np.array(rows)


# SWAR: a group's 8 draws are the 8 bytes of one uint64 (7 random bits each), so "how many draws
# are <= t" is one subtraction per group: lane = (0x80 | t) - u keeps bit 7 iff u <= t, no borrows.
_LANES = np.uint64(0x0101010101010101)
_HIGH = np.uint64(0x8080808080808080)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)


def _count(u: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Per group: how many of its 8 draws (uint64 lanes, 0..127) are <= t (t in -1..127)."""
    tl = np.maximum(t, 0).astype(np.uint64) * _LANES | _HIGH
    hits = ((tl - u) & _HIGH) >> np.uint64(7)
    n = (hits * _LANES) >> np.uint64(56)
    return np.where(t < 0, 0, n.astype(np.int64))


def roll_dice(lat: Latent, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Sample every step's batch; return per-step reward, acc, adv_std, frac_zero_std, trunc, len.

    Each response is 7 bits of randomness compared with its prompt's class thresholds
    (correct < hacked < formatted-wrong < unformatted-wrong < truncated).  Thresholds are dithered
    to 1/128 per prompt, so the class probabilities are exact in expectation.
    """
    T, B_true = lat.T, lat.B
    # Very long runs (benchmarks) roll fewer groups per step and rescale below; normal runs roll all.
    B = min(B_true, max(4, GROUP_BUDGET // T))
    ids, tab = _combo_tables(lat.w)
    out = {k: np.empty(T) for k in ("reward", "acc", "adv_std", "frac_zero_std", "trunc", "len")}
    tau_all = trunc_prob(lat.length, lat.cap, lat.len_sigma)
    chunk = max(1, _CHUNK_RESPONSES // (B * G))
    for a in range(0, T, chunk):
        rows = slice(a, min(T, a + chunk))
        n = rows.stop - rows.start
        # Prompt difficulties: a fresh batch each step (the dataset is far larger than the run).
        d = rng.standard_normal((n, B), dtype=np.float32) * np.float32(lat.sigma_d)
        p = 1.0 / (1.0 + np.exp(d - lat.skill[rows, None].astype(np.float32)))
        if lat.bad > 0:
            p[rng.random((n, B), dtype=np.float32) < lat.bad] = 0.0
        live = (1.0 - tau_all[rows, None]).astype(np.float32)
        miss = live * (1 - p)
        hack = lat.hack[rows, None].astype(np.float32)
        c = live * p
        h = c + miss * hack
        f = h + miss * (1 - hack) * lat.fmt[rows, None].astype(np.float32)
        # Dithered 7-bit thresholds: P(draw <= t) = (t + 1) / 128 equals the class probability on average.
        dither = rng.random((n, B), dtype=np.float32)
        thr = [(np.floor(x * 128 + dither) - 1).astype(np.int64) for x in (c, h, f, live)]
        u = rng.bit_generator.random_raw(n * B).reshape(n, B) & _LOW7
        if np.any(lat.degen[rows] > 0):
            # Low entropy: the group's 8 samples are one answer repeated, so they share one draw.
            same = rng.random((n, B), dtype=np.float32) < lat.degen[rows, None]
            u = np.where(same, (u & np.uint64(0x7F)) * _LANES, u)
        n_c, n_hi, n_f, n_live = (_count(u, t) for t in thr)
        sums = tab[ids[(n_c * 9 + (n_hi - n_c)) * 9 + (n_f - n_hi)]].sum(axis=1)  # (n, 6) step totals
        out["reward"][rows] = sums[:, 0] / (B * G)
        out["acc"][rows] = sums[:, 1] / (B * G)
        out["frac_zero_std"][rows] = sums[:, 2] / B
        s0, s1, s2 = sums[:, 3], sums[:, 4], sums[:, 5]
        out["adv_std"][rows] = np.sqrt(np.maximum(s2 / s0 - (s1 / s0) ** 2, 0.0))
        trunc = 1.0 - n_live.sum(-1) / (B * G)
        out["trunc"][rows] = trunc
        # Logged length: untruncated answers average near the latent mean, truncated ones sit at the cap.
        body = lat.length[rows] * (1 + rng.standard_normal(n) * lat.len_sigma / np.sqrt(B * G))
        out["len"][rows] = np.minimum((1 - trunc) * np.minimum(body, lat.cap) + trunc * lat.cap, lat.cap)
    if B_true > B:
        _shrink_noise(out, math.sqrt(B / B_true), T)
    return out


def _shrink_noise(out: dict[str, np.ndarray], factor: float, T: int) -> None:
    """Give each step the noise of the true batch: scale its deviation from the local mean.

    The latent state barely moves over a window of T/2000 steps, so the moving average is the
    step's expected value; dice rolled on B_sim groups have sqrt(B_true/B_sim) times the spread.
    """
    w = max(101, (T // 2000) | 1)
    for k in ("reward", "acc", "adv_std", "frac_zero_std", "trunc"):
        x = out[k]
        m = moving_mean(x, w)
        out[k] = np.clip(m + (x - m) * factor, 0.0, None)


def moving_mean(x: np.ndarray, w: int) -> np.ndarray:
    """Centred moving average of odd width w in O(n) (edges padded with the edge means)."""
    h = w // 2
    pad = np.concatenate([np.full(h, x[:h].mean()), x, np.full(h, x[-h:].mean())])
    c = np.concatenate([[0.0], np.cumsum(pad)])
    mean: np.ndarray = (c[w:] - c[:-w]) / w
    return mean
