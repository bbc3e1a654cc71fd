"""Markdown pipe tables of a run's steps (a README or a report), and what is not one."""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.errors import InputError
from rlvitals.ingest import read, sniff_text

RESULTS = """## Final sweep (200-sample eval)

| Config | Baseline | Step 40 | Step 80 | Final |
|--------|----------|---------|----------|-------|
| lr=3e-6 | 31.0% | 33.5% | 36.0% | **38.5%** |
| lr=1e-6 | 31.0% | 32.0% | **34.5%** | 34.0% |
| reference | 30% | 28% | 33% | 35% |
"""


def steps_table(rewards, *, first=0, every=10) -> str:
    rows = "".join(
        f"| {first + every * i} | **{0.2 - 0.001 * i:.3f}** | {r:.3f} | {0.4 - 0.005 * i:.3f} | {40 + i}% | Fib ✓, RPN ✓ |\n"
        for i, r in enumerate(rewards)
    )
    return "| Step | Loss | Reward | Entropy | Val Acc | Problems Solved |\n|---:|---:|---:|---:|---:|---|\n" + rows


def notes(run) -> str:
    return " ".join(map(str, run.notes))


def test_a_report_s_step_table_is_read_and_its_results_table_is_not(tmp_path):
    rewards = np.linspace(0.3, 0.8, 20)
    p = tmp_path / "README.md"
    p.write_text("# Experiment 15\n\n" + RESULTS + "\n## Trajectory\n\n" + steps_table(rewards) + "\nDone.\n")
    run = read(p)
    assert run.format == "markdown" and run.n_steps == 20
    assert run.series["reward"].steps.tolist() == list(range(0, 200, 10))
    assert np.allclose(run.series["reward"].values, rewards.round(3))
    assert np.allclose(run.series["loss"].values[:2], [0.2, 0.199])  # **bold** cells read as numbers
    assert run.series["val_acc"].values[[0, -1]].tolist() == pytest.approx([0.40, 0.59])  # 40% -> 0.40
    assert run.dropped == {"cells of words, not numbers": 20}  # the "Problems Solved" column, counted
    text = notes(run)
    assert "line 13" in text and "45% → 0.45" in text


def test_two_step_tables_are_two_runs_of_the_file(tmp_path):
    p = tmp_path / "LOGS.md"
    p.write_text(
        "Run A\n\n"
        + steps_table([0.9] * 12, first=1, every=1)
        + "\nRun B\n\n"
        + steps_table(np.linspace(0.1, 0.7, 15), first=1, every=1)
    )
    last, first = read(p), read(p, run=1)
    assert (first.n_steps, last.n_steps) == (12, 15)
    assert last.meta["run_count"] == 2 and "choose another with --run K" in notes(last)


def test_a_results_table_alone_is_no_log(tmp_path):
    """Steps as columns and configs as rows (a sweep's summary): no run's curves to read -- and no
    framework's console either (`| Step 40 | Step 80 |` is not prime-rl's `Step 12 | Loss: ...`)."""
    assert sniff_text(RESULTS) is None
    p = tmp_path / "sweep.md"
    p.write_text(RESULTS)
    with pytest.raises(InputError):
        read(p)


def test_a_short_or_nameless_table_is_not_claimed():
    assert sniff_text("| a | b |\n|---|---|\n| 1 | 2 |\n| 2 | 3 |\n| 3 | 4 |\n") is None  # no known column
    assert sniff_text(steps_table([0.1, 0.2])) is None  # two rows
    assert sniff_text(steps_table([0.1, 0.2, 0.3])) == "markdown"
