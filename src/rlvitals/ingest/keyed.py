"""Values that arrive key by key, not row by row, joined into rows on their steps.

MLflow keeps each metric in a file (or table rows) of its own, a long table gives one row per
logged value, a TensorBoard download holds one tag: each reader gathers every key's
(times, values, steps) and hands them here.  `keyed_block` sorts each key by step, then time (the
later write of a step wins, as everywhere), and lays the keys on the union of their steps;
`keyed_builder` puts that block, and the rows the reader counted, into a `RunBuilder`.  A record
whose step is not one the builder accepts (`values.steps_ok`: a whole number, 0 <= step < 2**53)
is counted as "step out of range".
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .builder import RunBuilder
from .values import steps_ok

__all__ = ["Keyed", "keyed_block", "keyed_builder"]

Keyed = tuple[np.ndarray, np.ndarray, np.ndarray]  # one key's (times, values, steps)


def keyed_block(cols: Mapping[str, Keyed]) -> tuple[int, np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Each key's records as one block of rows on the union of the steps.  Returns (records whose
    step is out of range, the union of steps, each key's column on it, where each key was logged)."""
    bad = 0
    merged: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for key, (ts, vals, steps) in cols.items():
        ok = steps_ok(steps)
        if not ok.all():
            bad += int((~ok).sum())
            ts, vals, steps = ts[ok], vals[ok], steps[ok]
        if not steps.size:
            continue
        order = np.lexsort((ts, steps))
        st, vs = steps[order].astype(np.int64), vals[order]
        last = np.ones(st.size, dtype=bool)
        last[:-1] = st[1:] != st[:-1]
        merged[key] = (st[last], vs[last])
    if not merged:
        return bad, np.zeros(0, dtype=np.int64), {}, {}
    union = np.unique(np.concatenate([st for st, _ in merged.values()]))
    columns, present = {}, {}
    for key, (st, vs) in merged.items():
        at = np.searchsorted(union, st)
        columns[key] = np.full(union.size, np.nan)
        columns[key][at] = vs
        present[key] = np.zeros(union.size, dtype=bool)
        present[key][at] = True
    return bad, union, columns, present


def keyed_builder(
    name: str, fmt: str, cols: Mapping[str, Keyed], skipped: Mapping[str, int], first_line: int = 2
) -> RunBuilder:
    """A builder (one run: no restarts to split on) holding `cols` joined on their steps and the
    reader's counted `skipped` rows; the caller adds notes and meta, then builds."""
    b = RunBuilder(name, fmt)
    b.split_runs = False
    for reason, n in skipped.items():
        b.skip(reason, n)
    bad, union, columns, present = keyed_block(cols)
    if bad:
        b.skip("step out of range", bad)
    if union.size:
        b.add_block(union, columns, present=present, first_line=first_line)
    return b
