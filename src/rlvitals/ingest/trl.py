"""TRL (GRPOTrainer, PPOTrainer; any HF `Trainer`) console logs and `trainer_state.json`.

The console prints each logged row as `str(dict)` through tqdm, with **no step number**:

    {'loss': 0.0012, 'grad_norm': 0.31, 'learning_rate': 1e-06, 'reward': 0.62, 'entropy': 0.38, 'epoch': 0.12}

so the step is inferred, from the best evidence the log holds (said in `Run.notes`, and in
`Run.meta["step_inferred"]`, `["step_source"]`, `["logging_steps"]`):

1. a `step` key in the dict (some callbacks add one): used as is, nothing inferred;
2. the training tqdm bar `N/TOTAL` last drawn before each dict, when it rises from dict to dict
   (stdout and stderr interleaved as they happened);
3. `epoch` × the header's "Num update steps per epoch = N", when that gives distinct steps
   (recent transformers print `epoch` with 4 significant digits; older ones round it to 2 decimals);
4. the bar's redraws: each time the Trainer logs, `tqdm.write` clears the bar and draws it again
   at the same counter and time, so a counter drawn twice in a row marks a logged row even when
   stdout (the dicts) is flushed apart from stderr (the bar).  Evenly spaced marks give
   logging_steps (line order × it); otherwise the i-th row sits at the i-th mark;
5. line order × logging_steps, logging_steps from "Total optimization steps = T" (or, without it,
   T = `train_runtime` × `train_steps_per_second` of the end-of-training summary) when the run
   finished with exactly ⌊T/L⌋ rows, else TRL's default 10.

Rules 1–4 read only what precedes a row, so a live file (`watch`) and the finished file
(`diagnose`) give a row the same step; rule 5 is the fallback of a log with no bar.

Eval dicts (`eval_…` keys) are kept as extras at the step of the train row before them and never
count as train rows; the end-of-training summary (`train_runtime`, …) is skipped and counted.
`None` (TRL's "every value was NaN") is kept as NaN.

`trainer_state.json` and bare arrays of the same log dicts are read by logdicts.py.
"""

from __future__ import annotations

import math
import re
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

from ..i18n import Msg
from ..run import Run
from .base import Format, LineParser, clean_line
from .builder import RunBuilder
from .pydict import DictSyntaxError, KeyMap, numeric, parse_dict, rows_for_writer, skip_reason
from .trl_blocks import read_trl_blocks
from .trl_rows import SUMMARY_KEYS, Chunk, is_eval_keys, logging_every, moved, row_table, steps_run
from .values import STEP_LIMIT, parse_step

__all__ = ["DEFAULT_LOGGING_STEPS", "FORMAT", "KEYS", "TrlParser", "pinned_length_note", "read_trl", "split_eval"]

DEFAULT_LOGGING_STEPS = 10  # TRL's GRPOConfig default (transformers' own default is 500)

_TQDM = re.compile(r"(?<!\d)(\d+)/(\d+) \[([^\]\n]{0,80})")  # (?<!\d): one try per digit run, not one per digit
_DICT_START = re.compile(r"^\s*\{['\"]|(?:it/s\]|s/it\]|\?it/s\])\s*\{['\"]")
_ANY_DICT = re.compile(r"\{['\"]")
# keys the HF Trainer adds to every logged row: a dict after some other prefix ("[rank0]: {…}")
# is a row only if it has one of them (a tokenizer's "Updated tokens: {…}" has none)
_HF_KEYS = frozenset({"loss", "grad_norm", "learning_rate", "epoch", "reward", "train_runtime"})
_PER_EPOCH = re.compile(r"Num update steps per epoch = ([\d,]+)")
_TOTAL = re.compile(r"Total optimization steps = ([\d,]+)")
_SNIFF = re.compile(
    r"(?:^|\r)[^\S\r\n]*(?:\[rank\d+\]:\s*)?\{'(?:loss|grad_norm|learning_rate|reward|train_runtime|eval_\w+)'",
    re.MULTILINE,
)


@dataclass(slots=True)
class _Row:
    """One printed dict, kept compact until the steps are known (a long run holds a million of them):
    its keys as one tuple shared by every row with the same keys, its numbers in a typed array."""

    keys: tuple[str, ...]
    numbers: array[float] | tuple[float, ...]
    lineno: int
    epoch: float | None
    bar_items: tuple[tuple[int, tuple[int, int]], ...] = ()  # tqdm total -> (last counter, draw no.)
    step: int | None = None  # an explicit `step` key
    is_eval: bool = False

    @property
    def values(self) -> dict[str, float]:
        return dict(zip(self.keys, self.numbers))

    @property
    def bars(self) -> dict[int, tuple[int, int]]:
        return dict(self.bar_items)


class TrlParser(LineParser):
    """Buffers rows (`_Row`s, or `Chunk`s read by trl_blocks.py) until `snapshot()`: the step of a
    row can depend on rows that come later."""

    format_name = "trl-console"

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self.rows: list[_Row | Chunk] = []
        self.n_rows = 0
        self.bars: dict[int, tuple[int, int]] = {}
        self.draws = 0  # tqdm counters seen so far
        self.drawn: dict[int, tuple[int, str]] = {}  # tqdm total -> (counter, time text) last drawn
        self.marks: dict[int, list[int]] = {}  # tqdm total -> counters drawn twice in a row
        self.per_epoch: int | None = None
        self.total: int | None = None
        self.finished = False
        self.ran: int | None = None  # steps the end-of-training summary says the run took
        self.skipped: dict[str, int] = {}
        self.dropped: dict[str, int] = {}
        self._cache: tuple[int, Run] | None = None
        self._keys: dict[tuple[str, ...], tuple[tuple[str, ...], bool]] = {}
        self._bar_items: tuple[tuple[int, tuple[int, int]], ...] | None = ()

    def _skip(self, reason: str, n: int = 1) -> None:
        if self.builder.partial:  # the file's last line, without its newline
            reason = "truncated last line"
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def feed(self, line: str) -> bool:
        before = self.n_rows
        super().feed(line)
        return self.n_rows > before

    def add_chunk(self, chunk: Chunk) -> None:
        self.rows.append(chunk)
        self.n_rows += len(chunk)

    def parse(self, line: str, lineno: int) -> None:
        line = clean_line(line)
        if "/" in line and "[" in line:
            for m in _TQDM.finditer(line):
                n, total = _count(m.group(1)), _count(m.group(2))
                if n is not None and total is not None and total > 0 and n <= total:
                    self.draws += 1
                    self.bars[total] = (n, self.draws)
                    self._bar_items = None
                    drawn = (n, m.group(3))
                    if self.drawn.get(total) == drawn and n >= 1:  # a redraw: the Trainer logged here
                        marks = self.marks.setdefault(total, [])
                        if not marks or marks[-1] != n:  # (an eval logged at the same step: one mark)
                            marks.append(n)
                    self.drawn[total] = drawn
        if "steps" in line:
            per = _PER_EPOCH.search(line)
            if per:
                per_epoch = parse_step(per.group(1).replace(",", ""))
                self.per_epoch = per_epoch if isinstance(per_epoch, int) else self.per_epoch
            tot = _TOTAL.search(line)
            if tot:
                steps = parse_step(tot.group(1).replace(",", ""))
                self.total = steps if isinstance(steps, int) else self.total
        if "{" not in line:
            return
        start = _DICT_START.search(line)
        prefixed = start is None
        if start is None:
            start = _ANY_DICT.search(line)
            if start is None:
                return
        try:
            parsed = parse_dict(line, start.end() - 2)
        except DictSyntaxError as e:
            if not prefixed or any(f"'{k}'" in line for k in _HF_KEYS):
                self._skip(skip_reason(e))
            return
        if prefixed and not (_HF_KEYS & parsed.keys() or any(k.startswith("eval_") for k in parsed)):
            return  # some other dict inside a sentence, not a log row
        if any(k in parsed for k in SUMMARY_KEYS):
            self.finished = True
            self.ran = steps_run(parsed)
            self._skip("end-of-training summary")
            return
        epoch = parsed.pop("epoch", None)
        step = parsed.pop("step", None)
        if step is not None:
            step = parse_step(step)
            if isinstance(step, str):  # a `step` key out of range: the row has no place
                self._skip(step)
                return
        if not isinstance(epoch, float) or not math.isfinite(epoch) or not 0 <= epoch < 1e9:
            epoch = None
        row, dropped = numeric(parsed)
        if not row:
            self._skip("dict without metrics")
            return
        if dropped:
            self.dropped["non-numeric values"] = self.dropped.get("non-numeric values", 0) + dropped
        keys = tuple(row)
        known = self._keys.get(keys)
        if known is None:  # one tuple (and one eval test) per distinct key set
            known = self._keys[keys] = (keys, is_eval_keys(keys))
        vals = row.values()
        # plain floats in a typed array; a marker (values.OUT_OF_RANGE) or an int keeps its object
        numbers = array("d", vals) if all(type(v) is float for v in vals) else tuple(vals)
        bars = self._bar_items
        if bars is None:  # the bars as they stand, shared by the rows until one moves
            bars = self._bar_items = tuple(self.bars.items())
        self.rows.append(_Row(known[0], numbers, lineno, epoch, bars, step, known[1]))
        self.n_rows += 1

    # -- step inference ------------------------------------------------------------------------
    def _steps(self) -> tuple[np.ndarray | list[int], str, int | None]:
        every: int | None
        is_eval, explicit, epochs, bars = row_table(self.rows)
        n = int(is_eval.size - is_eval.sum())
        train = slice(None) if n == is_eval.size else ~is_eval  # (no copies when every row trains)
        if n and explicit is not None and bool((explicit[train] >= 0).all()):
            return explicit[train], "", None
        # the training bar: a total every row saw, whose counter rises from row to row
        totals = [t for t, (c, _) in bars.items() if n and bool((c[train] >= 0).all())]
        for total in sorted(totals, reverse=True):
            counts, draws = bars[total][0][train], bars[total][1][train]
            # the bar must be redrawn between two rows (else the dicts were printed apart from it,
            # e.g. stdout flushed at the end); a resumed run redraws it from the checkpoint, so the
            # counter may go back (a new segment)
            # (a first row at counter 0 is a log that starts at step 0 -- a run converted from a
            # trainer that logs step 0, e.g. verl -- when the counter then rises at every row)
            from_zero = counts[0] == 0 and bool((counts[1:] > counts[:-1]).all())
            if (counts.min() >= 1 or from_zero) and bool((draws[1:] != draws[:-1]).all()):
                every = logging_every(counts)
                return counts, Msg("note.how.tqdm", total=total), every
        ep = epochs[train]
        if self.per_epoch and n and not np.isnan(ep).any():
            near = np.rint(ep * self.per_epoch)  # round half to even, as round() does
            if near.min() >= 1 and near.max() < STEP_LIMIT and bool((near[1:] != near[:-1]).all()):
                steps = near.astype(np.int64)
                every = logging_every(steps)
                return steps, Msg("note.how.epoch", n=self.per_epoch), every
        marked = self._marked(n)
        if marked is not None:
            return marked
        every, how = DEFAULT_LOGGING_STEPS, Msg("note.how.default", every=DEFAULT_LOGGING_STEPS)
        # the training bar is one whose counter moved from row to row: a dataset's map bar (GSM8K's
        # 7473 examples), finished before training, is drawn at its total and stays there
        moving = [t for t, (c, _) in bars.items() if n and moved(c[train])]
        whole = self.total or max(moving or self.bars or [0]) or self.ran
        if self.finished and whole and n:
            # logging every k steps gives ⌊T/k⌋ rows: k in (T/(n+1), T/n]; when several fit, prefer
            # TRL's default, then the roundest number (people type 10, 25, 100, not 26)
            fits = range(whole // (n + 1) + 1, whole // n + 1)
            if len(fits) > 100:  # (any 100 consecutive numbers hold a multiple of 100)
                every = DEFAULT_LOGGING_STEPS if DEFAULT_LOGGING_STEPS in fits else -(-fits.start // 100) * 100
                how = Msg("note.how.fit", every=every, rows=n, total=whole)
            elif fits:

                def roundness(k: int) -> tuple[bool, bool, bool, bool, bool, int]:
                    return (k == DEFAULT_LOGGING_STEPS, k % 100 == 0, k % 50 == 0, k % 10 == 0, k % 5 == 0, -k)

                every = max(fits, key=roundness)
                how = Msg("note.how.fit", every=every, rows=n, total=whole)
        return [every * (i + 1) for i in range(n)], how, every

    def _marked(self, n: int) -> tuple[list[int], str, int | None] | None:
        """Steps from the bar's redraws (rule 4), or None when they do not cover the rows."""
        for total, marks in sorted(self.marks.items(), key=lambda kv: (-len(kv[1]), -kv[0])):
            if len(marks) < 2 or not n:
                continue
            every = marks[0]
            if all(m == every * (i + 1) for i, m in enumerate(marks)):
                return ([every * (i + 1) for i in range(n)], Msg("note.how.bar_every", every=every, total=total), every)
            if len(marks) >= n:
                return marks[:n], Msg("note.how.bar", total=total), logging_every(marks[:n])
        return None

    def snapshot(self, release: bool = False) -> Run:
        """The run so far; `release` (a last read): the rows go to the builder and are dropped."""
        key = self.n_rows + sum(self.skipped.values()) + self.lineno
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        b = RunBuilder(self.builder.name, self.format_name)
        got, how, every = self._steps()
        evals = sum(len(r) if isinstance(r, Chunk) else 1 for r in self.rows if r.is_eval)
        steps = np.asarray(got, dtype=np.int64)
        at = last = 0
        for r in self.rows:
            if isinstance(r, Chunk):  # rows read in a block: one add_block
                k = len(r)
                if r.is_eval:
                    st = np.full(k, last, dtype=np.int64)
                else:
                    st, at = steps[at : at + k], at + k
                    last = int(st[-1])
                b.add_block(st, dict(zip(r.keys, r.columns)), lines=r.lines)
                if release:  # only the values go on (in the builder): the rest may go now
                    r.bars, r.epochs, r.lines = {}, steps[:0], steps[:0]
            elif r.is_eval:
                b.add_row(r.step if r.step is not None else last, r.values, r.lineno)
            else:
                last, at = int(steps[at]), at + 1
                b.add_row(last, r.values, r.lineno)
        for reason, count in (*self.skipped.items(), *self.builder.skipped.items()):
            b.skip(reason, count)
        for reason, count in self.dropped.items():
            b.drop(reason, count)
        b.meta["step_inferred"] = bool(how)
        if how:
            b.meta["step_source"] = how
            b.note(Msg("note.trl_steps", how=how))
        if every:
            b.meta["logging_steps"] = every
        if evals:
            b.note(Msg("note.trl_evals", n=evals))
        if release:
            self.rows, self.n_rows = [], 0
        run = pinned_length_note(b.build(release=release))
        self._cache = (key, run) if not release else None
        return run

    def finish(self) -> Run:
        return self.snapshot()


def _count(digits: str) -> int | None:
    """A tqdm counter (a digit run) as parse_step reads it, None where parse_step refuses it."""
    if digits.isascii():
        s = digits.lstrip("0") or "0"
        if len(s) > 16:
            return None
        n = int(s)
        return n if n < STEP_LIMIT else None
    got = parse_step(digits)
    return got if isinstance(got, int) else None


def pinned_length_note(run: Run) -> Run:
    """No truncation rate logged but the mean length sits at its maximum: say so, invent nothing."""
    s = run.series.get("len")
    if s is None or "trunc" in run.series:
        return run
    v = s.values[s.finite]
    if v.size < 5:
        return run
    top = float(v.max())
    at = int(np.sum(v == top))
    if top > 0 and at >= 0.8 * v.size:
        run.meta["len_at_max"] = {"value": top, "steps": at, "of": int(v.size)}
        run.notes.append(Msg("note.len_at_max", src=s.source, top=f"{top:g}", at=at, of=v.size))
    return run


# -- writers -------------------------------------------------------------------------------------
KEYS: KeyMap = {
    "reward": ("reward", None),
    "acc": ("rewards/accuracy_reward/mean", None),
    "entropy": ("entropy", None),
    "kl": ("kl", None),
    # TRL logs no adv_std: write what it does log, the share of groups with no reward spread
    "adv_std": ("frac_reward_zero_std", lambda x: np.clip(1.0 - np.square(x), 0.0, 1.0)),
    "clip_frac": ("clip_ratio/region_mean", None),
    "ratio_mean": ("sampling/importance_sampling_ratio/mean", None),
    "len": ("completions/mean_length", None),
    "gnorm": ("grad_norm", None),
    "trunc": ("completions/clipped_ratio", None),
    "lr": ("learning_rate", None),
    "loss": ("loss", None),
    # an eval accuracy is printed in the Trainer's eval dict, under its `eval_` prefix
    "val_acc": ("eval_accuracy", None),
}


def split_eval(row: dict[str, float]) -> tuple[dict[str, float], dict[str, float]]:
    train = {k: v for k, v in row.items() if not k.startswith("eval_")}
    return train, {k: v for k, v in row.items() if k.startswith("eval_")}


def write_console(run: Run, out: TextIO) -> None:
    """The console as TRL prints it: a tqdm tick `N/TOTAL` then the dict (eval dicts after)."""
    rows = list(rows_for_writer(run, KEYS))
    total = rows[-1][0] if rows else 0
    for step, row in rows:
        train, ev = split_eval(row)
        pct = int(100 * step / total) if total else 100
        out.write(f"\r{pct:3d}%|          | {step}/{total} [00:00<00:00,  1.00it/s]\n")
        if train:
            out.write(str({**train, "epoch": round(step / max(total, 1), 2)}) + "\n")
        if ev:
            out.write(str({**ev, "epoch": round(step / max(total, 1), 2)}) + "\n")


def read_trl(path: Path, name: str) -> Run:
    """A TRL console log: dict rows and bar lines in blocks (trl_blocks.py), the rest by TrlParser."""
    return read_trl_blocks(path, TrlParser(name), release=True)[0]


def _sniff_console(text: str) -> float:
    hits = len(_SNIFF.findall(text))
    return 0.0 if hits == 0 else min(0.9, 0.6 + 0.1 * hits)


FORMAT = Format(
    "trl-console",
    "TRL / HF Trainer console: printed dicts, no step (inferred)",
    _sniff_console,
    parser=TrlParser,
    reader=read_trl,
    writer=write_console,
)
