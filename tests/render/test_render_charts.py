"""Terminal charts: sparkline envelope keeps spikes, NaN is visible, charts fit and label their range."""

from __future__ import annotations

import numpy as np
import pytest
import render_cases as rc

from rlvitals.render.charts import (
    BLOCKS,
    NAN_MARK,
    chart,
    clip_text,
    display_width,
    fmt_value,
    pad,
    panel_grid,
    sparkline,
)
from rlvitals.run import VITALS, Run, Series


def test_display_width_counts_wide_chars_twice():
    assert display_width("reward") == 6
    assert display_width("八条曲线") == 8
    assert display_width("起点 → 终点") == 11  # the arrow is one column
    assert display_width(pad("缓升", 10)) == 10
    assert display_width(pad("缓升", 10, ">")) == 10 and pad("缓升", 10, ">").endswith("缓升")


def test_clip_text_respects_display_width():
    s = clip_text("熵崩塌导致的平", 7)
    assert display_width(s) <= 7 and s.endswith("…")
    assert clip_text("short", 10) == "short"


@pytest.mark.parametrize(
    "metric,value,text",
    [
        ("acc", 0.574, "57.4%"),
        ("ratio_mean", 0.54071, "0.5407"),
        ("len", 151.6, "152"),
        ("reward", 0.847, "0.847"),
        ("kl", 0.00012, "1.2e-04"),
        ("reward", float("nan"), "NaN"),
        ("reward", None, "—"),
        ("gnorm", float("inf"), "inf"),
    ],
)
def test_fmt_value_follows_the_lessons_units(metric, value, text):
    assert fmt_value(metric, value) == text


def test_sparkline_keeps_a_one_step_spike_when_downsampling():
    v = np.full(1000, 0.5)
    v[537] = 5.0
    s = sparkline(v, 20)
    assert len(s) == 20
    assert s.count("█") == 1 and set(s) == {"▁", "█"}


def test_sparkline_keeps_a_downward_spike_too():
    v = np.linspace(1.0, 2.0, 1000)
    v[400] = -3.0
    s = sparkline(v, 25)
    assert s[10] == "▁"  # bucket holding index 400 of 1000 at width 25
    assert s[-1] == "█"


def test_sparkline_marks_nan_and_inf():
    v = np.linspace(0, 1, 50)
    v[10], v[40] = np.nan, np.inf
    s = sparkline(v, 50)
    assert s[10] == NAN_MARK and s[40] == NAN_MARK
    assert s.count(NAN_MARK) == 2
    assert sparkline([np.nan, np.nan], 5) == NAN_MARK * 2


def test_sparkline_short_constant_empty():
    assert sparkline([1, 2, 3], 10) == "▁▅█"  # fewer points than columns: one char each
    assert sparkline(np.zeros(30), 10) == "▁" * 10
    assert sparkline([], 10) == ""
    assert all(ch in BLOCKS for ch in sparkline(np.sin(np.arange(300)), 40))


def test_chart_has_height_rows_axis_and_range_labels():
    s = Series("reward", np.arange(1, 201), np.linspace(0.412, 0.847, 200))
    lines = chart(s, width=30, height=5, title="reward")
    assert lines[0] == "reward"
    body = lines[1:6]
    assert body[0].startswith("0.847") and body[-1].startswith("0.412")
    assert "└" in lines[6] and lines[7].split() == ["1", "200"]
    assert len({display_width(x) for x in body}) == 1  # rows align
    # a rising line: the top row's ink is on the right, the bottom row's on the left
    top, bottom = body[0].split("┤")[1], body[-1].split("┤")[1]
    ink = lambda row: [i for i, ch in enumerate(row) if ch != "\u2800"]  # noqa: E731
    assert min(ink(top)) > max(ink(bottom))


def test_chart_reference_line_widens_the_range_and_is_drawn():
    s = Series("ratio_mean", np.arange(100), np.linspace(0.9, 0.54, 100))
    lines = chart(s, width=30, height=6, ref=1.0)
    assert lines[0].startswith("1.0000")
    with_ref = chart(s, width=30, height=6, ref=1.0)[0].split("┤")[1]
    no_ref = chart(s, width=30, height=6)[0].split("┤")[1]
    assert with_ref != no_ref and sum(ch != "\u2800" for ch in with_ref) >= 8  # the dashed line


def test_chart_constant_and_nan_columns():
    c = chart(Series("clip_frac", np.arange(50), np.zeros(50)), width=20, height=4)
    labels = [ln.split("┤")[0].strip() for ln in c if "┤" in ln]
    assert labels == ["0.0%"]  # one label, no invented range
    v = np.linspace(0, 1, 40)
    v[20:24] = np.nan
    bottom = chart(v, width=20, height=4)[3]
    assert NAN_MARK in bottom
    assert chart([np.nan] * 3, width=10)[-1] == "(no finite values)"


def test_panel_grid_puts_reward_beside_acc_and_fits_the_width():
    _, run = rc.healthy()
    text = panel_grid(run, width=80)
    lines = text.splitlines()
    assert lines[0].startswith("reward") and "acc" in lines[0]
    assert max(display_width(x) for x in lines) <= 80
    for m in VITALS:
        assert m in text
    # ratio_mean's panel carries the reference line at 1.0 in its range
    assert "1.0000" in text


def test_panel_grid_lists_absent_vitals_and_skips_absent_extras():
    run = Run.from_arrays("r", np.arange(20), {"reward": np.linspace(0, 1, 20), "gnorm": np.ones(20)})
    text = panel_grid(run, width=80, not_logged="not logged")
    assert text.count("not logged") == len(VITALS) - 1
    assert "gnorm" in text and "trunc" not in text and "val_acc" not in text
    sub = panel_grid(run, width=60, metrics=["reward", "kl"])
    assert "reward" in sub and "kl" in sub and "entropy" not in sub


def test_sparkline_floor_keeps_a_flat_noisy_line_flat():
    v = 1.0 + 0.0005 * np.sin(np.arange(200))  # ratio_mean at 1.0000 ± 0.0005
    assert {"▁", "█"} <= set(sparkline(v, 20))  # auto-scaled: noise spans the full height
    flat = sparkline(v, 20, rel_floor=0.02)
    assert set(flat) <= set("▃▄▅")  # against a 2% scale: a flat line mid-height
    rising = np.linspace(0.4, 0.8, 200)
    assert sparkline(rising, 8, rel_floor=0.02) == sparkline(rising, 8)  # real change untouched


def test_panel_grid_says_not_logged_in_the_language_asked():
    run = Run.from_arrays("r", np.arange(20), {"reward": np.linspace(0, 1, 20)})
    assert "未记录" in panel_grid(run, width=80, lang="zh")
    assert "not logged" in panel_grid(run, width=80)
