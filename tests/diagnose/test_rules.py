"""Each rule's behaviour on hand-built runs: fires on its mechanism, stays silent on look-alikes,
never guesses from missing data, and carries its arithmetic."""

from __future__ import annotations

import json

import diag_curves as dc
import numpy as np
import pytest
from diag_curves import N, S, jitter, ramp

from rlvitals.diagnose import RULES, diagnose
from rlvitals.diagnose.context import Ctx
from rlvitals.diagnose.data_too_easy import band
from rlvitals.diagnose.model import FINDING_IDS
from rlvitals.diagnose.verdict import PRIORITY
from rlvitals.run import Run


def ids(d):
    return [f.id for f in d.findings]


@pytest.mark.parametrize("seed", range(6))
def test_healthy_run_is_learning_and_silent(seed):
    d = diagnose(dc.healthy(seed))
    assert d.verdict == "learning"
    assert all(f.severity == "info" for f in d.findings), ids(d)
    assert d.shapes["reward"].word == "rising" and d.shapes["ratio_mean"].word == "flat"
    # adv_std 1.03 → 0.66 is the lesson's "normal but watch" band: info, not a warning
    easy = [f for f in d.findings if f.id == "data_too_easy"]
    assert easy and easy[0].severity == "info"


def test_clip_frac_identically_zero_is_not_applicable_not_healthy():
    d = diagnose(dc.healthy(0, clip_frac=np.zeros(N)))
    assert d.shapes["clip_frac"].word == "constant"
    assert "clip_frac" in d.run["not_applicable"]
    assert d.verdict == "learning"


def test_lr_too_high_without_clip_frac_relies_on_grad_norm_and_says_so():
    # pair D's too-high LR with its clip fraction not applicable: the grad norm must say so against
    # itself -- climbing from the calm 0.8 to pair D's 6 does
    run = dc.pair_d2_lr(0)
    run.series["clip_frac"] = dc.healthy(0, clip_frac=np.zeros(N)).series["clip_frac"]
    run.series["gnorm"] = dc.healthy(0, gnorm=np.abs(ramp(0.8, 6.0, 20, 80) + jitter(0.3, 1))).series["gnorm"]
    d = diagnose(run)
    assert d.top.id == "lr_too_high"
    assert d.top.evidence["clip_frac"].startswith("not applicable")
    assert d.top.evidence["gnorm_late"] > 3 and d.top.evidence["gnorm_rise"] >= 3
    # at 6 from the first step, its level alone is a large model's as much as a too-high LR's: the
    # jitter is not called the LR's (nor calm updates: batch_noise needs a normal grad norm)
    run.series["gnorm"] = dc.pair_d2_lr(0).series["gnorm"]
    d = diagnose(run)
    assert not {"lr_too_high", "batch_noise"} & set(ids(d)) and d.worst_severity() == "info"
    # and with calm grad norm the same jitter is only noise
    run.series["gnorm"] = dc.healthy(0).series["gnorm"]
    d = diagnose(run)
    assert "lr_too_high" not in ids(d) and d.worst_severity() == "info"


def test_reasoning_model_low_entropy_with_rising_acc_is_not_a_collapse():
    # a reasoning model: entropy 0.45 → 0.15; the verl baseline even ends at 0.056 -- while acc rises
    for end in (0.15, 0.056):
        run = dc.healthy(1, entropy=0.45 * np.exp(np.log(end / 0.45) * (S - 1) / (N - 1)) + jitter(0.003))
        d = diagnose(run)
        assert "entropy_collapse" not in ids(d), (end, ids(d))
        assert d.verdict == "learning"


def test_reward_hacking_reward_up_acc_flat():
    d = diagnose(dc.healthy(0, acc=0.21 + jitter(0.01), len=100 + jitter(3.0)))
    assert d.verdict == "cheating" and d.top.id == "reward_hacking"
    assert d.top.evidence["acc_end"] < 0.25 < 0.8 < d.top.evidence["reward_end"]
    assert any(r.lookalike == "length_hacking" and r.metric == "len" for r in d.top.ruled_out)


def test_reward_hacking_with_acc_constant_zero_like_primerl():
    d = diagnose(dc.healthy(0, acc=np.zeros(N), len=np.linspace(178, 16, N) + jitter(2.0)))
    assert d.top.id == "reward_hacking" and d.top.evidence["acc_constant"] is True


def test_no_acc_means_no_hacking_call():
    d = diagnose(dc.healthy(0, acc=None))
    assert "reward_hacking" not in ids(d) and "length_hacking" not in ids(d)
    assert "acc" in d.run["missing_vitals"]


def test_kl_blowup_onset_and_ruled_out():
    kl = np.where(S < 120, 0.01 + 0.0001 * S, 0.022 * np.exp((S - 120) / 15))
    d = diagnose(dc.healthy(0, kl=kl, entropy=np.linspace(1.8, 1.6, N) + ramp(0, 1.5, 130)))
    # the KL still multiplies at the end while the accuracy held: a run-away the goal has not paid for
    assert d.verdict == "unstable" and d.top.id == "kl_blowup" and d.top.evidence["goal_held"] is True
    assert d.top.evidence["kl_surge"] > 10 and abs(d.top.onset_step - 120) <= 20
    assert {r.lookalike for r in d.top.ruled_out} >= {"lr_too_high", "numeric_instability"}
    assert d.shapes["kl"].word == "spike"


def test_nan_is_numeric_instability_from_the_first_nan():
    loss = 0.02 + jitter(0.002)
    loss[150:] = np.nan
    d = diagnose(dc.healthy(0, loss=loss))
    assert d.top.id == "numeric_instability" and d.top.onset_step == 151
    assert d.top.evidence["loss_nonfinite"] == 50


def test_exploding_loss_without_nan():
    loss = 0.02 + np.abs(jitter(0.002))
    loss[160:] = 1e6 * np.exp((S[160:] - 160) / 5)
    d = diagnose(dc.healthy(0, loss=loss))
    assert d.top.id == "numeric_instability" and abs(d.top.onset_step - 161) <= 2


def test_lone_grad_norm_spike_in_healthy_run_stays_silent():
    g = 0.8 + jitter(0.05)
    g[30] = 66.0  # the verl baseline's early actor spike
    d = diagnose(dc.healthy(0, gnorm=g))
    assert d.shapes["gnorm"].word == "spike" and d.shapes["gnorm"].onset_step == 31
    assert d.verdict == "learning" and all(f.severity == "info" for f in d.findings)


def test_truncation_starvation_from_trunc_rate():
    d = diagnose(
        dc.healthy(
            0,
            reward=0.0 + np.zeros(N),
            acc=np.zeros(N),
            adv_std=np.zeros(N),
            trunc=np.clip(0.9 + jitter(0.02), 0, 1),
            len=np.full(N, 1024.0),
        )
    )
    assert d.top.id == "truncation_starvation" and d.verdict == "dead"
    assert d.top.ruled_out[0].lookalike == "data_too_hard"


def test_truncation_starvation_from_pinned_length_says_trunc_missing():
    ln = np.full(N, 256.0)
    ln[::40] = 250.0
    d = diagnose(Run.from_arrays("t", S, {"reward": np.zeros(N), "len": ln, "kl": np.zeros(N)}))
    assert d.top.id == "truncation_starvation" and "trunc" in d.top.missing


def test_data_too_hard_all_wrong():
    d = diagnose(
        dc.healthy(0, reward=0.02 + np.abs(jitter(0.01)), acc=0.01 + np.abs(jitter(0.005)), adv_std=0.15 + jitter(0.02))
    )
    assert d.top.id == "data_too_hard" and d.verdict == "dead"
    assert any(r.lookalike == "entropy_collapse" for r in d.top.ruled_out)


def test_stalled_nothing_moves():
    d = diagnose(
        dc.healthy(
            0,
            reward=0.45 + jitter(0.02),
            acc=0.25 + jitter(0.01),
            entropy=1.8 + jitter(0.01),
            kl=0.002 + jitter(0.0002),
            adv_std=0.95 + jitter(0.01),
        )
    )
    assert d.top.id == "stalled" and d.verdict == "dead"
    assert any(r.lookalike == "sync_failure" and r.metric == "ratio_mean" for r in d.top.ruled_out)


def _warned(d) -> list[str]:
    return [f.id for f in d.findings if f.severity != "info"]


def test_a_stall_on_a_noisy_policy_needs_more_points_than_on_a_demonstrably_still_one():
    # nothing learned; the policy is still either way, but a noisy entropy (no KL logged) only shows
    # no move within its noise: a stall is not said on 25 points, and is on 40
    flat = {"reward": 0.45 + jitter(0.02), "acc": 0.25 + jitter(0.01), "kl": None, "adv_std": 0.95 + jitter(0.01)}
    noisy = dc.healthy(0, entropy=1.8 + jitter(0.15, 3), **flat)
    assert "stalled" not in _warned(diagnose(noisy.upto(25)))
    assert _warned(diagnose(noisy.upto(40)))[:1] == ["stalled"]
    # an entropy held within 1% of its level says it on the same 25 points
    still = dc.healthy(0, entropy=1.8 + jitter(0.002, 3), **flat)
    assert _warned(diagnose(still.upto(25)))[:1] == ["stalled"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_score_too_noisy_to_resolve_a_material_gain_is_no_proof_that_nothing_moves(seed):
    # 40 steps, no entropy, a KL flat at 0.15: a solve rate from two puzzles a step (sd 0.25) shows no
    # move, but its fitted change's standard error (~0.14) could hide a material gain: not stalled.
    # The same rate from a large batch (sd 0.01) resolves one, and the stall is said.
    r = np.random.default_rng(seed)
    s = np.arange(1, 41)

    def run(sd: float) -> Run:
        rate = np.clip(0.5 + r.normal(0, sd, s.size), 0, 1)
        kl = 0.15 * (1 + r.normal(0, 0.05, s.size))
        return Run.from_arrays("solve", s, {"acc": rate, "reward": 2 * rate + 1, "kl": kl})

    assert "stalled" not in _warned(diagnose(run(0.25)))
    assert "stalled" in _warned(diagnose(run(0.01)))


def test_entropy_explosion():
    d = diagnose(
        dc.healthy(
            0,
            entropy=1.0 + ramp(0, 3.0, 100) + jitter(0.02),
            acc=np.minimum(dc._ease(0.21, 0.574), ramp(0.45, 0.1, 100)) + jitter(0.01),
            reward=np.minimum(dc._ease(0.4, 0.85), ramp(0.65, 0.2, 100)) + jitter(0.02),
        )
    )
    assert d.top.id == "entropy_explosion" and d.verdict == "dead"
    assert abs(d.top.onset_step - 100) <= 20


def test_entropy_explosion_of_a_low_entropy_model_is_judged_relatively():
    # a reasoning model's entropy lives near 0.15: x5 to 0.75 with the score crashing is a run-away,
    # though it never reaches the lesson's absolute band (entropy_ok)
    ent = 0.15 + ramp(0, 0.6, 100, 110) + jitter(0.01)
    crash = ramp(0.0, 1.0, 100, 110)
    d = diagnose(
        dc.healthy(
            0,
            entropy=ent,
            acc=dc._ease(0.21, 0.574) * (1 - crash) + 0.02 + jitter(0.01),
            reward=dc._ease(0.4, 0.85) * (1 - crash) + 0.03 + jitter(0.02),
        )
    )
    assert d.top.id == "entropy_explosion" and d.verdict == "dead", [(f.id, f.severity) for f in d.findings]
    # the same x5 rise while the score keeps rising (an entropy bonus at work) is no explosion
    d = diagnose(dc.healthy(0, entropy=ent))
    assert "entropy_explosion" not in {f.id for f in d.findings} and d.verdict == "learning"
    # nor is a score that dips on its plateau but keeps most of its gain (0.21 -> 0.50 -> 0.43)
    acc = np.minimum(dc._ease(0.21, 0.7), 0.5) - ramp(0.0, 0.07, 150) + jitter(0.01)
    d = diagnose(dc.healthy(0, entropy=ent, acc=acc, reward=acc + 0.2))
    assert "entropy_explosion" not in {f.id for f in d.findings}, [(f.id, f.severity) for f in d.findings]


def test_plateau_is_info_with_its_onset():
    acc = np.minimum(0.2 + 0.004 * S, 0.6) + jitter(0.01)  # flat from step 100
    d = diagnose(dc.healthy(0, acc=acc, reward=acc + 0.2))
    p = next(f for f in d.findings if f.id == "plateau")
    assert p.severity == "info" and abs(p.onset_step - 100) <= 20 and d.verdict == "learning"


@pytest.mark.parametrize(
    "end,sev", [(1.0, None), (0.81, None), (0.66, "info"), (0.45, "warning"), (0.3, "warning"), (0.19, "critical")]
)
def test_adv_std_band_follows_the_lesson_table(end, sev):
    assert band(end) == sev


def test_findings_ordered_and_serialisable():
    d = diagnose(dc.pair_d2_lr(0))
    # severity first, then the more specific cause (verdict.PRIORITY), then confidence
    ranks = [(f.rank[0], PRIORITY.index(f.id), f.rank[1]) for f in d.findings]
    assert ranks == sorted(ranks)
    for f in d.findings:
        json.dumps(f.to_dict())  # evidence is plain numbers and strings
        assert f.action is not None and f.action.source
    # not_learning is added by verdict.resolve when nothing explains a goal that does not improve
    assert set(dict(RULES)) | {"not_learning"} == set(FINDING_IDS)


def test_short_run_does_not_guess():
    run = dc.healthy(0)
    d = diagnose(run.upto(6))
    assert d.findings == () and d.verdict == "learning"
    assert all(sh.word in ("short", "constant") for sh in d.shapes.values())


def _two_sample_cuts(last: np.ndarray) -> Run:
    """Two samples a group (G=2): the truncation rate is 0, 1/2 or 1 at every step, past the
    starvation bar on average over 90 steps; a reward of penalties that never gains; `last` the
    rate's final ten steps."""
    r = np.random.default_rng(7)
    trunc = np.concatenate([r.choice([0.0, 0.5, 1.0], 90, p=[0.2, 0.4, 0.4]), last])
    steps = np.arange(1, trunc.size + 1)
    reward = -4.0 + r.normal(0, 5.0, trunc.size) - 6.0 * trunc
    length = 420.0 + 300.0 * trunc + r.normal(0, 20, trunc.size)
    return Run.from_arrays("g2", steps, {"reward": reward, "trunc": trunc, "len": np.minimum(length, 718.0)})


def test_a_noisy_truncation_rate_past_the_bar_starves_the_run_when_its_last_window_dips():
    # the last window at 0.4 (under the bar of 0.5, over the lesson's 0.3): a few noisy points
    d = diagnose(_two_sample_cuts(np.array([0.5, 0.0, 0.5, 0.5, 0.0, 0.5, 0.5, 0.5, 0.5, 0.5])))
    f = {x.id: x for x in d.findings}.get("truncation_starvation")
    assert f is not None and f.severity == "critical" and d.verdict == "dead"
    # one that fell under the lesson's band at the end cuts no more: the last half is not read for it
    d = diagnose(_two_sample_cuts(np.zeros(10)))
    assert all(x.id != "truncation_starvation" or x.severity == "info" for x in d.findings)


def test_the_length_growth_rates_around_the_bend_do_not_drift_with_the_prefix():
    # answers growing x1.8 beside a rising accuracy (pair C1), then -- the accuracy flat from step 76
    # -- growing faster, at a steady log-rate: the growth sped up at the bend (x1.48), however long the
    # prefix (window means at the ends widen with the run and drag the ratio down as it grows)
    from rlvitals.diagnose.lengths import log_rates
    from rlvitals.shapes import shapes_of

    r = np.random.default_rng(5)
    s = np.arange(1, 201)
    log_len = np.where(s < 76, np.log(86) + 0.0079 * (s - 1), np.log(86) + 0.0079 * 75 + 0.0117 * (s - 76))
    acc = np.where(s < 76, 0.24 + 0.17 * (s - 1) / 75, 0.41) + r.normal(0, 0.02, s.size)
    cols = {"len": np.exp(log_len) * (1 + r.normal(0, 0.03, s.size)), "acc": acc}
    run = Run.from_arrays("long", s, cols)
    ratios = []
    for upto in (110, 130, 150, 170, 200):
        part = run.upto(upto)
        ctx = Ctx(part, dict(shapes_of(part)))
        before, after = log_rates(ctx, 76)
        ratios.append(after / before)
    assert min(ratios) > 1.4 and max(ratios) - min(ratios) < 0.1, ratios


def _format_over_flat_truth(seed: int, truth_name: str = "acc") -> Run:
    """A truth learned to 0.44 by step 120 and then flat (creeping 0.015 over 180 steps), a reward
    paying 0.4 for a format learned from step 150: the reward parts from its truth."""
    r = np.random.default_rng(seed)
    s = np.arange(1, 301)
    truth = np.where(s < 120, 0.2 + 0.24 * (s - 1) / 119, 0.44 + 0.015 * (s - 120) / 180) + r.normal(0, 0.015, s.size)
    fmt = np.where(s < 150, 0.2, 0.2 + 0.8 * np.minimum((s - 150) / 100, 1.0)) + r.normal(0, 0.01, s.size)
    entropy = 1.5 + r.normal(0, 0.01, s.size)
    return Run.from_arrays("fmt", s, {truth_name: truth, "reward": 0.6 * truth + 0.4 * fmt, "entropy": entropy})


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_flat_truth_beside_a_reward_paid_for_format_is_reward_hacking_whatever_its_z(seed):
    # the truth's gain since the parting is a coin toss around hack_truth_z (0.1 to 2 standard errors
    # over these draws): judged by its share of the reward's gain as well, the call does not flip with it
    from rlvitals.diagnose.reward_hacking import _by_truth, divergence_onset
    from rlvitals.diagnose.stretches import since
    from rlvitals.shapes import shapes_of

    run = _format_over_flat_truth(seed)
    d = diagnose(run)
    assert d.verdict == "cheating" and d.findings[0].id == "reward_hacking"
    # an eval gains less than the training reward it follows: its share is not asked
    ev = _format_over_flat_truth(seed, "val_acc")
    ctx = Ctx(ev, dict(shapes_of(ev)))
    za = since(ctx, "val_acc", divergence_onset(ctx, "val_acc"))[2]
    if za > 0.5:
        assert _by_truth(ctx, "val_acc") is None


def _kl_surged(settle: float, seed: int) -> Run:
    """A KL at 0.004 for 20 steps, multiplied x125 over the next 20, noisy (x e^N(0,1) a step), then
    settled at `settle` from step 61."""
    r = np.random.default_rng(seed)
    s = np.arange(1, 111)
    ramp = 0.004 * (0.5 / 0.004) ** (np.clip(s - 20, 0, 20) / 20)
    kl = np.where(s <= 60, ramp, settle) * np.exp(r.normal(0, 1.0, s.size))
    return Run.from_arrays("kl", s, {"kl": kl, "reward": np.linspace(0.0, 4.0, s.size) + r.normal(0, 3.0, s.size)})


@pytest.mark.parametrize("seed", range(8))
def test_a_kl_that_surged_and_stayed_at_sixty_times_its_start_has_not_come_back(seed):
    # a noisy KL dates its onset late some draws (a fifth of its log rise to a noisy peak), and the
    # level just before that onset is already high: "came back" is asked against the level before the rise
    f = {x.id: x for x in diagnose(_kl_surged(0.25, seed)).findings}.get("kl_blowup")
    assert f is not None and f.severity != "info"
    back = {x.id for x in diagnose(_kl_surged(0.006, seed)).findings if x.severity != "info"}
    assert "kl_blowup" not in back
