"""CSV/TSV tables, the W&B history export above all."""

from __future__ import annotations

import io
import math

import numpy as np

from rlvitals.ingest import read, read_text, write_run
from rlvitals.run import Run, Series

WANDB = (
    "reward/mean,_runtime,completion_len/mean,_step,metrics/exact_match_reward,note\n"
    "0.12,1.5,400,0,0,a\n"
    ",2.5,380,1,,b\n"
    "0.2,3.5,,2,0,c\n"
)


def test_wandb_export_blank_cells_are_gaps():
    run = read_text(WANDB)
    assert run.format == "csv"
    assert run.series["reward"].steps.tolist() == [0, 2]
    assert run.series["len"].steps.tolist() == [0, 1]
    assert run.series["acc"].is_constant and run.series["acc"].values.tolist() == [0.0, 0.0]
    assert "_step" not in run.extras and "_runtime" in run.extras
    assert run.dropped == {"non-numeric cells": 3} and run.skipped == {}  # values dropped, rows kept


def test_tsv_and_no_step_column():
    run = read_text("entropy\tkl\n1.5\t0.01\n1.4\tnan\n")
    assert run.series["entropy"].steps.tolist() == [0, 1]
    assert math.isnan(run.series["kl"].values[1])
    assert run.meta["step_inferred"] is True


def test_ragged_row_counted(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("step,loss\n1,0.5\n2,0.4,9\n3,0.3\n")
    run = read(path)
    assert run.series["loss"].steps.tolist() == [1, 3]
    assert run.skipped == {"CSV row with a wrong number of cells": 1}


def test_round_trip_exact_with_cadences():
    rng = np.random.default_rng(4)
    steps = np.arange(100)
    run = Run.from_arrays("c", steps, {"reward": rng.normal(size=100), "entropy": rng.uniform(size=100)})
    run.series["val_acc"] = Series("val_acc", steps[::10], rng.uniform(size=10))
    run.series["entropy"].values[5] = math.nan
    buf = io.StringIO()
    write_run(run, "csv", buf)
    back = read_text(buf.getvalue())
    assert back.format == "csv"
    for k, s in run.series.items():
        assert np.array_equal(back.series[k].steps, s.steps), k
        assert np.array_equal(back.series[k].values, s.values, equal_nan=True), k


def test_a_table_copied_from_a_notebooks_trainer_output_reads_its_spaced_names():
    """The Trainer's notebook table, copied as text: `completions / mean_length`, `Training Loss`,
    `No Log` cells -- read with the notebook reader's names (and the `No Log` cells counted)."""
    text = (
        "Step\tTraining Loss\treward\tcompletions / mean_length\tcompletions / clipped_ratio\trewards / env_return / mean\n"
        "1\t0.000000\t0.000000\t142.000000\t0.500000\t0.000000\n"
        "2\t-0.000000\tNo Log\t192.000000\t1.000000\t0.000000\n"
        "3\t0.001000\t0.100000\t120.500000\t0.250000\t0.100000\n"
    )
    run = read_text(text)
    assert run.format == "csv"
    assert run.series["len"].source == "completions/mean_length" and run.series["len"].values.tolist() == [
        142,
        192,
        120.5,
    ]
    assert run.series["trunc"].source == "completions/clipped_ratio"
    assert run.series["loss"].steps.tolist() == [1, 2, 3]
    assert "env_return" in run.components
    assert run.dropped == {"non-numeric cells": 1}
