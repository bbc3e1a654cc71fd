"""The experiment stage: a knob of the real RL loop turned, a prediction, the run drawn step by step,
every prediction checked against the run's own shapes (never a hand-written answer)."""

from __future__ import annotations

import os

import pytest

from rlvitals.lab.experiment import EXPECTED, EXPERIMENTS, claim_holds, run_setting
from rlvitals.shapes import shapes_of
from rlvitals.simulate.lesson import stage_seed

from .conftest import play


def test_five_experiments_one_per_pair_and_one_for_reward_hacking():
    assert sorted(e.pair for e in EXPERIMENTS.values()) == ["A", "B", "C", "D", "hack"]
    knobs = {k for e in EXPERIMENTS.values() for _, kn in e.settings for k in kn}
    assert {"onset", "len_bonus"} <= knobs
    for e in EXPERIMENTS.values():
        assert len(e.claims) == 3 and len(e.settings) == 2
        assert {(e.key, 1), (e.key, 2)} <= set(EXPECTED)


def test_an_experiment_is_played_predicted_and_compared(fake_content, tmp_path):
    text = play(fake_content, ["exp", "predict 1", "exp E4", "turn 9", "turn 2", "predict 1", "goals"], tmp_path)
    assert "E4  pair D in a real loop" in text
    assert "Turn the knob first" in text or "No experiment is open" in text
    assert "Say a number from 1 to 2." in text
    assert "Knob turned: batch 64 → 4 prompts a step." in text
    rows = [ln for ln in text.splitlines() if ln.strip().startswith("step ")]
    assert len(rows) == 10 and rows[-1].split()[1] == "200"  # watched a tenth at a time
    exp = EXPERIMENTS["E4"]
    run = run_setting(exp, 2, stage_seed(None, "exp:E4") % 100000)
    sh = shapes_of(run)
    for i, c in enumerate(exp.claims, 1):  # each mark is the run's own verdict on the claim
        mark = "✓" if claim_holds(c, sh) else "✗"
        assert any(ln.strip().startswith(f"{mark} {i})") for ln in text.splitlines()), (c, mark)
    assert "← your prediction" in text
    assert ("Your prediction held." in text) == claim_holds(exp.claims[0], sh)
    assert "Turn a knob and predict: experiments run 1/5" in text


def _levels() -> list[int | None]:
    return [None] if os.environ.get("RLVITALS_STAGE_SEEDS") is None else [None, *range(4)]


def _check(key: str) -> None:
    """The claim each setting is built for holds on the run, and the pair's other claim does not."""
    exp = EXPERIMENTS[key]
    for level in _levels():
        seed = stage_seed(level, f"exp:{key}") % 100000
        for setting in (1, 2):
            sh = shapes_of(run_setting(exp, setting, seed))
            held = [claim_holds(c, sh) for c in exp.claims]
            want = EXPECTED[(key, setting)]
            assert held[want - 1], (key, setting, level, held)
            assert not held[2 - want], (key, setting, level, held)  # the other cause's claim


@pytest.mark.parametrize("key", ["E1", "E5"])
def test_each_setting_shows_what_it_is_built_to_show(key):
    _check(key)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("RLVITALS_STAGE_SEEDS") is None, reason="about a minute (RLVITALS_STAGE_SEEDS)")
@pytest.mark.parametrize("key", ["E2", "E3", "E4"])
def test_every_experiment_shows_what_it_is_built_to_show(key):
    _check(key)
