"""The lesson's six curve sets, four pairs and three questions: each stage its own run; the lesson's
numbers where the lesson states them (its questions, and the healthy table at simulate(seed=None))."""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.simulate import LabCase, LabPair, lesson_pairs, lesson_quiz, lesson_sets, simulate


def first_last(case: LabCase, k: str) -> tuple[float, float]:
    x = case.run.series[k].values
    return float(x[0]), float(x[-1])


def diversity(records: list[dict], last_fraction: float = 0.3) -> float:
    """Mean number of distinct responses per group over the last part of the run."""
    steps = sorted({r["step"] for r in records})
    late = set(steps[int(len(steps) * (1 - last_fraction)) :])
    groups: dict[tuple[int, int], set[str]] = {}
    for r in records:
        if r["step"] in late:
            groups.setdefault((r["step"], r["group"]), set()).add(r["response"])
    return float(np.mean([len(g) for g in groups.values()]))


@pytest.fixture(scope="module")
def sets():
    return lesson_sets()


@pytest.fixture(scope="module")
def pairs():
    return lesson_pairs()


def test_six_sets_two_of_each_verdict(sets):
    assert [c.key for c in sets] == ["1", "2", "3", "4", "5", "6"]
    verdicts = [c.truth["verdict"] for c in sets]
    assert sorted(verdicts) == ["cheating", "cheating", "dead", "dead", "learning", "learning"]
    assert len({c.truth["scenario"] for c in sets}) == 6
    for c in sets:
        assert c.truth == c.run.meta["truth"] and c.samples and len(c.samples) % 8 == 0
        assert c.run.n_steps == 200


@pytest.mark.parametrize("profile", ["default", "lab"])
def test_the_lessons_healthy_run_is_its_table(profile):
    """start → end as every report measures it (shapes.ends: the first and the last tenth's mean)
    is the lesson's table, to the digits the table prints -- one number per curve everywhere."""
    from rlvitals.render.charts import fmt_value
    from rlvitals.shapes import shapes_of

    run = simulate("healthy", seed=None, steps=200, profile=profile)
    sh = shapes_of(run)
    table = {
        "reward": ("0.412", "0.847"),
        "acc": ("21.1%", "57.4%"),
        "entropy": ("1.842", "1.498"),
        "kl": ("0.002", "0.045"),
        "adv_std": ("1.031", "0.664"),
        "len": ("78", "152"),
        "clip_frac": ("0.0%", "4.1%"),
    }
    for k, (a, b) in table.items():
        assert (fmt_value(k, sh[k].start), fmt_value(k, sh[k].end)) == (a, b), k
    assert sh["reward"].word == sh["acc"].word == sh["len"].word == sh["kl"].word == "rising"
    assert sh["entropy"].word == sh["adv_std"].word == "falling" and sh["ratio_mean"].word == "flat"
    assert np.max(np.abs(run.series["ratio_mean"].values - 1)) < 1e-4


def test_pairs_show_the_lessons_shapes(pairs):
    assert list(pairs) == ["A", "B", "C", "D"]
    for key, p in pairs.items():
        assert isinstance(p, LabPair) and p.key == key and (p.left.key, p.right.key) == (f"{key}1", f"{key}2")
        assert p.question and p.question.isascii() and " " not in p.question
    a1, a2 = pairs["A"].left, pairs["A"].right
    assert (a1.truth["finding"], a2.truth["finding"]) == ("entropy_collapse", "sync_failure")
    assert first_last(a1, "entropy")[1] < 0.05 and f"{first_last(a1, 'ratio_mean')[1]:.4f}" == "1.0000"
    assert first_last(a2, "entropy")[1] > 1.2 and first_last(a2, "ratio_mean")[1] < 0.85
    # Both flat: reward over the last third moves little in either.
    for c in (a1, a2):
        r = c.run.series["reward"].values
        assert abs(r[-20:].mean() - r[-70:-50].mean()) < 0.1
    # A2's normal adv_std is what rules out the data side.
    assert a2.run.series["adv_std"].values[-20:].mean() > 0.6

    b1, b2 = pairs["B"].left, pairs["B"].right
    assert (b1.truth["scenario"], b2.truth["scenario"]) == ("data_too_easy", "entropy_collapse")
    for c in (b1, b2):
        assert first_last(c, "adv_std")[1] < 0.5
    assert first_last(b1, "entropy")[1] > 1.0 and first_last(b1, "acc")[1] > 0.5
    assert first_last(b2, "entropy")[1] < 0.05
    assert 0.1 < b2.run.series["acc"].values[-30:].mean() < 0.5  # stuck mid
    assert diversity(b1.samples) > 5 and diversity(b2.samples) < 2

    c1, c2 = pairs["C"].left, pairs["C"].right
    for c in (c1, c2):
        ln = c.run.series["len"].values
        assert ln[-10:].mean() > 2 * ln[:10].mean()
    acc1, acc2 = c1.run.series["acc"].values, c2.run.series["acc"].values
    assert acc1[-20:].mean() - acc1[:20].mean() > 0.25
    assert abs(acc2[-20:].mean() - acc2[:20].mean()) < 0.08  # len up, acc not
    assert c2.run.series["trunc"].values[-10:].mean() > c1.run.series["trunc"].values[-10:].mean() + 0.02

    d1, d2 = pairs["D"].left, pairs["D"].right
    assert first_last(d1, "clip_frac")[1] < 0.05 and first_last(d2, "clip_frac")[1] > 0.2
    assert d1.run.meta["effective_batch"] <= 8 and d2.run.meta["effective_batch"] == 64
    for c in (d1, d2):  # both jitter
        assert np.diff(c.run.series["reward"].values[-60:]).std() > 0.04


def test_the_questions_carry_the_lessons_numbers():
    quiz = lesson_quiz()
    assert list(quiz) == ["Q1", "Q2", "Q3"]
    (a1, a2), (b1,), (d1, d2) = quiz["Q1"].cases, quiz["Q2"].cases, quiz["Q3"].cases
    assert (a1.truth["finding"], a2.truth["finding"]) == ("entropy_collapse", "sync_failure")
    assert first_last(a1, "entropy")[1] == pytest.approx(0.009) and f"{first_last(a1, 'ratio_mean')[1]:.4f}" == "1.0000"
    assert first_last(a2, "entropy")[1] == pytest.approx(1.774) and first_last(a2, "ratio_mean")[1] == pytest.approx(
        0.5407
    )
    assert b1.truth["scenario"] == "data_too_easy" and first_last(b1, "adv_std")[1] == pytest.approx(0.24)
    assert first_last(b1, "entropy")[1] == pytest.approx(1.40) and first_last(b1, "acc")[1] == pytest.approx(0.574)
    assert first_last(d1, "clip_frac")[1] == pytest.approx(0.011) and first_last(d1, "gnorm")[1] == pytest.approx(0.8)
    assert first_last(d2, "clip_frac")[1] == pytest.approx(0.419) and first_last(d2, "gnorm")[1] == pytest.approx(6.0)
    assert (d1.run.meta["effective_batch"], d2.run.meta["effective_batch"]) == (8, 64)
    fresh = lesson_quiz(seed=5)
    assert fresh["Q1"].cases[1].run.series["ratio_mean"].values[-1] != pytest.approx(0.5407, abs=1e-6)


def test_seed_none_is_reproducible_and_other_seeds_are_fresh(sets):
    again = lesson_sets()
    for a, b in zip(sets, again):
        np.testing.assert_array_equal(a.run.series["reward"].values, b.run.series["reward"].values)
    fresh = lesson_sets(seed=5)
    assert sorted(c.truth["scenario"] for c in fresh) == sorted(c.truth["scenario"] for c in sets)
    h_new = next(c for c in fresh if c.truth["scenario"] == "healthy")
    assert h_new.run.series["reward"].values[0] != pytest.approx(0.412, abs=1e-6)
    fp = lesson_pairs(seed=5)
    assert fp["A"].right.run.series["ratio_mean"].values[-1] != pytest.approx(0.5407, abs=1e-6)
    assert fp["A"].right.run.series["ratio_mean"].values[-1] < 0.85  # still a drift


def test_simulate_seed_none_equals_the_lesson_case():
    run = simulate("sync_failure", seed=None)
    assert run.name == "sync_failure-lesson" and run.meta["seed"] is None
    assert run.series["ratio_mean"].values[-1] == pytest.approx(0.5407)
