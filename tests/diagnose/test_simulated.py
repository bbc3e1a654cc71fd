"""Every simulated scenario, two seeds each: the right top finding and verdict (the benchmark runs
20 seeds and the formats; this pins the behaviour in the test suite), and samples as evidence."""

from __future__ import annotations

import json

import pytest

from rlvitals.diagnose import diagnose
from rlvitals.samples import read_samples
from rlvitals.simulate import SCENARIOS, simulate, simulate_samples


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("seed", [101, 202])
def test_scenario_top_finding_and_verdict(name, seed):
    run = simulate(name, seed=seed)
    truth = run.meta["truth"]
    d = diagnose(run)
    assert d.verdict == truth["verdict"], [(f.id, f.severity) for f in d.findings]
    if truth["finding"] is None:
        assert d.worst_severity() in (None, "info")
    elif truth["severity"] == "info":
        assert truth["finding"] in {f.id for f in d.findings} and d.worst_severity() == "info"
    else:
        assert d.top.id == truth["finding"]
        if truth["onset_step"] is not None:
            assert abs(d.top.onset_step - truth["onset_step"]) <= 0.10 * run.n_steps


def _samples(tmp_path, name, seed):
    p = tmp_path / f"{name}.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in simulate_samples(name, seed=seed)))
    return read_samples(p)


def test_collapse_samples_are_identical_and_quoted(tmp_path):
    d = diagnose(simulate("entropy_collapse", seed=0), samples=_samples(tmp_path, "entropy_collapse", 0))
    assert d.top.id == "entropy_collapse" and d.top.evidence["sample_diversity_end"] < 0.1
    answers = d.top.samples[0].split(": ", 1)[1].split(" | ")
    assert len(set(answers)) == 1  # the quoted group: one answer, repeated


def test_easy_data_samples_differ_but_are_right(tmp_path):
    d = diagnose(simulate("data_too_easy", seed=0), samples=_samples(tmp_path, "data_too_easy", 0))
    assert d.top.id == "data_too_easy" and d.top.evidence["sample_diversity_end"] > 0.2
    assert any(r.metric == "samples" for r in d.top.ruled_out) and d.top.samples


@pytest.mark.parametrize("name", ["healthy", "healthy_long", "healthy_grad_spike", "healthy_reasoning"])
def test_growing_healthy_run_stays_silent_at_every_prefix(name):
    """What `watch` sees: the same healthy run cut at step 10, 20, ... 120 never warns."""
    for seed in (0, 1):
        run = simulate(name, seed=seed, steps=120)
        for step in range(10, 121, 10):
            d = diagnose(run.upto(step))
            assert d.worst_severity() in (None, "info"), (seed, step, [(f.id, f.severity) for f in d.findings])
