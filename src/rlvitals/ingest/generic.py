"""The fallback for hand-rolled training loops: `name: number` / `name=number` pairs on any line.

    Average Reward: 1.73
    Step 12/500, loss: 0.0006, kl=0.01

Tried last (it claims a file only when no framework reader does, and with low confidence).

- **Pairs.** A number after `:` or `=`; its name is the up-to-four words before it, back to the
  previous pair or a delimiter (`, ; | ( ) [ ] { } < > : =`, tab).  `12%` is read as 0.12.  Names
  are kept as written.  One the alias table knows once lower-cased, joined by `_` and stripped of a
  leading "average", "mean", "train", … ("Average Reward", "KL", "Mean Reward") is read as that
  vital, as if the user had said `--map`, and a note says so; `--map CANON=KEY` overrides.
- **Steps.** A counter on the line: `Step 12/500`, `step 12`, `step=12`, `global_step: 12`,
  `iter 12`, `Epoch 1 Step 12`, or `[12]` at the start.
- **Metrics on lines without a step** attach to a step by what the log does first: printed before
  the first step line, they belong to the next step line; printed after it, to the previous one.
  A note says which.  Values left after the last step line in "next" mode are counted as skipped.
- **No step counter at all**: every line with pairs adds to one row, a new row starts when a name
  repeats; the row number is the step, and a note says so.

Every regex is linear (possessive quantifiers; names are found by scanning back, not by matching).
"""

from __future__ import annotations

import re

from ..i18n import Msg
from ..run import Run
from . import aliases
from .base import Format, LineParser, clean_line
from .builder import RunBuilder
from .values import OUT_OF_RANGE, checked_float

__all__ = ["FORMAT", "GenericParser", "pairs", "step_of"]

_VALUE = re.compile(
    r"[:=][ \t]*+(?P<v>[-+]?(?:\d++(?:\.\d*+)?|\.\d++)(?:[eE][-+]?\d++)?|[-+]?(?:nan|inf(?:inity)?))"
    r"(?P<pct>%?)(?![\w.:/])",
    re.IGNORECASE,
)
_STEP = re.compile(
    r"\b(?:global[ _]?step|step|iter(?:ation)?)\b[ \t]*+[:=#]?[ \t]*+(\d{1,18})(?!\d)(?!\.\d)", re.IGNORECASE
)
_BRACKET = re.compile(r"^\s*+\[\s*+(\d{1,18})\s*+(?:/\s*+\d++\s*+)?\]")
_WORD = re.compile(r"[A-Za-z_][\w./\-]*")
_DELIMS = ",;|()[]{}<>:=\t"
_STEP_NAMES = frozenset({"step", "global step", "global_step", "globalstep", "iter", "iteration", "epoch"})
MAX_WORDS = 4
_SOURCE_FILE = re.compile(r"\.(?:py|pyx|c|cc|cpp|cu|h|hpp|rs|go|java|js|ts|sh)$")


def _name(segment: str) -> str | None:
    """The name before a separator: up to four words back to a delimiter, a number or the end of
    a sentence ("GPU: Tesla T4. Max memory" → "Max memory"); a source location
    ("config.py:2368") is no name."""
    cut = max(segment.rfind(c) for c in _DELIMS)
    words = segment[cut + 1 :].split()
    keep: list[str] = []
    for w in reversed(words):
        if len(keep) == MAX_WORDS or not _WORD.fullmatch(w) or (keep and w.endswith(".")):
            break
        keep.append(w)
    if not keep or _SOURCE_FILE.search(keep[0]):
        return None
    return " ".join(reversed(keep))


def pairs(line: str) -> tuple[dict[str, float], bool]:
    """The `name: number` pairs of a line (step words removed) and whether a `%` was read."""
    out: dict[str, float] = {}
    pct = False
    prev = 0
    for m in _VALUE.finditer(line):
        name = _name(line[prev : m.start()])
        prev = m.end()
        if name is None or name.lower() in _STEP_NAMES:
            continue
        value = checked_float(m.group("v"))  # `1e400`: OUT_OF_RANGE, dropped by the builder
        if m.group("pct") and value is not OUT_OF_RANGE:
            value, pct = value / 100.0, True
        out[name] = value
    return out, pct


def step_of(line: str) -> int | None:
    """The step counter on a line, or None."""
    m = _BRACKET.match(line) or _STEP.search(line)
    return int(m.group(1)) if m else None


class GenericParser(LineParser):
    """Incremental: rows before the first step counter are held until the mode is known."""

    format_name = "generic"

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self.mode: str | None = None  # "next" | "previous" once a step line was seen
        self.held: list[tuple[int, dict[str, float]]] = []  # free rows before the first step line
        self.pending: dict[str, float] = {}  # "next" mode: free values waiting for their step
        self.pending_lines = 0
        self.last_step: int | None = None
        self.percent = False

    def parse(self, line: str, lineno: int) -> None:
        line = clean_line(line)
        if ":" not in line and "=" not in line:
            if line.strip():
                self.builder.skip("not a metric line")
            return
        found, pct = pairs(line)
        self.percent |= pct
        row = found
        step = step_of(line)
        if step is None:
            if not row:
                self.builder.skip("not a metric line")
            elif self.mode is None:
                self.held.append((lineno, row))
            elif self.mode == "next":
                self.pending.update(row)
                self.pending_lines += 1
            else:
                assert self.last_step is not None
                self.builder.add_row(self.last_step, row, lineno)
            return
        if self.mode is None:
            self.mode = "next" if self.held else "previous"
            for _, held in self.held:
                self.pending.update(held)
            self.pending_lines = len(self.held)
            self.held = []
        if self.mode == "next" and self.pending:
            row = {**self.pending, **row}
            self.pending, self.pending_lines = {}, 0
        self.last_step = step
        if row:
            self.builder.add_row(step, row, lineno)
        else:
            self.builder.skip("step line without metrics")

    def _notes(self, b: RunBuilder) -> None:
        b.meta["fallback"] = True
        if self.mode == "next":
            b.note(Msg("ingest.note.gen_next"))
        elif self.mode == "previous":
            b.note(Msg("ingest.note.gen_previous"))
        if self.percent:
            b.note(Msg("ingest.note.gen_percent"))

    def snapshot(self) -> Run:
        if self.mode is not None:
            self._notes(self.builder)
            run = self.builder.build()
            if self.pending_lines:
                run.skipped["metrics after the last step line"] = (
                    run.skipped.get("metrics after the last step line", 0) + self.pending_lines
                )
            return guess_names(run)
        # no step counter (yet): line order, a new row whenever a name repeats
        b = RunBuilder(self.builder.name, self.format_name)
        for reason, n in self.builder.skipped.items():
            b.skip(reason, n)
        step, first = 0, 0
        row: dict[str, float] = {}
        for lineno, values in self.held:
            if row and any(k in row for k in values):
                step += 1
                b.add_row(step, row, first)
                row = {}
            if not row:
                first = lineno
            row.update(values)
        if row:
            b.add_row(step + 1, row, first)
        b.meta["step_inferred"] = True
        if self.held:
            b.note(Msg("ingest.note.gen_no_counter"))
        self._notes(b)
        return guess_names(b.build())

    def finish(self) -> Run:
        return self.snapshot()


_QUALIFIERS = frozenset({"average", "avg", "mean", "train", "training", "batch", "total", "current", "policy"})


def _candidates(key: str) -> list[str]:
    """Spellings of a hand-written name the alias table may know: "Mean Reward" → mean_reward,
    "Average Reward" → reward, "Avg. KL" → kl."""
    words = [w.strip(".") for w in key.lower().replace("-", " ").replace("_", " ").split()]
    words = [w for w in words if w]
    out = ["_".join(words)]
    while len(words) > 1 and words[0] in _QUALIFIERS:
        words = words[1:]
        out.append("_".join(words))
    return out


def guess_names(run: Run) -> Run:
    """Read hand-written names as the vitals they plainly are ("Average Reward" as reward, "KL" as
    kl), as if the user had said `--map`: the source stays as written, a note says so, and a
    user's `--map` still wins (it is applied after)."""
    from .mapping import apply_mapping

    guesses: dict[str, str] = {}
    for key in run.extras:
        if aliases.lookup(key) is not None:
            continue
        for cand in _candidates(key):
            alias = aliases.lookup(cand)
            if alias is None:
                continue
            if (
                alias.canonical not in run.series
                and alias.canonical not in guesses
                and not alias.proxy
                and alias.transform is None
                and alias.scale == 1.0
            ):
                guesses[alias.canonical] = key
            break
    if not guesses:
        return run
    run = apply_mapping(run, guesses, how="guessed")
    run.meta.pop("mapping", None)
    run.meta["guessed"] = guesses
    return run


def _sniff(text: str) -> float:
    """Low confidence by design, and only on a loop's shape: one name on ≥ 3 lines, and either step
    counters on ≥ 2 lines or ≥ 3 lines with several pairs each (a YAML config has neither)."""
    counts: dict[str, int] = {}
    stepped = multi = 0
    for line in text.splitlines()[:2000]:
        line = clean_line(line)
        step = step_of(line)
        stepped += step is not None
        if ":" not in line and "=" not in line:
            continue
        found, _ = pairs(line)
        multi += len(found) >= 2
        for k in found:
            counts[k] = counts.get(k, 0) + 1
    if not counts or max(counts.values()) < 3:
        return 0.0
    return 0.31 if stepped >= 2 or multi >= 3 else 0.0


FORMAT = Format(
    "generic",
    "fallback for hand-rolled logs: `name: number` / `name=number` lines, step from "
    "`Step 12/500`, `step 12`, `[12]` or line order (use --map CANON=KEY)",
    _sniff,
    parser=GenericParser,
)
