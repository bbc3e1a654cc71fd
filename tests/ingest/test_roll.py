"""ROLL `metrics_tag: {"step": N, "metrics": {…}}` after the logger prefix."""

from __future__ import annotations

import math

from dictlog_helpers import assert_same_series, round_trip, synthetic_run

from rlvitals.ingest import read_text, sniff_text

PREFIX = "[2026-08-19 10:00:00] [tracking.py (161)] [INFO] [DRIVER 0 / 1][PID 77] metrics_tag: "


def test_json_with_nan_nested_and_prefix():
    text = (
        "\n".join(
            [
                "[2026-08-19 09:59:00] [worker.py (10)] [INFO] loading model",
                PREFIX + '{"step": 0, "metrics": {"critic/score/mean": 0.4, "actor/ratio_mean": 1.0002, '
                '"token/response_length/mean": 640.0, "actor/pg_loss": NaN, "system/global_step": 0}}',
                PREFIX + '{"step": 1, "metrics": {"critic/score/mean": 0.45, "math": {"critic/score/mean": 0.5}, '
                '"critic/correct/mean": 0.3, "token/total_response_length/clip": 12, "tag": "x"}}',
            ]
        )
        + "\n"
    )
    assert sniff_text(text) == "roll"
    run = read_text(text)
    assert list(run.series["reward"].values) == [0.4, 0.45]
    assert run.series["ratio_mean"].values[0] == 1.0002 and not run.series["ratio_mean"].proxy
    assert math.isnan(run.series["loss"].values[0])
    assert run.extras["math/critic/score/mean"].values[0] == 0.5  # per-domain keys kept
    assert "trunc" not in run.series  # the clip count is not a rate
    assert run.dropped == {"non-numeric values": 1} and run.skipped == {}


def test_truncated_and_stepless_lines_are_counted():
    text = (
        PREFIX
        + '{"step": 2, "metrics": {"critic/score/mean": 0.4\n'
        + PREFIX
        + '{"metrics": {"a": 1}}\n'
        + PREFIX
        + '{"step": 3, "metrics": {"critic/score/mean": 0.6}}\n'
    )
    run = read_text(text, "roll")
    assert list(run.series["reward"].steps) == [3]
    assert run.skipped == {"truncated or malformed metrics_tag": 1, "metrics_tag without step": 1}


def test_several_ranks_merge_later_wins():
    text = "".join(
        PREFIX + f'{{"step": {s}, "metrics": {{"critic/score/mean": {v}}}}}\n'
        for s, v in ((1, 0.1), (1, 0.1), (2, 0.2), (2, 0.25))
    )
    run = read_text(text, "roll")
    assert list(run.series["reward"].values) == [0.1, 0.25]


def test_round_trip():
    run = synthetic_run()
    back = round_trip(run, "roll")
    assert_same_series(
        run, back, ["reward", "acc", "entropy", "kl", "clip_frac", "ratio_mean", "len", "gnorm", "lr", "loss"]
    )


def test_truncation_rate_from_the_cap_count_and_the_batch_size():
    """MetricsManager logs `token/total_response_length/clip` (answers at the cap, a count) and
    `system/batch_size` (the sequences in that batch) on the same line: their quotient is the rate."""
    text = "".join(
        PREFIX + f'{{"step": {s}, "metrics": {{"critic/score/mean": 0.4, "token/response_length/mean": '
        f'{900 + 50 * s}.0, "token/total_response_length/clip": {c}, "system/batch_size": 512, '
        f'"system/global_step": {s}}}}}\n'
        for s, c in ((1, 5), (2, 51), (3, 256))
    )
    run = read_text(text, "roll")
    assert list(run.series["trunc"].values) == [5 / 512, 51 / 512, 0.5]
    assert run.series["trunc"].source == "token/total_response_length/clip_rate"
    assert any("system/batch_size" in n for n in run.notes)  # the derivation is said
    assert run.extras["token/total_response_length/clip"].values[2] == 256.0


def test_group_shares_and_validation_accuracy():
    """`group/mixed_groups_ratio` stands in for adv_std (√share, a proxy); `val_correct/all/mean`
    is the validation accuracy on the eval steps."""
    text = (
        PREFIX + '{"step": 10, "metrics": {"critic/score/mean": 0.6, "critic/correct/mean": 0.6, '
        '"group/all_correct_groups_ratio": 0.5, "group/all_incorrect_groups_ratio": 0.25, '
        '"group/mixed_groups_ratio": 0.25, "val_correct/all/mean": 0.41, "val_correct/math_rule/mean": 0.4}}\n'
        + PREFIX
        + '{"step": 11, "metrics": {"critic/score/mean": 0.62, "group/mixed_groups_ratio": 0.16}}\n'
    )
    run = read_text(text, "roll")
    adv = run.series["adv_std"]
    assert adv.proxy and list(adv.values) == [0.5, 0.4]
    assert list(run.series["val_acc"].steps) == [10] and run.series["val_acc"].values[0] == 0.41
    assert run.series["acc"].values[0] == 0.6


def test_round_trip_keeps_what_roll_logs_for_adv_std_trunc_and_eval():
    run = synthetic_run()
    back = round_trip(run, "roll")
    # the cap count is an integer out of the written batch: the rate comes back to 1/512
    assert abs(back.series["trunc"].values - run.series["trunc"].values).max() <= 0.5 / 512 + 1e-12
    assert abs(back.series["adv_std"].values - run.series["adv_std"].values).max() < 1e-9
    assert back.series["adv_std"].proxy
