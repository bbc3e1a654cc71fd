"""TensorBoard's downloaded curves: one tag per file, named by the file; a folder of them together."""

from __future__ import annotations

import json

import pytest

from rlvitals import cli
from rlvitals.errors import InputError
from rlvitals.ingest import read


def _csv(path, points):
    path.write_text("Wall time,Step,Value\n" + "".join(f"{1.7e9 + s},{s},{v}\n" for s, v in points))
    return path


def test_a_downloaded_csv_is_the_metric_its_file_names(tmp_path):
    run = read(_csv(tmp_path / "run-grpo_7b-tag-train_reward.csv", [(1, 0.25), (2, 0.5), (3, 0.75)]))
    assert run.format == "tensorboard-export"
    assert run.series["reward"].source == "train_reward"
    assert run.series["reward"].steps.tolist() == [1, 2, 3]
    assert "Wall time" not in run.extras and "Value" not in run.extras


def test_the_tags_slash_written_as_underscore_is_spelled_back_where_the_table_knows_it(tmp_path):
    # verl's `actor/entropy` and `response_length/mean` as TensorBoard names their files
    run = read(_csv(tmp_path / "run-a-tag-actor_entropy.csv", [(1, 1.5), (2, 1.4)]))
    assert run.series["entropy"].source == "actor/entropy"
    run = read(_csv(tmp_path / "run-a-tag-response_length_mean.csv", [(1, 300.0), (2, 320.0)]))
    assert run.series["len"].source == "response_length/mean"


def test_a_folder_of_downloads_joins_each_runs_tags_on_their_steps(tmp_path):
    _csv(tmp_path / "run-lr_low-tag-critic_score_mean.csv", [(1, 0.1), (2, 0.2), (3, 0.3)])
    _csv(tmp_path / "run-lr_low-tag-actor_entropy.csv", [(1, 1.5), (3, 1.3)])
    (tmp_path / "run-lr_high-tag-critic_score_mean.json").write_text(
        json.dumps([[1.7e9, 1, 0.1], [1.7e9 + 9, 2, 0.0], [1.7e9 + 10, 2, 0.05], ["x", 3, 0.0]])
    )
    (tmp_path / "notes.txt").write_text("not a curve\n")
    run = read(tmp_path)
    assert run.format == "tensorboard-export" and run.meta["run_count"] == 2
    # runs in name order, the last by default: lr_low; its two tags on the union of their steps
    assert run.series["reward"].values.tolist() == [0.1, 0.2, 0.3]
    assert run.series["entropy"].steps.tolist() == [1, 3]
    high = read(tmp_path, run=1)
    assert high.series["reward"].values.tolist() == [0.1, 0.05]  # the later write of step 2 wins
    assert high.skipped == {"point that is not three numbers": 1}


def test_a_file_that_is_no_download_is_a_one_line_error(tmp_path, capsys):
    p = tmp_path / "run-a-tag-reward.csv"
    p.write_text("step,reward\n1,0.5\n")
    with pytest.raises(InputError, match="not a TensorBoard download"):
        read(p, "tensorboard-export")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli.main(["diagnose", str(empty), "--input-format", "tensorboard-export"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_numbers_past_float64_are_counted_never_stored_or_a_traceback(tmp_path, capsys):
    # an integer of 400 digits in the JSON (a step or a value), `1e999` in the CSV
    big = "1" + "0" * 400
    (tmp_path / "run-a-tag-reward.json").write_text(f"[[1.7e9, 1, 0.5], [1.7e9, 2, {big}], [1.7e9, {big}, 0.7]]")
    run = read(tmp_path / "run-a-tag-reward.json")
    assert run.series["reward"].steps.tolist() == [1] and run.series["reward"].values.tolist() == [0.5]
    assert run.skipped == {"value out of range": 1, "step out of range": 1}
    kl = _csv(tmp_path / "run-a-tag-kl.csv", [(1, "0.01"), (2, "1e999"), (3, "0.03")])
    run = read(kl)
    assert run.series["kl"].values.tolist() == [0.01, 0.03] and run.skipped == {"value out of range": 1}
    assert cli.main(["vitals", str(tmp_path / "run-a-tag-reward.json")]) == 0
