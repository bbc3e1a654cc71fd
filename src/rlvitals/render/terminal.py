"""The diagnosis as terminal text: the verdict first, the vitals table, then each finding's arithmetic.

Layout (every line fits `width` display columns; Chinese counts two per character):

    rlvitals diagnosis · run · format · N steps (first → last)
      Verdict  DEAD — stop and fix it before burning more GPU hours
    Vitals      table: metric, start → end, shape word, sparkline; "not logged" rows
    Findings    1. [critical] title · since step N
                   summary / evidence / ruled out / missing / next / samples

A healthy run gets a short, calm report ("No warnings").  The pieces every format shares
(localised titles, ruled-out sentences, the action line, the shape labels) are built here and
reused by markdown.py and jsonout.py, so the three formats can never say different things.
"""

from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..diagnose import BY_CONSTRUCTION
from ..diagnose.model import Action, Diagnosis, Finding, RuledOut
from ..i18n import t
from ..run import EXTRAS, PERCENT_METRICS, VITALS, Run
from .charts import clip_text, display_width, fmt_value, pad, sparkline

__all__ = [
    "SPARK_FLOOR",
    "VitalRow",
    "action_text",
    "finding_summary",
    "finding_title",
    "fmt_num",
    "label",
    "missing_text",
    "next_key",
    "no_warnings_text",
    "ordered",
    "reason_text",
    "render_text",
    "ruled_out_text",
    "run_notes",
    "shape_label",
    "summary_text",
    "tr",
    "unproven_goal",
    "use_color",
    "verdict_gloss",
    "vital_rows",
    "wrap",
]

# Metrics that are exactly constant by construction in a common setup (one optimizer step per
# rollout batch): constant there means "not applicable", never "healthy".
_UNIT_METRICS = PERCENT_METRICS | {"ratio_mean"}
# Sparklines in the report ignore wiggles under 2% of the level, so a curve the table calls flat
# (ratio_mean 1.0000 ± 0.0005) does not look like chaos.
SPARK_FLOOR = 0.02
REFERENCE = {"ratio_mean": 1.0}
_COLORS = {"learning": "32", "cheating": "35", "dead": "31", "unstable": "33",
           "critical": "31", "warning": "33", "info": "36"}


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
    if f.missing:
        out = tr(f"finding.{f.id}.summary_missing", lang, "", missing=", ".join(f.missing), **fields)
    if not out:
        out = tr(f"finding.{f.id}.summary", lang, "", **fields)
    return "" if _PLACEHOLDER.search(out) else out


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
    from .notes import translate_value

    v = r.value
    if isinstance(v, str):
        v = str(translate_value(v, lang))
    numeric = isinstance(v, (int, float)) and not isinstance(v, bool)
    value = fmt_value(r.metric, v) if isinstance(v, (int, float)) and numeric and r.metric in _UNIT_METRICS \
        else fmt_num(v)
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


def unproven_goal(diag: Diagnosis) -> dict | None:
    """The goal summary when nothing warns but the goal did not improve beyond its noise: such a run
    is not called healthy (learning is not shown yet), whatever the verdict word."""
    g = diag.run.get("goal") if isinstance(diag.run, dict) else None
    if not g or g.get("improved") or diag.verdict != "learning":
        return None
    return g


def verdict_gloss(diag: Diagnosis, lang: str) -> str:
    v = diag.verdict
    if unproven_goal(diag) is not None:
        return tr("ui.verdict_gloss.learning_unproven", lang)
    return tr(f"verdict.{v}", lang, tr(f"ui.verdict_gloss.{v}", lang, ""))


def no_warnings_text(diag: Diagnosis, lang: str) -> str:
    g = unproven_goal(diag)
    if g is not None:
        short = g["points"] < g["min_points"]
        return tr("ui.no_warnings_unproven", lang, metric=g["metric"], start=fmt_num(g["start"]),
                  end=fmt_num(g["end"]), points=g["points"], span=g["span"],
                  more=tr("ui.unproven_short", lang, need=g["min_points"]) if short else "")
    infos = sum(1 for f in diag.findings if f.severity == "info")
    return tr("ui.no_warnings_watch", lang, n=infos) if infos else tr("ui.no_warnings", lang)


def missing_text(metrics: tuple[str, ...] | list[str], lang: str) -> str:
    # metric names stay as they are; what is not a metric (rollout samples) is named in words
    names = [tr(f"ui.missing_name.{m}", lang, m) for m in metrics]
    return tr("ui.missing_why", lang, metrics=", ".join(names))


def label(key: str, lang: str) -> str:
    """ "evidence: " / "证据：" """
    return tr("ui.label", lang, text=tr(key, lang))


def evidence_text(f: Finding, lang: str = "en") -> str:
    # "key=value" pairs joined by ", " so a line never breaks inside a pair or starts with a separator;
    # keys stay as they are (they are the JSON's), values a rule wrote as words are translated
    from .notes import translate_value

    return ", ".join(f"{k}={fmt_num(translate_value(v, lang))}" for k, v in f.evidence.items())


@dataclass(frozen=True)
class VitalRow:
    metric: str
    logged: bool
    start: str
    end: str
    shape: str          # localised label ("" when not logged)
    word: str           # the shape word id ("" when not logged)
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
        rows.append(VitalRow(name, True, fmt_value(m, shape_attr(shape, "start")), fmt_value(m, shape_attr(shape, "end")),
                             shape_label(m, shape, lang), shape_attr(shape, "word", ""), values))
    return rows


def run_notes(diag: Diagnosis, lang: str) -> list[str]:
    """The run's notes, then each proxy and each reason lines were skipped (nothing hidden)."""
    from .notes import translate_note, translate_proxy

    raw = [str(n) for n in diag.run.get("notes", []) or []]
    notes = [translate_note(n, lang) for n in diag.run.get("notes", []) or []]
    for m, note in (diag.run.get("proxies") or {}).items():
        if not any(str(note) in n for n in raw):
            notes.append(tr("ui.proxy_note", lang, metric=m, note=translate_proxy(str(note), lang)))
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
    return tr("ui.run_line", lang, name=r.get("name", "?"), format=r.get("format", "?"),
              steps=r.get("steps", r.get("n_steps", "?")), first=r.get("first_step", "?"), last=r.get("last_step", "?"))


def segment_count(diag: Diagnosis) -> int:
    seg = diag.run.get("segments", 1)
    return len(seg) if isinstance(seg, (list, tuple)) else int(seg or 1)


# ---------------------------------------------------------------- text layout

def use_color(stream=None) -> bool:
    """Colour only on a TTY and only when NO_COLOR is unset (https://no-color.org)."""
    stream = stream or sys.stdout
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


_CJK = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef"
# A CJK character is a token of its own, but an opening bracket sticks to the character after it
# and closing punctuation to the one before, so no line starts with "，" or ends with "（".
_TOKEN = re.compile(rf"\s+|[(\[（「“‘]*[{_CJK}][，。、；：！？）」”’,.;:!?)\]]*|[^\s{_CJK}]+")


def wrap(text: str, width: int, indent: str = "", first: str | None = None) -> list[str]:
    """Wrap by display width: latin breaks at spaces, CJK between any two characters."""
    first = indent if first is None else first
    lines: list[str] = []
    cur = first
    limit = max(10, width)
    for tok in _TOKEN.findall(text):
        if tok.isspace():
            if display_width(cur) > display_width(indent if lines else first):
                cur += " "
            continue
        if display_width(cur) + display_width(tok) > limit and cur.strip():
            lines.append(cur.rstrip())
            cur = indent
        while display_width(cur) + display_width(tok) > limit:  # one token longer than a line
            room = limit - display_width(cur)
            piece = clip_text(tok, room + 1)[:-1] or tok[0]
            lines.append(cur + piece)
            tok, cur = tok[len(piece):], indent
        cur += tok
    if cur.strip() or not lines:
        lines.append(cur.rstrip())
    return lines


class _Out:
    def __init__(self, width: int, color: bool):
        self.width, self.color = width, color
        self.lines: list[str] = []

    def paint(self, text: str, code: str | None, bold: bool = False) -> str:
        if not self.color or not code:
            return text
        return f"\x1b[{'1;' if bold else ''}{code}m{text}\x1b[0m"

    def add(self, text: str = "") -> None:
        self.lines.append(text)

    def para(self, text: str, indent: str, first: str | None = None) -> None:
        self.lines.extend(wrap(text, self.width, indent, first))


def _table(out: _Out, rows: list[VitalRow], lang: str) -> None:
    heads = [tr("ui.col.metric", lang), tr("ui.col.range", lang), tr("ui.col.shape", lang), tr("ui.col.curve", lang)]
    rng = [f"{r.start} → {r.end}" if r.logged else tr("ui.not_logged", lang) for r in rows]
    w0 = max(display_width(heads[0]), *(len(r.metric) for r in rows))
    w1 = max(display_width(heads[1]), *(display_width(x) for x in rng))
    room = out.width - 2 - w0 - w1 - 6
    # The shape word is the point of the table: it gets its width first, the sparkline the rest.
    w2 = max(display_width(heads[2]), min(room - 8, max((display_width(r.shape) for r in rows), default=0)))
    w3 = max(8, min(24, room - w2))
    if not any(r.values is not None for r in rows):  # no run given: no curve column at all
        heads[3] = ""
    out.add("  " + "  ".join([pad(heads[0], w0), pad(heads[1], w1), pad(heads[2], w2), heads[3]]).rstrip())
    for r, rg in zip(rows, rng):
        spark = sparkline(r.values, w3, rel_floor=SPARK_FLOOR) if (r.logged and r.values is not None) else ""
        code = "33" if r.word in ("drift", "spike") else None
        shape = out.paint(pad(clip_text(r.shape, w2), w2), code)
        line = "  " + "  ".join([pad(r.metric, w0), pad(rg, w1), shape, spark])
        out.add(line.rstrip())


def finding_meta(f: Finding, lang: str) -> str:
    """" · since step N · confidence P%": the tail of a finding's heading (text and markdown)."""
    meta = ""
    if f.onset_step is not None:
        meta += " · " + tr("ui.since_step", lang, step=f.onset_step)
    if f.confidence < 1.0:
        meta += " · " + tr("ui.confidence", lang, pct=f"{100 * f.confidence:.0f}%")
    return meta


def _finding(out: _Out, i: int, f: Finding, lang: str) -> None:
    sev = tr(f"ui.severity.{f.severity}", lang, f.severity)
    head = f"{i}. [{out.paint(sev, _COLORS.get(f.severity), bold=True)}] {finding_title(f.id, lang)} ({f.id})"
    head += finding_meta(f, lang)
    out.para(head, "     ", "  ")
    ind = "     "
    summary = finding_summary(f, lang)
    if summary:
        out.para(summary, ind, ind)
    # An info note on a healthy run stays short: its summary already carries the numbers
    # (the JSON always has the full evidence).
    if f.evidence and not (f.severity == "info" and summary):
        out.para(label("ui.evidence", lang) + evidence_text(f, lang), ind + "  ", ind)
    for r in f.ruled_out:
        out.para(label("ui.ruled_out", lang) + ruled_out_text(r, lang), ind + "  ", ind)
    if f.missing:
        out.para(label("ui.missing", lang) + missing_text(f.missing, lang), ind + "  ", ind)
    if f.action is not None:
        out.para(out.paint("→ ", "1") + label(next_key(f), lang) + action_text(f.action, lang), ind + "  ", ind)
    if f.samples:
        out.add(ind + label("ui.samples", lang).rstrip())
        for s in f.samples:
            quote = clip_text(" ".join(str(s).split()), out.width - len(ind) - 4)
            out.add(f"{ind}  “{quote}”")


def summary_text(diag: Diagnosis, lang: str = "en") -> str:
    """`str(diagnosis)`: the run line, the verdict, one heading and one sentence per finding."""
    lines = [f"{tr('ui.diag.title', lang)} · {run_line(diag, lang)}"]
    v = diag.verdict
    gloss = verdict_gloss(diag, lang)
    lines.append(label("ui.verdict_label", lang) + tr(f"ui.verdict.{v}", lang, v.upper()) + (f" — {gloss}" if gloss else ""))
    if not any(f.severity != "info" for f in diag.findings):
        lines.append(no_warnings_text(diag, lang))
    for i, f in enumerate(ordered(diag), 1):
        sev = tr(f"ui.severity.{f.severity}", lang, f.severity)
        lines.append(f"  {i}. [{sev}] {finding_title(f.id, lang)} ({f.id}){finding_meta(f, lang)}")
        summary = finding_summary(f, lang)
        if summary:
            lines.append(f"     {summary}")
    return "\n".join(lines)


def render_text(diag: Diagnosis, lang: str = "en", width: int = 100, *, run: Run | None = None,
                color: bool | None = None) -> str:
    """The full terminal report.  `run` (optional) adds a sparkline per vital."""
    width = max(60, int(width))
    out = _Out(width, use_color() if color is None else color)
    out.para(f"{tr('ui.diag.title', lang)} · {run_line(diag, lang)}", "  ", "")
    if segment_count(diag) > 1:
        n = segment_count(diag)
        out.para(tr("ui.segments", lang, n=n, restarts=n - 1), "  ", "  ")
    out.add()
    v = diag.verdict
    word = tr(f"ui.verdict.{v}", lang, v.upper())
    gloss = verdict_gloss(diag, lang)
    verdict = out.paint(word, _COLORS.get(v), bold=True)
    out.para(f"{label('ui.verdict_label', lang)}{verdict}" + (f" — {gloss}" if gloss else ""), "    ", "  ")
    serious = [f for f in ordered(diag) if f.severity != "info"]
    infos = [f for f in ordered(diag) if f.severity == "info"]
    if serious:
        top = serious[0]
        title = finding_title(top.id, lang)
        if top.onset_step is not None:
            title += ", " + tr("ui.since_step", lang, step=top.onset_step)
        out.para(tr("ui.main_finding", lang, title=title), "    ", "  ")
    else:
        out.para(no_warnings_text(diag, lang), "    ", "  ")
    out.add()
    out.add(out.paint(tr("ui.vitals", lang), "1"))
    _table(out, vital_rows(diag, lang, run), lang)
    if serious:
        out.add()
        out.add(out.paint(f"{tr('ui.findings', lang)} ({len(serious)})", "1"))
        for i, f in enumerate(serious, 1):
            _finding(out, i, f, lang)
    if infos:
        out.add()
        out.add(out.paint(f"{tr('ui.worth_watching', lang)} ({len(infos)})", "1"))
        for i, f in enumerate(infos, len(serious) + 1):
            _finding(out, i, f, lang)
    notes = run_notes(diag, lang)
    if notes:
        out.add()
        out.add(out.paint(tr("ui.notes", lang), "1"))
        for note in notes:
            out.para(note, "    ", "  - ")
    return "\n".join(out.lines) + "\n"
