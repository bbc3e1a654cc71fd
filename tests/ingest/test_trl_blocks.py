"""The TRL console's block path (trl_blocks.py) gives what TrlParser gives line by line -- on the
real TRL logs, on generated logs with every spelling of a number and hostile lines -- and reads
most rows of a clean log itself."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from realdata import REAL
from test_core_fastnum import _spellings

from rlvitals.ingest import _read_lines, blocks, read, trl_blocks
from rlvitals.ingest.trl import TrlParser, read_trl

KEYS = ("loss", "grad_norm", "learning_rate", "reward", "kl", "entropy")


def _series_same(got, want):
    assert list(got) == list(want)
    for k in got:
        assert got[k].source == want[k].source, k
        assert np.array_equal(got[k].steps, want[k].steps), k
        assert got[k].values.tobytes() == want[k].values.tobytes(), k


def _same(a, b):
    for attr in ("series", "extras", "components", "evals"):
        _series_same(getattr(a, attr), getattr(b, attr))
    for attr in ("format", "unrecognized", "skipped", "dropped", "notes", "meta", "component_kinds"):
        assert getattr(a, attr) == getattr(b, attr), attr
    assert [vars(s) for s in a.segments] == [vars(s) for s in b.segments]
    assert len(a.file_runs) == len(b.file_runs)
    for x, y in zip(a.file_runs, b.file_runs):
        if x is not a:
            _same(x, y)


def _both(path: Path) -> tuple[object, object, int]:
    run, fast = trl_blocks.read_trl_blocks(path, TrlParser(path.stem), release=True)
    return run, _read_lines(TrlParser(path.stem), path), fast


@pytest.mark.parametrize(
    "name", ["trl-qwen25-7b-gsm8k-rho0.3-seed42.log", "trl-qwen35-9b-gsm8k-zero-reward-truncated.log"]
)
def test_real_trl_logs_read_alike(name):
    path = REAL / name
    fast, slow, taken = _both(path)
    _same(fast, slow)
    _same(read(path), read(path, "trl-console"))
    # dicts printed after the bar's repaints, on the same line: the block path reads them too
    assert taken >= 0.9 * fast.series["reward"].steps.size


def _bar(i: int, total: int, rng) -> str:
    rate = f"{rng.uniform(0.5, 9):.2f}s/it" if i % 3 else f"{rng.uniform(1, 30):.2f}it/s"
    return f"\r{int(100 * i / total):3d}%|{'█' * (10 * i // total):10s}| {i}/{total} [00:{i % 60:02d}<01:00, {rate}]"


def _hostile(rng, n: int, sparse: int = 1) -> list[str]:
    """A TRL console with every spelling of a number, and lines that must go the careful way
    (about one a step; `sparse` times fewer)."""
    cols = {k: _spellings(rng.normal(0, 1, n) * 10.0 ** rng.integers(-12, 4, n), rng) for k in KEYS}
    out = ["***** Running training *****", "  Num update steps per epoch = 50", "  Total optimization steps = 900"]
    for i in range(1, n + 1):
        vals = {k: cols[k][i - 1] for k in KEYS}
        if i % (37 * sparse) == 3:
            vals["kl"] = "nan"
        if i % (41 * sparse) == 5:
            vals["entropy"] = "-inf" if i % 2 else "None"
        if i % (43 * sparse) == 6:
            vals["reward"] = f"np.float64({vals['reward']})"
        if i % (47 * sparse) == 7:
            vals["loss"] = "1e400"
        if i % (53 * sparse) == 8:
            vals["kl"] = f"'{vals['kl']}'"
        if i % (59 * sparse) == 9:
            vals = dict(reversed(list(vals.items())))  # keys moved
        if i % (61 * sparse) == 10:
            vals["pass@1"] = "0.5"  # a key with a digit
        if i % (67 * sparse) == 11:
            vals["kl"] = "+.5"  # not JSON, still a number
        text = "{" + ", ".join(f"'{k}': {v}" for k, v in vals.items()) + f", 'epoch': {i / 50:.4g}}}"
        if i % (71 * sparse) == 12:
            text = text.replace(", ", ",")
        if i % (73 * sparse) == 13:
            text = "\x1b[32m" + text + "\x1b[0m"
        if i % (79 * sparse) == 14:
            text = text.replace("'reward': ", "'reward':1 ", 1)  # a digit beside the separator
        if i % (83 * sparse) == 15:
            text = text[: len(text) // 2]  # cut short
        bar = _bar(i, 900, rng)
        if i % (89 * sparse) == 16:
            bar = _bar(i - 1, 900, rng) + bar + "\r" + " " * 40 + "\r" + bar  # repaints, a redraw
        if i % (97 * sparse) == 17:
            bar = bar.replace("█", "\udcff", 1).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        out.append(bar)
        out.append(text)
        if i % (30 * sparse) == 0:
            out.append("{'eval_loss': 0.5, 'eval_accuracy': " + cols["reward"][i - 1] + f", 'epoch': {i / 50:.4g}}}")
        if i % (101 * sparse) == 18:
            out.append("WARNING: grad_norm is not finite\r\n".rstrip("\n"))
        if i % (103 * sparse) == 19:
            out.append("Updated tokens: {'bos_token_id': None, 'pad_token_id': 151643}")
        if i % (107 * sparse) == 20:
            out.append("\r 50%|█▌  | 450/900 [00:10<00:10, 1.00it/s]{'loss': 0.5, 'grad_norm': 1.0, 'epoch': 1.0}")
    out.append("{'train_runtime': 120.5, 'train_samples_per_second': 3.2, 'train_loss': 0.1, 'epoch': 18.0}")
    return out


@pytest.mark.parametrize("block", [blocks.BLOCK, 4000])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_block_path_equals_the_line_parser(tmp_path, monkeypatch, seed, block):
    monkeypatch.setattr(blocks, "BLOCK", block)
    rng = np.random.default_rng(seed)
    lines = _hostile(rng, 900)
    if seed == 1:
        lines = lines[:400] + [line.replace("\r", "") for line in lines[400:]]  # no tqdm repaints
    path = tmp_path / "run.log"
    end = ["\n", "", "\r"][seed]  # seed 1: no last newline, seed 2: a last \r
    path.write_bytes(("\n".join(lines) + end).encode("utf-8", "surrogateescape"))
    fast, slow, taken = _both(path)
    _same(fast, slow)
    assert fast.series["reward"].steps.size > 700
    # with such lines about one step in twenty, the block path reads most rows
    path.write_text("\n".join(_hostile(rng, 900, sparse=20)) + "\n", encoding="utf-8")
    fast, slow, taken = _both(path)
    _same(fast, slow)
    assert taken >= 0.6 * slow.series["reward"].steps.size


def test_bad_bytes_and_crlf_go_the_careful_way(tmp_path):
    rng = np.random.default_rng(5)
    lines = _hostile(rng, 300)
    raw = "\r\n".join(lines[:200]).encode() + b"\n\xff\xfe{'loss': 0.5}\n" + "\n".join(lines[200:]).encode()
    path = tmp_path / "run.log"
    path.write_bytes(raw + b"{'loss': 0.25, 'grad_norm': 1")  # a cut-off last line
    fast, slow, _ = _both(path)
    _same(fast, slow)
    assert "truncated last line" in fast.skipped


@pytest.mark.parametrize(
    "odd",
    [
        "{'reward'1: , 'kl': 2}",  # a number moved out of its value
        "{'reward': 0 .5, 'kl': 2}",  # a blank inside a number
        "{'rew1ard': 0.5, 'kl': 2}",  # a digit inside a key
        "{'reward': 0.5, 'kl': 2}5",  # after the dict
        "{'reward': 0.5, 'kl': 2, 'kl': 3}",  # a key twice
        "{'reward': 1e400, 'kl': 2}",  # an overflow
        "{'reward': 0.5, 'kl': --2}",
    ],
)
def test_lines_with_the_same_skeleton_but_another_meaning(tmp_path, odd):
    body = [f"{{'reward': 0.{i}, 'kl': {i}}}" for i in range(1, 40)]
    path = tmp_path / "run.log"
    path.write_text("\n".join(body[:20] + [odd] + body[20:]) + "\n", encoding="utf-8")
    fast, slow, taken = _both(path)
    _same(fast, slow)
    assert taken >= 30


def test_the_generated_console_is_read_in_blocks(tmp_path):
    from rlvitals.ingest import write_run
    from rlvitals.simulate import simulate

    path = tmp_path / "trl.log"
    write_run(simulate("healthy", seed=0, steps=3000), "trl-console", path)
    fast, slow, taken = _both(path)
    _same(fast, slow)
    assert taken == 3000 and fast.meta["step_inferred"]
    _same(read_trl(path, "trl"), read(path))


def test_redraw_marks_read_in_blocks(tmp_path):
    """Dicts flushed apart from the bar (all at the end): the steps come from the bar's redraws,
    which the block path finds among the bar lines as the parser does."""
    rng = np.random.default_rng(7)
    logged = sorted(rng.choice(np.arange(2, 300), 30, replace=False).tolist())
    lines = []
    for i in range(1, 301):
        bar = _bar(i, 300, rng)
        lines.append(bar)
        if i in logged:  # the Trainer logged: tqdm.write clears the bar and draws it again
            lines += ["\r" + " " * 40 + "\r", bar]
        elif i % 50 == 1:  # the same counter drawn again at another time: no row
            lines.append(bar.replace("[00:", "[01:"))
    lines += [f"{{'loss': {0.5 / i!r}, 'reward': {i / 30!r}, 'epoch': {i / 30:.2f}}}" for i in range(1, 31)]
    path = tmp_path / "run.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    parser, slow = TrlParser("run"), TrlParser("run")
    fast, taken = trl_blocks.read_trl_blocks(path, parser)
    _same(fast, _read_lines(slow, path))
    assert taken == 30 and parser.marks == slow.marks == {300: logged}
    assert fast.series["reward"].steps.tolist() == logged


def test_rows_with_a_step_key_beside_rows_read_in_blocks(tmp_path):
    rows = [f"{{'loss': {i / 7!r}, 'reward': {i / 9!r}, 'step': {i}}}" for i in range(1, 21)]
    rows += [f"{{'loss': {i / 7!r}, 'reward': {i / 9!r}, 'epoch': {i / 100}}}" for i in range(21, 61)]
    path = tmp_path / "run.log"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    fast, slow, taken = _both(path)
    _same(fast, slow)
    assert taken == 40 and fast.series["reward"].steps.size == 60
