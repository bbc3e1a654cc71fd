"""Issue 9, "What goes wrong today": each case as a small synthetic curve test.

Each of these failed on the diagnosis before the symptoms/predicates rework: a dead run read as
"learning", a strong single signal ignored, reward hacking missed, scale and logging cadence
changing the answer, a one-step spike read as a trend, findings in the wrong order.
"""

from __future__ import annotations

import diag_curves as dc
import numpy as np
import pytest
from diag_curves import N, S, jitter, ramp

from rlvitals.diagnose import diagnose
from rlvitals.run import Run, Series

WARN = ("warning", "critical")


def ids(d, warn_only=True):
    return [f.id for f in d.findings if not warn_only or f.severity in WARN]


def _rng(seed):
    return np.random.default_rng(seed)


# -- 1. dead runs reported as "learning -- nothing to change" --------------------------------------


def test_acc_flat_near_zero_while_a_format_term_lifts_the_reward_is_dead():
    n = 800
    s = np.arange(1, n + 1)
    r = _rng(1)
    acc = np.clip(0.02 + r.normal(0, 0.01, n), 0, 1)
    reward = 0.10 + 0.03 * s / n + r.normal(0, 0.02, n)  # a little, from the format term
    run = Run.from_arrays(
        "t",
        s,
        {
            "reward": reward,
            "acc": acc,
            "entropy": 1.2 + r.normal(0, 0.02, n),
            "kl": 0.001 + 0.002 * s / n + r.normal(0, 1e-4, n),
        },
    )
    d = diagnose(run)
    assert d.verdict != "learning", [(f.id, f.severity) for f in d.findings]


def test_flat_noisy_reward_tiny_kl_and_answers_at_the_cap_is_dead():
    n = 250
    s = np.arange(1, n + 1)
    r = _rng(2)
    run = Run.from_arrays(
        "t",
        s,
        {
            "reward": 0.30 - 0.05 * s / n + r.normal(0, 0.12, n),
            "kl": np.abs(1e-4 + r.normal(0, 3e-5, n)),
            "len": np.minimum(195 + r.normal(0, 4, n), 200.0),
        },
    )
    d = diagnose(run)
    assert d.verdict == "dead", [(f.id, f.severity) for f in d.findings]
    assert d.top.id in ("truncation_starvation", "stalled", "not_learning")


def test_reward_falling_while_most_answers_are_truncated_is_dead():
    r = _rng(3)
    run = Run.from_arrays(
        "t",
        S,
        {
            "reward": np.linspace(0.35, 0.1, N) + r.normal(0, 0.03, N),
            "trunc": np.clip(0.9 + 0.07 * S / N + r.normal(0, 0.01, N), 0, 1),
            "len": 500 + r.normal(0, 5, N),
        },
    )
    d = diagnose(run)
    assert d.verdict == "dead" and d.top.id == "truncation_starvation", ids(d)


def test_a_flat_goal_is_never_nothing_to_change():
    """No rule recognises the cause: the run still gets a finding that says it is not learning."""
    r = _rng(4)
    run = Run.from_arrays("t", S, {"reward": 0.5 + r.normal(0, 0.05, N), "len": 300 + r.normal(0, 10, N)})
    d = diagnose(run)
    assert d.verdict == "dead" and d.top.severity in WARN
    if d.top.id == "not_learning":
        assert d.top.evidence["candidates"] and d.top.missing  # what would decide


# -- 2. a strong single signal fires on its own -----------------------------------------------------


def test_entropy_to_zero_with_nothing_else_moving():
    r = _rng(5)
    ent = np.maximum(2.8 * np.exp(-(S - 1) / 30), 0.05) + np.abs(r.normal(0, 0.005, N))
    run = Run.from_arrays(
        "t", S, {"reward": 0.4 + r.normal(0, 0.02, N), "entropy": ent, "kl": 0.01 + r.normal(0, 0.001, N)}
    )
    d = diagnose(run)
    assert d.top.id == "entropy_collapse" and d.top.severity in WARN


def test_entropy_to_zero_while_the_reward_peaked_and_fell_back_without_acc():
    r = _rng(6)
    ent = np.maximum(1.45 * np.exp(-(S - 1) / 25), 0.005) + np.abs(r.normal(0, 0.001, N))
    reward = 0.3 + 0.4 * np.sin(np.pi * S / N * 0.8) ** 2 * (S < 120) + 0.2 * (S >= 120) + r.normal(0, 0.02, N)
    d = diagnose(Run.from_arrays("t", S, {"reward": reward, "entropy": ent}))
    assert d.top.id == "entropy_collapse" and d.verdict == "dead"


def test_length_explosion_with_half_truncated_while_the_reward_still_rises():
    r = _rng(7)
    ln = 181 * np.exp(np.log(1020 / 181) * (S - 1) / (N - 1)) + r.normal(0, 8, N)
    run = Run.from_arrays(
        "t",
        S,
        {
            "reward": dc._ease(0.3, 0.6) + r.normal(0, 0.02, N),
            "len": ln,
            "trunc": np.clip(ramp(0.01, 0.54, 40) + r.normal(0, 0.01, N), 0, 1),
        },
    )
    d = diagnose(run)
    assert d.top.id == "length_hacking" and d.verdict == "cheating", ids(d)


def test_truncation_rising_to_38_percent_with_length_x4():
    r = _rng(8)
    run = Run.from_arrays(
        "t",
        S,
        {
            "reward": dc._ease(0.3, 0.45) + r.normal(0, 0.02, N),
            "len": np.linspace(200, 800, N) + r.normal(0, 8, N),
            "trunc": np.clip(ramp(0.007, 0.38, 50) + r.normal(0, 0.005, N), 0, 1),
        },
    )
    d = diagnose(run)
    assert d.top is not None and d.top.id in ("length_hacking", "truncation_starvation") and d.verdict != "learning"


# -- 3. reward hacking ------------------------------------------------------------------------------


def test_reward_hacking_with_training_acc_flat():
    d = diagnose(dc.healthy(3, acc=0.35 + jitter(0.01, 3), len=100 + jitter(3.0)))
    assert d.top.id == "reward_hacking" and d.verdict == "cheating"


def test_reward_hacking_seen_only_in_eval_accuracy():
    r = _rng(9)
    run = dc.healthy(2)
    ev_steps = np.arange(10, N + 1, 10)
    ev = np.interp(ev_steps, S, np.minimum(dc._ease(0.2, 0.5), ramp(0.45, 0.2, 90) + 0.0 * S)) + r.normal(
        0, 0.005, ev_steps.size
    )
    run.series["val_acc"] = Series("val_acc", ev_steps, ev, "eval/accuracy")
    d = diagnose(run)
    assert d.top.id == "reward_hacking" and d.verdict == "cheating", ids(d)


def test_reward_rising_only_through_a_format_component():
    r = _rng(10)
    fmt = dc._ease(0.0, 0.5) + r.normal(0, 0.02, N)
    correct = 0.2 + r.normal(0, 0.02, N)
    run = Run.from_arrays("t", S, {"reward": fmt + correct, "entropy": 1.5 + r.normal(0, 0.01, N)})
    run.components = {
        "format_reward": Series("format_reward", S, fmt),
        "correctness": Series("correctness", S, correct),
    }
    run.component_kinds = {"format_reward": "format", "correctness": "correctness"}
    d = diagnose(run)
    assert d.top.id == "reward_hacking" and d.verdict == "cheating", ids(d)
    assert d.top.evidence.get("rising_component") == "format_reward"


# -- 4. scale and cadence ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_shifting_and_scaling_the_reward_changes_nothing(seed):
    base = dc.healthy(seed)
    r = base.series["reward"].values
    low = dc.healthy(seed, reward=2 * (r - 0.6))  # lives in about [-1, 1]
    high = dc.healthy(seed, reward=r * 5 + 2)  # lives in about [4, 6]
    a, b = diagnose(low), diagnose(high)
    assert [f.id for f in a.findings] == [f.id for f in b.findings]
    assert "batch_noise" not in ids(a, warn_only=False)


def test_a_stall_logged_every_tenth_step_is_seen():
    r = _rng(11)
    s = np.arange(10, 260, 10)  # 25 points, TRL's default cadence
    n = s.size
    run = Run.from_arrays(
        "t",
        s,
        {
            "reward": 0.45 + r.normal(0, 0.02, n),
            "acc": 0.25 + r.normal(0, 0.01, n),
            "entropy": 1.8 + r.normal(0, 0.01, n),
            "kl": 0.002 + r.normal(0, 2e-4, n),
        },
    )
    d = diagnose(run)
    assert d.verdict == "dead" and d.top.id in ("stalled", "not_learning"), ids(d)


# -- 5. spikes versus trends ------------------------------------------------------------------------


@pytest.mark.parametrize("height", [5.0, 17.8])
def test_a_one_step_kl_spike_is_an_outlier_step_never_dead(height):
    kl = np.linspace(0.002, 0.045, N) + jitter(0.001)
    kl[120] = height
    d = diagnose(dc.healthy(0, kl=kl))
    assert d.verdict != "dead" and "kl_blowup" not in ids(d, False)
    assert d.top.id == "outlier_step" and d.top.onset_step == 121


def test_many_spikes_that_each_come_back_are_outlier_steps_not_a_blow_up():
    """A spiky KL (a dozen one- and two-step spikes up to x10,000 its level, each gone within two
    steps) whose level holds, beside a goal that keeps rising: outlier steps, never a blow-up --
    and the finding names the largest spike, not the first."""
    kl = 0.4 + jitter(0.05)
    for at, h in ((30, 60.0), (55, 40.0), (80, 9.0), (100, 50.0), (101, 12.0), (130, 30.0), (150, 90.0)):
        kl[at] = h
    for at, h in ((170, 70.0), (171, 25.0), (185, 110.0), (190, 7.0), (196, 4000.0)):
        kl[at] = h
    d = diagnose(dc.healthy(0, kl=kl))
    assert d.verdict == "learning" and "kl_blowup" not in ids(d, False), ids(d, False)
    f = {x.id: x for x in d.findings}["outlier_step"]
    assert f.onset_step == 197 and f.evidence["kl_spike_max"] == pytest.approx(4000.0)
    assert f.evidence["kl_spikes"] >= 10


def test_a_spiky_kl_whose_level_runs_away_is_still_a_blow_up():
    """The same spikes on a KL whose level itself leaves for good at step 120 (x30 and holding):
    the running median keeps that level, so the blow-up is still read."""
    kl = np.where(S < 120, 0.02, 0.6) + jitter(0.002)
    for at in (30, 55, 80, 100, 150, 170, 185):
        kl[at] = 15.0 * (kl[at - 1] + 0.05)
    d = diagnose(dc.healthy(0, kl=kl))
    assert "kl_blowup" in ids(d, False), ids(d, False)


def test_a_kl_that_jumped_once_then_fell_is_no_surge():
    kl = np.linspace(0.02, 0.05, N) + jitter(0.002)
    kl[60:] = 2.0 * np.exp(-(S[60:] - 60) / 60) + 0.4  # a step up, then falling all the way
    d = diagnose(dc.healthy(0, kl=kl))
    for f in d.findings:
        if f.id == "kl_blowup":
            assert f.evidence["kl_surge"] > 1 and f.evidence["kl_end"] >= f.evidence["kl_before"]


# -- 6. order and consistency -----------------------------------------------------------------------


def test_nans_outrank_reward_hacking():
    loss = 0.02 + jitter(0.002)
    loss[150:] = np.nan
    d = diagnose(dc.healthy(0, acc=0.21 + jitter(0.01), len=100 + jitter(3.0), loss=loss))
    assert d.top.id == "numeric_instability"
    assert "reward_hacking" not in ids(d)


CASES = [
    dc.pair_a1_collapse(0),
    dc.pair_a2_sync(0),
    dc.pair_b1_easy(0),
    dc.pair_c2_explode(0),
    dc.pair_d2_lr(0),
    dc.healthy(0, acc=0.21 + jitter(0.01)),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_a_ruled_out_look_alike_never_fired(i):
    d = diagnose(CASES[i])
    fired = {f.id for f in d.findings if f.severity in WARN}
    for f in d.findings:
        assert not ({r.lookalike for r in f.ruled_out} & fired), (f.id, [r.lookalike for r in f.ruled_out])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_new_findings_render_in_both_languages(lang):
    from rlvitals.render import render_diagnosis

    r = _rng(4)
    flat = diagnose(
        Run.from_arrays(
            "t",
            S,
            {
                "reward": 0.5 - 0.1 * S / N + r.normal(0, 0.05, N),
                "entropy": np.linspace(1.8, 1.2, N) + r.normal(0, 0.01, N),
            },
        )
    )
    kl = np.linspace(0.002, 0.045, N) + jitter(0.001)
    kl[120] = 5.0
    spike = diagnose(dc.healthy(0, kl=kl))
    for d, fid in ((flat, "not_learning"), (spike, "outlier_step")):
        assert d.top.id == fid
        for fmt in ("text", "markdown"):
            out = render_diagnosis(d, fmt, lang=lang)
            assert out and "{" not in out, out  # every summary placeholder was filled
        assert fid in render_diagnosis(d, "json", lang=lang)


# -- 7. patterns seen in the worlds the rules were not built on (peers' files, the RL loop) ---------


def test_late_abrupt_entropy_collapse_warns_even_while_the_score_rises():
    r = _rng(12)
    ent = np.where(S < 120, np.linspace(2.5, 1.9, N), 1.9 * np.exp(-(S - 120) / 12)) + np.abs(r.normal(0, 0.005, N))
    d = diagnose(dc.healthy(0, entropy=ent))
    assert d.top.id == "entropy_collapse" and d.top.severity in WARN


def test_eval_accuracy_not_following_the_training_accuracy_is_hacking():
    r = _rng(13)
    run = dc.healthy(4, acc=dc._ease(0.2, 0.85) + r.normal(0, 0.01, N), len=100 + jitter(3.0))
    ev_steps = np.arange(10, N + 1, 12)
    run.series["val_acc"] = Series("val_acc", ev_steps, 0.2 + 0.04 * ev_steps / N + r.normal(0, 0.005, ev_steps.size))
    d = diagnose(run)
    assert d.top.id == "reward_hacking" and d.top.evidence["acc_metric"] == "val_acc"


def test_an_accuracy_at_its_ceiling_cannot_follow_a_rising_reward():
    r = _rng(14)
    acc = np.minimum(dc._ease(0.3, 1.05, 40), 0.96) + r.normal(0, 0.01, N)
    reward = acc + dc._ease(0.0, 0.2) + r.normal(0, 0.01, N)  # a format term still climbing
    d = diagnose(dc.healthy(0, acc=acc, reward=reward))
    assert "reward_hacking" not in ids(d, False)


def test_truncation_climbing_past_30_percent_while_learning_warns():
    r = _rng(15)
    d = diagnose(
        dc.healthy(
            0,
            trunc=np.clip(ramp(0.01, 0.45, 60) + r.normal(0, 0.005, N), 0, 1),
            len=np.linspace(300, 1500, N) + r.normal(0, 10, N),
        )
    )
    assert d.top.id == "truncation_starvation" and d.top.severity == "warning"


def test_clip_fraction_above_20_percent_alone_is_lr_too_high():
    # the lesson's rule on its own: clip_frac held above 20% over the late stretch
    d = diagnose(dc.healthy(0, clip_frac=np.clip(ramp(0.01, 0.23, 60, 120) + jitter(0.005), 0, 1)))
    assert d.top.id == "lr_too_high" and d.verdict == "unstable"


@pytest.mark.parametrize(
    ("scenario", "seed", "step"),
    [
        ("healthy", 1003, 17),  # format term up a little, correctness noisy on 17 points: not "flat"
        ("healthy", 1003, 92),  # an eval every 10 steps: 5 points after the parting cannot show flatness
        ("healthy", 1004, 131),
        ("plateau", 1004, 26),  # clip_frac at 18-25% in the warm-up: its late median is under 20%
    ],
)
def test_prefixes_of_healthy_rl_loop_runs_do_not_warn(scenario, seed, step):
    from simruns import simulate_rl

    d = diagnose(simulate_rl(scenario, seed=seed, steps=300).upto(step))
    assert d.worst_severity() in (None, "info"), [(f.id, f.severity, f.evidence) for f in d.findings]


def test_a_kl_that_ran_away_first_owns_the_entropy_collapse_that_follows():
    kl = np.where(S < 80, 0.01 + 0.0001 * S, 0.02 * np.exp(np.minimum(S - 80, 40) / 10))
    ent = np.where(S < 110, np.linspace(1.8, 1.7, N), 1.7 * np.exp(-(S - 110) / 10)) + np.abs(jitter(0.003))
    # the reward follows the accuracy (a reward climbing on past a capped accuracy would be a hack
    # that began first, and own the run)
    acc = np.minimum(dc._ease(0.2, 0.5), 0.35)
    d = diagnose(dc.healthy(0, kl=kl, entropy=ent, acc=acc + jitter(0.01), reward=0.2 + acc + jitter(0.02)))
    assert d.top.id == "kl_blowup" and "entropy_collapse" not in ids(d)
    # the collapse that followed stays in the report as a note naming the blow-up it follows
    f = {x.id: x for x in d.findings}["entropy_collapse"]
    assert f.severity == "info" and f.action is None and f.evidence["consequence_of"] == "kl_blowup"


def test_an_accuracy_creeping_up_from_zero_by_a_tenth_of_a_point_is_still_all_wrong():
    r = _rng(16)
    d = diagnose(
        dc.healthy(
            0,
            acc=np.abs(0.0005 * S / N + r.normal(0, 0.0003, N)),
            reward=np.abs(0.001 * S / N + r.normal(0, 0.0005, N)),
            adv_std=np.abs(r.normal(0.01, 0.01, N)),
        )
    )
    assert d.top.id == "data_too_hard" and d.verdict == "dead"


def test_a_small_but_monotonic_ratio_drift_warns_as_sync_failure():
    d = diagnose(
        dc.healthy(
            0, ratio_mean=ramp(1.0, 0.993, 120) + jitter(0.0002), reward=0.6 + jitter(0.02), acc=0.4 + jitter(0.01)
        )
    )
    assert d.top.id == "sync_failure" and d.top.severity == "warning"


def test_not_learning_names_what_the_log_lacks():
    """A torchtune GRPO log (no entropy, the truncation only as a count without its batch size):
    the reward and the answers die, the logged vitals cannot say why, and the finding names the
    metrics that would decide between the candidates instead of guessing."""
    n = 300
    s = np.arange(1, n + 1)
    r = _rng(11)
    alive = s < 130
    acc = np.where(alive, 0.2 + 0.25 * s / 130 + np.abs(r.normal(0, 0.01, n)), 0.0)
    run = Run.from_arrays(
        "tt",
        s,
        {
            "reward": acc + 0.25 * alive + r.normal(0, 0.01, n) * alive,
            "acc": acc,
            "len": np.where(alive, 90 + 0.1 * s, 24) + r.normal(0, 1, n),
            "kl": 0.003 + 0.01 * np.sin(s / 100) ** 2 + r.normal(0, 5e-4, n),
            "ratio_mean": 1 + r.normal(0, 1e-6, n),
            "clip_frac": np.abs(r.normal(0.05, 0.01, n)),
            "gnorm": np.abs(r.normal(0.006, 0.001, n)),
        },
    )
    d = diagnose(run)
    assert d.verdict == "dead" and d.top.id == "not_learning", ids(d)
    cands = d.top.evidence["candidates"].split(", ")
    assert "truncation_starvation" in cands and "trunc" in d.top.missing
    assert all(m not in run.series for m in d.top.missing)


def test_an_accuracy_that_peaked_then_fell_to_zero_rules_out_too_hard_by_its_peak():
    # acc climbs to ~0.48, then answers run into the cap and acc falls to 0: the questions were
    # solvable.  The ruled-out line shows the peak, never "acc = 0: is not near 0".
    r = _rng(5)
    acc = np.where(S < 100, np.linspace(0.1, 0.48, N), np.linspace(0.96, -0.02, N))
    run = Run.from_arrays(
        "t",
        S,
        {
            "acc": np.clip(acc + r.normal(0, 0.01, N), 0, 1),
            "reward": np.clip(acc + r.normal(0, 0.02, N), 0, 1),
            "trunc": np.clip(ramp(0.01, 0.9, 100, 140) + r.normal(0, 0.01, N), 0, 1),
            "len": ramp(300, 1024, 90, 140) + r.normal(0, 4, N),
        },
    )
    d = diagnose(run)
    lines = [ro for f in d.findings for ro in f.ruled_out if ro.lookalike == "data_too_hard" and ro.metric == "acc"]
    assert lines, [(f.id, f.ruled_out) for f in d.findings]
    for ro in lines:
        assert ro.reason == "acc_peaked" and ro.value > 0.4, ro


def test_answers_growing_fivefold_without_a_logged_trunc_name_trunc_as_deciding():
    # the score still rises, the answers grow 200 -> 1000 tokens and keep growing, no truncation
    # rate logged: an info note (never a warning) that trunc would decide.
    r = _rng(6)
    run = dc.healthy(6, len=np.linspace(200, 1000, N) + r.normal(0, 8, N))
    d = diagnose(run)
    notes = [f for f in d.findings if f.id == "truncation_starvation"]
    assert notes and notes[0].severity == "info" and "trunc" in notes[0].missing, ids(d, warn_only=False)
    assert notes[0].evidence["len_end"] > 3 * notes[0].evidence["len_start"]
    # the lesson's healthy run (length x2) carries no such note
    assert "truncation_starvation" not in ids(diagnose(dc.healthy(6)), warn_only=False)
