"""The diagnosis as terminal text: the verdict first, the vitals table, then each finding's arithmetic.

Layout (every line fits `width` display columns; Chinese counts two per character):

    rlvitals diagnosis · run · format · N steps (first → last)
      Verdict  DEAD — stop and fix it before burning more GPU hours
    Vitals      table: metric, start → end, shape word, sparkline; "not logged" rows
    Findings    1. [critical] title · since step N
                   summary / evidence / ruled out / missing / next / samples

A healthy run gets a short, calm report ("No warnings").  The pieces every format shares
(localised titles, ruled-out sentences, the action line, the shape labels) live in words.py and are
reused by markdown.py and jsonout.py, so the three formats can never say different things.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TextIO

from ..diagnose.model import Diagnosis, Finding
from ..run import Run
from ..safe_text import colours
from ..safe_text import paint as safe_paint
from .charts import clip_text, display_width, pad, sparkline
from .words import (
    SPARK_FLOOR,
    VitalRow,
    action_text,
    evidence_text,
    finding_summary,
    finding_title,
    label,
    missing_text,
    next_key,
    no_warnings_text,
    ordered,
    ruled_out_text,
    run_line,
    run_notes,
    segment_count,
    segments_text,
    tr,
    verdict_gloss,
    vital_rows,
)

__all__ = ["finding_meta", "render_text", "use_color", "wrap"]

_COLORS = {
    "learning": "32",
    "cheating": "35",
    "dead": "31",
    "unstable": "33",
    "critical": "31",
    "warning": "33",
    "info": "36",
}


# ---------------------------------------------------------------- text layout


def use_color(stream: TextIO | None = None) -> bool:
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
            tok, cur = tok[len(piece) :], indent
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
        return safe_paint(text, code, bold)

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
    """ " · since step N · confidence P%": the tail of a finding's heading (text and markdown)."""
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


def render_text(
    diag: Diagnosis, lang: str = "en", width: int = 100, *, run: Run | None = None, color: bool | None = None
) -> str:
    """The full terminal report.  `run` (optional) adds a sparkline per vital."""
    width = max(60, int(width))
    out = _Out(width, use_color() if color is None else color)
    out.para(f"{tr('ui.diag.title', lang)} · {run_line(diag, lang)}", "  ", "")
    if segment_count(diag) > 1:
        out.para(segments_text(diag, lang), "  ", "  ")
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
    # Text from the log (its name, keys in the notes) is escaped; only our own colours are real.
    return colours("\n".join(out.lines) + "\n")
