"""The figure marks what the diagnosis found: onsets on the affected panels, a panel for the metric
a finding rests on when it has none, reference lines above the curves and explained in legends."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.colors import to_rgba
from realdata import REAL_LOGS

import rlvitals
from rlvitals.ingest import read
from rlvitals.render.plot import build_figure, finding_metrics, layout
from rlvitals.run import VITALS, Run


def panels(fig) -> dict:
    return {ax.get_title().split(" ")[0]: ax for ax in fig.axes if ax.get_visible()}


def vlines_at(ax, step) -> list:
    return [ln for ln in ax.get_lines() if list(ln.get_xdata()) == [step, step]]


def test_finding_onsets_are_marked_on_the_panels_they_rest_on():
    run = rlvitals.simulate_run("entropy_collapse", seed=1)
    diag = rlvitals.diagnose_run(run)
    top = diag.top
    assert top is not None and top.id == "entropy_collapse" and top.onset_step is not None
    fig = build_figure(run, diagnosis=diag)
    p = panels(fig)
    on = [m for m in p if vlines_at(p[m], top.onset_step)]
    assert "entropy" in on and set(on) <= set(finding_metrics(top))
    assert any("entropy collapse" in t.get_text() for t in p["entropy"].texts)
    # without a diagnosis: no marks
    plain = panels(build_figure(run))
    assert not any(vlines_at(ax, top.onset_step) for ax in plain.values())


def test_a_metric_a_finding_rests_on_gets_a_panel():
    run = read(REAL_LOGS["rookworld_blowup"])
    diag = rlvitals.diagnose_run(run)
    assert any(f.id == "numeric_instability" and "loss" in finding_metrics(f) for f in diag.findings)
    assert "loss" not in {m for row in layout(run) for m in row}
    fig = build_figure(run, diagnosis=diag)
    p = panels(fig)
    assert "loss" in p
    onset = next(f.onset_step for f in diag.findings if f.id == "numeric_instability")
    assert vlines_at(p["loss"], onset)


def test_layout_gives_loss_a_slot_in_the_grid_not_a_row_of_its_own():
    n = 50
    cols = {m: np.linspace(0, 1, n) for m in (*VITALS, "trunc", "loss", "lr")}
    run = Run.from_arrays("x", np.arange(1, n + 1), cols)
    assert "loss" not in sum(layout(run), []) and "lr" not in sum(layout(run), [])
    rows = layout(run, ["loss"])
    assert len(rows) == 2 and rows[1][-1] == "loss" and rows[0][:2] == ["reward", "acc"]
    rows = layout(run, ["loss", "lr"])
    assert len(rows) == 2 and {"loss", "lr"} <= set(rows[1])


def test_ratio_reference_line_is_drawn_above_a_ratio_of_exactly_one():
    n = 100
    run = Run.from_arrays(
        "r", np.arange(1, n + 1), {m: np.ones(n) if m == "ratio_mean" else np.linspace(0.1, 1, n) for m in VITALS}
    )
    ax = panels(build_figure(run))["ratio_mean"]
    ref = next(ln for ln in ax.get_lines() if list(ln.get_ydata()) == [1.0, 1.0])
    data = next(ln for ln in ax.get_lines() if len(ln.get_xdata()) == n)
    assert ref.get_zorder() > data.get_zorder()
    assert "1.0" in " ".join(t.get_text() for t in ax.get_legend().get_texts())


def test_trunc_is_not_drawn_in_the_reference_red():
    n = 60
    run = Run.from_arrays("t", np.arange(1, n + 1), {m: np.linspace(0.01, 0.2, n) for m in (*VITALS, "trunc")})
    ax = panels(build_figure(run))["trunc"]
    data = next(ln for ln in ax.get_lines() if len(ln.get_xdata()) == n)
    assert to_rgba(data.get_color()) != to_rgba("red") and to_rgba(data.get_color()) != to_rgba("#d62728")


@pytest.mark.parametrize("lang, word", [("en", "healthy 0.8–1.2"), ("zh", "0.8–1.2")])
def test_adv_std_band_is_explained_in_a_legend(lang, word):
    n = 60
    run = Run.from_arrays("a", np.arange(1, n + 1), {m: np.linspace(0.5, 1.0, n) for m in VITALS})
    legend = panels(build_figure(run, lang=lang))["adv_std"].get_legend()
    assert legend is not None and word in " ".join(t.get_text() for t in legend.get_texts())
