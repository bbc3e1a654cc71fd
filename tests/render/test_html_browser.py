"""The HTML pages in a real headless Chromium: no console error, every chart draws, hover shows a
value, drag zooms.  Screenshots are kept as artefacts (tests/browser.py: ARTEFACTS).

Skipped, with the reason, when there is no chromium or no playwright (scripts/test installs both
on CI).  One browser for the module; every page opened offline.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import ARTEFACTS, Browser, why_no_browser
from realdata import REAL

import rlvitals
from rlvitals.render.compare import compare_html
from rlvitals.render.html import write_report

pytestmark = pytest.mark.skipif(why_no_browser() is not None, reason=str(why_no_browser()))
REAL_FILES = sorted(p for p in REAL.iterdir() if p.name != "README.md")


@pytest.fixture(scope="module")
def browser():
    b = Browser()
    yield b
    b.close()


def _check_page(browser, path: Path, shot: str):
    page, errors = browser.open(path)
    try:
        drawn = page.eval_on_selector_all(".rlv-chart", "els => els.map(e => +e.getAttribute('data-drawn'))")
        assert drawn and all(n > 0 for n in drawn), drawn
        # the first chart's canvas holds coloured pixels (a curve), not only white and grey
        coloured = page.evaluate("""() => {
            const c = document.querySelector('.rlv-chart canvas'); const d = c.getContext('2d')
              .getImageData(0, 0, c.width, c.height).data; let n = 0;
            for (let i = 0; i < d.length; i += 4) if (Math.max(d[i], d[i+1], d[i+2]) - Math.min(d[i], d[i+1], d[i+2]) > 60) n++;
            return n; }""")
        assert coloured > 100
        box = page.query_selector(".rlv-chart canvas.ov").bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
        tip = page.text_content("#rlv-tip") or ""
        assert page.is_visible("#rlv-tip")
        assert any(ch.isdigit() for ch in tip.split("\n", 1)[-1]), tip
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTEFACTS / f"{shot}.png"), full_page=True)
        assert errors == []
        return page
    except BaseException:
        page.close()
        raise


@pytest.mark.parametrize("log", REAL_FILES, ids=[p.name[:24] for p in REAL_FILES])
def test_report_of_each_real_log_opens_without_error(browser, tmp_path, log):
    run = rlvitals.read(log)
    out = write_report(run, tmp_path / "report.html", lang="en")
    _check_page(browser, out, f"report-{log.stem[:40]}").close()


def test_drag_zooms_every_chart_and_double_click_resets(browser, tmp_path):
    run = rlvitals.simulate_run("entropy_collapse", seed=3)
    out = write_report(run, tmp_path / "report.html", lang="zh")
    page = _check_page(browser, out, "report-sim-zh")
    full = page.eval_on_selector_all(".rlv-chart", "els => els.map(e => +e.getAttribute('data-drawn'))")
    box = page.query_selector(".rlv-chart canvas.ov").bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 80, y)
    page.mouse.down()
    page.mouse.move(box["x"] + 160, y, steps=4)
    page.mouse.up()
    zoomed = page.eval_on_selector_all(".rlv-chart", "els => els.map(e => +e.getAttribute('data-drawn'))")
    assert all(z < f for z, f in zip(zoomed, full)), (zoomed, full)
    page.mouse.dblclick(box["x"] + 100, y)
    assert page.eval_on_selector_all(".rlv-chart", "els => els.map(e => +e.getAttribute('data-drawn'))") == full
    page.close()


def test_a_key_holding_a_script_does_not_run(browser, tmp_path):
    import numpy as np

    from rlvitals.run import Run, Series

    evil = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>\x1b[2J"
    steps = np.arange(1, 101)
    run = Run(
        name=evil,
        format="jsonl",
        series={"reward": Series("reward", steps, np.linspace(0, 1, 100), source=evil)},
        notes=[evil],
    )
    run.components[evil] = Series(evil, steps, np.linspace(0, 1, 100), source=evil)
    out = write_report(run, tmp_path / "evil.html")
    page = _check_page(browser, out, "report-escaped")
    assert page.title().startswith("rlvitals report — <img src=x")  # shown as text: nothing set the title
    assert evil.split("\x1b")[0] in (page.text_content("h1") or "")
    page.close()


@pytest.fixture(scope="module")
def compared():
    """The lab's pair A and five simulated runs, read and diagnosed once for both languages."""
    from rlvitals.compare import summarize
    from rlvitals.simulate import SCENARIOS, lesson_pairs

    pair = lesson_pairs(None)["A"]
    two = [summarize(c.run, rlvitals.diagnose_run(c.run), c.key) for c in (pair.left, pair.right)]
    runs = [rlvitals.simulate_run(n, seed=i, steps=120) for i, n in enumerate(list(SCENARIOS)[4:9])]
    return two, [summarize(r, rlvitals.diagnose_run(r)) for r in runs]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_comparisons_open_two_runs_and_many(browser, tmp_path, compared, lang):
    two, many_rows = compared
    out = tmp_path / "two.html"
    out.write_text(compare_html(two, lang), encoding="utf-8")
    page = _check_page(browser, out, f"compare-pair-a-{lang}")
    assert "ratio_mean" in (page.text_content("#parting") or "")
    page.close()
    many = tmp_path / "many.html"
    many.write_text(compare_html(many_rows, lang), encoding="utf-8")
    page = _check_page(browser, many, f"compare-many-{lang}")
    assert page.eval_on_selector_all("#runs tr", "rows => rows.length") == len(many_rows) + 1
    page.close()


def test_a_long_run_opens_and_keeps_its_spike_in_view(browser, tmp_path):
    import numpy as np

    from rlvitals.run import Run

    n = 300_000
    rng = np.random.default_rng(1)
    f = np.linspace(0, 1, n)
    cols = {
        "reward": 0.4 + 0.4 * f + 0.03 * rng.standard_normal(n),
        "acc": 0.2 + 0.3 * f + 0.02 * rng.standard_normal(n),
        "entropy": 1.8 - 0.3 * f + 0.02 * rng.standard_normal(n),
        "kl": 0.002 + 0.04 * f,
        "ratio_mean": np.ones(n),
        "len": 80 + 70 * f + rng.standard_normal(n),
    }
    cols["kl"][222_222] = 5.0  # one step, kept by the envelope
    run = Run.from_arrays("long", np.arange(1, n + 1), cols)
    out = write_report(run, tmp_path / "long.html")
    assert out.stat().st_size < 1_000_000
    page = _check_page(browser, out, "report-long")
    ymax = page.evaluate(
        "() => Math.max(...JSON.parse(document.getElementById('rlv-data').textContent)"
        ".charts.find(c => c.t === 'kl').s[0].y)"
    )
    assert ymax == 5.0
    page.close()
