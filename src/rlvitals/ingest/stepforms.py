"""How a log writes its step counter, and which of its counters is the loop's.

    step_match(line) -> the counter on a line (`Step 12/500`, `step=12`, `[12]`, `iter 12`, a line
                        opening `Epoch 12/50`), or None
    step_form(line, m) -> how it is written, digits aside (`[step]`, `|step:`, `*Step:`)
    StepForms           -> how each way of writing it moves: text (worked answers' `Step 1:`),
                           a second counter (`foreign`: an engine's optimizer steps), or the loop's
    leads(held, ...)    -> whether the loop prints its metrics before its step line
    sparse_counter(...) -> step lines far rarer than the rows: they number something else

The generic reader (`generic.py`) holds the first lines until these are known.
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = [
    "SPARSE_COUNTER",
    "TEXT_RESTARTS",
    "Entry",
    "StepForms",
    "bare_step",
    "leading_names",
    "leads",
    "sparse_counter",
    "step_form",
    "step_match",
    "step_of",
]

_STEP = re.compile(r"\b(?:global[ _]?step|step)\b[ \t]*+[:=#]?[ \t]*+(\d{1,18})(?!\d)(?!\.\d)", re.IGNORECASE)
# an iteration counter stands for the step only on a line without a step counter: in
# "Iteration 1/1, Step 7/500, GRPO iter 1/1" the step is 7
_ITER = re.compile(r"\biter(?:ation)?\b[ \t]*+[:=#]?[ \t]*+(\d{1,18})(?!\d)(?!\.\d)", re.IGNORECASE)
_BRACKET = re.compile(r"^\s*+\[\s*+(\d{1,18})\s*+(?:/\s*+\d++\s*+)?\]")
# an epoch counter, last: a loop that numbers its iterations "Epoch 3/50" (one update each) prints
# nothing else; beside a step or an iteration counter an epoch is a pass over the data
_EPOCH = re.compile(r"^\s*+epoch\b[ \t]*+[:=#]?[ \t]*+(\d{1,18})(?!\d)(?!\.\d)", re.IGNORECASE)


def step_of(line: str) -> int | None:
    """The step counter on a line, or None."""
    m = step_match(line)
    return int(m.group(1)) if m else None


def step_match(line: str) -> re.Match[str] | None:
    return _BRACKET.match(line) or _STEP.search(line) or _ITER.search(line) or _EPOCH.match(line)


_OF_TOTAL = re.compile(r"[ \t]*+/[ \t]*+\d++[ \t]*+")


def bare_step(line: str, m: re.Match[str] | None) -> bool:
    """A line that is a loop's counter out of its total and nothing else (`Step 12/500`, `Epoch 3/50`:
    a loop printing its metrics on the lines around it).  Not an iteration counter alone on its line,
    which numbers an outer loop (`Iteration 1/1`), nor a bare `Step 2` -- a worked answer's heading."""
    return m is not None and m.re in (_STEP, _EPOCH) and _OF_TOTAL.fullmatch(line, m.end()) is not None


def step_form(line: str, m: re.Match[str]) -> str:
    """How a step counter is written, its digits aside: the character before it (or the line's
    start), its word as printed and the character after the number -- `[step 25]` is "[step]",
    a model's `**Step 1: Work out ...` is "*Step:"."""
    before = line[: m.start()].rstrip()
    after = line[m.end(1) : m.end(1) + 1]
    word = m.group(0)[: m.start(1) - m.start()].strip(" \t:=#")
    return (before[-1:] or "^") + word + after


# a step number going back on this many of its form's lines (and over a tenth) numbers something else
TEXT_RESTARTS = 3
# rows of metrics per step line beyond which the step lines number something else: a loop prints a
# sampled answer or two between its step lines, never this many rows of the same metrics
SPARSE_COUNTER = 8

Entry = tuple[int, int | None, str, dict[str, float]]  # (line number, step, its form, the pairs)


class StepForms:
    """How each way of writing a step number (`step_form`) moves, line by line."""

    def __init__(self) -> None:
        self.last: dict[str, int] = {}
        self.low: dict[str, int] = {}
        self.high: dict[str, int] = {}
        self.seen: Counter[str] = Counter()
        self.back: Counter[str] = Counter()
        self.behind: Counter[tuple[str, str]] = Counter()  # (form, other): its lines below other's last number
        self.clashes = 0  # their total: `foreign` can only change when it grows
        self.example: dict[str, str] = {}  # the first line's, for the note

    def add(self, form: str, step: int) -> None:
        self.seen[form] += 1
        for other, s in self.last.items():
            if other != form and s > step:
                self.behind[form, other] += 1
                self.clashes += 1
        last = self.last.get(form)
        if last is None:
            self.low[form] = self.high[form] = step
        else:
            self.back[form] += step < last
            self.low[form], self.high[form] = min(self.low[form], step), max(self.high[form], step)
        self.last[form] = step

    def text(self) -> set[str]:
        """The forms that count something other than training steps: a training loop's counter moves
        forward and only goes back when the run is resumed or a new run starts in the same file (a
        few times), while the steps of worked answers printed in the log start again at 1 with every
        answer (back on TEXT_RESTARTS lines and on more than a tenth of them), and a number quoted in
        prose ("from Step 1 and Step 2") may never move at all."""
        return {f for f in self.seen if self.is_text(f)}

    def foreign(self, text: set[str]) -> set[str]:
        """Second counters beside the loop's (the form on the most lines): forms printed on fewer lines
        whose numbers disagree with the loop's -- a line of one below the other's last number -- on
        TEXT_RESTARTS lines or more, while the loop's own numbers go back fewer times than that (an
        engine's optimizer steps, `[Rank 0] step=10, skipped=3`, printed every ten loop steps and a
        step ahead of them).  Their lines are read as lines without a step; an eval printed at the
        loop's step never disagrees with it."""
        counters = [f for f in self.seen if f not in text]
        if len(counters) < 2:
            return set()
        main = max(counters, key=lambda f: self.seen[f])
        return {
            f
            for f in counters
            if f != main
            and self.seen[f] < self.seen[main]
            and self.behind[f, main] + self.behind[main, f] >= max(TEXT_RESTARTS, self.back[main] + 1)
        }

    def is_text(self, f: str) -> bool:
        """`f` numbers text by its own moves, or -- lines of a form that carry pairs -- the same form's
        lines without pairs are text and these numbers stay within theirs (an answer's `Step 2: 3 x 5 =
        15` among its `Step 1: ...`; a loop's `Step 40: loss=...` runs past the answers' few steps)."""
        bare = f[:-1] if f.endswith("=") else ""
        if bare in self.seen and self._moves_as_text(bare):
            if self.low[bare] <= self.low[f] and self.high[f] <= self.high[bare]:
                return True
        return self._moves_as_text(f)

    def _moves_as_text(self, f: str) -> bool:
        n, back = self.seen[f], self.back[f]
        return n >= TEXT_RESTARTS and ((back >= TEXT_RESTARTS and 10 * back > n) or self.low[f] == self.high[f])


def leads(held: list[Entry], not_steps: set[str]) -> bool | None:
    """Whether the loop prints its metrics before its step line: its most printed name on lines
    without a step (the reward a loop prints under its step line) shows before the first step line.
    An engine's start-up pairs (`Attempted loss scale: 65536`) before it say nothing about the loop.
    None when no line without a step holds a name."""
    first = _first_step(held, not_steps)
    free = Counter(k for _, step, form, row in held if step is None or form in not_steps for k in row)
    if first is None or not free:
        return None
    top = free.most_common(1)[0][0]
    return top in _names_before(held, first, not_steps)


def leading_names(held: list[Entry], not_steps: set[str]) -> set[str] | None:
    """The names printed on lines without a step before the loop's first step line -- one with pairs
    of its own or a counter alone on its line (form ending "=" or "/"), not a worked answer's `Step 1:
    ...` -- or None without one: in a loop that prints its metrics before its step line these lead,
    and a name first printed after a step line follows it."""
    first = _first_step(held, not_steps, forms=("=", "/"))
    return None if first is None else _names_before(held, first, not_steps)


def _first_step(held: list[Entry], not_steps: set[str], forms: tuple[str, ...] = ("",)) -> int | None:
    """The index of the first step line whose form is a step's (not in `not_steps`) and ends with one
    of `forms` (any form by default), or None."""
    return next(
        (
            i
            for i, (_, step, form, _) in enumerate(held)
            if step is not None and form not in not_steps and form.endswith(forms)
        ),
        None,
    )


def _names_before(held: list[Entry], first: int, not_steps: set[str]) -> set[str]:
    """The names on the lines without a step (or with a counter that is no step) before `first`."""
    return {k for _, step, form, row in held[:first] if step is None or form in not_steps for k in row}


def sparse_counter(held: list[Entry], text: set[str]) -> tuple[int, int] | None:
    """(step lines, rows) when the step lines number something other than the metrics' rows: the
    lines without a step, cut into rows where a name repeats (as a log without a counter is read),
    hold SPARSE_COUNTER or more rows per step line (a log whose only step number is in "new best at
    step 0, saving", or a progress line every 100 rows).  None otherwise."""
    stepped = sum(1 for _, step, form, _ in held if step is not None and form not in text)
    if not stepped:
        return None
    rows, row = 0, set[str]()
    for _, step, _, found in held:
        if step is None and found:
            if row & found.keys():
                rows, row = rows + 1, set()
            row |= found.keys()
    rows += bool(row)
    return (stepped, rows) if rows >= SPARSE_COUNTER * stepped else None
