"""The fallback for hand-rolled training loops: `name: number` / `name=number` pairs on any line.

    Average Reward: 1.73
    Step 12/500, loss: 0.0006, kl=0.01

Tried last (it claims a file only when no framework reader does, and with low confidence).

- **Pairs.** `name: number` / `name=number`, a dict printed in a line, several records on one
  line: `pairs.py`.  Names are kept as written.  One the alias table knows once lower-cased, joined
  by `_` and stripped of a leading "average", "mean", "train", … ("Average Reward", "KL", "Mean
  Reward") is read as that vital, as if the user had said `--map`, and a note says so
  (`mapping.guess_names`); `--map CANON=KEY` overrides.
- **Steps.** A counter on the line: `Step 12/500`, `step 12`, `step=12`, `global_step: 12`,
  `iter 12` (on a line without a step counter), `Epoch 1 Step 12`, or `[12]` at the start.  A way
  of writing it whose number keeps starting again or never moves (a sampled answer's `**Step 1:`)
  is text, skipped and counted (`_Forms`).
- **Metrics on lines without a step** attach to a step by what the log does first: printed before
  the first step line, they belong to the next step line; printed after it, to the previous one.
  A note says which.  Values left after the last step line in "next" mode are counted as skipped.
- **No step counter at all**: every line with pairs adds to one row, a new row starts when a name
  repeats; the row number is the step, and a note says so.  So too when the step numbers are far
  rarer than the rows (`_sparse`: printed once, on a "new best" line, or on a progress line).

Every regex is linear (possessive quantifiers; names are found by scanning back, not by matching).
"""

from __future__ import annotations

import re
from collections import Counter

from ..i18n import Msg
from ..run import Run
from .base import Format, LineParser, clean_line
from .builder import RunBuilder
from .mapping import guess_names
from .pairs import line_rows, pairs

__all__ = ["FORMAT", "GenericParser", "pairs", "step_of"]

_STEP = re.compile(r"\b(?:global[ _]?step|step)\b[ \t]*+[:=#]?[ \t]*+(\d{1,18})(?!\d)(?!\.\d)", re.IGNORECASE)
# an iteration counter stands for the step only on a line without a step counter: in
# "Iteration 1/1, Step 7/500, GRPO iter 1/1" the step is 7
_ITER = re.compile(r"\biter(?:ation)?\b[ \t]*+[:=#]?[ \t]*+(\d{1,18})(?!\d)(?!\.\d)", re.IGNORECASE)
_BRACKET = re.compile(r"^\s*+\[\s*+(\d{1,18})\s*+(?:/\s*+\d++\s*+)?\]")


def step_of(line: str) -> int | None:
    """The step counter on a line, or None."""
    m = _step_match(line)
    return int(m.group(1)) if m else None


def _step_match(line: str) -> re.Match[str] | None:
    return _BRACKET.match(line) or _STEP.search(line) or _ITER.search(line)


def _form(line: str, m: re.Match[str]) -> str:
    """How a step counter is written, its digits aside: the character before it (or the line's
    start), its word as printed and the character after the number -- `[step 25]` is "[step]",
    a model's `**Step 1: Work out ...` is "*Step:"."""
    before = line[: m.start()].rstrip()
    after = line[m.end(1) : m.end(1) + 1]
    word = m.group(0)[: m.start(1) - m.start()].strip(" \t:=#")
    return (before[-1:] or "^") + word + after


# a step number going back on this many of its form's lines (and over a tenth) numbers something else
TEXT_RESTARTS = 3
# lines held until the text forms are known (then grown as the log goes on): bounded memory
HOLD_LINES = 20_000
# rows of metrics per step line beyond which the step lines number something else: a loop prints a
# sampled answer or two between its step lines, never this many rows of the same metrics
SPARSE_COUNTER = 8

Entry = tuple[int, int | None, str, dict[str, float]]  # (line number, step, its form, the pairs)


class _Forms:
    """How each way of writing a step number (`_form`) moves, line by line."""

    def __init__(self) -> None:
        self.last: dict[str, int] = {}
        self.low: dict[str, int] = {}
        self.high: dict[str, int] = {}
        self.seen: Counter[str] = Counter()
        self.back: Counter[str] = Counter()
        self.example: dict[str, str] = {}  # the first line's, for the note

    def add(self, form: str, step: int) -> None:
        self.seen[form] += 1
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


def _sparse(held: list[Entry], text: set[str]) -> tuple[int, int] | None:
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


class _Rows:
    """The lines, in order, as rows of a RunBuilder: metrics on lines without a step attach to a step
    by what the log does first (before the first step line: to the next one; after it: to the
    previous one); a step number in a text form (`_Forms.text`) is skipped."""

    def __init__(self, b: RunBuilder) -> None:
        self.b = b
        self.mode: str | None = None  # "next" | "previous" once a step line was seen
        self.held: list[tuple[int, dict[str, float]]] = []  # free rows before the first step line
        self.pending: dict[str, float] = {}  # "next" mode: free values waiting for their step
        self.pending_lines = 0
        self.last_step: int | None = None
        self.texts = 0
        self.text_forms: set[str] = set()  # the text forms skipped so far

    def line(self, lineno: int, step: int | None, form: str, row: dict[str, float], text: set[str]) -> None:
        b = self.b
        if step is not None and form in text:
            self.texts += 1
            self.text_forms.add(form)
            b.skip("step number in text")
            return
        if step is None:
            if self.mode is None:
                self.held.append((lineno, row))
            elif self.mode == "next":
                self.pending.update(row)
                self.pending_lines += 1
            else:
                assert self.last_step is not None
                b.add_row(self.last_step, row, lineno)
            return
        if self.mode is None:
            self.mode = "next" if self.held else "previous"
            for _, h in self.held:
                self.pending.update(h)
            self.pending_lines, self.held = len(self.held), []
        if self.mode == "next" and self.pending:
            row = {**self.pending, **row}
            self.pending, self.pending_lines = {}, 0
        self.last_step = step
        if row:
            b.add_row(step, row, lineno)
        else:
            b.skip("step line without metrics")


class GenericParser(LineParser):
    """Incremental.  The first HOLD_LINES lines with pairs or a step number are held until the ways
    of writing a step number that are text are known (`_Forms.text`); later lines go straight on.

    A step number written in a form whose numbers keep going back (a sampled answer's `**Step 1:
    ...`, `**Step 2: ...` printed before every step line of the loop) or never move is text, not a
    step: the line is skipped and counted ("step number in text"), so the steps never restart on it."""

    format_name = "generic"

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self.forms = _Forms()
        self.held: list[Entry] | None = []  # None once HOLD_LINES lines were replayed
        self.rows = _Rows(self.builder)
        self.text: set[str] = set()
        self.n_rows = 0
        self.percent = False
        self._partial_line: int | None = None  # the file's last line, fed without its newline
        self.sparse: tuple[int, int] | None = None  # (step lines, rows): the step lines are not the rows'

    def feed(self, line: str) -> bool:
        before = self.n_rows
        super().feed(line)
        return self.n_rows > before

    def parse(self, line: str, lineno: int) -> None:
        line = clean_line(line)
        if ":" not in line and "=" not in line:
            if line.strip():
                self.builder.skip("not a metric line")
            return
        rows, pct = line_rows(line)
        self.percent |= pct
        m = _step_match(line)
        if m is not None and len(rows) > 1:
            # one step, a name written twice: the last value stands, the others are counted
            merged = {k: v for row in rows for k, v in row.items()}
            self.builder.skip("value written twice on its step's line", sum(map(len, rows)) - len(merged))
            rows = [merged]
        found = rows[0]
        if m is None and not found:
            self.builder.skip("not a metric line")
            return
        self.n_rows += len(rows) if len(rows) > 1 else bool(found)
        if self.builder.partial:
            self._partial_line = lineno  # RunBuilder.add_row judges it when its row is fed
        step: int | None = None
        form = ""
        if m is not None:
            # lines with pairs of their own and lines without are followed apart: a loop's `Step 12:
            # loss=...` stays a step line beside answers' `Step 1: Work out ...` written the same way
            step, form = int(m.group(1)), _form(line, m) + ("=" if found else "")
            self.forms.add(form, step)
            if form not in self.forms.example:  # the number and the word before it, for the note
                self.forms.example[form] = line[line.rfind(" ", 0, max(m.start() - 1, 0)) + 1 : m.end(1) + 1].strip()
        if self.held is not None:
            if len(rows) == 1:
                self.held.append((lineno, step, form, found))
            else:
                self.held.extend((lineno, step, form, row) for row in rows)
            if len(self.held) >= HOLD_LINES:
                self.text = self.forms.text()
                self.sparse = _sparse(self.held, self.text)
                self._replay(self.rows, self.text, self.sparse is not None)
                self.held = None
            return
        if self.sparse is not None:
            step = None  # the step lines number something else: their pairs are a row's like any line's
        elif step is not None and form not in self.text and self.forms.is_text(form):
            self.text.add(form)  # a form found to be text stays text
        if len(rows) == 1:
            self.rows.line(lineno, step, form, found, self.text)
        else:  # several only on a line without a step: a row each, numbered in order
            for row in rows:
                self.rows.line(lineno, step, form, row, self.text)

    def snapshot(self) -> Run:
        if self.held is None:
            return self._run(self.rows)
        rows = _Rows(self._fresh(self.builder))
        text = self.forms.text()
        self.sparse = _sparse(self.held, text)
        self._replay(rows, text, self.sparse is not None)
        return self._run(rows)

    def _fresh(self, src: RunBuilder) -> RunBuilder:
        """A new builder for this log that starts with `src`'s skipped lines and its split_runs."""
        b = RunBuilder(self.builder.name, self.format_name)
        b.split_runs = src.split_runs
        for reason, n in src.skipped.items():
            b.skip(reason, n)
        return b

    def _replay(self, rows: _Rows, text: set[str], stepless: bool = False) -> None:
        """Feed the held lines to `rows` in order; the file's cut-off last line, if held, is fed as one
        (RunBuilder.partial), the others as whole lines.  `stepless`: every line as one without a
        step (`_sparse`)."""
        assert self.held is not None
        was = rows.b.partial
        try:
            for lineno, step, form, found in self.held:
                rows.b.partial = lineno == self._partial_line
                rows.line(lineno, None if stepless else step, form, found, text)
        finally:
            rows.b.partial = was

    def _run(self, rows: _Rows) -> Run:
        forms = ", ".join(sorted({f"`{self.forms.example[f]}`" for f in rows.text_forms}))
        notes = [Msg("ingest.note.gen_text_steps", n=rows.texts, form=forms)] if rows.texts else []
        if rows.mode == "next":
            notes.append(Msg("ingest.note.gen_next"))
        elif rows.mode == "previous":
            notes.append(Msg("ingest.note.gen_previous"))
        if self.percent:
            notes.append(Msg("ingest.note.gen_percent"))
        if rows.mode is not None:
            run = rows.b.build()
            if rows.pending_lines:
                run.skipped["metrics after the last step line"] = (
                    run.skipped.get("metrics after the last step line", 0) + rows.pending_lines
                )
        else:
            # no step counter (yet): line order, a new row whenever a name repeats
            b = self._fresh(rows.b)
            step, first = 0, 0
            row: dict[str, float] = {}
            for lineno, values in rows.held:
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
            if rows.held:
                notes.insert(
                    0,
                    Msg("ingest.note.gen_sparse_counter", lines=self.sparse[0], rows=self.sparse[1])
                    if self.sparse is not None
                    else Msg("ingest.note.gen_no_counter"),
                )
            run = b.build()
        run.meta["fallback"] = True
        run.notes = [*notes, *run.notes]
        return guess_names(run)

    def finish(self) -> Run:
        return self.snapshot()


def _sniff(text: str) -> float:
    """Low confidence by design, and only on a loop's shape: one name on ≥ 3 lines, and either step
    counters on ≥ 2 lines or ≥ 3 lines with several pairs each (a YAML config has neither) -- then
    with a name that moves (a config printed three times repeats its values; a metric changes)."""
    counts: dict[str, int] = {}
    first: dict[str, float] = {}
    moved: set[str] = set()
    stepped = multi = 0
    for line in text.splitlines()[:2000]:
        line = clean_line(line)
        step = step_of(line)
        stepped += step is not None
        if ":" not in line and "=" not in line:
            continue
        found, _ = pairs(line)
        multi += len(found) >= 2
        for k, v in found.items():
            counts[k] = counts.get(k, 0) + 1
            if first.setdefault(k, v) != v:
                moved.add(k)
    if not counts or max(counts.values()) < 3:
        return 0.0
    return 0.31 if stepped >= 2 or (multi >= 3 and any(counts[k] >= 3 for k in moved)) else 0.0


FORMAT = Format(
    "generic",
    "fallback for hand-rolled logs: `name: number` / `name=number` lines, step from "
    "`Step 12/500`, `step 12`, `[12]` or line order (use --map CANON=KEY)",
    _sniff,
    parser=GenericParser,
)
