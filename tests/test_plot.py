"""The lesson's figure: read back from the Figure's artists (titles, line data, reference lines,
texts), not from pixels; and the min/max decimation on its own."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.colors import to_rgba

from rlvitals.errors import MissingExtra, RlvitalsError
from rlvitals.render import plot as plotmod
from rlvitals.render.plot import build_figure, envelope, layout, plot
from rlvitals.run import VITALS, Run, Segment, Series


def make_run(n: int = 200, *, metrics=VITALS, seed: int = 0, name: str = "run-01") -> Run:
    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1)
    f = steps / n
    base = {
        "reward": 0.4 + 0.4 * f,
        "acc": 0.2 + 0.37 * f,
        "entropy": 1.8 - 0.3 * f,
        "kl": 0.002 + 0.04 * f,
        "adv_std": 1.03 - 0.37 * f,
        "clip_frac": 0.04 * f,
        "ratio_mean": np.ones(n),
        "len": 78 + 74 * f,
        "gnorm": np.full(n, 0.8),
        "trunc": np.full(n, 0.02),
        "val_acc": 0.2 + 0.3 * f,
    }
    cols = {m: base[m] + rng.normal(0, 0.01, n) * (0.01 if m == "ratio_mean" else 1) for m in metrics}
    return Run.from_arrays(name, steps, cols, format="lesson")


def panels(fig) -> dict[str, object]:
    """Visible axes by metric name (the title up to the first space)."""
    return {ax.get_title().split(" ")[0]: ax for ax in fig.axes if ax.get_visible()}


def texts(ax) -> list[str]:
    """The panel's texts and the notes in its legend, wrapped lines joined back."""
    leg = ax.get_legend()
    notes = [t for t in leg.get_texts() if t.get_gid() == "note"] if leg is not None else []
    return [" ".join(t.get_text().split()) for t in [*ax.texts, *notes]]


def footer(fig) -> str:
    return " ".join(t.get_text() for t in fig.texts if t is not fig._suptitle)


def data_line(ax):
    lines = [ln for ln in ax.get_lines() if ln.get_marker() in ("None", None, "") and len(ln.get_xdata()) > 2]
    return lines[0]


# ---------------------------------------------------------------- envelope


def test_envelope_keeps_a_one_step_spike_and_the_noise_band():
    rng = np.random.default_rng(3)
    x = np.arange(100_000)
    y = np.sin(x / 9000) + rng.normal(0, 0.3, x.size)
    y[54_321] = 25.0
    dx, dy = envelope(x, y, 2000)
    assert dx.size <= 2000 and np.all(np.diff(dx) > 0)
    assert dx[0] == 0 and dx[-1] == x[-1]
    assert dy.max() == 25.0 and 54_321 in dx
    assert dy.min() == y.min()
    # the noise band survives: in each tenth of the run the decimated range equals the true range
    for lo in range(0, 100_000, 10_000):
        sel, dsel = (x >= lo) & (x < lo + 10_000), (dx >= lo) & (dx < lo + 10_000)
        assert dy[dsel].max() == y[sel].max() and dy[dsel].min() == y[sel].min()
    # every kept point is a real point of the input
    assert np.array_equal(y[dx], dy)


def test_envelope_leaves_short_series_and_zero_alone_and_drops_non_finite():
    x = np.arange(10)
    y = np.linspace(0, 1, 10)
    assert np.array_equal(envelope(x, y, 2000)[1], y)
    big = np.arange(5000)
    assert envelope(big, np.cos(big), 0)[0].size == 5000
    y2 = y.copy()
    y2[[2, 5]] = [np.nan, np.inf]
    ex, ey = envelope(x, y2, 2000)
    assert ex.tolist() == [0, 1, 3, 4, 6, 7, 8, 9] and np.all(np.isfinite(ey))
    with pytest.raises(ValueError):
        envelope(big, np.cos(big), 3)


def test_envelope_of_uneven_steps_buckets_by_step_not_by_index():
    x = np.concatenate([np.arange(0, 1000), np.arange(1000, 1_000_000, 1000)])  # dense start, sparse tail
    y = np.zeros(x.size)
    y[-500] = 7.0
    dx, dy = envelope(x, y, 100)
    assert dx.size <= 100 and 7.0 in dy


# ---------------------------------------------------------------- layout


def test_eight_vitals_are_a_two_by_four_grid_with_reward_and_acc_adjacent():
    rows = layout(make_run())
    assert rows == [["reward", "acc", "entropy", "kl"], ["adv_std", "clip_frac", "ratio_mean", "len"]]
    fig = build_figure(make_run())
    assert [ax.get_title() for ax in fig.axes] == [
        "reward",
        "acc (%)",
        "entropy",
        "kl",
        "adv_std",
        "clip_frac (%)",
        "ratio_mean",
        "len",
    ]
    r, a = panels(fig)["reward"], panels(fig)["acc"]
    assert r.get_position().y0 == pytest.approx(a.get_position().y0) and r.get_position().x1 < a.get_position().x0
    assert tuple(fig.get_size_inches()) == (18.0, 9.0) and fig.dpi == 120


def test_gnorm_and_trunc_make_a_two_by_five_grid():
    run = make_run(metrics=VITALS + ("gnorm", "trunc"))
    assert layout(run) == [
        ["reward", "acc", "entropy", "kl", "adv_std"],
        ["clip_frac", "gnorm", "ratio_mean", "len", "trunc"],
    ]
    only_trunc = make_run(metrics=VITALS + ("trunc",))
    fig = build_figure(only_trunc)
    assert len(panels(fig)) == 9 and len(fig.axes) == 10  # one empty slot, hidden
    assert "trunc" in panels(fig) and panels(fig)["trunc"].get_title() == "trunc (%)"


# ---------------------------------------------------------------- what each panel shows


def test_ratio_mean_has_the_red_dashed_line_at_one():
    fig = build_figure(make_run())
    ax = panels(fig)["ratio_mean"]
    refs = [ln for ln in ax.get_lines() if list(ln.get_ydata()) == [1.0, 1.0]]
    assert len(refs) == 1
    assert refs[0].get_linestyle() == "--" and to_rgba(refs[0].get_color()) == to_rgba("red")
    lo, hi = ax.get_ylim()
    assert lo <= 0.95 and hi >= 1.05  # 1.0000 ± 1e-4 must look flat, not like wild noise
    assert not any(list(ln.get_ydata()) == [1.0, 1.0] for ln in panels(fig)["reward"].get_lines())


def test_ratio_proxy_on_another_scale_gets_no_unit_line():
    run = make_run()
    s = Series(
        "ratio_mean",
        run.series["len"].steps,
        np.full(200, 0.004),
        "rollout_probs_diff_mean",
        proxy=True,
        note="from training/rollout_probs_diff_mean",
    )
    run.series["ratio_mean"] = s
    ax = panels(build_figure(run))["ratio_mean"]
    assert not any(list(ln.get_ydata()) == [1.0, 1.0] for ln in ax.get_lines())
    assert ax.get_title() == "ratio_mean · proxy"
    assert "from training/rollout_probs_diff_mean" in texts(ax)


def test_rates_are_drawn_as_percentages():
    run = make_run()
    fig = build_figure(run)
    for name in ("acc", "clip_frac"):
        line = data_line(panels(fig)[name])
        assert np.allclose(line.get_ydata(), run.series[name].values * 100)
    assert np.allclose(data_line(panels(fig)["reward"]).get_ydata(), run.series["reward"].values)


def test_a_metric_not_logged_gets_no_empty_panel_and_is_named_once():
    run = make_run(metrics=("reward", "acc", "entropy", "kl", "len"))
    fig = build_figure(run)
    assert list(panels(fig)) == ["reward", "acc", "entropy", "kl", "len"]
    assert layout(run) == [["reward", "acc", "entropy"], ["kl", "len", None]]
    assert footer(fig) == "not logged: adv_std, clip_frac, ratio_mean"
    assert texts(panels(fig)["reward"]) == []


def test_healthy_band_and_clip_line_are_drawn():
    fig = build_figure(make_run())
    band = panels(fig)["adv_std"].patches
    assert len(band) == 1
    ys = band[0].get_patch_transform().transform(band[0].get_path().vertices)[:, 1]  # data y of the span
    assert min(ys) == pytest.approx(0.8) and max(ys) == pytest.approx(1.2)
    clip = panels(fig)["clip_frac"]
    assert any(list(ln.get_ydata()) == [20.0, 20.0] for ln in clip.get_lines())
    assert clip.get_ylim()[1] < 20  # a 0–4% curve keeps its own scale


def test_non_finite_points_are_marked_and_counted():
    run = make_run()
    v = run.series["kl"].values.copy()
    v[[10, 50, 51]] = [np.nan, np.inf, -np.inf]
    run.series["kl"] = Series("kl", run.series["kl"].steps, v)
    ax = panels(build_figure(run))["kl"]
    marks = [ln for ln in ax.get_lines() if ln.get_marker() == "x"]
    assert len(marks) == 1 and marks[0].get_xdata().tolist() == [11, 51, 52]
    assert to_rgba(marks[0].get_color()) == to_rgba("red")
    assert "3 NaN/inf (x)" in texts(ax)
    assert len(data_line(ax).get_xdata()) == 197


def test_all_nan_metric_says_no_finite_value():
    run = make_run()
    run.series["kl"] = Series("kl", run.series["kl"].steps, np.full(200, np.nan))
    ax = panels(build_figure(run))["kl"]
    assert "no finite value" in texts(ax) and "200 NaN/inf (x)" in texts(ax)


def test_clip_frac_exactly_zero_is_not_applicable_but_a_zero_grad_norm_is_only_stated():
    run = make_run(metrics=VITALS + ("gnorm",))
    zeros = Series("clip_frac", run.series["kl"].steps, np.zeros(200))
    run.series["clip_frac"] = zeros
    run.series["gnorm"] = Series("gnorm", zeros.steps, zeros.values)  # a stalled run's symptom
    fig = build_figure(run)
    assert texts(panels(fig)["clip_frac"]) == ["exactly 0 at every step: not applicable (one update per batch)"]
    assert texts(panels(fig)["gnorm"]) == ["exactly 0 at every step"]


def test_long_notes_are_wrapped_inside_the_panel():
    run = make_run()
    note = "adv_std ≈ √(1 − frac_reward_zero_std): only groups with some variance in reward carry signal"
    run.series["adv_std"] = Series(
        "adv_std", run.series["kl"].steps, run.series["adv_std"].values, "frac_reward_zero_std", proxy=True, note=note
    )
    fig = build_figure(run)
    ax = panels(fig)["adv_std"]
    (text,) = [t for t in ax.get_legend().get_texts() if t.get_gid() == "note"]
    assert 2 <= text.get_text().count("\n") + 1 <= 3
    assert all(len(line) <= 50 for line in text.get_text().splitlines())
    fig.canvas.draw()
    box, ax_box = ax.get_legend().get_window_extent(), ax.get_window_extent()
    assert box.x1 <= ax_box.x1 and box.x0 >= ax_box.x0
    # the note and the band's label sit above the band and the curve, not on them
    to_data = ax.transData.inverted()
    assert to_data.transform((0, box.y0))[1] >= 1.2
    assert to_data.transform((0, box.y0))[1] >= float(np.nanmax(run.series["adv_std"].values))


def test_restarts_are_vertical_lines_and_title_names_run_and_format():
    run = make_run(name="resume-test")
    run.segments = [Segment(1, 80), Segment(60, 140), Segment(141, 200)]
    fig = build_figure(run)
    for ax in panels(fig).values():
        vlines = [ln.get_xdata()[0] for ln in ax.get_lines() if list(ln.get_xdata()) in ([60, 60], [141, 141])]
        assert vlines == [60, 141]
    assert texts(panels(fig)["reward"]).count("restart") == 2
    assert fig._suptitle.get_text() == "resume-test — lesson — 200 logged steps (1 → 200)"


def test_decimation_caps_every_line_and_zero_turns_it_off():
    run = make_run(20_000)
    fig = build_figure(run, max_points=500)
    for ax in panels(fig).values():
        assert len(data_line(ax).get_xdata()) <= 500
    fig0 = build_figure(make_run(3000), max_points=0)
    assert all(len(data_line(ax).get_xdata()) == 3000 for ax in panels(fig0).values())


def test_val_acc_is_drawn_on_the_acc_panel():
    run = make_run(metrics=VITALS + ("val_acc",))
    s = run.series["val_acc"]
    run.series["val_acc"] = Series("val_acc", s.steps[::20], s.values[::20])
    ax = panels(build_figure(run))["acc"]
    val = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert len(val) == 1 and np.allclose(val[0].get_ydata(), s.values[::20] * 100)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["train", "validation"]
    only_val = make_run(metrics=("reward", "val_acc"))
    assert texts(panels(build_figure(only_val))["acc"]) == []


# ---------------------------------------------------------------- language


def test_zh_without_a_cjk_font_falls_back_to_english_quietly(monkeypatch):
    monkeypatch.setattr(plotmod, "cjk_font", lambda: None)
    run = make_run(metrics=("reward",))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = build_figure(run, lang="zh")
        fig.canvas.draw()
    assert footer(fig).startswith("not logged: acc")
    assert fig._suptitle.get_text().endswith("logged steps (1 → 200)")


@pytest.mark.skipif(plotmod.cjk_font() is None, reason="no CJK font on this machine")
def test_zh_with_a_cjk_font_writes_chinese(tmp_path):
    run = make_run(metrics=("reward", "adv_std"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no missing-glyph warnings
        fig = build_figure(run, lang="zh")
        fig.canvas.draw()
    assert footer(fig).startswith("未记录: acc")
    assert fig._suptitle.get_text() == "run-01 — lesson — 记录了 200 步（1 → 200）"
    assert panels(fig)["adv_std"].get_xlabel() == "步" and panels(fig)["reward"].get_xlabel() == "步"  # one row


# ---------------------------------------------------------------- files and errors


@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_plot_writes_by_suffix(tmp_path, suffix, magic):
    out = plot(make_run(300), tmp_path / f"curves{suffix}")
    assert out == tmp_path / f"curves{suffix}"
    assert out.read_bytes()[: len(magic)] == magic


def test_bad_suffix_and_max_points_are_one_line_errors(tmp_path):
    with pytest.raises(RlvitalsError, match=r"\.png, \.svg or \.pdf"):
        plot(make_run(), tmp_path / "curves.jpg")
    with pytest.raises(RlvitalsError, match="max-points"):
        plot(make_run(), tmp_path / "curves.png", max_points=2)


def test_missing_matplotlib_names_the_extra(monkeypatch, tmp_path):
    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingExtra) as e:
        plot(make_run(), tmp_path / "x.png")
    assert "rlvitals[plot]" in str(e.value)


def test_in_figure_words_exist_in_both_languages_with_the_same_fields():
    import string

    def fields(s: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(s) if name}

    from rlvitals.i18n.plot import STRINGS

    en, zh = STRINGS["en"], STRINGS["zh"]
    assert set(en) == set(zh)
    for key in en:
        assert fields(en[key]) == fields(zh[key]) and en[key].strip() and zh[key].strip(), key


def test_a_single_logged_point_is_visible_and_an_empty_run_still_draws(tmp_path):
    run = Run.from_arrays("one", [5], {"reward": [0.3]})
    (line,) = panels(build_figure(run))["reward"].get_lines()
    assert line.get_marker() == "o" and list(line.get_xdata()) == [5]
    empty = Run(name="empty", format="lesson")
    fig = build_figure(empty)
    assert footer(fig) == "not logged: " + ", ".join(VITALS)
    assert fig._suptitle.get_text() == "empty — lesson — 0 logged steps (0 → 0)"
