"""Teaching, not grading: a wrong answer is answered with the metric that rules it out, the learner
picks the knob after naming the failure, explanations are plain words (no raw evidence keys), and
every screen of each language speaks only that language."""

from __future__ import annotations

import re

import pytest

from rlvitals.lab.aliases import resolve
from rlvitals.lab.explain import shape_line
from rlvitals.lab.teach import FIX_OF, KNOBS, pick_knob

from .conftest import play

# Every kind of screen: help, goals, references, each set answered wrong (and once named wrong),
# hints, each pair answered wrong then diffed, knobs right and wrong, the quiz wrong, an experiment,
# errors, the score.
EVERY_SCREEN = [
    "help",
    "goals",
    "ref",
    "ref healthy",
    "ref shapes",
    "ref adv_std",
    "ref table",
    "ref pairs",
    "ref summary",
    "ref plot",
    "wat",
    "knob 1",
    "next",
    "hint",
    "hint",
    "hint",
    "answer dead",
    "next",
    "answer learning",
    "knob 1",
    "next",
    "d reward hacking",
    "knob 2",
    "next",
    "answer cheating",
    "next",
    "answer unstable",
    "knob 8",
    "next",
    "answer learning",
    "knob 4",
    "next",
    "hint",
    "is A1 sync",
    "knob 3",
    "diff",
    "next",
    "is B1 collapse",
    "knob 1",
    "diff",
    "next",
    "is C1 len",
    "knob 5",
    "diff",
    "next",
    "hint",
    "is D1 lr",
    "knob 7",
    "diff",
    "quiz",
    "1",
    "2",
    "4",
    "exp",
    "exp E4",
    "turn 2",
    "predict 1",
    "score",
    "goals",
    "show 9",
    "d ent",
]
# English a Chinese screen may carry: the vitals' names, the commands one types, the lesson's own
# terms of art, knob and file names, units.
ZH_ALLOWED = {
    "reward",
    "acc",
    "entropy",
    "kl",
    "KL",
    "adv_std",
    "clip_frac",
    "clip",
    "ratio_mean",
    "ratio",
    "len",
    "gnorm",
    "trunc",
    "lr",
    "loss",
    "val_acc",
    "batch",
    "temperature",
    "clip-higher",
    "ε_high",
    "ε_low",
    "log-prob",
    "rollout",
    "GRPO",
    "PPO",
    "DAPO",
    "RL",
    "PNG",
    "NaN",
    "inf",
    "info",
    "L2",
    "L3",
    "L4",
    "slime",
    "rlvitals",
    "reward hacking",
    "hacking",
    "std",
    "prompt",
    "plot_log",
    "scripts",
    "py",
    "logs",
    "curves",
    "png",
    "run",
    "log",
    "re",
    "sys",
    "matplotlib",
    "pyplot",
    "plt",
    "stale_from",
    "need_median",
    "len_bonus",
    "hack_bonus",
    "diff",
    "hint",
    "pair",
    "next",
    "answer",
    "is",
    "quiz",
    "help",
    "goals",
    "score",
    "lang",
    "en",
    "zh",
    "quit",
    "show",
    "ref",
    "knob",
    "exp",
    "turn",
    "predict",
    "learning",
    "cheating",
    "dead",
    "unstable",
    "l",
    "c",
    "d",
    "u",
    "g",
    "h",
    "s",
    "p",
    "n",
    "N",
    "V",
    "E1",
    "E2",
    "E3",
    "E4",
    "E5",
    "A",
    "B",
    "C",
    "D",
    "A1",
    "A2",
    "B1",
    "B2",
    "C1",
    "C2",
    "D1",
    "D2",
    "ent",
    "wat",
    "verifier",
    "tmp",
    "lab-figures",
    "default",
    "figures",
    "x",
    "o",
    "id",
    "lab",
    "plot",
    "healthy",
    "shapes",
    "table",
    "pairs",
    "summary",  # the reference topics one types
    "stdout",
    "bug",
    "token",
    "y",
    "clip_ratio_high",
    "clip_fraction_high",  # the lesson's and the
    "Dr",
    "PTT",
    "Q1",
    "Q2",
    "Q3",
    "filter_groups",  # frameworks' own terms
}


def _strip_data(text: str) -> str:
    """What is shown as data, not as words of the session: sampled answers (the model's output),
    quoted samples «…», file paths, the finding and knob ids one can type."""
    from rlvitals.diagnose.model import FINDING_IDS

    text = re.sub(r"«[^»]*»", "", text)
    text = re.sub(r"「step \d+[^」]*」", "", text)
    text = re.sub(r"(?m)^\s+\d+\. .*$", "", text)  # the 8 sampled answers of pair B
    text = re.sub(r"/\S+", "", text)  # paths
    for fid in sorted(FINDING_IDS, key=len, reverse=True):
        text = text.replace(fid, "")
    text = re.sub(r"\(?[A-Z][a-z]+ et al\.[^)）]*[)）]?|arXiv \S+|[A-Z]\. Weng \d+", "", text)  # sources
    return text


@pytest.fixture(scope="module", params=["real_content", "real_content_seed"])
def transcripts(request, tmp_path_factory):
    content = request.getfixturevalue(request.param)
    out = {}
    for lang in ("en", "zh"):
        out[lang] = play(content, EVERY_SCREEN, tmp_path_factory.mktemp(lang), lang=lang, width=100)
    return out


def test_every_screen_is_in_one_language(transcripts):
    zh = _strip_data(transcripts["zh"])
    words = set(re.findall(r"[A-Za-zε][A-Za-z0-9_\-]*", zh))
    foreign = sorted(w for w in words if w not in ZH_ALLOWED and w not in ("reward", "hacking"))
    assert foreign == [], f"English on Chinese screens: {foreign}"
    en = _strip_data(transcripts["en"]).replace("「闯关：读第一次训练曲线」", "")  # the lesson's title, quoted
    cjk = sorted(set(re.findall(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+", en)))
    assert cjk == [], f"Chinese on English screens: {cjk}"


def test_no_screen_shows_a_raw_evidence_key(real_content, real_content_seed, transcripts):
    keys = set()
    for s in (*real_content.sets, *real_content_seed.sets):
        for f in s.diag.findings:
            keys |= set(f.evidence)
    for p in (*real_content.pairs.values(), *real_content_seed.pairs.values()):
        for side in (p.left, p.right):
            for f in side.diag.findings:
                keys |= set(f.evidence)
    assert keys, "no evidence keys to look for"
    for lang, text in transcripts.items():
        shown = sorted(k for k in keys if f"{k}=" in text)
        assert shown == [], f"{lang}: raw evidence keys {shown}"


def test_a_wrong_verdict_is_answered_with_the_metric_that_rules_it_out(real_content, tmp_path):
    cheat = next(s for s in real_content.sets if s.verdict == "cheating" and s.failure == "reward_hacking")
    text = play(real_content, [f"show {cheat.key}", "answer learning"], tmp_path)
    acc = shape_line(cheat.diag, "acc", "en")
    assert f"Why not learning: acc {acc}" in text
    assert cheat.diag.shapes["acc"].word in ("flat", "falling")  # the set shows what the rule says
    dead = next(s for s in real_content.sets if s.verdict == "dead")
    text = play(real_content, [f"show {dead.key}", "answer learning"], tmp_path / "2", lang="zh")
    assert f"为什么不是在学：acc {shape_line(dead.diag, 'acc', 'zh')}" in text and "目标没有提升" in text


def test_a_wrong_pair_answer_says_which_metric_rules_each_cause_out(real_content, tmp_path):
    pair = real_content.pairs["B"]
    easy = next(s for s in (pair.left, pair.right) if s.answer == "data_too_easy")
    collapse = next(s for s in (pair.left, pair.right) if s.answer == "entropy_collapse")
    text = play(real_content, ["pair B", f"is {easy.label} collapse"], tmp_path)
    assert f"Why {collapse.label} is not data too easy: entropy {shape_line(collapse.diag, 'entropy', 'en')}" in text
    assert "data that got easy keeps entropy normal" in text
    assert f"Why {easy.label} is not entropy collapse: entropy " in text


def test_after_the_failure_the_learner_picks_the_knob(real_content, tmp_path):
    item = next(s for s in real_content.sets if s.failure == "entropy_collapse")
    state = tmp_path / "p.json"
    text = play(real_content, [f"show {item.key}", "answer dead entropy collapse"], tmp_path, state=state)
    ask = text.split("Next knob:")[1]
    assert "raise the temperature" in ask and "the tool's next knob" not in text  # not given away first
    text = play(real_content, ["knob 1"], tmp_path, state=state)
    assert "✗ lower the learning rate is for updates that are too violent" in text
    assert "Here it is entropy collapse: entropy approaching 0" in text and "→ raise the temperature" in text
    # answered: the explanation now includes the tool's own knob
    again = play(real_content, [f"show {item.key}", "answer dead"], tmp_path, state=state)
    assert "the tool's next knob" in again
    import json

    level = json.loads(state.read_text(encoding="utf-8"))["levels"]["default"]
    assert level["results"][f"{item.key}.knob"]["given"] == "lr_down"
    assert level["results"][f"{item.key}.knob"]["correct"] is False


def test_the_knob_table_covers_the_lab_and_reads_any_form():
    for f in ("entropy_collapse", "sync_failure", "reward_hacking", "length_hacking", "data_too_easy", "lr_too_high"):
        assert set(FIX_OF[f]) <= set(KNOBS)
    assert pick_knob(["2"]) == "temperature_up" and pick_knob(["lr_down"]) == "lr_down"
    assert pick_knob(["降学习率"]) == "lr_down" and pick_knob(["harder", "data"]) == "harder_data"
    assert pick_knob(["99"]) is None and pick_knob([]) is None


@pytest.mark.parametrize("said", ["B1 简单", "b1 easy", "B1 题目变简单", "is b1 data too easy", "是 B1 简单"])
def test_a_pair_answer_in_either_language_and_form(fake_content, tmp_path, said):
    text = play(fake_content, ["pair B", said, "score"], tmp_path)
    assert "B1=data too easy" in text or "B1=数据太简单" in text or "B1=" in text.split("Score")[-1]
    assert resolve("简单", ["data_too_easy", "entropy_collapse"]).id == "data_too_easy"


def test_the_lab_names_its_figure_folder_and_the_start_end_rule(tmp_path):
    import io

    from rlvitals.lab import run_lab
    from rlvitals.lab.content import LabContent

    out = io.StringIO()
    run_lab(
        "en",
        None,
        False,
        "-",
        str(tmp_path / "p.json"),
        True,
        stdin=io.StringIO("quit\n"),
        stdout=out,
        content=LabContent(None, (), {}),
        width=400,
    )
    text = out.getvalue()
    assert f"Figures (PNG) are written to {tmp_path / 'lab-figures'}" in text
    assert "mean of the first and of the last tenth" in text


def test_every_teaching_and_experiment_key_exists_in_both_languages():
    from rlvitals.diagnose.model import FINDING_IDS
    from rlvitals.i18n.lab import STRINGS as LAB
    from rlvitals.i18n.lab_lesson import STRINGS as LESSON
    from rlvitals.lab.experiment import CLAIMS, EXPERIMENTS

    want = [f"lab.knob.{k}{part}" for k in KNOBS for part in ("", ".for")]
    want += [f"lab.whynot.c.{f}" for f in (*FINDING_IDS, "healthy")]
    want += [f"lab.claim.{c}" for c in CLAIMS]
    want += [f"lab.exp.{e}.{part}" for e in EXPERIMENTS for part in ("title", "s1", "s2", "lesson")]
    want += [f"lab.quiz.Q{q}.not{i}" for q in (1, 2, 3) for i in (1, 2, 3, 4)]
    for lang in ("en", "zh"):
        assert sorted(set(want) - {*LAB[lang], *LESSON[lang]}) == [], lang
