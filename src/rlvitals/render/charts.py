"""Terminal charts: a one-line sparkline, a small braille chart, and the eight vitals as a grid.

Used by the diagnosis report (a sparkline per vital), by `rlvitals vitals`, and by the lab, which
shows curve sets as `panel_grid`.  Pure Python + numpy.  Long series are reduced with a min/max
envelope so a one-step spike survives the downsampling; a NaN/inf is drawn as "×" (a NaN is
evidence, it is never smoothed away).  Also holds the display-width helpers every text renderer
uses, so Chinese (East Asian Wide, two columns per character) lines up with English.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..run import FRACTION_SLACK, PERCENT_METRICS, VITALS, Run, Series, in_unit_range
from ..stats import ends

__all__ = [
    "BLOCKS",
    "GRID_ORDER",
    "NAN_MARK",
    "chart",
    "clip_text",
    "display_width",
    "flat_range",
    "fmt_value",
    "is_fraction",
    "pad",
    "panel_grid",
    "sparkline",
]

BLOCKS = "▁▂▃▄▅▆▇█"
NAN_MARK = "×"
# Reward beside acc, as the lesson asks; then the pairs whose relation matters most.
GRID_ORDER: tuple[tuple[str, str | None], ...] = (
    ("reward", "acc"),
    ("entropy", "kl"),
    ("adv_std", "clip_frac"),
    ("ratio_mean", "len"),
    ("gnorm", "trunc"),
    ("lr", "loss"),
    ("val_acc", None),
)
# Metrics that should sit on a line: the chart draws it so a drift is visible at a glance.
REFERENCE_LINES: dict[str, float] = {"ratio_mean": 1.0}


# ---------------------------------------------------------------- display width


def _char_width(ch: str) -> int:
    if unicodedata.combining(ch) or ch in "\u200b\u200d\ufe0f":
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def display_width(text: str) -> int:
    """Columns `text` takes in a terminal (East Asian Wide/Fullwidth count 2, colour codes 0)."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\ufdd0" in text:  # render.safe's colour marks take no column either
        from ..safe_text import mark_width_free

        text = mark_width_free(text)
    return sum(_char_width(ch) for ch in text)


def clip_text(text: str, width: int) -> str:
    """Cut `text` to at most `width` columns, marking the cut with "…"."""
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = _char_width(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def pad(text: str, width: int, align: str = "<") -> str:
    """Pad `text` with spaces to `width` display columns (align "<" left, ">" right)."""
    gap = max(0, width - display_width(text))
    return " " * gap + text if align == ">" else text + " " * gap


# ---------------------------------------------------------------- numbers

# a rate's noise around its bounds (a simulated or smoothed clip fraction dipping just below 0) is
# still a rate; a stand-in on another scale (a correctness reward paying 2.0) reaches far beyond


def is_fraction(metric: str, values: Any = None) -> bool:
    """Shown as a percent: a rate metric (acc, clip_frac, trunc, val_acc) whose finite values all
    lie in [0, 1].  A stand-in on another scale (a correctness reward paying 2.0) keeps its own units."""
    if metric not in PERCENT_METRICS:
        return False
    if values is None:
        return True
    return in_unit_range(values)


def fmt_value(metric: str, value: float | None, percent: bool | None = None) -> str:
    """A metric value as the lesson writes it: rates in % (only a fraction in [0, 1]: `percent`
    says whether the metric's series is one; a value outside it never is), ratio to 4 places,
    lengths whole."""
    if value is None:
        return "—"
    v = float(value)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if metric in PERCENT_METRICS and percent is not False and -FRACTION_SLACK <= v <= 1.0 + FRACTION_SLACK:
        return f"{100 * v:.1f}%"
    if metric == "ratio_mean":
        return f"{v:.4f}"
    if metric == "len":  # tokens: whole numbers, as the lesson writes 78 → 152
        return f"{v:.0f}"
    a = abs(v)
    if a >= 1e5:
        return f"{v:.3g}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a == 0 or a >= 1e-3:
        return f"{v:.3f}"
    return f"{v:.1e}"


# ---------------------------------------------------------------- reduction


def _values(series: Series | Sequence[float] | np.ndarray) -> np.ndarray:
    vals = series.values if isinstance(series, Series) else series
    return np.asarray(vals, dtype=np.float64).ravel()


def _buckets(n: int, width: int) -> list[tuple[int, int]]:
    """Split range(n) into min(n, width) contiguous, nearly equal buckets."""
    k = max(1, min(n, width))
    edges = np.linspace(0, n, k + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


def _envelope(values: np.ndarray, width: int) -> list[tuple[float, float, bool]]:
    """Per column: (min, max, has_non_finite) of the finite values falling in it."""
    out = []
    for a, b in _buckets(values.size, width):
        chunk = values[a:b]
        fin = chunk[np.isfinite(chunk)]
        bad = fin.size < chunk.size
        if fin.size:
            out.append((float(fin.min()), float(fin.max()), bad))
        else:
            out.append((math.nan, math.nan, True))
    return out


def _frac(v: float, lo: float, hi: float) -> float:
    """Where v sits in [lo, hi], 0..1.  Halved first so hi - lo cannot overflow to inf (±1e308)."""
    span = hi / 2 - lo / 2
    return 0.0 if span <= 0 else min(1.0, max(0.0, (v / 2 - lo / 2) / span))


# A range this small relative to its level is drawn flat: zoomed in, a ratio of 1.0000 with noise
# in the fifth decimal would fill the chart with jagged noise and read as a drift.
FLAT_REL = 1e-3


def flat_range(lo: float, hi: float, fmt: Callable[[float], str]) -> bool:
    """True when [lo, hi] should be drawn as a flat line: no spread, a spread the value labels
    cannot show (`fmt(lo) == fmt(hi)`, below the resolution the numbers are written at), or a spread
    under `FLAT_REL` of the level."""
    return hi <= lo or fmt(lo) == fmt(hi) or (hi / 2 - lo / 2) <= FLAT_REL * max(abs(lo), abs(hi)) / 2


# ---------------------------------------------------------------- sparkline


def sparkline(values: Series | Sequence[float] | np.ndarray, width: int = 20, *, rel_floor: float = 0.0) -> str:
    """One line of ▁▂▃▄▅▆▇█, at most `width` characters.

    Each character covers a bucket of steps; it shows whichever of the bucket's min and max lies
    farther from the whole series' median, so a spike up or down is never averaged away.  A
    bucket holding a NaN/inf is "×".  A constant series is a flat floor of ▁.  `rel_floor` > 0
    scales against at least that fraction of |median| (centred), so noise on a flat line
    stays flat instead of filling all eight levels.
    """
    vals = _values(values)
    if vals.size == 0 or width <= 0:
        return ""
    fin = vals[np.isfinite(vals)]
    if fin.size == 0:
        return NAN_MARK * min(width, vals.size)
    lo, hi = float(fin.min()), float(fin.max())
    half_med = float(np.median(fin * 0.5))  # halved: the median of ±1e308 must not overflow
    floor = rel_floor * abs(half_med) * 2
    if lo < hi and hi / 2 - lo / 2 < floor / 2:  # widen the scale around the data's centre
        mid = lo / 2 + hi / 2
        lo, hi = mid - floor / 2, mid + floor / 2
    chars = []
    for mn, mx, bad in _envelope(vals, width):
        if bad:
            chars.append(NAN_MARK)
            continue
        v = mx if abs(mx / 2 - half_med) >= abs(mn / 2 - half_med) else mn
        idx = int(round(_frac(v, lo, hi) * (len(BLOCKS) - 1)))
        chars.append(BLOCKS[idx])
    return "".join(chars)


# ---------------------------------------------------------------- braille chart

# Braille dot bits, indexed [row 0..3 from the top][column 0..1].
_DOTS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


def chart(
    series: Series | Sequence[float] | np.ndarray,
    width: int = 40,
    height: int = 6,
    title: str | None = None,
    ref: float | None = None,
    fmt: Callable[[float], str] | None = None,
) -> list[str]:
    """A small line chart in braille (2×4 dots per cell), `height` rows by `width` plot columns.

    The y axis is labelled with the max (top row) and min (bottom row); an optional reference
    line `ref` (e.g. ratio_mean's y = 1.0) is drawn dashed and widens the y range to include it.
    When `series` is a Series, the x axis shows its first and last step.  Columns with a NaN/inf
    get "×" on the bottom row.  Returns the lines (no trailing newlines).
    """
    width, height = max(4, int(width)), max(2, int(height))
    vals = _values(series)
    name = series.name if isinstance(series, Series) else ""
    pct = is_fraction(name, vals)
    fmt = fmt or (lambda v: fmt_value(name, v, pct))
    fin = vals[np.isfinite(vals)]
    lines = [title] if title else []
    if fin.size == 0:
        return lines + ["(no finite values)" if vals.size else "(empty)"]

    lo, hi = float(fin.min()), float(fin.max())
    if ref is not None and math.isfinite(ref):
        lo, hi = min(lo, ref), max(hi, ref)
    flat = flat_range(lo, hi, fmt)
    if flat:  # a constant (or a spread below resolution): a line across the middle, labelled once
        value = lo if hi == lo else float(np.median(fin))
        if ref is not None and math.isfinite(ref):  # flat at its reference (ratio ≡ 1.0): one line, not two
            value = ref
        vals = np.where(np.isfinite(vals), value, vals)  # the spread is below what the chart can say
        pad_ = abs(value) * 0.05 or 1.0
        lo, hi = value - pad_, value + pad_
        lo, hi = lo - pad_, hi + pad_
    rows_px, cols_px = height * 4, width * 2
    if 1 < vals.size < cols_px:  # few points: stretch them across the width as steps
        vals = vals[(np.arange(cols_px) * vals.size) // cols_px]

    def y_px(v: float) -> int:  # 0 = top dot row
        return int(round((1.0 - _frac(v, lo, hi)) * (rows_px - 1)))

    grid = [[0] * width for _ in range(height)]
    bad_cols = set()

    def dot(x: int, y: int) -> None:
        y = min(max(y, 0), rows_px - 1)
        grid[y // 4][x // 2] |= _DOTS[y % 4][x % 2]

    if ref is not None and math.isfinite(ref):
        yr = y_px(ref)
        for x in range(0, cols_px, 3):  # dashed: one dot in three
            dot(x, yr)

    prev: tuple[int, int] | None = None
    for x, (mn, mx, bad) in enumerate(_envelope(vals, cols_px)):
        if bad:
            bad_cols.add(x // 2)
        if math.isnan(mn):
            prev = None
            continue
        top, bot = y_px(mx), y_px(mn)
        span = (top, bot)
        if prev is not None:  # reach back to the previous column so the line is continuous
            if prev[1] < top:
                top = prev[1]
            elif prev[0] > bot:
                bot = prev[0]
        for y in range(top, bot + 1):
            dot(x, y)
        prev = span

    labels = {0: fmt(hi), height - 1: fmt(lo)}
    if flat:
        labels = {y_px(value) // 4: fmt(value)}
    lab_w = max(display_width(x) for x in labels.values())
    for r in range(height):
        cells = "".join(chr(0x2800 + b) for b in grid[r])
        if r == height - 1 and bad_cols:
            cells = "".join(NAN_MARK if c in bad_cols else ch for c, ch in enumerate(cells))
        label = labels.get(r, "")
        lines.append(f"{pad(label, lab_w, '>')} {'┤' if label else '│'}{cells}")
    axis = " " * lab_w + " └" + "─" * width
    lines.append(axis)
    if isinstance(series, Series) and len(series):
        first, last = str(int(series.steps[0])), str(int(series.steps[-1]))
        gap = max(1, width - len(first) - len(last))
        lines.append(" " * (lab_w + 2) + first + " " * gap + last)
    return lines


# ---------------------------------------------------------------- grid of vitals


def _panel(run: Run, metric: str, width: int, height: int, not_logged: str) -> list[str]:
    s = run.series.get(metric)
    if s is None or not len(s):
        return [metric, f"  ({not_logged})"]
    fin = s.values[np.isfinite(s.values)]
    head = metric
    if fin.size:  # start → end as every report gives it (shapes.ends: first and last tenth's mean)
        pct = is_fraction(metric, fin)
        a, b = ends(fin)
        head = f"{metric}  {fmt_value(metric, a, pct)} → {fmt_value(metric, b, pct)}"
    # Label width depends on the values; budget 8 columns + axis for the labels.
    return chart(s, width=max(8, width - 10), height=height, title=head, ref=REFERENCE_LINES.get(metric))


def panel_grid(
    run: Run,
    width: int = 80,
    height: int = 4,
    *,
    metrics: Sequence[str] | None = None,
    not_logged: str | None = None,
    lang: str = "en",
) -> str:
    """Every vital (and each logged extra) as a small chart, two per row, reward beside acc.

    `metrics` restricts the panels (the lab shows a subset); absent vitals are shown as
    "not logged" (in `lang`, or the `not_logged` text given) so the learner sees what is
    missing; absent extras are left out.
    """
    if not_logged is None:
        from ..i18n import t

        not_logged = t("ui.not_logged", lang)
    wanted = set(metrics) if metrics is not None else None
    pairs: list[tuple[str, str | None]] = []
    for left, right in GRID_ORDER:
        keep = [
            m
            for m in (left, right)
            if m is not None and (wanted is None or m in wanted) and (m in VITALS or m in run.series)
        ]
        if keep:
            pairs.append((keep[0], keep[1] if len(keep) > 1 else None))
    half = max(20, (width - 2) // 2)
    out: list[str] = []
    for left, right in pairs:
        a = _panel(run, left, half, height, not_logged)
        b = _panel(run, right, half, height, not_logged) if right else []
        for i in range(max(len(a), len(b))):
            la = clip_text(a[i], half) if i < len(a) else ""
            lb = clip_text(b[i], half) if i < len(b) else ""
            out.append((pad(la, half) + "  " + lb).rstrip())
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
