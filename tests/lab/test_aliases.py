"""Failure names: one alias table, every name the lab or the report shows resolves, prefixes that fit
several names list them."""

from __future__ import annotations

import pytest

from rlvitals.diagnose.model import FINDING_IDS
from rlvitals.i18n import t
from rlvitals.lab.aliases import EXTRA_ALIASES, HEALTHY, alias_table, name_of, names_shown, norm, resolve
from rlvitals.lab.content import PAIR_OPTIONS

from .conftest import play

ALL = (*FINDING_IDS, HEALTHY)


@pytest.mark.parametrize("fid", ALL)
def test_every_name_shown_resolves_to_its_failure(fid):
    shown = names_shown(fid)
    assert shown, f"{fid} has no name in any catalog"
    spellings = [fid, fid.replace("_", " "), fid.replace("_", "-"), fid.upper(), f"  {fid}  "]
    for lang in ("en", "zh"):
        name = name_of(fid, lang)
        spellings += [name, name.upper(), name.replace(" ", "_"), name.replace(" ", "-")]
    for word in shown + spellings:
        assert resolve(word, ALL).id == fid, (fid, word, resolve(word, ALL))


def test_no_alias_is_lost_to_a_clash():
    """An alias two failures share is dropped from the table: none of the names we show or add may be."""
    table = alias_table()
    for fid in ALL:
        for alias in (*names_shown(fid), *EXTRA_ALIASES.get(fid, ())):
            assert table.get(norm(alias)) == fid, (fid, alias)


def test_the_names_in_the_pair_questions_resolve():
    """The lesson's phrases the pair questions use are names a learner may type back."""
    phrases = {
        "A": {
            "entropy_collapse": ("熵崩塌", "entropy collapse"),
            "sync_failure": ("权重同步失效", "weight-sync failure"),
        },
        "B": {"data_too_easy": ("题目变简单", "模型变强了", "the data got easy"), "entropy_collapse": ("熵崩塌",)},
        "C": {
            HEALTHY: ("正常变长", "healthy growth"),
            "length_hacking": ("长度爆炸", "长度作弊", "length explosion", "length hacking"),
        },
        "D": {
            "batch_noise": ("batch 太小的正常噪声", "small-batch noise"),
            "lr_too_high": ("学习率过大", "a learning rate that is too high"),
        },
    }
    for key, causes in phrases.items():
        q = t(f"lab.pair.{key}.q", "zh") + t(f"lab.pair.{key}.q", "en")
        for fid, words in causes.items():
            for w in words:
                if w in q:  # the phrase is one the question shows ...
                    assert resolve(w, PAIR_OPTIONS[key]).id == fid, (key, w)
    # ... and the ones the lab text certainly shows
    for w, fid in (
        ("长度爆炸", "length_hacking"),
        ("正常变长", HEALTHY),
        ("题目变简单", "data_too_easy"),
        ("刷分", "reward_hacking"),
        ("reward hacking（刷分）", "reward_hacking"),
        ("KL blow-up", "kl_blowup"),
        ("kl blow up", "kl_blowup"),
        ("Weight Sync Failure", "sync_failure"),
        ("跑飞", "kl_blowup"),
    ):
        assert resolve(w, ALL).id == fid, w


def test_a_prefix_that_fits_several_lists_them():
    r = resolve("ent", ALL)
    assert r.id is None and set(r.candidates) == {"entropy_collapse", "entropy_explosion"}
    assert set(resolve("熵", ALL).candidates) == {"entropy_collapse", "entropy_explosion"}
    assert resolve("ent", PAIR_OPTIONS["A"]).id == "entropy_collapse"  # within a pair it is unique
    assert set(resolve("data", ALL).candidates) == {"data_too_easy", "data_too_hard"}
    assert resolve("xyzzy", ALL) == resolve("xyzzy", ALL).__class__(None, ())
    assert resolve("", ALL).id is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_names_typed_in_a_session(fake_content, tmp_path, lang):
    lines = [
        "show 2",
        "答 作弊 刷分",  # the Chinese report's own short name
        "show 3",
        "d ent",
        "d entropy collapse",  # ambiguous: candidates listed, nothing recorded
        "show 5",
        "answer cheating Length-Hacking",
        "show 6",
        "d 权重同步失效",
        "pair A",
        "is A2 weight sync failure",
        "score",
    ]
    text = play(fake_content, lines, tmp_path, lang=lang)
    right = "✓ Right. +10" if lang == "en" else "✓ 对。+10"
    assert text.count(right) == 5, text
    if lang == "en":
        assert "ent could be entropy_collapse (entropy collapse), entropy_explosion (entropy explosion)" in text
        assert "Score 50/130" in text
    else:
        assert "ent 可能是 entropy_collapse（熵崩塌）、entropy_explosion（熵爆炸）：再多打几个字。" in text
        assert "不认识失效名" not in text and "得分 50/130" in text
