"""Key vocabularies beyond the big frameworks: Tinker, EasyR1, generic hand-rolled names."""

from __future__ import annotations

import json

from rlvitals.ingest import read_text
from rlvitals.ingest.aliases import EXACT, canonical_key


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_tinker_cookbook_metrics_jsonl():
    rows = [
        {
            "step": s,
            "env/all/reward/total": 0.2 + s / 100,
            "env/all/correct": s / 50,
            "env/all/format": 0.9,
            "env/all/ac_tokens_per_turn": 300 - s,
            "optim/lr": 4e-5,
            "optim/kl_sample_train_v1": 1e-3,
        }
        for s in range(10)
    ]
    rows += [{"step": 9, "test/env/all/correct": 0.3, "test/env/all/reward/total": 0.35}]
    run = read_text(_jsonl(rows))
    got = {k: s.source for k, s in run.series.items()}
    assert got == {
        "reward": "env/all/reward/total",
        "acc": "env/all/correct",
        "len": "env/all/ac_tokens_per_turn",
        "lr": "optim/lr",
        "val_acc": "test/env/all/correct",
        "ratio_mean": "optim/kl_sample_train_v1",
    }
    assert run.component_kinds == {"correct": "correctness", "format": "format"}
    assert set(run.evals) == {"test/env/all/correct", "test/env/all/reward/total"}
    # sampler-vs-learner KL is a mismatch metric, not the KL to the reference: the ratio's stand-in
    assert "kl" not in run.series and run.series["ratio_mean"].proxy


def test_tinker_entropy_and_share_of_groups_with_reward_spread():
    # newer cookbook loops log the policy entropy and, per group, the shares all-good / all-bad / mixed
    rows = [
        {
            "step": s,
            "env/all/reward/total": 0.5,
            "env/all/correct": 0.5,
            "optim/entropy": 0.8 - s / 100,
            "env/all/by_group/frac_mixed": 0.64 - s / 20,
            "env/all/by_group/frac_all_good": 0.3 + s / 20,
            "env/all/by_group/frac_all_bad": 0.06,
        }
        for s in range(10)
    ]
    run = read_text(_jsonl(rows))
    assert run.series["entropy"].source == "optim/entropy"
    adv = run.series["adv_std"]
    assert adv.source == "env/all/by_group/frac_mixed" and adv.proxy
    assert abs(float(adv.values[0]) - 0.8) < 1e-9  # √0.64: only mixed groups carry advantage
    assert float(adv.values[-1]) < float(adv.values[0])


def test_easyr1_reward_terms_and_validation():
    rows = [
        {
            "step": s,
            "reward/overall": 0.5 + s / 40,
            "reward/format": 0.9,
            "reward/accuracy": 0.4 + s / 40,
            "actor/entropy_loss": 0.6,
            "actor/kl_loss": 0.01,
            "response_length/mean": 400.0,
        }
        for s in range(1, 11)
    ]
    rows += [{"step": 10, "val/accuracy_reward": 0.45, "val/overall_reward": 0.5}]
    run = read_text(_jsonl(rows))
    assert run.series["reward"].source == "reward/overall" and run.series["acc"].source == "reward/accuracy"
    assert run.component_kinds == {"format": "format", "accuracy": "correctness"}
    assert run.series["val_acc"].source == "val/accuracy_reward"
    assert "overall" not in run.components


def test_generic_and_peer_names_rank_after_framework_keys():
    for key, canon in {
        "reward_mean": "reward",
        "entropy_mean": "entropy",
        "kl_mean": "kl",
        "kl_divergence": "kl",
        "advantage_std": "adv_std",
        "clip_fraction": "clip_frac",
        "completion_len_mean": "len",
        "truncation_rate": "trunc",
        "train_loss": "loss",
        "eval/accuracy": "val_acc",
        "zero_variance_group_frac": "adv_std",
    }.items():
        assert canonical_key(key) == canon, key
    assert EXACT["reward"].rank < EXACT["reward_mean"].rank and EXACT["kl"].rank < EXACT["kl_mean"].rank
    rows = [{"step": s, "reward": 0.1 * s, "reward_mean": 9.0, "loss": 0.5, "train_loss": 7.0} for s in range(3)]
    run = read_text(_jsonl(rows))
    assert run.series["reward"].source == "reward" and run.series["loss"].source == "loss"


def test_a_loops_total_reward_is_the_reward_its_terms_components():
    # a loop logging `train/total_reward` beside the terms it sums (answer, format): the goal is the
    # answer term, the reward the total -- a log of nothing else had no reward before
    rows = [
        {"step": s, "train/total_reward": 0.1 * s + 0.2, "train/answer_reward": 0.1 * s, "train/format_reward": 0.2}
        for s in range(4)
    ]
    run = read_text(_jsonl(rows))
    assert run.series["reward"].source == "train/total_reward"
    assert run.component_kinds == {"answer_reward": "correctness", "format_reward": "format"}
    assert canonical_key("reward_total") == "reward"
    # the plain reward, when logged too, is still the one read
    both = read_text(_jsonl([{**r, "reward": 1.0} for r in rows]))
    assert both.series["reward"].source == "reward"
