"""Rollout dumps -> within-group diversity over time, the lesson's "most practical distinction".

adv_std falls for two opposite reasons: the model got stronger (the 8 samples of a prompt differ
but are all right) or entropy collapsed (the 8 samples are nearly identical).  Reading the
samples tells them apart.  Two inputs are read:

* verl `trainer.rollout_data_dir`: a directory of `<step>.jsonl` files, one line per sample with
  `input`, `output`, `score` (a group = the samples sharing one input);
* a plain JSONL file of `{step, group | prompt_id | prompt, response, reward}` lines (the
  simulator writes this; so can any training loop).

Diversity of a group = mean pairwise Jaccard distance of word 3-grams (unigrams for answers
shorter than 3 words): 0 = identical answers, 1 = nothing in common.  Groups larger than
`MAX_GROUP` are read in full but compared on their first `MAX_GROUP` answers (counted in
`skipped`), keeping the cost linear in the dump size.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import EmptyInput, InputError, NotAFile

__all__ = ["Group", "Samples", "StepDiversity", "diversity", "read_samples", "samples_from_records"]

MAX_GROUP = 16
RIGHT = 0.5  # a reward above this counts as a right answer (0/1 verifiable rewards)
_WORD = re.compile(r"\w+|[^\w\s]")
_GROUP_KEYS = ("group", "prompt_id", "uid", "prompt", "input")
_TEXT_KEYS = ("response", "output", "completion")
_REWARD_KEYS = ("reward", "score")


@dataclass(frozen=True)
class Group:
    """The answers sampled for one prompt at one step."""

    step: int
    key: str
    responses: tuple[str, ...]
    rewards: tuple[float, ...]


@dataclass(frozen=True)
class StepDiversity:
    step: int
    groups: int
    diversity: float  # mean over groups of the mean pairwise Jaccard distance
    distinct: float  # distinct 3-grams / all 3-grams, pooled within groups then averaged
    all_right: float  # fraction of groups whose every answer is right
    all_wrong: float  # fraction of groups whose every answer is wrong
    reward: float  # mean reward


def _grams(text: str) -> tuple[set[str | tuple[str, ...]], int]:
    """The response's word trigrams (its words when it has fewer than three) and their count."""
    w = _WORD.findall(text.lower())
    if len(w) < 3:
        return set(w), len(w)
    g = list(zip(w, w[1:], w[2:]))
    return set(g), len(g)


def diversity(responses: list[str] | tuple[str, ...]) -> tuple[float, float]:
    """(mean pairwise Jaccard distance, distinct-n ratio) of one group's answers."""
    sets = [_grams(r) for r in responses[:MAX_GROUP]]
    if len(sets) < 2:
        return float("nan"), float("nan")
    dists = []
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            a, b = sets[i][0], sets[j][0]
            union = len(a | b)
            dists.append(0.0 if union == 0 else 1.0 - len(a & b) / union)
    total = sum(n for _, n in sets)
    pooled = set().union(*(s for s, _ in sets))
    return float(np.mean(dists)), (len(pooled) / total if total else 0.0)


@dataclass
class Samples:
    """Per-step diversity of a rollout dump, plus the groups to quote."""

    path: str
    steps: list[StepDiversity]
    groups: dict[int, list[Group]]
    skipped: dict[str, int] = field(default_factory=dict)

    def _late(self, frac: float) -> list[StepDiversity]:
        k = max(1, int(round(frac * len(self.steps))))
        return self.steps[-k:]

    def late_diversity(self, frac: float = 0.2) -> float:
        """Mean diversity over the last `frac` of the dumped steps."""
        v = [s.diversity for s in self._late(frac) if np.isfinite(s.diversity)]
        return float(np.mean(v)) if v else float("nan")

    def early_diversity(self, frac: float = 0.2) -> float:
        k = max(1, int(round(frac * len(self.steps))))
        v = [s.diversity for s in self.steps[:k] if np.isfinite(s.diversity)]
        return float(np.mean(v)) if v else float("nan")

    def late_all_right(self, frac: float = 0.2) -> float:
        return float(np.mean([s.all_right for s in self._late(frac)]))

    def quote(
        self, *, late: bool = True, all_right: bool = False, n: int = 1, width: int = 150, per_group: int = 3
    ) -> tuple[str, ...]:
        """One or two groups as short lines: 'step 180 · prompt p3 · reward 1,1,1: «…» | «…»'."""
        if not self.steps:
            return ()
        order = reversed(self.steps) if late else iter(self.steps)
        out: list[str] = []
        for sd in order:
            for g in self.groups.get(sd.step, []):
                if len(g.responses) < 2:
                    continue
                if all_right and not all(r > RIGHT for r in g.rewards):
                    continue
                answers = " | ".join("«" + _clip(r, width // per_group) + "»" for r in g.responses[:per_group])
                rewards = ",".join(f"{r:g}" for r in g.rewards[:8])
                out.append(f"step {g.step} · {_clip(g.key, 30)} · reward {rewards}: {answers}")
                if len(out) >= n:
                    return tuple(out)
        return tuple(out)


def _clip(text: str, width: int) -> str:
    """One line, at most `width` characters: head … tail, since answers often share an opening
    ("Let's think step by step") and differ where it matters, at the end."""
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    head = max(1, (width - 1) // 2)
    tail = max(1, width - 1 - head)
    return text[:head] + "…" + text[-tail:]


def _first(rec: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for k in keys:
        if k in rec:
            return rec[k]
    return None


def _take(rec: object, step: int | None, records: list[tuple[int, str, str, float]], skipped: dict[str, int]) -> None:
    """Keep one rollout record (a dict with step, group/prompt, response, reward) or count why not."""
    if not isinstance(rec, dict):
        skipped["not an object"] = skipped.get("not an object", 0) + 1
        return
    st = rec.get("step", step)
    text = _first(rec, _TEXT_KEYS)
    key = _first(rec, _GROUP_KEYS)
    rew = _first(rec, _REWARD_KEYS)
    if st is None or rew is None:
        skipped["missing step/reward"] = skipped.get("missing step/reward", 0) + 1
        return
    try:
        st_i, rew_f = int(st), float(rew)
    except (TypeError, ValueError):
        skipped["missing step/reward"] = skipped.get("missing step/reward", 0) + 1
        return
    if text is None or key is None:
        skipped["missing response/group"] = skipped.get("missing response/group", 0) + 1
        return
    records.append((st_i, str(key), str(text), rew_f))


def _load_lines(
    path: Path, step: int | None, records: list[tuple[int, str, str, float]], skipped: dict[str, int]
) -> None:
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                skipped["not JSON"] = skipped.get("not JSON", 0) + 1
                continue
            _take(rec, step, records, skipped)


def samples_from_records(recs: list[dict[str, Any]], name: str = "records") -> Samples:
    """`Samples` from in-memory rollout records `{step, group|prompt, response, reward}` (simulator, lab)."""
    records: list[tuple[int, str, str, float]] = []
    skipped: dict[str, int] = {}
    for rec in recs:
        _take(rec, None, records, skipped)
    if not records:
        raise InputError(
            f"{name}: no rollout sample could be used (each needs step, a group or prompt, a response and a reward)."
        )
    return _aggregate(name, records, skipped)


def read_samples(path: str | Path) -> Samples:
    """Read a verl rollout_data_dir (directory of <step>.jsonl) or a plain samples JSONL file."""
    p = Path(path)
    if not p.exists():
        raise NotAFile(f"{p} does not exist.")
    records: list[tuple[int, str, str, float]] = []
    skipped: dict[str, int] = {}
    if p.is_dir():
        files = sorted(p.glob("*.jsonl"))
        if not files:
            raise EmptyInput(f"{p} holds no <step>.jsonl rollout files.")
        for f in files:
            try:
                step = int(f.stem)
            except ValueError:
                step = None
            _load_lines(f, step, records, skipped)
    elif p.is_file():
        _load_lines(p, None, records, skipped)
    else:
        raise NotAFile(f"{p} is not a regular file or directory.")
    if not records:
        raise InputError(
            f"{p}: no rollout sample could be read (each line needs step, a group or prompt, a response and a reward)."
        )
    return _aggregate(str(p), records, skipped)


def _aggregate(name: str, records: list[tuple[int, str, str, float]], skipped: dict[str, int]) -> Samples:
    """Group records by step and prompt; measure within-group diversity per step."""
    by: dict[int, dict[str, tuple[list[str], list[float]]]] = {}
    for st, key, text, rew in records:
        texts, rewards = by.setdefault(st, {}).setdefault(key, ([], []))
        texts.append(text)
        rewards.append(rew)
    steps: list[StepDiversity] = []
    groups: dict[int, list[Group]] = {}
    for st in sorted(by):
        gl = [Group(st, k, tuple(rs), tuple(ws)) for k, (rs, ws) in by[st].items()]
        groups[st] = gl
        divs, dist = [], []
        for g in gl:
            if len(g.responses) > MAX_GROUP:
                skipped["answers beyond 16 per group not compared"] = (
                    skipped.get("answers beyond 16 per group not compared", 0) + len(g.responses) - MAX_GROUP
                )
            d, n = diversity(g.responses)
            if np.isfinite(d):
                divs.append(d)
                dist.append(n)
        if not divs:
            skipped["steps with no group of 2+ answers"] = skipped.get("steps with no group of 2+ answers", 0) + 1
            continue
        rights = [all(r > RIGHT for r in g.rewards) for g in gl]
        wrongs = [all(r <= RIGHT for r in g.rewards) for g in gl]
        steps.append(
            StepDiversity(
                st,
                len(gl),
                float(np.mean(divs)),
                float(np.mean(dist)),
                float(np.mean(rights)),
                float(np.mean(wrongs)),
                float(np.mean([r for g in gl for r in g.rewards])),
            )
        )
    return Samples(name, steps, groups, skipped)
