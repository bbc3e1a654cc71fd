"""Golden files: fixed diagnoses rendered in en/zh as text (80 columns), markdown and JSON.

A change to any report shows up as a diff against tests/golden/.  When the change is intended,
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
def test_golden_diagnosis(case, lang, fmt):
    diag, run = rc.CASES[case]()
    check(f"{case}.{lang}.{EXT[fmt]}", render_diagnosis(diag, fmt, lang, 80, run=run, color=False))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_golden_vitals_text(lang):
    check(f"vitals-mixed.{lang}.txt", render_vitals(rc.vitals_run(), "text", lang))


def test_golden_vitals_json():
    check("vitals-mixed.json", render_vitals(rc.vitals_run(), "json"))


def test_golden_panel_grid():
    from rlvitals.render.charts import panel_grid

    _, run = rc.sync_failure()
    check("panel-grid-sync.txt", panel_grid(run, width=80))
