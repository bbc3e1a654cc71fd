"""OpenRLHF `Global step N: {…}` lines: prefixes, the printed N, bad lines, round trip."""

from __future__ import annotations

import math

from dictlog_helpers import assert_same_series, round_trip, synthetic_run

from rlvitals.ingest import read_text, sniff_text

LINE = (
    "INFO 08-13 19:25:45 ppo_trainer.py:547] ✨ Global step {n}: {{'policy_loss': 0.013, 'actor_lr': 5e-07, "
    "'actor_grad_norm': 0.21, 'kl': 0.0004, 'reward': {r}, 'response_length': 903.2, 'ppo_clip_ratio': 0.002, "
    "'timing/generation': 41.2, 'rollout/reward_mean': 0.48, 'rollout/truncated_rate': 0.05}}"
)


def test_reads_steps_as_printed_with_ray_and_logging_prefixes():
    text = (
        "\n".join(
            [
                "(PPOTrainer pid=4242) " + LINE.format(n=7, r=0.48),
                "\x1b[36m(PPOTrainer pid=4242)\x1b[0m " + LINE.format(n=8, r=0.5),
                "Train epoch [1/1]: 100%|██| 8/8 [00:10<00:00, act_loss=0.01, reward=0.5]",
                # the async trainer prints no emoji
                "INFO 08-13 19:26:00 ppo_trainer_async.py:300] Global step 9: {'reward': 0.55, 'kl': 0.0005}",
            ]
        )
        + "\n"
    )
    assert sniff_text(text) == "openrlhf"
    run = read_text(text)
    assert run.format == "openrlhf"
    assert list(run.series["reward"].steps) == [7, 8, 9]
    assert list(run.series["reward"].values) == [0.48, 0.5, 0.55]
    assert run.series["trunc"].source == "rollout/truncated_rate" and run.series["trunc"].values[0] == 0.05
    assert run.series["gnorm"].source == "actor_grad_norm" and run.series["lr"].values[0] == 5e-07
    assert run.series["clip_frac"].source == "ppo_clip_ratio"
    assert "timing/generation" in run.extras


def test_nan_none_truncated_and_ranks_repeating():
    text = (
        "\n".join(
            [
                "Global step 1: {'reward': nan, 'kl': None, 'policy_loss': 0.1}",
                "Global step 2: {'reward': 0.3, 'kl': 0.001, 'note': 'warmup'}",
                "Global step 2: {'reward': 0.31, 'kl': 0.001}",  # a second rank, the later wins
                "Global step 3: {'reward': 0.4, 'kl'",  # cut off
            ]
        )
        + "\n"
    )
    run = read_text(text, "openrlhf")
    r = run.series["reward"]
    assert math.isnan(r.values[0]) and list(r.steps) == [1, 2] and r.values[1] == 0.31
    assert math.isnan(run.series["kl"].values[0])
    assert run.skipped == {"truncated or malformed dict": 1}
    assert run.dropped == {"non-numeric values": 1}


def test_round_trip_keeps_what_openrlhf_logs():
    run = synthetic_run()
    back = round_trip(run, "openrlhf")
    assert_same_series(run, back, ["reward", "entropy", "kl", "clip_frac", "len", "gnorm", "trunc", "lr", "loss"])
    # OpenRLHF logs no training accuracy, adv_std or ratio: the writer does not invent them
    assert not {"acc", "adv_std", "ratio_mean"} & set(back.series)


def test_one_line_is_enough_to_sniff_and_slime_does_not_claim_it():
    line = LINE.format(n=1, r=0.4) + "\n"
    assert sniff_text(line) == "openrlhf"


def test_cut_last_line_of_a_file(tmp_path):
    from rlvitals.ingest import read

    p = tmp_path / "train.log"
    p.write_text(LINE.format(n=1, r=0.4) + "\n" + LINE.format(n=2, r=0.5)[:120])
    run = read(p)
    assert list(run.series["reward"].steps) == [1] and run.skipped == {"truncated last line": 1}
