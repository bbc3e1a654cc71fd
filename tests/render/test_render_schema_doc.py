"""docs/json-schema.md stays honest: its examples parse and every key the renderers emit is documented."""

from __future__ import annotations

import json
import re
from pathlib import Path

import render_cases as rc

from rlvitals.render.jsonout import diagnosis_dict
from rlvitals.render.vitals import vitals_dict

DOC = Path(__file__).resolve().parents[2] / "docs" / "json-schema.md"


def _documented() -> set[str]:
    text = DOC.read_text(encoding="utf-8")
    keys = set()
    for cell in re.findall(r"^\| ([^|]+) \|", text, re.M):
        keys |= set(re.findall(r"`([a-z_]+)`", cell))
    return keys


def test_examples_are_valid_json():
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 2
    for b in blocks:
        obj = json.loads(b)
        assert obj["schema"] in ("rlvitals.diagnosis/1", "rlvitals.vitals/1")


def test_every_emitted_key_is_documented():
    documented = _documented()
    diag, _ = rc.entropy_collapse()
    d = diagnosis_dict(diag)
    emitted = set(d) | set(d["findings"][0]) | set(next(iter(d["shapes"].values())))
    v = vitals_dict(rc.vitals_run())
    emitted |= set(v) | set(v["metrics"]["reward"])
    assert emitted - documented == set()
