"""The dice engine against a plain per-response reference, and its internals (SWAR count, CDF)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlvitals.simulate import engine
from rlvitals.simulate.engine import G, Latent, moving_mean, norm_cdf, roll_dice, trunc_prob


def _latent(
    T=400, B=64, *, skill=0.0, fmt=0.6, hack=0.0, degen=0.0, length=150.0, cap=512.0, w=0.3, sigma_d=2.0, bad=0.1
) -> Latent:
    full = lambda v: np.full(T, float(v))  # noqa: E731
    return Latent(
        T=T,
        B=B,
        sigma_d=sigma_d,
        w=w,
        skill=full(skill),
        fmt=full(fmt),
        hack=full(hack),
        degen=full(degen),
        entropy=full(1.5),
        kl=full(0.01),
        clip=full(0.02),
        ratio=full(1.0),
        gnorm=full(0.8),
        lr=full(1e-6),
        length=full(length),
        cap=cap,
        len_sigma=0.6,
        bad=bad,
        extra={"h_ref": 1.8},
    )


def _reference(lat: Latent, rng: np.random.Generator) -> dict[str, float]:
    """Per-response simulation written the obvious way (float draws, explicit group arithmetic)."""
    T, B = lat.T, lat.B
    tau = trunc_prob(lat.length, lat.cap, lat.len_sigma)[:, None, None]
    d = rng.standard_normal((T, B, 1)) * lat.sigma_d
    p = 1 / (1 + np.exp(d - lat.skill[:, None, None]))
    p = np.where(rng.random((T, B, 1)) < lat.bad, 0.0, p)
    x = rng.random((T, B, G))
    same = rng.random((T, B, 1)) < lat.degen[:, None, None]
    x = np.where(same, x[..., :1], x)
    live = 1 - tau
    hack, fmt = lat.hack[:, None, None], lat.fmt[:, None, None]
    correct = x < live * p
    hi = x < live * (p + (1 - p) * hack)
    fw = (x < live * (p + (1 - p) * (hack + (1 - hack) * fmt))) & ~hi
    r = np.where(hi, 1 + lat.w, np.where(fw, lat.w, 0.0))
    mu, sd = r.mean(-1, keepdims=True), r.std(-1, keepdims=True)
    adv = np.where(sd > 1e-9, (r - mu) / np.where(sd > 1e-9, sd, 1), 0.0)
    tok = np.where(hi, engine._LEN_HI, np.where(fw, engine._LEN_W, engine._LEN_0))
    s0, s1, s2 = tok.sum((1, 2)), (tok * adv).sum((1, 2)), (tok * adv**2).sum((1, 2))
    return {
        "reward": r.mean(),
        "acc": correct.mean(),
        "frac_zero_std": (sd[..., 0] <= 1e-9).mean(),
        "adv_std": np.sqrt(s2 / s0 - (s1 / s0) ** 2).mean(),
        "trunc": (x >= live).mean(),
    }


@pytest.mark.parametrize(
    "kw",
    [
        {},  # mid skill
        {"skill": -3.0, "fmt": 0.9},  # mostly wrong, format learned: many all-same groups
        {"skill": 2.5, "hack": 0.5},  # hacking
        {"degen": 0.8, "skill": 0.5},  # collapsed groups
        {"length": 700.0, "cap": 512.0},  # heavy truncation
    ],
)
def test_fast_dice_match_a_per_response_reference(kw):
    lat = _latent(**kw)
    fast = roll_dice(lat, np.random.default_rng(1))
    ref = _reference(lat, np.random.default_rng(2))
    for k, v in ref.items():
        assert abs(fast[k].mean() - v) < 0.02, (k, fast[k].mean(), v)


def test_swar_count_equals_naive_count():
    rng = np.random.default_rng(0)
    u = rng.bit_generator.random_raw(5000) & engine._LOW7
    t = rng.integers(-1, 128, size=5000)
    lanes = np.stack([(u >> np.uint64(8 * k)) & np.uint64(0x7F) for k in range(8)], axis=-1).astype(np.int64)
    naive = (lanes <= t[:, None]).sum(-1)
    assert np.array_equal(engine._count(u, t), naive)


def test_adv_std_tracks_zero_std_groups():
    # The lesson's derivation: adv_std ~ sqrt(1 - frac_zero_std); token weighting moves it a little.
    for skill in (-3.0, 0.0, 3.0):
        out = roll_dice(_latent(skill=skill, fmt=0.95), np.random.default_rng(3))
        assert abs(out["adv_std"].mean() - np.sqrt(1 - out["frac_zero_std"]).mean()) < 0.1


def test_norm_cdf_and_moving_mean():
    z = np.array([-3.0, -1.0, 0.0, 0.5, 2.0])
    expect = [0.5 * (1 + math.erf(v / math.sqrt(2))) for v in z]
    assert np.allclose(norm_cdf(z), expect, atol=1e-6)
    x = np.arange(20, dtype=float)
    assert np.allclose(moving_mean(x, 5)[2:-2], x[2:-2])


def test_long_runs_keep_the_true_batch_noise(monkeypatch):
    # Past GROUP_BUDGET the engine rolls fewer groups and rescales; the step-to-step noise must match.
    short = roll_dice(_latent(T=2000), np.random.default_rng(4))
    monkeypatch.setattr(engine, "GROUP_BUDGET", 100_000)  # 20,000 steps -> 5 groups a step
    long = roll_dice(_latent(T=20_000), np.random.default_rng(5))
    assert long["reward"].size == 20_000
    for k in ("reward", "acc"):
        a, b = np.diff(short[k]).std(), np.diff(long[k]).std()
        assert 0.75 < b / a < 1.33, (k, a, b)
        assert abs(short[k].mean() - long[k].mean()) < 0.02
