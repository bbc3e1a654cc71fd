"""Every stage reads its own runs: no set, pair side or question shares a run with another stage, the
questions quote their own runs' numbers, and the tool's answer equals the simulator's truth everywhere."""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.lab.content import HEALTHY, quiz_numbers, set_failure

LEVELS = ["real_content", "real_content_seed"]
COMPARED = ("reward", "acc", "entropy", "kl", "adv_std", "len")


@pytest.mark.parametrize("which", LEVELS)
def test_no_two_stages_share_a_run(request, which):
    content = request.getfixturevalue(which)
    runs = content.runs()
    assert len(runs) == 6 + 8 + 5, sorted(runs)
    keys = list(runs)
    shared = []
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            ra, rb = runs[a], runs[b]
            same = [m for m in COMPARED if np.array_equal(ra.series[m].values, rb.series[m].values, equal_nan=True)]
            if same or (ra.meta["truth"]["scenario"], ra.meta["seed"]) == (
                rb.meta["truth"]["scenario"],
                rb.meta["seed"],
            ):
                shared.append((a, b, same))
    assert shared == [], f"stages sharing a run: {shared}"


@pytest.mark.parametrize("which", LEVELS)
def test_the_questions_quote_their_own_runs(request, which):
    content = request.getfixturevalue(which)
    for q in content.quiz:
        assert q.numbers == quiz_numbers(q.key, q.cases), q.key
    q1, q2, q3 = content.quiz
    ends = {
        c.truth["finding"]: (c.run.series["entropy"].values[-1], c.run.series["ratio_mean"].values[-1])
        for c in q1.cases
    }
    # the lesson's question shape: entropy ~0 with ratio 1.0000, against a normal entropy with a drifted ratio
    assert ends["entropy_collapse"][0] < 0.1 and f"{ends['entropy_collapse'][1]:.4f}" == "1.0000"
    assert ends["sync_failure"][0] > 1.0 and ends["sync_failure"][1] < 0.9
    first = q1.cases[0].truth["finding"]
    assert q1.answer == (2 if first == "entropy_collapse" else 3)
    assert float(q2.numbers["adv"]) < 0.5 and q2.cause in ("data_too_easy", "entropy_collapse")
    assert float(q3.numbers["c1"]) < 0.05 < 0.2 < float(q3.numbers["c2"])
    assert int(q3.numbers["b1"]) < int(q3.numbers["b2"])
    if content.seed is None:  # the default level asks the lesson's own numbers
        assert (q1.numbers["e1"], q1.numbers["r1"], q1.numbers["e2"], q1.numbers["r2"]) == (
            "0.009",
            "1.0000",
            "1.774",
            "0.5407",
        )
        assert q2.numbers["adv"] == "0.24"
        assert (q3.numbers["c1"], q3.numbers["g1"], q3.numbers["b1"]) == ("0.011", "0.8", "8")
        assert (q3.numbers["c2"], q3.numbers["g2"], q3.numbers["b2"]) == ("0.419", "6", "64")
    # ... and no other stage carries those numbers: pair A is not question 1 again
    a1, a2 = content.pairs["A"].left, content.pairs["A"].right
    quoted = {q1.numbers["e1"], q1.numbers["e2"]}
    assert f"{a1.case.run.series['entropy'].values[-1]:.3f}" not in quoted
    assert f"{a2.case.run.series['entropy'].values[-1]:.3f}" not in quoted


@pytest.mark.parametrize("which", LEVELS)
def test_the_answer_key_equals_the_truth_at_every_stage(request, which):
    """One report naming every stage where the tool's diagnosis and the simulator's truth disagree."""
    content = request.getfixturevalue(which)
    wrong = []
    for s in content.sets:
        truth = s.case.truth
        if s.verdict != truth["verdict"] or (truth["verdict"] != "learning" and s.failure != truth["finding"]):
            wrong.append(
                f"set {s.key} ({truth['scenario']}, seed {s.case.run.meta['seed']}): tool says "
                f"{s.verdict} {s.failure}; findings {[f.id for f in s.diag.findings]}"
            )
    for p in content.pairs.values():
        for side in (p.left, p.right):
            want = side.case.truth["finding"] or HEALTHY
            if side.answer != want:
                wrong.append(
                    f"pair side {side.label} ({side.case.truth['scenario']}, seed "
                    f"{side.case.run.meta['seed']}): tool says {side.answer}"
                )
    for q in content.quiz:
        for i, c in enumerate(q.cases):
            d = diagnose(c.run)
            truth = c.truth
            if d.verdict != truth["verdict"] or (truth["verdict"] != "learning" and set_failure(d) != truth["finding"]):
                wrong.append(
                    f"question run {q.key}{'ab'[i]} ({truth['scenario']}, seed {c.run.meta['seed']}): tool "
                    f"says {d.verdict} {set_failure(d)}"
                )
    assert wrong == [], "\n".join(wrong)


def test_a_seed_may_list_question_ones_logs_the_other_way_round():
    """Seed 7 deals Q1's sync-failure log first: the answer becomes 3 and the explanation still names
    each log by its cause, with that log's own numbers."""
    from rlvitals.lab.content import build_quiz
    from rlvitals.lab.explain import explain_quiz, quiz_text
    from rlvitals.simulate import lesson_quiz

    q1 = build_quiz(7, lesson_quiz(7))[0]
    first, second = (c.truth["finding"] for c in q1.cases)
    assert (first, second, q1.answer) == ("sync_failure", "entropy_collapse", 3)
    sync_e = f"{q1.cases[0].run.series['entropy'].values[-1]:.3f}"
    coll_e = f"{q1.cases[1].run.series['entropy'].values[-1]:.3f}"
    assert q1.numbers["e1"] == q1.numbers["se"] == sync_e and q1.numbers["e2"] == q1.numbers["ce"] == coll_e
    assert f"One has entropy={sync_e}" in quiz_text(q1, "en")[1]
    assert explain_quiz(q1, "en")[0].startswith(f"Why: entropy {coll_e} ≈ 0 means the policy went deterministic")
