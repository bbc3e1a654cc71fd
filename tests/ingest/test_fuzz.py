"""Fuzzing every registered reader, and format sniffing (`read` with no format), with hypothesis.

Inputs: random bytes, random text lines built from the characters logs are made of, and mutations
of every real fixture (tests/fixtures/real: a window of lines around a log's first metric line; a
JSON document whole; a notebook cut to its Trainer table's first rows) and of a small run written
in every writable format: truncation, splices, duplicated and dropped lines,
NUL / control / escape bytes, numbers replaced by huge / inf / nan / 5,000-digit numbers, nesting a
thousand deep.  The property: a `Run` or an `RlvitalsError` (one line for the user), never another
exception; steps in range and ordered; every count in `Run.skipped` positive; and when only numbers
were replaced in a one-row-per-line format, rows kept + lines/values skipped >= the rows before.

Reproducible (derandomize=True: the same examples on every machine) and sized for CI;
RLVITALS_FUZZ_EXAMPLES=10000 makes it the long run (examples per target).
A CLI pass runs `rlvitals diagnose` in a subprocess on a few nasty files: exit 0, or 2 with one
line on stderr, never a traceback.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from realdata import REAL, REAL_LOGS

from rlvitals.errors import RlvitalsError
from rlvitals.ingest import FORMATS, WRITABLE, example_path, open_parser, read, write_run
from rlvitals.ingest.values import STEP_LIMIT
from rlvitals.run import Run

FUZZ = settings(
    max_examples=int(os.environ.get("RLVITALS_FUZZ_EXAMPLES", "100")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
TARGETS = [*sorted(FORMATS), None]  # None: the format is sniffed
ONE_ROW_PER_LINE = {
    "lesson",
    "verl-console",
    "verl-jsonl",
    "jsonl",
    "csv",
    "openrlhf",
    "roll",
    "torchtune",
    "primerl-console",
    "trl-console",
}

NASTY_NUMBERS = [
    "1" + "0" * 20,
    "inf",
    "-inf",
    "nan",
    "NaN",
    "1e300",
    "-1e+300",
    "1e400",
    "9" * 400,
    "9" * 5000,
    "-1",
    "0",
    "00012",
    "1.5",
]
NASTY_BYTES = [
    "\x00",
    "\x00\x00",
    "\x1b[31m",
    "\x1b[",
    "\r",
    "\x0b",
    "\x0c",
    "\x7f",
    "\ufeff",
    "\u2028",
    "\x85",
    "\t",
    "'",
    '"',
    "{",
    "}",
    "[",
    "]",
    ":",
    "|",
    "=",
    "%",
    " - ",
    ",",
]
DEEP = [
    "{'a': " * 1000,
    "[" * 1000,
    '{"a": ' * 1000,
    "np.float64(" * 1000,
    "(" * 1000,
    "tensor(" * 300,
    "'" * 1000,
    "}" * 1000,
]
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


# -- seeds ------------------------------------------------------------------------------------------
def _example_texts() -> list[tuple[str, str]]:
    """A 25-step run written in every writable format."""
    run = read(example_path()).upto(24)
    out = []
    for fmt in WRITABLE:
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "seed.txt"
            write_run(run, fmt, p)
            out.append((fmt, p.read_text(encoding="utf-8")))
    return out


def _fixture_windows() -> list[tuple[str, str]]:
    """40 lines around each real log's first metric line, and its last 30 lines."""
    out = []
    for path in REAL_LOGS.values():
        run = read(path)
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        first = max(0, run.segments[0].first_line - 6) if run.segments else 0
        if run.format == "csv":
            first = 0  # keep the header
        out.append((run.format, "".join(lines[first : first + 40])))
        if run.format != "csv":
            out.append((run.format, "".join(lines[-30:])))
    return out


def _document_seeds() -> list[tuple[str, str]]:
    """The real fixtures read whole (JSON documents, notebooks), cut down to a few KB: a small
    JSON document as it is; a notebook as its first cell with a Trainer table, 30 rows kept."""
    out = []
    for path in sorted(REAL.iterdir()):
        if path in REAL_LOGS.values() or path.name == "README.md":
            continue
        fmt = read(path).format
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".ipynb":
            doc = json.loads(text)
            cell = next(c for c in doc["cells"] if "<table" in json.dumps(c))
            outputs = []
            for o in cell.get("outputs", []):
                html = "".join(o.get("data", {}).get("text/html", ""))
                if "text" in o:
                    outputs.append({**o, "text": "".join(o["text"])[:2000]})
                elif "<table" in html:
                    rows = html.split("</tr>")
                    outputs.append({**o, "data": {"text/html": "</tr>".join(rows[:31]) + "</tr></tbody></table>"}})
            cell = {**cell, "outputs": outputs}
            text = json.dumps(
                {
                    "cells": [cell],
                    "metadata": {},
                    "nbformat": doc.get("nbformat", 4),
                    "nbformat_minor": doc.get("nbformat_minor", 5),
                },
                indent=1,
            )
        if len(text) <= 60_000:
            out.append((fmt, text))
    return out


SEEDS = _example_texts() + _fixture_windows() + _document_seeds()
SEED_FORMATS = sorted({fmt for fmt, _ in SEEDS})


# -- strategies -------------------------------------------------------------------------------------
LOG_CHARS = st.sampled_from(
    list("0123456789.-+eE:=|{}[](),'\" \t%/_abcdefgklmnoprstxyz")
    + [
        "step",
        "Step ",
        "reward",
        "np.float64(",
        "tensor(",
        "nan",
        "inf",
        "None",
        "Global step ",
        "metrics_tag: ",
        "rollout ",
        "\x00",
        "\x1b[0m",
        "\r",
        "é",
        "步",
    ]
)
TEXT_LINES = st.lists(st.lists(LOG_CHARS, max_size=40).map("".join), max_size=25).map(
    lambda lines: "\n".join(lines) + "\n"
)


@st.composite
def mutated(draw, seeds=SEEDS, numbers_only=False):
    """(format of the seed, the seed, the mutated text)."""
    fmt, text = draw(st.sampled_from(seeds))
    out = text
    for _ in range(draw(st.integers(1, 4))):
        op = (
            "number"
            if numbers_only
            else draw(
                st.sampled_from(
                    ["number", "number", "truncate", "splice", "duplicate", "drop", "inject", "deep", "other_seed"]
                )
            )
        )
        if op == "number":
            spans = [m.span() for m in _NUMBER.finditer(out)]
            if spans:
                a, b = spans[draw(st.integers(0, len(spans) - 1))]
                out = out[:a] + draw(st.sampled_from(NASTY_NUMBERS)) + out[b:]
            continue
        n = len(out)
        at = draw(st.integers(0, n))
        if op == "truncate":
            out = out[:at]
        elif op == "splice":
            a, b = sorted((draw(st.integers(0, n)), draw(st.integers(0, n))))
            out = out[:at] + out[a:b] + out[at:]
        elif op in ("duplicate", "drop"):
            lines = out.splitlines(keepends=True)
            if lines:
                i = draw(st.integers(0, len(lines) - 1))
                lines[i : i + 1] = [lines[i]] * draw(st.integers(2, 50)) if op == "duplicate" else []
                out = "".join(lines)
        elif op == "inject":
            out = out[:at] + draw(st.sampled_from(NASTY_BYTES)) * draw(st.integers(1, 3)) + out[at:]
        elif op == "deep":
            out = out[:at] + draw(st.sampled_from(DEEP)) + out[at:]
        elif op == "other_seed":
            other = draw(st.sampled_from(seeds))[1]
            out = out[:at] + other[draw(st.integers(0, len(other))) :]
    return fmt, text, out


# -- the property -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def scratch():
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def read_checked(path: Path, fmt: str | None) -> Run | None:
    """`read` must return a sound Run or raise an RlvitalsError; anything else fails the test."""
    try:
        run = read(path, fmt)
    except RlvitalsError as e:
        assert str(e) and "\n" not in str(e)
        return None
    assert isinstance(run, Run)
    assert all(isinstance(n, int) and n > 0 for n in run.skipped.values()), run.skipped
    for s in [*run.series.values(), *run.extras.values()]:
        assert s.steps.dtype == np.int64 and s.values.dtype == np.float64
        if s.steps.size:
            assert s.steps[0] >= 0 and s.steps[-1] < STEP_LIMIT
            assert np.all(np.diff(s.steps) > 0)
    return run


def _file(scratch: Path, fmt: str | None, data: bytes) -> Path:
    # tensorboard reads files by content; the others by any name
    p = scratch / ("events.out.tfevents.fuzz" if fmt == "tensorboard" else "fuzz.log")
    p.write_bytes(data)
    return p


@pytest.mark.parametrize("fmt", TARGETS)
@FUZZ
@given(data=st.binary(max_size=2000))
def test_random_bytes(scratch, fmt, data):
    read_checked(_file(scratch, fmt, data), fmt)


@pytest.mark.parametrize("fmt", TARGETS)
@FUZZ
@given(text=TEXT_LINES)
def test_random_text_lines(scratch, fmt, text):
    read_checked(_file(scratch, fmt, text.encode("utf-8")), fmt)


@pytest.mark.parametrize("fmt", TARGETS)
@FUZZ
@given(case=mutated())
def test_mutated_logs(scratch, fmt, case):
    _, _, text = case
    read_checked(_file(scratch, fmt, text.encode("utf-8", "replace")), fmt)


LINE_FORMATS = sorted(name for name, f in FORMATS.items() if f.parser is not None)


@pytest.mark.parametrize("fmt", LINE_FORMATS)
@FUZZ
@given(case=mutated())
def test_incremental_parsers_as_watch_feeds_them(fmt, case):
    """`watch` feeds the line parsers one line at a time (the lesson format's LineParser is not the
    block reader `read` uses) and snapshots as it goes: neither may raise."""
    parser = open_parser(fmt, "fuzz")
    lines = case[2].splitlines(keepends=True)
    for i, line in enumerate(lines):
        parser.feed(line)
        if i % 7 == 0:
            parser.snapshot()
    run = parser.finish()
    assert all(isinstance(n, int) and n > 0 for n in run.skipped.values())


@pytest.mark.parametrize("fmt", sorted(ONE_ROW_PER_LINE & set(SEED_FORMATS)))
@FUZZ
@given(data=st.data())
def test_replaced_numbers_are_counted_not_lost(scratch, fmt, data):
    _, seed, text = data.draw(mutated([s for s in SEEDS if s[0] == fmt], numbers_only=True))
    rows_before = _rows_before(scratch, fmt, seed)
    after = read_checked(_file(scratch, fmt, text.encode("utf-8")), fmt)
    kept = _rows(after) + sum(after.skipped.values()) if after is not None else 0
    assert kept >= rows_before, after.skipped if after is not None else None
    if after is not None and "inf" not in text.lower():
        # a number too large for a float64 is counted, never stored as an infinity nobody logged
        for s in [*after.series.values(), *after.extras.values()]:
            assert not np.isinf(s.values).any(), s.name


def _rows(run: Run) -> int:
    """Rows read from the file, over every run in it (a step replaced by 0 starts a new run)."""
    return sum(seg.rows for r in (run.file_runs or [run]) for seg in r.segments)


_ROWS_BEFORE: dict[tuple[str, str], int] = {}


def _rows_before(scratch: Path, fmt: str, seed: str) -> int:
    """`_rows` of the seed as read (and checked) once: the examples mutate a handful of seeds."""
    if (fmt, seed) not in _ROWS_BEFORE:
        before = read_checked(_file(scratch, fmt, seed.encode("utf-8")), fmt)
        _ROWS_BEFORE[fmt, seed] = _rows(before) if before is not None else 0
    return _ROWS_BEFORE[fmt, seed]


# -- the CLI ----------------------------------------------------------------------------------------
NASTY_FILES = {
    "deep.jsonl": '{"step": 1, "reward": 0.5}\n{"step": 2, "r": ' + "[" * 5000 + "]" * 5000 + "}\n",
    "huge-step.log": "[1] reward=0.5 entropy=1.2\n[" + "9" * 5000 + "] reward=0.5\n[2] reward=0.6 entropy=1.1\n",
    "bigint.jsonl": '{"step": 1, "reward": 0.5}\n{"step": 2, "reward": ' + "9" * 400 + "}\n",
    "nul.log": "step:1 - critic/score/mean:0.5\x00\x00 - actor/entropy:1.0\nstep:2 - critic/score/mean:0.6\n",
    "random.bin": bytes(np.random.default_rng(0).integers(0, 256, 4000, dtype=np.uint8)).decode("latin-1"),
    "state.json": '{"log_history": [{"step": 1e300, "loss": 1}, {"step": 2, "loss": ' + "[" * 3000 + "]" * 3000 + "}]}",
    "long-torchtune.log": "Step 1 | " + "a" * 300_000 + "\nStep 2 | rewards:0.5 \n",
    "inf-steps.csv": "_step,reward\ninf,0.5\nnan,0.4\n1e300,0.3\n-1,0.2\n",
    "wrapped.log": "step:1 - a:" + "np.float64(" * 2000 + "1" + ")" * 2000 + "\n",
    "one-step.log": "[1] reward=nan entropy=inf kl=-inf\n",
}


def test_cli_never_prints_a_traceback(tmp_path):
    for name, text in NASTY_FILES.items():
        p = tmp_path / name
        p.write_bytes(text.encode("latin-1") if name.endswith(".bin") else text.encode("utf-8"))
        proc = subprocess.run(
            [sys.executable, "-m", "rlvitals", "diagnose", str(p)], capture_output=True, text=True, timeout=120
        )
        assert "Traceback" not in proc.stderr, (name, proc.stderr[-2000:])
        assert proc.returncode in (0, 2), (name, proc.returncode, proc.stderr[-500:])
        if proc.returncode == 2:
            assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("rlvitals: error:"), (name, proc.stderr)
