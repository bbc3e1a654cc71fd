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


# W&B's "Export panel data as CSV": `<run> - <key>` columns, each with its __MIN/__MAX envelope
PANEL = (
    '"train/global_step","swift-owl-3 - train/reward","swift-owl-3 - train/reward__MIN",'
    '"swift-owl-3 - train/reward__MAX","swift-owl-3 - _step","swift-owl-3 - _step__MIN",'
    '"swift-owl-3 - _step__MAX"\n'
    '"5","0.1","0.05","0.2","50","50","50"\n'
    '"10","0.3","0.25","0.4","102","102","102"\n'
    '"15","0.5","0.45","0.6","154","154","154"\n'
)


def test_a_wandb_panel_export_reads_its_keys_without_the_run_name(tmp_path):
    path = tmp_path / "panel.csv"
    path.write_text(PANEL)
    run = read(path)
    assert run.series["reward"].source == "train/reward"
    assert run.series["reward"].steps.tolist() == [5, 10, 15]
    assert run.series["reward"].values.tolist() == [0.1, 0.3, 0.5]  # the plotted value, not the envelope
    assert not any("__MIN" in k or "__MAX" in k or "_step" in k for k in run.extras)
    assert run.skipped == {} and run.dropped == {}
    assert run.meta["wandb_panel_run"] == "swift-owl-3"
    assert any(getattr(n, "key", "") == "ingest.note.wandb_panel" for n in run.notes)


def test_a_panel_export_of_two_runs_is_two_runs_of_the_file(tmp_path):
    """Each run's own steps: a step only the other run logged is not a skipped row of this one."""
    path = tmp_path / "panel2.csv"
    path.write_text(
        "Step,a-1 - reward,a-1 - reward__MIN,a-1 - reward__MAX,b-2 - reward,b-2 - reward__MIN,b-2 - reward__MAX\n"
        "1,0.1,0.1,0.1,0.9,0.9,0.9\n"
        "2,0.2,0.2,0.2,,,\n"
        "3,,,,0.7,0.7,0.7\n"
    )
    last = read(path)
    first = read(path, run=1)
    assert (first.meta["wandb_panel_run"], last.meta["wandb_panel_run"]) == ("a-1", "b-2")
    assert first.series["reward"].steps.tolist() == [1, 2] and first.series["reward"].values.tolist() == [0.1, 0.2]
    assert last.series["reward"].steps.tolist() == [1, 3] and last.series["reward"].values.tolist() == [0.9, 0.7]
    assert first.skipped == {} and last.skipped == {}
    assert last.meta["run_count"] == 2


def test_a_table_with_a_dash_in_its_names_but_no_envelope_is_no_panel():
    run = read_text("step,loss - smoothed,reward\n1,0.5,0.1\n2,0.4,0.2\n")
    assert "loss - smoothed" in run.extras and "wandb_panel_run" not in run.meta


def test_a_quoted_cell_holding_newlines_is_one_record(tmp_path):
    # a loop that logs each step's prompt beside its metrics: the prompt's lines are not rows
    rows = ["step,prompt,reward_mean,grad_norm"]
    for s in range(12):
        rows.append(
            f'{s},"Add the numbers.\n{s} + {2 * s} = || Add again.\n""quoted"" {s} =",{0.1 * (s % 4)},{0.5 + s}'
        )
    p = tmp_path / "m.csv"
    p.write_text("\n".join(rows) + "\n")
    run = read(p)
    assert run.format == "csv" and run.series["reward"].steps.tolist() == list(range(12))
    assert np.allclose(run.series["gnorm"].values, 0.5 + np.arange(12))
    assert run.dropped == {"non-numeric cells": 12} and run.skipped == {}
    # cut inside a quoted cell: the open record is counted, never silently lost
    p.write_text("\n".join(rows) + '\n12,"Add the numbers.\n')
    cut = read(p)
    assert cut.series["reward"].steps.tolist() == list(range(12)) and cut.skipped == {
        "CSV row cut inside a quoted cell": 1
    }


def test_a_stray_quote_costs_its_own_row_only(tmp_path):
    # one cell with an unbalanced quote: no quoted cell runs on for 200 lines, so the rows after it are rows
    stray = 'say "hi'
    rows = ["step,note,reward"] + [f"{s},{stray if s == 3 else 'ok'},{0.01 * s}" for s in range(200)]
    p = tmp_path / "m.csv"
    p.write_text("\n".join(rows) + "\n")
    run = read(p)
    assert run.series["reward"].steps.tolist() == [s for s in range(200) if s != 3]
    assert run.skipped == {"malformed CSV row": 1}
    # read live, line by line, the same
    from rlvitals.ingest import open_parser

    parser = open_parser("csv", "live")
    for line in rows:
        parser.feed(line + "\n")
    assert parser.finish().series["reward"].steps.tolist() == run.series["reward"].steps.tolist()


def test_a_quoted_header_cell_holding_a_comma_is_one_column():
    # W&B exports binned metrics whose names hold a comma, quoted: the table is still recognised
    # (without --input-format), and a pass@k share beside the score is read as the accuracy
    head = '"val/fraction_in_(0.5, 1.0)",critic/score/mean,train/pass_at_8,_step'
    rows = [f"{0.1 * i:.2f},{0.2 + 0.01 * i:.3f},{0.4 + 0.005 * i:.3f},{i}" for i in range(1, 13)]
    run = read_text("\n".join([head, *rows]) + "\n")
    assert run.format == "csv" and list(run.steps[[0, -1]]) == [1, 12]
    assert run.series["acc"].source == "train/pass_at_8" and run.series["reward"].source == "critic/score/mean"
    assert abs(float(run.series["acc"].values[-1]) - 0.46) < 1e-9
