"""The engine on its own: parsing, scoring, never crashing on any input."""

from __future__ import annotations

import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from rlvitals.diagnose.model import Diagnosis, Finding
from rlvitals.lab.aliases import match_cause
from rlvitals.lab.content import HEALTHY, side_label
from rlvitals.lab.engine import HINT_COST, Lab, View
from rlvitals.lab.state import Progress


def lab_of(content, lang="en"):
    saved = []
    return Lab(content, Progress(), lang, on_change=saved.append), saved


def texts(out):
    return [x for x in out if isinstance(x, str)]


def test_views_are_requested_for_sets_pairs_and_quiz(fake_content):
    lab, saved = lab_of(fake_content)
    assert lab.handle("next")[0] == View("set", "1")
    assert lab.handle("show 4")[0] == View("set", "4")
    assert lab.handle("pair c")[0] == View("pair", "C")
    assert lab.handle("B")[0] == View("pair", "B")
    assert lab.handle("quiz")[0] == View("quiz", "Q1")
    assert lab.current == "Q1" and saved, "moving between stages saves the position"


def test_short_forms_and_chinese_keywords(fake_content):
    lab, _ = lab_of(fake_content, "zh")
    lab.handle("看 3")
    assert "✓ 对。+10" in texts(lab.handle("废了 熵崩塌"))  # the failure named in Chinese
    lab.handle("配对 A")
    assert texts(lab.handle("A2 sync"))[0].startswith("✓")  # "A2 sync" = "is A2 sync_failure"
    lab.handle("show 5")
    assert texts(lab.handle("c length"))[0].startswith("✓")  # c = cheating, failure by prefix


def test_scoring_first_answer_counts(fake_content):
    lab, _ = lab_of(fake_content)
    lab.handle("show 2")
    assert texts(lab.handle("d"))[0].startswith("✗")
    again = texts(lab.handle("c reward_hacking"))
    assert again[0].startswith("Already answered")
    assert lab.score() == (0, 130)


def test_hint_costs_are_per_stage_and_floor_at_zero(fake_content):
    lab, _ = lab_of(fake_content)
    lab.handle("pair A")
    for _ in range(3):
        lab.handle("hint")
    lab.handle("is A1 entropy_collapse")
    assert lab.progress.results["A"].points == 10 - 3 * HINT_COST
    lab.handle("quiz")
    lab.handle("hint")
    assert texts(lab.handle("hint"))[0].startswith("No more hints")
    lab.handle("1")  # wrong: Q1's answer is 2
    assert lab.progress.results["Q1"].points == 0


def test_match_cause():
    opts = ("entropy_collapse", "sync_failure")
    assert match_cause("sync", opts) == "sync_failure"
    assert match_cause("Entropy-Collapse", opts) == "entropy_collapse"
    assert match_cause("kl", opts) is None
    assert match_cause("正常", ("healthy", "length_hacking")) == "healthy"
    assert match_cause("", opts) is None


def test_side_label_uses_the_tools_findings():
    f = lambda i, s="critical": Finding(i, s, 10)  # noqa: E731
    d = lambda *fs: Diagnosis("dead", tuple(fs), {}, {})  # noqa: E731
    assert (
        side_label(d(f("plateau", "info"), f("sync_failure")), ("entropy_collapse", "sync_failure")) == "sync_failure"
    )
    assert side_label(d(f("plateau", "info")), (HEALTHY, "length_hacking")) == HEALTHY
    assert side_label(d(), (HEALTHY, "length_hacking")) == HEALTHY
    assert side_label(d(f("kl_blowup")), ("batch_noise", "lr_too_high")) == "kl_blowup"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=30), min_size=1, max_size=8))
def test_fuzz_any_input_never_crashes(fake_content, lines):
    lab, _ = lab_of(fake_content)
    for line in lines:
        out = lab.handle(line)
        assert all(isinstance(x, (str, View)) for x in out)
        assert not any("Something went wrong" in x for x in texts(out)), (line, out)


def test_fuzz_command_words_with_random_arguments(fake_content):
    """Real command words with junk arguments, in random states (a sharper fuzz than random text)."""
    rng = random.Random(5)
    words = [
        "next",
        "show",
        "answer",
        "pair",
        "is",
        "diff",
        "hint",
        "quiz",
        "score",
        "goals",
        "lang",
        "l",
        "c",
        "d",
        "u",
        "A",
        "A1",
        "1",
        "2",
        "答",
        "是",
        "提示",
    ]
    junk = ["", "1", "7", "A", "A1", "A3", "b2", "x", "entropy", "sync", "healthy", "-1", "1e9", "Ü", "在学", "?"]
    for _ in range(40):
        lab, _ = lab_of(fake_content, rng.choice(["en", "zh"]))
        for _ in range(30):
            line = " ".join([rng.choice(words)] + [rng.choice(junk) for _ in range(rng.randint(0, 3))])
            if rng.random() < 0.1:
                line = "".join(rng.choice(string.printable) for _ in range(rng.randint(0, 20)))
            out = texts(lab.handle(line))
            assert not any("Something went wrong" in x or "闯关内部出了点问题" in x for x in out), line
        got, total = lab.score()
        assert 0 <= got <= total == 130


def test_long_sampled_answers_keep_their_start_and_their_end():
    from rlvitals.lab.ui import clip_middle
    from rlvitals.render.charts import display_width

    text = "First, figure out the pieces. 2 × 8 = 16 pages. 8 + 16 = 24 pages read. 144 - 24 = 120."
    short = clip_middle(text, 40)
    assert short.startswith("First, figure") and short.endswith("= 120.") and " … " in short
    assert display_width(short) <= 40
    assert clip_middle("短答案", 40) == "短答案"
    assert display_width(clip_middle("中文" * 50, 30)) <= 30


def test_the_group_shown_is_one_that_carries_no_advantage_all_correct_first():
    from types import SimpleNamespace

    from rlvitals.lab.explain import sample_group

    recs = [{"step": 9, "group": "old", "response": "x", "reward": 1.0}]
    recs += [{"step": 10, "group": "mixed", "response": f"m{i}", "reward": float(i % 2)} for i in range(8)]
    recs += [{"step": 10, "group": "wrong", "response": f"w{i}", "reward": 0.0} for i in range(8)]
    recs += [{"step": 10, "group": "right", "response": f"r{i}", "reward": 1.0} for i in range(8)]
    assert sample_group(SimpleNamespace(samples=recs)) == (10, "right", [f"r{i}" for i in range(8)])
    no_solved = [r for r in recs if r["group"] != "right"]
    assert sample_group(SimpleNamespace(samples=no_solved))[1] == "wrong"
    assert sample_group(SimpleNamespace(samples=None)) is None
