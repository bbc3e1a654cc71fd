"""Transcript tests: complete scripted runs of the level, read the way a learner reads them."""

from __future__ import annotations

import json

import pytest

from rlvitals.lab.content import QUIZ

from .conftest import expressible, play, right_answers


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_all_right_scores_full_marks(fake_content, tmp_path, lang):
    text = play(fake_content, right_answers(fake_content), tmp_path, lang=lang)
    assert (
        "=== Level complete: 130/130 ===" if lang == "en" else "=== 通关：130/130 ==="
    ) not in text  # not yet: `next`
    text = play(fake_content, right_answers(fake_content) + ["next"], tmp_path, lang=lang, reset=True)
    assert ("Level complete: 130/130" if lang == "en" else "通关：130/130") in text
    assert text.count("✓") == 6 + 4 + 3
    assert "✗" not in text and "Something went wrong" not in text and "闯关内部出了点问题" not in text
    # scripted output echoes each command so the transcript reads well
    assert "> answer learning" in text


def test_all_right_on_the_real_level(real_content, tmp_path):
    """The real simulator + diagnosis: the answer key is what the tool says, so a learner who
    agrees with the tool gets every stage right."""
    text = play(real_content, right_answers(real_content) + ["next", "score"], tmp_path)
    full = 130 - 10 * (len(real_content.pairs) - expressible(real_content))
    assert f"Level complete: {full}/130" in text
    assert "Something went wrong" not in text


def test_wrong_answers_are_explained_with_the_tools_reasoning(fake_content, tmp_path):
    lines = [
        "next",
        "answer learning",  # set 1 is healthy: right
        "next",
        "answer dead",  # set 2 is reward hacking: wrong
        "next",
        "answer dead sync_failure",  # set 3 is entropy collapse: verdict right, failure wrong
        "knob 2",
        "answer dead",  # the knob picked, then the explanation again
        "pair A",
        "is A1 sync",
        "diff",
        "score",
    ]
    text = play(fake_content, lines, tmp_path)
    assert "✗ Not quite: the tool says CHEATING." in text
    assert "Why not dead: reward rising" in text  # the metric that rules the wrong verdict out
    assert "~ The verdict is right, but the failure is entropy collapse (entropy_collapse). +7" in text
    assert "Why set 3 is not sync failure: ratio_mean" in text
    assert "✗ The other way round: A1 is entropy collapse, A2 is sync failure." in text
    # the explanation carries the ruled-out look-alike and, once the learner picked theirs, the tool's knob
    assert "ruled out sync failure — ratio_mean = 1.0000: stays at 1" in text
    assert "✓ raise the temperature / clip-higher (or roll back)" in text
    assert "the tool's next knob: raise temperature (typical 1.0)" in text
    assert "Score 17/130" in text


def test_hints_cost_points_and_run_out(fake_content, tmp_path):
    lines = ["next", "hint", "hint", "hint", "hint", "answer learning", "hint"]
    text = play(fake_content, lines, tmp_path)
    assert "Hint 1/3 (-2 points on this stage):" in text
    assert "Hint 2: what the values do (shape" in text and "Hint 3: the rule" in text
    assert "No more hints for this stage" in text
    assert "✓ Right. +4" in text  # 10 - 3 hints x 2
    assert "Hints (free once answered):" in text  # after answering: free
    assert "Score 4/130" in text


def test_pair_hints_and_samples_for_pair_b(fake_content, tmp_path):
    text = play(fake_content, ["pair B", "hint", "hint", "hint", "is B2 entropy_collapse", "diff"], tmp_path)
    # both logs' 8 sampled answers are shown, and their diversity reported
    assert "B1: 8 sampled answers to one prompt (step 20):" in text
    assert "B2: 1 distinct answers out of 8" in text and "B1: 8 distinct answers out of 8" in text
    assert "Hint 1: compare entropy and acc, and read the 8 sampled answers" in text
    assert "✓ Right. +4" in text
    assert "=== Pair B: the answer ===" in text and "Where the two logs differ:" in text
    section = text.split("Where the two logs differ:")[1].split("What each difference rules out:")[0]
    # the metrics that decide pair B come first, even where the two logs differ little (acc, adv_std)
    assert [ln.split()[0] for ln in section.strip().splitlines()[:3]] == ["entropy", "acc", "adv_std"]


def test_diff_before_answering_asks_first_then_gives_the_pair_up(fake_content, tmp_path):
    text = play(fake_content, ["pair D", "diff", "diff", "is D1 batch", "goals"], tmp_path)
    assert "`diff` shows the answer." in text
    assert "=== Pair D: the answer ===" in text
    assert "Already answered" in text
    assert "pairs judged before looking at the answer 0/4" in text


def test_bad_input_gets_one_helpful_line(fake_content, tmp_path):
    lines = [
        "",
        "answer dead",
        "is A1 x",
        "diff",
        "frobnicate",
        "show 9",
        "pair Z",
        "pair A",
        "is",
        "is A3 entropy",
        "is A1 kl_blowup",
        "next",
        "answer maybe",
        "answer dead nosuchthing",
        "quiz",
        "7",
        "answer x",
        "lang fr",
        "显示",
        "是 A1",
        "hint",
    ]
    text = play(fake_content, lines, tmp_path)
    assert "Something went wrong" not in text
    for expected in (
        "Nothing is open yet: type `next`.",
        "`is` answers a pair: open one first",
        "`diff` compares the two logs of a pair",
        "Unknown command: frobnicate.",
        "Usage: show N",
        "Usage: pair A",
        "Usage: is A1 CAUSE",
        "In this pair the cause is either entropy_collapse or sync_failure.",
        "Judge the set with: answer",
        "I don't know the failure nosuchthing",
        "Answer with the number of an option, 1-4.",
        "Usage: lang en | lang zh",
    ):
        assert expected in text, expected


def test_quit_and_resume_with_saved_progress(fake_content, tmp_path):
    state = tmp_path / "progress.json"
    first = play(
        fake_content, ["next", "answer learning", "next", "hint", "quit", "answer cheating"], tmp_path, state=state
    )
    assert "Progress saved.  Score 10/130." in first
    assert "answer cheating" not in first  # nothing is read after quit
    saved = json.loads(state.read_text())
    assert saved["levels"]["default"]["current"] == "2"
    assert saved["levels"]["default"]["hints"] == {"2": 1}
    second = play(fake_content, ["answer cheating reward_hacking", "score"], tmp_path, state=state)
    assert "Welcome back: 1/13 stages done, score 10/130." in second
    assert "✓ Right. +8" in second  # the hint taken before quitting still costs
    assert "Score 18/130" in second
    third = play(fake_content, ["score"], tmp_path, state=state, reset=True)
    assert "Welcome back" not in third and "Score 0/130" in third


def test_seed_levels_are_kept_apart(fake_content, fake_content_seed7, tmp_path):
    state = tmp_path / "p.json"
    play(fake_content, ["next", "answer learning"], tmp_path, state=state)
    text = play(fake_content_seed7, ["score"], tmp_path, state=state, seed=7)
    assert "Score 0/130" in text
    levels = json.loads(state.read_text())["levels"]
    assert set(levels) == {"default", "7"}


def test_eof_saves_like_quit_in_chinese(fake_content, tmp_path):
    text = play(fake_content, ["下一关", "答 在学", "目标"], tmp_path, lang="zh")
    assert "✓ 对。+10" in text
    assert "已判断 1/6 组，判对 1" in text
    assert text.rstrip().endswith("进度已保存。得分 10/130。下次见。")


def test_quiz_in_order_with_explanations(fake_content, tmp_path):
    wrong = [str(q.answer % 4 + 1) for q in QUIZ]
    text = play(fake_content, ["quiz"] + wrong + ["quiz"], tmp_path)
    for q in QUIZ:
        assert f"✗ The answer is {q.answer}." in text
    assert text.count("Why:") == 3
    assert "--- Question 3/3 ---" in text


def test_plain_transcript_wraps_at_80_columns_in_both_languages(fake_content, tmp_path):
    from rlvitals.render.charts import display_width

    for lang in ("en", "zh"):
        text = play(
            fake_content,
            ["next", "answer dead", "pair A", "hint", "hint", "hint", "quiz"],
            tmp_path,
            lang=lang,
            width=80,
            reset=True,
        )
        over = [ln for ln in text.splitlines() if display_width(ln) > 80]
        assert over == [], over[:3]
        # a wrapped sentence continues indented, nothing is cut
        assert (
            "Rule: entropy → 0 with ratio ≡ 1.0 is entropy collapse" if lang == "en" else "规则：entropy 趋近 0"
        ) in text.replace("\n  ", " ")


def test_pair_logs_are_drawn_side_by_side_on_one_scale(fake_content, tmp_path):
    text = play(fake_content, ["pair A"], tmp_path, width=100)
    rows = {
        ln.split()[0]: ln for ln in text.splitlines() if ln[:10].strip() in ("reward", "entropy", "ratio_mean", "len")
    }
    assert set(rows) == {"reward", "entropy", "ratio_mean", "len"}
    left, right = rows["ratio_mean"][11:].split("1.0000→1.0000")
    # A1 holds ratio at exactly 1 (the top of the shared range), A2 drifts down to 0.55
    assert set(left.strip()) == {"█"} and right.strip().startswith("█") and "▁" in right
    # start → end as the reports give it: the mean of the first and the last tenth
    v = fake_content.pairs["A"].right.case.run.series["ratio_mean"].values
    tenth = v.size // 10
    assert f"{v[:tenth].mean():.4f}→{v[-tenth:].mean():.4f}" in right


def test_reanswering_a_pair_shows_its_answer_again(fake_content, tmp_path):
    text = play(fake_content, ["pair A", "is A1 entropy_collapse", "is A2 sync", "is A1 whatever", "score"], tmp_path)
    after = text.split("> is A2 sync")[1]
    assert after.count("Already answered (your first answer counts).  Here is the explanation:") == 2
    assert after.count("=== Pair A: the answer ===") == 2  # not an empty "Here is the explanation:"
    assert "Rule: entropy → 0 with ratio ≡ 1.0 is entropy collapse" in after
    assert "Score 10/130" in text  # the first answer still counts, once
    zh = play(fake_content, ["配对 A", "是 A1 熵崩塌", "是 A1 熵崩塌"], tmp_path, lang="zh", reset=True)
    assert (
        zh.count("=== 配对 A：答案 ===") == 1
        and "已经答过了（以第一次回答为准）。解释如下：\n=== 配对 A：答案 ===" in zh
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_healthy_set_is_explained_as_healthy_with_no_knob(fake_content, tmp_path, lang):
    text = play(fake_content, ["show 1", "answer learning"], tmp_path, lang=lang)
    explanation = text.split("> answer learning")[1]
    if lang == "en":
        assert "The tool's reading: LEARNING: healthy" in explanation
        assert "Healthy: no finding above info, so nothing to change." in explanation
        assert "Keep watching adv_std (1.000 → 0.700): 0.5–0.8, normal late in a run" in explanation
        assert "next knob" not in explanation
    else:
        assert "工具的判读：在学：健康" in explanation and "不用改任何东西" in explanation
        assert "继续留意 adv_std（1.000 → 0.700）：0.5 ~ 0.8，后期正常" in explanation
        assert "下一步" not in explanation
