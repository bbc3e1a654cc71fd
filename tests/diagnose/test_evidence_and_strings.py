"""Samples as evidence in the differential, and every finding's strings in both languages."""

from __future__ import annotations

import ast
import json
import string
from pathlib import Path

import diag_curves as dc
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.model import FINDING_IDS
from rlvitals.i18n import t
from rlvitals.i18n.findings import STRINGS
from rlvitals.samples import read_samples
from rlvitals.shapes import WORDS

DIAG = Path(__file__).resolve().parents[2] / "src" / "rlvitals" / "diagnose"


def _dump(path, answers_for_step, reward):
    with path.open("w") as fh:
        for step in range(10, 201, 10):
            for g in range(4):
                for a in answers_for_step(step, g):
                    fh.write(json.dumps({"step": step, "group": f"p{g}", "response": a, "reward": reward}) + "\n")
    return read_samples(path)


def test_identical_samples_confirm_collapse_and_are_quoted(tmp_path):
    def answers(step, g):
        if step < 100:
            return [f"attempt {i} for prompt {g}: think about the {w} first" for i, w in enumerate("abcd")]
        return ["The answer is B."] * 4

    smp = _dump(tmp_path / "s.jsonl", answers, 1.0)
    d = diagnose(dc.pair_a1_collapse(0), samples=smp)
    assert d.top.id == "entropy_collapse"
    assert d.top.evidence["sample_diversity_end"] == 0.0
    assert d.top.samples and "The answer is B." in d.top.samples[0]
    assert "samples" not in d.top.missing


def test_diverse_all_right_samples_confirm_easy_data(tmp_path):
    words = ["add", "sum", "combine", "total", "plus", "join", "merge", "count"]

    def answers(step, g):
        return [f"we {words[(i + step) % 8]} the {g} values and get {i} then {words[i]} again" for i in range(4)]

    smp = _dump(tmp_path / "s.jsonl", answers, 1.0)
    d = diagnose(dc.pair_b1_easy(0), samples=smp)
    assert d.top.id == "data_too_easy"
    assert d.top.evidence["samples_all_right"] == 1.0 and d.top.evidence["sample_diversity_end"] > 0.3
    assert any(r.metric == "samples" and r.lookalike == "entropy_collapse" for r in d.top.ruled_out)
    assert d.top.samples


def _consts(node) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _used_keys() -> tuple[set[str], set[str]]:
    """Every reason passed to ro(...) and every Action(why=...) in the diagnose package (by AST)."""
    reasons, whys = set(), set()
    for p in DIAG.glob("*.py"):
        tree = ast.parse(p.read_text())
        assigned: dict[str, set[str]] = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                assigned.setdefault(n.targets[0].id, set()).update(_consts(n.value))
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                if n.func.id == "ro" and len(n.args) == 4:
                    arg = n.args[3]
                    reasons |= assigned.get(arg.id, set()) if isinstance(arg, ast.Name) else _consts(arg)
                if n.func.id == "Action":
                    whys |= {c for k in n.keywords if k.arg == "why" for c in _consts(k.value)}
    return reasons, whys


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_id_reason_shape_and_verdict_has_a_string(lang):
    table = STRINGS[lang]
    for fid in FINDING_IDS:
        for key in (f"finding.{fid}.title", f"finding.{fid}.summary", f"action_why.{fid}"):
            assert table.get(key), key
    for w in WORDS:
        assert table.get(f"shape.{w}")
    for v in ("learning", "cheating", "dead", "unstable"):
        assert table.get(f"verdict.{v}")
    reasons, whys = _used_keys()
    assert reasons and whys
    for r in reasons:
        assert f"ruled_out.{r}" in table, r
    for w in whys:
        assert f"action_why.{w}" in table, w


def test_zh_uses_the_lessons_words():
    zh = STRINGS["zh"]
    assert [zh[f"shape.{w}"] for w in ("rising", "falling", "flat", "drift", "oscillating", "short")] == [
        "缓升",
        "缓降",
        "平掉",
        "单调偏离",
        "剧烈抖动",
        "数据不足",
    ]
    assert "陡增" in zh["shape.spike"] and "暴涨" in zh["shape.spike"]


@pytest.mark.parametrize(
    "case", ["pair_a1_collapse", "pair_a2_sync", "pair_b1_easy", "pair_c2_explode", "pair_d1_noise", "pair_d2_lr"]
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_summaries_format_with_the_evidence_each_rule_sets(case, lang):
    d = diagnose(getattr(dc, case)(0))
    for f in d.findings:
        fields = dict(f.evidence, step=f.onset_step)
        out = t(f"finding.{f.id}.summary", lang, **fields)
        names = {n for _, n, _, _ in string.Formatter().parse(STRINGS[lang][f"finding.{f.id}.summary"]) if n}
        assert names <= set(fields), (f.id, names - set(fields))
        assert "{" not in out
