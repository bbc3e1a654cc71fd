"""slime's grouped dict lines and its two step axes (optimizer steps mapped onto rollout ids)."""

from __future__ import annotations

import math

from dictlog_helpers import assert_same_series, round_trip, synthetic_run
from rlvitals.ingest import read_text, sniff_text

P = "[2026-08-21 17:14:19] model.py:916 - "


def _rollout(r: int, k: int, reward: float) -> list[str]:
    lines = [f"(RolloutManager pid=9) {P}perf {r}: {{'rollout/response_len/mean': {500 + r}.0, 'rollout/truncated_ratio': 0.02}}",
             f"(MegatronTrainRayActor pid=7) {P}rollout {r}: {{'rollout/raw_reward': {reward}, 'rollout/rewards': 0.0, "
             f"'rollout/response_lengths': {510 + r}.0}}"]
    for j in range(k):
        s = r * k + j
        lines.append(f"(MegatronTrainRayActor pid=7) {P}step {s}: {{'train/pg_loss': -0.002, 'train/entropy_loss': "
                     f"{0.5 - 0.01 * s}, 'train/pg_clipfrac': {0.001 * (j + 1)}, 'train/grad_norm': nan, "
                     f"'train/lr-pg_0': 1e-06, 'train/step': {s}}}")
    lines.append("[sglang] Decode batch. #running-req: 32")
    return lines


def test_one_step_per_rollout_uses_rollout_ids():
    text = "\n".join(sum((_rollout(r, 1, 0.1 * r) for r in range(4)), [])) + "\n"
    assert sniff_text(text) == "slime"
    run = read_text(text)
    assert run.meta["step_axis"] == "rollout" and run.meta["train_steps_per_rollout"] == 1
    assert list(run.series["reward"].steps) == [0, 1, 2, 3]
    assert run.series["reward"].source == "rollout/raw_reward"          # the raw score, not the normalised one
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
    assert math.isnan(run.series["gnorm"].values[2])                   # all NaN stays NaN
    assert any("train/step // k" in n for n in run.notes)


def test_train_lines_only_use_the_train_step():
    text = "".join(f"step {s}: {{'train/pg_loss': 0.1, 'train/kl_loss': 0.00{s}, 'train/step': {s}}}\n" for s in (1, 2, 3))
    run = read_text(text, "slime")
    assert run.meta["step_axis"] == "train" and list(run.series["kl"].steps) == [1, 2, 3]


def test_steps_before_any_rollout_line_and_cut_lines_are_counted():
    text = ("step 0: {'train/pg_loss': 0.1, 'train/step': 0}\n"
            "rollout 1: {'rollout/raw_reward': 0.3}\n"
            "step 1: {'train/pg_loss': 0.2, 'train/step': 1}\n"
            "rollout 2: {'rollout/raw_reward': 0.4, 'rollout/")
    run = read_text(text, "slime")
    assert run.skipped == {"truncated or malformed dict": 1, "train step before any rollout line": 1}
    assert list(run.series["loss"].steps) == [1]


def test_round_trip():
    run = synthetic_run()
    back = round_trip(run, "slime")
    assert_same_series(run, back, ["reward", "acc", "entropy", "kl", "clip_frac", "ratio_mean", "len",
                                   "gnorm", "trunc", "lr", "loss"])


def test_cut_last_line_of_a_file_and_feed_reports_rows(tmp_path):
    from rlvitals.ingest import open_parser, read
    lines = _rollout(0, 1, 0.1) + _rollout(1, 1, 0.2)
    p = tmp_path / "slime.log"
    p.write_text("\n".join(lines) + "\n" + lines[1][:100])
    run = read(p)
    assert run.format == "slime" and run.skipped == {"truncated last line": 1}
    parser = open_parser("slime")
    assert [parser.feed(x + "\n") for x in lines[:4]] == [True, True, True, False]
