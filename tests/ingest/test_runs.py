"""Concatenated runs: a restart of the step counter at step <= 1 begins a new run."""

from __future__ import annotations

import json

import pytest
from realdata import REAL_LOGS

import rlvitals
from rlvitals.cli import main
from rlvitals.errors import InputError
from rlvitals.ingest import read, read_text


def _log(tmp_path, steps_per_run):
    rows = []
    for r, n in enumerate(steps_per_run):
        rows += [json.dumps({"step": s, "reward": r + s / 100, "entropy": 1.0}) for s in range(1, n + 1)]
    p = tmp_path / "runs.jsonl"
    p.write_text("\n".join(rows) + "\n")
    return p


def test_last_run_by_default_and_pick_by_index(tmp_path):
    p = _log(tmp_path, (4, 6, 3))
    last = read(p)
    assert last.meta == {"run_index": 3, "run_count": 3} | {
        k: v for k, v in last.meta.items() if k not in ("run_index", "run_count")
    }
    assert last.series["reward"].steps.tolist() == [1, 2, 3] and last.series["reward"].values[0] == 2.01
    assert read(p, run=1).series["reward"].values.tolist() == [0.01, 0.02, 0.03, 0.04]
    assert read(p, run=-2).meta["run_index"] == 2 and read(p, run=2).n_steps == 6
    runs = rlvitals.read_all(p)
    assert [r.n_steps for r in runs] == [4, 6, 3] and [r.meta["run_index"] for r in runs] == [1, 2, 3]
    note = next(n for n in last.notes if "3 runs" in n)
    assert "run 1: steps 1–4, 4 rows" in note and "run 2: steps 1–6, 6 rows" in note


@pytest.mark.parametrize("k", [0, 4, -4])
def test_run_out_of_range_is_one_line_error(tmp_path, k):
    with pytest.raises(InputError, match=r"holds 3 run\(s\) \(choose 1\.\.3"):
        read(_log(tmp_path, (4, 6, 3)), run=k)


def test_single_run_file(tmp_path):
    p = _log(tmp_path, (5,))
    run = read(p)
    assert "run_count" not in run.meta and run.file_runs == []
    assert read(p, run=1) is not None and read(p, run=-1).n_steps == 5
    assert rlvitals.read_all(p)[0].n_steps == 5
    with pytest.raises(InputError):
        read(p, run=2)


def test_step_zero_restart_and_resume_inside_a_run():
    # run 1: 0..5; run 2: 0..4, resumed from 3 (later wins on 3..4)
    steps = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 3, 4, 5, 6]
    text = "".join(f'{{"step": {s}, "loss": {i}}}\n' for i, s in enumerate(steps))
    run = read_text(text)
    assert run.meta["run_count"] == 2
    assert [(g.first_step, g.last_step) for g in run.segments] == [(0, 4), (3, 6)]
    assert run.series["loss"].values.tolist() == [6.0, 7.0, 8.0, 11.0, 12.0, 13.0, 14.0]
    assert read_text(text, run=1).series["loss"].values.tolist() == [0, 1, 2, 3, 4, 5]


def test_a_step_counter_that_does_not_count_is_not_split():
    text = "".join(f'{{"step": {s % 2}, "loss": {i}}}\n' for i, s in enumerate(range(1, 400)))
    run = read_text(text)
    assert "run_count" not in run.meta and any("not split" in n for n in run.notes)


def test_cli_run_option_and_vitals_lists_every_run(capsys):
    path = str(REAL_LOGS["rookworld_blowup"])
    assert main(["vitals", path]) == 0
    out = capsys.readouterr().out
    assert "runs in the file (5)" in out and "run 3: steps 1 → 642 (642 rows)" in out
    assert "run 5: steps 1 → 165 (165 rows)  ← shown" in out
    assert main(["vitals", path, "--run", "3", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["steps"]["count"] == 642 and [r["shown"] for r in d["runs"]] == [False, False, True, False, False]
    assert main(["diagnose", path, "--run", "9"]) == 2
    assert "run 9 does not exist" in capsys.readouterr().err
