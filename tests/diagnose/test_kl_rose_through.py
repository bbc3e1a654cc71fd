"""A KL that bought a rising reward warns, but the verdict is the reward's, not "dead".

With no truth logged the reward is the goal, and a reward can be bought with KL (the lesson:
"reward 暴涨 = 可能在刷分", "kl 陡增 = 跑飞").  A run whose reward climbed a material amount and kept
climbing through a KL blow-up did not die: the finding keeps its severity and says the reward rose
through it, the verdict is "learning" glossed "only a truth metric can say the gain is real", and
the accuracy is named as the metric that would decide.  A KL still multiplying at the end is a
run-away in progress: through a reward that held it reads unstable (the goal has not paid for it
yet), never learning and never dead; a reward that gave its gain back after the blow-up is still a
dead run's; with an accuracy logged the accuracy judges.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.render.terminal import render_text
from rlvitals.run import Run

N = 120
S = np.arange(1, N + 1)


def _run(seed: int, reward: np.ndarray, acc: np.ndarray | None = None, *, climbing_kl: bool = False) -> Run:
    r = np.random.default_rng(seed)
    kl = np.where(S < 30, 0.002, 0.6) * np.exp(r.normal(0, 0.1, N))
    if climbing_kl:
        kl = kl * np.where(S < 90, 1.0, np.exp((S - 90) / 6.0))  # multiplying again over the last quarter
    cols = dict(reward=reward + r.normal(0, 0.15, N), kl=kl)
    if acc is not None:
        cols["acc"] = np.clip(acc + r.normal(0, 0.02, N), 0, 1)
    return Run.from_arrays("bought", S, cols)


def _climbing() -> np.ndarray:
    return -2.0 + 7.0 * (1 - np.exp(-S / 40.0))  # a sum of reward functions, -2 -> ~4.6


def _given_back() -> np.ndarray:
    return np.where(S < 60, -2.0 + 6.0 * S / 60.0, 4.0 - 6.0 * (S - 60) / 60.0)  # up to 4, back to -2


@pytest.mark.parametrize("seed", range(3))
def test_a_reward_climbing_through_the_blow_up_keeps_the_warning_and_the_goal_s_verdict(seed):
    d = diagnose(_run(seed, _climbing()))
    top = d.findings[0]
    assert top.id == "kl_blowup" and top.severity != "info", [(f.id, f.severity) for f in d.findings]
    assert top.evidence["reading"] == "bought"
    assert top.evidence["goal_end"] > top.evidence["goal_start"]
    assert "acc" in top.missing
    assert d.verdict == "learning"
    assert d.gloss_key() == "ui.verdict_gloss.learning_bought"


@pytest.mark.parametrize("seed", range(3))
def test_a_kl_still_multiplying_through_a_goal_that_held_reads_unstable(seed):
    d = diagnose(_run(seed, _climbing(), climbing_kl=True))
    top = d.findings[0]
    assert top.id == "kl_blowup" and top.severity == "critical", [(f.id, f.severity) for f in d.findings]
    assert d.verdict == "unstable" and top.evidence["goal_held"] is True
    assert top.evidence["goal_end"] > top.evidence["goal_start"] + top.evidence["goal_material_move"]
    assert d.gloss_key() == "ui.verdict_gloss.unstable_held"
    assert not any(f.evidence.get("goal_sets_verdict") for f in d.findings)
    # the report says why the run is not dead, in both languages
    assert "lost nothing since" in " ".join(render_text(d, "en", width=400).split())
    assert "之后没有掉" in render_text(d, "zh", width=400)


@pytest.mark.parametrize("seed", range(3))
def test_a_kl_still_multiplying_after_the_reward_gave_its_gain_back_is_dead(seed):
    d = diagnose(_run(seed, _given_back(), climbing_kl=True))
    assert d.verdict == "dead", [(f.id, f.severity, f.evidence) for f in d.findings]
    assert not any(f.evidence.get("goal_held") for f in d.findings)


@pytest.mark.parametrize("seed", range(3))
def test_a_reward_that_gave_its_gain_back_is_not_learning(seed):
    d = diagnose(_run(seed, _given_back()))
    assert d.verdict != "learning", [(f.id, f.severity) for f in d.findings]
    assert not any(f.evidence.get("goal_sets_verdict") for f in d.findings)


@pytest.mark.parametrize("seed", range(3))
def test_with_a_flat_accuracy_the_accuracy_judges(seed):
    d = diagnose(_run(seed, _climbing(), acc=np.full(N, 0.3)))
    assert d.verdict != "learning", [(f.id, f.severity) for f in d.findings]
    assert not any(f.evidence.get("goal_sets_verdict") for f in d.findings)
