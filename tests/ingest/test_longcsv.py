"""Long ("tidy") CSV tables: one row per logged value, turned back into one row per step."""

from __future__ import annotations

import math

import pytest

from rlvitals.errors import InputError
from rlvitals.ingest import read, read_text
from rlvitals.ingest.longcsv import read_long_csv

# a W&B history melted to rows: metric by metric, each in its own step order, bookkeeping beside
MELTED = (
    "project,run_id,run_name,state,history_line_count,metric,step,logical_step,value,timestamp,runtime\n"
    "p,a1,sweep_lr_low,finished,9,eval/accuracy,4,1,0.25,1700000100,100\n"
    "p,a1,sweep_lr_low,finished,9,eval/accuracy,8,2,0.375,1700000200,200\n"
    "p,a1,sweep_lr_low,finished,9,train/total_reward,0,1,0.5,1700000000,0\n"
    "p,a1,sweep_lr_low,finished,9,train/total_reward,1,2,0.625,1700000010,10\n"
    "p,a1,sweep_lr_low,finished,9,train/total_reward,2,3,0.75,1700000020,20\n"
    "p,a1,sweep_lr_low,finished,9,train/entropy,0,1,1.5,1700000000,0\n"
    "p,a1,sweep_lr_low,finished,9,train/entropy,2,2,1.25,1700000020,20\n"
    "p,b2,sweep_lr_high,killed,9,train/total_reward,0,1,0.5,1700000000,0\n"
    "p,b2,sweep_lr_high,killed,9,train/total_reward,1,2,0.0,1700000010,10\n"
    "p,b2,sweep_lr_high,killed,9,train/entropy,1,1,3.5,1700000010,10\n"
)


def test_a_melted_history_is_read_back_one_row_per_step_run_by_run(tmp_path):
    path = tmp_path / "history_long.csv"
    path.write_text(MELTED)
    run = read(path)
    assert run.format == "csv-long"
    # the last run of the file by default, each run knowing the others
    assert run.meta["run_index"] == 2 and run.meta["run_count"] == 2
    assert run.series["reward"].steps.tolist() == [0, 1] and run.series["reward"].values.tolist() == [0.5, 0.0]
    first = read(path, run=1)
    assert first.series["reward"].values.tolist() == [0.5, 0.625, 0.75]
    assert first.series["entropy"].steps.tolist() == [0, 2]  # a gap, not a zero
    assert first.series["val_acc"].steps.tolist() == [4, 8]
    # the rows' bookkeeping (a per-metric index, W&B's line count, clocks) is no metric of the run
    assert not {"history_line_count", "logical_step", "runtime", "timestamp"} & set(first.extras)
    assert "sweep_lr_low" in first.name


def test_tbparse_scalars_with_the_frame_index_read_as_a_long_table():
    # pandas' to_csv keeps the frame's index as a first column with no name
    text = ",step,tag,value\n0,10,train/reward,0.25\n1,10,train/kl,0.001\n2,20,train/reward,0.5\n3,20,train/kl,0.002\n"
    run = read_text(text)
    assert run.format == "csv-long"
    assert run.series["reward"].steps.tolist() == [10, 20]
    assert run.series["kl"].values.tolist() == [0.001, 0.002]


def test_mlflow_metric_history_later_write_of_a_step_wins_by_its_time():
    text = "key\tvalue\ttimestamp\tstep\nreward\t0.9\t2000\t3\nreward\t0.1\t1000\t3\nreward\t0.2\t1500\t4\n"
    run = read_text(text)
    assert run.format == "csv-long"
    assert run.series["reward"].steps.tolist() == [3, 4]
    assert run.series["reward"].values.tolist() == [0.9, 0.2]  # written at 2000, after the 0.1 of 1000


def test_rows_it_cannot_read_are_counted_never_read():
    text = (
        "step,metric,value\n"
        "0,reward,0.5\n"
        "1,reward,not a number\n"
        "x,reward,0.6\n"
        "2,,0.7\n"
        "3,reward,1e999\n"
        "4,reward\n"
        "5,reward,nan\n"
        "6,reward,0.8\n"
    )
    run = read_text(text)
    assert run.series["reward"].steps.tolist() == [0, 5, 6]
    assert math.isnan(run.series["reward"].values[1])  # a logged NaN is evidence, kept
    assert run.skipped == {
        "long-table row without a numeric value": 1,
        "CSV row without a step": 1,
        "long-table row without a metric name": 1,
        "value out of range": 1,
        "CSV row with a wrong number of cells": 1,
    }


def test_a_wide_table_is_not_taken_for_a_long_one():
    # a `value` column beside a step, but the cells under `name` are numbers: a wide table
    run = read_text("step,name,value\n0,1,0.5\n1,2,0.6\n")
    assert run.format == "csv"
    assert read_text("_step,reward,entropy\n0,0.1,1.0\n").format == "csv"


def test_a_header_without_its_three_columns_is_one_line_error(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("step,reward\n0,0.1\n")
    with pytest.raises(InputError, match="not a long table"):
        read_long_csv(path, "t")
