"""The pieces every self-contained HTML page of rlvitals is made of: escaping, the page shell, and
the chart specs the inline script (htmljs.py) draws.

Everything that came from a file (metric keys, values, notes, run names) goes through `esc`:
HTML-escaped, and control characters (a terminal's ESC sequences) shown as `\\x1b` text rather
than emitted raw.  The chart data is one JSON block whose `<`, `>` and `&` are written as
`\\u003c` ..., so a key holding `</script>` cannot close it.
"""

from __future__ import annotations

import html
import json
import math
import re
from typing import Any

import numpy as np

from ..run import PERCENT_METRICS, Run, Series
from .htmljs import CHART_CSS, CHART_JS
from .panels import COLORS, COMPONENTS, REWARD_STD, reward_std
from .plot import envelope

__all__ = ["chart_spec", "clean", "esc", "page", "series_points"]

_PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
    "#393b79",
)
ONSET_COLORS = {"critical": "#d94801", "warning": "#a6761d"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def clean(text: object) -> str:
    """`text` as a string with control characters written out (`\\x1b`), never raw."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


def esc(text: object) -> str:
    """Safe to put between tags or inside a quoted attribute."""
    return html.escape(clean(text), quote=True)


def _json(obj: Any) -> str:
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _round(y: np.ndarray) -> list[float]:
    """Four to five significant digits: enough for a screen, a third of the bytes of repr."""
    out = []
    for v in y.tolist():
        if v == 0 or not math.isfinite(v):
            out.append(0.0 if v == 0 else v)
        else:
            out.append(float(f"{v:.5g}"))
    return out


def series_points(s: Series, max_points: int, scale: float = 1.0) -> tuple[list[int], list[float], list[int]]:
    """(steps, values, steps of the non-finite values) as drawn: decimated by the min/max envelope
    (display only; the diagnosis reads every point), the NaN steps thinned to one per bucket."""
    x, y = envelope(s.steps, s.values * scale, max_points)
    bad = s.steps[~np.isfinite(s.values)]
    if bad.size > max_points > 0:
        b = ((bad - bad[0]) * (max_points / max(float(bad[-1] - bad[0]), 1.0))).astype(np.int64)
        bad = bad[np.flatnonzero(np.diff(b, prepend=-1))]
    return [int(v) for v in x.tolist()], _round(y), [int(v) for v in bad.tolist()]


def chart_spec(
    run: Run,
    name: str,
    *,
    title: str,
    max_points: int,
    group: str = "run",
    onsets: list[tuple[int, str, str]] | tuple[()] = (),
    words: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One panel as the inline script draws it.  `onsets`: (step, label, severity).
    words: "train", "val", "components", "healthy_band", "ratio_ref", "clip_ref" in the page's language."""
    words = words or {}
    spec: dict[str, Any] = {"t": clean(title), "g": group, "s": [], "ext": []}
    nan: list[int] = []

    def add(s: Series, label: str, color: str, scale: float = 1.0, **extra: Any) -> None:
        x, y, bad = series_points(s, max_points, scale)
        spec["s"].append({"n": clean(label), "c": color, "x": x, "y": y, **extra})
        nan.extend(bad)

    pct = name in PERCENT_METRICS or name == "acc"
    if name == COMPONENTS:
        for i, (key, comp) in enumerate(run.components.items()):
            kind = run.component_kinds.get(key, "")
            add(comp, f"{key} ({kind})" if kind else key, _PALETTE[i % len(_PALETTE)])
    elif name == REWARD_STD:
        rs = reward_std(run)
        if rs is not None:
            add(rs, "", COLORS[REWARD_STD])
    else:
        s: Series | None = run.series.get(name)
        val: Series | None = run.series.get("val_acc") if name == "acc" else None
        scale = 100.0 if pct else 1.0
        if s is not None and len(s):
            add(s, words.get("train", "") if val is not None else "", COLORS.get(name, "#1f77b4"), scale)
        if val is not None and len(val):
            add(val, words.get("val", "val_acc"), COLORS["val_acc"], scale, m=1)
        if pct:
            spec["u"] = "%"
        if s is not None and len(s):
            _references(spec, name, s, words)
    if nan:
        spec["nan"] = sorted(set(nan))
    spec["v"] = [
        {"x": int(step), "l": clean(label), "c": ONSET_COLORS.get(sev, "#a6761d")} for step, label, sev in onsets
    ]
    return spec


def _references(spec: dict[str, Any], name: str, s: Series, words: dict[str, str]) -> None:
    finite = s.values[np.isfinite(s.values)]
    if not finite.size:
        return
    if name == "ratio_mean" and (not s.proxy or 0.5 <= float(np.median(finite)) <= 2.0):
        spec["h"] = [{"y": 1.0, "c": "#d62728", "l": words.get("ratio_ref", "")}]
        spec["ext"] += [0.95, 1.05]  # a healthy 1.0000 ± 1e-4 must look flat, not like wild noise
    elif name == "adv_std":  # a proxy too: the diagnosis reads it against the same band
        spec["b"] = [{"lo": 0.8, "hi": 1.2, "c": "#2ca02c", "l": words.get("healthy_band", "")}]
        spec["ext"] += [0.8, 1.2]
    elif name == "clip_frac" and float(np.max(finite)) * 100 >= 10.0:
        spec["h"] = [{"y": 20.0, "c": "#d62728", "l": words.get("clip_ref", "")}]


def page(title: str, body: str, data: dict[str, Any], lang: str, css: str = "") -> str:
    """The whole document: one file, no request leaves it (no font, script or image from elsewhere)."""
    return (
        f'<!DOCTYPE html>\n<html lang="{"zh-CN" if lang == "zh" else "en"}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{esc(title)}</title>\n<style>{BASE_CSS}{CHART_CSS}{css}</style>\n</head>\n<body>\n{body}\n"
        f'<script type="application/json" id="rlv-data">{_json(data)}</script>\n'
        f"<script>{CHART_JS}</script>\n</body>\n</html>\n"
    )


BASE_CSS = """
body{font:14px/1.5 -apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC","WenQuanYi Micro Hei",
 "Microsoft YaHei",sans-serif;color:#222;max-width:1280px;margin:0 auto;padding:16px 20px 40px;background:#fafafa}
h1{font-size:20px;margin:4px 0}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #ddd;padding-bottom:3px}
h3{font-size:15px;margin:0 0 6px}code{font:12px ui-monospace,Menlo,Consolas,monospace;background:#f0f0f0;padding:0 3px}
.muted{color:#666;font-size:12.5px}
.verdict{display:inline-block;padding:6px 14px;border-radius:6px;font-size:18px;font-weight:700;color:#fff;margin:8px 0}
.v-learning{background:#2e7d32}.v-cheating{background:#8e24aa}.v-dead{background:#c62828}.v-unstable{background:#ef6c00}
.next{background:#fff8e1;border-left:4px solid #f9a825;padding:8px 12px;margin:8px 0}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(380px,1fr));gap:14px 16px}
.card{background:#fff;border:1px solid #e2e2e2;border-radius:6px;padding:8px 10px}
.finding{background:#fff;border:1px solid #e2e2e2;border-left:5px solid #a6761d;border-radius:6px;padding:10px 14px;margin:10px 0}
.sev-critical{border-left-color:#d94801}.sev-info{border-left-color:#9e9e9e}
.sev{font-size:12px;font-weight:600;text-transform:uppercase;color:#fff;background:#a6761d;border-radius:3px;padding:1px 6px}
.sev-critical .sev{background:#d94801}.sev-info .sev{background:#9e9e9e}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #e0e0e0;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}ul{margin:4px 0;padding-left:22px}
"""
