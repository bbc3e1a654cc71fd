"""verl console (old and new spellings) and verl's file logger JSONL."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from rlvitals.ingest import open_parser, read_text, sniff_text, write_run
from rlvitals.run import Run, Series

OLD = (
    "\x1b[36m(main_task pid=54569)\x1b[0m step:0 - timing/gen:18.859 - critic/kl:-0.000 - critic/lr(1e-4):0.100 - "
    "actor/entropy_loss:0.526 - actor/pg_clipfrac:0.000 - critic/score/mean:0.012 - critic/rewards/mean:0.011 - "
    "response_length/mean:301.5 - val/test_score/openai/gsm8k:0.013\n"
    "\x1b[36m(main_task pid=54569)\x1b[0m Let's solve this step by step:\n"
    "\x1b[36m(main_task pid=54569)\x1b[0m step:1 - timing/gen:20.434 - critic/kl:0.001 - critic/lr(1e-4):0.100 - "
    "actor/entropy_loss:0.481 - actor/pg_clipfrac:0.001 - critic/score/mean:0.004 - critic/rewards/mean:0.003 - "
    "response_length/mean:290.0\n"
    "\x1b[36m(main_task pid=54569)\x1b[0m \"Final validation metrics: {'test_score/openai/gsm8k': 0.5685975609756098}\"\n"
)

NEW = (
    "\x1b[36m(TaskRunner pid=46086)\x1b[0m step:0 - val-core/econ/reward/mean@1:np.float64(0.0123) - "
    "val-aux/econ/score/mean@1:np.float64(0.5)\n"
    "\x1b[36m(TaskRunner pid=46086)\x1b[0m \rTraining Progress:   0%|          | 0/700 [00:00<?, ?it/s]\n"
    "\x1b[36m(TaskRunner pid=46086)\x1b[0m step:1 - actor/entropy:0.14733360707759857 - "
    "actor/pg_clipfrac:np.float64(0.0) - actor/pg_loss:np.float64(-0.00013839505845680833) - "
    "actor/grad_norm:np.float64(nan) - critic/score/mean:0.13281677663326263 - response_length/mean:18.25\n"
    "(TaskRunner pid=46087) step:1 - actor/entropy:0.14733360707759857 - "
    "actor/pg_clipfrac:np.float64(0.0) - actor/pg_loss:np.float64(-0.00013839505845680833) - "
    "actor/grad_norm:np.float64(nan) - critic/score/mean:0.13281677663326263 - response_length/mean:18.25\n"
    "\x1b[36m(TaskRunner pid=46086)\x1b[0m step:2 - actor/entropy:0.1402287483215332 - "
    "actor/pg_clipfrac:np.float64(0.0) - actor/pg_loss:np.float64(-3.5e-05) - actor/grad_norm:np.float64(0.0073) - "
    "critic/score/mean:-0.0781102254986763 - response_length/mean:17.625 - "
    "val-core/econ/reward/mean@1:np.float64(0.05)\n"
)


def test_old_style():
    run = read_text(OLD)
    assert run.format == "verl-console"
    assert run.series["entropy"].source == "actor/entropy_loss"
    assert run.series["entropy"].values.tolist() == [0.526, 0.481]
    assert run.series["kl"].source == "critic/kl" and run.series["kl"].values.tolist() == [-0.0, 0.001]
    # the raw score wins over the KL-shaped reward
    assert run.series["reward"].source == "critic/score/mean"
    assert "critic/rewards/mean" in run.extras
    # a key with brackets keeps its name; validation keeps its own cadence
    assert run.extras["critic/lr(1e-4)"].values.tolist() == [0.1, 0.1]
    assert run.series["val_acc"].steps.tolist() == [0]
    assert run.meta["final_validation"] == {"test_score/openai/gsm8k": 0.5685975609756098}
    assert run.skipped == {"not a metric line": 1}


def test_new_style_validation_line_duplicates_and_nan():
    run = read_text(NEW)
    assert run.format == "verl-console"
    assert run.series["entropy"].values.tolist() == [0.14733360707759857, 0.1402287483215332]
    assert run.series["loss"].values.tolist() == [-0.00013839505845680833, -3.5e-05]
    assert run.series["clip_frac"].is_constant
    assert math.isnan(run.series["gnorm"].values[0])  # a logged NaN is kept
    assert run.series["val_acc"].steps.tolist() == [0, 2]  # step 0 holds validation only
    assert run.series["val_acc"].values.tolist() == [0.0123, 0.05]
    assert run.series["reward"].steps.tolist() == [1, 2]  # the rank's duplicate line merged
    assert run.skipped == {"not a metric line": 1}


def test_unreadable_values_are_counted():
    run = read_text("step:1 - a/b:0.5 - c/d:hello - e/f:np.float64(0.25)\nstep:2 - a/b:0.6\n", "verl-console")
    assert run.extras["a/b"].values.tolist() == [0.5, 0.6]
    assert run.extras["e/f"].values.tolist() == [0.25]
    assert run.dropped == {"unreadable key:value": 1} and run.skipped == {}


def _run(n=30) -> Run:
    rng = np.random.default_rng(1)
    steps = np.arange(1, n + 1)
    cols = {
        "reward": rng.normal(0.3, 0.1, n),
        "acc": rng.uniform(0, 1, n),
        "entropy": rng.uniform(0.1, 1, n),
        "kl": rng.uniform(0, 0.01, n),
        "clip_frac": np.zeros(n),
        "len": rng.uniform(10, 500, n),
        "gnorm": rng.lognormal(0, 1, n),
        "trunc": rng.uniform(0, 0.2, n),
        "lr": np.full(n, 1e-6),
        "loss": rng.normal(0, 0.01, n),
    }
    cols["gnorm"][3] = math.nan
    cols["ratio_mean"] = 1.0 + rng.normal(0, 1e-3, n)
    run = Run.from_arrays("v", steps, cols)
    run.series["val_acc"] = Series("val_acc", steps[::5], rng.uniform(0, 1, steps[::5].size))
    return run


@pytest.mark.parametrize("fmt", ["verl-console", "verl-jsonl"])
def test_round_trip_exact(fmt):
    run = _run()
    buf = io.StringIO()
    write_run(run, fmt, buf)
    assert sniff_text(buf.getvalue()) == fmt
    back = read_text(buf.getvalue())
    assert back.format == fmt
    # verl logs no training accuracy and no advantage spread (compute_data_metrics: critic/score,
    # critic/rewards, critic/advantages/mean|max|min, response_length/*): they are not written
    assert "acc" not in back.series and "adv_std" not in back.series
    assert "critic/correct/mean" not in buf.getvalue() and "advantages/std" not in buf.getvalue()
    assert back.series["ratio_mean"].source == "rollout_corr/rollout_is_mean" and back.series["ratio_mean"].proxy
    for k, s in run.series.items():
        if k in ("acc", "adv_std"):
            continue
        assert np.array_equal(back.series[k].steps, s.steps), k
        # both carry full precision (repr / JSON); NaN survives (np.float64(nan) / null)
        assert np.array_equal(back.series[k].values, s.values, equal_nan=True), k
    assert back.series["reward"].source == "critic/score/mean"


@pytest.mark.parametrize("fmt", ["verl-console", "verl-jsonl"])
def test_reward_functions_and_other_keys_are_written_as_logged(fmt):
    """A reward function's mean (read as acc: `rewards/correctness/mean`) and the run's other keys
    appear in the verl log under their own names, as verl prints whatever the trainer's dict holds."""
    run = _run()
    del run.series["acc"]
    steps = run.series["reward"].steps
    run.series["acc"] = Series("acc", steps, np.linspace(0.1, 0.6, steps.size), "rewards/correctness/mean")
    run.extras["frac_reward_zero_std"] = Series(
        "frac_reward_zero_std", steps, np.full(steps.size, 0.2), "frac_reward_zero_std"
    )
    buf = io.StringIO()
    write_run(run, fmt, buf)
    back = read_text(buf.getvalue(), fmt)
    assert back.series["acc"].source == "rewards/correctness/mean"
    assert np.allclose(back.series["acc"].values, run.series["acc"].values)
    assert "correctness" in back.components
    assert back.series["adv_std"].source == "frac_reward_zero_std"  # the proxy verl users get only so


def test_verl_jsonl_null_is_nan_and_nested_data():
    text = (
        '{"step": 1, "data": {"actor/entropy": 0.5, "actor/grad_norm": null, "critic/score/mean": 0.1}}\n'
        '{"step": 2, "data": {"actor/entropy": 0.4, "actor/grad_norm": 1.5, "critic/score/mean": 0.2}}\n'
    )
    run = read_text(text)
    assert run.format == "verl-jsonl"
    assert math.isnan(run.series["gnorm"].values[0]) and run.series["gnorm"].values[1] == 1.5
    assert run.series["entropy"].values.tolist() == [0.5, 0.4]


def test_big_line_equals_careful_loop():
    """The C-level fast path and the per-value loop give the same row."""
    p = open_parser("verl-console")
    keys = [f"k{i}/x" for i in range(60)]
    line = "step:7 - " + " - ".join(
        f"{k}:np.float64({i * 0.1!r})" if i % 2 else f"{k}:{i * 0.1!r}" for i, k in enumerate(keys)
    )
    p.feed(line)
    run = p.snapshot()
    assert [run.extras[k].values[0] for k in keys] == [i * 0.1 for i in range(60)]
    assert json.dumps(run.skipped) == "{}"
