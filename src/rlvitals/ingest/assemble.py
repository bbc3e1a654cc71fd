"""From what a `RunBuilder` stored to series and runs: the build side of `builder`.

- **Columns.** A `Column` holds one key's values as numpy blocks plus rows appended one by one,
  each value tagged with its global row index so that "later wins" survives sorting.
- **Series.** `series` joins a column into sorted (steps, values), the last write of a step winning;
  `gather` keeps the rows in the order they were fed (to cut them into runs).
- **Runs.** `group_runs` groups the segments into runs (a restart at step <= NEW_RUN_MAX_STEP),
  `join_columns` / `split_columns` give each run its series, `link_runs` makes runs read from one
  place know each other.
- **Memory.** `release_heap` hands freed pages back between the columns of a last build.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from array import array
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from ..i18n import Listing, Msg
from ..run import Run, Series

# a segment whose first step is at most this begins a new run (not a resume)
NEW_RUN_MAX_STEP = 1
MAX_RUNS = 100
LISTED_RUNS = 12  # runs named in the note at most (the note stays short with 10,000 runs)

__all__ = [
    "LISTED_RUNS",
    "MAX_RUNS",
    "NEW_RUN_MAX_STEP",
    "Column",
    "Rewrites",
    "gather",
    "group_runs",
    "interleaved",
    "join_columns",
    "link_runs",
    "parts",
    "release_heap",
    "rewritten",
    "series",
    "split_columns",
]

# step arrays already joined during one build, by the ids of the blocks they were joined from
SharedSteps = dict[tuple[int, ...] | None, tuple[np.ndarray, bool]]
Raw = dict[str, tuple[np.ndarray, np.ndarray]]
# key -> (steps written again with another value, the first such step)
Rewrites = dict[str, tuple[int, int]]


class Column:
    """One key's values: blocks stored as numpy arrays (`pieces`) plus rows appended one by one.

    Every value carries its global row index (`order`), so "later wins" survives sorting; a block's
    rows are consecutive, so a block stores only its first index unless a mask thinned it.
    """

    __slots__ = ("order", "pieces", "steps", "values")

    def __init__(self) -> None:
        self.pieces: list[tuple[np.ndarray, np.ndarray, int | np.ndarray]] = []
        self.steps = array("q")
        self.values = array("d")
        self.order = array("q")


def parts(col: Column) -> list[tuple[np.ndarray, np.ndarray, int | np.ndarray]]:
    """The (steps, values, order) blocks of one column: the sealed pieces, then the open buffer."""
    out = list(col.pieces)
    if len(col.steps):
        out.append(
            (
                np.frombuffer(col.steps, dtype=np.int64),
                np.frombuffer(col.values, dtype=np.float64),
                np.frombuffer(col.order, dtype=np.int64),
            )
        )
    return out


def series(
    col: Column,
    shared: SharedSteps | None = None,
    release: bool = False,
    key: str = "",
    rewrites: Rewrites | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(steps, values) of one column, sorted, later writes winning.  `shared` caches the step
    arrays of blocks that several keys share (one array and one order check for all of them).
    `release` lets the column's blocks go as soon as they are joined (a last build: memory then
    peaks at the blocks plus one column, not at twice the values).  `rewrites` collects the steps
    of `key` written again with another value (`_keep_last`)."""
    blocks = parts(col)
    open_rows = len(col.steps)
    if release:
        col.pieces = []
        col.steps, col.values, col.order = array("q"), array("d"), array("q")
    if not blocks:
        return np.empty(0, np.int64), np.empty(0)
    ident = tuple(id(p[0]) for p in blocks) if not open_rows else None
    if shared is not None and ident in shared:
        steps, increasing = shared[ident]
    else:
        steps = np.concatenate([p[0] for p in blocks])  # fresh arrays: the Run owns them
        increasing = steps.size < 2 or bool(np.all(steps[1:] > steps[:-1]))
        if shared is not None and ident is not None:
            # (ids of blocks that all lived when build began: a released one's id cannot come back
            # as the id of another key's block)
            shared[ident] = (steps, increasing)
    values = np.concatenate([p[1] for p in blocks])
    if not increasing:
        order = np.concatenate(
            [np.arange(o, o + p.size, dtype=np.int64) if isinstance(o, int) else o for p, _, o in blocks]
        )
        idx = np.lexsort((order, steps))
        steps, values = _keep_last(steps[idx], values[idx], key, rewrites)
    return steps, values


def rewritten(series: Mapping[str, Series], rewrites: Rewrites) -> Msg | None:
    """The note for a vital's steps logged again with other numbers (several updates a step, two
    writers, a restart at the same step, a resume): the later write counts, and the note says how
    many steps it replaced.  A clock's or a counter's rewrites among the other keys are no loss
    worth a note."""
    hits = [rewrites[s.source] for s in series.values() if s.source in rewrites]
    if not hits:
        return None
    return Msg("ingest.note.rewritten", n=max(h[0] for h in hits), step=min(h[1] for h in hits))


def gather(col: Column) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps, values, row order) of one column in the order rows were fed (for splitting runs)."""
    blocks = parts(col)
    if not blocks:
        return np.empty(0, np.int64), np.empty(0), np.empty(0, np.int64)
    steps = np.concatenate([p[0] for p in blocks])
    values = np.concatenate([p[1] for p in blocks])
    order = np.concatenate(
        [np.arange(o, o + p.size, dtype=np.int64) if isinstance(o, int) else o for p, _, o in blocks]
    )
    if order.size > 1 and not bool(np.all(order[1:] >= order[:-1])):
        idx = np.argsort(order, kind="stable")
        steps, values, order = steps[idx], values[idx], order[idx]
    return steps, values, order


def _later_wins(
    steps: np.ndarray, values: np.ndarray, order: np.ndarray, key: str = "", rewrites: Rewrites | None = None
) -> tuple[np.ndarray, np.ndarray]:
    if steps.size < 2 or bool(np.all(steps[1:] > steps[:-1])):
        return steps.copy(), values.copy()
    idx = np.lexsort((order, steps))
    return _keep_last(steps[idx], values[idx], key, rewrites)


def _keep_last(
    steps: np.ndarray, values: np.ndarray, key: str, rewrites: Rewrites | None
) -> tuple[np.ndarray, np.ndarray]:
    """The last write of each step (steps sorted, writes in order within a step).  `rewrites` gets
    key -> (steps whose earlier writes held another value, the first of them): a step logged
    again with new numbers is values not read, where identical repeats (every rank printing the
    same line) are no loss."""
    last = np.ones(steps.size, dtype=bool)
    last[:-1] = steps[1:] != steps[:-1]  # keep the last write of each step
    if rewrites is not None:
        ends = np.flatnonzero(last)
        kept = np.repeat(values[ends], np.diff(ends, prepend=-1))  # each write's step's last write
        other = ~last & (values != kept) & ~(np.isnan(values) & np.isnan(kept))
        if other.any():
            hit = np.unique(steps[other])
            rewrites[key] = (int(hit.size), int(hit[0]))
    return steps[last], values[last]


# a step counter that goes back to a step past NEW_RUN_MAX_STEP on at least this many rows, and on
# more than a tenth of them, is rows of two writers interleaved, not resumes (a resume is rare)
INTERLEAVED = 3


def interleaved(segments: list[list[int]]) -> int:
    """Two writers appending to one file (two runs or ranks of an async trainer, each step logged by
    both as it completes: steps 0, 1, 2, 0, 1, 3, 2, 4, ...): the counter goes back, to a step past
    NEW_RUN_MAX_STEP, on INTERLEAVED or more rows and on more than a tenth of them.  Such a file is
    one run (later rows win where steps repeat), not a run restarted at its first regression.
    Returns how many rows went back when so (for the note), else 0."""
    back = sum(seg[0] > NEW_RUN_MAX_STEP for seg in segments[1:])
    return back if back >= INTERLEAVED and 10 * back > sum(seg[3] for seg in segments) else 0


def group_runs(segments: list[list[int]], split_runs: bool = True) -> list[list[list[int]]]:
    """The segments ([first_step, last_step, first_line, rows, first_row]) grouped into runs: a
    segment starting at step <= NEW_RUN_MAX_STEP begins a new run.  More than MAX_RUNS restarts is
    no concatenation of runs but a step counter that does not count, and two writers `interleaved`
    are no restarts either: both kept as one run."""
    if not split_runs or interleaved(segments):
        return [list(segments)] if segments else []
    groups: list[list[list[int]]] = []
    for seg in segments:
        if not groups or seg[0] <= NEW_RUN_MAX_STEP:
            groups.append([seg])
        else:
            groups[-1].append(seg)
    if len(groups) > MAX_RUNS:
        return [list(segments)]
    return groups


def join_columns(cols: dict[str, Column], release: bool = False, rewrites: Rewrites | None = None) -> Raw:
    """Every column's series, for a file that holds one run."""
    shared: SharedSteps = {}
    raw: Raw = {}
    for key, col in cols.items():
        raw[key] = series(col, shared, release, key, rewrites)
        if release:
            # the key's blocks are freed between the others' small arrays: hand their pages
            # back before the next key's column is joined, or each column lands on fresh
            # memory and the read peaks at twice its values (1M steps: 223 -> ~150 MiB)
            release_heap()
    return raw


def split_columns(cols: dict[str, Column], groups: list[list[list[int]]], rows: int) -> Iterator[tuple[Raw, Rewrites]]:
    """Every column cut into the runs `groups` (from `group_runs`) hold: per run, one series per key
    (later wins within the run) and its rewritten steps, a run at a time; `rows` is the number of
    rows fed."""
    gathered = {key: gather(col) for key, col in cols.items()}
    bounds = [g[0][4] for g in groups] + [rows + 1]
    for i in range(len(groups)):
        lo, hi = bounds[i], bounds[i + 1]
        part: Raw = {}
        rewrites: Rewrites = {}
        for key, (steps, values, order) in gathered.items():
            a, b = np.searchsorted(order, [lo, hi])
            if b > a:
                part[key] = _later_wins(steps[a:b], values[a:b], order[a:b], key, rewrites)
        yield part, rewrites


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError, TypeError):  # not glibc (macOS, Windows, musl): nothing to do
        return None


_TRIM = _malloc_trim()


def release_heap() -> None:
    """Hand the heap's free pages back to the system (glibc's malloc_trim; nothing elsewhere)."""
    if _TRIM is not None:
        _TRIM(0)


def link_runs(
    runs: list[Run],
    holds: Msg,
    label: Callable[[Run], str] | None = None,
    *,
    entry: Callable[[int, Run], Msg] | None = None,
) -> Run:
    """Several runs read from one place (a file whose step counter restarted, a database, a folder
    of W&B, SwanLab or MLflow runs): each knows the others (`file_runs`, `run_index` / `run_count`)
    and says so in a note ("{holds}: run 1: … This is run i; choose another with --run K"); the last
    is returned, as a file's last run is.  Each run is listed as `entry(i, run)` (0-based i), by
    default "run i: {label(run)} ({n} steps)"; the first LISTED_RUNS are named."""
    if len(runs) > 1:

        def by_label(i: int, r: Run) -> Msg:
            return Msg("note.run_db", i=i + 1, id=label(r) if label is not None else r.name, steps=r.n_steps)

        shown: list[object] = [(entry or by_label)(i, r) for i, r in enumerate(runs[:LISTED_RUNS])]
        if len(runs) > LISTED_RUNS:
            shown.append(Msg("note.runs_more", n=len(runs) - LISTED_RUNS))
        listing = Listing(tuple(shown))
        for i, r in enumerate(runs):
            r.meta["run_index"], r.meta["run_count"] = i + 1, len(runs)
            r.file_runs = runs
            r.notes.append(Msg("note.runs_listed", holds=holds, listing=listing, i=i + 1))
    return runs[-1]
