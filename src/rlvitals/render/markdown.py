"""The diagnosis as GitHub-flavoured markdown, for a PR comment or a run's README.

Same content as the terminal report (built from the same pieces, words.py): the verdict
as a heading, the vitals as a table, findings as bullets with their arithmetic nested under them.
No colour, no width: markdown viewers wrap.  Pipes in cells are escaped.
"""

from __future__ import annotations

from ..diagnose.model import Diagnosis, Finding
from ..run import Run
from ..safe_text import escape_controls
from .charts import sparkline
from .terminal import finding_meta
from .words import (
    SPARK_FLOOR,
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

__all__ = ["render_markdown"]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{text}`" if "`" not in text else text


def _finding(f: Finding, lang: str) -> list[str]:
    sev = tr(f"ui.severity.{f.severity}", lang, f.severity)
    head = f"- **{finding_title(f.id, lang)}** (`{f.id}`, {sev})" + finding_meta(f, lang)
    lines = [head]
    summary = finding_summary(f, lang)
    if summary:
        lines.append(f"  {summary}")
    if f.evidence:
        lines.append(f"  - {label('ui.evidence', lang)}{evidence_text(f, lang)}")
    for r in f.ruled_out:
        lines.append(f"  - {label('ui.ruled_out', lang)}{ruled_out_text(r, lang)}")
    if f.missing:
        lines.append(f"  - {label('ui.missing', lang)}{missing_text(f.missing, lang)}")
    if f.action is not None:
        lines.append(f"  - **{label(next_key(f), lang).rstrip()}** {action_text(f.action, lang)}")
    if f.samples:
        lines.append(f"  - {label('ui.samples', lang).rstrip()}")
        for s in f.samples:
            lines.append(f"    > {' '.join(str(s).split())}")
    return lines


def render_markdown(diag: Diagnosis, lang: str = "en", *, run: Run | None = None) -> str:
    v = diag.verdict
    word = tr(f"ui.verdict.{v}", lang, v.upper())
    gloss = verdict_gloss(diag, lang)
    lines = [
        f"### {tr('ui.diag.title', lang)}: {word}" + (f" — {gloss}" if gloss else ""),
        "",
        _cell(run_line(diag, lang)),
    ]
    if segment_count(diag) > 1:
        lines.append("")
        lines.append(segments_text(diag, lang))
    serious = [f for f in ordered(diag) if f.severity != "info"]
    infos = [f for f in ordered(diag) if f.severity == "info"]
    if not serious:
        lines += ["", no_warnings_text(diag, lang)]
    rows = vital_rows(diag, lang, run)
    with_curve = run is not None
    heads = [tr("ui.col.metric", lang), tr("ui.col.range", lang), tr("ui.col.shape", lang)]
    if with_curve:
        heads.append(tr("ui.col.curve", lang))
    lines += ["", "| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for r in rows:
        rng = f"{r.start} → {r.end}" if r.logged else f"*{tr('ui.not_logged', lang)}*"
        cells = [_code(r.metric), rng, r.shape]
        if with_curve:
            cells.append(sparkline(r.values, 24, rel_floor=SPARK_FLOOR) if (r.logged and r.values is not None) else "")
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    if serious:
        lines += ["", f"**{tr('ui.findings', lang)} ({len(serious)})**", ""]
        for f in serious:
            lines += _finding(f, lang)
    if infos:
        lines += ["", f"**{tr('ui.worth_watching', lang)} ({len(infos)})**", ""]
        for f in infos:
            lines += _finding(f, lang)
    notes = run_notes(diag, lang)
    if notes:
        lines += ["", f"**{tr('ui.notes', lang)}**", ""] + [f"- {n}" for n in notes]
    return escape_controls("\n".join(lines) + "\n")
