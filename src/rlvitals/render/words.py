"""The words every report format shares: localised titles and summaries, ruled-out sentences, the
action line, shape labels, the vitals rows and the run's notes.

terminal.py, markdown.py and jsonout.py all build their text from these pieces, so the three formats
can never say different things about the same diagnosis.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..diagnose import BY_CONSTRUCTION
from ..diagnose.differential import DECIDES
from ..diagnose.model import Action, Diagnosis, Finding, RuledOut
from ..i18n import Msg, localize, t
from ..run import EXTRAS, PERCENT_METRICS, VITALS, Run
from .charts import fmt_value, is_fraction

__all__ = [
    "REFERENCE",
    "SPARK_FLOOR",
    "VitalRow",
    "action_text",
    "evidence_text",
    "finding_summary",
    "finding_title",
    "fmt_num",
    "label",
    "missing_text",
    "next_key",
    "no_warnings_text",
    "ordered",
    "reason_text",
    "ruled_out_text",
    "run_line",
    "run_notes",
    "segment_count",
    "segments_text",
    "shape_attr",
    "shape_label",
    "tr",
    "verdict_gloss",
    "vital_rows",
]

# Metrics that are exactly constant by construction in a common setup (one optimizer step per
# rollout batch): constant there means "not applicable", never "healthy".
_UNIT_METRICS = PERCENT_METRICS | {"ratio_mean"}
# Sparklines in the report ignore wiggles under 2% of the level, so a curve the table calls flat
# (ratio_mean 1.0000 ± 0.0005) does not look like chaos.
SPARK_FLOOR = 0.02
REFERENCE = {"ratio_mean": 1.0}


# ---------------------------------------------------------------- shared pieces


def tr(key: str, lang: str, fallback: str | None = None, **fields: Any) -> str:
    """`i18n.t`, but a missing key gives `fallback` (or the key) instead of the bare key."""
    out = t(key, lang, **fields)
    if out == key and fallback is not None:
        return fallback
    return out


def ordered(diag: Diagnosis) -> list[Finding]:
    """Findings most important first (stable: ties keep diagnose's order)."""
    return sorted(diag.findings, key=lambda f: f.rank)


def fmt_num(v: Any) -> str:
    """An evidence value: numbers to 4 significant digits, strings as they are."""
    if v is None:
        return "—"
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v)).lower()
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        x = float(v)
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        if x == int(x) and abs(x) < 1e6:
            return str(int(x))
        return f"{x:.0f}" if abs(x) >= 1e4 and abs(x) < 1e6 else f"{x:.4g}"
    return str(v)


def _fields(f: Finding) -> dict[str, Any]:
    # Templates may name any evidence key, and the onset step.
    out: dict[str, Any] = {k: v for k, v in f.evidence.items() if isinstance(k, str)}
    out.setdefault("step", f.onset_step if f.onset_step is not None else "?")
    out.setdefault("onset_step", out["step"])
    return out


def finding_title(fid: str, lang: str) -> str:
    return tr(f"finding.{fid}.title", lang, fid.replace("_", " "))


_PLACEHOLDER = re.compile(r"\{[A-Za-z_][^{}]*\}")


def finding_summary(f: Finding, lang: str) -> str:
    """The localised summary, or "" when there is none or its template cannot be filled (a field
    the evidence lacks): a sentence with "{entropy_end}" left in it is worse than no sentence.
    A finding with missing metrics uses its `summary_missing` sentence when it has one, so the
    summary never calls a metric normal that the "missing" line says was not logged."""
    fields = _fields(f)
    out = ""
    if f.evidence.get("gnorm_skipped_steps"):  # a step or two the optimizer skipped, finite ever after
        return tr("ui.skipped_steps", lang, n=f.evidence["gnorm_skipped_steps"], step=f.onset_step)
    lone = next((k for k in f.evidence if k.endswith("_unmeasured_steps")), None)
    if lone is not None:  # a step or two one curve could not measure, every curve finite ever after
        metric = lone.removesuffix("_unmeasured_steps")
        return tr("ui.unmeasured_steps", lang, metric=metric, n=f.evidence[lone], step=f.onset_step)
    for key in ("aftermath", "consequence"):
        if f"{key}_of" in f.evidence:
            return tr(
                f"ui.{key}",
                lang,
                owner=finding_title(str(f.evidence[f"{key}_of"]), lang),
                step=f.evidence.get(f"{key}_since_step"),
            )
    # the first sentence whose fields the evidence fills: the one for a log without the metric that
    # decides the finding (`summary_missing`; without a deciding metric, for any missing one), the one
    # for how the goal failed or which of the finding's readings fired, then the plain one
    keys = []
    if f.missing and (DECIDES.get(f.id) is None or DECIDES[f.id] in f.missing):
        keys.append("summary_missing")
    variant = f.evidence.get("goal_trend") or f.evidence.get("reading")
    if variant:
        keys.append(f"summary_{variant}")
    keys.append("summary")
    for key in keys:
        out = tr(f"finding.{f.id}.{key}", lang, "", missing=", ".join(f.missing), **fields)
        out = "" if _PLACEHOLDER.search(out) else out
        if out:
            break
    return _with_goal(f, out, lang)


def _with_goal(f: Finding, out: str, lang: str) -> str:
    """The summary with what the goal did: after a finding that did not hurt it, or too soon to say
    (materiality), over a blow-up it came back from (episodes), through one still running (verdict)."""
    ev = f.evidence
    metric = str(ev.get("goal_metric", "")).replace("component:", "")
    if ev.get("goal_unhurt"):
        a, b = float(ev.get("goal_at_onset") or 0), float(ev.get("goal_end") or 0)  # lower: a dip in its noise
        tail = tr("ui.goal_unhurt" + ("_dip" if b < a else ""), lang, metric=metric, a=fmt_num(a), b=fmt_num(b))
    elif ev.get("reading") == "recovered":
        steps = str(ev.get("episode_steps", ""))
        nums = {k: fmt_num(ev.get(f"goal_{k}")) for k in ("before", "low", "after")}
        tail = tr("ui.episode_recovered", lang, steps=steps, metric=metric, moved=ev.get("episode_moved"), **nums)
        # the finding's own sentence reads the run as it was at the episode's end, not as it is now
        return tr("ui.episode_then", lang, tail=tail, end=steps.split("-")[-1], then=out) if out else tail
    elif ev.get("goal_held"):
        tail = tr("ui.goal_held", lang, metric=metric, a=fmt_num(ev.get("goal_start")), b=fmt_num(ev.get("goal_end")))
    elif ev.get("goal_pending"):
        tail = tr("ui.goal_pending", lang, metric=metric, n=ev.get("goal_points_after"))
    else:
        return out
    return f"{out} — {tail}" if out else tail


def shape_attr(shape: Any, name: str, default: Any = None) -> Any:
    """Read a Shape field whether it is a Shape or an already-serialised dict."""
    if isinstance(shape, dict):
        return shape.get("shape" if name == "word" else name, default)
    return getattr(shape, name, default)


def shape_label(metric: str, shape: Any, lang: str) -> str:
    word = shape_attr(shape, "word", "short")
    label = tr(f"shape.{word}", lang, tr(f"ui.shape.{word}", lang, word))
    na = tr("ui.not_applicable", lang)
    if word == "constant" and metric in BY_CONSTRUCTION and na not in label:
        label += f" ({na})"
    if word == "drift" and metric in REFERENCE:
        label += " " + tr("ui.drift_flag", lang, ref=f"{REFERENCE[metric]:.1f}")
    return label


def ruled_out_text(r: RuledOut, lang: str) -> str:
    """ "entropy collapse — entropy = 1.774: <why that rules it out>" (or "... is normal")."""
    # Units only where they cannot mislead (a rate as %, ratio to 4 places); anything else as a
    # plain number, since a rule may pass a derived value (a fraction of steps) under a metric name.
    v = r.value
    if isinstance(v, str):
        v = str(value_text(v, lang))
    numeric = isinstance(v, (int, float)) and not isinstance(v, bool)
    value = (
        fmt_value(r.metric, v) if isinstance(v, (int, float)) and numeric and r.metric in _UNIT_METRICS else fmt_num(v)
    )
    look = finding_title(r.lookalike, lang) if r.lookalike else "?"
    why = tr(f"ruled_out.{r.reason}", lang, "", metric=r.metric, value=value, lookalike=r.lookalike)
    if why:
        return tr("ui.ruled_out_because", lang, lookalike=look, metric=r.metric, value=value, reason=why)
    return tr("ui.ruled_out_normal", lang, lookalike=look, metric=r.metric, value=value)


_NO_VALUE = frozenset({"", "—", "–", "-"})


def _catalogued(kind: str, fid: str, text: str, lang: str) -> str:
    """`text` in `lang` when it is the catalog's own English for this finding (an Action built
    elsewhere, with a framework's own knob name, is shown as it was written)."""
    if fid and text and t(f"{kind}.{fid}", "en") == text:
        return tr(f"{kind}.{fid}", lang, text)
    return text


def action_text(a: Action, lang: str) -> str:
    """ "raise temperature (typical 1.0) — why (source)"; knob, typical value and source come
    from the findings catalog (keyed by the finding id in `why`), the Action's text as fallback.
    No "(typical —)": a knob without a typical value gets no parenthesis."""
    verb = tr(f"ui.direction.{a.direction}", lang, a.direction)
    key = a.why or ""
    s = f"{verb} {_catalogued('knob', key, a.knob, lang)}"
    typical = _catalogued("typical", key, a.typical, lang)
    if typical and typical.strip() not in _NO_VALUE:
        s += " " + tr("ui.typical", lang, value=typical)
    why = tr(f"action_why.{a.why}", lang, a.why.replace("_", " ")) if a.why else ""
    if why:
        s += f" — {why}"
    source = _catalogued("source", key, a.source, lang)
    if source:
        s += " " + tr("ui.source", lang, source=source)
    return s


def next_key(f: Finding) -> str:
    """ "next:" for a warning or worse; "if it goes on:" for an info note, which asks for nothing now
    (a healthy run's report must not say "nothing to change" and then "next: replace the data")."""
    return "ui.next_if" if f.severity == "info" else "ui.next"


def verdict_gloss(diag: Diagnosis, lang: str) -> str:
    key = diag.gloss_key()
    if key.startswith("verdict."):
        return tr(key, lang, tr(f"ui.verdict_gloss.{diag.verdict}", lang, ""))
    return tr(key, lang)


def no_warnings_text(diag: Diagnosis, lang: str) -> str:
    g = diag.unproven_goal()
    if g is not None:
        # the goal is the eval itself: judged again after more evals, never "log an eval accuracy"
        key = (
            "ui.no_warnings_solved"
            if g.get("solved")
            else "ui.no_warnings_unproven_evals"
            if g.get("eval_points")
            else "ui.no_warnings_unproven_eval_goal"
            if g["metric"] == "val_acc"
            else "ui.no_warnings_unproven"
        )
        return tr(
            key,
            lang,
            metric=g.get("key") or g["metric"],
            start=fmt_num(g["start"]),
            end=fmt_num(g["end"]),
            points=g["points"],
            span=g["span"],
            more=diag.unproven_more(lang),
            solved=g.get("solved", ""),
            eval=g.get("eval_metric", ""),
            eval_start=fmt_num(g.get("eval_start", 0.0)),
            eval_end=fmt_num(g.get("eval_end", 0.0)),
            eval_points=g.get("eval_points", 0),
        )
    if diag.gloss_key() == "ui.verdict_gloss.learning_no_goal":
        return tr("ui.no_warnings_no_goal", lang)  # never "a healthy run" from curves that cannot show one
    infos = sum(1 for f in diag.findings if f.severity == "info")
    return tr("ui.no_warnings_watch", lang, n=infos) if infos else tr("ui.no_warnings", lang)


def missing_text(metrics: tuple[str, ...] | list[str], lang: str) -> str:
    # metric names stay as they are; what is not a metric (rollout samples) is named in words
    names = [tr(f"ui.missing_name.{m}", lang, m) for m in metrics]
    return tr("ui.missing_why", lang, metrics=", ".join(names))


def label(key: str, lang: str) -> str:  # "evidence: " / "证据："
    return tr("ui.label", lang, text=tr(key, lang))


def evidence_text(f: Finding, lang: str = "en") -> str:
    # "k=v" pairs joined by ", " (no break inside a pair); keys are the JSON's, worded values translated
    return ", ".join(f"{k}={fmt_num(value_text(v, lang))}" for k, v in f.evidence.items())


# Values diagnose's rules write as English words (evidence, ruled-out values): a rule that writes a
# `Msg` ("value.at_cap", v=…, pct=…) is rendered from its key; these patterns read the plain ones.
_VALUE_WORDS = {"finite": "value.finite", "not applicable (constant)": "value.not_applicable"}
_AT_CAP = re.compile(r"(?P<v>\S+) \(at the cap on (?P<pct>\d+%) of (?P<late>late )?steps\)")


def value_text(value: object, lang: str) -> object:
    """An evidence or ruled-out value in `lang` ("finite", "256 (at the cap on 98% of steps)",
    true/false, a `Msg`); numbers unchanged."""
    if lang == "en" or isinstance(value, Msg):
        return localize(value, lang) if isinstance(value, Msg) else value
    if isinstance(value, bool):
        return t("value.true" if value else "value.false", lang)
    if not isinstance(value, str):
        return value
    if value in _VALUE_WORDS:
        return t(_VALUE_WORDS[value], lang)
    m = _AT_CAP.fullmatch(value)
    if m is not None:
        return t("value.at_cap_late" if m["late"] else "value.at_cap", lang, v=m["v"], pct=m["pct"])
    return value


@dataclass(frozen=True)
class VitalRow:
    metric: str
    logged: bool
    start: str
    end: str
    shape: str  # localised label ("" when not logged)
    word: str  # the shape word id ("" when not logged)
    values: np.ndarray | None


def vital_rows(diag: Diagnosis, lang: str, run: Run | None = None) -> list[VitalRow]:
    """One row per vital (absent ones "not logged"), then each extra that has a shape."""
    rows = []
    names = list(VITALS) + [m for m in EXTRAS if m in diag.shapes]
    for m in names:
        shape = diag.shapes.get(m)
        series = run.series.get(m) if run is not None else None
        values = series.values if series is not None else None
        if shape is None:
            rows.append(VitalRow(m, False, "", "", "", "", values))
            continue
        proxies = diag.run.get("proxies") or {}
        name = f"{m}*" if (m in proxies or (series is not None and series.proxy)) else m
        start, end = shape_attr(shape, "start"), shape_attr(shape, "end")
        pct = is_fraction(m, values if values is not None else [x for x in (start, end) if x is not None])
        rows.append(
            VitalRow(
                name,
                True,
                fmt_value(m, start, pct),
                fmt_value(m, end, pct),
                shape_label(m, shape, lang),
                shape_attr(shape, "word", ""),
                values,
            )
        )
    return rows


def run_notes(diag: Diagnosis, lang: str) -> list[str]:
    """The run's notes, then each proxy and each reason lines were skipped (nothing hidden)."""
    raw = [str(n) for n in diag.run.get("notes", []) or []]
    notes = [localize(n, lang) for n in diag.run.get("notes", []) or []]
    for m, note in (diag.run.get("proxies") or {}).items():
        if not any(str(note) in n for n in raw):
            notes.append(tr("ui.proxy_note", lang, metric=m, note=localize(note, lang)))
    for reason, count in (diag.run.get("skipped") or {}).items():
        notes.append(tr("ui.skipped_note", lang, count=count, reason=reason_text(reason, lang)))
    for reason, count in (diag.run.get("dropped") or {}).items():
        notes.append(tr("ui.dropped_note", lang, count=count, reason=reason_text(reason, lang)))
    return notes


def reason_text(reason: str, lang: str) -> str:
    """A skip/drop reason from ingest (English, a stable key) in the report's language."""
    return tr(f"reason.{reason}", lang, reason)


def run_line(diag: Diagnosis, lang: str) -> str:
    r = diag.run
    steps, first, last = r.get("steps", r.get("n_steps", "?")), r.get("first_step", "?"), r.get("last_step", "?")
    return tr(
        "ui.run_line", lang, name=r.get("name", "?"), format=r.get("format", "?"), steps=steps, first=first, last=last
    )


def segment_count(diag: Diagnosis) -> int:
    seg = diag.run.get("segments", 1)
    return len(seg) if isinstance(seg, (list, tuple)) else int(seg or 1)


def segments_text(diag: Diagnosis, lang: str) -> str:
    """The header line of a run whose step counter went back: restarts, or two writers interleaved."""
    n = segment_count(diag)
    key = "ui.segments_interleaved" if diag.run.get("interleaved") else "ui.segments"
    return tr(key, lang, n=n, restarts=n - 1)
