"""Teaching, not grading: why a wrong choice is ruled out, and which knob to turn next.

A wrong verdict is answered with the metric that rules that verdict out, in the shape words and
numbers the learner sees ("acc flat 22.7% → 17.3% while reward rises: a learning run's acc rises
with its reward").  A wrong cause in a pair is answered with the metric that rules that cause
out for that log ("B2: entropy approaching 0 1.876 → 0.014 — data that got easy keeps entropy
normal").  After the failure is named, the learner picks the knob and its direction from one
list (`KNOBS`); a wrong knob is answered with what that knob is for and what this run needs.
The lesson's second promise: "看到异常曲线时，说出下一步该改哪个参数".
"""

from __future__ import annotations

from typing import Any

from ..diagnose.model import FINDING_IDS, Diagnosis
from ..i18n import t
from .aliases import name_of
from .content import HEALTHY, SetItem
from .explain import shape_line
from .state import Progress, StageResult

__all__ = [
    "FIX_OF",
    "KNOBS",
    "PAIR_FIX",
    "KnobMixin",
    "knob_menu",
    "knob_verdict",
    "pick_knob",
    "why_not_cause",
    "why_not_verdict",
]

# The knobs a learner chooses from, each with its direction (i18n `lab.knob.<id>` says it, and
# `lab.knob.<id>.for` what it is for).  Sources: the lesson ("提 temperature / 回滚", "换难题 /
# 上动态采样", "降学习率", "权重没同步", "配合 trunc 看") and the findings' actions.
KNOBS: tuple[str, ...] = (
    "lr_down",
    "temperature_up",
    "fix_sync",
    "fix_reward",
    "length_penalty",
    "harder_data",
    "bigger_batch",
    "keep_going",
)
# The knob(s) that fix each failure; the first is the one the explanation names.
FIX_OF: dict[str, tuple[str, ...]] = {
    "entropy_collapse": ("temperature_up",),
    "sync_failure": ("fix_sync",),
    "reward_hacking": ("fix_reward",),
    "length_hacking": ("length_penalty",),
    "data_too_easy": ("harder_data",),
    "lr_too_high": ("lr_down",),
    "kl_blowup": ("lr_down",),
    "batch_noise": ("keep_going", "bigger_batch"),
    "truncation_starvation": ("length_penalty",),
    HEALTHY: ("keep_going",),
}
# Which cause of each pair the learner picks the knob for (the one that needs a change).
PAIR_FIX: dict[str, str] = {"A": "sync_failure", "B": "data_too_easy", "C": "length_hacking", "D": "lr_too_high"}

# The metric that shows each cause, for ruling it out when a learner names it wrongly.
SIGNATURE: dict[str, str] = {
    "entropy_collapse": "entropy",
    "sync_failure": "ratio_mean",
    "data_too_easy": "entropy",
    HEALTHY: "acc",
    "length_hacking": "acc",
    "batch_noise": "clip_frac",
    "lr_too_high": "clip_frac",
    "reward_hacking": "acc",
    "kl_blowup": "kl",
    "data_too_hard": "acc",
    "stalled": "reward",
    "entropy_explosion": "entropy",
    "truncation_starvation": "trunc",
    "numeric_instability": "gnorm",
    "plateau": "acc",
}


def _goal(d: Diagnosis) -> str:
    return "acc" if "acc" in d.shapes else "reward"


def _said(d: Diagnosis, metric: str, lang: str) -> str:
    """'acc flat 22.7% → 17.3%' (the shape line the learner saw), or the metric alone."""
    line = shape_line(d, metric, lang)
    return f"{metric} {line}" if line else metric


def why_not_verdict(item: SetItem, said: str, lang: str) -> list[str]:
    """The metric that rules out the verdict the learner gave (`said`) for this set."""
    d, truth = item.diag, item.verdict
    if said == truth:
        return []
    if said == "unstable":
        key, metric = "lab.whynot.unstable", "clip_frac"
    elif truth == "unstable":
        key, metric = "lab.whynot.to_unstable", "clip_frac"
    elif said == "learning":
        key = "lab.whynot.learning.cheating" if truth == "cheating" else "lab.whynot.learning.dead"
        metric = _goal(d)
    elif said == "cheating":
        key, metric = (
            ("lab.whynot.cheating.learning", _goal(d))
            if truth == "learning"
            else ("lab.whynot.cheating.dead", "reward")
        )
    else:  # said dead
        key, metric = (
            ("lab.whynot.dead.learning", _goal(d))
            if truth == "learning"
            else ("lab.whynot.dead.cheating", "reward" if item.failure != "length_hacking" else "len")
        )
    return [
        t(
            key,
            lang,
            m=_said(d, metric, lang),
            r=_said(d, "reward", lang),
            a=_said(d, _goal(d), lang),
            g=_said(d, "gnorm", lang),
        )
    ]


def why_not_cause(label: str, diag: Diagnosis, cause: str, lang: str) -> str:
    """'Why B2 is not data too easy: entropy approaching 0 1.876 → 0.014 — data that got easy keeps
    entropy normal (about 1.4).'  `label` names the log (a pair side, or a set's number)."""
    metric = SIGNATURE.get(cause, _goal(diag))
    return t(
        "lab.whynot.cause",
        lang,
        label=label,
        m=_said(diag, metric, lang),
        why=t(f"lab.whynot.c.{cause}", lang),
        name=name_of(cause, lang),
    )


def knob_menu(lang: str) -> list[str]:
    return [f"  {i}) {t(f'lab.knob.{k}', lang)}" for i, k in enumerate(KNOBS, 1)]


def pick_knob(words: list[str]) -> str | None:
    """`2`, `lr_down`, `lr down`, `降学习率` ... -> a knob id (None: not understood)."""
    if not words:
        return None
    w = words[0]
    if w.isdigit() and 1 <= int(w) <= len(KNOBS):
        return KNOBS[int(w) - 1]
    joined = "_".join(x.lower() for x in words)
    if joined in KNOBS:
        return joined
    from ..i18n import LANGS

    for k in KNOBS:
        for lang in LANGS:
            name = t(f"lab.knob.{k}", lang).lower()
            if "".join(words).lower() in name.replace(" ", ""):
                return k
    return None


def knob_verdict(failure: str, knob: str, diag: Diagnosis, lang: str) -> tuple[bool, list[str]]:
    """(right?, lines): what the chosen knob does here, and the one that fixes `failure`."""
    right = FIX_OF.get(failure, ("keep_going",))
    ok = knob in right
    best = knob if ok else right[0]
    metric = SIGNATURE.get(failure, _goal(diag))
    said = _said(diag, metric, lang)
    if ok:
        return ok, [
            t("lab.knob.right", lang, knob=t(f"lab.knob.{knob}", lang), m=said, use=t(f"lab.knob.{knob}.for", lang))
        ]
    return ok, [
        t("lab.knob.wrong", lang, knob=t(f"lab.knob.{knob}", lang), use=t(f"lab.knob.{knob}.for", lang)),
        t(
            "lab.knob.here",
            lang,
            name=name_of(failure, lang),
            m=said,
            knob=t(f"lab.knob.{best}", lang),
            why=t(f"lab.knob.{best}.for", lang),
        ),
    ]


class KnobMixin:
    """The lab's knob question (`knob N`) and the learner's answers in the session's words; mixed
    into `engine.Lab`, whose state (content, progress, current stage, `_t`, `_save`) it uses."""

    content: Any
    progress: Progress
    lang: str
    _sets: dict[str, Any]
    _knob: tuple[str, str, str, Any] | None

    @property
    def current(self) -> str | None:  # pragma: no cover - Lab defines it
        return self.progress.current

    def _t(self, msg_id: str, /, **kw: object) -> str:  # pragma: no cover - Lab defines it
        return t(msg_id, self.lang, **kw)

    def _save(self) -> None:  # pragma: no cover - Lab defines it
        pass

    def _after(self) -> str:  # pragma: no cover - Lab defines it
        return ""

    def _ask_knob(self, stage: str, label: str, failure: str | None, diag: Any) -> list[object]:
        """After the failure is known, the lesson's second promise: which knob, which way."""
        if failure is None or f"{stage}.knob" in self.progress.results:
            self._knob = None
            return []
        self._knob = (stage, label, failure, diag)
        key = "lab.knob.ask" if label == stage else "lab.knob.ask_pair"
        return [self._t(key, name=name_of(failure, self.lang), label=label), *knob_menu(self.lang)]

    def _open_knob(self) -> tuple[str, str, str, Any] | None:
        """The knob question open on the current stage (also after a restart: from the progress)."""
        cur = self.current
        if self._knob is not None and self._knob[0] == cur:
            return self._knob
        if cur is None or cur not in self.progress.results or f"{cur}.knob" in self.progress.results:
            return None
        if cur in self._sets and self._sets[cur].failure is not None:
            item = self._sets[cur]
            return cur, cur, str(item.failure), item.diag
        if cur in self.content.pairs:
            pair = self.content.pairs[cur]
            fix = next((s for s in (pair.left, pair.right) if s.answer == PAIR_FIX.get(cur)), None)
            if fix is not None:
                return cur, fix.label, fix.answer, fix.diag
        return None

    def cmd_knob(self, args: list[str]) -> list[object]:
        self._knob = self._open_knob()
        if self._knob is None:
            return [self._t("lab.knob.none")]
        knob = pick_knob(args)
        if knob is None:
            return [self._t("lab.knob.bad", n=len(knob_menu(self.lang)))]
        stage, label, failure, diag = self._knob
        ok, lines = knob_verdict(failure, knob, diag, self.lang)
        self.progress.results[f"{stage}.knob"] = StageResult(knob, ok, 0)
        self._knob = None
        self._save()
        return [*lines, self._after()]

    def _given(self, given: str) -> str:
        """What the learner said, in the session's language ("cheating reward_hacking" -> 在作弊 刷分)."""
        words = []
        for w in given.split():
            side, eq, cause = w.partition("=")
            if eq:
                words.append(f"{side}={name_of(cause, self.lang)}")
            elif w in ("learning", "cheating", "dead", "unstable"):
                words.append(self._t(f"lab.verdict.{w}").split(" (")[0].split("（")[0])
            elif w in FINDING_IDS:
                words.append(name_of(w, self.lang))
            else:
                words.append(w)
        return " ".join(words)
