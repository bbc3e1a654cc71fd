"""`rlvitals vitals`: what was read from a log, metric by metric (text or JSON "rlvitals.vitals/1").

The point is trust: before believing a diagnosis, a practitioner checks that the tool read the
right key for each vital, how many points, the range, the NaNs, and what it did *not* read.
So every canonical metric is listed (absent ones as "not logged"), proxies say what they stand in
for, and nothing dropped is hidden: unrecognised keys and skipped lines are counted by reason.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np

from ..i18n import localize
from ..run import CANONICAL, Run, Series
from ..safe_text import escape_controls
from ..stats import ends
from .charts import clip_text, display_width, fmt_value, is_fraction, pad
from .jsonout import clean
from .terminal import wrap
from .words import fmt_num, reason_text, tr

__all__ = ["SCHEMA", "render_vitals", "vitals_dict"]

SCHEMA = "rlvitals.vitals/1"
_LIST_LIMIT = 20  # keys shown per section in text; JSON always has all of them


def _metric(s: Series) -> dict[str, Any]:
    fin = s.values[np.isfinite(s.values)]
    start, end = ends(fin)
    return {
        "source": s.source,
        "proxy": bool(s.proxy),
        "note": s.note,
        "count": len(s),
        "first": float(s.values[0]) if len(s) else None,
        "last": float(s.values[-1]) if len(s) else None,
        "start": start if fin.size else None,
        "end": end if fin.size else None,
        "min": float(fin.min()) if fin.size else None,
        "max": float(fin.max()) if fin.size else None,
        "nan": int(np.count_nonzero(~np.isfinite(s.values))),
        "constant": bool(s.is_constant),
        "first_step": int(s.steps[0]) if len(s) else None,
        "last_step": int(s.steps[-1]) if len(s) else None,
    }


def _union_steps(run: Run) -> np.ndarray:
    """`run.steps`, but without sorting 10^7 integers when every series shares one step axis
    (the usual case: np.unique over 13 metrics × 10^6 steps takes seconds)."""
    arrays = [s.steps for s in run.series.values()]
    if not arrays:
        return np.empty(0, dtype=np.int64)
    first = arrays[0]
    if all(a is first or (a.shape == first.shape and np.array_equal(a, first)) for a in arrays[1:]):
        return first
    return run.steps


def _runs(run: Run) -> list[dict[str, Any]]:
    """Every run of a file that holds several (the step counter restarted at step <= 1)."""
    out = []
    for i, r in enumerate(run.file_runs):
        segs = r.segments
        out.append(
            {
                "index": i + 1,
                "first_step": segs[0].first_step if segs else None,
                "last_step": max(g.last_step for g in segs) if segs else None,
                "rows": sum(g.rows for g in segs),
                "shown": r is run,
            }
        )
    return out


def _opening(run: Run) -> dict[str, Any]:
    """How the file was opened, only when it says something: layers undone, --map, the fallback."""
    out: dict[str, Any] = {}
    layers, mapping = run.meta.get("input"), run.meta.get("mapping")
    if isinstance(layers, list) and layers:
        out["input"] = list(layers)  # stdin, gzip, utf-16-le, …
    if isinstance(mapping, dict) and mapping:
        out["mapping"] = dict(mapping)  # --map CANON=KEY as applied
    if run.meta.get("fallback"):
        out["fallback"] = True  # read by the generic reader
    wandb, ctx = run.meta.get("wandb"), run.meta.get("context")
    if isinstance(wandb, dict) and wandb:
        out["wandb"] = dict(wandb)  # run id, project, records read (a W&B run)
    if isinstance(ctx, dict) and ctx:
        out["context"] = dict(ctx)  # lr, batch size, group size, length cap from the config
    return out


def _goal(run: Run) -> dict[str, Any] | None:
    """The metric diagnose judges learning by, as the reader chose it (or the user, --map goal=KEY)."""
    got = run.meta.get("goal")
    if isinstance(got, dict):
        return dict(got)
    from ..ingest.components import choose_goal

    chosen = choose_goal(run.series, run.components, run.component_kinds)
    if chosen is None:
        return None
    return {"metric": chosen[0], "key": chosen[1], "by": "reader", "why": chosen[2]}


def vitals_dict(run: Run) -> dict[str, Any]:
    """The JSON object as a cleaned dict.  Absent canonical metrics map to null."""
    steps = _union_steps(run)
    out: dict[str, Any] = clean(
        {
            "schema": SCHEMA,
            "name": run.name,
            "format": run.format,
            "steps": {
                "count": int(steps.size),
                "first": int(steps[0]) if steps.size else None,
                "last": int(steps[-1]) if steps.size else None,
            },
            "segments": [
                {"first_step": g.first_step, "last_step": g.last_step, "first_line": g.first_line, "rows": g.rows}
                for g in run.segments
            ],
            "metrics": {m: (_metric(run.series[m]) if m in run.series else None) for m in CANONICAL},
            "extras": {
                k: {
                    "count": len(s),
                    "first": float(s.values[0]) if len(s) else None,
                    "last": float(s.values[-1]) if len(s) else None,
                }
                for k, s in sorted(run.extras.items())
            },
            "runs": _runs(run),
            "components": {
                k: {"kind": run.component_kinds.get(k, "other"), **_metric(s)} for k, s in run.components.items()
            },
            "evals": {k: _metric(s) for k, s in sorted(run.evals.items())},
            "unrecognized": dict(sorted(run.unrecognized.items())),
            "skipped_lines": dict(sorted(run.skipped.items())),
            "dropped_values": dict(sorted(run.dropped.items())),
            "notes": list(run.notes),
            "goal": _goal(run),
            **_opening(run),
        }
    )
    return out


def _table(rows: list[list[str]], aligns: str) -> list[str]:
    widths = [max(display_width(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(pad(c, w, a) for c, w, a in zip(r, widths, aligns)).rstrip() for r in rows]


def _text(run: Run, lang: str, width: int) -> str:
    d = vitals_dict(run)
    out = [f"{tr('ui.vit.title', lang)} · {run.name}", ""]
    st = d["steps"]
    steps = (
        tr("ui.vit.steps_line", lang, count=st["count"], first=st["first"], last=st["last"])
        if st["count"]
        else tr("ui.vit.no_steps", lang)
    )
    segs = d["segments"]
    seg_text = tr("ui.vit.one_segment", lang) if len(segs) <= 1 else str(len(segs))
    head = [
        [tr("ui.vit.format", lang), run.format],
        [tr("ui.vit.steps", lang), steps],
        [tr("ui.vit.segments", lang), seg_text],
    ]
    if d.get("input"):
        head.append([tr("ingest.vit.input", lang), " → ".join(d["input"])])
    if d.get("mapping"):
        head.append([tr("ingest.vit.mapping", lang), ", ".join(f"{c}={k}" for c, k in d["mapping"].items())])
    goal = d.get("goal")
    head.insert(
        2,
        [
            tr("ui.vit.goal", lang),
            tr(f"ui.vit.goal_{goal.get('why', 'reward')}", lang, src=goal["key"])
            if goal
            else tr("ui.vit.no_goal", lang),
        ],
    )
    if d.get("wandb"):
        w = d["wandb"]
        head.append(
            [
                tr("ingest.vit.wandb", lang),
                tr(
                    "ingest.vit.wandb_line",
                    lang,
                    id=w.get("run_id", "?"),
                    project=w.get("project", "?"),
                    history=w.get("history", 0),
                    version=w.get("wandb_version", "?"),
                    records=w.get("records", 0),
                ),
            ]
        )
    if d.get("context"):
        head.append([tr("ingest.vit.context", lang), ", ".join(f"{k}={fmt_num(v)}" for k, v in d["context"].items())])
    out += _table(head, "<<")
    if d.get("fallback"):
        out += wrap(tr("ingest.vit.fallback", lang), width, "    ", "  ! ")
    if len(segs) > 1:
        from ..ingest.assemble import LISTED_RUNS  # (not at import: rendering needs no reader)

        for g in segs[:LISTED_RUNS]:  # as many as the notes name (all of them in --format json)
            out.append(
                "    - "
                + tr(
                    "ui.vit.segment_line",
                    lang,
                    first=g["first_step"],
                    last=g["last_step"],
                    rows=g["rows"],
                    line=g["first_line"],
                )
            )
        if len(segs) > LISTED_RUNS:
            out.append("    " + tr("ui.vit.more", lang, n=len(segs) - LISTED_RUNS) + " (--format json)")
    if d["runs"]:
        out += ["", tr("ui.vit.runs", lang) + f" ({len(d['runs'])})"]
        for r in d["runs"]:
            mark = tr("ui.vit.run_current", lang) if r["shown"] else ""
            out.append(
                "  "
                + tr(
                    "ui.vit.run_line",
                    lang,
                    k=r["index"],
                    first=r["first_step"],
                    last=r["last_step"],
                    rows=r["rows"],
                    mark=mark,
                )
            )
    out += ["", tr("ui.vit.metrics", lang)]
    rows = [
        [
            tr("ui.col.metric", lang),
            tr("ui.vit.col.source", lang),
            tr("ui.vit.col.count", lang),
            tr("ui.vit.col.first_last", lang),
            tr("ui.vit.col.min", lang),
            tr("ui.vit.col.max", lang),
            tr("ui.vit.col.nan", lang),
            "",
        ]
    ]
    proxies = []
    for m in CANONICAL:
        info = d["metrics"][m]
        if info is None:
            rows.append([m, "—", "", tr("ui.not_logged", lang), "", "", "", ""])
            continue
        pct = is_fraction(m, [x for x in (info["min"], info["max"]) if x is not None])
        f = functools.partial(fmt_value, m, percent=pct)  # this metric's formatter
        flag = tr("ui.vit.constant", lang) if info["constant"] else ""
        source = clip_text(info["source"] or "?", 34) + (" *" if info["proxy"] else "")
        # start → end as `diagnose` shows it (shapes.ends: the first and last tenth), so the two
        # commands never disagree; JSON also has the raw first/last values
        rows.append(
            [
                m,
                source,
                str(info["count"]),
                f"{f(info['start'])} → {f(info['end'])}",
                f(info["min"]),
                f(info["max"]),
                str(info["nan"]) if info["nan"] else "",
                flag,
            ]
        )
        if info["proxy"]:
            proxies += wrap(
                tr("ui.vit.proxy", lang, note=localize(info["note"] or info["source"], lang)),
                width,
                "      ",
                f"    * {m}: ",
            )
    out += _table(rows, "<<><>>><")
    out += wrap(tr("ui.vit.start_end_note", lang), width, "    ", "  ")
    out += proxies
    # keys already listed as components or evals are not listed again; a key that maps to no vital
    # is still kept (an extra): it is listed once, there; "not read" is only for keys not kept at all
    shown = {s.source for s in run.components.values()} | set(run.evals)
    not_read = {k: v for k, v in d["unrecognized"].items() if k not in d["extras"] and k not in shown}

    def span(v: dict[str, Any]) -> str:
        return f"{v['first_step']} → {v['last_step']}" if v["count"] else ""

    sections = [
        (
            "ui.vit.components",
            [
                [
                    k,
                    tr(f"ui.vit.kind.{v['kind']}", lang),
                    clip_text(v["source"], 34),
                    f"n={v['count']}",
                    f"{fmt_num(v['first'])} → {fmt_num(v['last'])}",
                ]
                for k, v in d["components"].items()
            ],
            "<<<><",
            False,
        ),
        (
            "ui.vit.evals",
            [
                [k, f"n={v['count']}", span(v), f"{fmt_num(v['first'])} → {fmt_num(v['last'])}"]
                for k, v in d["evals"].items()
            ],
            "<>><",
            False,
        ),
        (
            "ui.vit.extras",
            [
                [k, f"n={v['count']}", f"{fmt_num(v['first'])} → {fmt_num(v['last'])}"]
                for k, v in d["extras"].items()
                if k not in shown
            ],
            "<><",
            False,
        ),
        ("ui.vit.unrecognized", [[k, str(v)] for k, v in not_read.items()], "<>", False),
        ("ui.vit.skipped", [[reason_text(k, lang), str(v)] for k, v in d["skipped_lines"].items()], "<>", True),
    ]
    if d["dropped_values"]:
        sections.append(
            ("ui.vit.dropped", [[reason_text(k, lang), str(v)] for k, v in d["dropped_values"].items()], "<>", True)
        )
    for title_key, items, aligns, count_lines in sections:
        n = sum(int(r[1]) for r in items) if count_lines else len(items)
        out += ["", tr(title_key, lang, n=n)]
        if not items:
            out.append("  " + tr("ui.vit.none", lang))
            continue
        out += _table(items[:_LIST_LIMIT], aligns)
        if len(items) > _LIST_LIMIT:
            out.append("  " + tr("ui.vit.more", lang, n=len(items) - _LIST_LIMIT))
    if d["notes"]:
        out += ["", tr("ui.notes", lang)]
        for n in d["notes"]:
            out += wrap(localize(n, lang), width, "    ", "  - ")
    return "\n".join(out) + "\n"


def render_vitals(run: Run, fmt: str = "text", lang: str = "en", width: int = 100) -> str:
    """What was read, for people (`text`, notes wrapped at `width`) or machines (`json`)."""
    if fmt == "json":  # DEL, C1 and bidi controls as \\uXXXX: the same JSON value, never a raw byte
        return escape_controls(json.dumps(vitals_dict(run), ensure_ascii=False, indent=2, allow_nan=False)) + "\n"
    if fmt == "text":  # keys and notes come from the log: control characters shown escaped
        return escape_controls(_text(run, lang, max(60, int(width))))
    raise ValueError(f"unknown format {fmt!r}: choose text or json")
