"""The lesson's reference material: `ref TOPIC` in the lab and `rlvitals lab --ref TOPIC`, both languages."""

from __future__ import annotations

import io
import re

import pytest

from rlvitals.cli import main
from rlvitals.i18n import t
from rlvitals.lab import show_reference
from rlvitals.lab.reference import TOPICS, format_table, topic_of
from rlvitals.render.charts import display_width

from .conftest import play

# Sentences of the lesson, verbatim, that its Chinese reference must carry (one per topic).
LESSON_LINES = {
    "plot": "ratio 那张图画一条 y=1.0 的红色参考线。",
    "healthy": "八条曲线里，只有 ratio_mean 属于「本该稳定」那一类。其余七条都在变化，你要判断的是变化的方向和速率。",
    "shapes": "单调偏离：本该稳定的量持续往一个方向走 —— 通常是 bug 而不是现象",
    "adv_std": "所以它其实是在告诉你：可采信息在减少，边际收益在下降。",
    "table": "症状告诉你「不对」，正常的指标告诉你「不对在哪」。",
    "pairs": "2.区分「题目变简单」与「熵崩塌」造成的 adv_std 下降",
    "summary": "「reward 平掉」「adv_std 低」「len 涨」「曲线抖」这四种症状都对应两种以上原因",
}


def rows(topic: str, lang: str) -> list[list[str]]:
    return [
        [c.strip() for c in ln.strip().strip("|").split("|")]
        for ln in t(f"lab.ref.{topic}", lang).splitlines()
        if ln.startswith("|")
    ]


@pytest.mark.parametrize("topic", TOPICS)
def test_each_topic_in_both_languages(topic):
    zh, en = t(f"lab.ref.{topic}", "zh"), t(f"lab.ref.{topic}", "en")
    assert LESSON_LINES[topic] in zh
    assert not re.search(r"[\u4e00-\u9fff]", en.replace("「闯关：读第一次训练曲线」", "")), "Chinese left in English"
    # the same tables, row for row, with the same first column (metric names and numbers)
    rz, re_ = rows(topic, "zh"), rows(topic, "en")
    assert len(rz) == len(re_)
    assert [len(r) for r in rz] == [len(r) for r in re_]
    assert [r[0] for r in rz[1:]] == [r[0] for r in re_[1:]] or topic == "adv_std"


def test_the_healthy_table_is_the_lessons_numbers():
    got = {r[0]: r[1] for r in rows("healthy", "en")[1:]}
    assert got == {
        "reward": "0.412 → 0.847",
        "acc": "21.1% → 57.4%",
        "entropy": "1.842 → 1.498",
        "kl": "0.002 → 0.045",
        "adv_std": "1.031 → 0.664",
        "clip_frac": "0.000 → 0.041",
        "ratio_mean": "constant ≈ 1.0000",
        "len": "78 → 152",
    }
    bands = [r[0] for r in rows("adv_std", "zh")[1:5]]
    assert bands == ["0.8 ~ 1.2", "0.5 ~ 0.8", "0.3 ~ 0.5", "< 0.2"]


def test_tables_align_when_they_fit_and_never_cut_when_they_do_not():
    table = t("lab.ref.adv_std", "zh").splitlines()
    first = [ln for ln in table if ln.startswith("|")][:5]
    wide = format_table(first, 100)
    bars = {tuple(i for i, _ in enumerate(_cols(ln))) for ln in wide if "│" in ln}
    assert len(bars) == 1, wide  # every │ in the same display column
    narrow = format_table(first, 40)
    for r in first[1:]:
        cells = [c.strip() for c in r.strip("|").split("|")]
        line = next(ln for ln in narrow if cells[0] in ln)
        assert all(c in line for c in cells), (cells, line)


def _cols(line: str) -> list[int]:
    """Display columns of each "│" in a line."""
    out, col = [], 0
    for ch in line:
        if ch == "│":
            out.append(col)
        col += display_width(ch)
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_ref_in_the_lab(fake_content, tmp_path, lang):
    words = ["ref", "ref healthy", "参考 判读表", "ref adv", "ref nope", "ref shapes"]
    text = play(fake_content, words, tmp_path, lang=lang, width=120)
    assert "闯关：读第一次训练曲线" in text  # what "the lesson" is
    assert ("0.412 → 0.847" in text) and ("1.031 → 0.664" in text)
    assert ("There is no reference topic nope." in text) if lang == "en" else ("没有叫 nope 的参考主题。" in text)
    assert (" │ " in text) and all(display_width(ln) <= 120 for ln in text.splitlines())
    assert ("monotonic drift" in text) if lang == "en" else ("单调偏离：本该稳定的量" in text)
    assert "Score 0/130" in text or "得分 0/130" in text  # reading the lesson costs nothing


def test_topic_words():
    assert topic_of("健康") == "healthy" and topic_of("判读表") == "table" and topic_of("adv") == "adv_std"
    assert topic_of("sha") == "shapes" and topic_of("形状") == "shapes" and topic_of("p") is None
    assert topic_of("") is None and topic_of("nonsense") is None


def test_cli_ref(capsys):
    assert main(["lab", "--ref", "table", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "== One judgement table (the lesson) ==" in out and "ratio_mean" in out
    assert main(["lab", "--ref", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "《闯关：读第一次训练曲线》" in out and "healthy（健康）" in out
    assert main(["lab", "--ref", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err


def test_show_reference_writes_to_the_given_stream():
    buf = io.StringIO()
    assert show_reference("shapes", "zh", buf, width=70) == 0
    assert "缓升 / 缓降：健康的变化都是渐进的" in buf.getvalue()
