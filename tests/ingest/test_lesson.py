"""The lesson's `[step] key=value` format: edge cases, the block path against the line parser, writer round trips."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlvitals.ingest import blocks, lesson, open_parser, read, read_text, write_run
from rlvitals.run import Run


def _by_line(path) -> Run:
    """What `watch` sees: the incremental parser fed line by line (universal newlines, no newline kept)."""
    p = open_parser("lesson", path.name.split(".")[0])
    text = path.read_text(encoding="utf-8")
    for line in text.splitlines():
        p.feed(line)
    return p.snapshot()


def _same(a: Run, b: Run) -> None:
    assert set(a.series) == set(b.series)
    for k in a.series:
        assert np.array_equal(a.series[k].steps, b.series[k].steps), k
        assert np.array_equal(a.series[k].values, b.series[k].values, equal_nan=True), k
        assert a.series[k].source == b.series[k].source
    assert set(a.extras) == set(b.extras)
    assert a.skipped == b.skipped and a.dropped == b.dropped
    assert [(s.first_step, s.last_step, s.rows) for s in a.segments] == [
        (s.first_step, s.last_step, s.rows) for s in b.segments
    ]


def test_values_the_lesson_script_gets_wrong():
    run = read_text(
        "[   1] reward=-0.25 acc=21.1% kl=1.5e-05 entropy=nan gnorm=inf trunc=3%\n"
        "[   2] kl=-1e-4 reward=0.5 acc=50% entropy=1.2 gnorm=-inf trunc=0.0%\n"
    )
    assert run.format == "lesson"
    assert run.series["reward"].values.tolist() == [-0.25, 0.5]
    assert run.series["acc"].values == pytest.approx([0.211, 0.5])
    assert run.series["kl"].values.tolist() == [1.5e-05, -1e-4]
    assert math.isnan(run.series["entropy"].values[0]) and run.series["entropy"].values[1] == 1.2
    assert run.series["gnorm"].values.tolist() == [math.inf, -math.inf]
    assert run.series["trunc"].values == pytest.approx([0.03, 0.0])


def test_lesson_keys_map_to_the_eight_vitals():
    run = read_text(
        "[  12] reward=0.412 acc=21.1% entropy=1.842 kl=0.002 adv_std=1.031 clip=0.000 "
        "ratio=1.0000 len=78 gnorm=0.8 trunc=1.2%\n"
    )
    assert set(run.series) == {
        "reward",
        "acc",
        "entropy",
        "kl",
        "adv_std",
        "clip_frac",
        "ratio_mean",
        "len",
        "gnorm",
        "trunc",
    }
    assert run.series["clip_frac"].source == "clip" and run.series["ratio_mean"].source == "ratio"
    assert run.series["len"].steps.tolist() == [12]


def _messy(tmp_path, name="messy.log", crlf=False):
    rng = np.random.default_rng(3)
    lines = []
    for i in range(3000):
        r, e = rng.normal(0.5, 0.1), rng.normal(1.5, 0.1)
        if i % 97 == 5:
            lines.append("WARNING: something happened")
        if i % 211 == 7:  # keys moved
            lines.append(f"[{i:>4}] acc={40 + i % 7:.1f}% reward={r:.3f} entropy={e:.3f}")
        elif i % 307 == 11:  # a nan, an exponent, a subset of keys
            lines.append(f"[{i:>4}] reward=nan acc=1e-3% entropy={e:.3f}")
        elif i % 401 == 13:  # one value the block path cannot read
            lines.append(f"[{i:>4}] reward=1.2.3 acc={40:.1f}% entropy={e:.3f}")
        elif i % 503 == 17:
            lines.append(f"progress 3%\r[{i:>4}] reward={r:.3f} acc=4.5% entropy={e:.3f}")
        else:
            lines.append(f"[{i:>4}] reward={r:.3f} acc={40 + i % 7:.1f}% entropy={e:.3f}")
        if i == 1500:  # a resumed run: the counter goes back
            lines.append("Resuming from checkpoint global_step_1400")
            lines.extend(f"[{j:>4}] reward=0.{j % 10} acc=12.5% entropy=1.000" for j in range(1400, 1450))
    path = tmp_path / name
    path.write_bytes(("\r\n" if crlf else "\n").join(lines).encode() + (b"\r\n" if crlf else b"\n"))
    return path


@pytest.mark.parametrize("block", [blocks.BLOCK, 4096, 777])
def test_block_path_equals_the_line_parser(tmp_path, monkeypatch, block):
    monkeypatch.setattr(blocks, "BLOCK", block)  # the block size whole_lines hands read_lesson
    path = _messy(tmp_path)
    fast = read(path)
    slow = _by_line(path)
    _same(fast, slow)
    assert fast.dropped["unreadable value"] == 8  # the eight "1.2.3"s, each counted once
    assert "unreadable value" not in fast.skipped  # their lines were kept
    assert fast.skipped["not a metric line"] == 31 + 1 + 6
    assert len(fast.segments) == 2 and fast.segments[1].first_step == 1400
    # the later segment wins on the steps it repeats
    k = int(np.searchsorted(fast.series["acc"].steps, 1401))
    assert fast.series["acc"].values[k] == pytest.approx(0.125)


def test_crlf_file_reads_the_same(tmp_path):
    _same(read(_messy(tmp_path, "a.log")), read(_messy(tmp_path, "b.log", crlf=True)))


def test_no_line_is_lost(tmp_path):
    path = _messy(tmp_path)
    run = read(path)
    text = path.read_text()
    metric_lines = sum(1 for l in text.splitlines() if "reward=" in l)
    reward = run.series["reward"]
    # every metric line is a row; rows on repeated steps collapse (later wins), bad values are counted
    assert sum(s.rows for s in run.segments) == metric_lines
    assert len(reward) == len(np.unique(reward.steps))


def test_truncated_last_line_is_counted_not_kept(tmp_path):
    path = tmp_path / "cut.log"
    path.write_text(
        "[   1] reward=0.1 acc=10% entropy=1.0\n[   2] reward=0.2 acc=20% entropy=0.9\n[   3] reward=0.3 ac"
    )
    run = read(path)
    assert run.skipped == {"truncated last line": 1}
    assert run.series["reward"].steps.tolist() == [1, 2]


def test_complete_last_line_without_newline_is_kept(tmp_path):
    path = tmp_path / "ok.log"
    path.write_text("[   1] reward=0.1 acc=10%\n[   2] reward=0.2 acc=20%")
    run = read(path)
    assert run.series["acc"].values.tolist() == pytest.approx([0.1, 0.2]) and not run.skipped


def test_metric_zero_everywhere_is_kept_constant():
    run = read_text("".join(f"[{i}] reward={i / 10} clip=0.000\n" for i in range(20)))
    clip = run.series["clip_frac"]
    assert len(clip) == 20 and clip.is_constant and clip.values[0] == 0.0


def test_unknown_keys_go_to_extras_and_unrecognized():
    run = read_text("[1] reward=0.1 my_metric=3\n[2] reward=0.2 my_metric=4\n")
    assert run.extras["my_metric"].values.tolist() == [3.0, 4.0]
    assert run.unrecognized == {"my_metric": 2}


def _run(n=50, seed=0) -> Run:
    rng = np.random.default_rng(seed)
    cols = {
        "reward": rng.normal(0.5, 0.2, n),
        "acc": rng.uniform(0, 1, n),
        "entropy": rng.uniform(0.05, 2, n),
        "kl": rng.uniform(0, 0.05, n) * 1e-3,
        "adv_std": rng.uniform(0.2, 1.2, n),
        "clip_frac": rng.uniform(0, 0.3, n),
        "ratio_mean": 1 + rng.normal(0, 1e-3, n),
        "len": rng.integers(10, 600, n).astype(float),
        "gnorm": rng.lognormal(0, 1, n),
        "trunc": rng.uniform(0, 0.1, n),
    }
    cols["reward"][7] = math.nan
    cols["gnorm"][9] = math.inf
    return Run.from_arrays("rt", np.arange(5, 5 + n), cols)


def test_round_trip(tmp_path):
    run = _run()
    path = tmp_path / "rt.log"
    write_run(run, "lesson", path)
    back = read(path)
    assert back.format == "lesson"
    for k, s in run.series.items():
        assert np.array_equal(back.series[k].steps, s.steps), k
        np.testing.assert_allclose(back.series[k].values, s.values, rtol=1e-5, atol=1e-12, equal_nan=True)


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).filter(lambda x: abs(x) > 1e-9 or x == 0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(finite, st.floats(0, 1)), min_size=1, max_size=30))
def test_round_trip_property(rows):
    run = Run.from_arrays("p", np.arange(len(rows)), {"reward": [r for r, _ in rows], "acc": [a for _, a in rows]})
    import io

    buf = io.StringIO()
    write_run(run, "lesson", buf)
    back = read_text(buf.getvalue(), "lesson")
    np.testing.assert_allclose(back.series["reward"].values, run.series["reward"].values, rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(back.series["acc"].values, run.series["acc"].values, rtol=1e-5, atol=1e-12)


def test_unusual_first_line_does_not_slow_or_change_the_read(tmp_path, monkeypatch):
    """The first metric line has an extra key; the block path relearns the common layout."""
    monkeypatch.setattr(blocks, "BLOCK", 2048)
    path = tmp_path / "u.log"
    lines = ["[   0] reward=0.1 acc=1.0% val_acc=5.0%"] + [
        f"[{i:>4}] reward=0.{i % 10} acc={i % 50}.5%" for i in range(1, 400)
    ]
    path.write_text("\n".join(lines) + "\n")
    learned = []
    orig = lesson._learn
    monkeypatch.setattr(lesson, "_learn", lambda raw: learned.append(raw) or orig(raw))
    fast = read(path)
    _same(fast, _by_line(path))
    assert fast.series["val_acc"].steps.tolist() == [0] and len(fast.series["acc"]) == 400
    assert any(b"val_acc" not in raw for raw in learned)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_block_path_reads_every_spelling_and_equals_the_line_parser(tmp_path_factory, seed):
    """Plain, scientific, signed, long and percent spellings, mixed line to line: the block path reads
    every line itself (none goes the careful way) and gives what the line parser gives."""
    from test_core_fastnum import _spellings

    rng = np.random.default_rng(seed)
    n = 300
    cols = {
        k: _spellings(rng.normal(0, 1, n) * 10.0 ** rng.integers(-12, 4, n), rng)
        for k in ("reward", "entropy", "kl", "lr")
    }
    acc = _spellings(rng.uniform(0, 100, n), rng)
    lines = [
        f"[{i:>4}] reward={cols['reward'][i]} acc={acc[i]}% entropy={cols['entropy'][i]} "
        f"kl={cols['kl'][i]} lr={cols['lr'][i]}"
        for i in range(n)
    ]
    path = tmp_path_factory.mktemp("spell") / "s.log"
    path.write_text("\n".join(lines) + "\n")
    careful, loaded = [], []
    orig, orig_rows = lesson._BlockReader._rows, lesson.read_rows
    try:
        lesson._BlockReader._rows = lambda self, raw: careful.append(raw) or orig(self, raw)  # type: ignore[method-assign]
        lesson.read_rows = lambda *a: loaded.append(orig_rows(*a)) or loaded[-1]  # type: ignore[assignment]
        fast = read(path)
    finally:
        lesson._BlockReader._rows = orig  # type: ignore[method-assign]
        lesson.read_rows = orig_rows  # type: ignore[assignment]
    assert careful == []
    assert loaded and all(v is not None for v in loaded)  # read in one pass, not token by token
    _same(fast, _by_line(path))
    assert fast.series["lr"].values.tolist() == [float(v) for v in cols["lr"]]


def test_a_step_that_is_no_integer_is_not_read_as_one(tmp_path):
    """`[1.5]` has the skeleton of `[15]`: the block path must leave it to the line parser."""
    path = tmp_path / "s.log"
    lines = [f"[{i:>4}] reward=0.{i % 10} acc={i % 50}.5%" for i in range(1, 300)]
    lines[100] = "[1.5] reward=0.9 acc=1.5%"
    path.write_text("\n".join(lines) + "\n")
    fast = read(path)
    _same(fast, _by_line(path))
    assert len(fast.series["reward"]) == 298 and fast.skipped["not a metric line"] == 1
