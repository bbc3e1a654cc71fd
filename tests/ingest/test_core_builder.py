"""RunBuilder: segments, later wins, blocks with presence masks, held rows, cut-off last line."""

from __future__ import annotations

import numpy as np

from rlvitals.ingest.builder import RunBuilder


def _rows(b: RunBuilder, rows):
    for i, (step, row) in enumerate(rows):
        b.add_row(step, row, i + 1)


def test_later_segment_wins_per_key():
    b = RunBuilder("x", "t")
    _rows(
        b,
        [
            (1, {"reward": 1.0}),
            (2, {"reward": 2.0, "kl": 0.1}),
            (3, {"reward": 3.0}),
            (2, {"reward": 20.0}),
            (3, {"reward": 30.0}),
        ],
    )
    run = b.build()
    assert run.series["reward"].values.tolist() == [1.0, 20.0, 30.0]
    assert run.series["kl"].values.tolist() == [0.1]  # not re-logged: the earlier value stands
    assert [(s.first_step, s.last_step, s.first_line, s.rows) for s in run.segments] == [(1, 3, 1, 3), (2, 3, 4, 2)]
    assert any("2 segments" in n for n in run.notes)


def test_held_rows_equal_one_by_one():
    rows = (
        [(s, {"a": s * 1.0, "b": -s * 1.0}) for s in range(30)]
        + [(5, {"a": 99.0})]
        + [(s, {"a": s * 2.0, "b": 0.0}) for s in range(6, 40)]
    )
    held = RunBuilder("x", "t")
    _rows(held, rows)
    single = RunBuilder("x", "t")
    for i, (step, row) in enumerate(rows):  # flush after every row: stored one by one
        single.add_row(step, row, i + 1)
        single._flush()
    a, b = held.build(), single.build()
    for k in a.extras:
        assert np.array_equal(a.extras[k].steps, b.extras[k].steps)
        assert np.array_equal(a.extras[k].values, b.extras[k].values)
    assert [(s.first_step, s.rows, s.first_line) for s in a.segments] == [
        (s.first_step, s.rows, s.first_line) for s in b.segments
    ]


def test_block_with_presence_mask():
    b = RunBuilder("x", "t")
    b.add_block(
        np.array([1, 2, 3]),
        {"a": np.array([1.0, np.nan, 3.0]), "b": np.array([0.0, 5.0, 0.0])},
        present={"b": np.array([False, True, False])},
    )
    run = b.build()
    assert np.isnan(run.extras["a"].values[1])  # a logged NaN is kept
    assert run.extras["b"].steps.tolist() == [2]


def test_partial_last_row_with_fewer_keys_is_truncation():
    b = RunBuilder("x", "t")
    b.add_row(1, {"a": 1.0, "b": 2.0})
    b.partial = True
    b.add_row(2, {"a": 1.5})
    b.skip("malformed")
    b.partial = False
    run = b.build()
    assert run.skipped == {"truncated last line": 2}
    assert run.extras["a"].steps.tolist() == [1]


def test_releasing_build_gives_the_same_run():
    """build(release=True) lets the blocks go as it joins them: the run it gives is build()'s."""

    def fill(b: RunBuilder) -> RunBuilder:
        steps = np.arange(1, 101)
        b.add_block(steps, {"reward": steps * 0.01, "kl": steps * 1e-3})
        b.add_block(
            np.arange(101, 151),
            {"reward": np.full(50, 0.5), "kl": np.full(50, 0.1)},
            present={"kl": np.arange(50) % 2 == 0},
        )
        b.add_row(90, {"reward": 9.0}, 151)  # a resume: the later write wins
        b.add_block(np.arange(91, 200), {"reward": np.linspace(0, 1, 109), "acc": np.full(109, 0.2)})
        return b

    kept, released = fill(RunBuilder("r", "x")).build(), fill(RunBuilder("r", "x")).build(release=True)
    assert set(kept.series) == set(released.series) == {"reward", "kl", "acc"}
    for k in kept.series:
        assert np.array_equal(kept.series[k].steps, released.series[k].steps)
        assert np.array_equal(kept.series[k].values, released.series[k].values)
    assert kept.notes == released.notes and len(released.segments) == 2


def test_a_vitals_step_rewritten_with_other_numbers_is_said():
    # a run restarted at its first step twice (other numbers each time), a resume rewriting steps 3-4,
    # and rows every rank printed alike: the later write is kept, and the note counts the steps whose
    # earlier numbers were not read -- identical repeats and a clock's rewrites are no loss
    b = RunBuilder("x", "t")
    rows = [
        (0, {"reward": 0.0, "time": 1.0}),
        (0, {"reward": 0.25, "time": 2.0}),
        (0, {"reward": 0.24, "time": 3.0}),
        *((s, {"reward": 0.1 * s, "time": 4.0 + s}) for s in range(1, 6)),
        (3, {"reward": 0.9, "time": 10.0}),
        (4, {"reward": 0.8, "time": 11.0}),
        (5, {"reward": 0.5, "time": 12.0}),  # the same number again: no loss
    ]
    _rows(b, rows)
    run = b.build()
    assert run.series["reward"].values.tolist() == [0.24, 0.1, 0.2, 0.9, 0.8, 0.5]
    notes = [n for n in run.notes if getattr(n, "key", "") == "ingest.note.rewritten"]
    assert len(notes) == 1 and "3 step(s)" in notes[0] and "first at step 0" in notes[0]
    same = RunBuilder("y", "t")
    _rows(same, [(s, {"reward": 0.1 * s, "time": float(k)}) for k, s in enumerate([1, 1, 2, 2, 3, 3])])
    assert not [n for n in same.build().notes if getattr(n, "key", "") == "ingest.note.rewritten"]
