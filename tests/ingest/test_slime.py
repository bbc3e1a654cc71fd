"""slime's grouped dict lines and its two step axes (optimizer steps mapped onto rollout ids)."""

from __future__ import annotations

import io
import math

import numpy as np
from dictlog_helpers import assert_same_series, round_trip, synthetic_run

from rlvitals.ingest import read_text, sniff_text, write_run
from rlvitals.run import Run, Series

P = "[2026-08-21 17:14:19] model.py:916 - "


def _rollout(r: int, k: int, reward: float) -> list[str]:
    lines = [
        f"(RolloutManager pid=9) {P}perf {r}: {{'rollout/response_len/mean': {500 + r}.0, 'rollout/truncated_ratio': 0.02}}",
        f"(MegatronTrainRayActor pid=7) {P}rollout {r}: {{'rollout/raw_reward': {reward}, 'rollout/rewards': 0.0, "
        f"'rollout/response_lengths': {510 + r}.0}}",
    ]
    for j in range(k):
        s = r * k + j
        lines.append(
            f"(MegatronTrainRayActor pid=7) {P}step {s}: {{'train/pg_loss': -0.002, 'train/entropy_loss': "
            f"{0.5 - 0.01 * s}, 'train/pg_clipfrac': {0.001 * (j + 1)}, 'train/grad_norm': nan, "
            f"'train/lr-pg_0': 1e-06, 'train/step': {s}}}"
        )
    lines.append("[sglang] Decode batch. #running-req: 32")
    return lines


def test_one_step_per_rollout_uses_rollout_ids():
    text = "\n".join(sum((_rollout(r, 1, 0.1 * r) for r in range(4)), [])) + "\n"
    assert sniff_text(text) == "slime"
    run = read_text(text)
    assert run.meta["step_axis"] == "rollout" and run.meta["train_steps_per_rollout"] == 1
    assert list(run.series["reward"].steps) == [0, 1, 2, 3]
    assert run.series["reward"].source == "rollout/raw_reward"  # the raw score, not the normalised one
    assert list(run.series["entropy"].steps) == [0, 1, 2, 3]
    assert run.series["trunc"].values[0] == 0.02
    assert math.isnan(run.series["gnorm"].values[0])
    assert "train/step" not in run.extras


def test_several_optimizer_steps_per_rollout_are_averaged_by_arithmetic():
    text = "\n".join(sum((_rollout(r, 4, 0.2) for r in range(3)), [])) + "\n"
    run = read_text(text, "slime")
    assert run.meta["train_steps_per_rollout"] == 4
    ent = run.series["entropy"]
    assert list(ent.steps) == [0, 1, 2]
    # rollout 1 holds optimizer steps 4..7: mean entropy 0.5 - 0.01 * 5.5
    assert abs(ent.values[1] - (0.5 - 0.055)) < 1e-12
    assert abs(run.series["clip_frac"].values[0] - 0.0025) < 1e-12
    assert math.isnan(run.series["gnorm"].values[2])  # all NaN stays NaN
    assert any("train/step // k" in n for n in run.notes)


def test_train_lines_only_use_the_train_step():
    text = "".join(
        f"step {s}: {{'train/pg_loss': 0.1, 'train/kl_loss': 0.00{s}, 'train/step': {s}}}\n" for s in (1, 2, 3)
    )
    run = read_text(text, "slime")
    assert run.meta["step_axis"] == "train" and list(run.series["kl"].steps) == [1, 2, 3]


def test_steps_before_any_rollout_line_placed_by_arithmetic_and_cut_lines_counted():
    text = (
        "step 0: {'train/pg_loss': 0.1, 'train/step': 0}\n"
        "rollout 1: {'rollout/raw_reward': 0.3}\n"
        "step 1: {'train/pg_loss': 0.2, 'train/step': 1}\n"
        "rollout 2: {'rollout/raw_reward': 0.4, 'rollout/"
    )
    run = read_text(text, "slime")
    assert run.skipped == {"truncated or malformed dict": 1}
    assert list(run.series["loss"].steps) == [0, 1]  # 0 // k = 0 with k = 1


def test_when_the_arithmetic_fails_the_order_decides_and_orphans_are_counted():
    # train/step numbering that does not follow rollout_id * k + step_id (e.g. a resumed counter)
    text = (
        "step 7: {'train/pg_loss': 0.0}\n"
        "rollout 0: {'rollout/raw_reward': 0.3}\n"
        "step 50: {'train/pg_loss': 0.1}\n"
        "rollout 1: {'rollout/raw_reward': 0.4}\n"
        "step 51: {'train/pg_loss': 0.2}\n"
    )
    run = read_text(text, "slime")
    assert list(run.series["loss"].steps) == [0, 1] and list(run.series["loss"].values) == [0.1, 0.2]
    assert run.skipped == {"train step before any rollout line": 1}
    assert any("last rollout id printed" in n for n in run.notes)


def test_critic_lines_have_their_own_role_and_do_not_double_k():
    lines = []
    for r in range(3):
        lines.append(f"rollout {r}: {{'rollout/raw_reward': 0.{r + 1}}}")
        for j in range(2):
            s = 2 * r + j
            lines.append(
                f"critic-step {s}: {{'train/critic-value_loss': {s}.0, 'train/critic-grad_norm': 1.0, 'train/step': {s}}}"
            )
            lines.append(f"step {s}: {{'train/pg_loss': {s}.0, 'train/step': {s}}}")
    run = read_text("\n".join(lines) + "\n", "slime")
    assert run.meta["train_steps_per_rollout"] == 2
    assert list(run.series["loss"].values) == [0.5, 2.5, 4.5]
    assert list(run.extras["train/critic-value_loss"].values) == [0.5, 2.5, 4.5]


def test_round_trip():
    run = synthetic_run()
    back = round_trip(run, "slime")
    assert_same_series(
        run, back, ["reward", "acc", "entropy", "kl", "clip_frac", "ratio_mean", "len", "gnorm", "trunc", "lr", "loss"]
    )


def test_cut_last_line_of_a_file_and_feed_reports_rows(tmp_path):
    from rlvitals.ingest import open_parser, read

    lines = _rollout(0, 1, 0.1) + _rollout(1, 1, 0.2)
    p = tmp_path / "slime.log"
    p.write_text("\n".join(lines) + "\n" + lines[1][:100])
    run = read(p)
    assert run.format == "slime" and run.skipped == {"truncated last line": 1}
    parser = open_parser("slime")
    assert [parser.feed(x + "\n") for x in lines[:4]] == [True, True, True, False]


def test_eval_accuracy_round_trips_on_its_own_cadence():
    # held-out runs written as slime logs lost their eval accuracy (the writer had no key for val_acc)
    steps = np.arange(1, 31)
    run = Run.from_arrays("r", steps, {"reward": np.linspace(0.1, 0.9, 30), "entropy": np.full(30, 0.5)})
    run.series["val_acc"] = Series("val_acc", np.array([10, 20, 30]), np.array([0.4, 0.35, 0.3]))
    buf = io.StringIO()
    write_run(run, "slime", buf)
    assert "eval 10: {'eval/accuracy': 0.4}" in buf.getvalue()
    back = read_text(buf.getvalue(), "slime")
    assert list(back.series["val_acc"].steps) == [10, 20, 30]
    assert list(back.series["val_acc"].values) == [0.4, 0.35, 0.3]
    assert list(back.series["reward"].steps) == list(range(1, 31))


def test_an_eval_set_named_by_itself_stands_for_the_eval_accuracy():
    # slime prints each eval set's score under its own name (`eval 10: {'eval/aime': 0.2}`): with no
    # accuracy key among them, a set's score is the held-out goal, not a metric left unread
    lines = sum((_rollout(r, 1, 0.1 + 0.01 * r) for r in range(30)), [])
    for r in (10, 20, 29):
        lines.append(
            f"{P}eval {r}: {{'eval/gsm8k': {0.5 + r / 100}, 'eval/aime-truncated_ratio': 0.1, 'eval/aime': {r / 200}}}"
        )
    run = read_text("\n".join(lines) + "\n", "slime")
    assert run.series["val_acc"].source == "eval/aime"
    assert list(run.series["val_acc"].steps) == [10, 20, 29]
    assert any("eval/aime" in n for n in run.notes)
