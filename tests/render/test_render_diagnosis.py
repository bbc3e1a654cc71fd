"""The diagnosis report in text, markdown and JSON: verdict first, arithmetic shown, healthy runs calm."""

from __future__ import annotations

import io
import json
import re

import pytest
import render_cases as rc

from rlvitals.diagnose.model import Diagnosis, Finding
from rlvitals.render import render_diagnosis
from rlvitals.render.charts import display_width
from rlvitals.render.jsonout import SCHEMA, clean
from rlvitals.render.terminal import use_color, wrap
from rlvitals.render.words import finding_title
from rlvitals.run import VITALS

ANSI = re.compile(r"\x1b\[")


@pytest.mark.parametrize("case", sorted(rc.CASES))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_text_fits_80_columns_and_has_no_colour_by_default(case, lang):
    diag, run = rc.CASES[case]()
    text = render_diagnosis(diag, "text", lang, 80, run=run)
    assert not ANSI.search(text)  # pytest captures stdout: not a TTY
    widths = [display_width(line) for line in text.splitlines()]
    assert max(widths) <= 80, [ln for ln in text.splitlines() if display_width(ln) > 80]
    # no raw i18n key leaks into what a person reads
    assert not re.search(r"\bui\.[a-z_.]+", text)


def test_verdict_comes_first_in_the_lessons_words():
    diag, run = rc.entropy_collapse()
    en = render_diagnosis(diag, "text", "en", 80, run=run).splitlines()
    zh = render_diagnosis(diag, "text", "zh", 80, run=run).splitlines()
    assert "DEAD" in en[2] and "已经废了" in zh[2]
    for v, word in (("learning", "在学"), ("cheating", "在作弊"), ("unstable", "不稳定")):
        d = Diagnosis(v, (), diag.shapes, diag.run)
        assert word in render_diagnosis(d, "text", "zh").splitlines()[2]


def test_healthy_run_is_short_and_calm():
    diag, run = rc.healthy()
    text = render_diagnosis(diag, "text", "en", 80, run=run)
    assert "No warnings" in text
    assert "Findings" not in text and "[warning]" not in text and "[critical]" not in text
    assert "Worth watching (1)" in text  # the info finding: adv_std falling, normal but watch it
    assert len(text.splitlines()) < 32
    zh = render_diagnosis(diag, "text", "zh", 80, run=run)
    assert "没有警告" in zh and "值得留意" in zh


def test_findings_most_important_first_with_their_arithmetic():
    diag, run = rc.entropy_collapse()  # given in the wrong order on purpose: warning, then critical
    text = render_diagnosis(diag, "text", "en", 100, run=run)
    flat = " ".join(text.split())  # undo the wrapping
    ec, st = finding_title("entropy_collapse", "en"), finding_title("stalled", "en")
    assert flat.index(f"1. [critical] {ec} (entropy_collapse)") < flat.index(f"2. [warning] {st} (stalled)")
    assert "since step 63" in text
    assert "entropy_end=0.009" in flat and "entropy_drop=0.995" in flat
    assert f"ruled out: {finding_title('sync_failure', 'en')} — ratio_mean = 1.0000" in flat
    assert f"ruled out: {finding_title('data_too_easy', 'en')} — acc = 38.2%" in flat
    assert "missing: kl not logged" in flat
    assert "next: raise actor_rollout_ref.rollout.temperature (typical 1.0)" in flat
    assert "(Skywork-OR1 arXiv 2505.22312)" in flat
    assert "“The answer is 42.”" in text  # whitespace in samples collapsed to one line
    assert f"main finding: {ec}, since step 63" in flat


def test_vitals_table_marks_not_logged_not_applicable_and_drift():
    diag, run = rc.entropy_collapse()
    text = render_diagnosis(diag, "text", "en", 80, run=run)
    lines = text.splitlines()
    table = lines[lines.index("Vitals") + 2 :]
    table = table[: table.index("")]
    row = {ln.split()[0]: ln for ln in table}
    assert len(row) == len(VITALS)
    assert "not logged" in row["kl"]
    assert row["clip_frac"].count("not applicable") == 1
    assert "1.840 → 0.009" in row["entropy"]
    diag, run = rc.sync_failure()
    text = render_diagnosis(diag, "text", "zh", 80, run=run)
    ratio = next(ln for ln in text.splitlines() if ln.strip().startswith("ratio_mean"))
    assert "单调偏离" in ratio and "⚠" in ratio and "×" in ratio  # the NaN at step 101 shows
    assert "2 段" in text  # the restart is said, not hidden
    assert "kl_at_onset=NaN" in text and "gnorm_max=inf" in text


def test_every_vital_has_a_row_even_without_a_run():
    diag, _ = rc.healthy()
    text = render_diagnosis(diag, "text", "en", 80)
    for m in VITALS:
        assert re.search(rf"^  {m}\s", text, re.M), m
    header = next(ln for ln in text.splitlines() if ln.startswith("  metric"))
    assert header.split() == ["metric", "start", "→", "end", "shape"]  # no run: no empty curve column


def test_colour_only_when_asked_or_on_a_tty(monkeypatch):
    diag, run = rc.entropy_collapse()
    coloured = render_diagnosis(diag, "text", "en", 80, run=run, color=True)
    assert ANSI.search(coloured)
    # colour codes take no columns: same layout, same visible text
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == render_diagnosis(diag, "text", "en", 80, run=run)
    assert max(display_width(x) for x in coloured.splitlines()) <= 80

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(Tty()) is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color(Tty()) is False
    assert use_color(io.StringIO()) is False


def test_wrap_breaks_chinese_anywhere_and_english_at_spaces():
    lines = wrap("症状告诉你不对，正常的指标告诉你不对在哪，所以八条要记全", 20, "  ", "")
    assert all(display_width(x) <= 20 for x in lines) and len(lines) >= 3
    assert "".join(x.strip() for x in lines) == "症状告诉你不对，正常的指标告诉你不对在哪，所以八条要记全"
    en = wrap("look at the curves before you change code", 16)
    assert all(display_width(x) <= 16 for x in en)
    assert " ".join(en) == "look at the curves before you change code"


def test_unknown_format_is_a_clear_error():
    diag, _ = rc.healthy()
    with pytest.raises(ValueError, match="unknown format 'html'"):
        render_diagnosis(diag, "html")


# ---------------------------------------------------------------- JSON


def _strict_loads(text: str):
    def no_nan(name):
        raise AssertionError(f"invalid JSON constant {name}")

    return json.loads(text, parse_constant=no_nan)


@pytest.mark.parametrize("case", sorted(rc.CASES))
def test_json_is_strict_and_follows_the_schema(case):
    diag, _ = rc.CASES[case]()
    obj = _strict_loads(render_diagnosis(diag, "json", "en"))
    assert obj["schema"] == SCHEMA and obj["verdict"] == diag.verdict
    assert list(obj) == ["schema", "lang", "verdict", "worst_severity", "findings", "shapes", "not_logged", "run"]
    for f in obj["findings"]:
        assert set(f) == {
            "id",
            "severity",
            "onset_step",
            "evidence",
            "ruled_out",
            "missing",
            "action",
            "confidence",
            "samples",
            "title",
            "summary",
        }
        for r in f["ruled_out"]:
            assert set(r) == {"lookalike", "metric", "value", "reason"}
        if f["action"] is not None:
            assert set(f["action"]) == {"knob", "direction", "typical", "why", "source"}
    for s in obj["shapes"].values():
        assert set(s) == {"shape", "start", "end", "slope", "rel_change", "onset_step", "stats"}
    assert set(obj["shapes"]) | set(obj["not_logged"]) >= set(VITALS)


def test_json_nan_and_inf_become_null():
    diag, _ = rc.sync_failure()
    obj = _strict_loads(render_diagnosis(diag, "json"))
    ev = obj["findings"][0]["evidence"]
    assert ev["kl_at_onset"] is None and ev["gnorm_max"] is None and ev["ratio_end"] == 0.5407


def test_json_orders_findings_and_localises_only_title_and_summary():
    diag, _ = rc.entropy_collapse()
    en, zh = (_strict_loads(render_diagnosis(diag, "json", lang)) for lang in ("en", "zh"))
    assert [f["id"] for f in en["findings"]] == ["entropy_collapse", "stalled"]

    def strip(o):
        return {**o, "lang": None, "findings": [{**f, "title": None, "summary": None} for f in o["findings"]]}

    assert strip(en) == strip(zh)


def test_clean_handles_numpy_and_nonfinite():
    import numpy as np

    out = clean(
        {
            "a": np.float32(0.1),
            "b": np.int64(3),
            "c": (np.nan, -np.inf),
            "d": np.bool_(True),
            "e": np.array([1.0, np.nan]),
            "f": 1 / 3,
        }
    )
    assert out == {"a": 0.1, "b": 3, "c": [None, None], "d": True, "e": [1.0, None], "f": 0.333333}
    json.dumps(out, allow_nan=False)


# ---------------------------------------------------------------- markdown


def test_markdown_has_a_table_and_bullets():
    diag, run = rc.entropy_collapse()
    md = render_diagnosis(diag, "markdown", "en", run=run)
    lines = md.splitlines()
    assert lines[0].startswith("### ") and "DEAD" in lines[0]
    table = [ln for ln in lines if ln.startswith("|")]
    assert len(table) == 2 + len(VITALS)
    assert all(ln.count("|") == table[0].count("|") for ln in table)
    assert "| `kl` | *not logged* |" in md
    assert f"- **{finding_title('entropy_collapse', 'en')}** (`entropy_collapse`, critical) · since step 63" in md
    assert f"  - ruled out: {finding_title('sync_failure', 'en')} — ratio_mean = 1.0000 is normal" in md
    assert "    > The answer is 42." in md


def test_markdown_escapes_pipes_in_cells():
    diag, _ = rc.healthy()
    run = dict(diag.run, name="a|b")
    md = render_diagnosis(Diagnosis(diag.verdict, diag.findings, diag.shapes, run), "markdown")
    assert "a\\|b" in md


def test_healthy_markdown_says_no_warnings():
    diag, _ = rc.healthy()
    md = render_diagnosis(diag, "markdown", "zh")
    assert "没有警告" in md and "**发现" not in md


def test_findings_without_catalog_entries_still_render():
    diag, _ = rc.healthy()
    f = Finding("numeric_instability", "critical", None)
    d = Diagnosis("dead", (f,), diag.shapes, diag.run)
    for fmt in ("text", "markdown", "json"):
        out = render_diagnosis(d, fmt, "zh")
        assert "numeric_instability" in out


def test_width_none_follows_the_terminal(monkeypatch):
    diag, run = rc.entropy_collapse()
    monkeypatch.setenv("COLUMNS", "64")
    text = render_diagnosis(diag, "text", "zh", None, run=run)
    assert max(display_width(x) for x in text.splitlines()) <= 64
    assert text == render_diagnosis(diag, "text", "zh", 64, run=run)


def test_a_summary_whose_fields_are_missing_is_left_out(monkeypatch):
    from rlvitals.render import words

    def fake_t(key, lang="en", /, **fields):
        if key == "finding.stalled.summary":
            template = "reward stuck at {reward_end:.3f} since {step}"
            try:
                return template.format(**fields)
            except (KeyError, ValueError):
                return template
        return key

    monkeypatch.setattr(words, "t", fake_t)
    ok = Finding("stalled", "warning", 7, evidence={"reward_end": 0.25})
    assert words.finding_summary(ok, "en") == "reward stuck at 0.250 since 7"
    broken = Finding("stalled", "warning", 7, evidence={"reward_end": "n/a"})  # :.3f of a string fails
    assert words.finding_summary(broken, "en") == ""


def test_a_findings_summary_says_the_deciding_metric_is_missing_only_when_it_is():
    from rlvitals.render import words

    # answers cut with the truncation rate logged, entropy not: the plain sentence, never "the
    # truncation rate (not logged) would decide"
    logged = Finding(
        "truncation_starvation",
        "critical",
        10,
        evidence={"reward_end": 0.22, "trunc_end": 0.97, "len_end": 509.0},
        missing=("entropy",),
    )
    en = words.finding_summary(logged, "en")
    assert en.startswith("answers are cut at the length cap") and "not logged" not in en
    assert words.finding_summary(logged, "zh")
    # the truncation rate itself not logged: the length is the evidence, and the sentence says so
    unlogged = Finding(
        "truncation_starvation", "warning", 10, evidence={"len_start": 300.0, "len_end": 510.0}, missing=("trunc",)
    )
    assert "the truncation rate (not logged) would decide" in words.finding_summary(unlogged, "en")
    # a finding with no deciding metric names whichever one is missing
    noise = Finding("batch_noise", "info", 0, evidence={}, missing=("clip_frac",))
    assert "without clip_frac" in words.finding_summary(noise, "en")
