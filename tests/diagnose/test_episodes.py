"""A blow-up that recovered: the goal fell with a vital breaking, and came back.

The goal is back, but the blow-up hurt it and the next one may not come back: when the rules, read
on the run up to the dip's end, name what broke, that finding stays as a warning reading
"recovered" and the run is "unstable" (the lesson's blow-ups that hurt the goal).  When they name
nothing, the run's notes still say it.  Each run starts from the lesson's healthy table
(diag_curves.healthy) and puts one dip in the reward and the accuracy.
"""

from __future__ import annotations

import numpy as np
from diag_curves import S, healthy, jitter

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.context import Ctx
from rlvitals.diagnose.episodes import notes, recovered_dip
from rlvitals.i18n import Msg
from rlvitals.render.words import finding_summary
from rlvitals.run import CANONICAL, Run
from rlvitals.shapes import shapes_of


def _ctx(run: Run) -> Ctx:
    return Ctx(run, dict(shapes_of(Run(run.name, run.format, {k: s for k, s in run.series.items() if k in CANONICAL}))))


def _dipped(*, entropy_up: bool = True, back: bool = True, at: int = 100) -> Run:
    """The healthy run with reward and acc knocked down by 0.5 / 0.3 over steps at..at+19 (and, unless
    `back`, kept down to the end), the entropy x4 over the same steps when `entropy_up`."""
    steps = np.asarray(S)
    inside = (steps >= at) & ((steps < at + 20) if back else True)
    base = healthy(2)
    reward = base.series["reward"].values - 0.5 * inside
    acc = base.series["acc"].values - 0.3 * inside
    ent = base.series["entropy"].values * np.where(inside & entropy_up, 4.0, 1.0)
    return healthy(2, reward=reward, acc=np.clip(acc, 0, 1), entropy=ent)


def _recovered_notes(d) -> list[Msg]:
    return [m for m in d.run["notes"] if isinstance(m, Msg) and m.key == "note.recovered_dip"]


def test_a_dip_with_the_entropy_running_up_that_came_back_makes_the_run_unstable():
    run = _dipped()
    dip = recovered_dip(_ctx(run))
    assert dip is not None and dip["goal"] == "acc"
    assert 95 <= dip["from_step"] <= 105 and dip["to_step"] <= 125
    assert dip["before"] - dip["low"] > 0.2 and dip["after"] > dip["before"] - 0.05
    assert any(m.startswith("entropy x") for m in dip["moved"])
    d = diagnose(run)
    top = d.findings[0]
    assert top.severity == "warning" and top.evidence["reading"] == "recovered", d.findings
    assert top.evidence["episode_steps"] == f"{dip['from_step']}-{dip['to_step']}"
    assert top.evidence["goal_low"] < top.evidence["goal_before"] - 0.2
    assert "entropy x" in top.evidence["episode_moved"]
    assert d.verdict == "unstable" and d.gloss_key() == "ui.verdict_gloss.unstable_recovered"
    assert not _recovered_notes(d)  # the finding tells the episode: no note says it twice


def test_the_recovered_finding_is_said_in_both_languages():
    top = diagnose(_dipped()).findings[0]
    en, zh = finding_summary(top, "en"), finding_summary(top, "zh")
    step = top.evidence["episode_steps"]
    assert "came back" in en and step in en and "unstable" in en
    assert "恢复" in zh and step in zh and "不稳定" in zh


def test_a_blow_up_that_came_back_and_then_one_that_did_not_is_a_dead_run():
    # the second fall stays down to the end: that one owns the verdict, the first stays a warning
    steps = np.asarray(S)
    first = (steps >= 60) & (steps < 80)
    second = steps >= 170
    base = healthy(2)
    down = first | second
    d = diagnose(
        healthy(
            2,
            reward=base.series["reward"].values - 0.5 * down,
            acc=np.clip(base.series["acc"].values - 0.3 * down, 0, 1),
            entropy=base.series["entropy"].values * np.where(down, 4.0, 1.0),
        )
    )
    assert d.verdict == "dead", d.findings
    assert d.findings[0].evidence.get("reading") != "recovered"


def test_a_dip_no_vital_moved_with_is_left_unsaid():
    # a noisy score dips on its own: without a vital breaking over the same steps it is not a blow-up
    assert recovered_dip(_ctx(_dipped(entropy_up=False))) is None


def test_a_fall_that_did_not_come_back_is_the_verdicts_not_a_note():
    run = _dipped(back=False, at=150)
    assert recovered_dip(_ctx(run)) is None
    assert not _recovered_notes(diagnose(run))


def test_the_lessons_healthy_run_and_its_noise_have_no_episode():
    for seed in range(4):
        assert recovered_dip(_ctx(healthy(seed))) is None
    noisy = healthy(5, reward=healthy(5).series["reward"].values + jitter(0.08, 9))
    assert recovered_dip(_ctx(noisy)) is None


def test_the_note_is_said_in_both_languages():
    (note,) = notes(_ctx(_dipped()))
    en, zh = note.in_lang("en"), note.in_lang("zh")
    assert "came back" in en and str(note.fields["start"]) in en
    assert "恢复" in zh and str(note.fields["start"]) in zh


def test_one_outlying_point_with_a_vital_spike_is_no_dip():
    # a reward summed from several functions (no accuracy logged) logs a wild value now and then: one
    # point at -40 drags its window's mean down past the bar, the window's median holds, and a KL
    # spike on the same step is no blow-up
    base = healthy(4)
    reward = 10 * base.series["reward"].values
    reward[99] = -40.0
    kl = base.series["kl"].values * np.where(np.asarray(S) == 100, 20.0, 1.0)
    assert recovered_dip(_ctx(healthy(4, reward=reward, acc=None, kl=kl))) is None
    # the same steps knocked down for a stretch are a dip
    down = (np.asarray(S) >= 100) & (np.asarray(S) < 120)
    reward = 10 * base.series["reward"].values - 4.0 * down
    kl = base.series["kl"].values * np.where(down, 20.0, 1.0)
    assert recovered_dip(_ctx(healthy(4, reward=reward, acc=None, kl=kl))) is not None


def test_an_episode_is_named_only_by_a_finding_of_a_vital_that_broke():
    # the goal's own state (not learning, stalled, too hard) names no cause of a blow-up that came back
    from rlvitals.diagnose.episodes import BLOW_UPS
    from rlvitals.diagnose.model import FINDING_IDS

    assert set(FINDING_IDS) >= BLOW_UPS and all(FINDING_IDS[i] == "dead" for i in BLOW_UPS)
    assert not BLOW_UPS & {"not_learning", "stalled", "data_too_hard"}
