"""Every stage satisfies the lesson's table, in the shape words and numbers the learner sees.

The lesson's one-page table and its four pairs are the spec: a learning set's acc rises with its
reward; a cheating set's acc is flat or falls while its reward (or len) rises; a dead set's goal
does not improve; pair A's rewards are both flat ("两份日志的 reward 都平掉了"), A1's entropy goes
to 0 with ratio at 1, A2's ratio drifts with entropy and adv_std normal; B1's entropy is normal
(~1.4) with acc high, B2's entropy goes to 0 with acc stuck; C1's len rises with acc, C2's without;
D1 jitters with clip and gnorm calm, D2 with clip > 20% and a large gnorm.  The words are the ones
the lab prints (`shapes.classify`, what `diagnose` puts in `diag.shapes`).

Each stage's runs are drawn for many level seeds.  By default a few (fast); the done-when's 50 per
stage with `RLVITALS_STAGE_SEEDS=50` (about a minute), which also runs the 50-seed test.
"""

from __future__ import annotations

import os

import pytest

from rlvitals.shapes import Shape, shapes_of
from rlvitals.simulate.lesson import lesson_pairs, lesson_quiz, lesson_sets

FEW = int(os.environ.get("RLVITALS_STAGE_SEEDS", "3"))
NOT_UP = ("flat", "falling", "to_zero")  # the goal "does not improve"
NORMAL_ENTROPY = ("falling", "flat", "rising")  # 缓降 / 平, never 趋近 0


def _word(sh: dict[str, Shape], m: str, words: tuple[str, ...]) -> str | None:
    s = sh[m]
    return (
        None if s.word in words else f"{m} is {s.word} {s.start:.3g} → {s.end:.3g}, the lesson wants {'/'.join(words)}"
    )


def _end(sh: dict[str, Shape], m: str, lo: float = float("-inf"), hi: float = float("inf")) -> str | None:
    s = sh[m]
    return None if lo <= s.end <= hi else f"{m} ends at {s.end:.3g}, the lesson wants it in [{lo:g}, {hi:g}]"


def _jitter(sh: dict[str, Shape]) -> str | None:
    """The curves "剧烈抖动": reward's step-to-step noise is a visible share of its level."""
    s = sh["reward"]
    rel = s.stats.get("noise", 0.0) / max(abs(s.stats.get("level", 1.0)), 1e-9)
    return None if rel >= 0.05 else f"reward barely jitters (noise {rel:.1%} of its level)"


def learning(sh: dict[str, Shape]) -> list[str | None]:
    """The healthy table: reward 缓升, acc with it, entropy 缓降 far from 0, kl 缓升, adv_std
    0.5-1.2, clip a few percent, ratio flat at 1, len stable or with acc."""
    return [
        _word(sh, "reward", ("rising",)),
        _word(sh, "acc", ("rising",)),
        _word(sh, "entropy", ("falling", "flat")),
        _end(sh, "entropy", lo=0.5 * sh["entropy"].start),
        _word(sh, "kl", ("rising",)),
        _end(sh, "adv_std", 0.5, 1.2),
        _end(sh, "clip_frac", hi=0.1),
        _word(sh, "ratio_mean", ("flat",)),
        _word(sh, "len", ("rising", "flat")),
    ]


def collapse(sh: dict[str, Shape]) -> list[str | None]:
    return [
        _word(sh, "entropy", ("to_zero",)),
        _word(sh, "reward", NOT_UP),
        _word(sh, "acc", NOT_UP),
        _word(sh, "ratio_mean", ("flat",)),
        _end(sh, "adv_std", hi=0.5),
    ]


def sync(sh: dict[str, Shape]) -> list[str | None]:
    return [
        _word(sh, "ratio_mean", ("drift",)),
        _word(sh, "reward", NOT_UP),
        _word(sh, "acc", NOT_UP),
        _word(sh, "entropy", NORMAL_ENTROPY),
        _end(sh, "entropy", lo=1.0),
        _end(sh, "adv_std", lo=0.5),
    ]


RULES = {
    "healthy": learning,
    "healthy_long": lambda sh: [*learning(sh), _word(sh, "len", ("rising",))],
    "reward_hacking": lambda sh: [_word(sh, "reward", ("rising", "spike")), _word(sh, "acc", ("flat", "falling"))],
    "length_hacking": lambda sh: [_word(sh, "len", ("rising", "spike")), _word(sh, "acc", ("flat", "falling"))],
    "entropy_collapse": collapse,
    "sync_failure": sync,
    # B1: entropy normal (~1.4), acc high, adv_std down in the low bands
    "data_too_easy": lambda sh: [
        _word(sh, "entropy", NORMAL_ENTROPY),
        _end(sh, "entropy", lo=1.0),
        _word(sh, "acc", ("rising", "flat")),
        _end(sh, "acc", lo=0.5),
        _end(sh, "adv_std", hi=0.5),
    ],
    # D: both jitter; D1 clip ~1% and gnorm ~0.8, D2 clip > 20% and gnorm several times larger
    "batch_noise": lambda sh: [_jitter(sh), _end(sh, "clip_frac", hi=0.05), _end(sh, "gnorm", hi=1.5)],
    "lr_too_high": lambda sh: [_jitter(sh), _end(sh, "clip_frac", lo=0.2), _end(sh, "gnorm", lo=3.0)],
}
# B2 (entropy collapse beside easy data): acc "卡在某个中等值", well below B1's
EXTRA = {"B2": lambda sh: [_end(sh, "acc", 0.1, 0.5)]}


def stage_problems(seed: int | None) -> list[str]:
    """Every way the level of `seed` breaks the lesson's table, one line each (empty: none)."""
    out: list[str] = []

    def check(stage: str, run) -> None:
        sh = shapes_of(run)
        scenario = run.meta["truth"]["scenario"]
        for p in [*RULES[scenario](sh), *EXTRA.get(stage, lambda _: [])(sh)]:
            if p:
                out.append(f"level {seed} stage {stage} ({scenario}): {p}")

    for case in lesson_sets(seed, samples=False):
        check(f"set {case.key}", case.run)
    for key, pair in lesson_pairs(seed, samples=False).items():
        check(f"{key}1", pair.left.run)
        check(f"{key}2", pair.right.run)
        # pair A: "两份日志的 reward 都平掉了" -- both rewards flat
        if key == "A":
            for side, run in (("A1", pair.left.run), ("A2", pair.right.run)):
                p = _word(shapes_of(run), "reward", ("flat",))
                if p:
                    out.append(f"level {seed} stage {side}: {p}")
    quiz = lesson_quiz(seed)
    for key, q in quiz.items():  # the questions' runs are what the questions say, too
        for i, c in enumerate(q.cases):
            check(f"{key}{'ab'[i]}", c.run)
    for c in quiz["Q1"].cases:  # question 1 says both rewards are flat
        p = _word(shapes_of(c.run), "reward", ("flat",))
        if p:
            out.append(f"level {seed} Q1 ({c.truth['scenario']}): {p}")
    return out


def _levels(n: int) -> list[int | None]:
    return [None, *range(n - 1)]


def test_every_stage_satisfies_the_lessons_table():
    problems = [p for s in _levels(min(FEW, 3)) for p in stage_problems(s)]
    assert problems == [], "\n".join(problems)


@pytest.mark.slow
@pytest.mark.skipif(FEW < 50, reason="about a minute: RLVITALS_STAGE_SEEDS=50 runs the done-when's 50 seeds per stage")
def test_every_stage_satisfies_the_lessons_table_on_50_seeds():
    problems = [p for s in _levels(50) for p in stage_problems(s)]
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:60])


def test_the_check_catches_a_broken_stage():
    """The rules bite: the simulator's default profile (onset mid-run) breaks pair A's flat reward."""
    from rlvitals.simulate import simulate

    sh = shapes_of(simulate("sync_failure", seed=3, steps=200))
    assert any(sync(sh)) or _word(sh, "reward", ("flat",))
