"""`rlvitals compare` in the terminal, in Markdown and in HTML.

Two runs: the step where they part ways and the first metric to diverge, then each run's verdict
and findings side by side (HTML: every metric both logged, the two curves overlaid, the parting
marked).  Any number of runs: one table, one row a run, dead and unstable runs first, with the
goal's gain, the verdict, the top finding and its onset (HTML: small multiples of reward and goal).
"""

from __future__ import annotations

import glob
import os
import sys
from pathlib import Path
from typing import Any

from ..compare import Parting, Row, part_ways, ranked, summarize
from ..errors import RlvitalsError
from ..i18n import default_lang
from ..output import check_output, writing
from ..run import CANONICAL, PERCENT_METRICS
from .html import chart_words
from .htmlkit import chart_spec, clean, esc, page
from .words import finding_title, fmt_num, tr, verdict_gloss

__all__ = ["compare_html", "compare_markdown", "compare_text", "load_rows", "render_compare"]

_A, _B = "#1f77b4", "#e6550d"


def load_rows(
    paths: list[str], *, fmt: str | None = None, mapping: list[str] | None = None
) -> tuple[list[Row], list[tuple[str, str]]]:
    """Read and diagnose each log (a folder that is not a TensorBoard log dir stands for the files
    in it).  A log that cannot be read is skipped and reported (path, one-line reason)."""
    from ..diagnose import diagnose
    from ..ingest import read
    from ..ingest.mapping import parse_map, require_vitals

    expanded: list[str] = []
    for p in paths:
        path = Path(p)
        if not path.exists() and any(ch in p for ch in "*?["):  # a glob the shell did not expand
            expanded += sorted(glob.glob(p)) or [p]
        elif path.is_dir() and not any("tfevents" in f.name for f in path.iterdir()):
            # a sweep: each file, and each sub-folder (a TensorBoard log dir per run), is a run
            expanded += sorted(str(f) for f in path.iterdir() if not f.name.startswith("."))
        else:
            expanded.append(p)
    rows: list[Row] = []
    skipped: list[tuple[str, str]] = []
    names = _labels(expanded)
    for p, label in zip(expanded, names):
        try:
            run = read(p, format=fmt, mapping=parse_map(mapping))
            require_vitals(run, p, strict=True)  # no verdict drawn from loss and lr alone
            rows.append(summarize(run, diagnose(run), label))
        except RlvitalsError as e:
            skipped.append((p, str(e).splitlines()[0]))
    if len(rows) < 2:
        why = "; ".join(f"{p}: {r}" for p, r in skipped)
        raise RlvitalsError(
            f"compare needs at least two readable runs, got {len(rows)}" + (f" ({why})" if why else "") + "."
        )
    return rows, skipped


def _labels(paths: list[str]) -> list[str]:
    """Short unique names: the file names, or the paths when two files share a name."""
    names = [Path(p).name or p for p in paths]
    return names if len(set(names)) == len(names) else list(paths)


def _verdict(r: Row, lang: str) -> str:
    return tr(f"ui.verdict.{r.diag.verdict}", lang, r.diag.verdict.upper())


def _gain(r: Row) -> str:
    g = r.gain
    if g is None or r.goal_metric is None:
        return "—"
    if r.goal_metric in PERCENT_METRICS:
        return f"{r.goal_metric} {100 * g:+.1f} pp"
    return f"{r.goal_metric} {'+' if g >= 0 else ''}{fmt_num(g)}"


def _top(r: Row, lang: str) -> str:
    if r.top is None:
        return tr("compare.none", lang)
    sev = f"[{tr('ui.severity.info', lang, 'info')}] " if r.top.severity == "info" else ""
    return f"{sev}{finding_title(r.top.id, lang)} ({r.top.id})"


def _cells(r: Row, lang: str) -> list[str]:
    onset = "—" if r.onset is None else str(r.onset)
    return [clean(r.label), _verdict(r, lang), _gain(r), _top(r, lang), onset]


def _heads(lang: str) -> list[str]:
    return [tr(f"compare.col.{k}", lang) for k in ("run", "verdict", "goal", "top", "onset")]


def _part_line(p: Parting, lang: str) -> str:
    if p.common_steps < 10:
        return tr("compare.no_steps", lang)
    if p.step is None:
        return tr("compare.part_none", lang)
    return tr("compare.part", lang, step=p.step, metric=p.metric)


def _order_line(p: Parting, lang: str) -> str:
    parts = [f"{m} @{s}" for m, s in p.by_metric.items() if s is not None]
    return tr("compare.order", lang, metrics=", ".join(parts[:6])) if parts else ""


def _findings(r: Row, lang: str) -> list[str]:
    out = []
    for f in sorted(r.diag.findings, key=lambda f: f.rank):
        since = "" if f.onset_step is None else " · " + tr("ui.since_step", lang, step=f.onset_step)
        out.append(f"[{tr(f'ui.severity.{f.severity}', lang, f.severity)}] {finding_title(f.id, lang)}{since}")
    return out or [tr("compare.none", lang)]


def compare_text(rows: list[Row], lang: str = "en") -> str:
    lines = [tr("compare.title", lang), ""]
    if len(rows) == 2:
        a, b = rows
        p = part_ways(a.run, b.run)
        lines += [f"A = {clean(a.label)}", f"B = {clean(b.label)}", "", _part_line(p, lang)]
        if _order_line(p, lang):
            lines.append(_order_line(p, lang))
        lines.append("")
        for tag, r in (("A", a), ("B", b)):
            gloss = verdict_gloss(r.diag, lang)
            lines.append(f"{tag}: {_verdict(r, lang)}" + (f" — {gloss}" if gloss else ""))
            lines += [f"   {x}" for x in _findings(r, lang)]
        lines.append("")
    table = [_heads(lang)] + [_cells(r, lang) for r in ranked(rows)]
    widths = [max(_width(row[i]) for row in table) for i in range(len(table[0]))]
    for k, row in enumerate(table):
        lines.append("  ".join(c + " " * (w - _width(c)) for c, w in zip(row, widths)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines += ["", tr("compare.sorted", lang)]
    return "\n".join(lines) + "\n"


def _width(s: str) -> int:
    return sum(2 if ord(ch) > 0x2E80 else 1 for ch in s)


def compare_markdown(rows: list[Row], lang: str = "en") -> str:
    def cell(s: str) -> str:
        return s.replace("|", "\\|").replace("\n", " ")

    lines = [f"### {tr('compare.title', lang)}", ""]
    if len(rows) == 2:
        a, b = rows
        p = part_ways(a.run, b.run)
        lines += [f"**{cell(_part_line(p, lang))}**", ""]
        if _order_line(p, lang):
            lines += [cell(_order_line(p, lang)), ""]
        lines += [
            f"| | A: `{cell(clean(a.label))}` | B: `{cell(clean(b.label))}` |",
            "|---|---|---|",
            f"| {tr('compare.col.verdict', lang)} | {_verdict(a, lang)} | {_verdict(b, lang)} |",
            f"| {tr('ui.findings', lang)} | {cell('<br>'.join(_findings(a, lang)))} | "
            f"{cell('<br>'.join(_findings(b, lang)))} |",
            "",
        ]
    lines += ["| " + " | ".join(_heads(lang)) + " |", "|" + "---|" * 5]
    lines += ["| " + " | ".join(cell(c) for c in _cells(r, lang)) + " |" for r in ranked(rows)]
    lines += ["", tr("compare.sorted", lang)]
    return "\n".join(lines) + "\n"


def compare_html(rows: list[Row], lang: str = "en", *, max_points: int = 1000) -> str:
    words = chart_words(lang)
    charts: list[dict[str, Any]] = []
    body = [f"<h1>{esc(tr('compare.title', lang))}</h1>"]

    def chart(spec: dict[str, Any], cls: str = "card") -> str:
        charts.append(spec)
        return f'<div class="{cls}"><div class="rlv-chart" data-chart="{len(charts) - 1}"></div></div>'

    if len(rows) == 2:
        a, b = rows
        p = part_ways(a.run, b.run)
        body.append(
            f'<p class="next" id="parting"><b>{esc(_part_line(p, lang))}</b><br>{esc(_order_line(p, lang))}</p>'
        )
        body.append(
            '<table id="side"><tr><th></th>'
            f'<th><span style="color:{_A}">■</span> A: {esc(a.label)}</th>'
            f'<th><span style="color:{_B}">■</span> B: {esc(b.label)}</th></tr>'
            f"<tr><td>{esc(tr('compare.col.verdict', lang))}</td>"
            + "".join(
                f'<td><span class="verdict v-{esc(r.diag.verdict)}">{esc(_verdict(r, lang))}</span> '
                f"{esc(verdict_gloss(r.diag, lang))}</td>"
                for r in (a, b)
            )
            + f"</tr><tr><td>{esc(tr('ui.findings', lang))}</td>"
            + "".join(
                "<td><ul>" + "".join(f"<li>{esc(x)}</li>" for x in _findings(r, lang)) + "</ul></td>" for r in (a, b)
            )
            + "</tr></table>"
        )
        body.append('<div class="grid">')
        both = [m for m in CANONICAL if m in a.run.series and m in b.run.series]
        parted = [m for m, s in p.by_metric.items() if s is not None and m in both]
        for m in parted + [m for m in both if m not in parted]:  # the first to part first
            title = m + (" (%)" if m in PERCENT_METRICS else "")
            sa = chart_spec(a.run, m, title=title, max_points=max_points, group="cmp", words=words)
            sb = chart_spec(b.run, m, title=title, max_points=max_points, group="cmp", words=words)
            for s, tag, color in ((sa["s"], "A", _A), (sb["s"], "B", _B)):
                for line in s:
                    line["n"] = f"{tag}" + (f" {line['n']}" if line["n"] else "")
                    line["c"] = color
            sa["s"] += sb["s"]
            sa["nan"] = sorted(set(sa.get("nan", [])) | set(sb.get("nan", [])))
            own = p.by_metric.get(m)
            sa["v"] = (
                []
                if own is None
                else [
                    {
                        "x": own,
                        "l": tr("compare.col.diverges", lang) + f" {own}",
                        "c": "#d94801" if m == p.metric else "#555",
                    }
                ]
            )
            body.append(chart(sa))
        body.append("</div>")
    table = ['<table id="runs"><tr>' + "".join(f"<th>{esc(h)}</th>" for h in _heads(lang)) + "</tr>"]
    for r in ranked(rows):
        c = _cells(r, lang)
        table.append(
            f'<tr><td>{esc(c[0])}</td><td><span class="verdict v-{esc(r.diag.verdict)}" '
            f'style="font-size:12px;padding:1px 6px;margin:0">{esc(c[1])}</span></td>'
            + "".join(f"<td>{esc(x)}</td>" for x in c[2:])
            + "</tr>"
        )
    body += [
        f"<h2>{esc(tr('compare.col.run', lang))} ({len(rows)})</h2>",
        f'<p class="muted">{esc(tr("compare.sorted", lang))}</p>',
        "".join(table) + "</table>",
    ]
    if len(rows) > 2:
        body.append('<div class="grid" id="multiples">')
        for r in ranked(rows):
            goal = r.goal_metric if r.goal_metric in r.run.series else ("acc" if "acc" in r.run.series else "reward")
            if goal not in r.run.series:
                continue
            top = (
                []
                if r.top is None or r.top.onset_step is None or r.top.severity == "info"
                else [(r.top.onset_step, finding_title(r.top.id, lang), r.top.severity)]
            )
            spec = chart_spec(
                r.run,
                goal,
                title=f"{r.label} — {_verdict(r, lang)} — {goal}",
                max_points=300,
                group=f"m{len(charts)}",
                onsets=top,
                words=words,
            )
            body.append(chart(spec))
        body.append("</div>")
    return page(
        tr("compare.title", lang), "\n".join(body), {"charts": charts, "words": {"step": tr("report.step", lang)}}, lang
    )


def render_compare(
    rows: list[Row],
    skipped: list[tuple[str, str]],
    *,
    fmt: str | None = None,
    lang: str | None = None,
    output: str | os.PathLike[str] | None = None,
) -> int:
    lang = lang or default_lang()
    out = check_output(output) if output else None
    if fmt is None:
        fmt = "html" if out is not None and out.suffix.lower() in (".html", ".htm") else "text"
    if fmt == "html" and out is None:
        raise RlvitalsError("compare --format html needs -o FILE.html.")
    text = {"text": compare_text, "markdown": compare_markdown, "html": compare_html}[fmt](rows, lang)
    for path, why in skipped:
        print(f"rlvitals: skipped {clean(path)}: {clean(why)}", file=sys.stderr)
    if out is not None:
        with writing(out):
            out.write_text(text, encoding="utf-8")
        print(f"→ {out}", file=sys.stderr)
    else:
        with writing("standard output"):
            sys.stdout.write(text)
            sys.stdout.flush()
    return 0
