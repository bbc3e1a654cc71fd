"""torchtune `Step N | key:value ` lines with tensor values."""

from __future__ import annotations

import io
import math

import numpy as np
from dictlog_helpers import assert_same_series, round_trip, synthetic_run

from rlvitals.ingest import read_text, sniff_text, write_run


def test_tensor_values_and_canonical_keys():
    text = (
        "Step 1 | rewards:tensor(0.4375, device='cuda:0') successes:tensor(0.2500, device='cuda:0') "
        "response_lengths:tensor(212.5000, device='cuda:0') kl_loss:tensor(0.0012, device='cuda:0') "
        "clipfrac:tensor(0., device='cuda:0') ratios:tensor(1.0000, device='cuda:0') "
        "num_stop_tokens:tensor(14, device='cuda:0') policy_loss:tensor(-0.0100, device='cuda:0') \n"
        "Step 2 | rewards:0.5 successes:0.3 response_lengths:230.0 kl_loss:tensor(nan, device='cuda:0') \n"
    )
    assert sniff_text(text) == "torchtune"
    run = read_text(text)
    assert list(run.series["reward"].values) == [0.4375, 0.5]
    assert run.series["acc"].values[0] == 0.25 and run.series["len"].values[1] == 230.0
    assert run.series["clip_frac"].values[0] == 0.0 and run.series["ratio_mean"].values[0] == 1.0
    assert math.isnan(run.series["kl"].values[1])
    assert run.extras["num_stop_tokens"].values[0] == 14.0  # a count, kept as an extra
    assert "trunc" not in run.series


def test_primerl_console_is_not_torchtune_and_bad_values_are_counted():
    text = "Step 12 |   41.2s | Loss 0.0102 | Entropy 0.4410\nStep 3 | rewards:0.1 successes:oops \n"
    run = read_text(text, "torchtune")
    assert list(run.series["reward"].steps) == [3]
    assert run.dropped == {"non-numeric values": 1} and run.skipped == {}


def test_round_trip():
    run = synthetic_run()
    back = round_trip(run, "torchtune")
    assert_same_series(run, back, ["reward", "acc", "kl", "clip_frac", "ratio_mean", "len", "loss"])


def test_lr_and_grad_norm_as_the_recipe_logs_them():
    """grpo_full_finetune_distributed adds `lr` and, with clip_grad_norm set (1.0 in the shipped
    configs), `grad_norm` (the norm before clipping) to every logged step."""
    text = "".join(
        f"Step {s} | rewards:tensor(0.43, device='cuda:0') successes:tensor(0.25, device='cuda:0') "
        f"num_stop_tokens:tensor(16, device='cuda:0') lr:1e-05 "
        f"grad_norm:tensor({g}, device='cuda:0') \n"
        for s, g in ((1, 0.31), (2, 41.5))
    )
    run = read_text(text, "torchtune")
    assert list(run.series["gnorm"].values) == [0.31, 41.5]
    assert run.series["lr"].values[0] == 1e-05


def test_writer_logs_what_the_recipe_logs():
    run = synthetic_run()
    text = io.StringIO()
    write_run(run, "torchtune", text)
    line = text.getvalue().splitlines()[0]
    for key in ("rewards:", "successes:", "num_stop_tokens:", "grad_norm:", "lr:", "kl_loss:", "ratios:"):
        assert key in line
    back = read_text(text.getvalue(), "torchtune")
    assert_same_series(run, back, ["gnorm", "lr"])
    assert "trunc" not in back.series and "entropy" not in back.series  # not logged by torchtune
    stopped = back.extras["num_stop_tokens"].values
    assert set(np.unique(stopped)) <= set(range(17))  # a count out of 16 answers
