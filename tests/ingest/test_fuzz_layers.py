"""Fuzz targets for what test_fuzz.py's text mutations do not reach: the compressed layers, the
binary readers (TensorBoard event files, rlwatch's SQLite store), the notebook's HTML, saved lab
state, the follower fed arbitrary chunks, and the one rule on control characters.

The property everywhere: a result or one of our one-line errors, never another exception.  Sized
for the default suite (a few seconds a target); RLVITALS_FUZZ_EXAMPLES=10000 is the long run."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlvitals.errors import RlvitalsError
from rlvitals.ingest import read
from rlvitals.ingest.tensorboard import write_scalars
from rlvitals.lab.state import Progress, StateRefused, load_progress, save_progress
from rlvitals.run import Run
from rlvitals.safe_text import colours, escape_controls, paint
from rlvitals.watch.follow import Follower

EXAMPLES = int(os.environ.get("RLVITALS_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
LOG = "".join(
    f"[{s:4d}] reward={0.1 + s * 0.003:.3f} acc={20 + s * 0.1:.1f}% entropy=0.9 kl=0.001\n" for s in range(1, 121)
).encode()


def _packers():
    out = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}
    try:
        import zstandard

        out["zstd"] = zstandard.ZstdCompressor().compress
    except ImportError:
        pass
    return out


PACKED = {k: f(LOG) for k, f in _packers().items()}
PACKED["gzip-in-xz"] = lzma.compress(gzip.compress(LOG))


def _tb_seed() -> bytes:
    with tempfile.TemporaryDirectory() as d:
        recs = [(t, s, 0.5 + s * 0.01) for s in range(1, 40) for t in ("train/reward", "train/entropy")]
        return write_scalars(d, recs, filename="events.out.tfevents.seed").read_bytes()


TB = _tb_seed()


def _db_seed() -> bytes:
    """A small rlwatch store (two runs, an extra_json column, an alerts table): a few KB."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "metrics.db"
        con = sqlite3.connect(p)
        con.execute(
            "CREATE TABLE metrics (id INTEGER PRIMARY KEY, run_id TEXT, step INTEGER, timestamp REAL, "
            "entropy REAL, kl_divergence REAL, reward_mean REAL, extra_json TEXT)"
        )
        con.execute("CREATE TABLE runs (run_id TEXT, started_at REAL)")
        con.execute("CREATE TABLE alerts (run_id TEXT, step INTEGER, message TEXT)")
        con.executemany(
            "INSERT INTO metrics (run_id, step, timestamp, entropy, kl_divergence, reward_mean, "
            "extra_json) VALUES (?, ?, 0, ?, 0.01, ?, ?)",
            (
                (r, s, 1.0 - s * 0.01, 0.1 + s * 0.01, json.dumps({"acc": s / 100}))
                for r in ("a", "b")
                for s in range(1, 30)
            ),
        )
        con.executemany("INSERT INTO runs VALUES (?, ?)", [("a", 1.0), ("b", 2.0)])
        con.execute("INSERT INTO alerts VALUES ('b', 3, 'x')")
        con.commit()
        con.close()
        return p.read_bytes()


DB = _db_seed()


@st.composite
def mutate(draw, seed: bytes) -> bytes:
    out = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "truncate", "insert", "delete", "duplicate"]))
        n = len(out)
        at = draw(st.integers(0, max(0, n - 1)))
        if op == "flip" and n:
            out[at] ^= draw(st.integers(1, 255))
        elif op == "truncate":
            del out[at:]
        elif op == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif op == "delete":
            del out[at : at + draw(st.integers(1, 64))]
        elif op == "duplicate":
            out[at:at] = out[at : at + draw(st.integers(1, 256))]
    return bytes(out)


@pytest.fixture(scope="module")
def scratch():
    d = Path(tempfile.mkdtemp(prefix="rlvitals-fuzz-"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def checked(path: Path, fmt: str | None = None) -> Run | None:
    try:
        run = read(path, fmt)
    except RlvitalsError as e:
        assert str(e) and "\n" not in str(e)
        return None
    assert isinstance(run, Run)
    for s in run.series.values():
        assert s.steps.dtype == np.int64 and (s.steps.size == 0 or np.all(np.diff(s.steps) > 0))
    return run


@pytest.mark.parametrize("kind", sorted(PACKED))
@FUZZ
@given(data=st.data())
def test_compressed_layers(scratch, kind, data):
    blob = data.draw(mutate(PACKED[kind]))
    p = scratch / "fuzz.log.gz"
    p.write_bytes(blob)
    run = checked(p)
    if run is not None and "reward" in run.series:
        assert run.series["reward"].steps.size <= 120


@FUZZ
@given(blob=mutate(TB))
def test_tensorboard_event_file(scratch, blob):
    p = scratch / "events.out.tfevents.fuzz"
    p.write_bytes(blob)
    checked(p, "tensorboard")


@FUZZ
@given(blob=mutate(TB))
def test_tensorboard_folder_with_one_mutated_file(scratch, blob):
    d = scratch / "tb"
    shutil.rmtree(d, ignore_errors=True)
    (d / "a").mkdir(parents=True)
    (d / "b").mkdir()
    (d / "a" / "events.out.tfevents.1").write_bytes(TB)
    (d / "b" / "events.out.tfevents.2").write_bytes(blob)
    run = checked(d, "tensorboard")
    assert run is not None and run.n_steps >= 39  # the healthy file always counts


@FUZZ
@given(blob=mutate(DB))
def test_sqlite_store(scratch, blob):
    p = scratch / "metrics.db"
    p.write_bytes(blob)
    checked(p, "rlwatch-sqlite")


HTML_TOKENS = st.sampled_from(
    [
        "<table>",
        "</table>",
        "<tr>",
        "</tr>",
        "<th>",
        "</th>",
        "<td>",
        "</td>",
        "<!--",
        "-->",
        "<![CDATA[",
        "]]>",
        "<?x",
        "<!DOCTYPE",
        "<script>",
        "</script>",
        "<a",
        "<",
        ">",
        "&amp;",
        "&#x1b;",
        "&",
        "Step",
        "reward",
        "kl",
        "0.5",
        "12",
        "No log",
        " ",
        "\n",
        '"',
        "=",
        "\x1b[2J",
        "\u009b",
    ]
)


@FUZZ
@given(tokens=st.lists(HTML_TOKENS, max_size=300))
def test_notebook_html(scratch, tokens):
    html = "<table><tr><th>Step</th><th>reward</th></tr>" + "".join(tokens)
    doc = {
        "cells": [{"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {"text/html": html}}]}],
        "metadata": {},
        "nbformat": 4,
    }
    p = scratch / "fuzz.ipynb"
    p.write_text(json.dumps(doc))
    checked(p, "notebook")


STATE = json.dumps(
    {
        "version": 1,
        "levels": {
            "default": {
                "seed": None,
                "current": "A",
                "results": {
                    "1": {
                        "given": "dead",
                        "correct": True,
                        "points": 8,
                        "hints": 0,
                        "partial": False,
                        "revealed": False,
                    }
                },
                "hints": {"A": 1},
                "diffed": ["A"],
            }
        },
    }
).encode()


@FUZZ
@given(blob=st.one_of(mutate(STATE), st.binary(max_size=300)))
def test_lab_state(scratch, blob):
    d = scratch / "state"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    p = d / "p.json"
    p.write_bytes(blob)
    try:
        prog, note = load_progress(p, None)
    except StateRefused as e:
        assert "\n" not in str(e) and p.read_bytes() == blob  # refused: nothing touched
        return
    assert isinstance(prog, Progress)
    if note:  # set aside whole
        assert (d / "p.json.bad").read_bytes() == blob
    save_progress(p, prog)
    assert load_progress(p, None) == (prog, None)


@FUZZ
@given(chunks=st.lists(st.binary(max_size=200), max_size=12))
def test_follower_on_arbitrary_bytes(scratch, chunks):
    p = scratch / "follow.log"
    p.write_bytes(b"")
    f = Follower(p, rotate_grace=0)
    got: list[str] = []
    try:
        for c in chunks:
            with open(p, "ab") as fh:
                fh.write(c)
            lines, _ = f.poll()
            got += lines
        got += f.flush()
    finally:
        f.close()
    joined = b"".join(chunks).decode("utf-8", "replace")
    assert len(got) <= len(joined.splitlines()) + 1  # text mode's line breaks
    assert all(isinstance(x, str) and "\n" not in x for x in got)


CONTROL = [chr(c) for c in range(32) if c not in (9, 10)] + [chr(c) for c in range(0x7F, 0xA0)] + ["\u202e", "\u2066"]


@FUZZ
@given(text=st.text(alphabet=st.one_of(st.sampled_from(CONTROL + ["\ufdd0", "\ufdd1"]), st.characters()), max_size=200))
def test_no_control_character_survives_the_rule(text):
    for out in (escape_controls(text), colours(text), colours(paint(text, "31"))):
        stripped = out.replace("\x1b[31m", "").replace("\x1b[0m", "")
        assert not any(c in stripped for c in CONTROL)
