"""The block path of the verl console, JSONL and CSV readers gives what their line parsers give,
line for line, on messy files with every spelling of a number -- and reads most rows itself."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_core_fastnum import _spellings

from rlvitals.ingest import blocks, csvfile, jsonl, open_parser, read, verl_console

READERS = {
    "verl-console": (verl_console._SYNTAX, verl_console.VerlConsoleParser),
    "jsonl": (jsonl._SYNTAX, jsonl.JsonlParser),
}


def _values(rng, n):
    return {
        k: _spellings(rng.normal(0, 1, n) * 10.0 ** rng.integers(-12, 4, n), rng)
        for k in ("reward", "entropy", "kl", "lr")
    }


def _verl(rng, n):
    cols = _values(rng, n)
    out = ["\x1b[36m(TaskRunner pid=1)\x1b[0m config: {'lr': 1e-06}"]
    for i in range(n):
        parts = [
            f"critic/score/mean:np.float64({cols['reward'][i]})",
            f"actor/entropy:{cols['entropy'][i]}",
            f"actor/kl_loss:np.float64({cols['kl'][i]})",
            f"actor/lr:{cols['lr'][i]}",
        ]
        if i % 37 == 3:
            parts[1] = "actor/entropy:np.float64(nan)"
        if i % 41 == 5:
            parts = parts[::-1]  # keys moved
        if i % 53 == 7:
            parts = parts[:2] + ["val-core/data/acc/mean@1:0.5"]
        step = i + 1 if i < n // 2 else i + 1 - 20  # a resume: steps repeat, the later wins
        out.append(f"(TaskRunner pid=46086) step:{step} - " + " - ".join(parts))
        if i % 29 == 0:
            out.append(f"Training Progress:  {i}%|#  | {i}/{n} [00:01<00:02]\rTraining Progress: {i}/{n}")
    return out


def _jsonl(rng, n):
    cols = _values(rng, n)
    out = ['{"config": {"lr": 1e-06}}']
    for i in range(n):
        row = {"step": i if i < 2 * n // 3 else i - 2 * n // 3, "reward": 0, "entropy": 0, "kl": 0, "lr": 0}
        text = json.dumps(row)
        for k in ("reward", "entropy", "kl", "lr"):
            text = text.replace(f'"{k}": 0', f'"{k}": {cols[k][i]}', 1)
        if i % 37 == 3:
            text = text.replace('"kl": ', '"kl": NaN, "x": ', 1)
        if i % 43 == 4:
            text = text.replace('"lr": ', '"tag": "a", "lr": ', 1)
        if i % 47 == 6:
            text = text.replace(", ", ",")
        out.append(text)
        if i % 31 == 0:
            out.append("not json")
    return out


def _csv(rng, n):
    cols = _values(rng, n)
    out = ["_runtime,reward,_step,entropy,kl,lr"]
    for i in range(n):
        cells = [f"{i * 1.5}", cols["reward"][i], str(i), cols["entropy"][i], cols["kl"][i], cols["lr"][i]]
        if i % 37 == 3:
            cells[3] = ""  # a blank cell: a gap
        if i % 41 == 5:
            cells[4] = "nan"
        if i % 43 == 6:
            cells[1] = "run-a"
        if i % 47 == 7:
            cells[2] = f"{i}.0"
        out.append(",".join(cells))
    return out


def _by_line(fmt, path):
    p = open_parser(fmt, "run")
    with open(path, encoding="utf-8", newline="\n") as f:  # lines end at \n (a tqdm \r is inside one)
        lines = f.readlines()
    for line in lines[:-1]:
        p.feed(line)
    if lines[-1].endswith(("\n", "\r")):
        p.feed(lines[-1])
    else:
        p.feed_last(lines[-1])
    return p.finish()


def _same(a, b):
    for got, want in ((a.series, b.series), (a.extras, b.extras)):
        assert set(got) == set(want)
        for k in got:
            assert np.array_equal(got[k].steps, want[k].steps), k
            assert np.array_equal(got[k].values, want[k].values, equal_nan=True), k
    assert a.skipped == b.skipped and a.dropped == b.dropped and a.notes == b.notes
    assert [tuple(vars(s).values()) for s in a.segments] == [tuple(vars(s).values()) for s in b.segments]


@pytest.mark.parametrize("block", [blocks.BLOCK, 3000])
@pytest.mark.parametrize("fmt, make", [("verl-console", _verl), ("jsonl", _jsonl), ("csv", _csv)])
@pytest.mark.parametrize("seed", [0, 1])
def test_block_path_equals_the_line_parser(tmp_path, monkeypatch, fmt, make, seed, block):
    monkeypatch.setattr(blocks, "BLOCK", block)
    lines = make(np.random.default_rng(seed), 600)
    path = tmp_path / "run.log"
    path.write_text("\n".join(lines) + ("" if seed else "\n"), encoding="utf-8")  # seed 1: no last newline
    fast = read(path, fmt)
    assert fast.format == fmt
    slow = _by_line(fmt, path)
    _same(fast, slow)
    if fmt == "csv":
        syntax_parser = csvfile.CsvParser("run")
        _, taken = blocks.read_blocks(path, syntax_parser, csvfile._syntax(b","), head=1)
    else:
        syntax, parser = READERS[fmt]
        _, taken = blocks.read_blocks(path, parser("run"), syntax)
    rows = sum(s.rows for r in (slow.file_runs or [slow]) for s in r.segments)
    assert taken >= 0.8 * rows  # the block path read most rows, whatever their spelling


@pytest.mark.parametrize("fmt, make", [("verl-console", _verl), ("csv", _csv)])
def test_clean_blocks_are_read_in_one_pass(tmp_path, monkeypatch, fmt, make):
    """Lines their layouts read (repr and %g spellings, a noise line between them) go through
    `read_rows` whole, and give what the line parser gives."""
    monkeypatch.setattr(blocks, "BLOCK", 4096)
    rng = np.random.default_rng(5)
    lines = [
        x.replace("+", "")
        for x in make(rng, 400)
        if "nan" not in x.lower()
        and "run-a" not in x
        and '"tag"' not in x
        and "@1" not in x
        and ".0," not in x
        and ",," not in x
    ]
    path = tmp_path / "run.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got, orig = [], blocks.read_rows
    monkeypatch.setattr(blocks, "read_rows", lambda *a: got.append(orig(*a)) or got[-1])
    fast = read(path, fmt)
    _same(fast, _by_line(fmt, path))
    assert got and all(g is not None for g in got)
    assert sum(g[0].size for g in got) >= 0.9 * sum(s.rows for s in fast.segments)
