"""What `vitals` and `diagnose` say about what was read: values dropped from kept lines are counted
as values (not as skipped lines), a key is listed once, both commands show the same start → end,
and a CSV with only its header says that no metric value was found."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.errors import NoMetrics
from rlvitals.ingest import read, read_text
from rlvitals.render import render_diagnosis, render_vitals
from rlvitals.render.jsonout import render_json
from rlvitals.shapes import classify
from rlvitals.simulate import simulate


def _log_with_text_values(n: int = 30) -> str:
    return "".join(f"[{i}] reward=0.{i:02d} acc=bad{i} entropy=1.{i:02d}\n" for i in range(1, n + 1))


def test_text_values_are_counted_as_values_and_their_lines_kept():
    run = read_text(_log_with_text_values(30), "lesson")
    assert run.dropped == {"unreadable value": 30}
    assert run.skipped == {}
    assert len(run.series["reward"]) == 30  # every line kept
    text = render_diagnosis(diagnose(run), "text", "en", run=run)
    assert "30 unreadable value(s) dropped (unreadable value); their lines were kept" in text
    assert "line(s) skipped" not in text
    vit = render_vitals(run, "text", "en")
    assert "Values dropped, their lines kept (30)" in vit and "Lines skipped (0)" in vit


def test_a_line_with_no_readable_value_is_a_skipped_line_not_a_dropped_value():
    run = read_text("[1] reward=0.1 acc=0.2\n[2] reward=x acc=y\n[3] reward=0.3 acc=0.4\n", "lesson")
    assert run.skipped == {"step line without key=value pairs": 1}
    assert run.dropped == {}


def test_no_key_is_both_kept_and_not_read(tmp_path):
    path = tmp_path / "run.jsonl"
    rows = [{"step": i, "train/reward": 0.1 * i, "my/custom_metric": float(i), "timing/gen": 3.0} for i in range(1, 40)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = read(path)
    assert "my/custom_metric" in run.extras and "my/custom_metric" in run.unrecognized
    text = render_vitals(run, "text", "en")
    kept = text.split("Other numeric keys kept")[1].split("\n\n")[0]
    not_read = text.split("Keys seen but not read")[1].split("\n\n")[0]
    assert "my/custom_metric" in kept and "my/custom_metric" not in not_read
    for line in not_read.splitlines()[1:]:
        assert line.split()[0] not in run.extras, line


@pytest.mark.parametrize("scenario", ["healthy", "entropy_collapse", "kl_blowup"])
def test_vitals_and_diagnose_show_the_same_start_and_end(scenario):
    run = simulate(scenario, seed=4, steps=150)
    vit = json.loads(render_vitals(run, "json"))
    diag = json.loads(render_json(diagnose(run)))
    shapes = diag["shapes"]
    for m, info in vit["metrics"].items():
        if info is None or m not in shapes:
            continue
        assert info["start"] == pytest.approx(shapes[m]["start"], rel=1e-3, abs=1e-9), m
        assert info["end"] == pytest.approx(shapes[m]["end"], rel=1e-3, abs=1e-9), m
        sh = classify(run.series[m])
        assert info["start"] == pytest.approx(sh.start, rel=1e-4) and info["end"] == pytest.approx(sh.end, rel=1e-4)
    text = render_vitals(run, "text", "en")
    assert "start → end" in text and "first and of the last tenth" in text


def test_raw_first_and_last_stay_in_json():
    run = simulate("healthy", seed=1, steps=60)
    info = json.loads(render_vitals(run, "json"))["metrics"]["reward"]
    v = run.series["reward"].values
    close = {"rel": 1e-5}  # JSON rounds to 6 significant digits
    assert info["first"] == pytest.approx(float(v[0]), **close) and info["last"] == pytest.approx(float(v[-1]), **close)
    assert info["start"] == pytest.approx(float(np.mean(v[:6])), **close)


@pytest.mark.parametrize("header", ["_step,train/reward,train/entropy\n", "step\treward\tacc\n"])
def test_csv_with_only_a_header_says_no_metric_value(tmp_path, header):
    path = tmp_path / "export.csv"
    path.write_text(header)
    with pytest.raises(NoMetrics, match="not one metric value was found"):
        read(path)
