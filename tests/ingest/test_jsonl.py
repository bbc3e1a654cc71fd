"""Flat JSON Lines (prime-rl, torchtune, rookworld-style): steps, nesting, bad lines, round trips."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from rlvitals.ingest import read, read_text, write_run
from rlvitals.run import Run


def test_flat_rows_with_step_and_restart():
    """A restart at step <= 1 begins a new run: the last run is read, the others are listed."""
    text = "".join(
        f'{{"step": {s}, "loss": {s * 0.1}, "mean_reward": 0.5, "kl_div": -0.01}}\n' for s in (1, 2, 3, 1, 2)
    )
    run = read_text(text)
    assert run.format == "jsonl"
    assert run.series["reward"].source == "mean_reward" and run.series["kl"].source == "kl_div"
    assert run.meta["run_index"] == 2 and run.meta["run_count"] == 2
    assert len(run.segments) == 1 and run.segments[0].first_step == 1 and run.segments[0].rows == 2
    assert run.series["loss"].steps.tolist() == [1, 2]
    first = run.file_runs[0]
    assert first.series["loss"].steps.tolist() == [1, 2, 3] and first.meta["run_index"] == 1
    assert any("2 runs" in n and "run 1: steps 1–3, 3 rows" in n for n in run.notes)


def test_resume_to_a_later_step_stays_one_run_later_wins():
    text = "".join(
        f'{{"step": {s}, "loss": {v}}}\n'
        for s, v in ((1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0), (3, 30.0), (4, 40.0), (5, 50.0))
    )
    run = read_text(text)
    assert "run_count" not in run.meta and run.file_runs == []
    assert [(s.first_step, s.last_step, s.rows) for s in run.segments] == [(1, 4, 4), (3, 5, 3)]
    assert run.series["loss"].values.tolist() == [1.0, 2.0, 30.0, 40.0, 50.0]  # the resumed segment wins


def test_nested_objects_strings_and_missing_step():
    text = (
        '{"reward": {"mean": 0.2}, "entropy": 1.1, "tag": "run-a", "flags": [1, 2], "ok": true}\n'
        '{"reward": {"mean": 0.3}, "entropy": 1.0, "tag": "run-a", "flags": [1, 2], "ok": false}\n'
    )
    run = read_text(text)
    assert run.series["reward"].source == "reward/mean"
    assert run.series["reward"].steps.tolist() == [0, 1]
    assert run.meta["step_inferred"] is True and any("row number" in n for n in run.notes)
    assert run.dropped == {"non-numeric values": 6} and run.skipped == {}


def test_numbers_written_as_strings_are_read_and_words_are_not():
    # a table copied into JSON keeps its cells as text: "7.8%" is 0.078, "0.0123" is 0.0123
    rows = [
        {"step": s, "Mean Reward": f"{0.1 * s:.4f}", "eval_pass@1": f"{5 + s}.5%", "model": "qwen2.5-3b", "ok": "true"}
        for s in (10, 20, 30)
    ]
    run = read_text("".join(json.dumps(r) + "\n" for r in rows))
    assert run.series["reward"].values.tolist() == [1.0, 2.0, 3.0]
    assert np.allclose(run.series["val_acc"].values, [0.155, 0.255, 0.355])
    assert "model" not in run.series and "ok" not in run.series
    assert run.dropped == {"non-numeric values": 6}


def test_malformed_line_counted_and_truncated_last_line(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_text('{"step": 1, "loss": 0.5}\n{"step": 2, "loss": \n{"step": 3, "loss": 0.25}\n{"step": 4, "lo')
    run = read(path)
    assert run.series["loss"].steps.tolist() == [1, 3]
    assert run.skipped == {"malformed JSON line": 1, "truncated last line": 1}


def test_nan_and_infinity_tokens_survive():
    run = read_text('{"step": 1, "entropy": NaN, "grad_norm": Infinity}\n{"step": 2, "entropy": 0.5, "grad_norm": 1}\n')
    assert math.isnan(run.series["entropy"].values[0]) and run.series["gnorm"].values[0] == math.inf


def test_round_trip_exact():
    rng = np.random.default_rng(2)
    run = Run.from_arrays(
        "j",
        np.arange(0, 40, 2),
        {
            "reward": rng.normal(size=20),
            "acc": rng.uniform(size=20),
            "entropy": rng.uniform(size=20),
            "len": rng.uniform(1, 9, 20),
        },
    )
    run.series["reward"].values[4] = math.nan
    buf = io.StringIO()
    write_run(run, "jsonl", buf)
    back = read_text(buf.getvalue())
    assert back.format == "jsonl"
    for k, s in run.series.items():
        assert np.array_equal(back.series[k].steps, s.steps)
        assert np.array_equal(back.series[k].values, s.values, equal_nan=True)


def test_two_writers_interleaved_in_one_file_are_one_run_not_a_restart():
    # an async trainer's two writers append each step as it completes, one lagging the other by a
    # step or two (0, 1, 2, 0, 1, 3, 2, 4, ...): the counter goes back on a third of the rows, to
    # steps past 1 -- no run restarted at the first regression, and the note says what happened
    a = [(s, 0.01 * s) for s in range(40)]
    b = [(s, 0.01 * s + 0.001) for s in range(40)]
    order: list[tuple[int, float]] = a[:3]
    i, j = 3, 0
    while i < 40 or j < 40:
        for _ in range(2 if j < 40 else 0):
            if j < 40:
                order.append(b[j])
                j += 1
        if i < 40:
            order.append(a[i])
            i += 1
    text = "".join(f'{{"step": {s}, "reward": {r}}}\n' for s, r in order)
    run = read_text(text, "jsonl")
    assert not run.file_runs and run.series["reward"].steps.tolist() == list(range(40))
    assert any("two writers appending to one file" in str(n) for n in run.notes)
    # and the report's header says so, not "the step counter restarted N times"
    from rlvitals.diagnose import diagnose
    from rlvitals.render.terminal import render_text

    d = diagnose(run)
    assert d.run["interleaved"] is True
    head = render_text(d).split("Verdict")[0]
    assert "two writers interleaved" in head and "restarted" not in head
    # a run resumed twice (a few regressions over many rows) keeps its segments and no such note
    resumed = [*range(0, 30), *range(25, 60), *range(55, 90)]
    run = read_text("".join(f'{{"step": {s}, "reward": 0.1}}\n' for s in resumed), "jsonl")
    assert len(run.segments) == 3 and not any("two writers" in str(n) for n in run.notes)


def test_a_loops_typed_eval_records_are_evals_not_the_training_reward():
    """A loop writing `{"type": "eval", ...}` beside its rollout and train records, counting its
    steps as `grpo_step`: the eval's reward and accuracy are evals on their own cadence."""
    text = "\n".join(
        [
            '{"type": "eval", "grpo_step": 0, "reward": 0.04, "answer_accuracy": 0.04}',
            '{"type": "rollout", "grpo_step": 1, "reward": 0.2}',
            '{"type": "train", "grpo_step": 1, "optimizer_step": 1, "grad_norm": 0.1}',
            '{"type": "rollout", "grpo_step": 2, "reward": 0.3}',
            '{"type": "train", "grpo_step": 2, "optimizer_step": 2, "grad_norm": 0.2}',
            '{"split": "val", "grpo_step": 2, "reward": 0.5, "answer_accuracy": 0.5}',
        ]
    )
    run = read_text(text + "\n")
    assert run.series["reward"].steps.tolist() == [1, 2] and run.series["reward"].values.tolist() == [0.2, 0.3]
    assert run.evals["eval/reward"].values.tolist() == [0.04, 0.5]
    assert run.series["val_acc"].source == "eval/answer_accuracy"
    assert run.series["gnorm"].steps.tolist() == [1, 2]
    assert "step_inferred" not in run.meta


def test_an_evals_records_at_one_step_are_one_eval_their_mean():
    """A game loop writing one `log_type: eval` record per held-out word, several at each eval step:
    the eval at that step is their mean (2 of 3 solved), not the last word's score."""
    rows = [{"log_type": "train", "step": s, "final_reward": 0.1 * s} for s in range(1, 5)]
    rows.insert(2, {"log_type": "eval", "step": 2, "solved": True, "final_reward": 1.0, "word": "LINEN"})
    rows.insert(3, {"log_type": "eval", "step": 2, "solved": True, "final_reward": 1.0, "word": "CLASS"})
    rows.insert(4, {"log_type": "eval", "step": 2, "solved": False, "final_reward": -1.0, "word": "PLANT"})
    rows.append({"log_type": "eval", "step": 4, "solved": False, "final_reward": -1.0, "word": "LINEN"})
    run = read_text("".join(json.dumps(r) + "\n" for r in rows))
    assert run.series["reward"].values.tolist() == [0.1, 0.2, pytest.approx(0.3), 0.4]  # the train rows only
    assert run.evals["eval/solved"].steps.tolist() == [2, 4]
    assert run.evals["eval/solved"].values.tolist() == [pytest.approx(2 / 3), 0.0]
    assert run.evals["eval/final_reward"].values.tolist() == [pytest.approx(1 / 3), -1.0]


def test_a_flag_saying_the_task_was_solved_is_read_other_flags_are_not():
    """An agent loop's `"solved": true` per episode is the truth: read as 1/0 (the accuracy), like a
    `truncated` flag (the share cut); a `done` flag says nothing about the goal and stays dropped."""
    rows = [
        {"step": s, "solved": s % 3 == 0, "truncated": s % 4 == 0, "done": True, "reward": 0.5} for s in range(1, 13)
    ]
    run = read_text("".join(json.dumps(r) + "\n" for r in rows))
    assert run.series["acc"].source == "solved" and run.series["acc"].values.sum() == 4
    assert run.series["trunc"].values.sum() == 3
    assert "done" not in run.extras and sum(run.dropped.values()) == 12


def test_a_notebook_tables_spaced_keys_are_read_as_the_trainers_keys():
    """TRL's notebook table writes `completions / mean_length`; rows copied from it keep the spaces.
    They are the trainer's keys: the length, the share cut and each reward function's mean."""
    rows = [
        {
            "step": s,
            "reward": 0.1 * s,
            "completions / mean_length": 700.0 - 10 * s,
            "completions / clipped_ratio": 0.5 / s,
            "rewards / correctness_reward / mean": 0.05 * s,
        }
        for s in range(1, 13)
    ]
    run = read_text("".join(json.dumps(r) + "\n" for r in rows))
    assert run.series["len"].values[0] == 690.0 and run.series["trunc"].values[-1] == 0.5 / 12
    assert run.series["acc"].source == "rewards/correctness_reward/mean"


def test_an_optimizer_skip_flag_is_read_as_one_or_zero():
    rows = [{"step": s, "grad_norm": 3000.0, "update_skipped": s > 4} for s in range(1, 13)]
    run = read_text("".join(json.dumps(r) + "\n" for r in rows))
    assert run.extras["update_skipped"].values.sum() == 8 and not sum(run.dropped.values())


def test_a_typed_config_record_is_settings_not_a_row(tmp_path):
    """`{"type": "config", "argv": [...], "args": {"lr": 1e-05, "batch_size": 8}}` first, then the rows:
    the settings are kept in meta and counted, never read as metrics at a step of their own (an lr
    of 1e-05 and a batch size of 8 at step 0), and the rows keep their own steps."""
    lines = [json.dumps({"type": "config", "argv": ["train.py", "--lr", "1e-5"], "args": {"lr": 1e-05, "steps": 60}})]
    lines += [json.dumps({"step": s, "mean_reward": 0.1 * s, "accuracy": 0.4 + 0.005 * s}) for s in range(0, 61, 20)]
    p = tmp_path / "log.jsonl"
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    assert run.series["acc"].steps.tolist() == [0, 20, 40, 60]
    assert "lr" not in run.series and not any("args" in k for k in run.extras)
    assert run.skipped == {"config line": 1} and run.meta["config"]["args"]["lr"] == 1e-05
    assert not run.meta.get("step_inferred")


def test_read_text_guesses_plain_names_as_read_does(tmp_path):
    """A pasted log reads as the same file would: `Average Reward` is the reward in both."""
    text = "".join(
        json.dumps({"step": s, "Average Reward": 0.1 * s, "policy_entropy_mean": 1.0}) + "\n" for s in range(1, 31)
    )
    p = tmp_path / "log.jsonl"
    p.write_text(text)
    from_file, pasted = read(p), read_text(text)
    assert from_file.series["reward"].source == pasted.series["reward"].source == "Average Reward"
    assert pasted.series["entropy"].source == "policy_entropy_mean"
