"""Every framework's names: a namespace in front of a known key, correctness terms as the goal,
`--map goal=KEY`, unmapped keys named with `--map` suggestions, a log of loss / grad norm / lr only."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rlvitals import cli
from rlvitals.diagnose import diagnose
from rlvitals.i18n import localize
from rlvitals.ingest import read
from rlvitals.ingest.aliases import canonical_key
from rlvitals.ingest.components import classify, component_name


def write_jsonl(tmp_path, rows, name="run.jsonl"):
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p


@pytest.mark.parametrize(
    ("key", "canon"),
    [
        ("policy/entropy", "entropy"),
        ("optim/entropy", "entropy"),
        ("actor/entropy", "entropy"),
        ("train/entropy", "entropy"),
        ("env/all/kl", "kl"),
        ("my_trainer/grad_norm", "gnorm"),
        ("train/rewards/accuracy_reward/mean", "acc"),
        ("policy/completions/mean_length", "len"),
        # not the policy's vitals: another model's, the clock's, a reward term's statistics, an eval
        ("critic/lr", None),
        ("time/total", None),
        ("progress/step", None),
        ("reward/std", None),
        ("rewards/len/mean", None),
        ("rewards/format", None),
        ("rollout_corr/kl", None),
        ("token/total_response_length/clip", None),
        ("x/eval/accuracy", None),
        ("policy/approx_kl", None),
    ],
)
def test_a_namespace_in_front_of_a_known_key_reads_as_it(key, canon):
    assert canonical_key(key) == canon


def test_a_framework_key_beats_the_same_key_under_a_namespace(tmp_path):
    rows = [{"step": i, "entropy": 1.0, "policy/entropy": 2.0, "reward": 0.5} for i in range(1, 12)]
    run = read(write_jsonl(tmp_path, rows))
    assert run["entropy"].source == "entropy"


@pytest.mark.parametrize(
    "name",
    [
        "correct",
        "correctness_f",
        "answer_correctness",
        "accuracy_v2",
        "exact_match_raw",
        "exactmatch",
        "pass@4",
        "check_answer",
        "check_answer_fn",
        "is_correctness",
    ],
)
def test_correctness_like_names_are_correctness(name):
    assert classify(name) == "correctness"


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("env/all/ledger/exact_match_raw", "exact_match_raw"),
        ("metrics/check_answer", "check_answer"),
        ("custom/answer_correctness/mean", "answer_correctness"),
        ("env/all/ledger/exact_match_raw/std", None),
        ("test/env/all/exact_match", None),
        ("env/all/turns", None),
    ],
)
def test_a_correctness_term_under_a_new_namespace_is_a_component(key, name):
    assert component_name(key) == name


def tinker_rows(n=45, seed=0):
    """Tinker's reward-hacking study layout: reward = a proxy term, correctness logged beside it."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        g = 0.21 + 0.51 * i / (n - 1) + rng.normal(0, 0.01)
        f = max(0.0, 0.01 + rng.normal(0, 0.002))
        out.append(
            {
                "step": i,
                "optim/lr": 1e-5,
                "policy/entropy": 2.3 - 0.02 * i + rng.normal(0, 0.03),
                "progress/done_frac": (i + 1) / n,
                "reward/compilable_g": g,
                "reward/correctness_f": f,
                "reward/mean": g,
                "time/total": 900.0 + 11 * i,
            }
        )
    return out


def test_tinker_policy_entropy_and_its_correctness_term_as_the_goal(tmp_path, capsys):
    p = write_jsonl(tmp_path, tinker_rows(), "metrics.jsonl")
    run = read(p)
    assert run["entropy"].source == "policy/entropy"
    assert run.component_kinds["correctness_f"] == "correctness"
    assert run.meta["goal"]["metric"] == "component:correctness_f"
    assert "goal: reward/correctness_f, a correctness term (ahead of the total reward)" in run.notes
    # reward rises 0.21 → 0.72 while correctness stays at 0.01: not "learning"
    assert diagnose(run).verdict != "learning"
    assert cli.main(["diagnose", str(p), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "goal: reward/correctness_f, a correctness term" in out and "entropy     not logged" not in out
    assert cli.main(["vitals", str(p), "--lang", "en"]) == 0
    assert "reward/correctness_f (a correctness term, ahead of the total reward)" in capsys.readouterr().out


def test_tinkers_sampler_learner_gap_stands_in_for_the_ratio(tmp_path):
    # Tinker logs the mean (sampler - learner) log-prob gap over the sampled tokens, not the ratio:
    # exp(-gap) is the ratio's level -- 1 while the sampler runs the weights being trained, falling
    # as a stale sampler drifts from them (a weight-sync failure, read like any ratio leaving 1)
    rng = np.random.default_rng(3)
    rows = []
    for i in range(120):
        gap = 0.001 if i < 40 else 0.001 + 0.012 * (i - 40)
        rows.append(
            {
                "step": i,
                "env/all/reward/total": 0.3 + 0.1 * min(i, 40) / 40 + rng.normal(0, 0.02),
                "optim/kl_sample_train_v1": gap + rng.normal(0, 0.0003),
                "optim/entropy": 0.5 + rng.normal(0, 0.01),
            }
        )
    run = read(write_jsonl(tmp_path, rows, "metrics.jsonl"))
    ratio = run["ratio_mean"]
    assert ratio.proxy and ratio.source == "optim/kl_sample_train_v1"
    assert abs(float(ratio.values[-1]) - math.exp(-rows[-1]["optim/kl_sample_train_v1"])) < 1e-12
    d = diagnose(run)
    assert d.verdict == "dead" and d.top.id == "sync_failure", [f.id for f in d.findings]
    steady = read(write_jsonl(tmp_path, rows[:40], "steady.jsonl"))
    assert not any(f.id == "sync_failure" for f in diagnose(steady).findings)
    assert all("ratio_mean" not in f.missing for f in diagnose(steady).findings)


def test_a_correctness_term_under_a_new_name_is_the_goal_ahead_of_the_reward(tmp_path):
    rows = [
        {
            "step": i,
            "env/all/reward/total": 0.2 + 0.01 * i,
            "env/all/ledger/exact_match_raw": 0.1,
            "env/all/ledger/length_penalty_raw": 0.5,
        }
        for i in range(1, 41)
    ]
    run = read(write_jsonl(tmp_path, rows))
    assert run.component_kinds["exact_match_raw"] == "correctness"
    assert run.meta["goal"]["key"] == "env/all/ledger/exact_match_raw"
    assert diagnose(run).verdict != "learning"  # the reward rises, the exact match does not


def test_an_eval_metric_is_the_goal_on_its_own_cadence(tmp_path):
    rows = [{"step": i, "reward": 0.3 + 0.002 * i} for i in range(1, 101)]
    rows += [{"step": i, "eval/accuracy": 0.2 + 0.003 * i} for i in range(10, 101, 10)]
    run = read(write_jsonl(tmp_path, sorted(rows, key=lambda r: r["step"])))
    assert run.meta["goal"] == {"metric": "val_acc", "key": "eval/accuracy", "by": "reader", "why": "eval"}
    assert len(run["val_acc"]) == 10 and len(run["reward"]) == 100
    assert "goal: eval/accuracy, the eval accuracy (its own cadence)" in run.notes


def test_map_goal_overrides_the_readers_choice_and_diagnose_keeps_it(tmp_path, capsys):
    rng = np.random.default_rng(1)
    rows = [
        {"step": i, "reward": 0.2 + 0.005 * i + rng.normal(0, 0.01), "heldout_score": 0.3 + rng.normal(0, 0.01)}
        for i in range(1, 101)
    ]
    p = write_jsonl(tmp_path, rows)
    assert read(p).meta["goal"]["metric"] == "reward"
    assert diagnose(read(p)).verdict == "learning"
    run = read(p, mapping={"goal": "heldout_score"})
    assert run.meta["goal"] == {
        "metric": "component:heldout_score",
        "key": "heldout_score",
        "by": "user",
        "why": "user",
    }
    assert diagnose(run).verdict != "learning"  # the held-out score the user named stays flat
    assert cli.main(["vitals", str(p), "--map", "goal=heldout_score", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["goal"]["by"] == "user" and d["mapping"] == {"goal": "heldout_score"}
    assert cli.main(["diagnose", str(p), "--map", "goal=no_such_key"]) == 2
    assert "no key 'no_such_key'" in capsys.readouterr().err


def test_diagnose_names_unmapped_keys_and_suggests_map_lines(tmp_path, capsys):
    rows = [
        {"step": i, "avg_return": 0.2 + 0.004 * i, "approx_kl": 0.001 * i, "policy_entropy": 1.0 - 0.002 * i}
        for i in range(1, 101)
    ]
    p = write_jsonl(tmp_path, rows)
    assert cli.main(["diagnose", str(p), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "2 numeric key(s) not read as any metric: avg_return, approx_kl" in out
    assert "--map reward=avg_return" in out and "--map kl=approx_kl" in out
    assert cli.main(["diagnose", str(p), "--lang", "en", "--map", "reward=avg_return", "--map", "kl=approx_kl"]) == 0
    out = capsys.readouterr().out
    assert "not read as any metric" not in out and "reward      not logged" not in out


def test_a_renamed_entropy_estimate_gets_a_map_line(tmp_path, capsys):
    # a W&B export whose writer renamed the framework's keys to words of its own
    rows = [
        {"update": i, "answer_accuracy": 0.3 + 0.002 * i, "sampled_token_entropy_estimate": 0.6 - 0.001 * i}
        for i in range(1, 101)
    ]
    p = write_jsonl(tmp_path, rows)
    assert cli.main(["diagnose", str(p), "--lang", "en"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the report wraps to the terminal's width
    assert "--map entropy=sampled_token_entropy_estimate" in out


def test_a_log_of_loss_grad_norm_and_lr_only_is_diagnosed_not_refused(tmp_path, capsys):
    rows = []
    for i in range(1, 101):
        bad = i >= 40
        rows.append(
            {
                "step": i,
                "loss": math.nan if bad else 2.0 * math.exp(-i / 50),
                "grad_norm": math.nan if bad else 1.0,
                "learning_rate": 1e-5,
            }
        )
    p = tmp_path / "train.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")  # json writes NaN
    assert cli.main(["diagnose", str(p), "--lang", "en", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    top = d["findings"][0]
    assert top["id"] == "numeric_instability" and top["severity"] == "critical" and top["onset_step"] == 40
    assert cli.main(["diagnose", str(p), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "reward      not logged" in out and "entropy     not logged" in out


def test_formats_keys_lists_the_one_alias_table(capsys):
    from rlvitals.ingest.aliases import EXACT

    assert cli.main(["formats", "--keys"]) == 0
    out = capsys.readouterr().out
    words = set(out.replace(",", " ").split())
    assert set(EXACT) <= words
    assert "frac_reward_zero_std" in words and "(stand-in)" in out and "--map goal=KEY" in out
    assert cli.main(["formats"]) == 0 and "formats --keys" in capsys.readouterr().out


def test_a_metric_of_one_of_many_is_not_the_runs_vital():
    from rlvitals.ingest.aliases import lookup

    assert lookup("layers/12/grad_norm") is None and lookup("gpu/0/entropy") is None
    assert lookup("actor/grad_norm") is not None


def _loop_table(n: int = 40) -> str:
    """A hand-rolled loop's CSV: its own counter and plain names, TRL-style reward functions flat."""
    rng = np.random.default_rng(3)
    head = "update,reward_mean,policy_entropy_mean,completion_length_mean,reward_format_reward_func,reward_answer_reward_func,note"
    rows = [head]
    for i in range(1, n + 1):
        fmt, ans = 0.2 + 0.005 * i, 0.1 + 0.01 * i + rng.normal(0, 0.02)
        rows.append(f"{i},{fmt + ans:.4f},{1.2 - 0.005 * i:.4f},{100 + i:.1f},{fmt:.4f},{ans:.4f},text")
    return "\n".join(rows) + "\n"


def test_a_loops_plain_names_and_counter_are_read_as_what_they_are(tmp_path):
    p = tmp_path / "metrics.csv"
    p.write_text(_loop_table())
    run = read(p)
    assert run.series["reward"].steps[0] == 1 and "step_inferred" not in run.meta  # `update` is the step
    assert run.series["entropy"].source == "policy_entropy_mean"
    assert run.series["len"].source == "completion_length_mean"
    assert {k: run.component_kinds[k] for k in run.components} == {
        "format_reward_func": "format",
        "answer_reward_func": "correctness",
    }
    assert run.meta["goal"]["metric"] == "component:answer_reward_func"
    said = [str(n) for n in run.notes]
    assert any("policy_entropy_mean" in n and "entropy" in n for n in said)  # a guess is said, never silent
    # the user's --map still wins over a guess
    other = read(p, mapping={"len": "reward_mean"})
    assert other.series["len"].source == "reward_mean"


def test_watch_reads_the_same_plain_names_as_read(tmp_path):
    from rlvitals.ingest import open_parser

    text = _loop_table()
    parser = open_parser("csv", "live")
    for line in text.splitlines(keepends=True):
        parser.feed(line)
    live = parser.snapshot()
    assert live.series["entropy"].source == "policy_entropy_mean"
    p = tmp_path / "metrics.csv"
    p.write_text(text)
    assert {k: s.source for k, s in live.series.items()} == {k: s.source for k, s in read(p).series.items()}


def test_a_jsonl_loops_iter_counter_is_its_step(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text("".join(json.dumps({"iter": 10 * i, "reward": 0.1 * i, "kl_mean": 0.01}) + "\n" for i in range(1, 6)))
    run = read(p)
    assert run.series["reward"].steps.tolist() == [10, 20, 30, 40, 50]
    assert "iter" not in run.extras


@pytest.mark.parametrize(
    ("key", "name"), [("metrics/unit_test_pass_rate", "unit_test_pass_rate"), ("rewards/pass_rate/mean", "pass_rate")]
)
def test_a_pass_rate_is_a_correctness_term(key, name):
    assert component_name(key) == name and classify(name) == "correctness"


@pytest.mark.parametrize(
    ("key", "canon"),
    [
        ("pass_rate", "acc"),
        ("success_rate", "acc"),
        ("train_success", "acc"),  # a loop's share of tasks solved in its training batches
        ("train/success_rate", "acc"),
        ("answer_rate", "acc"),  # beside a format_rate: the share of answers right
        ("std_advantage", "adv_std"),  # a loop's rollout record: the advantages' spread
        ("train/reward_mean_all", "reward"),  # the mean over every sample, invalid ones too
        ("reward_scalar", "reward"),  # the weighted sum of a loop's reward terms, beside each term
        ("answer_accuracy", "acc"),
        ("train/mean_accuracy", "acc"),
        ("batch_accuracy", "acc"),
        ("accuracies", "acc"),
        ("exact_kl", "kl"),
        ("task_reward", "reward"),
        ("rollout_reward_mean", "reward"),
        ("kl_ref", "kl"),
        ("response_len", "len"),
        ("gen_len", "len"),
        ("completion_tokens", "len"),
        ("train/completion_tokens", "len"),
        ("avg_response_token_length", "len"),
        ("mean_response_length", "len"),
        ("eval/answer_accuracy", None),
        ("dev_accuracy", None),  # the dev set's: an eval metric, on its own cadence
        ("trunc_rate", "trunc"),
        ("frac_truncated", "trunc"),
        ("gradient_norm", "gnorm"),
        ("token_entropy", "entropy"),
        ("loss_kl", "kl"),
        ("kl_policy_base", "kl"),  # Tinker cookbook's KL to the base model
        ("train/kl_policy_base", "kl"),
        ("reference_kl", "kl"),  # a hand-written loop's KL to its reference model
        ("train/kl_to_reference", "kl"),
        ("eval/pass_rate", None),  # an eval metric keeps its own cadence
    ],
)
def test_a_loops_common_names_are_in_the_table(key, canon):
    assert canonical_key(key) == canon


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("format_reward", "format_reward"),
        ("accuracy_reward", "accuracy_reward"),
        ("retrieval_reward", "retrieval_reward"),
        ("mean_reward", None),  # the reward itself (the alias table's)
        ("total_reward", None),
        ("max_reward", None),  # a statistic of the reward
        ("best_reward", None),
        ("eval_reward", None),  # an eval metric
    ],
)
def test_a_flat_term_named_for_what_it_pays_is_a_component(key, name):
    assert component_name(key) == name


def test_a_loops_zero_advantage_fraction_stands_in_for_adv_std(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("step,reward_mean,zero_advantage_fraction\n" + "".join(f"{i},0.5,0.75\n" for i in range(1, 6)))
    adv = read(p).series["adv_std"]
    assert adv.proxy and adv.source == "zero_advantage_fraction"
    assert np.allclose(adv.values, 0.5)  # sqrt(1 - 0.75)


def test_an_agent_loops_episode_counter_is_its_step_when_it_has_no_other(tmp_path):
    rows = [{"episode": e, "task_id": 7 * e, "mean_reward": 0.2 + 0.01 * e, "grad_norm": 1.1} for e in range(30)]
    p = tmp_path / "history.json"
    p.write_text(json.dumps({"rows": rows}, indent=2))
    run = read(p)
    assert run.series["reward"].steps.tolist() == list(range(30)) and not run.meta.get("step_inferred")
    assert "task_id" in run.extras and "episode" not in run.extras
    # beside a step of its own, `episode` is one more column (TRL's PPO logs both)
    q = tmp_path / "m.jsonl"
    q.write_text("".join(json.dumps({"step": s, "episode": 64 * s, "reward": 0.1}) + "\n" for s in range(1, 6)))
    assert read(q).series["reward"].steps.tolist() == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(("key", "canon"), [("final_reward", "reward"), ("gold_acc", "acc"), ("gold_accuracy", "acc")])
def test_a_qualified_plain_name_is_read_as_its_quantity(tmp_path, key, canon):
    # a multi-turn episode's final reward; an over-optimisation study's accuracy on gold answers
    p = tmp_path / "m.jsonl"
    p.write_text("".join(json.dumps({"step": s, key: 0.5, "loss_at_step": 0.1}) + "\n" for s in range(1, 6)))
    run = read(p)
    assert run.series[canon].source == key
    assert any(key in str(n) for n in run.notes)  # a guess is said


def test_a_count_of_cut_answers_is_not_read_as_the_share_cut(tmp_path):
    # `truncated: 3` answers of a batch: read as the share, 3 would say every answer was cut
    p = tmp_path / "m.jsonl"
    p.write_text("".join(json.dumps({"step": s, "reward": 0.1, "truncated": s % 5}) + "\n" for s in range(1, 31)))
    run = read(p)
    assert "trunc" not in run.series and "truncated" in run.extras
    said = " ".join(str(n) for n in run.notes)
    assert "truncated not read as trunc" in said and "reach 4" in said
    assert any("不是批内占比" in localize(n, "zh") for n in run.notes)
    # the same key holding a share is the share
    q = tmp_path / "q.jsonl"
    q.write_text(
        "".join(json.dumps({"step": s, "reward": 0.1, "truncated": 0.1 * (s % 5)}) + "\n" for s in range(1, 31))
    )
    assert read(q).series["trunc"].source == "truncated"


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("gold", "correctness"),
        ("gold_reward", "correctness"),
        ("gold_score", "correctness"),
        ("true_reward", "correctness"),
        ("oracle_reward", "correctness"),
        ("gold_rm_score", "correctness"),
    ],
)
def test_a_gold_reward_is_the_truth_a_proxy_is_scored_against(key, kind):
    # reward-model over-optimisation studies train on a proxy reward model and measure a gold one
    assert component_name(key) == key and classify(key) == kind


@pytest.mark.parametrize("key", ["proxy", "proxy_reward", "proxy_score", "proxy_rm_score"])
def test_a_proxy_reward_is_the_reward_optimised(key):
    assert canonical_key(key) == "reward"


def test_a_proxy_that_climbs_while_the_gold_falls_is_cheating(tmp_path):
    # the over-optimisation curve: the proxy climbs all along, the gold rises, peaks and falls
    s = np.arange(0, 60)
    gold = 0.4 * s - 0.012 * s**2
    rows = [
        {
            "step": int(i),
            "proxy": 2.0 + 0.12 * i + 0.05 * math.sin(i),
            "gold": float(g) + 0.05 * math.cos(i),
            "kl": 0.01 + 0.002 * i,
        }
        for i, g in zip(s, gold)
    ]
    run = read(write_jsonl(tmp_path, rows))
    assert run.meta["goal"]["key"] == "gold" and run["reward"].source == "proxy"
    d = diagnose(run)
    assert d.verdict == "cheating", d.top
    # the same proxy with a gold that follows it is learning
    rows = [dict(r, gold=0.5 * r["proxy"]) for r in rows]
    d = diagnose(read(write_jsonl(tmp_path, rows, name="follows.jsonl")))
    assert d.verdict == "learning", d.top


@pytest.mark.parametrize("key", ["answer_acc", "mean_acc", "acc_mean"])
def test_a_loops_plain_accuracy_names_are_the_accuracy(key):
    # a hand-written loop's per-step dict: `{"reward_mean": 0.18, "answer_acc": 0.0, ...}`
    assert canonical_key(key) == "acc"
