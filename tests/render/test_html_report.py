"""The HTML report without a browser: its text (golden), its panels, its escaping, its size."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from htmltext import page_text
from test_render_golden import check

import rlvitals
from rlvitals.errors import RlvitalsError
from rlvitals.render.html import render_report, write_report
from rlvitals.render.panels import panel_names
from rlvitals.run import Run, Series


def _data(html: str) -> dict:
    block = re.search(r'<script type="application/json" id="rlv-data">(.*?)</script>', html, re.S)
    assert block is not None
    return json.loads(block.group(1))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_report_text_of_a_simulated_collapse_is_golden(lang):
    run = rlvitals.simulate_run("entropy_collapse", seed=3)
    html = render_report(run, rlvitals.diagnose_run(run), lang)
    check(f"report-sim-entropy_collapse.{lang}.txt", page_text(html))


def test_report_text_of_a_real_notebook_is_golden(real_logs):
    from realdata import REAL

    run = rlvitals.read(REAL / "unsloth-mistral-7b-grpo-gsm8k.ipynb")
    check("report-unsloth-mistral.en.txt", page_text(render_report(run, rlvitals.diagnose_run(run), "en")))


def test_only_logged_panels_reward_beside_the_goal_components_and_reward_std(real_logs):
    from realdata import REAL

    run = rlvitals.read(REAL / "unsloth-mistral-7b-grpo-gsm8k.ipynb")
    names = panel_names(run)
    assert names[:4] == ["reward", "acc", "components", "reward_std"]
    assert not {"entropy", "adv_std", "clip_frac", "ratio_mean"} & set(names)
    html = render_report(run, rlvitals.diagnose_run(run), "en")
    charts = _data(html)["charts"]
    assert len(charts) == len(names) == html.count('class="rlv-chart"')
    comp = charts[names.index("components")]
    assert len(comp["s"]) == len(run.components) and "xmlcount_reward_func (format)" in [s["n"] for s in comp["s"]]
    # the reward-hacking onset is marked on reward, acc and the components it cites
    for i in (0, 1, 2):
        assert [v["x"] for v in charts[i]["v"]] == [rlvitals.diagnose_run(run).findings[0].onset_step]
    assert "Not logged (a missing tool for ruling things out): entropy, adv_std, clip_frac, ratio_mean" in page_text(
        html
    )


def test_reference_marks_ratio_line_and_adv_std_band():
    run = rlvitals.simulate_run("sync_failure", seed=1)
    charts = {c["t"]: c for c in _data(render_report(run, rlvitals.diagnose_run(run), "en"))["charts"]}
    assert charts["ratio_mean"]["h"][0]["y"] == 1.0
    assert charts["adv_std"]["b"][0]["lo"] == 0.8 and charts["adv_std"]["b"][0]["hi"] == 1.2
    assert any(v["l"] == "sync failure" for v in charts["ratio_mean"]["v"])
    assert max(charts["acc (%)"]["s"][0]["y"]) > 1.0  # rates drawn as percentages


def test_everything_from_the_file_is_escaped():
    evil = "<script>alert(1)</script>\x1b[31m"
    steps = np.arange(1, 51)
    run = Run(
        name=evil,
        format="jsonl",
        series={"reward": Series("reward", steps, np.linspace(0, 1, 50), source=evil)},
        notes=[f"note {evil}"],
    )
    run.components[evil] = Series(evil, steps, np.linspace(0, 1, 50), source=evil)
    run.component_kinds[evil] = "other"
    html = render_report(run, rlvitals.diagnose_run(run), "en")
    assert "<script>alert" not in html and "\x1b" not in html
    assert html.count("<script") == 2  # the data block and our own script
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[31m" in html
    data = _data(html)
    assert any(s["n"].startswith("<script>alert(1)</script>\\x1b") for c in data["charts"] for s in c["s"])


def test_a_long_run_is_decimated_for_display_and_keeps_its_spike():
    n = 200_000
    steps = np.arange(1, n + 1)
    rng = np.random.default_rng(0)
    reward = 0.5 + 0.01 * rng.standard_normal(n)
    reward[123_456] = 9.0
    run = Run.from_arrays("long", steps, {"reward": reward, "kl": np.full(n, 0.01)})
    charts = _data(render_report(run, rlvitals.diagnose_run(run), "en", max_points=1000))["charts"]
    assert all(len(s["x"]) <= 1000 for c in charts for s in c["s"])
    assert 9.0 in charts[0]["s"][0]["y"] and 123_457 in charts[0]["s"][0]["x"]


def test_write_report_checks_the_name_and_the_cli_writes_one(tmp_path, capsys):
    from rlvitals.cli import main

    with pytest.raises(RlvitalsError, match=r"must end in \.html"):
        write_report(rlvitals.simulate_run("healthy", seed=0), tmp_path / "r.png")
    out = tmp_path / "r.html"
    assert main(["report", "-o", str(out), "--lang", "zh"]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and 'lang="zh-CN"' in text and "下一个要拧的旋钮" not in text[:0]
    assert "曲线" in page_text(text)


def test_a_resumed_run_shows_where_it_restarted():
    from rlvitals.run import Segment

    run = rlvitals.simulate_run("healthy", seed=2)
    run.segments = [Segment(1, 80), Segment(60, 200)]
    charts = _data(render_report(run, rlvitals.diagnose_run(run), "en"))["charts"]
    assert all({"x": 60, "l": "restart", "c": "#555555"} in c["v"] for c in charts)
    # two writers interleaved in one file are no resumes: no restart marked
    run.meta = {**run.meta, "interleaved": True}
    charts = _data(render_report(run, rlvitals.diagnose_run(run), "en"))["charts"]
    assert not any(m.get("l") == "restart" for c in charts for m in c["v"])
