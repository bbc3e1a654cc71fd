"""Reward components (named, classified) and eval metrics (own cadence) beside the vitals."""

from __future__ import annotations

import pytest
from realdata import REAL

from rlvitals.ingest import read, read_text
from rlvitals.ingest.components import classify, component_name, is_eval_key, val_acc_choice


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        # the Unsloth / TRL GSM8K notebook's five reward functions
        ("correctness_reward_func", "correctness"),
        ("xmlcount_reward_func", "format"),
        ("soft_format_reward_func", "format"),
        ("strict_format_reward_func", "format"),
        ("int_reward_func", "format"),  # checks only that the answer is an integer
        # prime-rl (Dakota) verifiers
        ("exact_match_reward", "correctness"),
        ("length_penalty_reward", "length"),
        ("char_overlap_reward", "other"),
        # TRL console logs, rl-doctor, rlprobe, open-r1 names
        ("think_format_reward", "format"),
        ("mc_idx_reward", "correctness"),
        ("mdi_reward", "other"),
        ("reward_fn", "other"),
        ("accuracy_reward", "correctness"),
        ("correctness", "correctness"),
        ("format", "format"),
        ("cosine_scaled_reward", "style"),
        ("repetition_penalty_reward", "style"),
        ("tag_count_reward", "format"),
        ("code_format_reward", "format"),
        ("soft_overlong_punishment", "length"),
        ("binary_code_reward", "correctness"),
        ("math_verify_reward", "correctness"),
        ("reasoning_steps_reward", "format"),
        ("gsm8k_reward", "other"),
    ],
)
def test_classify(name, kind):
    assert classify(name) == kind


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("rewards/xmlcount_reward_func/mean", "xmlcount_reward_func"),
        ("rewards/reward_fn", "reward_fn"),
        ("rewards/correctness/mean", "correctness"),
        ("reward_component.format", "format"),
        ("metrics/exact_match_reward", "exact_match_reward"),
        ("reward/length_bonus", "length_bonus"),
        ("rewards/xmlcount_reward_func/std", None),
        ("rewards/total_reward", None),
        ("reward/mean", None),
        ("rewards", None),
        ("critic/score/mean", None),
        ("reward", None),
        ("rewards/chosen", None),
        ("rewards/margins", None),
        ("env/all/format", "format"),
        ("reward/overall", None),
        # a loop's flat terms under the training namespace, but never the total they sum to
        ("train/format_reward", "format_reward"),
        ("train/answer_reward", "answer_reward"),
        ("train/total_reward", None),
        ("train/reward", None),
    ],
)
def test_component_keys(key, name):
    assert component_name(key) == name


def test_eval_keys():
    assert all(
        is_eval_key(k)
        for k in (
            "eval/accuracy",
            "eval_loss",
            "val-core/gsm8k/acc/mean@1",
            "validation/accuracy",
            "test/score",
            "val_loss",
            "eval_aime_pass1",
        )
    )
    # TRL PPO logs training statistics under val/: they are not evals
    assert not any(is_eval_key(k) for k in ("val/ratio", "val/clipfrac_avg", "reward", "rewards/format/mean"))
    assert val_acc_choice(["eval/loss", "eval/reward", "eval/accuracy"]) == "eval/accuracy"
    assert val_acc_choice(["eval_loss", "eval_reward"]) == "eval_reward"
    assert val_acc_choice(["eval_reward", "eval_success", "eval_perplexity"]) == "eval_success"  # tasks solved
    assert val_acc_choice(["eval_format_rate", "eval_answer_rate"]) == "eval_answer_rate"
    assert val_acc_choice(["val_loss", "eval/completion_length"]) is None
    # slime names each eval set's score by the set alone; the HF Trainer's eval/ clock and loss are no score
    assert val_acc_choice(["eval/gsm8k", "eval/aime-truncated_ratio", "eval/aime"]) == "eval/aime"
    assert val_acc_choice(["eval/loss", "eval/runtime", "eval/samples_per_second", "eval/epoch"]) is None
    assert val_acc_choice(["eval/gsm8k", "eval/reward"]) == "eval/reward"
    # a text-overlap score of held-out outputs (a summary's ROUGE, a poem's chrF) when nothing
    # ranks higher; never before a reward or a data set's own score
    assert val_acc_choice(["dev_loss", "dev_chrf"]) == "dev_chrf"
    assert val_acc_choice(["eval/rougeL", "eval/gen_len"]) == "eval/rougeL"
    assert val_acc_choice(["eval/bleu", "eval/reward"]) == "eval/reward"
    assert val_acc_choice(["eval/f1", "eval/exact_match"]) == "eval/exact_match"


def test_an_eval_of_the_rewards_terms_stands_for_accuracy_by_its_correctness_term():
    # the term paying the right answer, not the total over it and its format term, however named
    terms = ["eval/total_reward", "eval/format_reward", "eval/answer_reward", "eval/response_length"]
    assert val_acc_choice(terms) == "eval/answer_reward"
    assert val_acc_choice(["eval/reward_correct", "eval/reward"]) == "eval/reward_correct"
    # a term paying the answer's shape is never the accuracy, even alone beside the total
    assert val_acc_choice(["eval/format_reward", "eval/total_reward"]) == "eval/total_reward"
    assert val_acc_choice(["eval/format_reward", "eval/length_reward"]) is None
    # an accuracy by name still comes first
    assert val_acc_choice(["eval/answer_reward", "eval/accuracy"]) == "eval/accuracy"


def test_gemma_trainer_state_components():
    run = read(REAL / "trainerstate-gemma3-1b-gsm8k.trainer_state.json")
    assert run.component_kinds == {
        "correctness_reward_func": "correctness",
        "int_reward_func": "format",
        "soft_format_reward_func": "format",
        "strict_format_reward_func": "format",
        "xmlcount_reward_func": "format",
    }
    c = run.components["correctness_reward_func"]
    assert c.source == "rewards/correctness_reward_func" and len(c) == 25
    assert c.values[0] == pytest.approx(0.225) and c.values[-1] == pytest.approx(0.95)
    assert run.components["strict_format_reward_func"].is_constant
    assert run.evals == {}


def test_primerl_csv_components():
    run = read(REAL / "primerl-dakota-qwen3-0.6b-wandb-history.csv")
    assert run.component_kinds == {
        "affix_reward": "other",
        "char_overlap_reward": "other",
        "exact_match_reward": "correctness",
        "length_penalty_reward": "length",
        "pattern_reward": "other",
    }
    em = run.components["exact_match_reward"]
    assert em.source == "metrics/exact_match_reward" and em.is_constant and em.values[0] == 0
    assert run.series["acc"].source == "metrics/exact_match_reward"  # also the canonical acc


def test_trl_console_components_and_std_kept_as_extras():
    run = read(REAL / "trl-grpo-qwen25vl3b-aokvqa-collapse.md")
    assert set(run.components) == {"mc_idx_reward", "mdi_reward", "think_format_reward"}
    assert run.component_kinds == {
        "mc_idx_reward": "correctness",
        "mdi_reward": "other",
        "think_format_reward": "format",
    }
    assert "rewards/think_format_reward/std" in run.extras and "total_reward" not in run.components


def test_evals_on_their_own_cadence_and_val_acc_choice():
    rows = []
    for s in range(1, 21):
        rows.append(f'{{"step": {s}, "reward": {s / 40}, "entropy": 1.0, "rewards/format/mean": 0.9}}')
        if s % 5 == 0:
            rows.append(f'{{"step": {s}, "eval/loss": {2 - s / 20}, "eval/accuracy": {s / 50}}}')
    run = read_text("\n".join(rows) + "\n")
    assert set(run.evals) == {"eval/loss", "eval/accuracy"}
    assert run.evals["eval/accuracy"].steps.tolist() == [5, 10, 15, 20]
    assert run.series["val_acc"].source == "eval/accuracy" and run.series["val_acc"].values[-1] == 0.4
    assert any("val_acc from eval/accuracy" in n for n in run.notes)
    assert run.series["reward"].steps.size == 20 and "eval/loss" not in run.series
    assert run.components["format"].source == "rewards/format/mean" and run.component_kinds["format"] == "format"


def test_verl_validation_is_an_eval_and_val_acc():
    run = read(REAL / "verl-data-Qwen2.5-0.5B-bsz256_2-prompt1024-resp512-0.567.log")
    assert set(run.evals) == {"val/test_score/openai/gsm8k"}
    assert run.series["val_acc"].source == "val/test_score/openai/gsm8k"


def test_unsloth_notebook_components():
    """The lesson's example: the total reward rises through the xmlcount format term, the
    correctness term stays near 0 (README of the real fixtures)."""
    import numpy as np

    run = read(REAL / "unsloth-mistral-7b-grpo-gsm8k.ipynb")
    assert run.component_kinds == {
        "xmlcount_reward_func": "format",
        "soft_format_reward_func": "format",
        "strict_format_reward_func": "format",
        "int_reward_func": "format",
        "correctness_reward_func": "correctness",
    }

    def ends(s):
        n = len(s) // 10
        return float(np.mean(s.values[:n])), float(np.mean(s.values[-n:]))

    assert ends(run.components["xmlcount_reward_func"]) == pytest.approx((-0.367, 0.187), abs=1e-3)
    assert ends(run.components["correctness_reward_func"]) == pytest.approx((0.013, 0.093), abs=1e-3)
    assert run.components["strict_format_reward_func"].is_constant
    # the correctness reward pays 2.0 per right answer: as acc it is a stand-in, said so
    acc = run.series["acc"]
    assert acc.source == "rewards/correctness_reward_func" and acc.proxy and "not a fraction" in acc.note


def test_a_log_of_reward_terms_without_their_total_gets_the_reward_from_them():
    """TRL logs `reward` beside its terms; a panel or table that kept only the terms still has a
    reward: the one term itself, or the sum of several where every term was logged."""
    one = read_text("step,train/rewards/joke_fn/mean\n1,0.1\n2,0.4\n")
    assert one.series["reward"].values.tolist() == [0.1, 0.4] and one.series["reward"].proxy
    two = read_text(
        "step,rewards/correctness_reward_func/mean,rewards/format_reward_func/mean\n1,0.0,0.5\n2,1.0,\n3,2.0,0.5\n"
    )
    assert two.series["reward"].steps.tolist() == [1, 3] and two.series["reward"].values.tolist() == [0.5, 2.5]
    kept = read_text("step,reward,rewards/format_reward_func/mean\n1,0.7,0.5\n2,0.9,0.5\n")
    assert kept.series["reward"].source == "reward" and not kept.series["reward"].proxy
