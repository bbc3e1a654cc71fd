"""Long ("tidy") tables: one row per logged value -- a step, the metric's name, its value.

The shape a metric history takes when it leaves a tracker as a data frame: W&B's `scan_history`
melted to rows, tbparse's scalars (`step,tag,value`), MLflow's metric history (`key,value,
timestamp,step`), pandas' `melt` (`variable,value`).  The reader turns it back into one row per step:

- the name column is the first of `NAME_COLUMNS`, the value column the first of `VALUE_COLUMNS`,
  the step the first of the wide reader's `STEP_COLUMNS`; a time column (`TIME_COLUMNS`) orders two
  writes of one step (the later wins, as everywhere), else the row order does;
- run columns (`RUN_COLUMNS`: `run_id`, `run_name`, `dir_name`, ...) split the file into its runs,
  in the order they first appear, the last read by default (`--run K`), each named by its run name;
- every other column (a project, a state, W&B's `history_line_count`, a per-metric index) describes
  the row, not the run's training: it is not read as a metric;
- a row whose value is text, blank or whose step is not a number is counted in `Run.skipped`,
  never read.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..i18n import Msg
from ..run import Run
from .assemble import link_runs
from .base import Format, normalise_column
from .csvfile import STEP_COLUMNS
from .keyed import keyed_builder
from .values import OUT_OF_RANGE, parse_value

__all__ = ["FORMAT", "NAME_COLUMNS", "RUN_COLUMNS", "VALUE_COLUMNS", "read_long_csv"]

NAME_COLUMNS = ("metric", "metric_name", "tag", "key", "name", "series", "variable")
VALUE_COLUMNS = ("value", "metric_value", "val")
TIME_COLUMNS = ("timestamp", "_timestamp", "wall_time", "time", "runtime", "_runtime")
# a run's id and its name (a file of several runs); the name labels it when there is one
RUN_COLUMNS = ("run_id", "run_uuid", "run", "run_name", "dir_name")
_LABELS = ("run_name", "run", "dir_name", "run_id", "run_uuid")


class _Layout:
    """Where a long table keeps each part of a row, from its header; `ok` when it is one."""

    def __init__(self, header: list[str]) -> None:
        low = [h.strip().lower() for h in header]
        self.width = len(header)
        self.name = _first(low, NAME_COLUMNS)
        self.value = _first(low, VALUE_COLUMNS)
        self.step = _first([h.strip() for h in header], STEP_COLUMNS)
        self.time = _first(low, TIME_COLUMNS)
        self.runs = [low.index(c) for c in RUN_COLUMNS if c in low]
        self.label = _first(low, _LABELS)

    @property
    def ok(self) -> bool:
        return None not in (self.name, self.value, self.step)


def _first(header: list[str], names: tuple[str, ...]) -> int | None:
    for n in names:
        if n in header:
            return header.index(n)
    return None


Columns = dict[str, tuple[list[float], list[float], list[float]]]  # key -> (times, values, steps)


class _Runs:
    """Each run's records, key by key, as lists until the file is read; runs in the order found."""

    def __init__(self) -> None:
        self.order: list[tuple[str, ...]] = []
        self.labels: dict[tuple[str, ...], str] = {}
        self.cols: dict[tuple[str, ...], Columns] = {}

    def of(self, run: tuple[str, ...], label: str) -> Columns:
        keys = self.cols.get(run)
        if keys is None:
            self.order.append(run)
            self.labels[run] = label
            keys = self.cols[run] = {}
        return keys


def read_long_csv(path: Path, name: str) -> Run:
    """A long table: its rows gathered per run and key, each run's keys joined on their steps."""
    skipped: dict[str, int] = {}

    def skip(reason: str) -> None:
        skipped[reason] = skipped.get(reason, 0) + 1

    found = _Runs()
    keys: dict[str, str] = {}  # each name as written -> its key
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        head = ""
        for head in f:
            if head.strip():
                break
        delim = "\t" if head.count("\t") > head.count(",") else ","
        try:
            lay = _Layout(next(csv.reader([head], delimiter=delim)))
        except (csv.Error, StopIteration):
            lay = None
        if lay is None or not lay.ok:
            raise InputError.of("ingest.err.long_header", path=path)
        assert lay.name is not None and lay.value is not None and lay.step is not None
        width, si, vi, ni, ti, ri, li = lay.width, lay.step, lay.value, lay.name, lay.time, lay.runs, lay.label
        run: tuple[str, ...] | None = None
        cols: Columns = {}
        for i, cells in enumerate(csv.reader(f, delimiter=delim)):
            if len(cells) != width:
                if any(c.strip() for c in cells):
                    skip("CSV row with a wrong number of cells")
                continue
            step, value = parse_value(cells[si]), parse_value(cells[vi])
            raw = cells[ni]
            key = keys.get(raw)
            if key is None:
                key = keys[raw] = normalise_column(raw)
            if step is None or not math.isfinite(step):
                if any(c.strip() for c in cells):
                    skip("CSV row without a step")
            elif not key:
                skip("long-table row without a metric name")
            elif value is None:
                skip("long-table row without a numeric value")
            elif value is OUT_OF_RANGE:
                skip("value out of range")
            else:
                when = parse_value(cells[ti]) if ti is not None else None
                this = tuple([cells[j] for j in ri])
                if this != run:
                    run, cols = this, found.of(this, cells[li] if li is not None else "")
                col = cols.get(key)
                if col is None:
                    col = cols[key] = ([], [], [])
                col[0].append(when if when is not None and when - when == 0 else float(i))
                col[1].append(value)
                col[2].append(step)
    if not found.order:
        found.order.append(())
        found.cols[()] = {}
    runs = [_build(found, r, name, skipped if r == found.order[-1] else {}) for r in found.order]
    if len(runs) < 2:
        return runs[0]
    for i, (r, which) in enumerate(zip(runs, found.order)):
        label = found.labels[which] or f"run {i + 1}"
        r.name = f"{name}:{label}" if name else label
    return link_runs(runs, Msg("ingest.note.long_holds", n=len(runs)), lambda r: r.name.rsplit(":", 1)[-1])


def _build(found: _Runs, run: tuple[str, ...], name: str, skipped: dict[str, int]) -> Run:
    cols = {k: (np.array(t), np.array(v), np.array(s)) for k, (t, v, s) in found.cols[run].items()}
    b = keyed_builder(name, "csv-long", cols, skipped)
    b.note(Msg("ingest.note.long_table", n=len(cols), steps=b.rows))
    if found.labels.get(run):
        b.meta["long_table_run"] = found.labels[run]
    return b.build()


def _sniff(text: str) -> float:
    """A header naming a metric, a value and a step column, over rows whose metric cell is a name."""
    lines = [l for l in text.splitlines() if l.strip()][:3]
    if len(lines) < 2:
        return 0.0
    delim = "\t" if lines[0].count("\t") > lines[0].count(",") else ","
    try:
        header, row = list(csv.reader(lines[:2], delimiter=delim))
    except (csv.Error, ValueError):
        return 0.0
    lay = _Layout(header)
    if not lay.ok or len(row) != lay.width:
        return 0.0
    assert lay.name is not None and lay.value is not None
    name, value = row[lay.name].strip(), row[lay.value].strip()
    return 0.9 if name and parse_value(name) is None and parse_value(value) is not None else 0.0


FORMAT = Format(
    "csv-long",
    "long CSV/TSV table, one row per logged value: a step, the metric's name and its value "
    "(a melted W&B history, tbparse's `step,tag,value`, MLflow's `key,value,timestamp,step`; "
    "`run_id` / `run_name` columns: one run each)",
    _sniff,
    reader=read_long_csv,
)
