"""One threshold table with sources, overridable at call time; docs/findings.md generated from it."""

from __future__ import annotations

from pathlib import Path

import diag_curves as dc
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.docs import render
from rlvitals.diagnose.thresholds import TABLE, calibrated, get, using

ROOT = Path(__file__).resolve().parents[2]


def test_every_threshold_is_named_with_meaning_and_source():
    for name, t in TABLE.items():
        assert t.name == name and t.meaning and t.source
        assert not t.grid or t.value in t.grid, name  # the shipped value is one of its candidates
    # few calibrated numbers (the rest come from a source): held-out calibration stays cheap and honest
    assert 0 < len(calibrated()) <= 16


def test_using_overrides_at_call_time_and_restores():
    assert get("clip_high") == 0.2
    assert diagnose(dc.pair_d2_lr(0)).top.id == "lr_too_high"
    with using({"clip_high": 0.6}):
        assert get("clip_high") == 0.6
        assert "lr_too_high" not in {f.id for f in diagnose(dc.pair_d2_lr(0)).findings}
    assert get("clip_high") == 0.2
    with pytest.raises(KeyError), using({"no_such_threshold": 1.0}):
        pass


def test_findings_doc_is_generated_from_the_code():
    committed = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    assert committed == render(), "run: python -m rlvitals.diagnose.docs > docs/findings.md"
    for name in TABLE:
        assert f"`{name}`" in committed
