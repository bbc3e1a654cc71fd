"""TRL console (steps inferred) and trainer_state.json: the two real logs pinned, edge cases, round trips."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from dictlog_helpers import assert_same_series, round_trip, synthetic_run
from realdata import REAL_LOGS

from rlvitals.errors import InputError
from rlvitals.ingest import read, read_text, sniff_text, write_run

ROW = "{{'loss': 0.01, 'grad_norm': 0.3, 'learning_rate': 1e-06, 'reward': {r}, 'entropy': 0.4, 'epoch': {e}}}"


def console(n: int, every: int = 10, total: int = 100, bars: bool = False) -> str:
    lines = []
    for i in range(1, n + 1):
        if bars:
            lines.append(f"\r  {i}%|          | {i * every}/{total} [00:10<00:20,  1.00it/s]")
        lines.append(ROW.format(r=0.1 * i, e=round(i * every / total, 2)))
    return "\n".join(lines) + "\n"


# -- the real logs -------------------------------------------------------------------------------
def test_real_collapse_log_steps_from_the_tqdm_counter():
    run = read(REAL_LOGS["trl_collapse"])
    assert run.format == "trl-console"
    assert run.n_steps == 49
    assert run.steps[0] == 10 and run.steps[-1] == 490 and np.all(np.diff(run.steps) == 10)
    assert run.meta["step_inferred"] is True and run.meta["logging_steps"] == 10
    assert "tqdm" in run.meta["step_source"]
    ent, ln, adv = run.series["entropy"], run.series["len"], run.series["adv_std"]
    assert ent.values[0] == pytest.approx(0.9559, abs=1e-4) and ent.values[-1] == pytest.approx(0.0376, abs=1e-4)
    assert ln.source == "completions/mean_length" and ln.values[0] == 53.35 and ln.values[-1] == 4.3
    assert adv.proxy and adv.source == "frac_reward_zero_std"
    assert adv.values[0] == pytest.approx(math.sqrt(1 - 0.4)) and adv.values[-1] == 0.0
    assert run.series["trunc"].source == "completions/clipped_ratio" and run.series["trunc"].is_constant
    assert run.series["clip_frac"].is_constant and run.series["clip_frac"].values[0] == 0.0
    # the think-format reward died while the answer reward rose: both kept as extras
    assert run.extras["rewards/think_format_reward/mean"].values[-1] == 0.0
    assert run.extras["rewards/mc_idx_reward/mean"].values[-1] == 0.9
    assert "attention/all/mdi" in run.extras
    assert run.skipped == {}


def test_real_truncated_log_steps_from_epoch_and_the_pinned_length():
    run = read(REAL_LOGS["trl_truncated"])
    assert run.format == "trl-console"
    assert run.n_steps == 50 and run.steps[0] == 1 and run.steps[-1] == 50
    assert "1869 update steps per epoch" in run.meta["step_source"] and run.meta["logging_steps"] == 1
    assert run.skipped == {"end-of-training summary": 1}
    for name in ("reward", "kl", "gnorm", "loss"):
        s = run.series[name]
        assert len(s) == 50 and s.is_constant and s.values[0] == 0.0, name
    assert run.series["len"].source == "completion_length"
    assert run.series["len"].values[0] == 256.0 and run.series["len"].values[36] == 225.1
    assert "trunc" not in run.series  # not logged, not invented
    assert run.meta["len_at_max"] == {"value": 256.0, "steps": 49, "of": 50}
    assert any("equals its maximum 256" in n for n in run.notes)
    assert run.extras["rewards/reward_fn"].is_constant
    assert run.series["lr"].values[-1] == pytest.approx(2.128e-06)
    # the tokenizer's "Updated tokens: {...}" dict inside a sentence is not a row
    assert "eos_token_id" not in run.extras


# -- step inference --------------------------------------------------------------------------------
def test_no_evidence_uses_default_logging_steps_and_says_so():
    run = read_text(console(5))
    assert list(run.steps) == [10, 20, 30, 40, 50]
    assert run.meta["step_inferred"] is True and "default logging_steps=10" in run.meta["step_source"]
    assert any("steps inferred" in n for n in run.notes)


def test_finished_run_with_total_gives_logging_steps():
    text = (
        "  Total optimization steps = 20\n"
        + console(4, every=5, total=20)
        + "{'train_runtime': 12.0, 'train_samples_per_second': 1.0, 'train_steps_per_second': 0.1, 'train_loss': 0.0, 'epoch': 1.0}\n"
    )
    run = read_text(text, "trl-console")
    assert list(run.steps) == [5, 10, 15, 20] and run.meta["logging_steps"] == 5
    assert run.skipped["end-of-training summary"] == 1


def test_tqdm_counter_on_the_same_line_with_carriage_returns():
    text = "".join(
        f"\r  5%|5  | {s - 1}/200 [00:01<00:10]\r  5%|5  | {s}/200 [00:02<00:10, 1.0it/s]"
        f"\r                \r{ROW.format(r=s / 100, e=0.0)}\n"
        for s in (7, 14, 21)
    )
    run = read_text(text, "trl-console")
    assert list(run.steps) == [7, 14, 21] and run.meta["logging_steps"] == 7
    assert list(run.series["reward"].values) == [0.07, 0.14, 0.21]


def test_dicts_printed_after_the_bar_finished_fall_back():
    # stdout buffered: every dict saw the same final counter, which says nothing about their steps
    text = "\r100%|##| 30/30 [00:30<00:00]\n" + console(3, every=10, total=30)
    run = read_text(text, "trl-console")
    assert "tqdm" not in run.meta["step_source"] and list(run.steps) == [10, 20, 30]


def test_explicit_step_key_wins():
    text = "".join("{" + f"'reward': 0.{i}, 'step': {i * 3}, 'epoch': 0.1" + "}\n" for i in range(1, 4))
    run = read_text(text, "trl-console")
    assert list(run.steps) == [3, 6, 9] and run.meta["step_inferred"] is False


def test_resumed_run_counter_goes_back_makes_segments():
    first = "".join(f"\r {s}/100 [00:01<00:10]\n{ROW.format(r=0.1, e=0.1)}\n" for s in (10, 20, 30))
    # resumed from the checkpoint at 10: the bar is drawn again from 10, the rows come at 20 and 30
    second = "\r 10/100 [00:00<00:10]\n" + "".join(
        f"\r {s}/100 [00:01<00:10]\n{ROW.format(r=0.9, e=0.1)}\n" for s in (20, 30)
    )
    run = read_text(first + second, "trl-console")
    assert list(run.steps) == [10, 20, 30] and len(run.segments) == 2
    assert list(run.series["reward"].values) == [0.1, 0.9, 0.9]  # the later segment wins


# -- rows that are not train rows ----------------------------------------------------------------------
def test_eval_dicts_are_extras_and_do_not_advance_the_count():
    text = (
        ROW.format(r=0.1, e=0.1)
        + "\n"
        + "{'eval_loss': 0.5, 'eval_reward': 0.33, 'epoch': 0.1}\n"
        + ROW.format(r=0.2, e=0.2)
        + "\n"
    )
    run = read_text(text, "trl-console")
    assert list(run.series["reward"].steps) == [10, 20]
    ev = run.extras["eval_reward"]
    assert list(ev.steps) == [10] and ev.values[0] == 0.33
    assert "reward" in run.series and run.series["reward"].source == "reward"


def test_none_becomes_nan_strings_are_counted_truncated_line_skipped():
    text = (
        "{'loss': 0.0, 'reward': 0.5, 'kl': None, 'optim': 'adamw', 'epoch': 0.1}\n"
        "{'loss': 0.0, 'reward': 0.6, 'kl': 0.001, 'epoch': 0.2}\n"
        "{'loss': 0.0, 'reward': 0.7, 'kl"
    )
    run = read_text(text, "trl-console")
    kl = run.series["kl"]
    assert math.isnan(kl.values[0]) and kl.values[1] == 0.001
    assert run.skipped == {"truncated or malformed dict": 1}
    assert run.dropped == {"non-numeric values": 1}
    assert len(run.series["reward"]) == 2


def test_quoted_numbers_as_recent_transformers_print_them():
    run = read_text("{'loss': '0', 'reward': '0.25', 'learning_rate': '4.255e-06', 'epoch': '0.01'}\n", "trl-console")
    assert run.series["reward"].values[0] == 0.25 and run.series["lr"].values[0] == 4.255e-06


def test_no_pinned_length_note_when_length_moves():
    text = "".join(
        "{" + f"'completions/mean_length': {100 + i}.0, 'reward': 0.1, 'epoch': 0.1" + "}\n" for i in range(10)
    )
    run = read_text(text, "trl-console")
    assert "len_at_max" not in run.meta and not any("maximum" in n for n in run.notes)


def test_sniff():
    assert sniff_text(console(3)) == "trl-console"
    assert sniff_text("Updated tokens: {'eos_token_id': 1}\nhello\n") is None


# -- round trips -----------------------------------------------------------------------------------
def test_console_round_trip():
    run = synthetic_run()
    back = round_trip(run, "trl-console")
    assert back.meta["step_inferred"] is True
    assert_same_series(
        run, back, ["reward", "acc", "entropy", "kl", "clip_frac", "ratio_mean", "len", "gnorm", "trunc", "lr", "loss"]
    )
    assert_same_series(run, back, ["adv_std"], atol=1e-12)  # through frac_reward_zero_std
    assert back.series["adv_std"].proxy and back.series["ratio_mean"].proxy


def test_trainer_state_round_trip_and_read(tmp_path):
    run = synthetic_run(steps=12)
    path = tmp_path / "trainer_state.json"
    write_run(run, "trl-state", path)
    back = read(path)
    assert back.format == "trl-state" and back.meta["step_inferred"] is False
    assert_same_series(run, back, ["reward", "entropy", "kl", "len", "gnorm", "lr"])


def test_trainer_state_eval_summary_and_none(tmp_path):
    doc = {
        "global_step": 20,
        "logging_steps": 10,
        "log_history": [
            {"loss": 0.1, "reward": 0.2, "kl": None, "epoch": 0.5, "step": 10},
            {"eval_loss": 0.3, "eval_reward": 0.25, "epoch": 0.5, "step": 10},
            {"loss": 0.1, "reward": 0.4, "kl": 0.002, "epoch": 1.0, "step": 20},
            {"train_runtime": 10.0, "train_loss": 0.1, "epoch": 1.0, "step": 20},
            {"loss": 0.1},
        ],
    }
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps(doc))
    run = read(path)
    assert list(run.series["reward"].values) == [0.2, 0.4] and list(run.series["reward"].steps) == [10, 20]
    assert math.isnan(run.series["kl"].values[0])
    assert run.extras["eval_reward"].values[0] == 0.25
    assert run.skipped == {"end-of-training summary": 1, "log_history entry without step": 1}
    assert run.meta["logging_steps"] == 10 and run.meta["global_step"] == 20


def test_trainer_state_bad_input_is_one_line(tmp_path):
    p = tmp_path / "trainer_state.json"
    p.write_text('{"log_history": [')
    with pytest.raises(InputError, match="not valid JSON"):
        read(p, "trl-state")
    p.write_text('{"best_metric": null}')
    with pytest.raises(InputError, match="no log_history"):
        read(p, "trl-state")


# -- reading files and following them ------------------------------------------------------------------
def test_cut_last_line_of_a_file_is_counted_as_truncated(tmp_path):
    p = tmp_path / "train.log"
    p.write_text(console(3) + "{'loss': 0.01, 'grad_norm': 0.3, 'rew")
    run = read(p)
    assert run.format == "trl-console" and len(run.series["reward"]) == 3
    assert run.skipped == {"truncated last line": 1}


def test_incremental_parser_for_watch():
    from rlvitals.ingest import open_parser

    parser = open_parser("trl-console", "live")
    lines = [x + "\n" for x in console(4, bars=True).split("\n")[:-1]]
    added = [parser.feed(line) for line in lines[:4]]
    assert added == [False, True, False, True]  # bar lines add no row, dict lines do
    assert list(parser.snapshot().series["reward"].steps) == [10, 20]
    for line in lines[4:]:
        parser.feed(line)
    assert list(parser.snapshot().series["reward"].steps) == [10, 20, 30, 40]


@pytest.mark.parametrize(
    "total,rows,expected", [(50, 50, 1), (500, 50, 10), (505, 50, 10), (100, 4, 25), (1000, 3, 300)]
)
def test_logging_steps_from_total_and_row_count(total, rows, expected):
    text = (
        f"  Total optimization steps = {total:,}\n"
        + console(rows, every=1, total=total)
        + "{'train_runtime': 1.0, 'train_loss': 0.0, 'epoch': 1.0}\n"
    )
    run = read_text(text, "trl-console")
    assert run.meta["logging_steps"] == expected
    assert run.steps[-1] == expected * rows


def test_dicts_after_a_rank_prefix_are_rows_other_dicts_in_sentences_are_not():
    text = (
        "[rank0]: {'loss': 0.0, 'reward': 0.5, 'epoch': 0.1}\n"
        "Generation config: {'max_new_tokens': 256, 'temperature': 1.0}\n"
        "[rank0]: {'loss': 0.0, 'reward': 0.6, 'epoch': 0.2}\n"
        "Sampling params: {'n': 8, 'stop': ['</s>'\n"
        "[rank0]: {'loss': 0.0, 'reward': 0.7, 'ep\n"
    )
    assert sniff_text(text) == "trl-console"
    run = read_text(text, "trl-console")
    assert list(run.series["reward"].values) == [0.5, 0.6] and "temperature" not in run.extras
    assert run.skipped == {"truncated or malformed dict": 1}


def test_writer_keeps_eval_keys_in_their_own_dicts():
    from rlvitals.run import Series

    run = synthetic_run(steps=20)
    run.extras["eval_reward"] = Series("eval_reward", np.array([10, 20]), np.array([0.3, 0.4]))
    back = round_trip(run, "trl-console")
    assert list(back.extras["eval_reward"].steps) == [10, 20] and list(back.extras["eval_reward"].values) == [0.3, 0.4]
    assert_same_series(run, back, ["reward", "entropy"])
    assert any("2 eval dicts" in n for n in back.notes)


def test_eval_accuracy_survives_both_trl_writers(tmp_path):
    # held-out runs written as TRL logs lost their eval accuracy (the writers had no key for val_acc),
    # so the diagnosis fell back from eval/accuracy to the training acc and misread reward hacking
    from rlvitals.run import Series

    run = synthetic_run(steps=40)
    run.series["val_acc"] = Series("val_acc", np.array([10, 20, 30, 40]), np.array([0.31, 0.29, 0.27, 0.25]))
    path = tmp_path / "trainer_state.json"
    write_run(run, "trl-state", path)
    state = read(path)
    assert_same_series(run, state, ["val_acc", "reward", "acc"])
    assert "eval_accuracy" in state.evals  # kept as an eval metric, not a training vital
    console = round_trip(run, "trl-console")  # steps inferred (TRL prints none): values and order
    np.testing.assert_allclose(console.series["val_acc"].values, [0.31, 0.29, 0.27, 0.25])
    assert list(np.searchsorted(console.series["reward"].steps, console.series["val_acc"].steps) + 1) == [
        10,
        20,
        30,
        40,
    ]


def test_a_log_that_starts_at_step_0_keeps_its_steps():
    """A run converted from a trainer that logs step 0 (verl): the bar reads 0/T before the first
    dict, then rises at every row -- the counter is still the step (it was read as line order x 10)."""
    bar = "\r{pct:3d}%|          | {n}/5 [00:00<00:00,  1.00it/s]\n"
    text = "".join(
        bar.format(pct=20 * n, n=n) + str({"reward": 0.1 * n, "epoch": round(n / 5, 2)}) + "\n" for n in range(6)
    )
    run = read_text(text, "trl-console")
    assert list(run.series["reward"].steps) == [0, 1, 2, 3, 4, 5]
    assert "tqdm counter" in run.meta["step_source"]


@pytest.mark.parametrize(
    ("rows", "runtime", "rate", "every"),
    [(40, "340", "0.118", 1), (40, "3400.5", "0.1176", 10), (12, "95.1", "0.631", 5)],
)
def test_logging_steps_from_the_summarys_runtime_and_rate(rows, runtime, rate, every):
    """No bar and no "Total optimization steps": the end-of-training summary's runtime x steps per
    second (quoted, as recent transformers print it) says how many steps the rows cover."""
    text = console(rows, every=1) + (
        f"{{'train_runtime': '{runtime}', 'train_samples_per_second': '0.94', "
        f"'train_steps_per_second': '{rate}', 'train_loss': '0.1178', 'epoch': '0.3604'}}\n"
    )
    run = read_text(text, "trl-console")
    assert run.meta["logging_steps"] == every and run.steps[-1] == every * rows
    assert f"logging_steps={every}" in run.meta["step_source"]


def test_a_dataset_bar_finished_before_training_is_not_the_training_bar():
    """A dataset's map bar (5000/5000, drawn once before training) beside the training bar (…/120),
    the dicts flushed in bursts between its redraws: the rows' steps come from the bar whose counter
    moved along them (24 rows in 120 steps: every 5), not from the largest total on screen."""
    lines = ["Map: 100%|##########| 5000/5000 [00:01<00:00, 3921.55 examples/s]"]
    for i in range(1, 25):
        if i % 3 == 1:
            lines.append(f"\r {4 * i}%|#         | {5 * i - 2}/120 [00:{i:02d}<01:00,  1.00it/s]")
        lines.append(ROW.format(r=0.02 * i, e=round(5 * i / 120, 2)))
    lines.append(
        "{'train_runtime': 1200.5, 'train_samples_per_second': 0.8, 'train_steps_per_second': 0.1, "
        "'train_loss': 0.01, 'epoch': 1.0}"
    )
    run = read_text("\n".join(lines) + "\n", "trl-console")
    assert run.meta["logging_steps"] == 5 and list(run.series["reward"].steps[[0, -1]]) == [5, 120]
