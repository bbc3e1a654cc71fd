"""shapes.classify: the lesson's words for the curves it draws, with the numbers behind them."""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.run import Run, Series
from rlvitals.shapes import WORDS, blocks, classify, hinge_onset, shapes_of

N = 200
S = np.arange(1, N + 1)
RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def _own_rng():
    """Every test draws its noise from a fresh generator: what it sees does not depend on which
    tests ran before it in the same process (xdist deals tests to workers in any order)."""
    global RNG
    RNG = np.random.default_rng(11)


def sh(values, name="x", steps=None):
    v = np.asarray(values, float)
    return classify(Series(name, S[: v.size] if steps is None else steps, v))


def noise(sd, n=N):
    return RNG.normal(0, sd, n)


def test_lesson_healthy_table_words_and_levels():
    reward = sh(0.412 + 0.435 * (1 - np.exp(-S / 70)) + noise(0.02))
    entropy = sh(np.linspace(1.842, 1.498, N) + noise(0.01))
    kl = sh(np.linspace(0.002, 0.045, N) + noise(0.001))
    ratio = sh(1.0 + noise(0.0003), "ratio_mean")
    assert (reward.word, entropy.word, kl.word, ratio.word) == ("rising", "falling", "rising", "flat")
    assert entropy.start == pytest.approx(1.825, abs=0.02) and entropy.end == pytest.approx(1.515, abs=0.02)
    assert reward.stats["tau"] > 0.8 and entropy.slope < 0


def test_constant_is_its_own_word():
    s = sh(np.zeros(N), "clip_frac")
    assert s.word == "constant" and s.start == s.end == 0.0


def test_short_series_is_short_and_nan_is_counted():
    assert sh([1.0, 2.0, 3.0]).word == "short"
    v = np.linspace(0, 1, N)
    v[::10] = np.nan
    s = sh(v)
    assert s.word == "rising" and s.stats["nonfinite"] == 20
    assert sh([np.nan] * 5).word == "short"


def test_ratio_drift_only_for_the_stay_put_metric():
    v = np.where(S < 80, 1.0, 1.0 - 0.46 * (S - 80) / 120) + noise(0.002)
    ratio = sh(v, "ratio_mean")
    assert ratio.word == "drift" and abs(ratio.onset_step - 80) <= 15
    assert sh(v, "reward").word == "falling"


def test_lone_spike_and_surge():
    g = 0.8 + noise(0.05)
    g[50] = 30.0
    s = sh(g, "gnorm")
    assert s.word == "spike" and s.onset_step == 51 and s.stats["spike_z"] > 8
    kl = np.where(S < 120, 0.01 + 0.0001 * S, 0.022 * np.exp((S - 120) / 15))
    s = sh(kl, "kl")
    assert s.word == "spike" and abs(s.onset_step - 120) <= 20


def test_smooth_kl_rise_of_20x_is_not_a_spike():
    assert sh(np.linspace(0.002, 0.045, N) + np.abs(noise(0.001)), "kl").word == "rising"


def test_fast_entropy_fall_to_near_zero_is_to_zero_not_a_spike_or_a_slow_fall():
    s = sh(1.8 * np.exp(-S / 30) + 0.005 + np.abs(noise(0.003)), "entropy")
    assert s.word == "to_zero" and s.end < 0.02
    # the same fall that stops at a third of its start is an ordinary fall
    assert sh(0.6 + 1.2 * np.exp(-S / 30) + noise(0.003), "entropy").word == "falling"


# -- magnitude: a large relative change is never "slowly" or "flat" (issue 11) -----------------


def test_kl_growing_by_three_orders_of_magnitude_smoothly_is_a_surge():
    # kl 0.004 → 18.6 over the run, exponential all the way (no late acceleration, no step)
    kl = 0.004 * np.exp(np.log(18.6 / 0.004) * (S - 1) / (N - 1)) * (1 + noise(0.02))
    s = sh(kl, "kl")
    assert s.word == "spike" and s.end / s.start > 100


def test_lesson_healthy_kl_x22_stays_rising():
    assert sh(np.linspace(0.002, 0.045, N) + np.abs(noise(0.0005)), "kl").word == "rising"


def test_grad_norm_falling_from_113_to_zero_is_to_zero_not_flat():
    # 113 ± 10 for 40 steps, then the gradient dies (a collapsed run): 113 → 0.000 is no "flat"
    g = np.where(S < 40, 113.0, 113.0 * np.exp(-(S - 40) / 5)) * (1 + noise(0.1)) + np.abs(noise(1e-4))
    s = sh(g, "gnorm")
    assert s.word == "to_zero" and s.end < 1e-3 and 30 <= s.onset_step <= 60


def test_a_negative_score_climbing_to_zero_rises_it_does_not_fall_to_zero():
    # a game score (a penalty) from -6 to -0.1: near 0 at the end, but a rise -- every reader of
    # "to_zero" reads a loss (an entropy dying, a truth metric lost)
    v = -6.0 * np.exp(-S / 25) - 0.1 + noise(0.2)
    s = sh(v, "reward")
    assert s.word == "rising" and s.end > s.start
    assert sh(-v, "reward").word == "to_zero"  # the same curve as a positive fall is one


def test_a_ragged_but_large_rise_is_rising_not_flat():
    # acc 26.7% → 42.4% with heavy batch noise and a stall in the middle: tau is low, the move is not
    base = np.concatenate([np.linspace(0.267, 0.36, 60), np.full(80, 0.36), np.linspace(0.36, 0.424, 60)])
    v = base + RNG.normal(0, 0.06, N)
    s = sh(v, "acc")
    assert s.word == "rising" and s.rel_change > 0.25


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_near_zero_noise_is_not_a_fall_to_zero(seed):
    # data too hard: a reward that is 0 on almost every step, with rare blips, is not a trend
    from rlvitals.simulate import simulate

    run = simulate("data_too_hard", seed=seed)
    for m in ("reward", "acc"):
        if m in run.series:
            assert classify(run.series[m]).word not in ("to_zero", "falling", "rising"), m


def test_magnitude_words_are_scale_free():
    # the same curves times 1000 get the same words (magnitude is relative, not absolute)
    kl = 0.004 * np.exp(np.log(18.6 / 0.004) * (S - 1) / (N - 1))
    ent = 1.8 * np.exp(-S / 30) + 0.005
    for k in (1.0, 1000.0):
        assert sh(k * kl, "kl").word == "spike" and sh(k * ent, "entropy").word == "to_zero"


def test_every_word_has_a_label_in_both_languages():
    from rlvitals.i18n import catalogs

    strings = catalogs()["findings"]
    for w in WORDS:
        for lang in ("en", "zh"):
            assert f"shape.{w}" in strings[lang], (w, lang)
    assert "slowly" not in " ".join(strings["en"][f"shape.{w}"] for w in WORDS)


def test_oscillation_vs_flat():
    assert sh(0.5 + 0.1 * S / N + noise(0.15)).word == "oscillating"
    assert sh(0.5 + noise(0.01)).word == "flat"


def test_hinge_finds_the_change():
    t = np.arange(60, dtype=float)
    k, fit = hinge_onset(t, np.where(t < 20, 1.0, 1.0 + 0.1 * (t - 20)), "start")
    assert k == 20 and fit > 0.99
    k, _ = hinge_onset(t, np.minimum(t, 40.0), "stop")
    assert k == 40
    k, _ = hinge_onset(t, (t >= 30).astype(float), "level")
    assert k == 30


def test_blocks_keep_every_point():
    st = np.arange(1000)
    t, x = blocks(st, st.astype(float), 64)
    assert t.size == 64 and x[-1] > 980 and x[0] < 10  # no point dropped, no block swallows the tail


def test_shapes_of_covers_every_series_and_uses_known_words():
    run = Run.from_arrays("t", S, {"reward": np.linspace(0, 1, N), "clip_frac": np.zeros(N)})
    out = shapes_of(run)
    assert set(out) == {"reward", "clip_frac"} and all(s.word in WORDS for s in out.values())


def test_irregular_steps_and_huge_values():
    steps = np.cumsum(np.random.default_rng(2).integers(1, 20, N))
    s = classify(Series("loss", steps, np.linspace(1e8, 2e8, N)))
    assert s.word == "rising" and np.isfinite(s.slope)


def test_long_run_spike_found_exactly_in_linear_memory():
    n = 300_000
    v = 0.8 + np.random.default_rng(3).normal(0, 0.05, n)
    v[123_457] = 40.0
    s = classify(Series("gnorm", np.arange(n), v))
    assert s.word == "spike" and s.onset_step == 123_457 and s.stats["local_ratio"] > 40
    v[123_457] = 0.8
    assert classify(Series("gnorm", np.arange(n), v)).word == "flat"


def test_a_large_early_move_that_levels_off_is_named_by_its_direction_not_flat():
    # prime-rl's completion length: 178 -> ~18 in the first tenth, then a flat tail (real fixture shape)
    import numpy as np

    from rlvitals.run import Series
    from rlvitals.shapes import classify

    rng = np.random.default_rng(0)
    t = np.arange(1000)
    x = 18 + 160 * np.exp(-t / 40) + rng.normal(0, 1.5, t.size)
    sh = classify(Series("len", t, x))
    assert sh.word == "falling" and sh.rel_change < -0.5  # start = mean of the first tenth
    assert classify(Series("len", t, 200 - x)).word == "rising"
    # a flat noisy line stays flat
    assert classify(Series("len", t, 18 + rng.normal(0, 1.5, t.size))).word == "flat"


def test_real_score_rising_from_zero_through_noise_is_rising_not_a_surge():
    # verl LoRA run: score -0.004 -> 0.233 with ±0.08 batch noise (n=4): learned, then plateaued
    from realdata import REAL_LOGS

    from rlvitals.ingest import read
    from rlvitals.shapes import classify

    run = read(REAL_LOGS["verl_plateau"])
    assert classify(run.series["reward"]).word == "rising"
    # and prime-rl's length 178 -> 18 (fell early, then flat) is a fall
    run = read(REAL_LOGS["primerl_hacking"])
    assert classify(run.series["len"]).word == "falling"


def test_a_short_steady_fall_is_no_spike_at_its_first_point():
    # 15 points, a reward falling to 0 and staying there: each point sits on its neighbours' line, so
    # the first point (the highest) is no jump away from a run-wide median; a lone jump still is one
    fall = np.array([0.56, 0.44, 0.45, 0.33, 0.14, 0.09, 0.02, 0.004, 0, 0, 0.004, 0, 0.004, 0, 0])
    s = classify(Series("reward", np.arange(2, 17), fall))
    assert s.word == "to_zero" and s.onset_step is not None and s.onset_step <= 7
    flat = 0.3 + 0.01 * np.sin(np.arange(20))
    flat[12] = 3.0
    jump = classify(Series("kl", np.arange(20), flat))
    assert jump.word == "spike" and jump.onset_step == 12
