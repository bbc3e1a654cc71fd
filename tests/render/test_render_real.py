"""Render the real logs end to end: read → diagnose → every format, in both languages, within width."""

from __future__ import annotations

import json

import pytest

from conftest import REAL_LOGS
from rlvitals.errors import UnknownFormat
from rlvitals.render import render_diagnosis, render_vitals
from rlvitals.render.charts import display_width, panel_grid


@pytest.fixture(scope="module")
def real_runs():
    from rlvitals.diagnose import diagnose
    from rlvitals.ingest import read

    out = {}
    for key, path in REAL_LOGS.items():
        try:
            run = read(path)
        except UnknownFormat:  # its reader has not landed yet
            continue
        out[key] = (run, diagnose(run))
    return out


@pytest.mark.parametrize("key", sorted(REAL_LOGS))
def test_real_log_renders_in_every_format(real_runs, key):
    if key not in real_runs:
        pytest.skip(f"no reader for {REAL_LOGS[key].name} yet")
    run, diag = real_runs[key]
    for lang in ("en", "zh"):
        text = render_diagnosis(diag, "text", lang, 80, run=run)
        assert max(display_width(x) for x in text.splitlines()) <= 80
        assert "\x1b[" not in text
        md = render_diagnosis(diag, "markdown", lang, run=run)
        assert md.startswith("### ")
        obj = json.loads(render_diagnosis(diag, "json", lang), parse_constant=lambda c: pytest.fail(c))
        assert obj["verdict"] == diag.verdict and len(obj["findings"]) == len(diag.findings)
        vit = render_vitals(run, "text", lang)
        assert max(display_width(x) for x in vit.splitlines()) <= 100
        for m, s in run.series.items():
            assert s.source in vit, (m, s.source)
    grid = panel_grid(run, 80)
    assert max(display_width(x) for x in grid.splitlines()) <= 80


@pytest.mark.parametrize("key", sorted(REAL_LOGS))
def test_real_vitals_json_counts_everything(real_runs, key):
    if key not in real_runs:
        pytest.skip(f"no reader for {REAL_LOGS[key].name} yet")
    run, _ = real_runs[key]
    obj = json.loads(render_vitals(run, "json"), parse_constant=lambda c: pytest.fail(c))
    assert obj["skipped_lines"] == run.skipped
    assert {m for m, v in obj["metrics"].items() if v is not None} == set(run.series)
    assert sum(v["count"] for v in obj["metrics"].values() if v) == sum(len(s) for s in run.series.values())
