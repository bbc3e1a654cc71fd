"""Markdown pipe tables of a run's steps: a README, a report or an experiment note that copied the
curves into a table.

    | Step | Loss  | Reward | Entropy | Val Acc |
    |-----:|------:|-------:|--------:|--------:|
    | 0    | 0.221 | 1.000  | 0.321   | 60%     |

A table counts when it has a header, the `---` line under it, at least `MIN_ROWS` rows, a step
column (`step`, `global step`, `iteration`, `iter`, or a first column of increasing numbers: a table
of results has words there) and a column the alias table knows.  Cells are read as written, with
the emphasis a report adds (`**0.301**`, backticks) taken off; `45%` is 0.45 and a note says so; an
empty cell or a dash is "not logged at this step"; a column of words (a "Problems Solved" list) is
set aside and counted.  Column names go through the alias table like any key (`Val Acc` reads as
the eval accuracy).  A file holding several such tables (two runs side by side in one report) gives
one run per table (`--run K`), as a file whose step counter restarts does.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..i18n import Msg
from ..run import Run
from . import aliases
from .assemble import link_runs
from .base import Format, normalise_column
from .builder import RunBuilder
from .notebook import Table
from .values import checked_float

__all__ = ["FORMAT", "md_tables", "read_markdown"]

MIN_ROWS = 3
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")
_STEP_NAMES = frozenset({"step", "steps", "global step", "global_step", "iteration", "iter", "it"})
_NO_VALUE = frozenset({"", "-", "—", "–", "n/a", "na", "none", "no log", "nan?"})
_EMPHASIS = str.maketrans("", "", "*`")


def _cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


def md_tables(text: str) -> list[Table]:
    """Every pipe table with a header and its `---` line; `Table.cell` holds the header's line number."""
    lines = text.splitlines()
    tables: list[Table] = []
    i = 1
    while i < len(lines):
        if "|" in lines[i - 1] and _SEPARATOR.match(lines[i]):
            table = Table(_cells(lines[i - 1]), cell=i)
            j = i + 1
            while j < len(lines) and "|" in lines[j] and lines[j].strip():
                table.rows.append(_cells(lines[j]))
                j += 1
            tables.append(table)
            i = j + 1
        else:
            i += 1
    return tables


def _step_col(table: Table) -> int | None:
    """The step column: one named so, else a first column of increasing numbers (`| 10 | 0.3 |`)."""
    for k, h in enumerate(table.header):
        if " ".join(h.translate(_EMPHASIS).lower().split()) in _STEP_NAMES:
            return k
    first = []
    for cells in table.rows:
        try:
            v, _ = _value(cells[0])
        except ValueError:
            return None
        if v is not None:
            first.append(v)
    return 0 if len(first) >= MIN_ROWS and all(a < b for a, b in zip(first, first[1:])) else None


def _is_log(table: Table) -> bool:
    """A table of a run's steps: enough rows, a step column (a table of results -- one row per
    config or per task -- has words in its first column) and a column the alias table knows."""
    if len(table.rows) < MIN_ROWS or _step_col(table) is None:
        return False
    return any(aliases.lookup(c) is not None or _guessable(c) for c in table.columns)


def _guessable(column: str) -> bool:
    """A plain column name the alias table knows once lower-cased and joined (`Val Acc`, `KL`)."""
    return aliases.lookup("_".join(column.lower().split())) is not None


def _value(cell: str) -> tuple[float | None, bool]:
    """(the cell's number or None for a gap, whether it was a percentage); ValueError for words."""
    c = cell.translate(_EMPHASIS).strip()
    if c.lower() in _NO_VALUE:
        return None, False
    pct = c.endswith("%")
    v = checked_float(c[:-1].strip() if pct else c)
    return (v / 100.0 if pct and isinstance(v, float) else v), pct


def _table_run(table: Table, name: str) -> Run:
    b = RunBuilder(name, "markdown")
    cols = [normalise_column(h.translate(_EMPHASIS)) for h in table.header]
    sc = _step_col(table)
    assert sc is not None  # (_is_log)
    pct = False
    words = 0
    for n, cells in enumerate(table.rows, 1):
        try:
            got, _ = _value(cells[sc]) if sc < len(cells) else (None, False)
        except ValueError:
            got = None
        if got is None or not abs(got) < 2.0**53:
            b.skip("table row without a step")
            continue
        step = int(got) if float(got).is_integer() else got
        row: dict[str, float] = {}
        for k, (col, cell) in enumerate(zip(cols, cells)):
            if k == sc:
                continue
            try:
                v, p = _value(cell)
            except ValueError:
                words += 1
                continue
            if v is not None:
                row[col] = v
                pct |= p
        b.add_parsed(step, row, table.cell + 1 + n, empty_reason="table row without metrics")
    if words:
        b.drop("cells of words, not numbers", words)
    if pct:
        b.note(Msg("ingest.note.gen_percent"))
    b.note(Msg("ingest.note.md_table", line=table.cell, columns=", ".join(table.header)))
    b.meta["md_line"] = table.cell
    return b.build()


def read_markdown(path: Path, name: str) -> Run:
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    logs = [t for t in md_tables(text) if _is_log(t)]
    runs = [r for t in logs if (r := _table_run(t, name)).series or r.extras]
    if not runs:
        return RunBuilder(name, "markdown").build()
    return link_runs(runs, Msg("ingest.note.md_holds", n=len(runs)), lambda r: f"the table at line {r.meta['md_line']}")


def _sniff(text: str) -> float:
    """A pipe table of a run's steps within the first lines read: between the generic fallback and
    every framework's reader (a framework's log that also prints a table is that framework's)."""
    return 0.45 if any(_is_log(t) for t in md_tables(text)) else 0.0


FORMAT = Format(
    "markdown",
    "Markdown pipe tables of a run's steps (a README or report): `| Step | Reward | ... |`, one run per table",
    _sniff,
    reader=read_markdown,
)
