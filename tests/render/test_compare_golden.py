"""`rlvitals compare` as a person reads it: the lab's pair A and a small sweep, en and zh (golden)."""

from __future__ import annotations

import pytest
from htmltext import page_text
from test_render_golden import check

import rlvitals
from rlvitals.compare import summarize
from rlvitals.render.compare import compare_html, compare_markdown, compare_text
from rlvitals.simulate import lesson_pairs


@pytest.fixture(scope="module")
def pair_rows():
    pair = lesson_pairs(None)["A"]
    return [summarize(c.run, rlvitals.diagnose_run(c.run), c.key) for c in (pair.left, pair.right)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_pair_a_compared_in_text_markdown_and_html(pair_rows, lang):
    check(f"compare-pair-a.{lang}.txt", compare_text(pair_rows, lang))
    check(f"compare-pair-a.{lang}.md", compare_markdown(pair_rows, lang))
    check(f"compare-pair-a.{lang}.html.txt", page_text(compare_html(pair_rows, lang)))


def test_a_small_sweep_is_one_table_worst_first():
    runs = [
        rlvitals.simulate_run(name, seed=i)
        for i, name in enumerate(("healthy", "kl_blowup", "lr_too_high", "reward_hacking"))
    ]
    text = compare_text([summarize(r, rlvitals.diagnose_run(r)) for r in runs], "en")
    check("compare-sweep.en.txt", text)
    order = [ln.split()[0] for ln in text.splitlines() if "-seed" in ln]
    assert order[0].startswith("kl_blowup") and order[-1].startswith("healthy")
