"""Robust statistics of one curve, shared by the shape words and the diagnosis.

    ends(values) -> (start, end)            # first and last tenth's means
    blocks(steps, values) -> (centres, medians)   # at most MAX_BLOCKS block medians
    kendall_tau(x), theil_sen(t, x)          # steadiness and slope, on block medians
    hinge_onset(t, x) -> (index, score)      # where a flat stretch turns into a move
    step_noise(values) -> sigma              # step-to-step noise, robust to spikes

O(n) in time and memory: every statistic that needs pairs (Kendall's tau, Theil-Sen slope, the
onset search) runs on at most `MAX_BLOCKS` block medians, which also tames the strong
autocorrelation of training curves (plain Mann-Kendall on raw steps over-flags trends).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_BLOCKS", "blocks", "ends", "hinge_onset", "kendall_tau", "step_noise", "theil_sen"]

MAX_BLOCKS = 64


def ends(finite_values: np.ndarray) -> tuple[float, float]:
    """(start, end): the mean of the first and of the last tenth of the finite values.  The one
    definition of a curve's start and end (`diagnose`, `vitals` and the plots all use it): a single
    noisy first or last point does not decide the level."""
    n = finite_values.size
    if n == 0:
        return float("nan"), float("nan")
    tenth = max(1, n // 10)
    return float(finite_values[:tenth].mean()), float(finite_values[-tenth:].mean())


def blocks(steps: np.ndarray, values: np.ndarray, nblocks: int = MAX_BLOCKS) -> tuple[np.ndarray, np.ndarray]:
    """Block centres (steps) and block medians of finite (steps, values); O(n).

    With n <= nblocks each point is its own block.  Otherwise the points are cut into `nblocks`
    contiguous blocks whose sizes differ by at most one, so every point counts and no block
    swallows the tail.  Past 262,144 points the medians are taken over every k-th point (still
    65,536+ points, 1,000+ per block): the same levels to within noise, at a fraction of the cost.
    """
    n = values.size
    if n > 4 * 65536:
        stride = n // 65536
        steps, values = steps[::stride], values[::stride]
        n = values.size
    if n <= nblocks:
        return steps.astype(float), values.astype(float)
    size = n // nblocks
    r = n - size * nblocks  # the first r blocks take one point more
    cut = r * (size + 1)
    parts = [(steps[:cut].reshape(r, size + 1), values[:cut].reshape(r, size + 1))] if r else []
    parts.append((steps[cut:].reshape(nblocks - r, size), values[cut:].reshape(nblocks - r, size)))
    cen = np.concatenate([p[0].mean(axis=1) for p in parts]).astype(float)
    med = np.concatenate([np.median(p[1], axis=1) for p in parts])
    return cen, med


def kendall_tau(x: np.ndarray) -> float:
    """Kendall's tau of x against its index (x is at most MAX_BLOCKS long)."""
    m = x.size
    if m < 3:
        return 0.0
    i, j = np.triu_indices(m, k=1)
    s = np.sign(x[j] - x[i]).sum()
    return float(s / (m * (m - 1) / 2))


def theil_sen(t: np.ndarray, x: np.ndarray) -> float:
    """Median of pairwise slopes (per step)."""
    if x.size < 2:
        return 0.0
    i, j = np.triu_indices(x.size, k=1)
    dt = t[j] - t[i]
    ok = dt > 0
    if not ok.any():
        return 0.0
    return float(np.median((x[j] - x[i])[ok] / dt[ok]))


def hinge_onset(t: np.ndarray, x: np.ndarray, kind: str = "start") -> tuple[int, float]:
    """Best single change point on a short (block) series, by least squares.

    kind="start": flat, then a straight line (where a drift / rise / collapse began).
    kind="stop":  a straight line, then flat (where a rise flattened: a plateau).
    kind="level": two flat levels (a step change).
    kind="settle": a rise with diminishing returns that reaches a level and stays (a parabola
                  meeting a flat line with zero slope; where a plateau really began).
    kind="bend":  one straight line that changes slope (a run-away that starts while the curve is
                  still drifting healthily, e.g. a length that was already growing slowly).
    Returns (index of the change in t, fraction of the variance the model explains).
    O(m^2) on m <= MAX_BLOCKS points, vectorised over every candidate hinge.
    """
    m = x.size
    if m < 4:
        return 0, 0.0
    x = np.asarray(x, dtype=float)
    xc = x - x.mean()
    total = float((xc**2).sum()) or 1e-300
    ks = np.arange(1, m - 1)
    if kind == "level":
        # two means: SSE from prefix sums, every split at once
        c1, c2 = np.cumsum(xc), np.cumsum(xc * xc)
        n1 = ks.astype(float)
        n2 = m - n1
        s1, q1 = c1[ks - 1], c2[ks - 1]
        s2, q2 = c1[-1] - s1, c2[-1] - q1
        sse = (q1 - s1 * s1 / n1) + (q2 - s2 * s2 / n2)
    else:
        # every hinge position at once: stacked least squares via the normal equations (pinv keeps
        # the near-collinear first/last positions finite), residuals computed exactly
        span = float(t[-1] - t[0]) or 1.0
        tn = (np.asarray(t, dtype=float) - float(t[0])) / span  # scale-free: same fit, better conditioned
        d = tn[None, :] - tn[ks][:, None]  # (K, m) distance to each hinge
        h = np.maximum(d, 0.0) if kind in ("start", "bend") else np.minimum(d, 0.0)
        if kind == "settle":
            h = h * h
        cols = [np.ones_like(h), h] + ([np.broadcast_to(tn, h.shape)] if kind == "bend" else [])
        A = np.stack(cols, axis=2)  # (K, m, p)
        G = np.einsum("kmi,kmj->kij", A, A)
        r = np.einsum("kmi,m->ki", A, xc)
        coef = np.einsum("kij,kj->ki", np.linalg.pinv(G), r)
        resid = np.einsum("kmi,ki->km", A, coef) - xc
        sse = (resid * resid).sum(axis=1)
    i = int(np.argmin(sse))
    return int(ks[i]), 1.0 - float(sse[i]) / total


def step_noise(values: np.ndarray, stride: int = 1) -> float:
    """Step-to-step noise: robust sigma of the first differences / sqrt(2) (every stride-th pair)."""
    if values.size < 3:
        return 0.0
    d = values[1::stride] - values[:-1:stride][: values[1::stride].size]
    return float(1.4826 * np.median(np.abs(d - np.median(d))) / np.sqrt(2))
