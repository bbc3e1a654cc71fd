"""Each scenario's mechanism: how its latent state (skill, entropy, length, ...) moves over the run.

A builder starts from the healthy baseline (the lesson's L2 run: acc 21% -> 57%, entropy 1.84 ->
1.50, len 78 -> 152) and bends the curves the failure bends, from its onset on.  Shapes are
defined on the run's fraction u in [0, 1], so 200 steps and 1,000,000 steps look alike.
Parameters are drawn per seed (`Draw`); with `lesson=True` each draw returns the lesson's value.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .baseline import (
    Built,
    Draw,
    baseline,
    degen_from_entropy,
    ease,
    fall_back,
    freeze,
    onset_index,
    ramp,
    skill_for,
)
from .engine import Latent

__all__ = ["Draw", "build"]


# Each builder: (Draw, T) -> (latent fields, onset index or None).
def healthy(dr: Draw, T: int) -> Built:
    return baseline(dr, T), None


def healthy_long(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    l0 = dr.u(140, 260, 180)
    d["length"] = l0 + l0 * (dr.u(2.4, 3.6, 3.0) - 1) * d["prog"]
    d["cap"], d["len_sigma"] = 4096.0, 0.5
    return d, None


def healthy_grad_spike(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    n = dr.choice([2, 3, 4], 3)
    where = dr.rng.choice(np.arange(int(0.1 * T), max(int(0.95 * T), int(0.1 * T) + n)), size=n, replace=False)
    for i in where:
        d["gnorm"][i] *= dr.u(8, 30, 15)  # one bad minibatch; the optimizer clips and moves on
    return d, None


def healthy_reasoning(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    h0, h1 = dr.u(0.4, 0.5, 0.45), dr.u(0.13, 0.18, 0.15)
    d["entropy"] = h0 - (h0 - h1) * ease(d["u"], 0.45)
    d["h_ref"] = h0
    # Per-token entropy is low, but 700-token answers still differ: no group degenerates.
    d["degen"] = np.zeros(T)
    acc0, acc1 = dr.u(0.22, 0.32, 0.27), dr.u(0.55, 0.64, 0.6)
    s0, s1 = skill_for(acc0, d["sigma_d"], d["bad"]), skill_for(acc1, d["sigma_d"], d["bad"])
    d["skill"] = s0 + (s1 - s0) * d["prog"]
    l0 = dr.u(500, 900, 700)
    d["length"] = l0 * (1 + 0.5 * d["prog"])
    d["cap"], d["len_sigma"] = 8192.0, 0.45
    return d, None


def batch_noise(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    d["B"] = dr.choice([4, 8], 8)  # few prompts: the mean of 32-64 answers jitters
    d["clip"] = dr.u(0.007, 0.015, 0.011) * ease(d["u"], 0.2)
    d["gnorm"] = np.full(T, dr.u(0.7, 0.95, 0.8))
    return d, 0


def lr_too_high(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    d["B"] = 64
    t0 = onset_index(dr, T)
    peak = 1e-5 * dr.u(0.7, 1.5, 1.0)
    crit = 0.45 * peak  # the largest rate this model and batch take
    idx = np.arange(T)
    span = max(0.15 * T, 2)
    d["lr"] = np.where(
        idx <= t0, crit * (idx + 1) / (t0 + 1), np.minimum(peak, crit + (peak - crit) * (idx - t0) / span)
    )
    inst = np.clip((d["lr"] - crit) / (peak - crit), 0, 1)
    rng = dr.rng
    # Overshoot and correct: an AR(1) with negative coefficient (truncated impulse response).
    e = rng.standard_normal(T) * dr.u(0.5, 0.8, 0.65)
    osc = np.convolve(e, (-0.55) ** np.arange(40))[:T]
    d["skill"] = d["skill"] + inst * (osc - 0.3)
    d["clip"] = d["clip"] * (1 - inst) + inst * dr.u(0.3, 0.44, 0.419) * np.exp(rng.normal(0, 0.08, T))
    d["gnorm"] = d["gnorm"] + inst * (dr.u(5, 8, 6.0) - d["gnorm"]) * np.exp(rng.normal(0, 0.2, T))
    d["kl"] = d["kl"] + inst * dr.u(0.05, 0.15, 0.08) * np.exp(rng.normal(0, 0.3, T))
    d["entropy"] = d["entropy"] * (1 + inst * 0.06 * np.tanh(osc))
    d["ratio"] = 1 + inst * rng.normal(0, 0.012, T)
    return d, t0


def entropy_collapse(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    t0 = onset_index(dr, T)
    idx = np.arange(T)
    tau = dr.u(0.05, 0.1, 0.07) * T
    decay = np.where(idx >= t0, np.exp(-(idx - t0) / tau), 1.0)
    floor = dr.u(0.005, 0.02, 0.009)
    h = d["entropy"]
    h[t0:] = floor + (h[t0] - floor) * decay[t0:]
    d["degen"] = degen_from_entropy(h, d["h_ref"], dr.u(0.92, 0.97, 0.95))
    r = 1 - decay
    freeze(d["skill"], t0)  # one answer per prompt: nothing left to explore
    d["skill"] = d["skill"] - 0.1 * r
    freeze(d["fmt"], t0)
    d["clip"] = d["clip"] * np.maximum(decay, 0.02)  # a deterministic policy has ratio == 1
    d["kl"] = d["kl"] + dr.u(0.03, 0.08, 0.05) * ramp(T, t0, 0.3 * T)
    d["gnorm"] = d["gnorm"] * (0.25 + 0.75 * decay)  # no advantage, no gradient
    d["length"] = d["length"] * (1 - 0.15 * r)
    return d, t0


def sync_failure(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    t0 = onset_index(dr, T)
    for k in ("skill", "fmt", "entropy", "length"):
        freeze(d[k], t0)  # rollouts keep coming from the stale weights
    if dr.stage:  # a lab stage: sync broke before the first weights went out, nothing was learned
        freeze(d["skill"], 0)
        freeze(d["fmt"], 0)
    r = ramp(T, t0, T - 1 - t0)
    d["ratio"] = 1 - (1 - dr.u(0.45, 0.8, 0.5407)) * r
    d["clip"] = d["clip"] + 0.15 * np.abs(1 - d["ratio"])
    d["kl"] = d["kl"] + 0.03 * r  # the trainer's copy drifts without feedback
    d["gnorm"] = d["gnorm"] * (1 + 0.6 * r)
    return d, t0


def data_too_easy(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    d["bad"] = dr.u(0.05, 0.4, 0.4)  # some prompts nobody solves (bad keys)
    d["sigma_d"] = dr.u(1.0, 1.6, 1.2)
    s0 = skill_for(0.45, d["sigma_d"])
    s1 = skill_for(dr.u(0.975, 0.993, 0.985), d["sigma_d"])
    d["skill"] = s0 + (s1 - s0) * ease(d["u"], 0.3)
    d["fmt"] = 0.7 + 0.298 * ease(d["u"], 0.3)  # the format is learned, so all-wrong groups tie too
    d["entropy"] = d["h_ref"] * (1 - 0.24 * ease(d["u"], 0.5))
    return d, None  # onset derived from the dice


def data_too_hard(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    d["bad"], d["w"] = 0.3, 0.0  # pure correctness reward
    d["skill"] = np.full(T, skill_for(dr.u(0.002, 0.012, 0.005), d["sigma_d"], 0.3))
    d["entropy"] = d["h_ref"] * (1 - 0.03 * d["u"])
    d["kl"] = 0.0004 + 0.0008 * d["u"]
    d["clip"] = 0.002 * ease(d["u"], 0.3)
    d["gnorm"] = d["gnorm"] * 0.12  # almost every advantage is zero
    d["length"] = np.full(T, d["length"][0])
    return d, 0


def reward_hacking(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    t0 = onset_index(dr, T)
    span = dr.u(0.15, 0.3, 0.2) * T
    idx = np.arange(T)
    r = 1 / (1 + np.exp(-(idx - t0 - span / 2) / (span / 8)))
    r = np.where(idx < t0, 0.0, (r - r[t0]) / (1 - r[t0]))
    d["hack"] = dr.u(0.6, 0.95, 0.85) * r
    freeze(d["skill"], t0)
    if dr.stage:
        fall_back(d["skill"], t0, r)
    d["skill"] = d["skill"] - dr.u(0.2, 0.8, 0.5) * r
    d["kl"] = d["kl"] + dr.u(0.05, 0.2, 0.1) * r**2
    d["entropy"] = d["entropy"] * (1 - 0.2 * r)
    d["length"] = d["length"] * (1 - dr.u(0.1, 0.4, 0.3) * r)
    return d, t0


def length_hacking(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    t0 = onset_index(dr, T)
    r = ramp(T, t0, T - 1 - t0)
    d["w"] = dr.u(0.4, 0.6, 0.5)  # a process score that long answers always earn
    d["cap"] = float(dr.choice([1024, 1536], 1024))
    freeze(d["length"], t0)
    # Padding grows answers to most of the cap; the tail of the length distribution gets cut.
    d["length"] = d["length"] * np.exp(math.log(d["cap"] * dr.u(0.5, 0.7, 0.6) / d["length"][t0]) * r)
    d["len_sigma"] = 0.45
    d["fmt"] = d["fmt"] + (0.99 - d["fmt"]) * np.minimum(1, 3 * r)
    freeze(d["skill"], t0)  # padding adds no ability
    if dr.stage:
        fall_back(d["skill"], t0, r)
    d["kl"] = d["kl"] + 0.05 * r
    d["entropy"] = d["entropy"] * (1 + 0.08 * r)
    return d, t0


def kl_blowup(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    t0 = onset_index(dr, T)
    r = ramp(T, t0, dr.u(0.1, 0.2, 0.15) * T)
    d["kl"] = d["kl"] * np.exp(math.log(dr.u(50, 300, 100)) * r)
    d["entropy"] = d["entropy"] * (1 + dr.u(0.3, 0.8, 0.5) * r)
    freeze(d["skill"], t0)
    d["skill"] = d["skill"] - dr.u(2, 4, 3) * r
    d["fmt"] = d["fmt"] * (1 - 0.6 * r)
    d["gnorm"] = d["gnorm"] * (1 + dr.u(2, 5, 3) * r)
    d["clip"] = d["clip"] + 0.1 * r
    d["length"] = d["length"] * (1 + 0.8 * r)
    return d, t0


def stalled(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    # The optimizer never touches the weights (e.g. built before the adapters were attached):
    # the policy stays the reference, so kl is numerical dust, ratio is 1 and nothing is clipped.
    d["skill"] = np.full(T, skill_for(dr.u(0.25, 0.5, 0.35), d["sigma_d"], d["bad"]))
    d["fmt"] = np.full(T, d["fmt"][0])
    d["entropy"] = np.full(T, d["h_ref"])
    d["kl"] = np.abs(dr.rng.normal(0, 2e-6, T))
    d["clip"] = np.zeros(T)
    d["length"] = np.full(T, d["length"][0])
    d["quiet_ratio"] = True
    return d, 0


def numeric_instability(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    t0 = onset_index(dr, T)
    t_nan = min(T - 1, t0 + max(3, int(dr.u(0.04, 0.1, 0.06) * T)))
    r = ramp(T, t0, t_nan - t0)
    d["gnorm"] = d["gnorm"] * np.exp(math.log(dr.u(50, 500, 200)) * r)
    d["kl"] = d["kl"] * (1 + 3 * r**2)
    d["entropy"] = d["entropy"] * (1 + 0.2 * r**2)
    d["skill"][t_nan:] = -12.0  # the weights are NaN: the model emits garbage
    d["fmt"][t_nan:] = 0.0
    d["length"][t_nan:] = d["cap"] * 3
    d["nan_from"] = t_nan
    return d, t0


def truncation_starvation(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    t0 = onset_index(dr, T)
    r = ease(ramp(T, t0, dr.u(0.2, 0.35, 0.25) * T), 0.5)
    freeze(d["length"], t0)
    d["length"] = d["length"] * np.exp(math.log(d["cap"] * dr.u(5, 8, 6) / d["length"][t0]) * r)
    freeze(d["skill"], t0)
    d["entropy"] = d["entropy"] * (1 + 0.1 * r)
    d["kl"] = d["kl"] + 0.02 * r
    d["gnorm"] = d["gnorm"] * (1 - 0.7 * r)
    return d, t0


def entropy_explosion(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    t0 = onset_index(dr, T)
    r = ramp(T, t0, dr.u(0.2, 0.4, 0.3) * T)
    h = d["entropy"]
    h[t0:] = h[t0] + (dr.u(3.5, 6.0, 4.5) - h[t0]) * r[t0:] ** 1.3
    freeze(d["skill"], t0)
    d["skill"] = d["skill"] - dr.u(2.5, 4.5, 3.5) * r
    d["fmt"] = d["fmt"] * (1 - 0.8 * r)
    d["length"] = d["length"] * (1 + dr.u(0.3, 1.0, 0.6) * r)  # rambling, but mostly under the cap
    d["kl"] = d["kl"] * (1 + dr.u(2, 5, 3) * r)
    d["clip"] = d["clip"] + 0.05 * r
    d["gnorm"] = d["gnorm"] * (1 + 1.5 * r)
    return d, t0


def plateau(dr: Draw, T: int) -> Built:
    d = baseline(dr, T)
    t0 = onset_index(dr, T, 0.4)
    x = np.clip(d["u"] / max(t0 / max(T - 1, 1), 1e-9), 0, 1)
    prog = 1 - (1 - x) ** 2  # learns, then levels off with zero slope at t0
    # It levels off mid-way (a capacity ceiling), so groups stay mixed and adv_std stays healthy:
    # the run is not starved of signal, it has simply stopped gaining.
    s0 = d["skill"][0]
    s1 = skill_for(dr.u(0.36, 0.48, 0.42), d["sigma_d"], d["bad"])
    d["B"] = 64  # a flat mid-level reward is noisiest; keep the batch large
    d["skill"] = s0 + (s1 - s0) * prog
    q = d["fmt"]
    d["fmt"] = q[0] + (q[-1] - q[0]) * prog
    l = d["length"]
    d["length"] = l[0] + (l[-1] - l[0]) * prog
    h = d["entropy"]
    d["entropy"] = h[0] - (h[0] - h[-1]) * (0.85 * prog + 0.15 * d["u"])
    return d, t0


BUILDERS: dict[str, Callable[[Draw, int], Built]] = {
    f.__name__: f
    for f in (
        healthy,
        healthy_long,
        healthy_grad_spike,
        healthy_reasoning,
        batch_noise,
        lr_too_high,
        entropy_collapse,
        sync_failure,
        data_too_easy,
        data_too_hard,
        reward_hacking,
        length_hacking,
        kl_blowup,
        stalled,
        numeric_instability,
        truncation_starvation,
        entropy_explosion,
        plateau,
    )
}


def build(name: str, dr: Draw, T: int) -> tuple[Latent, int | None]:
    """The latent state of scenario `name` over T steps, with measurement noise, and its onset index."""
    d, onset = BUILDERS[name](dr, T)
    rng = dr.rng
    ns = math.sqrt(64 / d["B"])  # smaller batches measure everything less precisely
    ent = d["entropy"] * (1 + rng.normal(0, 0.004 * ns, T))
    kl = d["kl"] * np.exp(rng.normal(0, 0.06 * ns, T))
    clip = np.maximum(d["clip"] * np.exp(rng.normal(0, 0.12 * math.sqrt(ns), T)), 0.0)
    quiet = d.get("quiet_ratio") or name == "entropy_collapse"
    ratio = d["ratio"] + rng.normal(0, (1e-6 if quiet else 2.5e-5) * ns, T)
    gnorm = d["gnorm"] * np.exp(rng.normal(0, 0.1 * math.sqrt(ns), T))
    degen = d.get("degen")
    if degen is None:
        degen = degen_from_entropy(d["entropy"], d["h_ref"])
    lat = Latent(
        T=T,
        B=int(d["B"]),
        sigma_d=d["sigma_d"],
        w=d["w"],
        skill=d["skill"],
        fmt=d["fmt"],
        hack=d["hack"],
        degen=degen,
        entropy=ent,
        kl=kl,
        clip=clip,
        ratio=ratio,
        gnorm=gnorm,
        lr=d["lr"],
        length=d["length"],
        cap=d["cap"],
        len_sigma=d["len_sigma"],
        bad=d["bad"],
        nan_from=d.get("nan_from"),
        extra={"h_ref": d["h_ref"]},
    )
    return lat, onset
