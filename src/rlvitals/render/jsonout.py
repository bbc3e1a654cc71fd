"""The diagnosis as JSON (`rlvitals diagnose --format json`), schema "rlvitals.diagnosis/1".

Other tools build on this object, so it is stable and documented in docs/json-schema.md.
Rules: ids, keys and enum values are never localised (only `title`/`summary` follow `lang`);
NaN and ±inf become null (JSON has no NaN; `json.dumps` would otherwise write invalid JSON);
floats are rounded to 6 significant digits so the output is the same on every platform;
numpy scalars become plain numbers.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from ..diagnose.model import Diagnosis, Finding
from ..run import VITALS
from ..safe_text import escape_controls
from .words import finding_summary, finding_title, ordered, shape_attr

__all__ = ["SCHEMA", "clean", "diagnosis_dict", "render_json"]

SCHEMA = "rlvitals.diagnosis/1"


def clean(obj: Any) -> Any:
    """Make `obj` JSON-safe: NaN/inf → None, numpy → Python, tuples/sets → lists, floats rounded."""
    if obj is None or isinstance(obj, (str, bool)):
        return obj
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        if not math.isfinite(x):
            return None
        return float(f"{x:.6g}")
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        items = sorted(obj, key=str) if isinstance(obj, (set, frozenset)) else obj
        return [clean(v) for v in items]
    if isinstance(obj, np.ndarray):
        return [clean(v) for v in obj.tolist()]
    return str(obj)


def _finding(f: Finding, lang: str) -> dict[str, Any]:
    a = f.action
    return {
        "id": f.id,
        "severity": f.severity,
        "onset_step": f.onset_step,
        "evidence": dict(f.evidence),
        "ruled_out": [
            {"lookalike": r.lookalike, "metric": r.metric, "value": r.value, "reason": r.reason} for r in f.ruled_out
        ],
        "missing": list(f.missing),
        "action": None
        if a is None
        else {"knob": a.knob, "direction": a.direction, "typical": a.typical, "why": a.why, "source": a.source},
        "confidence": f.confidence,
        "samples": list(f.samples),
        "title": finding_title(f.id, lang),
        "summary": finding_summary(f, lang),
    }


def _shape(s: Any) -> dict[str, Any]:
    return {
        "shape": shape_attr(s, "word"),
        "start": shape_attr(s, "start"),
        "end": shape_attr(s, "end"),
        "slope": shape_attr(s, "slope", 0.0),
        "rel_change": shape_attr(s, "rel_change", 0.0),
        "onset_step": shape_attr(s, "onset_step"),
        "stats": dict(shape_attr(s, "stats", {}) or {}),
    }


def diagnosis_dict(diag: Diagnosis, lang: str = "en") -> dict[str, Any]:
    """The JSON object as a Python dict (already cleaned)."""
    out: dict[str, Any] = clean(
        {
            "schema": SCHEMA,
            "lang": lang,
            "verdict": diag.verdict,
            "worst_severity": diag.worst_severity(),
            "findings": [_finding(f, lang) for f in ordered(diag)],
            "shapes": {m: _shape(s) for m, s in diag.shapes.items()},
            "not_logged": [m for m in VITALS if m not in diag.shapes],
            "run": dict(diag.run),
        }
    )
    return out


def render_json(diag: Diagnosis, lang: str = "en") -> str:
    """One JSON object, indented, keys in a fixed order, ending with a newline."""
    # json escapes C0 itself; DEL, C1 and the bidi controls become \\uXXXX too (same value, still JSON)
    return escape_controls(json.dumps(diagnosis_dict(diag, lang), ensure_ascii=False, indent=2, allow_nan=False)) + "\n"
