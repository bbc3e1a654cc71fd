"""The policy (per-topic softmax over tokens + a length head), its optimizer and an fp16 loss scaler.

Parameters: Z (K, V) logits of the content tokens; Y (K, 2) the length head, a discretised
lognormal over the length bins: bin logits -(log L_b - mu)^2 / (2 sigma^2) with Y = (mu, log sigma)
per topic, so the planned length moves smoothly (a Gaussian policy on log-length).  The policy samples and scores at temperature T (softmax(Z / T)), as verl's actor does, so a lower
temperature is a sharper policy and a larger effective step.  The frozen reference policy is the
initial parameters (the "pretrained model").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .task import BIN_LEN, MARK, Task, V

__all__ = [
    "Adam",
    "LossScaler",
    "Params",
    "bin_grad",
    "bin_logits",
    "entropy_rows",
    "init_params",
    "log_softmax",
    "topic_tables",
]


@dataclass
class Params:
    Z: np.ndarray  # (K, V) content logits
    Y: np.ndarray  # (K, 2) length head: mu, log sigma of the planned log-length

    def copy(self) -> Params:
        return Params(self.Z.copy(), self.Y.copy())

    def finite(self) -> bool:
        return bool(np.isfinite(self.Z).all() and np.isfinite(self.Y).all())


def log_softmax(x: np.ndarray) -> np.ndarray:
    """Row-wise log-softmax (max-subtracted, as every framework computes it)."""
    m = x.max(axis=-1, keepdims=True)
    s = x - m
    out: np.ndarray = s - np.log(np.exp(s).sum(axis=-1, keepdims=True))
    return out


def entropy_rows(logp: np.ndarray) -> np.ndarray:
    """Entropy (nats) of each row of log-probabilities."""
    out: np.ndarray = -(np.exp(logp) * logp).sum(axis=-1)
    return out


def init_params(
    rng: np.random.Generator,
    task: Task,
    *,
    mark_p: float = 0.03,
    r_p: float = 0.24,
    r_sigma: float = 0.6,
    plausible: int = 4,
    tail: float = 0.05,
    len0: float = 72.0,
    len_sigma: float = 0.55,
) -> Params:
    """The "pretrained" prior: per topic a few plausible steps; the right one is likely for some
    topics and rare for others.

    mark_p: probability of the answer marker; r_p / r_sigma: the right step's median mass and its
    lognormal spread over topics; `plausible` other steps share most of the rest (the model's
    usual moves, lognormal weights), the remaining steps share `tail`; len0 / len_sigma: the
    planned length's median and log-spread.  Starting token entropy ~1.84 nats (the lesson's 1.842).
    """
    K = task.K
    Z = np.empty((K, V))
    for k in range(K):
        pr = float(np.clip(r_p * np.exp(r_sigma * rng.standard_normal()), 0.02, 0.4))
        others = np.setdiff1d(np.arange(1, V), [task.r[k]])
        pick = rng.permutation(others)
        main, rest = pick[:plausible], pick[plausible:]
        p = np.empty(V)
        w = np.exp(0.4 * rng.standard_normal(plausible))
        p[main] = w / w.sum() * (1.0 - mark_p - pr - tail)
        w = np.exp(0.5 * rng.standard_normal(rest.size))
        p[rest] = w / w.sum() * tail
        p[MARK], p[task.r[k]] = mark_p, pr
        Z[k] = np.log(p)
    mu = np.log(len0) + 0.15 * rng.standard_normal(K)
    return Params(Z, np.column_stack([mu, np.full(K, np.log(len_sigma))]) / LEN_SCALE)


@dataclass
class Adam:
    """Adam on the two logit tables (betas 0.9 / 0.999, eps 1e-8), as AdamW without decay."""

    b1: float = 0.9
    b2: float = 0.999
    eps: float = 1e-8
    t: int = 0
    m: list[np.ndarray] = field(default_factory=list)
    v: list[np.ndarray] = field(default_factory=list)

    def step(self, params: Params, grads: tuple[np.ndarray, np.ndarray], lr: float) -> None:
        if not self.m:
            self.m = [np.zeros_like(params.Z), np.zeros_like(params.Y)]
            self.v = [np.zeros_like(params.Z), np.zeros_like(params.Y)]
        self.t += 1
        c1 = 1.0 - self.b1**self.t
        c2 = 1.0 - self.b2**self.t
        for j, (p, g) in enumerate(((params.Z, grads[0]), (params.Y, grads[1]))):
            self.m[j] = self.b1 * self.m[j] + (1 - self.b1) * g
            self.v[j] = self.b2 * self.v[j] + (1 - self.b2) * g * g
            p -= lr * (self.m[j] / c1) / (np.sqrt(self.v[j] / c2) + self.eps)
        np.clip(params.Y[:, 1], LOG_SIGMA_MIN / LEN_SCALE, LOG_SIGMA_MAX / LEN_SCALE, out=params.Y[:, 1])


@dataclass
class LossScaler:
    """Mixed-precision gradients: scaled, cast to float16, unscaled.

    With `check` on (PyTorch's GradScaler) an overflowing step is skipped and the scale halved;
    the scale doubles after `window` clean optimizer steps (the loop sets it to a fifth of the
    run's optimizer steps / 4, so a run of any length meets its overflow around the middle).  With `check` off (a hand-rolled fp16 loop),
    the inf goes straight into the optimizer and every weight becomes NaN.
    """

    scale: float = 2.0**14
    window: int = 60
    check: bool = True
    clean: int = 0

    def unscale(self, g: tuple[np.ndarray, np.ndarray]) -> tuple[tuple[np.ndarray, np.ndarray], bool]:
        with np.errstate(over="ignore", invalid="ignore"):
            h = tuple((x * self.scale).astype(np.float16).astype(np.float64) / self.scale for x in g)
        overflow = not all(np.isfinite(x).all() for x in h)
        return (h[0], h[1]), overflow

    def update(self, overflow: bool) -> None:
        if overflow and self.check:
            self.scale /= 2.0
            self.clean = 0
            return
        self.clean += 1
        if self.clean >= self.window:
            self.scale *= 2.0
            self.clean = 0


_LOG_LEN = np.log(BIN_LEN.astype(np.float64))
# Y holds (mu, log sigma) / LEN_SCALE: one optimizer step moves the planned log-length by at most
# ~lr * LEN_SCALE, so length drifts at a pace comparable to the content (a step size per parameter
# group, as one would give a small head).  log sigma is kept in [LOG_SIGMA_MIN, LOG_SIGMA_MAX].
LEN_SCALE = 0.3
LOG_SIGMA_MIN, LOG_SIGMA_MAX = np.log(0.08), np.log(2.0)


def bin_logits(Y: np.ndarray) -> np.ndarray:
    """The length head's logits over the bins (K, NB) from its parameters (K, 2)."""
    d = _LOG_LEN[None, :] - LEN_SCALE * Y[:, :1]
    return -(d**2) / (2.0 * np.exp(2.0 * LEN_SCALE * Y[:, 1:]))


def bin_grad(Y: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Chain rule: a gradient w.r.t. the bin logits (K, NB) -> w.r.t. the length head's parameters (K, 2)."""
    d = _LOG_LEN[None, :] - LEN_SCALE * Y[:, :1]
    inv = np.exp(-2.0 * LEN_SCALE * Y[:, 1])
    return LEN_SCALE * np.column_stack([(g * d).sum(axis=1) * inv, (g * d * d).sum(axis=1) * inv])


def topic_tables(params: Params, T: float) -> tuple[np.ndarray, np.ndarray]:
    """Log-probs of the content tokens (K, V) and of the length bins (K, NB) at temperature T."""
    return log_softmax(params.Z / T), log_softmax(bin_logits(params.Y) / T)
