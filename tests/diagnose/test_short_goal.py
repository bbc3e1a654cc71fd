"""A goal logged at too few points is a goal not yet shown, not "no goal logged".

Seven points of a reward (a log every five steps of a 35-step run) are too few for a trend: the
report must not say the log has no goal, nor call the curves healthy -- it says learning is not
shown yet, with the reward's first and last values and the points a judgement needs.
"""

from __future__ import annotations

import numpy as np

from rlvitals.diagnose import diagnose
from rlvitals.render.terminal import render_text
from rlvitals.run import Run, Series


def _run(n: int) -> Run:
    s = np.arange(1, n + 1) * 5
    r = np.random.default_rng(4)
    return Run.from_arrays(
        "short", s, dict(reward=-1.4 + 0.1 * np.arange(n) + r.normal(0, 0.3, n), len=118 + r.normal(0, 2, n))
    )


def test_a_short_reward_is_a_goal_not_shown_yet():
    d = diagnose(_run(7))
    g = d.run["goal"]
    assert g["metric"] == "reward" and g["points"] == 7 and not g["improved"] and not g["enough"]
    assert d.gloss_key() == "ui.verdict_gloss.learning_unproven"
    assert d.unproven_short()
    text = render_text(d, lang="en")
    assert "no goal is logged" not in text and "healthy run" not in text
    assert "24 points are needed" in text


def test_a_log_with_no_score_at_all_still_says_so():
    s = np.arange(1, 8) * 5
    d = diagnose(Run.from_arrays("nogoal", s, dict(len=np.full(7, 100.0) + s)))
    assert d.run["goal"] is None
    assert d.gloss_key() == "ui.verdict_gloss.learning_no_goal"
    # curves that cannot show learning are never "a healthy run": the report asks for a goal
    text = " ".join(render_text(d, lang="en", width=400).split())
    assert "healthy run" not in text and "Log the reward" in text
    assert "健康" not in render_text(d, lang="zh", width=400)


def test_an_eval_goal_is_named_by_the_log_s_own_key_and_not_asked_for():
    s = np.arange(1, 81)
    r = np.random.default_rng(5)
    run = Run.from_arrays("evalgoal", s, dict(entropy=4.2 - 0.004 * s + r.normal(0, 0.05, 80)))
    ev = s[9::10]
    run.series["val_acc"] = Series("val_acc", ev, 38.0 + r.normal(0, 0.8, ev.size), "dev_chrf")
    d = diagnose(run)
    assert d.run["goal"]["metric"] == "val_acc" and d.run["goal"]["key"] == "dev_chrf"
    text = render_text(d, lang="en")
    assert "the eval dev_chrf" in text and "if you can log one" not in text
    assert "评测 dev_chrf" in render_text(d, lang="zh")


def test_a_goal_undecided_by_its_noise_says_how_much_gain_the_noise_could_hide():
    # a per-step pass rate over 8 answers, flat at 0.35, 40 points: enough points, too noisy to decide
    r = np.random.default_rng(6)
    s = np.arange(1, 41)
    d = diagnose(Run.from_arrays("noisy", s, dict(reward=r.binomial(8, 0.35, s.size) / 8.0)))
    g = d.run["goal"]
    assert d.verdict == "learning" and not g["improved"] and g["enough"]
    assert g["material"] == 0.05 and g["hidden_gain"] >= g["material"]
    en = " ".join(render_text(d, lang="en").split())
    assert f"its noise could still hide a gain of up to {g['hidden_gain']:.4g} (a material gain is 0.05)" in en
    assert "噪声里仍可能藏着最多" in "".join(render_text(d, lang="zh").split())
    assert "could still hide" in " ".join(str(d).split()) and "points are needed" not in str(d)


def test_a_goal_that_improved_carries_no_hidden_gain():
    d = diagnose(_run(40))
    assert d.run["goal"]["improved"] and "hidden_gain" not in d.run["goal"]


def test_a_goal_that_rose_only_within_its_noise_is_said_so_not_that_it_did_not_improve():
    # one prompt a step: the score's ends differ by a lot, its noise by more; after a fair number of
    # steps the run is not learning, and the sentence must not contradict the numbers it quotes
    from rlvitals.render.words import finding_summary

    r = np.random.default_rng(2)
    s = np.arange(1, 101)
    reward = np.clip(0.9 + 0.15 * np.sin(s / 7.0) + r.normal(0, 0.6, s.size), 0, 2)
    d = diagnose(Run.from_arrays("noisy", s, {"reward": reward, "kl": 0.001 + 0 * s}))
    nl = next(f for f in d.findings if f.id == "not_learning")
    assert nl.evidence["goal_trend"] in ("flat", "not_rising")
    en, zh = finding_summary(nl, "en"), finding_summary(nl, "zh")
    assert "beyond its noise" in en or "within its noise" in en
    assert "did not improve" not in en and "standard errors" in en and "噪声" in zh
