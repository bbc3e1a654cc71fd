"""Reports never contradict themselves, never leak a placeholder, and a Chinese report is Chinese.

Every report kind (diagnose text and markdown, vitals text) is rendered for every simulated
scenario (two seeds) and for the real fixtures; the checks are on the words a reader sees."""

from __future__ import annotations

import re
from functools import cache

import pytest
from realdata import REAL_LOGS

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.actions import ACTIONS
from rlvitals.diagnose.model import FINDING_IDS
from rlvitals.i18n import catalogs
from rlvitals.ingest import FORMATS, read
from rlvitals.render import render_diagnosis, render_vitals
from rlvitals.run import CANONICAL, Run
from rlvitals.simulate import SCENARIOS, simulate


@cache
def runs() -> tuple[Run, ...]:
    out = [simulate(name, seed=seed, steps=160) for name in SCENARIOS for seed in (1, 2)]
    for path in REAL_LOGS.values():
        try:
            out.append(read(path))
        except Exception:  # a fixture another test covers (e.g. a markdown page): not a log
            continue
    return tuple(out)


@cache
def reports(lang: str) -> tuple[tuple[Run, str, str], ...]:
    """(run, kind, text) for every run and report kind."""
    out = []
    for run in runs():
        diag = diagnose(run)
        out.append((run, "text", render_diagnosis(diag, "text", lang, width=100, run=run)))
        out.append((run, "markdown", render_diagnosis(diag, "markdown", lang, run=run)))
        out.append((run, "vitals", render_vitals(run, "text", lang)))
    return tuple(out)


def _blocks(text: str) -> list[str]:
    """The findings of a text report, one string each."""
    parts = re.split(r"\n(?=  \d+\. \[)", text)
    return [p.split("\n\n")[0] for p in parts[1:]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_placeholder_and_no_empty_typical(lang):
    for run, kind, text in reports(lang):
        assert "(typical —)" not in text and "（常用 —）" not in text, (run.name, kind)
        assert not re.search(r"\{[a-z_]+\}", text), (run.name, kind)


def test_nothing_to_change_is_never_followed_by_a_next_step():
    seen = 0
    for run, kind, text in reports("en"):
        if kind == "vitals" or "Nothing to change" not in text:
            continue
        seen += 1
        assert "next:" not in text, (run.name, kind)
        if "Worth watching" in text:
            assert "worth watching below" in " ".join(text.split()), (run.name, kind)
    assert seen >= 5  # healthy scenarios and info-only runs are in the set


def test_a_ruled_out_clip_fraction_is_never_called_normal_above_the_line():
    for run, _kind, text in reports("en"):
        for m in re.finditer(r"clip_frac = ([\d.]+)%: ([^\n]*)", text):
            if "20% mark" in m.group(2) or "normal" in m.group(2):
                assert float(m.group(1)) < 20.0, (run.name, m.group(0))
    assert "a few percent" not in catalogs()["findings"]["en"]["ruled_out.clip_normal"]


def test_a_summary_never_calls_normal_a_metric_that_was_not_logged():
    for run, kind, text in reports("en"):
        if kind != "text":
            continue
        for block in _blocks(text):
            missing = re.search(r"missing: ([^\n]*) not logged", block)
            if not missing:
                continue
            names = missing.group(1)
            if "clip_frac" in names or "gnorm" in names:
                assert "clip fraction and grad norm are normal" not in block, (run.name, block)


def test_info_notes_say_if_it_goes_on_not_next():
    for run, kind, text in reports("en"):
        if kind != "text":
            continue
        for block in _blocks(text):
            if block.lstrip().split("]")[0].endswith("[info"):
                assert "→ next:" not in block, (run.name, block)


def test_knob_typical_and_source_catalog_mirror_the_actions():
    en = catalogs()["findings"]["en"]
    for fid, a in ACTIONS.items():
        assert en[f"knob.{fid}"] == a.knob and en[f"typical.{fid}"] == a.typical and en[f"source.{fid}"] == a.source


# -- Chinese reports are Chinese -------------------------------------------------------------

# Latin-letter words a Chinese report may keep: the lesson's own terms of art (it writes reward,
# acc, entropy, batch, clip, prompt, token, rollout, temperature, bug, reward hacking in Latin
# letters inside Chinese), names of papers, frameworks and people in citations, units and
# formats.  Metric names, keys, file names and identifiers are allowed by shape (see _allowed).
TERMS = {
    "reward",
    "acc",
    "entropy",
    "kl",
    "KL",
    "batch",
    "clip",
    "prompt",
    "token",
    "rollout",
    "temperature",
    "bug",
    "hacking",
    "grad",
    "norm",
    "step",
    "seed",
    "loss",
    "ratio",
    "epoch",
    "DAPO",
    "GRPO",
    "PPO",
    "TRL",
    "verl",
    "PTT",
    "TIS",
    "SFT",
    "FAQ",
    "PR",
    "arXiv",
    "Dr",
    "Cui",
    "Yao",
    "Gao",
    "Weng",
    "Jones",
    "RL",
    "rllm",
    "Skywork",
    "OR1",
    "Trainer",
    "HTML",
    "JSON",
    "NaN",
    "inf",
    "rlvitals",
    "diagnose",
    "docs",
    "faq",
    "tqdm",
}


def _allowed(word: str, run: Run) -> bool:
    if word in TERMS or word in FINDING_IDS or word in CANONICAL or word in SCENARIOS:
        return True
    if re.search(r"[_\d/@.\-=]", word):  # keys, ids, file names, key=value, numbers with units, pass@k
        return True
    keys = set(run.series) | set(run.extras) | set(run.unrecognized) | {s.source for s in run.series.values()}
    keys |= {run.name, run.format, "simulated", *FORMATS}
    return any(word in re.split(r"[^A-Za-z0-9]+", k) for k in keys)


@pytest.mark.parametrize("kind", ["text", "markdown", "vitals"])
def test_chinese_reports_have_no_english_words(kind):
    bad: dict[str, str] = {}
    for run, k, text in reports("zh"):
        if k != kind:
            continue
        for line in text.splitlines():
            # a token runs to the next space or CJK character/punctuation; "key=value" stays whole
            for tok in re.findall(r"[^\s\u3000-\u303f\uff00-\uffef\u4e00-\u9fff()\[\],;`*|“”]+", line):
                word = tok.strip("'\"").rstrip(".:")
                if sum(ch.isascii() and ch.isalpha() for ch in word) >= 3 and not _allowed(word, run):
                    bad.setdefault(word, f"{run.name}: {line.strip()[:120]}")
    assert not bad, "\n".join(f"{w!r} in {ctx}" for w, ctx in sorted(bad.items()))


def test_the_vitals_heading_does_not_count_the_rows():
    zh = catalogs()["ui"]["zh"]["ui.vitals"]
    assert "八条" not in zh and "8" not in zh


# every note a reader can write is a message with a Chinese rendering: tests/ingest/test_notes_i18n.py


def test_values_a_rule_writes_as_words_are_chinese_in_a_chinese_report():
    from rlvitals.i18n import Msg
    from rlvitals.render.words import value_text

    zh = catalogs()["ui"]["zh"]
    assert value_text("finite", "zh") == zh["value.finite"] and value_text(True, "zh") == zh["value.true"]
    assert value_text("256 (at the cap on 98% of late steps)", "zh") == zh["value.at_cap_late"].format(
        v="256", pct="98%"
    )
    msg = Msg("value.at_cap", v=256, pct="98%")  # a rule that writes its value as a message
    assert value_text(msg, "en") == "256 (at the cap on 98% of steps)"
    assert value_text(msg, "zh") == zh["value.at_cap"].format(v=256, pct="98%")
    assert value_text(0.25, "zh") == 0.25 and value_text("other words", "zh") == "other words"


def test_every_skip_and_drop_reason_has_a_chinese_rendering():
    import pathlib

    src = pathlib.Path(__file__).resolve().parents[2] / "src" / "rlvitals" / "ingest"
    found = set()
    for f in src.glob("*.py"):
        text = f.read_text(encoding="utf-8")
        found |= set(re.findall(r"(?:skip|drop)\(\"([^\"{]+)\"", text))
        found |= set(re.findall(r"(?:dropped_reason|empty_reason)=\"([^\"]+)\"", text))
    zh = {k for domain in catalogs().values() for k in domain["zh"]}
    assert found and not [r for r in sorted(found) if f"reason.{r}" not in zh]
