"""CSV and TSV tables: a header row of keys, one row per step.

The W&B history export is the common case: `_step` is the step, columns come in no particular
order, a metric not logged at a step is a blank cell, and `_timestamp`/`_runtime` ride along.
The step column is the first of `_step`, `step`, `global_step`, `train/global_step`,
`trainer/global_step`, `Step`, `iteration` (or a hand-rolled loop's own counter,
`base.LOOP_COUNTERS`: `global_steps`, `train_step`, `grpo_step`, ...); without one the row number is
used and a note says so.
Blank cells are gaps (not NaN); `nan` written out is a NaN.  Text cells in a numeric file (a run
name, a tag) are counted in `Run.skipped`, never read as numbers.

A W&B *panel* export ("Export panel data as CSV") names every column `<run> - <key>`, with a
`<run> - <key>__MIN` / `__MAX` pair beside each: the envelope of the points W&B merged into one
plotted point.  Each run of the panel is read as a run of the file (`--run K`), its keys without
the run's name, the envelope set aside (it is not a metric the run logged).
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path
from typing import TextIO

from ..i18n import Msg
from ..run import Run
from .aliases import lookup
from .assemble import link_runs
from .base import LOOP_COUNTERS, Format, LineParser, normalise_column
from .blocks import Layout, Syntax, numeric, read_blocks
from .pydict import rows_for_writer
from .values import OUT_OF_RANGE, parse_value

__all__ = ["FORMAT", "STEP_COLUMNS", "CsvParser", "write_csv"]

STEP_COLUMNS = (
    "_step",
    "step",
    "global_step",
    "train/global_step",
    "trainer/global_step",
    "Step",
    "iteration",
    *LOOP_COUNTERS,
)
csv.field_size_limit(1 << 24)
_HEAD = 64 * 1024  # bytes of the head looked at for quoted cells that hold a newline
MAX_RECORD_LINES = 64  # lines one record may span (a prompt's); longer is a stray quote
_PANEL = re.compile(r"(.+?) - (.+)")
_ENVELOPE = ("__MIN", "__MAX")
# W&B's own bookkeeping under a panel's run name: its internal step and clocks, not metrics
_PANEL_BOOKKEEPING = ("_step", "_runtime", "_timestamp")


def panel_runs(header: list[str], step_col: int | None) -> list[str]:
    """The run names of a W&B panel export's header, in order; [] for any other table.  A panel
    export names every column but the x axis `<run> - <key>` and carries the __MIN/__MAX envelope."""
    cols = [h for i, h in enumerate(header) if i != step_col]
    found = [_PANEL.fullmatch(h) for h in cols]
    if not cols or not all(found) or not any(h.endswith(_ENVELOPE) for h in cols):
        return []
    return list(dict.fromkeys(m.group(1) for m in found if m))


def _panel_key(column: str, run: str) -> str | None:
    """The key `column` holds for `run` of a panel export, or None (another run's column, the
    envelope, W&B's bookkeeping)."""
    m = _PANEL.fullmatch(column)
    if m is None or m.group(1) != run or column.endswith(_ENVELOPE) or m.group(2) in _PANEL_BOOKKEEPING:
        return None
    return m.group(2)


class CsvParser(LineParser):
    """Row-by-row reader; the first non-blank line is the header.  The delimiter (comma or tab) is
    taken from the header."""

    format_name = "csv"

    def __init__(self, name: str = "", panel_run: int = 0) -> None:
        super().__init__(name)
        self.header: list[str] | None = None
        self.delim = ","
        self.step_col: int | None = None
        self._row_no = -1
        self.panel_run = panel_run  # which run of a W&B panel export this parser reads
        self.panel: list[str] = []  # the export's run names ([] for any other table)
        self._keys: list[str | None] = []  # the key each column holds for this run (None: not ours)
        self._open: list[str] | None = None  # a record whose quoted cell goes on past its line (a prompt)
        self.multiline = True  # join such lines (read_csv turns it off when the file has none)

    def parse(self, line: str, lineno: int) -> None:
        if self._open is not None:
            self._open.append(line)
            if line.count('"') % 2 == 0:
                if len(self._open) <= MAX_RECORD_LINES:
                    return
                # no quoted cell runs this long: a stray quote -- its line is malformed, the rest are rows
                rest, self._open = self._open[1:], None
                self.builder.skip("malformed CSV row")
                for more in rest:
                    self.parse(more, lineno)
                return
            line, self._open = "\n".join(self._open), None
        elif self.multiline and self.header is not None and line.count('"') % 2:
            self._open = [line]  # a quoted cell holding a newline: the record ends on a later line
            return
        if not line.strip():
            return
        if self.header is None:
            self.delim = "\t" if line.count("\t") > line.count(",") else ","
            # a table copied from a notebook's Trainer output: `completions / mean_length`, `Training Loss`
            try:
                names = next(csv.reader([line], delimiter=self.delim))
            except csv.Error:  # a quote left open in the header: its cells as written
                names = line.split(self.delim)
            self.header = [normalise_column(h) for h in names]
            for name in STEP_COLUMNS:
                if name in self.header:
                    self.step_col = self.header.index(name)
                    break
            if self.step_col is None:
                self.builder.note(Msg("note.row_number"))
                self.builder.meta["step_inferred"] = True
            self.panel = panel_runs(self.header, self.step_col)
            if self.panel:
                run = self.panel[min(self.panel_run, len(self.panel) - 1)]
                self._keys = [_panel_key(h, run) for h in self.header]
                self.builder.meta["wandb_panel_run"] = run
                self.builder.note(Msg("ingest.note.wandb_panel", run=run))
            else:
                self._keys = list(self.header)
            return
        try:
            cells = next(csv.reader([line], delimiter=self.delim))
        except csv.Error:
            self.builder.skip("malformed CSV row")
            return
        if len(cells) != len(self.header):
            self.builder.skip("CSV row with a wrong number of cells")
            return
        self._row_no += 1
        if self.step_col is None:
            step: int | str = self._row_no
        else:
            value = parse_value(cells[self.step_col])
            if value is None or value != value or (value in (math.inf, -math.inf) and value is not OUT_OF_RANGE):
                self.builder.skip("CSV row without a step")
                return
            step = cells[self.step_col]  # as written: the builder checks its range
        row: dict[str, float] = {}
        text = 0
        for i, (key, cell) in enumerate(zip(self._keys, cells)):
            if i == self.step_col or key is None or not cell.strip():
                continue
            v = parse_value(cell)
            if v is None:
                text += 1
            else:
                row[key] = v
        if self.panel and not row and not text:
            return  # a step only the panel's other runs logged: theirs, not a loss
        self.builder.add_parsed(
            step, row, lineno, dropped=text, dropped_reason="non-numeric cells", empty_reason="CSV row without metrics"
        )

    def finish(self) -> Run:
        if self._open is not None:
            self._open = None
            self.builder.skip("CSV row cut inside a quoted cell")
        return self.builder.build(release=True)


def _learn(raw: bytes, parser: LineParser) -> tuple[Layout, dict[str, float], float] | None:
    """A row of plain numbers, no blank cell, under a header with a step column: its layout, and
    the row CsvParser makes of it."""
    assert isinstance(parser, CsvParser)
    if parser.header is None or parser.step_col is None or parser.panel or b'"' in raw or b"\r" in raw:
        return None
    cells = raw.split(parser.delim.encode())
    if len(cells) != len(parser.header) or not all(numeric(c) for c in cells):
        return None
    try:
        vals = [float(c) for c in cells]
    except ValueError:
        return None
    if any(v - v != 0 for v in vals):
        return None
    j = parser.step_col
    keys = [h for i, h in enumerate(parser.header) if i != j]
    row = {h: v for i, (h, v) in enumerate(zip(parser.header, vals)) if i != j}
    return Layout(keys, j, [i for i in range(len(cells)) if i != j], len(cells)), row, vals[j]


def read_csv(path: Path, name: str) -> Run:
    """A CSV/TSV file: the header by CsvParser, then rows of plain numbers in blocks (blocks.py);
    a row with a blank cell, a text cell or quotes goes to CsvParser; a file whose quoted cells hold
    newlines is read record by record (`_read`).  A W&B panel export holding several runs is read
    once per run, the last returned with the others in `file_runs`."""
    parser = CsvParser(name)
    with open(path, "rb") as f:
        first = b""
        for raw in f:
            if raw.strip():
                first = raw
                break
    delim = b"\t" if first.count(b"\t") > first.count(b",") else b","
    multiline = _multiline(path)
    run = _read(path, parser, delim, multiline)
    if len(parser.panel) < 2:
        return run
    runs = [run] + [_read(path, CsvParser(name, i), delim, multiline) for i in range(1, len(parser.panel))]
    for r, label in zip(runs, parser.panel):
        r.name = f"{name}:{label}" if name else label
    return link_runs(runs, Msg("ingest.note.panel_holds", n=len(runs)), lambda r: r.meta.get("wandb_panel_run", r.name))


def _multiline(path: Path) -> bool:
    """Does a quoted cell hold a newline (a prompt logged beside the metrics) in the file's head?  Its
    records are then not its lines: read as records, the head's rows have the header's cells.  Then
    CsvParser reads the file record by record."""
    with open(path, "rb") as f:
        head = f.read(_HEAD).decode("utf-8", errors="replace")
    lines = head.split("\n")[:-1]
    if '"' not in head or not any(line.count('"') % 2 for line in lines):
        return False
    try:
        rows = list(csv.reader(_records(lines)[:-1], delimiter="\t" if "\t" in lines[0] else ","))
    except csv.Error:
        return False
    return len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows)


def _read(path: Path, parser: CsvParser, delim: bytes, multiline: bool) -> Run:
    """The file through `parser`: record by record when a quoted cell holds a newline (`_multiline`),
    else its plain rows in blocks (blocks.py) and the others through the parser."""
    if not multiline:
        parser.multiline = False  # the block path hands the parser only some lines: no record spans them
        return read_blocks(path, parser, _syntax(delim), head=1)[0]
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        for line in f:
            if line.endswith("\n"):
                parser.feed(line)
            else:
                parser.feed_last(line)
    return parser.finish()


def _records(lines: list[str]) -> list[str]:
    """`lines` joined where a quoted cell holds a newline (an odd number of quotes opens a record)."""
    out: list[str] = []
    open_ = False
    for line in lines:
        if open_:
            out[-1] += "\n" + line
        else:
            out.append(line)
        open_ ^= line.count('"') % 2 == 1
    return out


def _syntax(delim: bytes) -> Syntax:
    """Cells of plain numbers between `delim`s (a TSV keeps its tabs in the skeleton)."""
    return Syntax(
        bytes.maketrans(delim, b" "),
        bytes(c for c in range(256) if c not in b"0123456789.+-eE \n" + delim),
        b"0123456789.+-eE" + (b"" if delim == b"\t" else b" \t"),
        _learn,
    )


def _cell(v: float) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def write_csv(run: Run, out: TextIO) -> None:
    """A W&B-style history export: `_step` plus one column per metric (the vitals under their
    canonical names, the other keys the run kept as they were logged), columns sorted by name as
    W&B does not keep order, blank where a metric was not logged."""
    rows = list(rows_for_writer(run, {n: (n, None) for n in run.series}))
    names = sorted({k for _, row in rows for k in row})
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["_runtime", *names[: len(names) // 2], "_step", *names[len(names) // 2 :]])
    for i, (step, row) in enumerate(rows):
        vals = [_cell(row[n]) if n in row else "" for n in names]
        w.writerow([f"{10.0 * i:.1f}", *vals[: len(names) // 2], step, *vals[len(names) // 2 :]])


def _header_only(line: str) -> float:
    """A table's header with no rows yet (an export stopped before the first row): recognised when
    it names a step column or a metric we know, so the reader can say "no metric value found"."""
    delim = "\t" if line.count("\t") > line.count(",") else ","
    cells = [c.strip().strip('"') for c in line.split(delim)]
    if len(cells) < 2 or any(not c or parse_value(c) is not None for c in cells):
        return 0.0
    if any(c in STEP_COLUMNS for c in cells) or any(lookup(c) is not None for c in cells):
        return 0.4
    return 0.0


def _sniff(text: str) -> float:
    lines = [l for l in _records(text.splitlines()) if l.strip()][:20]
    if len(lines) == 1:
        return _header_only(lines[0])
    if len(lines) < 2:
        return 0.0
    delim = "\t" if lines[0].count("\t") > lines[0].count(",") else ","
    if lines[0].count(delim) < 1 or lines[0].lstrip().startswith(("{", "[")):
        return 0.0
    # the header's cells as the reader splits them: a quoted name may hold the delimiter (W&B's
    # binned metrics, "…fraction_of_prompts_in_(0.5, 1.0)"); a row holds at least its separators
    try:
        header = next(csv.reader([lines[0]], delimiter=delim))
    except csv.Error:  # (a name past the csv module's field limit, a stray NUL: not a table we read)
        return 0.0
    n = len(header) - 1
    rows = lines[1:-1] or lines[1:]  # the last sniffed line may be cut by the window
    same = sum(1 for l in rows if l.count(delim) >= n)
    header = [h.strip().strip('"') for h in header]
    numeric = sum(1 for c in lines[1].split(delim) if parse_value(c) is not None)
    if same < len(rows) or numeric == 0:
        return 0.0
    return 0.8 if any(h in STEP_COLUMNS for h in header) else 0.5


FORMAT = Format(
    "csv",
    "CSV/TSV table with a header (W&B history export: `_step`, blank cells, any column order; "
    "a W&B panel export: `<run> - <key>` columns, one run each)",
    _sniff,
    parser=CsvParser,
    reader=read_csv,
    writer=write_csv,
)
