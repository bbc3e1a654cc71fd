"""The toy task: prompts of varied difficulty, answers as token counts, and the verifier.

A prompt belongs to one of K topics and asks for a worked answer.  An answer is a length (the
policy's length head picks one of NB bins, the "when to stop" decision) and that many content
tokens drawn from the policy's topic distribution over V tokens:

    token 0        MARK   the answer marker ("#### 42"); the format term wants at least one
    tokens 1..V-1  steps  reasoning steps; each topic has one *right* step r

A prompt needs `need` right steps (its difficulty).  The strict verifier calls an answer
correct when it was not cut at the length cap, holds at least `need` r tokens, and has no
slip: every generated token
slips independently with probability `slip` (an arithmetic error the policy cannot unlearn) and
every wrong step (a step token other than r) derails it with probability WRONG_SLIP (less on
prompts that need fewer than NEED_REF steps), so
longer answers find more steps but risk more slips -- length has an optimum, and it grows as
the policy learns to avoid wrong steps.

Reward = verifier score (1 or 0) + format term (w_fmt if it has a MARK) + length term.  The
*lenient* verifier (the hacking knob) also accepts an answer that lists >= `hack_marks` MARK
tokens ("several #### candidates") whatever its steps; `acc` always comes from the strict one.
A truncated answer has no final answer: verifier 0, format 0 (the length term still pays).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MARK", "NB", "Prompts", "Task", "V", "make_task"]

V = 16  # content vocabulary: MARK + 15 step tokens
NB = 44  # length bins
MARK = 0
WRONG_SLIP = 0.004  # each wrong step derails the answer with this probability ...
NEED_REF = 10.0  # ... scaled by min(1, need / NEED_REF): easy prompts leave less room to go wrong
# Length bins: 10 * 1.12**b tokens, 10 .. ~1300 (a geometric grid, like the log-length a model plans).
BIN_LEN = np.round(10.0 * 1.12 ** np.arange(NB)).astype(np.int64)


@dataclass(frozen=True)
class Prompts:
    """A set of prompts: topic and the right steps each needs."""

    topic: np.ndarray  # int (P,)
    need: np.ndarray  # int (P,)

    def __len__(self) -> int:
        return int(self.topic.size)


@dataclass(frozen=True)
class Task:
    """Topics (their right steps), the training pool and the held-out prompts."""

    K: int
    r: np.ndarray  # int (K,) the right step of each topic
    train: Prompts
    held_out: Prompts


def _prompts(
    rng: np.random.Generator, n: int, K: int, need_median: float, need_sigma: float, unsolvable: float
) -> Prompts:
    topic = rng.integers(0, K, n)
    need = np.maximum(1, np.round(need_median * np.exp(need_sigma * rng.standard_normal(n)))).astype(np.int64)
    # a share of prompts cannot be solved at all (e.g. a missing fact): they ask for more steps
    # than any answer under the largest length bin could hold
    dead = rng.random(n) < unsolvable
    need[dead] = 5000
    return Prompts(topic, need)


def make_task(
    rng: np.random.Generator,
    *,
    K: int = 8,
    pool: int = 4096,
    held_out: int = 256,
    need_median: float = 28.0,
    need_sigma: float = 0.6,
    unsolvable: float = 0.15,
) -> Task:
    """A task set: `pool` training prompts and `held_out` validation prompts from one distribution.

    need_median / need_sigma: the lognormal difficulty (steps required); unsolvable: share of
    prompts no answer can solve.
    """
    r = rng.integers(1, V, K)
    return Task(
        K,
        r,
        _prompts(rng, pool, K, need_median, need_sigma, unsolvable),
        _prompts(rng, held_out, K, need_median, need_sigma, unsolvable),
    )


def _poisson(rng: np.random.Generator, lam: np.ndarray) -> np.ndarray:
    """Poisson counts; above a mean of 12 the rounded normal N(lam, lam) (5x faster, same moments)."""
    big = lam > 12.0
    out = np.empty(lam.shape, dtype=np.int64)
    out[~big] = rng.poisson(lam[~big])
    lb = lam[big]
    out[big] = np.maximum(0, np.floor(lb + np.sqrt(lb) * rng.standard_normal(lb.size) + 0.5))
    return out


def sample_answers(
    rng: np.random.Generator, topic: np.ndarray, pc: np.ndarray, pb: np.ndarray, cap: int
) -> tuple[np.ndarray, ...]:
    """Draw one answer per row of `topic` from the per-topic tables pc (K, V) and pb (K, NB).

    The length head picks a planned length L (a bin); the answer then holds Poisson(L * p_v)
    tokens of each kind v (the plan is approximate: the total is Poisson(L)).  An answer longer
    than the cap is cut: its counts are thinned to the first `cap` tokens (binomially) and it has
    no final answer.  Returns bin, length (<= cap), trunc, counts.
    """
    cdf = np.cumsum(pb, axis=1)
    u = rng.random(topic.size) * cdf[topic, -1]
    b = np.minimum((cdf[topic] < u[:, None]).sum(axis=1), NB - 1)
    counts = _poisson(rng, BIN_LEN[b][:, None] * pc[topic])
    total = counts.sum(axis=1)
    trunc = total > cap
    if trunc.any():
        keep = cap / total[trunc]
        counts[trunc] = rng.binomial(counts[trunc], keep[:, None])
    length = np.where(trunc, cap, np.maximum(total, 1))
    return b, length, trunc, counts


def judge(
    rng: np.random.Generator,
    task: Task,
    prompts: Prompts,
    idx: np.ndarray,
    counts: np.ndarray,
    length: np.ndarray,
    trunc: np.ndarray,
    *,
    slip: float,
    hack_marks: int,
    hack_bonus: float,
    w_fmt: float,
    len_bonus: float,
    len_target: int,
) -> tuple[np.ndarray, ...]:
    """Strict correctness, verifier score, format and length terms for answers to prompts[idx]."""
    k = prompts.topic[idx]
    rows = np.arange(idx.size)
    c = counts[rows, task.r[k]]
    wrong = counts.sum(axis=1) - c - counts[:, MARK]
    need = prompts.need[idx]
    q = WRONG_SLIP * np.minimum(1.0, need / NEED_REF)  # easy prompts leave less room to go wrong
    no_slip = rng.random(idx.size) < (1.0 - slip) ** length * (1.0 - q) ** wrong
    correct = ~trunc & (c >= need) & no_slip
    marks = counts[:, MARK]
    verifier = correct.astype(float)
    if hack_bonus > 0:
        hacked = ~trunc & ~correct & (marks >= hack_marks)
        verifier = np.where(hacked, hack_bonus, verifier)
    fmt = np.where(~trunc & (marks >= 1), w_fmt, 0.0)
    len_term = len_bonus * np.minimum(length / float(len_target), 1.0) if len_bonus > 0 else np.zeros(idx.size)
    return correct, verifier, fmt, len_term
