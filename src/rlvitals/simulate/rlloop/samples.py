"""Rollout text for the RL loop: the recorded answers written out as words, one token a word.

The loop's answers are bags of tokens drawn independently, so the faithful text is those tokens
in a random order: a sharp policy writes the same few words again and again (its 8 answers share
most 3-grams), a broad one writes varied text.  That is what rlvitals.samples measures (within-
group diversity), so the dump can tell a collapse (identical answers) from easy data (different
answers, all right).

    recs = simulate_rl_samples("entropy_collapse", seed=3)    # [{"step", "group", "prompt", "response", "reward"}]

Words: the answer marker is "####"; the 15 reasoning steps are short verbs; a finished answer
ends with "#### <number>" (the right number when the strict verifier accepts it); an answer cut at
the length cap stops mid-way with no final line; after the weights turned NaN the engine writes
"<unk>" noise.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from .task import MARK, V

__all__ = ["STEP_WORDS", "render"]

STEP_WORDS: tuple[str, ...] = (
    "add",
    "carry",
    "subtract",
    "halve",
    "double",
    "check",
    "multiply",
    "divide",
    "round",
    "compare",
    "sum",
    "split",
    "count",
    "convert",
    "estimate",
)
assert len(STEP_WORDS) == V - 1
_WORDS = np.array(["####", *STEP_WORDS])
_TOPICS = ("marbles", "a bakery", "wages", "a train", "pages", "a garden", "coins", "a tank")


def _prompt(rec: dict[str, Any]) -> str:
    if rec["topic"] < 0:
        return "<unk>"
    topic = _TOPICS[rec["topic"] % len(_TOPICS)]
    need = rec["need"]
    steps = "an impossible number of" if need >= 5000 else str(need)
    return (
        f"Problem {rec['prompt']} about {topic}: it takes {steps} '{STEP_WORDS[rec['right'] - 1]}' steps. "
        "Answer after ####."
    )


def _answer_number(rec: dict[str, Any]) -> int:
    return 10 + int(rec["prompt"]) % 90


def _response(rec: dict[str, Any], rng: np.random.Generator) -> str:
    counts = rec["counts"]
    if counts is None:  # NaN weights: noise up to the cap
        return " ".join(["<unk>"] * 24)
    bag = np.repeat(np.arange(V), counts)
    rng.shuffle(bag)
    words = _WORDS[bag]
    if rec["trunc"]:
        return " ".join(words)
    right = _answer_number(rec)
    final = right if rec["correct"] else right + int(rng.integers(1, 9)) * (1 if rng.random() < 0.5 else -1)
    if counts[MARK] > 1:  # listing several candidates (what the lenient verifier pays)
        cands = iter(right + rng.integers(-9, 10, int(counts[MARK])))
        words = np.array([f"#### {next(cands)}" if w == "####" else w for w in words], dtype=object)
    return " ".join(words) + f" #### {final}"


def render(rollouts: list[dict[str, Any]], scenario: str, seed: int) -> list[dict[str, Any]]:
    """The recorded answers as JSONL-ready records {step, group, prompt, response, reward}."""
    rng = np.random.default_rng([zlib.crc32(f"rlloop-samples:{scenario}".encode()), int(seed)])
    out = []
    for rec in rollouts:
        out.append(
            {
                "step": rec["step"],
                "group": rec["group"],
                "prompt": _prompt(rec),
                "response": _response(rec, rng),
                "reward": round(rec["reward"], 4),
            }
        )
    return out
