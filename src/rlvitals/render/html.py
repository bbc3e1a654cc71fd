"""`rlvitals report RUN -o report.html`: the diagnosis and every logged vital in one offline file.

    render_report(run, diag, lang="en") -> str          # the HTML document
    write_report(run, "report.html", lang="en") -> Path # diagnoses the run when no diagnosis is given

At the top the verdict and the next knob; then every panel that has data (reward beside the goal,
the reward's components and reward_std when logged), interactive (zoom, hover), with the lesson's
healthy band on adv_std, the y = 1 line on ratio_mean and each finding's onset on the panels it
rests on; then the findings with their evidence, what was ruled out and by which metric, and the
knob with its source; each curve's shape; the notes.  The words are words.py's, the same as the
terminal and Markdown reports say.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..diagnose.model import Diagnosis, Finding
from ..errors import RlvitalsError
from ..i18n import localize
from ..output import check_output, writing
from ..run import PERCENT_METRICS, Run
from .htmlkit import chart_spec, esc, page
from .panels import COMPONENTS, REWARD_STD, missing_vitals, panel_names, reward_std
from .plot import finding_metrics
from .terminal import finding_meta
from .words import (
    action_text,
    evidence_text,
    finding_summary,
    finding_title,
    fmt_num,
    missing_text,
    next_key,
    no_warnings_text,
    ordered,
    ruled_out_text,
    run_line,
    run_notes,
    tr,
    verdict_gloss,
    vital_rows,
)

__all__ = ["chart_words", "cited_panels", "onset_marks", "panel_title", "render_report", "write_report"]

MAX_POINTS = 2000


def chart_words(lang: str) -> dict[str, str]:
    return {
        "train": tr("plot.train", lang),
        "val": tr("plot.val", lang),
        "healthy_band": tr("plot.healthy_band", lang).replace("\n", "; "),
        "ratio_ref": tr("plot.ratio_ref", lang),
        "clip_ref": tr("plot.clip_ref", lang),
    }


def onset_marks(diag: Diagnosis | None, lang: str) -> dict[str, list[tuple[int, str, str]]]:
    """metric -> (onset step, finding title, severity) for each warning or critical finding."""
    marks: dict[str, list[tuple[int, str, str]]] = {}
    for f in ordered(diag) if diag is not None else []:
        if f.severity == "info" or f.onset_step is None:
            continue
        for m in cited_panels(f):
            marks.setdefault(m, []).append((int(f.onset_step), finding_title(f.id, lang), f.severity))
    return marks


def cited_panels(f: Finding) -> list[str]:
    """The panels a finding rests on: its evidence's metrics, and the reward's components when it
    names one (the gamed term, or a correctness term read as the goal)."""
    out = finding_metrics(f)
    if "rising_component" in f.evidence or any(
        isinstance(v, str) and v.startswith("component:") for v in f.evidence.values()
    ):
        out.append(COMPONENTS)
    return out


def panel_title(run: Run, name: str, lang: str) -> str:
    if name == COMPONENTS:
        return tr("report.components", lang)
    if name == REWARD_STD:
        s = reward_std(run)
        return REWARD_STD + (f" ({s.source})" if s is not None and s.source and s.source != REWARD_STD else "")
    s = run.series.get(name) or (run.series.get("val_acc") if name == "acc" else None)
    title = name + (" (%)" if name in PERCENT_METRICS else "")
    if s is not None and s.source and s.source not in (name, "simulated"):
        title += f" ← {s.source}"
    if s is not None and s.proxy:
        title += f" · {tr('plot.proxy', lang)}"
    return title


def _chart_notes(run: Run, name: str, lang: str) -> list[str]:
    s = run.series.get(name)
    if s is None or not len(s):
        return []
    notes = []
    bad = int((~s.finite).sum())
    if bad:
        notes.append(tr("plot.nonfinite", lang, n=bad) + (" — " + tr("plot.no_finite", lang) if bad == len(s) else ""))
    elif s.is_constant and s.values[0] == 0:
        notes.append(tr("plot.clip_na" if name == "clip_frac" else "plot.all_zero", lang))
    if s.proxy and s.note:
        notes.append(localize(s.note, lang))
    return notes


def _finding_html(f: Finding, lang: str, shown: set[str]) -> str:
    sev = tr(f"ui.severity.{f.severity}", lang, f.severity)
    out = [
        f'<article class="finding sev-{esc(f.severity)}" id="finding-{esc(f.id)}">',
        f'<h3>{esc(finding_title(f.id, lang))} <code>{esc(f.id)}</code> <span class="sev">{esc(sev)}</span>'
        f'<span class="muted">{esc(finding_meta(f, lang))}</span></h3>',
    ]
    summary = finding_summary(f, lang)
    if summary:
        out.append(f"<p>{esc(summary)}</p>")
    if f.evidence:
        out.append(f"<p><b>{esc(tr('report.evidence', lang))}</b>: {esc(evidence_text(f, lang))}</p>")
    cites = [m for m in cited_panels(f) if m in shown]
    if cites and f.severity != "info":
        out.append(f'<p class="muted">{esc(tr("report.cites", lang, metrics=", ".join(cites)))}</p>')
    if f.ruled_out:
        out.append(f"<p><b>{esc(tr('report.ruled_out', lang))}</b></p><ul>")
        out += [f"<li>{esc(ruled_out_text(r, lang))}</li>" for r in f.ruled_out]
        out.append("</ul>")
    if f.missing:
        out.append(
            f"<p>{esc(tr('ui.label', lang, text=tr('ui.missing', lang)))}{esc(missing_text(f.missing, lang))}</p>"
        )
    if f.action is not None:
        out.append(f"<p><b>{esc(tr(next_key(f), lang))}</b> {esc(action_text(f.action, lang))}</p>")
    for s in f.samples:
        out.append(f"<blockquote>{esc(' '.join(str(s).split()))}</blockquote>")
    out.append("</article>")
    return "\n".join(out)


def _head(run: Run, diag: Diagnosis, lang: str) -> list[str]:
    v = diag.verdict
    gloss = verdict_gloss(diag, lang)
    out = [
        f"<h1>{esc(tr('report.title', lang, name=run.name or 'run'))}</h1>",
        f'<p class="muted">{esc(run_line(diag, lang))}</p>',
        f'<div class="verdict v-{esc(v)}" id="verdict">{esc(tr(f"ui.verdict.{v}", lang, v.upper()))}</div>'
        + (f" <span>{esc(gloss)}</span>" if gloss else ""),
    ]
    top = next((f for f in ordered(diag) if f.severity != "info"), None)
    if top is not None and top.action is not None:
        knob = f"{finding_title(top.id, lang)}{finding_meta(top, lang)} — {action_text(top.action, lang)}"
        out.append(
            f'<div class="next" id="next"><b>{esc(tr("ui.label", lang, text=tr("report.next", lang)))}</b>{esc(knob)}</div>'
        )
    elif top is None:
        out.append(f'<div class="next" id="next">{esc(no_warnings_text(diag, lang))}</div>')
    return out


def render_report(run: Run, diag: Diagnosis, lang: str = "en", *, max_points: int = MAX_POINTS) -> str:
    """The report of `run` and its diagnosis as one HTML document (a string)."""
    marks = onset_marks(diag, lang)
    names = panel_names(run, list(marks))
    words = chart_words(lang)
    # a resumed run: where the step counter ran forward again (the later segment wins on overlaps)
    restarts = [{"x": x, "l": tr("plot.restart", lang), "c": "#555555"} for x in run.restart_steps()]
    charts: list[dict[str, Any]] = []
    cells = []
    for name in names:
        spec = chart_spec(
            run,
            name,
            title=panel_title(run, name, lang),
            max_points=max_points,
            onsets=marks.get(name, []),
            words=words,
        )
        spec["notes"] = _chart_notes(run, name, lang)
        spec["v"] += restarts
        cells.append(
            f'<div class="card"><div class="rlv-chart" id="chart-{esc(name)}" data-chart="{len(charts)}"></div></div>'
        )
        charts.append(spec)
    body = (
        ["<header>"]
        + _head(run, diag, lang)
        + [
            "</header>",
            f'<section id="curves"><h2>{esc(tr("report.curves", lang))}</h2>',
            f'<p class="muted">{esc(tr("report.hint", lang))}</p>',
            '<div class="grid">',
        ]
        + cells
        + ["</div>"]
    )
    missing = missing_vitals(run)
    if missing:
        body.append(
            f'<p class="muted" id="not-logged">{esc(tr("report.not_logged", lang, metrics=", ".join(missing)))}</p>'
        )
    body.append("</section>")
    shown = set(names)
    serious = [f for f in ordered(diag) if f.severity != "info"]
    infos = [f for f in ordered(diag) if f.severity == "info"]
    if serious:
        body.append(f'<section id="findings"><h2>{esc(tr("ui.findings", lang))} ({len(serious)})</h2>')
        body += [_finding_html(f, lang, shown) for f in serious] + ["</section>"]
    if infos:
        body.append(f'<section id="watching"><h2>{esc(tr("ui.worth_watching", lang))} ({len(infos)})</h2>')
        body += [_finding_html(f, lang, shown) for f in infos] + ["</section>"]
    body.append(_shapes(diag, lang, run))
    notes = run_notes(diag, lang)
    if notes:
        body.append(f'<section id="notes"><h2>{esc(tr("ui.notes", lang))}</h2><ul>')
        body += [f"<li>{esc(n)}</li>" for n in notes] + ["</ul></section>"]
    from .. import __version__

    body.append(f'<footer class="muted"><p>{esc(tr("report.footer", lang, version=__version__))}</p></footer>')
    data = {"charts": charts, "words": {"step": tr("report.step", lang)}}
    return page(tr("report.title", lang, name=run.name or "run"), "\n".join(body), data, lang)


def _shapes(diag: Diagnosis, lang: str, run: Run) -> str:
    rows = [r for r in vital_rows(diag, lang, run) if r.logged]
    if not rows:
        return ""
    head = "".join(f"<th>{esc(tr(k, lang))}</th>" for k in ("ui.col.metric", "ui.col.range", "ui.col.shape"))
    body = "".join(
        f"<tr><td><code>{esc(r.metric)}</code></td><td>{esc(r.start)} → {esc(r.end)}</td><td>{esc(r.shape)}</td></tr>"
        for r in rows
    )
    goal = diag.run.get("goal") if isinstance(diag.run, dict) else None
    extra = ""
    if goal:
        extra = (
            f'<p class="muted">{esc(tr("report.goal", lang))}: <code>{esc(goal.get("metric"))}</code> '
            f"{esc(fmt_num(goal.get('start')))} → {esc(fmt_num(goal.get('end')))}</p>"
        )
    return (
        f'<section id="shapes"><h2>{esc(tr("report.shapes", lang))}</h2><table><tr>{head}</tr>{body}</table>'
        f"{extra}</section>"
    )


def write_report(
    run: Run,
    path: str | os.PathLike[str] = "report.html",
    *,
    lang: str = "en",
    diagnosis: Diagnosis | None = None,
    max_points: int = MAX_POINTS,
) -> Path:
    """Write the report of `run` to `path` (.html/.htm) and return the path."""
    out = check_output(path)
    if out.suffix.lower() not in (".html", ".htm"):
        raise RlvitalsError(f"Cannot write the report to {out.name}: the file name must end in .html.")
    if max_points and max_points < 4:
        raise RlvitalsError(f"--max-points must be 0 (no decimation) or at least 4, not {max_points}.")
    if diagnosis is None:
        from ..diagnose import diagnose

        diagnosis = diagnose(run)
    text = render_report(run, diagnosis, lang, max_points=max_points)
    with writing(out):
        out.write_text(text, encoding="utf-8")
    return out
