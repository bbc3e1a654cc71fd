"""Both languages complete: same keys, same placeholders, every key the lab asks for exists."""

from __future__ import annotations

import re
import string
from pathlib import Path

from rlvitals.diagnose.actions import ACTIONS
from rlvitals.diagnose.model import FINDING_IDS, VERDICTS
from rlvitals.i18n.lab import STRINGS
from rlvitals.lab.content import FOCUS, HEALTHY, PAIR_FOCUS, PAIR_OPTIONS, QUIZ
from rlvitals.shapes import WORDS

LAB_SRC = Path(__file__).resolve().parents[2] / "src" / "rlvitals" / "lab"


def fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def test_same_keys_and_placeholders_in_both_languages():
    en, zh = STRINGS["en"], STRINGS["zh"]
    assert set(en) == set(zh)
    for k in en:
        assert fields(en[k]) == fields(zh[k]), k
        assert zh[k].strip(), k


def test_every_literal_key_in_the_lab_code_exists():
    used = set()
    for py in LAB_SRC.glob("*.py"):
        used |= set(re.findall(r'"(lab\.[a-z0-9_.]+)"', py.read_text()))
    assert used, "the scan found nothing: the pattern is wrong"
    assert sorted(used - set(STRINGS["en"])) == []


def test_every_dynamic_key_exists():
    en = STRINGS["en"]
    want = [f"lab.verdict.{v}" for v in VERDICTS]
    want += [f"lab.f.{f}" for f in (*FINDING_IDS, HEALTHY)]
    want += [f"lab.word.{w}" for w in WORDS]
    want += [f"lab.dir.{a.direction}" for a in ACTIONS.values()]
    want += [f"lab.rule.{m}" for ms in (*FOCUS.values(), *PAIR_FOCUS.values()) for m in ms]
    want += [f"lab.pair.{k}.{part}" for k in PAIR_OPTIONS for part in ("q", "where", "rule")]
    for q in QUIZ:
        want += [f"lab.quiz.{q.key}.{p}" for p in ("q", "why", "hint")]
        want += [f"lab.quiz.{q.key}.o{i}" for i in range(1, q.options + 1)]
    assert sorted(set(want) - set(en)) == []


def test_chinese_uses_the_lessons_words():
    zh = STRINGS["zh"]
    assert zh["lab.verdict.learning"] == "在学" and zh["lab.verdict.dead"] == "已经废了"
    assert zh["lab.word.drift"] == "单调偏离" and zh["lab.word.flat"] == "平掉"
    assert "entropy=0.009、ratio=1.0000" in zh["lab.quiz.Q1.q"]
