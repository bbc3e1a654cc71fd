"""Flat JSON Lines (prime-rl, torchtune, rookworld-style): steps, nesting, bad lines, round trips."""

from __future__ import annotations

import io
import math

import numpy as np

from rlvitals.ingest import read, read_text, write_run
from rlvitals.run import Run


def test_flat_rows_with_step_and_restart():
    text = "".join(f'{{"step": {s}, "loss": {s * 0.1}, "mean_reward": 0.5, "kl_div": -0.01}}\n' for s in (1, 2, 3, 1, 2))
    run = read_text(text)
    assert run.format == "jsonl"
    assert run.series["reward"].source == "mean_reward" and run.series["kl"].source == "kl_div"
    assert len(run.segments) == 2 and run.segments[1].first_step == 1
    assert run.series["loss"].steps.tolist() == [1, 2, 3]
    assert run.series["loss"].values.tolist() == [0.1, 0.2, 0.30000000000000004]   # the later segment won steps 1-2


def test_nested_objects_strings_and_missing_step():
    text = ('{"reward": {"mean": 0.2}, "entropy": 1.1, "tag": "run-a", "flags": [1, 2], "ok": true}\n'
            '{"reward": {"mean": 0.3}, "entropy": 1.0, "tag": "run-a", "flags": [1, 2], "ok": false}\n')
    run = read_text(text)
    assert run.series["reward"].source == "reward/mean"
    assert run.series["reward"].steps.tolist() == [0, 1]
    assert run.meta["step_inferred"] is True and any("row number" in n for n in run.notes)
    assert run.dropped == {"non-numeric values": 6} and run.skipped == {}


def test_malformed_line_counted_and_truncated_last_line(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_text('{"step": 1, "loss": 0.5}\n{"step": 2, "loss": \n{"step": 3, "loss": 0.25}\n{"step": 4, "lo')
    run = read(path)
    assert run.series["loss"].steps.tolist() == [1, 3]
    assert run.skipped == {"malformed JSON line": 1, "truncated last line": 1}


def test_nan_and_infinity_tokens_survive():
    run = read_text('{"step": 1, "entropy": NaN, "grad_norm": Infinity}\n{"step": 2, "entropy": 0.5, "grad_norm": 1}\n')
    assert math.isnan(run.series["entropy"].values[0]) and run.series["gnorm"].values[0] == math.inf


def test_round_trip_exact():
    rng = np.random.default_rng(2)
    run = Run.from_arrays("j", np.arange(0, 40, 2), {"reward": rng.normal(size=20), "acc": rng.uniform(size=20),
                                                       "entropy": rng.uniform(size=20), "len": rng.uniform(1, 9, 20)})
    run.series["reward"].values[4] = math.nan
    buf = io.StringIO()
    write_run(run, "jsonl", buf)
    back = read_text(buf.getvalue())
    assert back.format == "jsonl"
    for k, s in run.series.items():
        assert np.array_equal(back.series[k].steps, s.steps)
        assert np.array_equal(back.series[k].values, s.values, equal_nan=True)
