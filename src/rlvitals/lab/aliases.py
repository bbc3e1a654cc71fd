"""Every name a learner may type for a failure (or "healthy"), in either language: one table.

The names a learner sees come from the catalogs: the diagnosis report's titles
(`finding.<id>.title`, e.g. "reward hacking（刷分）") and the lab's own (`lab.f.<id>`), in English
and Chinese.  Each becomes an alias, and so does each part of a name with a bracketed gloss
("reward hacking" and "刷分"); the lesson's own phrases ("长度爆炸", "题目变简单", "正常变长") and
common short forms ("sync", "lr") are added by hand.  Matching ignores case, spaces, underscores,
hyphens and full-width/half-width forms, so `kl-blowup`, `KL blow up` and `kl_blowup` are one name.

The commands (`COMMANDS`), the verdicts (`VERDICT_WORDS`) and the sides of a pair (`SIDE_WORDS`) a
learner may type are here too, in English, short forms and Chinese.

`resolve(word, choices)` answers: the id, or (when a prefix fits several) the candidates, so the
lab can say "ent: entropy_collapse or entropy_explosion?" instead of "unknown".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..diagnose.model import FINDING_IDS
from ..i18n import LANGS, t

__all__ = [
    "COMMANDS",
    "EXTRA_ALIASES",
    "HEALTHY",
    "SIDE_WORDS",
    "VERDICT_WORDS",
    "Resolved",
    "alias_table",
    "match_cause",
    "name_of",
    "names_shown",
    "norm",
    "resolve",
]

HEALTHY = "healthy"

# Short forms and the lesson's own phrases, beyond the catalogs' names.  Sources: the lesson's
# pair descriptions ("正常变长" / "长度爆炸", "题目变简单" / "模型变强了", "batch 太小的正常噪声",
# "学习率过大", "权重没同步") and its judgement table ("跑飞", "刷分").
EXTRA_ALIASES: dict[str, tuple[str, ...]] = {
    HEALTHY: ("ok", "normal", "fine", "健康", "正常", "正常变长", "healthy growth"),
    "entropy_collapse": ("collapse", "熵塌缩", "熵坍缩", "坍缩"),
    "sync_failure": ("sync", "weight sync", "sync bug", "同步", "同步失效", "权重没同步", "权重同步"),
    "reward_hacking": ("刷分", "奖励作弊", "reward hack"),
    "length_hacking": ("length explosion", "长度爆炸", "长度作弊", "注水", "length hack"),
    "kl_blowup": ("kl", "kl explosion", "跑飞", "kl跑飞"),
    "lr_too_high": (
        "lr",
        "learning rate",
        "learning rate that is too high",
        "学习率太大",
        "学习率过大",
        "学习率过高",
        "学习率",
    ),
    "batch_noise": (
        "noise",
        "small batch",
        "normal noise of a small batch",
        "batch太小",
        "小batch",
        "噪声",
        "正常噪声",
    ),
    "data_too_easy": (
        "easy",
        "too easy",
        "easy data",
        "data got easy",
        "model got stronger",
        "stronger",
        "题目变简单",
        "题目太简单",
        "太简单",
        "简单",
        "变简单",
        "数据太简单",
        "模型变强了",
        "模型变强",
        "变强",
    ),
    "data_too_hard": ("hard", "too hard", "hard data", "题目太难", "太难"),
    "stalled": ("stuck", "卡住", "卡住不动", "停滞"),
    "numeric_instability": ("nan", "inf", "数值不稳", "数值不稳定"),
    "truncation_starvation": ("truncation", "trunc", "截断", "截断饿死"),
    "entropy_explosion": ("熵爆炸", "熵失控"),
    "plateau": ("平台期", "平台", "趋平"),
}

_SEP = re.compile(r"[\s_\-·・]+")
_ARTICLE = re.compile(r"^(?:a|an|the)\s+")
_GLOSS = re.compile(r"\s*[（(]([^）)]*)[）)]\s*")


def norm(word: str) -> str:
    """The form names are compared in: NFKC, lower case, no leading article, no spaces/underscores/hyphens."""
    return _SEP.sub("", _ARTICLE.sub("", unicodedata.normalize("NFKC", word).strip().lower()))


def name_of(fid: str, lang: str) -> str:
    """A finding id's short name ("entropy collapse" / "熵崩塌"): the diagnosis report's own title
    when the findings catalog has one, so the lab and `rlvitals diagnose` name things alike."""
    if not fid:
        return ""
    title = t(f"finding.{fid}.title", lang)
    return title if title != f"finding.{fid}.title" else t(f"lab.f.{fid}", lang)


def _parts(name: str) -> list[str]:
    """A name and the pieces of it a reader sees: "reward hacking（刷分）" -> itself, "reward hacking", "刷分"."""
    out = [name]
    glosses = _GLOSS.findall(name)
    bare = _GLOSS.sub(" ", name).strip()
    if glosses:
        out += [bare, *glosses]
    return [p for p in out if p.strip()]


def names_shown(fid: str) -> list[str]:
    """Every name of `fid` the lab or the report shows, in every language (with their parts)."""
    out: list[str] = []
    for lang in LANGS:
        for key in (f"finding.{fid}.title", f"lab.f.{fid}"):
            text = t(key, lang)
            if text != key:
                out += _parts(text)
    return out


@lru_cache(maxsize=1)
def alias_table() -> dict[str, str]:
    """normalised alias -> id, for every finding and "healthy".  An alias two ids share is dropped
    (it would silently pick one); the tests check no shown name is lost that way."""
    seen: dict[str, set[str]] = {}
    for fid in (*FINDING_IDS, HEALTHY):
        for alias in (fid, *names_shown(fid), *EXTRA_ALIASES.get(fid, ())):
            key = norm(alias)
            if key:
                seen.setdefault(key, set()).add(fid)
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


@dataclass(frozen=True)
class Resolved:
    """What a typed name means among `choices`: `id` when one fits, else the `candidates` (maybe none)."""

    id: str | None
    candidates: tuple[str, ...] = ()


def resolve(word: str, choices: Iterable[str]) -> Resolved:
    """A typed failure name -> one of `choices`: an exact alias first, then a prefix of an alias."""
    allowed = list(dict.fromkeys(choices))
    w = norm(word)
    if not w:
        return Resolved(None)
    table = alias_table()
    hit = table.get(w)
    if hit in allowed:
        return Resolved(hit)
    hits = [fid for fid in allowed if any(a.startswith(w) and f == fid for a, f in table.items())]
    if len(hits) == 1:
        return Resolved(hits[0])
    if not hits and len(w) >= 2:  # a word inside a name: "简单" in "题目变简单", "sync" in "weightsync"
        inside = [fid for fid in allowed if any(w in a and f == fid for a, f in table.items())]
        if len(inside) == 1:
            return Resolved(inside[0])
        hits = inside
    return Resolved(None, tuple(hits))


# Every spelling a learner may type -> the command.  English first word, short forms, Chinese.
COMMANDS: dict[str, str] = {}
for _cmd, _names in {
    "help": ("help", "h", "?", "帮助"),
    "goals": ("goals", "g", "目标"),
    "next": ("next", "n", "下一个", "下一关"),
    "show": ("show", "s", "看"),
    "answer": ("answer", "a", "ans", "答", "回答"),
    "pair": ("pair", "p", "配对"),
    "is": ("is", "是"),
    "diff": ("diff", "对答案"),
    "hint": ("hint", "提示"),
    "quiz": ("quiz", "测验", "问答"),
    "score": ("score", "分数", "得分"),
    "quit": ("quit", "exit", "bye", ":q", "退出"),
    "lang": ("lang", "语言"),
    "ref": ("ref", "reference", "lesson", "r", "参考", "课程", "资料"),
    "knob": ("knob", "k", "旋钮", "调"),
    "exp": ("exp", "experiment", "e", "实验"),
    "turn": ("turn", "t", "转", "设"),
    "predict": ("predict", "pr", "预测"),
}.items():
    for _n in _names:
        COMMANDS[_n] = _cmd
VERDICT_WORDS: dict[str, str] = {
    "learning": "learning",
    "l": "learning",
    "在学": "learning",
    "学": "learning",
    "cheating": "cheating",
    "c": "cheating",
    "作弊": "cheating",
    "在作弊": "cheating",
    "dead": "dead",
    "d": "dead",
    "废了": "dead",
    "已经废了": "dead",
    "废": "dead",
    "unstable": "unstable",
    "u": "unstable",
    "不稳": "unstable",
    "不稳定": "unstable",
}
SIDE_WORDS = {"1": 0, "left": 0, "l": 0, "左": 0, "2": 1, "right": 1, "r": 1, "右": 1}


def match_cause(word: str, choices: tuple[str, ...] | list[str]) -> str | None:
    """A typed cause -> one of `choices`: any name in either language (`aliases`), or a unique prefix."""
    return resolve(word, choices).id
