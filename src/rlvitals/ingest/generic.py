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
  is text, skipped and counted (`StepForms`).
- **Metrics on lines without a step** attach to a step by what the loop does: its most printed
  name on such lines shows before the first step line -- they belong to the next step line -- or
  only after it -- to the previous one (`stepforms.leads`; an engine's start-up pairs before the
  first step line are counted, not attached).  A note says which.  Values left after the last step
  line in "next" mode are counted as skipped.
- **A second counter** (an engine's optimizer steps beside the loop's, `stepforms.StepForms.foreign`)
  does not set the step: its lines are read as lines without one, and a note counts them.
- **No step counter at all**: every line with pairs adds to one row, a new row starts when a name
  repeats; the row number is the step, and a note says so.  So too when the step numbers are far
  rarer than the rows (`sparse_counter`: printed once, on a "new best" line, or on a progress line).

Every regex is linear (possessive quantifiers; names are found by scanning back, not by matching).
"""

from __future__ import annotations

from ..i18n import Msg
from ..run import Run
from .base import Format, LineParser, clean_line
from .builder import RunBuilder
from .mapping import guess_names
from .pairs import line_rows, pairs
from .stepforms import Entry, StepForms, bare_step, leading_names, leads, sparse_counter, step_form, step_match, step_of

__all__ = ["FORMAT", "GenericParser", "pairs", "step_of"]

# lines held until the text forms are known (then grown as the log goes on): bounded memory
HOLD_LINES = 20_000


class _Rows:
    """The lines, in order, as rows of a RunBuilder: metrics on lines without a step attach to a step
    by what the loop does (`lead`: to the next step line, else to the previous one); a step number in
    a text form (`StepForms.text`) is skipped, one in a second counter's form is no step."""

    def __init__(self, b: RunBuilder) -> None:
        self.b = b
        self.mode: str | None = None  # "next" | "previous" once a step line was seen
        self.held: list[tuple[int, dict[str, float]]] = []  # free rows before the first step line
        self.pending: dict[str, float] = {}  # "next" mode: free values waiting for their step
        self.pending_lines = 0
        self.last_step: int | None = None
        self.texts = 0
        self.text_forms: set[str] = set()  # the text forms skipped so far
        self.others = 0  # lines of a second counter (`StepForms.foreign`), read as lines without a step
        self.other_forms: set[str] = set()
        # whether the loop prints its metrics before its step line (`leads`); None: not known, and
        # any pairs before the first step line say so
        self.lead: bool | None = None
        self.leading: set[str] | None = None  # the names printed before the first step line, if known
        self.gap_led = False  # since the last step line, a leading name was printed

    def line(
        self,
        lineno: int,
        step: int | None,
        form: str,
        row: dict[str, float],
        text: set[str],
        foreign: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        b = self.b
        if step is not None and form in text:
            self.texts += 1
            self.text_forms.add(form)
            b.skip("step number in text")
            return
        if step is not None and form in foreign:
            self.others += 1
            self.other_forms.add(form)
            step = None
        if step is None:
            if self.mode is None:
                self.held.append((lineno, row))
            elif self.mode == "next":
                if self.leading is not None and not self.gap_led and self.last_step is not None:
                    if self.leading.isdisjoint(row):
                        # under a step line, before any name the loop prints ahead of its step lines:
                        # its summary (`Loss:` under the `Epoch 3/50` its grad norms came before)
                        b.add_row(self.last_step, row, lineno)
                        return
                    self.gap_led = True  # from here on, the next step's metrics
                self._pend(row)
                self.pending_lines += 1
            else:
                assert self.last_step is not None
                b.add_row(self.last_step, row, lineno)
            return
        if self.mode is None:
            self.mode = "next" if self.held and self.lead is not False else "previous"
            if self.mode == "next":
                for _, h in self.held:
                    self._pend(h)
                self.pending_lines = len(self.held)
            elif self.held:  # a preamble's pairs (an engine's start-up lines), not the loop's metrics
                b.skip("metrics before the first step line", len(self.held))
            self.held = []
        if self.mode == "next" and self.pending:
            row = {**self.pending, **row}
            self.pending, self.pending_lines = {}, 0
        self.last_step, self.gap_led = step, False
        if row:
            b.add_row(step, row, lineno)
        else:
            b.skip("step line without metrics")

    def _pend(self, row: dict[str, float]) -> None:
        """Hold a row's values for the next step line; a name already held is written again: the last
        value stands and the others are counted."""
        if again := len(self.pending.keys() & row.keys()):
            self.b.skip("value written again before its step line", again)
        self.pending.update(row)


class GenericParser(LineParser):
    """Incremental.  The first HOLD_LINES lines with pairs or a step number are held until the ways
    of writing a step number that are text are known (`StepForms.text`); later lines go straight on.

    A step number written in a form whose numbers keep going back (a sampled answer's `**Step 1:
    ...`, `**Step 2: ...` printed before every step line of the loop) or never move is text, not a
    step: the line is skipped and counted ("step number in text"), so the steps never restart on it."""

    format_name = "generic"

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self.forms = StepForms()
        self.held: list[Entry] | None = []  # None once HOLD_LINES lines were replayed
        self.rows = _Rows(self.builder)
        self.text: set[str] = set()
        self.foreign: set[str] = set()  # second counters' forms (`StepForms.foreign`)
        self._clashes = 0  # StepForms.clashes when `foreign` was last read
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
        has_pairs = ":" in line or "=" in line
        # a line with neither pairs nor a "/" (most of a chatty log) cannot be a step line alone
        m = step_match(line) if has_pairs or "/" in line else None
        bare = bare_step(line, m)
        if not has_pairs and not bare:
            if line.strip():
                self.builder.skip("not a metric line")
            return
        rows, pct = line_rows(line)
        self.percent |= pct
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
            step, form = int(m.group(1)), step_form(line, m) + ("=" if found else "/" if bare else "")
            self.forms.add(form, step)
            if form not in self.forms.example:  # the number and the word before it, for the note
                self.forms.example[form] = line[line.rfind(" ", 0, max(m.start() - 1, 0)) + 1 : m.end(1) + 1].strip()
        if self.held is not None:
            if len(rows) == 1:
                self.held.append((lineno, step, form, found))
            else:
                self.held.extend((lineno, step, form, row) for row in rows)
            if len(self.held) >= HOLD_LINES:
                self.text, self.foreign = self._replay(self.rows)
                self.held = None
            return
        if self.sparse is not None:
            step = None  # the step lines number something else: their pairs are a row's like any line's
        elif step is not None and form not in self.text and self.forms.is_text(form):
            self.text.add(form)  # a form found to be text stays text
        elif step is not None and self.forms.clashes != self._clashes:
            self._clashes = self.forms.clashes
            self.foreign |= self.forms.foreign(self.text)  # a second counter stays one
        if len(rows) == 1:
            self.rows.line(lineno, step, form, found, self.text, self.foreign)
        else:  # several only on a line without a step: a row each, numbered in order
            for row in rows:
                self.rows.line(lineno, step, form, row, self.text, self.foreign)

    def snapshot(self) -> Run:
        if self.held is None:
            return self._run(self.rows)
        rows = _Rows(self._fresh(self.builder))
        self._replay(rows)
        return self._run(rows)

    def _fresh(self, src: RunBuilder) -> RunBuilder:
        """A new builder for this log that starts with `src`'s skipped lines and its split_runs."""
        b = RunBuilder(self.builder.name, self.format_name)
        b.split_runs = src.split_runs
        for reason, n in src.skipped.items():
            b.skip(reason, n)
        return b

    def _replay(self, rows: _Rows) -> tuple[set[str], set[str]]:
        """Read what the held lines say about the counters -- the text forms, the second counters,
        whether the step lines are rarer than the rows (`sparse_counter`: then every line is one
        without a step), where the loop prints its metrics (`leads`) -- and feed the held lines to
        `rows` in order; the file's cut-off last line, if held, is fed as one (RunBuilder.partial),
        the others as whole lines.  Returns (text forms, second counters' forms)."""
        assert self.held is not None
        text = self.forms.text()
        foreign = self.forms.foreign(text)
        self.sparse = sparse_counter(self.held, text)
        stepless = self.sparse is not None
        rows.lead = leads(self.held, text | foreign)
        rows.leading = leading_names(self.held, text | foreign)
        was = rows.b.partial
        try:
            for lineno, step, form, found in self.held:
                rows.b.partial = lineno == self._partial_line
                rows.line(lineno, None if stepless else step, form, found, text, foreign)
        finally:
            rows.b.partial = was
        return text, foreign

    def _run(self, rows: _Rows) -> Run:
        forms = ", ".join(sorted({f"`{self.forms.example[f]}`" for f in rows.text_forms}))
        notes = [Msg("ingest.note.gen_text_steps", n=rows.texts, form=forms)] if rows.texts else []
        if rows.others:
            other = ", ".join(sorted({f"`{self.forms.example[f]}`" for f in rows.other_forms}))
            notes.append(Msg("ingest.note.gen_other_counter", n=rows.others, form=other))
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
    "`Step 12/500`, `step 12`, `[12]`, `Epoch 3/50` or line order (use --map CANON=KEY)",
    _sniff,
    parser=GenericParser,
)
