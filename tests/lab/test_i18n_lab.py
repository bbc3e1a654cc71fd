"""Both languages complete: same keys, same placeholders, every key the lab asks for exists."""

from __future__ import annotations

import re
import string
from pathlib import Path

from rlvitals.diagnose.actions import ACTIONS
from rlvitals.diagnose.model import FINDING_IDS, VERDICTS
from rlvitals.i18n.lab import STRINGS as LAB
from rlvitals.i18n.lab_lesson import STRINGS as LESSON
from rlvitals.i18n.lab_ref import STRINGS as REF
from rlvitals.lab.content import FOCUS, HEALTHY, PAIR_FOCUS, PAIR_OPTIONS, QUIZ
from rlvitals.lab.explain import ADV_STD_BANDS, explain_quiz, quiz_text
from rlvitals.lab.reference import TOPICS
from rlvitals.shapes import WORDS

STRINGS = {lang: {**LAB[lang], **LESSON[lang], **REF[lang]} for lang in ("en", "zh")}
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
    want += [f"lab.band.{b}" for _, b in ADV_STD_BANDS] + [f"lab.ref.{tp}" for tp in TOPICS] + ["lab.quiz.Q2.run"]
    for q in QUIZ:
        want += [f"lab.quiz.{q.key}.{p}" for p in ("q", "why", "hint")]
        want += [f"lab.quiz.{q.key}.o{i}" for i in range(1, q.options + 1)]
    assert sorted(set(want) - set(en)) == []


def test_chinese_uses_the_lessons_words():
    zh = STRINGS["zh"]
    assert zh["lab.verdict.learning"] == "在学" and zh["lab.verdict.dead"] == "已经废了"
    assert zh["lab.word.drift"] == "单调偏离" and zh["lab.word.flat"] == "平掉"


def test_the_default_level_asks_the_lessons_questions_with_its_numbers(fake_content):
    """At the default level the questions' own runs are the lesson's pinned runs: the text is the lesson's."""
    q1, q2, q3 = (quiz_text(fake_content.question(k), "zh")[1] for k in ("Q1", "Q2", "Q3"))
    assert "一份 entropy=0.009、ratio=1.0000；另一份 entropy=1.774、ratio=0.5407。" in q1
    assert "`adv_std` 降到 0.24。" in q2
    assert "一份 clip=0.011 / gnorm=0.8 / 有效 batch 8；另一份 clip=0.419 / gnorm=6 / 有效 batch 64。" in q3
    why = explain_quiz(fake_content.question("Q3"), "en")[0]
    assert "its clip 1.1% and gnorm 0.8 are normal" in why and "clip 41.9% (> 20%) and gnorm 6" in why


def test_help_fits_80_columns_unwrapped():
    from rlvitals.render.charts import display_width

    for lang in ("en", "zh"):
        lines = STRINGS[lang]["lab.help"].splitlines()
        assert max(display_width(ln) for ln in lines) <= 80, lang
        # every description starts in one column, on a command's line and on its continuations
        starts = {display_width(m.group(1)) for ln in lines[1:-1] if (m := re.match(r"^(  \S.*?\s{2,}|\s+)\S", ln))}
        assert starts == {22}, (lang, starts)
