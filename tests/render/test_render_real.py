"""Render the real logs end to end: read → diagnose → every format, in both languages, within width."""

from __future__ import annotations

import json

import pytest

from rlvitals.errors import UnknownFormat
from rlvitals.render import render_diagnosis, render_vitals
from rlvitals.render.charts import display_width, panel_grid

# The keys of tests/conftest.py's REAL_LOGS (read through its `real_logs` fixture, not imported:
# several test folders have a conftest.py, so `import conftest` is ambiguous).
KEYS = ("verl_healthy", "verl_plateau", "trl_collapse", "rookworld_blowup", "primerl_hacking", "trl_truncated")


@pytest.fixture(scope="module")
def real_runs(real_logs):
    from rlvitals.diagnose import diagnose
    from rlvitals.ingest import read

    out = {}
    for key, path in real_logs.items():
        try:
            run = read(path)
        except UnknownFormat:  # its reader has not landed yet
            continue
        out[key] = (run, diagnose(run))
    return out


@pytest.mark.parametrize("key", KEYS)
def test_real_log_renders_in_every_format(real_runs, real_logs, key):
    if key not in real_runs:
        pytest.skip(f"no reader for {real_logs[key].name} yet")
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


@pytest.mark.parametrize("key", KEYS)
def test_real_vitals_json_counts_everything(real_runs, real_logs, key):
    if key not in real_runs:
        pytest.skip(f"no reader for {real_logs[key].name} yet")
    run, _ = real_runs[key]
    obj = json.loads(render_vitals(run, "json"), parse_constant=lambda c: pytest.fail(c))
    assert obj["skipped_lines"] == run.skipped
    assert {m for m, v in obj["metrics"].items() if v is not None} == set(run.series)
    assert sum(v["count"] for v in obj["metrics"].values() if v) == sum(len(s) for s in run.series.values())
