"""The lesson's four confusable pairs and its three closing questions, each for the right reason.

"症状告诉你「不对」，正常的指标告诉你「不对在哪」": every check below asserts the top finding AND
the normal metric that ruled the look-alike out, with its value.
"""

from __future__ import annotations

import diag_curves as dc
import pytest

from rlvitals.diagnose import diagnose


def _ruled(f, lookalike):
    return {r.metric: r.value for r in f.ruled_out if r.lookalike == lookalike}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pair_a1_flat_reward_from_entropy_collapse(seed):
    d = diagnose(dc.pair_a1_collapse(seed))
    assert d.verdict == "dead" and d.top.id == "entropy_collapse" and d.top.severity == "critical"
    assert d.top.evidence["entropy_end"] < 0.02 and d.top.evidence["entropy_drop"] > 0.98
    assert abs(_ruled(d.top, "sync_failure")["ratio_mean"] - 1.0) < 0.01
    assert "samples" in d.top.missing


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pair_a2_flat_reward_from_broken_sync(seed):
    d = diagnose(dc.pair_a2_sync(seed))
    assert d.verdict == "dead" and d.top.id == "sync_failure"
    assert d.top.evidence["ratio_end"] == pytest.approx(0.55, abs=0.03)
    assert _ruled(d.top, "entropy_collapse")["entropy"] == pytest.approx(1.77, abs=0.03)
    assert _ruled(d.top, "data_too_easy")["adv_std"] > 0.9  # A2: adv_std normal → not the data
    assert abs(d.top.onset_step - 60) <= 20  # drift began at step 60 of 200
    assert d.shapes["ratio_mean"].word == "drift"
    assert d.top.action.direction == "check" and "TIS" in d.top.action.typical


def test_flat_reward_without_ratio_says_what_is_missing():
    run = dc.pair_a2_sync(0)
    del run.series["ratio_mean"]
    d = diagnose(run)
    # KL still drifts (the trainer's copy moves), so it is not "nothing moves": the run is not
    # learning, cause undetermined, and the metric that would decide is named
    assert d.top.id in ("stalled", "not_learning") and "ratio_mean" in d.top.missing
    assert d.verdict == "dead" and "sync_failure" not in {f.id for f in d.findings}
    if d.top.id == "not_learning":
        assert "sync_failure" in d.top.evidence["candidates"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pair_b1_adv_std_low_because_model_got_stronger(seed):
    d = diagnose(dc.pair_b1_easy(seed))
    assert d.verdict == "learning" and d.top.id == "data_too_easy"
    assert d.top.severity == "warning"  # adv_std 0.24: change data / dynamic sampling
    assert _ruled(d.top, "entropy_collapse")["entropy"] == pytest.approx(1.4, abs=0.05)
    assert "filter_groups" in d.top.action.typical
    assert "entropy_collapse" not in {f.id for f in d.findings}


def test_pair_b2_adv_std_low_because_of_collapse():
    d = diagnose(dc.pair_b2_collapse(1))
    assert d.top.id == "entropy_collapse" and "data_too_easy" not in {f.id for f in d.findings}
    assert {r.lookalike for r in d.top.ruled_out} >= {"data_too_easy", "sync_failure"}


@pytest.mark.parametrize("seed", [0, 1])
def test_pair_c1_length_rising_with_acc_is_healthy(seed):
    d = diagnose(dc.pair_c1_long(seed))
    assert d.verdict == "learning"
    assert all(f.severity == "info" for f in d.findings)
    assert d.shapes["len"].word == "rising"


@pytest.mark.parametrize("seed", [0, 1])
def test_pair_c2_length_explosion(seed):
    d = diagnose(dc.pair_c2_explode(seed))
    assert d.verdict == "cheating" and d.top.id == "length_hacking"
    assert d.top.evidence["trunc_end"] > 0.5 and d.top.evidence["len_growth"] > 5
    assert "16384" in d.top.action.typical


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pair_d1_small_batch_noise_is_info_only(seed):
    d = diagnose(dc.pair_d1_noise(seed))
    assert d.verdict == "learning"
    assert all(f.severity == "info" for f in d.findings)
    noise = next(f for f in d.findings if f.id == "batch_noise")
    ruled = _ruled(noise, "lr_too_high")
    assert ruled["clip_frac"] == pytest.approx(0.011, abs=0.003) and ruled["gnorm"] == pytest.approx(0.8, abs=0.05)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pair_d2_learning_rate_too_high(seed):
    d = diagnose(dc.pair_d2_lr(seed))
    assert d.verdict == "unstable" and d.top.id == "lr_too_high" and d.top.severity == "warning"
    assert d.top.evidence["clip_frac_late"] == pytest.approx(0.42, abs=0.03)
    assert _ruled(d.top, "batch_noise")["clip_frac"] > 0.2
    assert d.top.action.knob == "learning rate" and d.top.action.direction == "lower"
    assert "batch_noise" not in {f.id for f in d.findings}


def test_quiz_one_entropy_0009_ratio_1_vs_entropy_1774_ratio_05407():
    """Two logs, reward flat in both: entropy=0.009 ratio=1.0000 vs entropy=1.774 ratio=0.5407."""
    a, b = diagnose(dc.pair_a1_collapse(5)), diagnose(dc.pair_a2_sync(5))
    assert (a.top.id, b.top.id) == ("entropy_collapse", "sync_failure")
    assert a.top.action.knob != b.top.action.knob


def test_quiz_two_adv_std_024_told_apart_by_entropy():
    easy, collapse = diagnose(dc.pair_b1_easy(5)), diagnose(dc.pair_b2_collapse(5))
    assert 0.2 < easy.top.evidence["adv_std_end"] < 0.3  # the last tenth of a fall to 0.24
    assert easy.top.id == "data_too_easy" and collapse.top.id == "entropy_collapse"
    assert easy.top.evidence["entropy_end"] > 1.0 > 0.05 > collapse.top.evidence["entropy_end"]


def test_quiz_three_which_jitter_to_fix():
    noisy, violent = diagnose(dc.pair_d1_noise(5)), diagnose(dc.pair_d2_lr(5))
    assert noisy.worst_severity() == "info" and violent.top.id == "lr_too_high"
    assert violent.top.action.typical.startswith("LR × 0.5")
