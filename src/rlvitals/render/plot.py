"""The lesson's figure: the eight vitals (plus grad norm and truncation when logged) of one run.

    plot(run, "curves.png", lang="en", max_points=2000) -> Path      # PNG, SVG or PDF by suffix

What the lesson's twenty-line script gets wrong and this does right: reward and acc sit side by
side (their divergence is reward hacking); ratio_mean has its red dashed y=1.0 line (drift from it is
a sync bug); rates are drawn as percentages; only what was logged gets a panel (panels.py: the
reward's components and reward_std too), and the vitals that were not are named in one line at
the foot (a missing vital is a missing tool for ruling things out); proxies are labelled; a panel's
notes share one legend box with its reference marks, in headroom above the curve, the band and the
y = 1 line; NaN/inf points
are marked with red x's at the top instead of vanishing; restarts are vertical lines; long runs are
decimated with min/max envelopes (LTTB would hide the noise band and thin spikes, both evidence).

matplotlib is imported lazily, only here; the figure is drawn on the Agg canvas without pyplot,
so no global state is touched.  Chinese in-figure words need a CJK font: one is looked for on the
system; without one the figure falls back to English words (metric names need no CJK font).
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import MissingExtra, RlvitalsError
from ..i18n import localize, t
from ..output import check_output, writing
from ..run import CANONICAL, PERCENT_METRICS, Run, Series
from .charts import is_fraction
from .fonts import cjk_font
from .panels import COLORS, COMPONENTS, REWARD_STD, missing_vitals, panel_names, reward_std

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..diagnose.model import Diagnosis, Finding

__all__ = ["build_figure", "cjk_font", "envelope", "finding_metrics", "layout", "plot"]

SUFFIXES = (".png", ".svg", ".pdf")
DPI = 120
FIGSIZE = (18.0, 9.0)
_REF_RED = "red"
_ONSET_COLORS = {"critical": "#e6550d", "warning": "#b8860b"}
# reference lines and finding onsets are drawn above the curve (zorder 2): a ratio of exactly 1.0
# must not hide its own y=1.0 line
_REF_Z = 3.5

# ---------------------------------------------------------------- decimation (pure numpy)


def envelope(x: np.ndarray, y: np.ndarray, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Min/max decimation: at most `max_points` points whose line has the same envelope.

    x is split into (max_points - 2) / 2 equal-width buckets (a bucket is about a pixel column);
    each keeps its lowest and highest point, in step order, plus the first and last points.  A spike
    of one step survives, and so does the width of a noise band.  Non-finite values are dropped
    here (the caller marks them); `max_points` 0 keeps every point.
    """
    x, y = np.asarray(x), np.asarray(y, dtype=np.float64)
    keep = np.isfinite(y)
    if not keep.all():
        x, y = x[keep], y[keep]
    n = y.size
    if max_points <= 0 or n <= max_points:
        return x, y
    if max_points < 4:
        raise ValueError(f"max_points must be 0 (no decimation) or at least 4, not {max_points}")
    nb = (max_points - 2) // 2
    span = float(x[-1]) - float(x[0])
    if span > 0:
        bucket = ((x - x[0]).astype(np.float64) * (nb / span)).astype(np.int64)
    else:
        bucket = np.arange(n, dtype=np.int64) * nb // n
    np.minimum(bucket, nb - 1, out=bucket)
    first = np.flatnonzero(np.diff(bucket, prepend=-1))  # x is sorted: each bucket is contiguous
    bid = np.cumsum(np.diff(bucket, prepend=-1) != 0) - 1
    picks = [np.array([0, n - 1])]
    for extreme in (np.minimum.reduceat(y, first), np.maximum.reduceat(y, first)):
        at = np.flatnonzero(y == extreme[bid])
        picks.append(at[np.flatnonzero(np.diff(bid[at], prepend=-1))])  # first hit per bucket
    sel = np.unique(np.concatenate(picks))
    return x[sel], y[sel]


def _thin(x: np.ndarray, max_points: int) -> np.ndarray:
    """At most about `max_points` of the sorted positions x, evenly spread (for NaN markers)."""
    if max_points <= 0 or x.size <= max_points:
        return x
    b = np.floor((x - x[0]) / max(float(x[-1] - x[0]), 1.0) * max_points).astype(np.int64)
    return x[np.flatnonzero(np.diff(b, prepend=-1))]


# ---------------------------------------------------------------- layout and fonts


def layout(run: Run, more: tuple[str, ...] | list[str] = ()) -> list[list[str | None]]:
    """Rows of panel names (None: an empty slot, hidden).  Only what was logged (panels.py chooses and
    orders: reward beside the goal, then the reward's components and reward_std, then the other
    vitals); one row up to four panels, two rows up to twelve (the lesson's 2×4 for its eight vitals,
    2×5 with grad norm and truncation), three beyond.  `more`: metrics a finding rests on (loss, lr),
    drawn when logged, in the same grid rather than a row of their own."""
    names: list[str | None] = list(panel_names(run, list(more), quiet=True))
    if not names:
        return [["reward"]]
    nrows = 1 if len(names) <= 4 else 2 if len(names) <= 12 else 3
    ncols = -(-len(names) // nrows)
    names += [None] * (nrows * ncols - len(names))
    return [names[r * ncols : (r + 1) * ncols] for r in range(nrows)]


def finding_metrics(finding: Finding) -> list[str]:
    """The metrics a finding rests on: those its evidence keys are about (`loss_peak_over_median`
    -> loss, `acc_metric` -> its value), in evidence order."""
    names = sorted(CANONICAL, key=len, reverse=True)  # "ratio_mean_end" is ratio_mean, not ratio
    out: list[str] = []
    for key, value in finding.evidence.items():
        if key == "acc_metric" and isinstance(value, str):
            hit: str | None = value
        else:
            hit = next((m for m in names if key == m or key.startswith(m + "_")), None)
            if hit is None and key.startswith("ratio_"):  # "ratio_end", "ratio_deviation": the ratio's
                hit = "ratio_mean"
        if hit and hit in CANONICAL and hit not in out:
            out.append(hit)
    return out


# ---------------------------------------------------------------- the figure


def build_figure(run: Run, *, lang: str = "en", max_points: int = 2000, diagnosis: Diagnosis | None = None) -> Figure:
    """The figure (a matplotlib Figure on the Agg canvas), not yet saved.  With a `diagnosis`,
    each warning or critical finding is marked where it began (a vertical line and its name) on
    the panels of the metrics it rests on, and those metrics get a panel when they have none."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtra("matplotlib", "plot", "Plotting") from None
    font = cjk_font() if lang == "zh" else None
    words = "zh" if font else "en"  # no CJK font: English words rather than boxes
    fp: dict[str, Any] = {"fontfamily": [font, "DejaVu Sans"]} if font else {}

    marks: dict[str, list[tuple[int, str, str]]] = {}  # metric -> (onset, title, severity)
    for f in getattr(diagnosis, "findings", ()) or ():
        if f.severity == "info" or f.onset_step is None:
            continue
        title = t(f"finding.{f.id}.title", words)
        for m in finding_metrics(f):
            marks.setdefault(m, []).append((int(f.onset_step), title, f.severity))
        if "rising_component" in f.evidence or any(
            isinstance(v, str) and v.startswith("component:") for v in f.evidence.values()
        ):  # the term gamed, or the goal
            marks.setdefault(COMPONENTS, []).append((int(f.onset_step), title, f.severity))
    rows = layout(run, list(marks))
    ncols = len(rows[0])
    size = (FIGSIZE[0], FIGSIZE[1] * len(rows) / 2)
    fig = Figure(figsize=size, dpi=DPI)
    # Fixed margins rather than tight_layout: it measures every label, which took 1-2 s of the
    # 1e6-step benchmark; panels hold the same kind of labels, so fixed margins fit.
    fig.subplots_adjust(left=0.045, right=0.99, bottom=0.065, top=0.9, wspace=0.3, hspace=0.3)
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(rows), ncols, squeeze=False)
    restarts = run.restart_steps()
    for r, row in enumerate(rows):
        for c, name in enumerate(row):
            ax = axes[r][c]
            if name is None:
                ax.set_visible(False)
                continue
            _panel(ax, run, name, words, fp, max_points, restarts, first=(r == 0 and c == 0))
            _onsets(ax, marks.get(name, []), fp)
            if r == len(rows) - 1 or (r + 1 < len(rows) and rows[r + 1][c] is None):
                ax.set_xlabel(t("plot.step", words), **fp)
    missing = missing_vitals(run)
    if missing:  # a missing vital is a missing tool for ruling things out: named, not drawn empty
        foot = fig.text(
            0.005,
            0.005,
            f"{t('ui.not_logged', words)}: {', '.join(missing)}",
            fontsize=9,
            color="#666666",
            va="bottom",
            ha="left",
        )
        if fp:
            foot.set_fontfamily(fp["fontfamily"])
    points, first, last = _extent(run)
    fig.suptitle(
        t(
            "plot.title",
            words,
            name=run.name or "run",
            format=run.format or "?",
            points=f"{points:,}",
            first=first,
            last=last,
        ),
        fontsize=13,
        **fp,
    )
    return fig


def _extent(run: Run) -> tuple[int, int, int]:
    """(distinct logged steps, first, last) over all series.  Not `Run.steps`: np.unique takes ~13 s
    on 10×1e6 steps under numpy 2.4, so identical step arrays count once, then one sort."""
    arrays: list[np.ndarray] = []
    for s in run.series.values():
        if len(s) and not any(a.size == s.steps.size and np.array_equal(a, s.steps) for a in arrays):
            arrays.append(s.steps)
    if not arrays:
        return 0, 0, 0
    allsteps = arrays[0] if len(arrays) == 1 else np.sort(np.concatenate(arrays))
    n = allsteps.size if len(arrays) == 1 else 1 + np.count_nonzero(np.diff(allsteps))
    return int(n), int(allsteps[0]), int(allsteps[-1])


def _panel(
    ax: Axes, run: Run, name: str, words: str, fp: dict[str, Any], max_points: int, restarts: list[int], first: bool
) -> None:
    ax.grid(alpha=0.3)
    ax.tick_params(labelsize=9)
    if name == COMPONENTS:
        ax.set_title(t("report.components", words), fontsize=11, **fp)
        for i, (key, comp) in enumerate(run.components.items()):
            kind = run.component_kinds.get(key, "")
            x, y = envelope(comp.steps, comp.values, max_points)
            ax.plot(x, y, lw=1.0, color=f"C{i % 10}", label=f"{key} ({kind})" if kind else key)
        _legend(ax, fp, [])
        _restarts(ax, restarts, words, fp, first)
        return
    s = reward_std(run) if name == REWARD_STD else run.series.get(name)
    val = run.series.get("val_acc") if name == "acc" else None
    pct = name in PERCENT_METRICS and (s is None or is_fraction(name, s.values))
    title = name + (" (%)" if pct else "")
    if s is not None and s.proxy:
        title += f" · {t('plot.proxy', words)}"
    ax.set_title(title, fontsize=11, **fp)
    scale = 100.0 if pct else 1.0
    notes: list[str] = []
    if s is not None and len(s):
        x, y = envelope(s.steps, s.values * scale, max_points)
        ax.plot(
            x,
            y,
            lw=1.2,
            color=COLORS.get(name, COLORS[REWARD_STD]),
            label=t("plot.train", words) if val else None,
            marker="o" if x.size == 1 else None,
        )  # a lone point draws no line
        bad = s.steps[~s.finite]
        if bad.size:  # marked at the top of the panel: a NaN is evidence, not a gap
            bx = _thin(bad, max_points)
            ax.plot(
                bx,
                np.full(bx.size, 0.97),
                "x",
                color="red",
                ms=5,
                mew=1.2,
                transform=ax.get_xaxis_transform(),
                clip_on=False,
            )
            notes.append(t("plot.nonfinite", words, n=int(bad.size)))
            if x.size == 0:
                notes.append(t("plot.no_finite", words))
        elif s.is_constant and s.values[0] == 0:
            # clip_frac ≡ 0 is by construction with one update per batch: no evidence either way.
            # Elsewhere (grad norm, kl, reward ≡ 0) it may be the symptom itself, so just say it.
            notes.append(t("plot.clip_na" if name == "clip_frac" else "plot.all_zero", words))
        if s.proxy and s.note:
            notes.append(localize(s.note, words))
        _references(ax, name, s, scale, words)
    if val is not None and len(val):
        vx, vy = envelope(val.steps, val.values * scale, max_points)
        ax.plot(vx, vy, "o-", ms=3, lw=0.9, color="#2f4f4f", label=t("plot.val", words))
    _legend(ax, fp, notes)
    _restarts(ax, restarts, words, fp, first)


def _restarts(ax: Axes, restarts: list[int], words: str, fp: dict[str, Any], first: bool) -> None:
    for step in restarts:
        ax.axvline(step, color="#444444", ls="-.", lw=0.8, alpha=0.7)
        if first:
            ax.text(
                step,
                0.02,
                " " + t("plot.restart", words),
                transform=ax.get_xaxis_transform(),
                fontsize=8,
                color="#444444",
                va="bottom",
                **fp,
            )


def _onsets(ax: Axes, marks: list[tuple[int, str, str]], fp: dict[str, Any]) -> None:
    """A finding's onset: a dashed vertical line above the curve and the finding's name at its top."""
    for step, title, severity in marks:
        color = _ONSET_COLORS.get(severity, "#b8860b")
        ax.axvline(step, color=color, ls="--", lw=1.1, zorder=_REF_Z)
        ax.text(
            step,
            0.985,
            f" {title}",
            transform=ax.get_xaxis_transform(),
            fontsize=8,
            color=color,
            va="top",
            ha="left",
            zorder=_REF_Z,
            bbox={"facecolor": "white", "alpha": 0.7, "lw": 0, "pad": 1},
            **fp,
        )


def _legend(ax: Axes, fp: dict[str, Any], notes: list[str]) -> None:
    """One box per panel, placed where it covers least of the curve, band and reference line: the
    reference marks and curves by name, then the panel's notes (NaN count, proxy, not applicable) as
    lines of text.  A note never sits on the adv_std band or the ratio's y = 1 line."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    for text in notes:
        wide = sum(ord(ch) > 0x2E80 for ch in text) * 3 > len(text)  # CJK glyphs are twice as wide
        handles.append(Line2D([], [], linestyle="none", marker="none"))
        labels.append(textwrap.fill(text, 26 if wide else 50, max_lines=3, placeholder=" …"))
    if not handles:
        return
    # headroom above the data, the band and the reference line, as tall as the box: "best" finds it
    rows = sum(label.count("\n") + 1 for label in labels)
    frac = min(0.5, 0.045 * rows + 0.05)
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi + (hi - lo) * frac / (1 - frac))
    leg = ax.legend(
        handles,
        labels,
        loc="best",
        fontsize=7.5,
        framealpha=0.85,
        handlelength=1.6,
        prop={"family": fp["fontfamily"], "size": 7.5} if fp else None,
    )
    for txt in leg.get_texts()[len(labels) - len(notes) :]:
        txt.set_gid("note")
        txt.set_color("#7a4a00")


def _references(ax: Axes, name: str, s: Series, scale: float, words: str) -> None:
    """The lesson's reference marks, drawn above the curve and named in a small legend."""
    finite = s.values[s.finite]
    if name == "ratio_mean":
        # A proxy on another scale (e.g. a probability difference near 0) gets no y=1 line.
        if finite.size and (not s.proxy or 0.5 <= float(np.median(finite)) <= 2.0):
            ax.axhline(1.0, color=_REF_RED, ls="--", lw=1.0, zorder=_REF_Z, label=t("plot.ratio_ref", words))
            lo, hi = ax.get_ylim()  # at least ±0.05 around 1: a healthy 1.0000±1e-4 must look flat
            ax.set_ylim(min(lo, 0.95), max(hi, 1.05))
    elif name == "adv_std":
        ax.axhspan(0.8, 1.2, color="#2ca02c", alpha=0.10, lw=0, label=t("plot.healthy_band", words))
    elif name == "clip_frac":
        lo, hi = ax.get_ylim()
        if hi < 10.0:  # far below the 20% line: keep the curve's own scale (the line is off-panel)
            ax.axhline(20.0, color=_REF_RED, ls=":", lw=0.9, alpha=0.7, zorder=_REF_Z)
            ax.set_ylim(lo, hi)
        else:
            ax.axhline(20.0, color=_REF_RED, ls=":", lw=0.9, alpha=0.7, zorder=_REF_Z, label=t("plot.clip_ref", words))


def plot(
    run: Run,
    path: str | os.PathLike[str] = "curves.png",
    *,
    lang: str = "en",
    max_points: int = 2000,
    diagnosis: Diagnosis | None = None,
) -> Path:
    """Draw the lesson's figure of `run` to `path` (.png, .svg or .pdf) and return the path.
    With a `diagnosis` (rlvitals.diagnose_run(run)) the findings' onsets are marked."""
    out = check_output(path)  # before the work: a bad path fails fast, no folder is made
    if out.suffix.lower() not in SUFFIXES:
        raise RlvitalsError(f"Cannot plot to {out.name}: the file name must end in .png, .svg or .pdf.")
    if max_points and max_points < 4:
        raise RlvitalsError(f"--max-points must be 0 (no decimation) or at least 4, not {max_points}.")
    fig = build_figure(run, lang=lang, max_points=max_points, diagnosis=diagnosis)
    with writing(out):
        fig.savefig(out, dpi=DPI)
    return out
