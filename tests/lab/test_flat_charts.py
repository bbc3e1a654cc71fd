"""A flat ratio (1.0000 → 1.0000 with noise in the fifth decimal) is drawn flat, not zoomed into
jagged noise; a real drift still fills the chart."""

from __future__ import annotations

import numpy as np

from rlvitals.lab.ui import shared_sparkline
from rlvitals.render.charts import chart, flat_range, fmt_value
from rlvitals.run import Series

BRAILLE_EMPTY = "\u2800"


def plot_rows(lines: list[str]) -> list[str]:
    """The rows of a chart's plot area (between the axis mark and the end), without labels."""
    return [ln.split("┤" if "┤" in ln else "│", 1)[1] for ln in lines if "┤" in ln or "│" in ln]


def dotted_rows(lines: list[str]) -> int:
    return sum(any(ch not in (BRAILLE_EMPTY, " ") for ch in row) for row in plot_rows(lines))


def test_a_ratio_steady_at_one_is_drawn_as_one_flat_line():
    rng = np.random.default_rng(0)
    steps = np.arange(1, 201)
    flat = Series("ratio_mean", steps, 1.0 + rng.normal(0, 2e-5, 200))
    lines = chart(flat, width=30, height=4, ref=1.0)
    assert dotted_rows(lines) == 1, "\n".join(lines)
    labels = [ln.split("┤")[0].strip() for ln in lines if "┤" in ln]
    assert labels == ["1.0000"]  # one level, labelled once
    # every column of the line sits on the same dot row: the same braille character throughout
    row = next(r for r in plot_rows(lines) if r.strip(BRAILLE_EMPTY))
    assert len(set(row)) == 1


def test_a_real_drift_still_fills_the_chart():
    steps = np.arange(1, 201)
    drift = Series("ratio_mean", steps, np.linspace(1.0, 0.54, 200))
    lines = chart(drift, width=30, height=4, ref=1.0)
    assert dotted_rows(lines) == 4
    assert [ln.split("┤")[0].strip() for ln in lines if "┤" in ln] == ["1.0000", "0.5400"]


def test_flat_range_rules():
    ratio = lambda v: fmt_value("ratio_mean", v)  # noqa: E731
    assert flat_range(1.0, 1.0, ratio)
    assert flat_range(0.99998, 1.00004, ratio)  # 6e-5 apart: one label, flat
    assert not flat_range(0.998, 1.0, ratio)  # a drift the labels can show
    assert flat_range(150.0, 150.1, lambda v: fmt_value("len", v))  # below the resolution of "150"
    assert not flat_range(0.0012, 0.0031, lambda v: fmt_value("kl", v))
    assert not flat_range(0.002, 0.045, lambda v: fmt_value("kl", v))


def test_pair_sparklines_of_two_flat_ratios_stay_flat():
    rng = np.random.default_rng(1)
    a, b = 1 + rng.normal(0, 1e-5, 200), 1 + rng.normal(0, 1e-5, 200)
    lo, hi = float(min(a.min(), b.min())), float(max(a.max(), b.max()))
    is_flat = flat_range(lo, hi, lambda v: fmt_value("ratio_mean", v))
    assert is_flat
    for v in (a, b):
        line = shared_sparkline(v, lo, hi, 20, flat=is_flat)
        assert len(set(line)) == 1, line
    assert len(set(shared_sparkline(a, lo, hi, 20))) > 3  # zoomed without the rule: noise
