"""Memory by distinct steps: a log that repeats one step keeps one value per step and segment, not
one per line, and what is built is the same as without the compaction."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rlvitals.ingest import builder as builder_mod
from rlvitals.ingest.builder import RunBuilder


def stored(b: RunBuilder) -> int:
    return sum(sum(p[0].size for p in col.pieces) + len(col.steps) for col in b._cols.values())


def test_one_step_repeated_keeps_memory_flat():
    b = RunBuilder("r", "lesson")
    block = np.full(4096, 5, dtype=np.int64)
    for i in range(1000):  # 4 million rows of step 5
        b.add_block(block, {"reward": np.full(4096, i, float), "entropy": np.ones(4096)})
    assert stored(b) <= 2 * 2 * builder_mod.COMPACT_ROWS  # two keys, bounded whatever the length
    run = b.build()
    assert run.n_steps == 1 and run["reward"].values.tolist() == [999.0]  # the last write wins


def test_row_by_row_too():
    b = RunBuilder("r", "generic")
    for i in range(3 * builder_mod.COMPACT_ROWS):
        b.add_row(7, {"reward": float(i)})
    assert stored(b) < 2 * builder_mod.COMPACT_ROWS
    assert b.build()["reward"].values.tolist() == [3 * builder_mod.COMPACT_ROWS - 1]


def _build(rows, compact_rows):
    old = builder_mod.COMPACT_ROWS
    builder_mod.COMPACT_ROWS = compact_rows
    try:
        b = RunBuilder("r", "generic")
        for step, v in rows:
            b.add_row(step, {"reward": v, "kl": -v})
        run = b.build()
    finally:
        builder_mod.COMPACT_ROWS = old
    return [
        {k: (s.steps.tolist(), s.values.tolist()) for k, s in r.series.items()} | {"n": r.n_steps}
        for r in (run.file_runs or [run])
    ]


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(rows=st.lists(st.tuples(st.integers(0, 6), st.floats(-1e3, 1e3)), max_size=300))
def test_compaction_changes_nothing_built(rows):
    assert _build(rows, 4) == _build(rows, 1 << 40)
