"""The real level: simulator runs diagnosed by rlvitals itself.

The lab's answer key is the tool's diagnosis; these tests check that the tool's answer equals the
simulator's ground truth for every set and every pair side (the lab never contradicts the tool, and
the tool must not contradict the truth), that seeds give fresh variants, and the real front ends
(PNG, CLI, interactive loop).
"""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest

from rlvitals.cli import main
from rlvitals.lab.content import HEALTHY
from rlvitals.lab.engine import Lab
from rlvitals.lab.state import Progress
from rlvitals.lab.ui import LabUI, completions

from .conftest import play, right_answers

SET_KEYS = [str(i) for i in range(1, 7)]
SIDES = [f"{k}{i}" for k in "ABCD" for i in (1, 2)]


def _truth_label(truth: dict) -> str:
    return truth["finding"] or HEALTHY


@pytest.mark.parametrize("which", ["real_content", "real_content_seed"])
@pytest.mark.parametrize("key", SET_KEYS)
def test_each_set_is_diagnosed_as_the_simulator_made_it(request, which, key):
    content = request.getfixturevalue(which)
    item = next(s for s in content.sets if s.key == key)
    truth = item.case.truth
    assert item.verdict == truth["verdict"], (truth["scenario"], [f.id for f in item.diag.findings])
    if truth["verdict"] != "learning":
        assert item.failure == truth["finding"], (truth["scenario"], [f.id for f in item.diag.findings])


@pytest.mark.parametrize("which", ["real_content", "real_content_seed"])
@pytest.mark.parametrize("label", SIDES)
def test_each_pair_side_is_named_as_the_simulator_made_it(request, which, label):
    content = request.getfixturevalue(which)
    pair = content.pairs[label[0]]
    side = pair.side(label)
    assert side.answer == _truth_label(side.case.truth), (
        side.case.truth["scenario"],
        [f.id for f in side.diag.findings],
    )
    assert {pair.left.answer, pair.right.answer} == set(pair.options)


def test_the_six_sets_cover_all_three_judgements(real_content):
    assert {s.case.truth["verdict"] for s in real_content.sets} >= {"learning", "cheating", "dead"}


def test_a_seed_gives_fresh_variants(real_content, real_content_seed):
    def by_scenario(content):
        return {s.case.truth["scenario"]: s.case.run for s in content.sets}

    a, b = by_scenario(real_content), by_scenario(real_content_seed)
    assert set(a) == set(b)
    for name in a:
        ra, rb = a[name].series["reward"].values, b[name].series["reward"].values
        assert not np.allclose(ra, rb), name
    # the pair logs differ too (whatever side they were dealt to)
    for k, p in real_content.pairs.items():
        q = real_content_seed.pairs[k]
        assert not np.allclose(
            p.left.case.run.series["reward"].values, q.side(q.left.label).case.run.series["reward"].values
        )


def test_full_run_in_chinese_on_the_real_level(real_content, tmp_path):
    text = play(real_content, right_answers(real_content) + ["next"], tmp_path, lang="zh")
    assert "=== 通关：" in text and "闯关内部出了点问题" not in text
    assert "工具的判读：" in text


def test_png_is_written_for_a_set(real_content, tmp_path):
    pytest.importorskip("matplotlib")
    out = io.StringIO()
    lab = Lab(real_content, Progress(), "en")
    ui = LabUI(lab, out, plain=True, figures=tmp_path / "figs", width=100)
    ui.emit(lab.handle("show 3"))
    png = tmp_path / "figs" / "set3-default-en.png"
    assert f"→ figure: {png}" in out.getvalue()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the chart grid follows: reward beside acc, every vital drawn
    for m in ("reward", "acc", "entropy", "kl", "adv_std", "clip_frac", "ratio_mean", "len"):
        assert f"{m}  " in out.getvalue()


def test_cli_lab_scripted(tmp_path, capsys, monkeypatch, fake_content):
    """The CLI's flags reach run_lab (the level itself is the fake one, to keep this fast)."""
    import rlvitals.lab as lab_pkg

    seeds = []
    monkeypatch.setattr(lab_pkg, "build_content", lambda seed: seeds.append(seed) or fake_content)
    script = tmp_path / "cmds.txt"
    script.write_text("help\ngoals\npair Q\nquit\n")
    state = tmp_path / "p.json"
    rc = main(["lab", "--lang", "zh", "--seed", "4", "--script", str(script), "--state", str(state)])
    text = capsys.readouterr().out
    assert rc == 0 and seeds == [4]
    assert "> goals" in text and "本关目标：" in text and "进度已保存。得分 0/130。" in text and "用法：pair A" in text
    assert "4" in json.loads(state.read_text())["levels"]
    rc = main(["lab", "--lang", "en", "--seed", "4", "--reset", "--script", str(script), "--state", str(state)])
    assert rc == 0 and "Welcome back" not in capsys.readouterr().out


def test_cli_lab_missing_script_is_one_line(tmp_path, capsys):
    rc = main(["lab", "--script", str(tmp_path / "nope.txt"), "--state", str(tmp_path / "p.json")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "is not a readable file" in err


def test_interactive_loop_prompts_and_saves_on_ctrl_d(fake_content, tmp_path):
    typed = iter(["next", "answer learning"])
    prompts = []

    def read(prompt):
        prompts.append(prompt)
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    saved = []
    lab = Lab(fake_content, Progress(), "en", on_change=saved.append)
    out = io.StringIO()
    LabUI(lab, out, width=100).run_interactive(read)
    assert prompts == ["[- 0/130] > ", "[1 0/130] > ", "[1 10/130] > "]
    assert "Progress saved.  Score 10/130." in out.getvalue()
    assert saved and lab.done
    assert "entropy_collapse" in completions(lab) and "A1" in completions(lab)


def test_missing_matplotlib_is_one_line_and_charts_carry_on(fake_content, tmp_path, monkeypatch):
    import rlvitals.render.plot as plot_mod
    from rlvitals.errors import MissingExtra

    def no_mpl(*a, **k):
        raise MissingExtra("matplotlib", "plot", "drawing the lesson's figure")

    monkeypatch.setattr(plot_mod, "plot", no_mpl)
    out = io.StringIO()
    lab = Lab(fake_content, Progress(), "en")
    ui = LabUI(lab, out, plain=True, figures=tmp_path / "figs", width=100)
    for cmd in ("show 1", "show 2", "pair A"):
        ui.emit(lab.handle(cmd))
    text = out.getvalue()
    assert text.count("(no PNG: drawing the lesson's figure needs matplotlib") == 1
    assert len(re.findall(r"^reward  \d", text, re.M)) == 2  # both sets' chart grids
    assert "ratio_mean ████" in text  # and the pair's sparklines


def test_a_chart_that_cannot_be_drawn_is_one_line(fake_content, monkeypatch):
    import rlvitals.lab.ui as ui_mod

    monkeypatch.setattr(ui_mod, "panel_grid", lambda *a, **k: 1 / 0)
    out = io.StringIO()
    lab = Lab(fake_content, Progress(), "en")
    ui = LabUI(lab, out, plain=True, width=100)
    ui.emit(lab.handle("next"))
    ui.emit(lab.handle("answer learning"))
    text = out.getvalue()
    assert "Something went wrong inside the lab (ZeroDivisionError" in text and "✓ Right. +10" in text


@pytest.mark.parametrize("which", ["real_content", "real_content_seed"])
def test_healthy_sets_of_the_real_level_name_no_knob(request, which):
    """The tool's notes on a healthy run (e.g. adv_std easing into 0.5-0.8) are shown as notes, never as
    a knob to turn; what to keep watching is adv_std, in the lesson's bands."""
    from rlvitals.lab.explain import explain_set

    content = request.getfixturevalue(which)
    healthy = [s for s in content.sets if s.case.truth["finding"] is None]
    assert len(healthy) == 2
    for s in healthy:
        for lang in ("en", "zh"):
            text = "\n".join(explain_set(s, lang))
            assert ("next knob" not in text) and ("下一步" not in text), text
            assert ("Keep watching adv_std (" in text) or ("继续留意 adv_std（" in text), text


def test_notes_name_no_knob_and_no_placeholder_leaks(real_content, tmp_path):
    """Pair D's small-batch log is only a note (info): its diff says there is nothing to change; no
    knob is printed with an empty "typical" value."""
    text = play(real_content, ["pair D", "is D2 lr_too_high", "diff"], tmp_path)
    d1 = [ln for ln in text.splitlines() if ln.startswith("  D1: ")]
    assert any("nothing to change: a note (info)" in ln for ln in d1), d1
    assert not any("next knob" in ln for ln in d1), d1
    assert "(typical: —)" not in text and "(typical: )" not in text
