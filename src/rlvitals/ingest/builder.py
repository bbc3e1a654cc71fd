"""Collect (step, key, value) records from any reader and build a `Run`.

Every reader feeds a `RunBuilder`; the builder owns the rules real logs need:

- **Restarts.** A step lower than the previous row's starts a new segment.  A segment that starts
  at step <= 1 begins a new *run* (several runs concatenated in one file): `build()` returns the
  last run, with the others in `Run.file_runs`.  A segment that starts later (a resume from a
  checkpoint) stays in its run, and on steps logged more than once the later write wins, per key:
  a resumed run repeats steps N+1… and its values are the ones that count.  A counter that goes
  back by a few steps on more than a tenth of the rows is two writers interleaved in one file
  (`assemble.interleaved`): one run, said in a note.
- **Duplicates.** The same step written again (several ranks printing the same line, or two
  lines of different keys for one step, as slime does) merges; later values win, and a vital's
  step rewritten with other numbers is counted in a note (`assemble.rewritten`).
- **Keys.** Framework keys are kept as logged until `build()`, which maps them through
  `aliases.resolve` onto canonical names (one source per canonical metric, the preferred one)
  and keeps every other numeric key in `Run.extras`.
- **No silent loss.** `skip(reason)` counts lines that were not used; the count lands in `Run.skipped`;
  `drop(reason)` counts single values dropped from lines that were kept (`Run.dropped`).
- **Ranges.** This is the one place a step and a value are checked (`values.parse_step`,
  `values.steps_ok`): a row whose step is outside 0 ≤ step < 2**53 or not an integer is skipped
  ("step out of range", "step not an integer"); a value too large for a float64
  (`values.OUT_OF_RANGE`) is dropped ("value out of range"), and its line skipped when nothing else
  was left.  Readers hand over the step as they found it (text, int or float), never `int()` it.
- **A cut-off last line.** A reader that knows its last line had no newline sets `partial` before
  feeding it: a row with fewer keys than the row before it, or any skip, then counts as
  "truncated last line" (a trainer still writing, a copy cut short) instead of entering the run.

Memory is O(values kept): typed arrays, no per-row dicts.  The build side (columns joined into
series, segments grouped into runs, runs linked) lives in `assemble`.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Mapping

import numpy as np

from ..i18n import Listing, Msg
from ..run import Run, Segment
from . import aliases, components
from .assemble import (
    LISTED_RUNS,
    MAX_RUNS,
    NEW_RUN_MAX_STEP,
    Column,
    Rewrites,
    gather,
    group_runs,
    interleaved,
    join_columns,
    link_runs,
    release_heap,
    rewritten,
    split_columns,
)
from .values import STEP_LIMIT, OutOfRange, parse_step, steps_ok

# (link_runs, release_heap and the run limits live in assemble; importable from here as before)
__all__ = ["LISTED_RUNS", "MAX_RUNS", "NEW_RUN_MAX_STEP", "RunBuilder", "link_runs", "release_heap"]

_FLOATS = {float}
COMPACT_ROWS = 1 << 18  # look for overridden duplicates every this many rows at least


class RunBuilder:
    """Accumulates records; `build()` returns the Run.  Cheap to `build()` repeatedly (watch)."""

    def __init__(self, name: str, format: str) -> None:
        self.name = name
        self.format = format
        self.skipped: Counter[str] = Counter()
        self.dropped: Counter[str] = Counter()
        self.notes: list[Msg] = []
        self.meta: dict[str, object] = {}
        self._cols: dict[str, Column] = {}
        self._row = 0  # rows added so far
        self._last_step: int | None = None
        self._segments: list[list[int]] = []  # [first_step, last_step, first_line, rows, first_row]
        self._last_keys: frozenset[str] | dict[str, float] | None = None
        self.partial = False  # the next line fed is a last line without a newline
        # False for readers that feed rows out of time order (slime maps train lines onto rollout
        # ids afterwards; TensorBoard reads one event file after another): restarts are then no
        # new runs
        self.split_runs = True
        self._pend_keys: tuple[str, ...] | None = None  # rows held by add_row (see there)
        self._pend_steps: list[int] = []
        self._pend_vals: list[tuple[float, ...]] = []
        self._pend_lines: list[int] = []
        self._compact_at = COMPACT_ROWS  # rows at which to look for duplicates to drop

    # -- feeding -------------------------------------------------------------------------------
    def _begin_row(self, step: int, lineno: int) -> int:
        if self._last_step is None or step < self._last_step:
            self._segments.append([step, step, lineno, 0, self._row + 1])
        seg = self._segments[-1]
        seg[1] = max(seg[1], step)
        seg[3] += 1
        self._last_step = step
        self._row += 1
        return self._row

    def add_row(self, step: int | float | str, row: dict[str, float], lineno: int = 0) -> bool:
        """One logged row: all keys share `step`.  Empty rows are ignored (caller counts a skip).
        Returns whether the row was kept (a step out of range, or every value, is counted instead).

        Consecutive rows with the same keys (in the same order) are held and stored together by
        `add_block` (verl's 60-key lines would otherwise cost 60 appends each); the result is the
        same as storing them one by one."""
        if not row:
            return False
        if type(step) is str and len(step) < 16 and step.isdecimal():
            step = int(step)  # the common case: digits as printed (< 10**15 < 2**53)
        elif type(step) is not int or not 0 <= step < STEP_LIMIT:
            got = parse_step(step)
            if isinstance(got, str):
                self.skip(got)
                return False
            step = got
        # One C-level pass decides the common case: a finite float sum means plain numbers.  A
        # non-number raises, a huge int overflows, and OUT_OF_RANGE (an inf) makes the sum not finite:
        # only then (and for rows holding a logged NaN or inf) is each value looked at.
        try:
            total = sum(row.values())
            plain = type(total) is float and total - total == 0
        except (TypeError, OverflowError):
            plain = False
        if not plain and set(map(type, row.values())) != _FLOATS:
            row = self.clean_row(row)
            if not row:
                return False
        if self.partial and self._last_keys is not None and not set(row) >= set(self._last_keys):
            self.skip("truncated last line")
            return False
        self._last_keys = row
        keys = tuple(row)
        if keys != self._pend_keys or len(self._pend_steps) >= 2048:  # bounded: Python floats are big
            self._flush()
            self._pend_keys = keys
        self._pend_steps.append(step)
        self._pend_vals.append(tuple(row.values()))
        self._pend_lines.append(lineno)
        return True

    def clean_row(self, row: Mapping[str, object]) -> dict[str, float]:
        """`row` with every value a float: numpy and int values converted; values beyond float64
        (`OUT_OF_RANGE`, a huge int) and non-numbers dropped and counted (the line is counted as
        skipped instead when nothing is left)."""
        out: dict[str, float] = {}
        bad: list[str] = []
        for key, v in row.items():
            if isinstance(v, OutOfRange):
                bad.append("value out of range")
            elif isinstance(v, float):
                out[key] = float(v)
            elif isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                try:
                    out[key] = float(v)
                except OverflowError:
                    bad.append("value out of range")
            else:
                bad.append("non-numeric values")
        if not out and bad:
            self.skip(bad[0])
        else:
            for reason in bad:
                self.drop(reason)
        return out

    def _flush(self) -> None:
        steps, keys = self._pend_steps, self._pend_keys
        if not steps or keys is None:
            return
        vals, lines = self._pend_vals, self._pend_lines
        self._pend_steps, self._pend_vals, self._pend_lines = [], [], []
        if len(steps) >= 8:
            table = np.array(vals, dtype=np.float64)
            self.add_block(
                np.array(steps, dtype=np.int64),
                {k: table[:, j] for j, k in enumerate(keys)},
                lines=np.array(lines, dtype=np.int64),
            )
            return
        cols = self._cols
        for step, values, lineno in zip(steps, vals, lines):
            order = self._begin_row(step, lineno)
            for key, value in zip(keys, values):
                col = cols.get(key)
                if col is None:
                    col = cols[key] = Column()
                col.steps.append(step)
                col.values.append(value)
                col.order.append(order)
        if self._row >= self._compact_at:
            self._compact()

    def _compact(self) -> None:
        """Memory by distinct steps: when the rows far outnumber the steps they span (a log that
        repeats one step a million times), drop every value a later write of the same step in the
        same segment overrides.  Nothing `build()` returns changes (later wins within a segment is
        what it keeps anyway); a log of distinct steps never gets here (rows <= span)."""
        span = sum(seg[1] - seg[0] + 1 for seg in self._segments)
        if self._row <= 2 * span:
            self._compact_at = self._row + max(COMPACT_ROWS, self._row)
            return
        seg_first = np.array([seg[4] for seg in self._segments], dtype=np.int64)
        kept_max = 0
        for col in self._cols.values():
            steps, values, order = gather(col)
            if steps.size < 2:
                continue
            seg = np.searchsorted(seg_first, order, side="right")
            idx = np.lexsort((order, steps, seg))
            s_, k_ = steps[idx], seg[idx]
            last = np.ones(idx.size, dtype=bool)
            last[:-1] = (s_[1:] != s_[:-1]) | (k_[1:] != k_[:-1])
            keep = np.sort(idx[last])  # back in row order
            col.pieces = [(steps[keep], values[keep], order[keep])]
            col.steps, col.values, col.order = array("q"), array("d"), array("q")
            kept_max = max(kept_max, int(keep.size))
        self._compact_at = self._row + max(COMPACT_ROWS, 2 * kept_max)

    def add_block(
        self,
        steps: np.ndarray,
        columns: dict[str, np.ndarray],
        first_line: int = 0,
        present: dict[str, np.ndarray] | None = None,
        lines: np.ndarray | None = None,
    ) -> None:
        """Many rows at once (fast readers).  Every value is kept (a logged NaN is evidence) unless
        `present[key]` is given: a bool mask of the rows where the key was actually logged.
        `lines` (1-based line number of each row) makes segment starts exact; without it rows are
        assumed to sit on consecutive lines from `first_line`."""
        steps = np.asarray(steps)
        if steps.size == 0:
            return
        ok = steps_ok(steps)
        if not ok.all():
            self.skip("step out of range", int(steps.size - ok.sum()))
            steps = steps[ok]
            columns = {k: np.asarray(v)[ok] for k, v in columns.items()}
            if present is not None:
                present = {k: np.asarray(v)[ok] for k, v in present.items()}
            lines = (np.asarray(lines) if lines is not None else first_line + np.arange(ok.size))[ok]
            if steps.size == 0:
                return
        steps = steps.astype(np.int64, copy=False)
        if self._pend_steps:
            self._flush()
        if present is None:
            self._last_keys = frozenset(columns)
        else:
            self._last_keys = frozenset(k for k in columns if k not in present or bool(present[k][-1]))
        line_of = (lambda i: first_line + i) if lines is None else (lambda i: int(lines[i]))
        # Segment bookkeeping on the block's step sequence, vectorised.
        prev = self._last_step
        back = np.flatnonzero(np.diff(steps) < 0) + 1
        starts = [0] + back.tolist()
        if prev is not None and steps[0] >= prev and self._segments:
            seg = self._segments[-1]
            end = starts[1] if len(starts) > 1 else steps.size
            seg[1] = max(seg[1], int(steps[:end].max()))
            seg[3] += end
            starts = starts[1:]
        bounds = starts + [steps.size]
        first = self._row + 1
        for a, b in zip(bounds[:-1], bounds[1:]):
            self._segments.append([int(steps[a]), int(steps[a:b].max()), line_of(a), b - a, first + a])
        self._last_step = int(steps[-1])
        self._row += int(steps.size)
        for key, vals in columns.items():
            vals = np.ascontiguousarray(vals, dtype=np.float64)
            mask = None if present is None else present.get(key)
            col = self._cols.get(key)
            if col is None:
                col = self._cols[key] = Column()
            if mask is None or bool(np.all(mask)):
                col.pieces.append((steps, vals, first))  # steps shared by the block's keys
            else:
                keep = np.asarray(mask, dtype=bool)
                order = np.arange(first, first + steps.size, dtype=np.int64)
                col.pieces.append((steps[keep], vals[keep], order[keep]))
        if self._row >= self._compact_at:
            self._compact()

    def add_parsed(
        self,
        step: int | float | str,
        row: dict[str, float],
        lineno: int,
        *,
        dropped: int = 0,
        dropped_reason: str = "non-numeric values",
        empty_reason: str = "line without metrics",
    ) -> None:
        """A metric line a reader has parsed: keep the row and count its unusable values as
        dropped, or count the line as skipped when nothing numeric was left."""
        if row:
            if dropped:
                self.drop(dropped_reason, dropped)
            self.add_row(step, row, lineno)
        else:
            self.skip(empty_reason)

    def skip(self, reason: str, n: int = 1) -> None:
        if self.partial:
            reason = "truncated last line"
        self.skipped[reason] += n

    def drop(self, reason: str, n: int = 1) -> None:
        """Count values dropped from a line that is kept (the line is not a skipped line)."""
        self.dropped[reason] += n

    def note(self, text: Msg) -> None:
        """Say a choice the reader made, once (a `Msg`: the report words it in its language)."""
        if text not in self.notes:
            self.notes.append(text)

    @property
    def rows(self) -> int:
        return self._row + len(self._pend_steps)

    @property
    def keys(self) -> list[str]:
        self._flush()
        return list(self._cols)

    # -- building (the columns become series and runs in `assemble`) --------------------------
    def run_groups(self) -> list[list[list[int]]]:
        """The segments grouped into runs: a segment starting at step <= NEW_RUN_MAX_STEP begins a
        new run.  More than MAX_RUNS restarts is no concatenation of runs but a step counter that
        does not count (kept as one run, "later wins", and said in a note)."""
        return group_runs(self._segments, self.split_runs)

    def _make_run(
        self, raw: dict[str, tuple[np.ndarray, np.ndarray]], segs: list[list[int]], rewrites: Rewrites
    ) -> Run:
        series, extras, unrecognized, notes = aliases.resolve(raw)
        if (said := rewritten(series, rewrites)) is not None:
            notes.append(said)
        comps, kinds, evals, comp_notes = components.split(raw, series, extras)
        if "reward" not in series and (made := components.reward_from_terms(comps)) is not None:
            series["reward"] = made
            comp_notes.append(Msg("note.alias", canon="reward", key=made.source, note=made.note))
        run = Run(name=self.name, format=self.format)
        run.series = series
        run.extras = extras
        run.unrecognized = unrecognized
        run.skipped = dict(self.skipped)
        run.dropped = dict(self.dropped)
        run.segments = [Segment(a, b, line, rows) for a, b, line, rows, _ in segs]
        run.notes = [*self.notes, *notes, *comp_notes]
        run.meta = dict(self.meta)
        run.components = comps
        run.component_kinds = kinds
        run.evals = evals
        components.set_goal(run)
        if len(run.segments) > 1:
            # the first LISTED_RUNS restarts are named (the note stays short with thousands of them)
            shown: list[object] = [
                Msg("note.line_step", line=s.first_line, step=s.first_step) for s in run.segments[1 : LISTED_RUNS + 1]
            ]
            if len(run.segments) - 1 > LISTED_RUNS:
                shown.append(Msg("note.segments_more", n=len(run.segments) - 1 - LISTED_RUNS))
            where = Listing(tuple(shown), "note.comma_sep")
            run.notes.append(Msg("note.segments", n=len(run.segments), where=where))
        return run

    def build(self, release: bool = False) -> Run:
        """The run (the last one when the file holds several: see `Run.file_runs`).  `release`:
        this is the last build (a whole file read), the builder's blocks may go while it runs."""
        self._flush()
        groups = self.run_groups()
        if len(groups) <= 1:
            rewrites: Rewrites = {}
            raw = join_columns(self._cols, release, rewrites)
            run = self._make_run(raw, groups[0] if groups else [], rewrites)
            if (
                len(self._segments) > 1
                and len(groups) == 1
                and sum(s[0] <= NEW_RUN_MAX_STEP for s in self._segments) > MAX_RUNS
            ):
                run.notes.append(Msg("ingest.note.not_split", max=NEW_RUN_MAX_STEP, runs=MAX_RUNS))
            back = interleaved(self._segments) if self.split_runs else 0
            if back:
                run.notes.append(Msg("ingest.note.interleaved", back=back, rows=self._row))
                run.meta["interleaved"] = True
            return run
        parts = split_columns(self._cols, groups, self._row)  # one run's series at a time
        runs = [self._make_run(part, segs, rw) for (part, rw), segs in zip(parts, groups, strict=True)]
        entries = [
            Msg("note.run_rows", i=i + 1, first=g[0][0], last=max(s[1] for s in g), rows=sum(s[3] for s in g))
            for i, g in enumerate(groups)
        ]
        return link_runs(
            runs, Msg("note.file_holds", n=len(runs), max=NEW_RUN_MAX_STEP), entry=lambda i, _r: entries[i]
        )
