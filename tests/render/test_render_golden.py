"""Golden files: fixed diagnoses rendered in en/zh as text (80 columns), markdown and JSON.

A change to any report shows up as a diff against tests/golden/.  The hand-built cases are
rendered with the `ui`, `vitals` and `reasons` catalogs only (finding titles fall back to their ids), so they pin the
layout and do not move when the findings wording is edited; the `sim-*` goldens use every
catalog and the real diagnose(), so they show exactly what a user reads.  When the change is intended,
regenerate and review the diff:

    RLVITALS_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/render -q
    git diff tests/golden/
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import render_cases as rc

from rlvitals.render import render_diagnosis, render_vitals

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
REGEN = os.environ.get("RLVITALS_REGEN_GOLDEN") == "1"
EXT = {"text": "txt", "markdown": "md", "json": "json"}


@pytest.fixture
def ui_only(monkeypatch):
    """Render with the report's catalogs alone, ui, vitals and reasons (see the module docstring)."""
    from rlvitals.i18n import reasons, ui, vitals
    from rlvitals.render import words

    table = {lang: {**ui.STRINGS[lang], **vitals.STRINGS[lang], **reasons.STRINGS[lang]} for lang in ui.STRINGS}

    def t_ui(key, lang="en", /, **fields):
        template = table.get(lang, {}).get(key) or table["en"].get(key) or key
        try:
            return template.format(**fields)
        except (KeyError, IndexError, ValueError):
            return template

    monkeypatch.setattr(words, "t", t_ui)


def normalise(text: str) -> str:
    """Remove what may legitimately vary between machines: trailing spaces, absolute paths."""
    text = re.sub(r"[ \t]+$", "", text, flags=re.M)
    text = re.sub(r"(/[\w.-]+)+/(tests/fixtures/)", r"<repo>/\2", text)
    return text if text.endswith("\n") else text + "\n"


def check(name: str, text: str) -> None:
    path = GOLDEN / name
    text = normalise(text)
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"missing golden {path.name}: run RLVITALS_REGEN_GOLDEN=1 pytest tests/render"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{path.name} differs; if intended: RLVITALS_REGEN_GOLDEN=1 pytest tests/render"


@pytest.mark.parametrize("fmt", sorted(EXT))
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", sorted(rc.CASES))
def test_golden_diagnosis(case, lang, fmt, ui_only):
    diag, run = rc.CASES[case]()
    check(f"{case}.{lang}.{EXT[fmt]}", render_diagnosis(diag, fmt, lang, 80, run=run, color=False))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_golden_vitals_text(lang, ui_only):
    check(f"vitals-mixed.{lang}.txt", render_vitals(rc.vitals_run(), "text", lang))


def test_golden_vitals_json():
    check("vitals-mixed.json", render_vitals(rc.vitals_run(), "json"))


def test_golden_panel_grid():
    from rlvitals.render.charts import panel_grid

    _, run = rc.sync_failure()
    check("panel-grid-sync.txt", panel_grid(run, width=80))


# ---------------------------------------------------------------- real diagnoses of simulated runs

SIM_SCENARIOS = ("healthy", "entropy_collapse", "sync_failure")


@pytest.fixture(scope="module")
def sim_diagnoses():
    from rlvitals.diagnose import diagnose
    from rlvitals.simulate import simulate

    out = {}
    for name in SIM_SCENARIOS:
        try:
            run = simulate(name, seed=0)
        except NotImplementedError:  # the simulator has not landed
            return {}
        out[name] = (diagnose(run), run)
    return out


@pytest.mark.parametrize("fmt", sorted(EXT))
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("scenario", SIM_SCENARIOS)
def test_golden_simulated(sim_diagnoses, scenario, lang, fmt):
    if scenario not in sim_diagnoses:
        pytest.skip("rlvitals.simulate is not implemented yet")
    diag, run = sim_diagnoses[scenario]
    check(f"sim-{scenario}.{lang}.{EXT[fmt]}", render_diagnosis(diag, fmt, lang, 80, run=run, color=False))


def test_simulated_verdicts_are_the_scenarios(sim_diagnoses):
    """The goldens above are only worth pinning if the diagnoses are right."""
    if not sim_diagnoses:
        pytest.skip("rlvitals.simulate is not implemented yet")
    for name, (diag, run) in sim_diagnoses.items():
        truth = run.meta["truth"]
        assert diag.verdict == truth["verdict"], name
        top = diag.top if diag.top is not None and diag.top.severity != "info" else None
        assert (top.id if top else None) == truth["finding"], name
