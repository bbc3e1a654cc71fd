"""Rollout samples behind a simulated run: GSM8K-like word problems, 8 answers per group.

Each sampled group draws its answers from the same latent state as the run's dice (skill,
format rate, hack rate, truncation, entropy).  Within-group diversity follows entropy: a healthy
group words its 8 answers differently (and most are right); a collapsed group repeats one answer
8 times; runaway entropy turns answers into word salad; after a NaN the model emits garbage.
All text comes from the templates below (no data sets).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .engine import G, Latent, trunc_prob

__all__ = ["make_problem", "make_samples"]

_NAMES = ("Maya", "Tom", "Aisha", "Leo", "Priya", "Omar", "Lena", "Kenji", "Sofia", "Ravi")
_OPENERS = (
    "Let's think step by step.",
    "Let me work through this.",
    "We solve it in parts.",
    "First, figure out the pieces.",
    "Okay, let's break it down.",
    "",
)
_LINKS = ("So", "Then", "Next,", "That means", "Now", "After that,")
_FILLER = (
    "Each part is counted once.",
    "That matches what the question asks.",
    "The units are consistent.",
    "Nothing else is added or removed.",
    "I'll keep track of the totals.",
    "This uses the numbers given.",
)
_SALAD = ("quantum", "banana", "therefore", "ĠĠ", "}}", "lorem", "<pad>", "maybe", "####", "spiral", "∑", "??")
Steps = list[tuple[str, int]]  # a worked solution: (the step's text, its running value)


def make_problem(rng: np.random.Generator) -> tuple[str, Steps, int]:
    """A word problem: (prompt, [(step text, value)], answer)."""
    name = _NAMES[int(rng.integers(len(_NAMES)))]
    kind = int(rng.integers(5))
    a, b, c, d = (int(x) for x in rng.integers(2, 13, size=4))
    if kind == 0:
        s1 = b * c
        return (
            f"{name} has {a * 5} marbles and buys {b} bags with {c} marbles each. How many marbles does "
            f"{name} have now?",
            [(f"{b} bags × {c} = {s1} new marbles", s1), (f"{a * 5} + {s1} = {a * 5 + s1}", a * 5 + s1)],
            a * 5 + s1,
        )
    if kind == 1:
        s1 = a + b
        return (
            f"A bakery sells {a} muffins every morning and {b} every afternoon. How many muffins does it sell "
            f"in {d} days?",
            [(f"{a} + {b} = {s1} muffins a day", s1), (f"{s1} × {d} = {s1 * d}", s1 * d)],
            s1 * d,
        )
    if kind == 2:
        pay, lunch = a * 3, c
        s1 = pay * b
        return (
            f"{name} earns ${pay} an hour and works {b} hours a week, then spends ${lunch} on lunch each week. "
            f"How much does {name} keep after {d} weeks?",
            [
                (f"{pay} × {b} = ${s1} a week", s1),
                (f"{s1} - {lunch} = ${s1 - lunch} kept a week", s1 - lunch),
                (f"{s1 - lunch} × {d} = ${(s1 - lunch) * d}", (s1 - lunch) * d),
            ],
            (s1 - lunch) * d,
        )
    if kind == 3:
        v1, v2 = a * 10, c * 10
        return (
            f"A train goes {v1} km/h for {b} hours, then {v2} km/h for {d} hours. How far does it go in total?",
            [
                (f"{v1} × {b} = {v1 * b} km", v1 * b),
                (f"{v2} × {d} = {v2 * d} km", v2 * d),
                (f"{v1 * b} + {v2 * d} = {v1 * b + v2 * d}", v1 * b + v2 * d),
            ],
            v1 * b + v2 * d,
        )
    pages = 3 * a + b * 10
    return (
        f"{name} reads {a} pages on Monday and twice as many on Tuesday. The book has {pages} pages. How "
        f"many pages are left?",
        [
            (f"2 × {a} = {2 * a} pages on Tuesday", 2 * a),
            (f"{a} + {2 * a} = {3 * a} pages read", 3 * a),
            (f"{pages} - {3 * a} = {pages - 3 * a}", pages - 3 * a),
        ],
        pages - 3 * a,
    )


def _solution(
    rng: np.random.Generator, steps: Steps, answer: int, style: int, formatted: bool, target_words: int
) -> str:
    """One worded answer; `style` fixes the phrasing (equal styles give near-identical answers)."""
    opener = _OPENERS[style % len(_OPENERS)]
    lines = [opener] if opener else []
    for i, (text, _) in enumerate(steps):
        if style % 3 == 0:
            lines.append(f"{text}.")
        elif style % 3 == 1:
            lines.append(f"{_LINKS[(i + style) % len(_LINKS)]} {text}.")
        else:
            lines.append(f"Step {i + 1}: {text}.")
    body = " ".join(lines) if style % 2 else "\n".join(lines)
    words = len(body.split())
    k = style
    while words < target_words:  # longer answers explain (or pad) more
        extra = _FILLER[k % len(_FILLER)] if k % 4 else f"Let me double-check: {steps[k % len(steps)][0]}."
        body += " " + extra
        words += len(extra.split())
        k += 1
    tail = f"The answer is {answer}." if style % 2 else f"So the answer is {answer}."
    return f"{body}\n{tail}" + (f"\n#### {answer}" if formatted else "")


def _slip(rng: np.random.Generator, steps: Steps, answer: int) -> tuple[Steps, int]:
    """An arithmetic slip in one step, carried to the end."""
    off = int(rng.choice([-10, -2, -1, 1, 2, 10]))
    return steps[:-1] + [(steps[-1][0].rsplit("=", 1)[0] + f"= {steps[-1][1] + off}", steps[-1][1] + off)], answer + off


def _response(
    rng: np.random.Generator, lat: Latent, i: int, steps: Steps, answer: int, p: float, tau: float, style: int
) -> tuple[str, float]:
    """Draw one answer's class the way the dice do, then word it.  Returns (text, reward)."""
    w, hack, fmt = lat.w, float(lat.hack[i]), float(lat.fmt[i])
    target = max(20, int(rng.lognormal(np.log(lat.length[i]), lat.len_sigma) / 1.3))
    cap_words = int(lat.cap / 1.3)
    x = rng.random()
    if lat.nan_from is not None and i >= lat.nan_from:
        junk = rng.choice(["<unk>", "!!", "ĠĠĠ", "\ufffd", "<|endoftext|>", "NaN"], size=cap_words // 4)
        return " ".join(junk), 0.0
    if x >= 1 - tau:  # cut at the length cap, before any answer
        text = _solution(rng, steps, answer, style, False, max(target, cap_words + 5))
        return " ".join(text.split()[:cap_words]), 0.0
    live = 1 - tau
    if x < live * p:
        text, r = _solution(rng, steps, answer, style, True, target), 1.0 + w
    elif x < live * (p + (1 - p) * hack):
        cands = sorted({answer + int(k) for k in rng.integers(-20, 21, size=6)} | {answer})
        text = "The answer is one of these.\n" + "\n".join(f"#### {c}" for c in cands)
        r = 1.0 + w  # the checker accepts any '####' line: the loophole
    else:
        wrong_steps, wrong = _slip(rng, steps, answer)
        formatted = x < live * (p + (1 - p) * (hack + (1 - hack) * fmt))
        text, r = _solution(rng, wrong_steps, wrong, style, formatted, target), (w if formatted else 0.0)
    rho = float(lat.entropy[i]) / float(lat.extra.get("h_ref", 1.8))
    if rho > 1.3:  # runaway entropy: tokens turn to salad
        toks = text.split()
        mask = rng.random(len(toks)) < min(0.9, (rho - 1.2) / 2)
        text = " ".join(str(rng.choice(_SALAD)) if m else t for t, m in zip(toks, mask))
    return text, round(r, 4)


def make_samples(lat: Latent, rng: np.random.Generator, *, every: int, prompts: int) -> list[dict[str, Any]]:
    """Records {step, group, prompt, response, reward} for `prompts` groups every `every` steps."""
    out: list[dict[str, Any]] = []
    tau_all = trunc_prob(lat.length, lat.cap, lat.len_sigma)
    h_ref = float(lat.extra.get("h_ref", 1.8))
    for i in range(0, lat.T, every):
        rho = min(1.0, max(0.0, float(lat.entropy[i]) / h_ref)) if np.isfinite(lat.entropy[i]) else 1.0
        for g in range(prompts):
            prompt, steps, answer = make_problem(rng)
            bad = rng.random() < lat.bad
            p = 0.0 if bad else float(1 / (1 + np.exp(rng.normal(0, lat.sigma_d) - lat.skill[i])))
            favourite = int(rng.integers(12))
            if rng.random() < lat.degen[i]:
                # Collapsed: one answer, sampled 8 times.
                text, r = _response(rng, lat, i, steps, answer, p, float(tau_all[i]), favourite)
                group = [(text, r)] * G
            else:
                group = []
                for _ in range(G):
                    # Lower entropy -> more answers share the group's favourite phrasing.
                    style = favourite if rng.random() > rho else int(rng.integers(12))
                    group.append(_response(rng, lat, i, steps, answer, p, float(tau_all[i]), style))
            for text, r in group:
                out.append({"step": i + 1, "group": g, "prompt": prompt, "response": text, "reward": r})
    return out
