"""slime console: a Python dict per metric group, each tagged with its own counter.

    [2026-08-21 17:14:19] model.py:916 - step 42: {'train/pg_loss': -0.002, …, 'train/step': 42}
    rollout 42: {'rollout/raw_reward': 0.41, 'rollout/response_lengths': 512.3, …}   (train side)
    perf 42: {'rollout/response_len/mean': 511.0, 'rollout/truncated_ratio': 0.02, …} (rollout side)
    passrate 42: {'passrate/pass@1': 0.38}     eval 40: {'eval/aime': 0.2}     multi_turn 42: {…}

Two step axes: `step S` counts optimizer steps (`train/step = rollout_id × steps_per_rollout +
step_id`), every other group counts rollouts.  rlvitals uses the **rollout id** as the step, because
reward, length and truncation exist only per rollout.  Train rows are mapped onto rollouts:

- steps per rollout k = the number of train lines between two rollout ids (the most common count);
  if `S // k` equals the rollout id in force for every train line, the arithmetic is used (it also
  places train lines printed before any rollout line), else the order of the lines (the last
  rollout id seen; train lines before the first are counted as skipped) — the note says which;
- when k > 1 the k optimizer steps of a rollout are averaged (NaN ignored unless all are NaN);
- a second model's lines (`critic-step S: {'train/critic-…'}`) are mapped the same way, on their own.

With no rollout lines the train step is the axis; with no train lines the rollout id is.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import TextIO

from ..i18n import Msg
from ..run import Run
from .base import Format, LineParser
from .builder import RunBuilder
from .pydict import KeyMap, format_dict, marked_dict, numeric, rows_for_writer
from .values import OutOfRange, parse_step

__all__ = ["FORMAT", "SlimeParser", "write"]

# `{role}-step S` for a model other than the actor (e.g. `critic-step`); not OpenRLHF's "Global step N: {"
_GROUP = r"(?:^|[\s\]\-])(?<!Global )((?:[A-Za-z_]+-)?step|rollout|perf|passrate|eval|multi_turn) "
_LINE = re.compile(_GROUP + r"([^\s:]+):\s*\{")  # the counter as printed: checked by parse_step
_SNIFF = re.compile(_GROUP + r"(\d+):\s*\{")
_AXIS_KEYS = ("train/step", "rollout/step")


class SlimeParser(LineParser):
    """Buffers (group, counter, row) until `snapshot()`: the train→rollout mapping needs them all."""

    format_name = "slime"

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self.records: list[tuple[str, int, dict[str, float], int]] = []
        self.skipped: Counter[str] = Counter()
        self.dropped: Counter[str] = Counter()
        self._cache: tuple[int, Run] | None = None

    def _skip(self, reason: str, n: int = 1) -> None:
        if self.builder.partial:  # the file's last line, without its newline
            reason = "truncated last line"
        self.skipped[reason] += n

    def feed(self, line: str) -> bool:
        before = len(self.records)
        super().feed(line)
        return len(self.records) > before

    def parse(self, line: str, lineno: int) -> None:
        if ": {" not in line and ":{" not in line:
            return
        hit = marked_dict(line, _LINE, self._skip)
        if hit is None:
            return
        m, parsed = hit
        row, dropped = numeric(parsed)
        for k in _AXIS_KEYS:
            row.pop(k, None)
        n = parse_step(m.group(2))
        if isinstance(n, str):
            self._skip(n)
            return
        if any(isinstance(v, OutOfRange) for v in row.values()):
            row = self.builder.clean_row(row)  # counted in builder.skipped, merged at snapshot
        if row:
            if dropped:
                self.dropped["non-numeric values"] += dropped
            self.records.append((m.group(1), n, row, lineno))
        else:
            self._skip("dict without metrics")

    # -- axes ----------------------------------------------------------------------------------
    def _train_to_rollout(self, role: str) -> tuple[dict[int, int], int, str]:
        """For the train lines of one role (`step`, `critic-step`): record index -> rollout id; k; how."""
        # the train-side `rollout R` line precedes the training on rollout R; `perf R` (rollout
        # side) may run ahead with async generation, so it is only used when there is no other
        marks = {g for g, _, _, _ in self.records} & {"rollout", "perf", "passrate", "multi_turn"}
        src = "rollout" if "rollout" in marks else ("perf" if "perf" in marks else min(marks, default=""))
        current: int | None = None
        owner: dict[int, int] = {}
        per: Counter[int] = Counter()
        for i, (group, n, _, _) in enumerate(self.records):
            if group == role:
                if current is not None:
                    owner[i] = current
                    per[current] += 1
            elif group == src:
                current = n
        if not per:
            return owner, 1, "order"
        k = Counter(per.values()).most_common(1)[0][0]
        if all(self.records[i][1] // k == r for i, r in owner.items()):
            # the arithmetic holds: it also places train lines printed before any rollout line
            every = {i: rec[1] // k for i, rec in enumerate(self.records) if rec[0] == role}
            return every, k, "arithmetic"
        return owner, k, "order"

    def snapshot(self) -> Run:
        key = len(self.records) + sum(self.skipped.values())
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        b = RunBuilder(self.builder.name, self.format_name)
        b.split_runs = False  # rollout rows first, then train rows mapped onto them
        groups = {g for g, _, _, _ in self.records}
        roles = sorted(g for g in groups if g.endswith("step"))
        rollout_side = groups - set(roles)
        if roles and rollout_side:
            owner: dict[int, int] = {}
            for role in roles:
                own, k, how = self._train_to_rollout(role)
                owner.update(own)
                if role == "step" or "train_steps_per_rollout" not in b.meta:
                    b.meta.update(step_axis="rollout", train_steps_per_rollout=k)
                way = "train/step // k" if how == "arithmetic" else Msg("ingest.note.slime_by_order")
                b.note(
                    Msg(
                        "ingest.note.slime_mapped",
                        role=role,
                        way=way,
                        per=Msg("ingest.note.slime_per_one" if k == 1 else "ingest.note.slime_per_many", k=k),
                    )
                )
            pending: dict[int, list[dict[str, float]]] = {}
            for i, (group, n, row, lineno) in enumerate(self.records):
                if group not in roles:
                    b.add_row(n, row, lineno)
                elif i in owner:
                    pending.setdefault(owner[i], []).append(row)
                else:
                    b.skip("train step before any rollout line")
            for rid, rows in sorted(pending.items()):
                b.add_row(rid, _mean_rows(rows) if len(rows) > 1 else rows[-1])
        else:
            axis = "train" if groups and not rollout_side else "rollout"
            b.meta["step_axis"] = axis
            for _group, n, row, lineno in self.records:
                b.add_row(n, row, lineno)
            if self.records:
                b.note(Msg("ingest.note.slime_train_steps" if axis == "train" else "ingest.note.slime_rollout_ids"))
        for reason, count in (*self.skipped.items(), *self.builder.skipped.items()):
            b.skip(reason, count)
        for reason, count in self.dropped.items():
            b.drop(reason, count)
        run = b.build()
        self._cache = (key, run)
        return run

    def finish(self) -> Run:
        return self.snapshot()


def _mean_rows(rows: list[dict[str, float]]) -> dict[str, float]:
    sums: dict[str, list[float]] = {}
    for row in rows:
        for k, v in row.items():
            sums.setdefault(k, []).append(v)
    out = {}
    for k, vals in sums.items():
        finite = [v for v in vals if not math.isnan(v)]
        out[k] = sum(finite) / len(finite) if finite else math.nan
    return out


# canonical -> slime key; the prefix decides the line it is printed on.
KEYS: KeyMap = {
    "reward": ("rollout/raw_reward", None),
    "acc": ("passrate/pass@1", None),
    "entropy": ("train/entropy_loss", None),
    "kl": ("train/kl_loss", None),
    "clip_frac": ("train/pg_clipfrac", None),
    "ratio_mean": ("train/ois", None),
    "len": ("rollout/response_lengths", None),
    "gnorm": ("train/grad_norm", None),
    "trunc": ("rollout/truncated_ratio", None),
    "lr": ("train/lr-pg_0", None),
    "loss": ("train/pg_loss", None),
    "val_acc": ("eval/accuracy", None),  # an `eval N: {…}` line, on the eval cadence
}


def _group(key: str) -> str:
    if key.startswith("rollout/response_len/") or key.startswith("rollout/truncated") or key.startswith("perf/"):
        return "perf"
    for g in ("passrate", "eval", "multi_turn", "rollout"):
        if key.startswith(g + "/"):
            return g
    return "step"


def write(run: Run, out: TextIO) -> None:
    """One rollout and one optimizer step per run step (steps_per_rollout = 1), groups as slime prints them."""
    for step, row in rows_for_writer(run, KEYS):
        lines: dict[str, dict[str, float]] = {}
        for k, v in row.items():
            lines.setdefault(_group(k), {})[k] = v
        for g in ("perf", "rollout", "passrate", "multi_turn", "eval", "step"):
            if g in lines:
                body = lines[g] if g != "step" else {**lines[g], "train/step": step}
                out.write(f"[2026-08-21 17:14:19] model.py:916 - {g} {step}: {format_dict(body)}\n")


def _sniff(text: str) -> float:
    groups = {m.group(1) for m in _SNIFF.finditer(text)}
    if not groups:
        return 0.0
    if "train/" in text or "rollout/" in text:
        return 0.85
    return 0.4 if {g for g in groups if not g.endswith("step")} else 0.3


FORMAT = Format(
    "slime",
    "slime console: `step N: {…}`, `rollout N: {…}`, `perf N: {…}` (rollout id as step)",
    _sniff,
    parser=SlimeParser,
    writer=write,
)
