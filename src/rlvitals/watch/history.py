"""What `Monitor` remembers of a run: every step up to `capacity`, then a uniform thinning.

A training loop can run for 10^7 steps; keeping every value (as a log reader does) would grow
without bound (~70 MB per million steps).  What the diagnosis needs is the run's shape over its
whole length (start level, trend, where it bent) at a resolution fine against the run's length,
and every NaN/inf (a NaN is evidence).  So:

- Up to `capacity` rows (default 8,192) every logged step is kept: for almost every real RL run
  the diagnosis sees exactly what `rlvitals diagnose` would see.
- When the table is full, every other *regular* row is dropped and `stride` doubles: the kept
  rows are always the steps whose arrival index is a multiple of `stride`, i.e. a uniform grid
  over the whole run.  Per-point noise, levels and trends are preserved (a thinned healthy run
  looks like a shorter healthy run, not a smoothed one: no averaging that would make noise look
  smaller and a drift look significant); at 10^7 steps the grid spacing is ~1,200 steps, 0.012%
  of the run.
- Rows carrying a non-finite value are kept whatever the stride (the most recent `capacity/4`
  of them), so `numeric_instability` sees every one it needs.
- At most `max_keys` distinct keys (default 256); values of further keys are counted, not kept.

Memory is therefore fixed: capacity x (17 + 9 x keys) bytes (~19 MB at 8,192 rows x 256 keys,
~1 MB for a TRL run's 12 keys).  `build()` turns the table into a `Run` through `RunBuilder`
(same alias mapping, same segments and "later write wins" as reading a log); a thinned run says so
in `Run.notes`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..i18n import Msg
from ..ingest.builder import RunBuilder
from ..run import Run

__all__ = ["CAPACITY", "History"]

CAPACITY = 8192
MAX_KEYS = 256


class History:
    """A bounded table of logged rows (step, key → value); see the module docstring."""

    def __init__(self, capacity: int = CAPACITY, max_keys: int = MAX_KEYS) -> None:
        if capacity < 16:
            raise ValueError("capacity must be at least 16 rows")
        self.capacity = int(capacity)
        self.max_keys = int(max_keys)
        self.stride = 1  # the kept regular rows are those with arrival index % stride == 0
        self.arrived = 0  # rows offered in all
        self.dropped_keys = 0  # values of keys beyond max_keys
        self.n = 0
        self._cols: dict[str, int] = {}
        self._steps = np.zeros(self.capacity, dtype=np.int64)
        self._idx = np.zeros(self.capacity, dtype=np.int64)  # arrival index of each kept row
        self._bad = np.zeros(self.capacity, dtype=bool)  # the row carries a NaN/inf
        self._vals = np.full((self.capacity, 8), np.nan)
        self._has = np.zeros((self.capacity, 8), dtype=bool)

    def __len__(self) -> int:
        return self.n

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self._steps, self._idx, self._bad, self._vals, self._has))

    def add(self, step: int, row: Mapping[str, float]) -> None:
        """One step's values (finite or not; the caller has checked they are floats)."""
        i = self.arrived
        self.arrived += 1
        bad = not all(math.isfinite(v) for v in row.values())
        if i % self.stride and not bad:
            return
        if self.n == self.capacity:
            self._thin()
            if i % self.stride and not bad:
                return
        r = self.n
        self.n += 1
        self._steps[r], self._idx[r], self._bad[r] = step, i, bad
        self._vals[r].fill(np.nan)
        self._has[r].fill(False)
        cols = self._cols
        for key, v in row.items():
            j = cols.get(key)
            if j is None:
                j = self._new_key(key)
                if j is None:
                    continue
            self._vals[r, j] = v
            self._has[r, j] = True

    def extend(self, steps: np.ndarray, columns: Mapping[str, np.ndarray]) -> None:
        """Many rows at once (every column the length of `steps`); the same result as `add` per row."""
        steps = np.asarray(steps, dtype=np.int64)
        m = int(steps.size)
        if m == 0:
            return
        cols = {k: np.asarray(v, dtype=np.float64) for k, v in columns.items()}
        js = {k: self._cols.get(k) if k in self._cols else self._new_key(k) for k in cols}
        bad = np.zeros(m, dtype=bool)
        for v in cols.values():
            bad |= ~np.isfinite(v)
        idx = np.arange(self.arrived, self.arrived + m, dtype=np.int64)
        self.arrived += m
        pos = 0
        while pos < m:
            cand = np.flatnonzero((idx[pos:] % self.stride == 0) | bad[pos:]) + pos
            if cand.size == 0:
                return
            take = cand[: self.capacity - self.n]
            r0, r1 = self.n, self.n + take.size
            self._steps[r0:r1], self._idx[r0:r1], self._bad[r0:r1] = steps[take], idx[take], bad[take]
            self._vals[r0:r1] = np.nan
            self._has[r0:r1] = False
            for k, v in cols.items():
                j = js[k]
                if j is not None:
                    self._vals[r0:r1, j] = v[take]
                    self._has[r0:r1, j] = True
            self.n = r1
            if take.size == cand.size:
                return
            pos = int(take[-1]) + 1 if take.size else pos
            self._thin()

    def _new_key(self, key: str) -> int | None:
        if len(self._cols) >= self.max_keys:
            self.dropped_keys += 1
            return None
        j = len(self._cols)
        if j == self._vals.shape[1]:
            width = min(self.max_keys, 2 * j)
            self._vals = np.hstack([self._vals, np.full((self.capacity, width - j), np.nan)])
            self._has = np.hstack([self._has, np.zeros((self.capacity, width - j), dtype=bool)])
        self._cols[key] = j
        return j

    def _thin(self) -> None:
        """Double the stride: keep the regular rows on the coarser grid and the latest bad rows."""
        n = self.n
        self.stride *= 2
        keep = self._idx[:n] % self.stride == 0
        bad = self._bad[:n]
        budget = self.capacity // 4
        if bad.sum() > budget:  # too many NaN rows to keep them all: the most recent ones
            bad = bad & (np.cumsum(bad[::-1])[::-1] <= budget)
        keep |= bad
        k = int(keep.sum())
        for a in (self._steps, self._idx, self._bad):
            a[:k] = a[:n][keep]
        self._vals[:k] = self._vals[:n][keep]
        self._has[:k] = self._has[:n][keep]
        self.n = k

    def build(self, name: str, format: str = "monitor") -> Run:
        """The kept rows as a `Run` (keys mapped to canonical metrics as the log readers do)."""
        b = RunBuilder(name, format)
        n = self.n
        if n:
            steps = self._steps[:n].copy()
            cols = {key: self._vals[:n, j].copy() for key, j in self._cols.items()}
            present = {key: self._has[:n, j].copy() for key, j in self._cols.items()}
            b.add_block(steps, cols, present=present)
        run = b.build()
        if self.stride > 1:
            run.notes.append(Msg("watch.note.bounded", arrived=self.arrived, stride=self.stride, n=n))
        return run
