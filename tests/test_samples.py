"""samples.read_samples: verl rollout_data_dir and plain JSONL, within-group diversity, quotes."""

from __future__ import annotations

import json

import pytest

from rlvitals.errors import InputError, NotAFile
from rlvitals.samples import diversity, read_samples

DIVERSE = [
    "First add 3 and 4 to get 7, then double it: 14.",
    "Seven times two is fourteen, so 14.",
    "We compute (3+4)*2 = 14 directly.",
    "Sum is 7; twice 7 gives the answer 14.",
]
SAME = ["The answer is 14."] * 4


def test_diversity_identical_vs_different():
    same, _ = diversity(SAME)
    diff, distinct = diversity(DIVERSE)
    assert same == 0.0 and diff > 0.6 and 0 < distinct <= 1
    assert diversity(["only one"])[0] != diversity(["only one"])[0]  # NaN for a lone answer


def test_plain_jsonl(tmp_path):
    p = tmp_path / "s.jsonl"
    lines = []
    for step, answers in ((10, DIVERSE), (20, SAME)):
        for a in answers:
            lines.append(json.dumps({"step": step, "prompt_id": "p1", "response": a, "reward": 1.0}))
    lines += ["not json", json.dumps({"step": 30, "response": "x"})]
    p.write_text("\n".join(lines) + "\n")
    s = read_samples(p)
    assert [d.step for d in s.steps] == [10, 20]
    assert s.steps[0].diversity > 0.6 and s.steps[1].diversity == 0.0
    assert s.steps[1].all_right == 1.0
    assert s.skipped == {"not JSON": 1, "missing step/reward": 1}
    assert s.late_diversity() == 0.0 and s.early_diversity() > 0.6
    q = s.quote(late=True)
    assert q and q[0].startswith("step 20 · p1 · reward 1,1,1,1") and "«The answer is 14.»" in q[0]


def test_verl_rollout_dir(tmp_path):
    d = tmp_path / "rollouts"
    d.mkdir()
    for step in (1, 2):
        with (d / f"{step}.jsonl").open("w") as fh:
            for i, a in enumerate(DIVERSE):
                fh.write(json.dumps({"input": "What is (3+4)*2?", "output": a, "score": float(i % 2)}) + "\n")
    s = read_samples(d)
    assert [x.step for x in s.steps] == [1, 2] and s.steps[0].groups == 1
    assert s.steps[0].all_right == 0.0 and s.steps[0].reward == 0.5
    assert s.quote(all_right=True) == ()


def test_errors_are_one_line(tmp_path):
    with pytest.raises(NotAFile):
        read_samples(tmp_path / "nope.jsonl")
    (tmp_path / "bad.jsonl").write_text("{}\n[1]\n")
    with pytest.raises(InputError, match="no rollout sample"):
        read_samples(tmp_path / "bad.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError):
        read_samples(tmp_path / "empty")


def test_samples_from_records_equals_reading_the_same_records_from_a_file(tmp_path):
    import json

    from rlvitals.samples import read_samples, samples_from_records
    from rlvitals.simulate import simulate_samples

    recs = simulate_samples("entropy_collapse", seed=3)
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    a, b = samples_from_records(recs), read_samples(path)
    assert [s.step for s in a.steps] == [s.step for s in b.steps]
    assert [s.diversity for s in a.steps] == [s.diversity for s in b.steps]
    assert a.late_diversity() < a.early_diversity()  # collapse: groups become one answer
