"""What the level is made of: six curve sets, four confusable pairs, three questions, and their answer key.

The runs come from the simulator (`simulate.lesson_sets` / `lesson_pairs` / `lesson_quiz`), every
stage its own runs; the answer key is what `diagnose` says about each run, never a hand-written
label, so the lab cannot contradict the tool.  A question quotes the numbers of its own runs.
The static parts (which metrics to look at, the lesson's rules, the quiz) are ids and i18n keys here;
the words a learner reads live in `rlvitals.i18n.lab` (screens) and `rlvitals.i18n.lab_lesson` (rules, quiz).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ..diagnose.model import FINDING_IDS, Diagnosis

__all__ = [
    "FOCUS",
    "HEALTHY",
    "PAIR_FOCUS",
    "PAIR_OPTIONS",
    "QUIZ",
    "QUIZ_FORMATS",
    "SAMPLE_PAIRS",
    "VERDICT_CHOICES",
    "LabContent",
    "PairItem",
    "QuizItem",
    "QuizQuestion",
    "SetItem",
    "Side",
    "View",
    "build_content",
    "quiz_numbers",
    "set_failure",
    "side_label",
]


@dataclass(frozen=True)
class View:
    """Something the UI draws: kind "set" (key "1".."6"), "pair" ("A".."D"), "quiz" ("Q1".."Q3") or
    "exp" (an experiment's key)."""

    kind: str
    key: str


# The learner's three judgements (the lesson's 在学 / 作弊 / 废了) plus the tool's fourth verdict,
# "unstable" (learning, but the updates are too violent to trust), so a set the tool calls unstable
# can be answered truthfully.
VERDICT_CHOICES: tuple[str, ...] = ("learning", "cheating", "dead", "unstable")
HEALTHY = "healthy"

# The two causes a learner chooses between in each pair, in the lesson's order (the lesson's
# "A1" is the first cause, "A2" the second, unless a seed swaps the sides).
PAIR_OPTIONS: dict[str, tuple[str, str]] = {
    "A": ("entropy_collapse", "sync_failure"),
    "B": ("data_too_easy", "entropy_collapse"),
    "C": (HEALTHY, "length_hacking"),
    "D": ("batch_noise", "lr_too_high"),
}

# Where to look first for each finding: the symptom, then the normal metrics that rule out its
# look-alikes (the lesson's "the symptom says something is wrong, the normal metrics say where").
FOCUS: dict[str, tuple[str, ...]] = {
    HEALTHY: ("reward", "acc", "entropy", "kl"),
    "entropy_collapse": ("entropy", "reward", "adv_std", "ratio_mean"),
    "sync_failure": ("ratio_mean", "reward", "entropy", "adv_std"),
    "reward_hacking": ("reward", "acc", "len"),
    "length_hacking": ("len", "acc", "trunc"),
    "kl_blowup": ("kl", "entropy", "reward"),
    "lr_too_high": ("clip_frac", "gnorm", "reward"),
    "batch_noise": ("reward", "clip_frac", "gnorm"),
    "data_too_easy": ("adv_std", "entropy", "acc"),
    "data_too_hard": ("adv_std", "acc", "reward"),
    "stalled": ("reward", "adv_std", "entropy"),
    "numeric_instability": ("gnorm", "loss", "ratio_mean"),
    "truncation_starvation": ("trunc", "len", "reward"),
    "entropy_explosion": ("entropy", "kl", "len"),
    "plateau": ("reward", "acc", "entropy"),
}
# Pairs whose view shows a group of 8 sampled answers per log (the lesson: "看 entropy 和采样原文").
SAMPLE_PAIRS: tuple[str, ...] = ("B",)
# What each pair's hints point at (level 1) and read out (level 2).
PAIR_FOCUS: dict[str, tuple[str, ...]] = {
    "A": ("entropy", "ratio_mean", "adv_std"),
    "B": ("entropy", "acc", "adv_std"),
    "C": ("len", "acc", "trunc"),
    "D": ("clip_frac", "gnorm", "reward"),
}


@dataclass(frozen=True)
class QuizQuestion:
    """One of the lesson's three closing questions: options are i18n keys, `answer` is 1-based."""

    key: str
    options: int
    answer: int


# Question texts, options and explanations: i18n keys "lab.quiz.<key>.q", ".o<n>", ".why".
QUIZ: tuple[QuizQuestion, ...] = (
    QuizQuestion("Q1", options=4, answer=2),
    QuizQuestion("Q2", options=4, answer=4),
    QuizQuestion("Q3", options=4, answer=1),
)
# The numbers a question quotes, read off the last logged step of its runs (what the log's last
# line says), written the way the lesson writes them: placeholder -> (run index, metric, format).
QUIZ_FORMATS: dict[str, dict[str, tuple[int, str, str]]] = {
    "Q1": {
        "e1": (0, "entropy", "{:.3f}"),
        "r1": (0, "ratio_mean", "{:.4f}"),
        "e2": (1, "entropy", "{:.3f}"),
        "r2": (1, "ratio_mean", "{:.4f}"),
    },
    "Q2": {"adv": (0, "adv_std", "{:.2f}"), "ent": (0, "entropy", "{:.3f}"), "acc": (0, "acc", "{:.1%}")},
    "Q3": {
        "c1": (0, "clip_frac", "{:.3f}"),
        "g1": (0, "gnorm", "{:.2g}"),
        "c1p": (0, "clip_frac", "{:.1%}"),
        "c2": (1, "clip_frac", "{:.3f}"),
        "g2": (1, "gnorm", "{:.2g}"),
        "c2p": (1, "clip_frac", "{:.1%}"),
    },
}


def quiz_numbers(key: str, cases: Sequence[Any]) -> dict[str, str]:
    """The numbers question `key` quotes, from its own runs (Q3 adds each run's effective batch)."""
    out = {}
    for name, (i, metric, fmt) in QUIZ_FORMATS[key].items():
        s = cases[i].run.series.get(metric)
        vals = s.values[np.isfinite(s.values)] if s is not None else np.array([])
        out[name] = fmt.format(float(vals[-1])) if vals.size else "—"
    if key == "Q3":
        for i in (0, 1):
            out[f"b{i + 1}"] = str(cases[i].run.meta.get("effective_batch", "—"))
    if key == "Q1":  # the explanation names the runs by cause, whichever order the question quotes them in
        for i, c in enumerate(cases[:2]):
            role = "c" if c.truth.get("finding") == "entropy_collapse" else "s"
            out[f"{role}e"], out[f"{role}r"] = out[f"e{i + 1}"], out[f"r{i + 1}"]
    return out


@dataclass(frozen=True)
class QuizItem:
    """One closing question as this level asks it: its own runs, the numbers it quotes, the answer.

    `cause` is the finding behind the run a question quotes when the question does not name it
    (Q2: "adv_std fell to 0.24" -- easy data or entropy collapse); the explanation reveals it.
    """

    key: str
    options: int
    answer: int
    cases: tuple[Any, ...] = field(repr=False)
    numbers: dict[str, str] = field(default_factory=dict)
    cause: str | None = None


def set_failure(diag: Diagnosis) -> str | None:
    """The failure a learner may name for a set: the top finding when it is what makes the verdict."""
    top = diag.top
    if top is None or diag.verdict == "learning" or top.severity == "info":
        return None
    return top.id if FINDING_IDS.get(top.id) == diag.verdict else None


def side_label(diag: Diagnosis, options: Sequence[str]) -> str:
    """Which of a pair's two causes the tool names for one log.

    The first finding (most important first) that is one of the pair's causes; a log with no finding
    above `info` counts as healthy; otherwise the top finding's id, which then matches neither option
    (the consistency test catches that).
    """
    for f in diag.findings:
        if f.id in options:
            return f.id
    if all(f.severity == "info" for f in diag.findings):
        return HEALTHY
    return diag.top.id if diag.top else HEALTHY


@dataclass(frozen=True)
class SetItem:
    """One of the six curve sets, with the tool's diagnosis as the answer key.

    The diagnosis is computed on first use (a few hundred ms with rollout samples), so the level
    opens at once and each stage pays only for itself.
    """

    key: str  # "1".."6"
    case: Any  # simulate.LabCase (key, run, truth, samples)
    diagnose: Callable[..., Diagnosis] = field(repr=False, compare=False)

    @cached_property
    def diag(self) -> Diagnosis:
        return _diagnose_case(self.case, self.diagnose)

    @property
    def verdict(self) -> str:
        return self.diag.verdict

    @property
    def failure(self) -> str | None:
        return set_failure(self.diag)


@dataclass(frozen=True)
class Side:
    """One log of a pair: its label ("A1"), the run, the tool's diagnosis and the cause it names."""

    label: str
    case: Any
    options: tuple[str, str]
    diagnose: Callable[..., Diagnosis] = field(repr=False, compare=False)

    @cached_property
    def diag(self) -> Diagnosis:
        return _diagnose_case(self.case, self.diagnose)

    @property
    def answer(self) -> str:
        return side_label(self.diag, self.options)


@dataclass(frozen=True)
class PairItem:
    key: str  # "A".."D"
    left: Side
    right: Side
    options: tuple[str, str]
    focus: tuple[str, ...]

    def side(self, which: str) -> Side:
        return self.left if which == self.left.label else self.right


@dataclass(frozen=True)
class LabContent:
    seed: int | None
    sets: tuple[SetItem, ...]
    pairs: dict[str, PairItem]
    quiz: tuple[QuizItem, ...] = ()

    def stage_keys(self) -> list[str]:
        """Every stage in play order: sets "1".."6", pairs "A".."D", questions "Q1".."Q3"."""
        return [s.key for s in self.sets] + list(self.pairs) + [q.key for q in self.quiz]

    def question(self, key: str) -> QuizItem | None:
        return next((q for q in self.quiz if q.key == key), None)

    def runs(self) -> dict[str, Any]:
        """Every run of the level by stage: "3", "A1", "Q1a" ... (each stage reads its own)."""
        out: dict[str, Any] = {s.key: s.case.run for s in self.sets}
        for p in self.pairs.values():
            out[p.left.label], out[p.right.label] = p.left.case.run, p.right.case.run
        for q in self.quiz:
            for i, c in enumerate(q.cases):
                out[f"{q.key}{chr(97 + i)}"] = c.run
        return out


def _samples_arg(samples: Any) -> Any:
    """Rollout samples as `diagnose` takes them: a `Samples` object, built from raw records if needed."""
    if not samples:
        return None
    if not isinstance(samples, list):
        return samples
    from ..samples import samples_from_records

    return samples_from_records(samples)


def _diagnose_case(case: Any, diagnose: Callable[..., Diagnosis]) -> Diagnosis:
    return diagnose(case.run, samples=_samples_arg(getattr(case, "samples", None)))


def build_quiz(seed: int | None, raw: Mapping[str, Any]) -> tuple[QuizItem, ...]:
    """The three questions over their own runs; a seed also decides Q1's order (answer 2 or 3)."""
    out = []
    for q in QUIZ:
        cases = tuple(raw[q.key].cases) if q.key in raw else ()
        answer = q.answer
        if q.key == "Q1" and seed is not None and len(cases) == 2 and random.Random(f"{seed}:Q1").random() < 0.5:
            cases, answer = cases[::-1], 3  # option 3 = "the first is sync, the second collapse"
        numbers = quiz_numbers(q.key, cases) if cases else {}
        cause = cases[0].truth.get("finding") if q.key == "Q2" and cases else None
        out.append(QuizItem(q.key, q.options, answer, cases, numbers, cause))
    return tuple(out)


def build_content(
    seed: int | None = None,
    *,
    lesson_sets: Callable[..., Sequence[Any]] | None = None,
    lesson_pairs: Callable[..., Mapping[str, Any]] | None = None,
    diagnose: Callable[..., Diagnosis] | None = None,
    lesson_quiz: Callable[..., Mapping[str, Any]] | None = None,
) -> LabContent:
    """Generate the level for `seed` (None = the lesson's level) and diagnose every run on first use.

    The callables default to the simulator and the diagnosis; tests inject small fakes.
    """
    if lesson_sets is None or lesson_pairs is None:
        # `rlvitals.simulate` the attribute is the function; the subpackage is imported by name
        from ..simulate import lesson_pairs as _pairs
        from ..simulate import lesson_sets as _sets

        lesson_sets = lesson_sets or _sets
        lesson_pairs = lesson_pairs or _pairs
    if lesson_quiz is None:
        from ..simulate import lesson_quiz as _quiz

        lesson_quiz = _quiz
    if diagnose is None:
        from ..diagnose import diagnose as _diag

        diagnose = _diag
    sets = tuple(SetItem(str(i), case, diagnose) for i, case in enumerate(lesson_sets(seed), start=1))
    pairs: dict[str, PairItem] = {}
    raw_pairs = lesson_pairs(seed)
    for key in PAIR_OPTIONS:
        if key not in raw_pairs:
            continue
        lp = raw_pairs[key]
        first, second = lp.left, lp.right
        # A seed gives fresh variants: also which side is which, so a replay cannot be memorised.
        if seed is not None and random.Random(f"{seed}:{key}").random() < 0.5:
            first, second = second, first
        options = PAIR_OPTIONS[key]
        pairs[key] = PairItem(
            key,
            Side(f"{key}1", first, options, diagnose),
            Side(f"{key}2", second, options, diagnose),
            options,
            PAIR_FOCUS[key],
        )
    return LabContent(seed, sets, pairs, build_quiz(seed, lesson_quiz(seed)))
