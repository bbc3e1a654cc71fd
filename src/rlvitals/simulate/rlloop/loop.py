"""The training loop: rollouts in groups, GRPO advantages, clipped PPO-style minibatch updates.

One step:
  1. draw B prompts from the pool; the rollout engine samples G answers per prompt from its copy
     of the weights (the trainer's, or a stale snapshot when sync has failed) at temperature T;
  2. the verifier scores them; advantages A = (r - group mean) / (group std + 1e-6) (GRPO);
  3. the trainer recomputes the "old" log-probs with its own weights (as verl does), cuts the
     batch into `minibatches` pieces and takes one optimizer step on each: the importance ratio
     pi_theta / pi_old is clipped to [1 - eps_low, 1 + eps_high]; + kl_coef * k3 KL to the
     frozen reference per token; - ent_coef * token entropy; grad-norm clipping; Adam;
  4. the vitals are logged as a framework would (see `Knobs` and docs/simulator.md).

`ratio_level="sequence"` (default) uses the length-normalised sequence ratio
exp(mean_t log pi_theta / pi_old) (GSPO); "token" uses a ratio per token (classic GRPO/PPO).
`ratio_mean` is the same ratio taken against the rollout engine's log-probs (what the engine
reported when it sampled): with synced weights it is the PPO ratio; with stale rollout weights it
measures how far the trainer has moved from the policy that produced the data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .knobs import Knobs
from .policy import Adam, LossScaler, Params, bin_grad, entropy_rows, init_params, topic_tables
from .task import NB, Task, judge, make_task, sample_answers

__all__ = ["LOGGED", "VITALS_LOGGED", "Trace", "train"]

# the canonical vitals the loop logs (what a run of it carries), then its own diagnostic columns
VITALS_LOGGED = (
    "reward",
    "acc",
    "entropy",
    "kl",
    "adv_std",
    "clip_frac",
    "ratio_mean",
    "len",
    "gnorm",
    "trunc",
    "lr",
    "loss",
)
LOGGED = VITALS_LOGGED + (
    "frac_reward_zero_std",
    "r_correctness",
    "r_format",
    "r_length",
    "hacked",
)


@dataclass
class Trace:
    """Per-step logged values (T,) plus the validation accuracy at its own steps."""

    cols: dict[str, np.ndarray]
    val_steps: np.ndarray
    val_acc: np.ndarray
    overflow_step: int | None
    task: Task
    params: Params
    rollouts: list[dict[str, Any]] | None = None  # recorded answers (see `train(record=...)`)


def _advantages(r: np.ndarray, G: int) -> tuple[np.ndarray, np.ndarray]:
    g = r.reshape(-1, G)
    std = g.std(axis=1, ddof=1)
    A = (g - g.mean(axis=1, keepdims=True)) / (std[:, None] + 1e-6)
    return A.ravel(), std < 1e-8


def _weighted_std(x: np.ndarray, w: np.ndarray) -> float:
    m = float((x * w).sum() / w.sum())
    return float(np.sqrt((w * (x - m) ** 2).sum() / w.sum()))


def _policy_grads(
    kn: Knobs,
    Y: np.ndarray,
    lpc: np.ndarray,
    lpb: np.ndarray,
    ref: tuple[np.ndarray, np.ndarray],
    topic: np.ndarray,
    onehot: np.ndarray,
    counts: np.ndarray,
    b: np.ndarray,
    A: np.ndarray,
    old_c: np.ndarray,
    old_b: np.ndarray,
    roll_c: np.ndarray,
    roll_b: np.ndarray,
    T: float,
    kl_coef: float,
    ent_coef: float,
) -> tuple[tuple[np.ndarray, np.ndarray], dict[str, float]]:
    """Loss gradients w.r.t. (Z, Y) on one minibatch, and its metrics (Y: the length head's parameters)."""
    n = counts.astype(np.float64)
    Ln = n.sum(axis=1)
    ntok = Ln + 1.0  # content tokens + the stop (length) decision
    Ntok = float(ntok.sum())
    pc, pb = np.exp(lpc), np.exp(lpb)
    cur_c = lpc[topic]  # (N, V)
    cur_b = lpb[topic, b]  # (N,)
    dc = cur_c - old_c
    db = cur_b - old_b
    K = lpc.shape[0]
    flat_b = topic * NB + b

    def per_topic_bins(w: np.ndarray | None) -> np.ndarray:
        return np.bincount(flat_b, weights=w, minlength=K * NB).reshape(K, NB)

    pos, neg = A > 0, A < 0
    if kn.ratio_level == "sequence":
        s = np.exp(((n * dc).sum(axis=1) + db) / ntok)
        clipped = (pos & (s > 1 + kn.eps_high)) | (neg & (s < 1 - kn.eps_low))
        coef = np.where(clipped, 0.0, A * s / ntok) / topic.size
        loss_pg = -float(np.minimum(s * A, np.clip(s, 1 - kn.eps_low, 1 + kn.eps_high) * A).mean())
        gZ = -(onehot.T @ (coef[:, None] * n) - (onehot.T @ (coef * Ln))[:, None] * pc) / T
        gY = -(per_topic_bins(coef) - (onehot.T @ coef)[:, None] * pb) / T
        s_roll = np.exp(((n * (cur_c - roll_c)).sum(axis=1) + cur_b - roll_b) / ntok)
        ratio_mean, clip_frac = float(s_roll.mean()), float(clipped.mean())
    else:
        r = np.exp(dc)
        rb = np.exp(db)
        clip_c = (pos[:, None] & (r > 1 + kn.eps_high)) | (neg[:, None] & (r < 1 - kn.eps_low))
        clip_b = (pos & (rb > 1 + kn.eps_high)) | (neg & (rb < 1 - kn.eps_low))
        w = np.where(clip_c, 0.0, n * r * A[:, None]) / Ntok
        wb = np.where(clip_b, 0.0, rb * A) / Ntok
        gZ = -(onehot.T @ w - (onehot.T @ w.sum(axis=1))[:, None] * pc) / T
        gY = -(per_topic_bins(wb) - (onehot.T @ wb)[:, None] * pb) / T
        surr = np.minimum(r * A[:, None], np.clip(r, 1 - kn.eps_low, 1 + kn.eps_high) * A[:, None])
        surr_b = np.minimum(rb * A, np.clip(rb, 1 - kn.eps_low, 1 + kn.eps_high) * A)
        loss_pg = -float(((n * surr).sum() + surr_b.sum()) / Ntok)
        ratio_mean = float(((n * np.exp(cur_c - roll_c)).sum() + np.exp(cur_b - roll_b).sum()) / Ntok)
        clip_frac = float(((n * clip_c).sum() + clip_b.sum()) / Ntok)
    # per-topic token counts (content, stop decisions) for the KL and entropy terms
    Nk = onehot.T @ n  # (K, V)
    Sk = per_topic_bins(None)  # (K, NB)
    # k3 = x - log x - 1 with x = pi_ref / pi_theta, per token; d/dlogpi = 1 - x
    # (log x clamped to +-20 and k3 to <= 10 per token, as verl's low_var_kl does)
    lxc = np.clip(ref[0] - lpc, -20.0, 20.0)
    lxb = np.clip(ref[1] - lpb, -20.0, 20.0)
    xc, xb = np.exp(lxc), np.exp(lxb)
    k3c, k3b = np.minimum(xc - lxc - 1, 10.0), np.minimum(xb - lxb - 1, 10.0)
    kl = float(((Nk * k3c).sum() + (Sk * k3b).sum()) / Ntok)
    if kl_coef:
        fc = Nk * np.where(k3c < 10.0, 1 - xc, 0.0)
        fb = Sk * np.where(k3b < 10.0, 1 - xb, 0.0)
        gZ += kl_coef * (fc - fc.sum(axis=1, keepdims=True) * pc) / (Ntok * T)
        gY += kl_coef * (fb - fb.sum(axis=1, keepdims=True) * pb) / (Ntok * T)
    Hc, Hb = entropy_rows(lpc), entropy_rows(lpb)
    tok_k, resp_k = Nk.sum(axis=1), Sk.sum(axis=1)
    entropy = float(((tok_k * Hc).sum() + (resp_k * Hb).sum()) / Ntok)
    if ent_coef:
        gZ += ent_coef * (tok_k / Ntok)[:, None] * pc * (lpc + Hc[:, None]) / T
        gY += ent_coef * (resp_k / Ntok)[:, None] * pb * (lpb + Hb[:, None]) / T
    loss = loss_pg + kl_coef * kl - ent_coef * entropy
    return (gZ, bin_grad(Y, gY)), {
        "kl": kl,
        "entropy": entropy,
        "ratio_mean": ratio_mean,
        "clip_frac": clip_frac,
        "loss": loss,
    }


def _garbage_step(kn: Knobs, cap: int) -> dict[str, float]:
    """After the weights turned NaN the engine emits noise up to the cap: nothing scores."""
    nan = float("nan")
    return {
        "reward": 0.0,
        "acc": 0.0,
        "entropy": nan,
        "kl": nan,
        "adv_std": 0.0,
        "clip_frac": nan,
        "ratio_mean": nan,
        "len": float(cap),
        "gnorm": nan,
        "trunc": 1.0,
        "loss": nan,
        "frac_reward_zero_std": 1.0,
        "r_correctness": 0.0,
        "r_format": 0.0,
        "r_length": kn.len_bonus * min(cap / float(kn.len_target), 1.0),
        "hacked": 0.0,
    }


def train(kn: Knobs, rng: np.random.Generator, record: tuple[int, int] | None = None) -> Trace:
    """Run the loop for kn.steps steps with the knobs in force at each step.

    record=(every, prompts): keep the answers of the first `prompts` groups at steps 1, 1+every, ...
    (counts, truncation, correctness, reward); recording draws nothing, so the run is unchanged.
    """
    vrng = np.random.default_rng(int(rng.integers(2**63)))  # validation draws: val_every never changes training
    task: Task = make_task(rng, need_median=kn.need_median, unsolvable=kn.unsolvable)
    params: Params = init_params(rng, task)
    ref_params = params.copy()  # the frozen reference, scored at the rollout temperature
    ref_T, ref = kn.temperature, topic_tables(ref_params, kn.temperature)
    opt = Adam()
    # the loss scale doubles every 1/20 of the run (60 optimizer steps in a 300-step run)
    scaler = LossScaler(window=max(4, kn.minibatches * (kn.steps // 20)), check=kn.fp16_check) if kn.fp16 else None
    stale: Params | None = None
    history: list[Params] = []  # the weights of the last sync_lag steps (oldest first)
    cols = {k: np.empty(kn.steps) for k in LOGGED}
    val_steps: list[int] = []
    val_acc: list[float] = []
    overflow_step: int | None = None
    rollouts: list[dict[str, Any]] | None = [] if record else None
    eye = np.eye(task.K)
    for t in range(kn.steps):
        at = kn.at(t)  # knobs in force at this step (mid-run changes)
        B, G, T, cap = at.batch, at.group, at.temperature, at.cap
        lr = at.lr_at(t)
        cols["lr"][t] = lr
        if not params.finite():
            for k, v in _garbage_step(at, cap).items():
                cols[k][t] = v
            if (t + 1) % kn.val_every == 0 or t == 0:
                val_steps.append(t)
                val_acc.append(0.0)
            if rollouts is not None and record and t % record[0] == 0:
                for j in range(min(record[1], at.batch) * G):
                    rollouts.append(
                        {
                            "step": t + 1,
                            "group": j // G,
                            "prompt": -1,
                            "need": 0,
                            "topic": -1,
                            "right": -1,
                            "counts": None,
                            "trunc": True,
                            "correct": False,
                            "reward": 0.0,
                        }
                    )
            continue
        history.append(params.copy() if (kn.sync_lag or at.sync_lag) else params)
        if len(history) > at.sync_lag + 1:
            del history[: len(history) - at.sync_lag - 1]
        if at.stale_from is not None and t + 1 >= at.stale_from:
            if stale is None:
                stale = params.copy()
            behave = stale
        else:
            stale = None
            behave = history[0] if at.sync_lag else params
        if ref_T != T:  # a temperature change: the reference is rescored too
            ref_T, ref = T, topic_tables(ref_params, T)
        blpc, blpb = topic_tables(behave, T)
        pidx = np.repeat(rng.integers(0, len(task.train), B), G)
        topic = task.train.topic[pidx]
        b, length, trunc, counts = sample_answers(rng, topic, np.exp(blpc), np.exp(blpb), cap)
        correct, verifier, fmt, len_term = judge(
            rng,
            task,
            task.train,
            pidx,
            counts,
            length,
            trunc,
            slip=at.slip,
            hack_marks=at.hack_marks,
            hack_bonus=at.hack_bonus,
            w_fmt=at.w_fmt,
            len_bonus=at.len_bonus,
            len_target=at.len_target,
        )
        reward = verifier + fmt + len_term
        A, zero = _advantages(reward, G)
        ntok = length + 1.0
        cols["reward"][t] = reward.mean()
        cols["acc"][t] = correct.mean()
        cols["len"][t] = length.mean()
        cols["trunc"][t] = trunc.mean()
        cols["adv_std"][t] = _weighted_std(A, ntok)
        cols["frac_reward_zero_std"][t] = zero.mean()
        cols["r_correctness"][t] = verifier.mean()
        cols["r_format"][t] = fmt.mean()
        cols["r_length"][t] = len_term.mean()
        cols["hacked"][t] = ((verifier > 0) & ~correct).mean()
        if rollouts is not None and record and t % record[0] == 0:
            for j in range(min(record[1], B) * G):
                rollouts.append(
                    {
                        "step": t + 1,
                        "group": j // G,
                        "prompt": int(pidx[j]),
                        "need": int(task.train.need[pidx[j]]),
                        "topic": int(topic[j]),
                        "right": int(task.r[topic[j]]),
                        "counts": counts[j].copy(),
                        "trunc": bool(trunc[j]),
                        "correct": bool(correct[j]),
                        "reward": float(reward[j]),
                    }
                )
        roll_c, roll_b = blpc[topic], blpb[topic, b]
        if behave is params:
            old_c, old_b = roll_c, roll_b
        else:  # the trainer recomputes with its own weights
            tlpc, tlpb = topic_tables(params, T)
            old_c, old_b = tlpc[topic], tlpb[topic, b]
        order = rng.permutation(topic.size)
        acc_m: dict[str, list[float]] = {k: [] for k in ("kl", "entropy", "ratio_mean", "clip_frac", "loss", "gnorm")}
        for mb in np.array_split(order, min(at.minibatches, topic.size)):  # never an empty minibatch
            lpc, lpb = topic_tables(params, T)
            grads, m = _policy_grads(
                at,
                params.Y,
                lpc,
                lpb,
                ref,
                topic[mb],
                eye[topic[mb]],
                counts[mb],
                b[mb],
                A[mb],
                old_c[mb],
                old_b[mb],
                roll_c[mb],
                roll_b[mb],
                T,
                at.kl_coef,
                at.ent_coef,
            )
            overflow = False
            if scaler is not None:
                grads, overflow = scaler.unscale(grads)
            with np.errstate(invalid="ignore", over="ignore"):
                gnorm = float(np.sqrt((grads[0] ** 2).sum() + (grads[1] ** 2).sum()))
            for k, v in m.items():
                acc_m[k].append(v)
            acc_m["gnorm"].append(gnorm)
            if overflow and overflow_step is None:
                overflow_step = t
            if scaler is not None:
                scaler.update(overflow)
                if overflow and scaler.check:
                    continue
            if at.frozen:
                continue
            with np.errstate(invalid="ignore", over="ignore"):
                scale = min(1.0, at.max_grad_norm / (gnorm + 1e-12)) if np.isfinite(gnorm) else float("nan")
                opt.step(params, (grads[0] * scale, grads[1] * scale), lr)
        for k, vals in acc_m.items():
            cols[k][t] = sum(vals) / len(vals)
        if (t + 1) % kn.val_every == 0 or t == 0:
            val_steps.append(t)
            val_acc.append(_validate(task, params, at, vrng))
    return Trace(cols, np.asarray(val_steps), np.asarray(val_acc), overflow_step, task, params, rollouts)


def _validate(task: Task, params: Params, kn: Knobs, rng: np.random.Generator) -> float:
    """Held-out accuracy (strict verifier), 4 answers per held-out prompt at the rollout temperature."""
    if not params.finite():
        return 0.0
    lpc, lpb = topic_tables(params, kn.temperature)
    pidx = np.repeat(np.arange(len(task.held_out)), 4)
    topic = task.held_out.topic[pidx]
    _, length, trunc, counts = sample_answers(rng, topic, np.exp(lpc), np.exp(lpb), kn.cap)
    correct = judge(
        rng,
        task,
        task.held_out,
        pidx,
        counts,
        length,
        trunc,
        slip=kn.slip,
        hack_marks=kn.hack_marks,
        hack_bonus=0.0,
        w_fmt=0.0,
        len_bonus=0.0,
        len_target=kn.len_target,
    )[0]
    return float(correct.mean())
