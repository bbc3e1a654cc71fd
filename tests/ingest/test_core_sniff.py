"""Sniffing: each writer's output is recognised as its own format; the choice is reported."""

from __future__ import annotations

import io

import numpy as np
import pytest

from rlvitals.ingest import FORMATS, WRITABLE, read, read_text, sniff_text, write_run
from rlvitals.ingest.tensorboard import write_scalars
from rlvitals.run import Run


def _run() -> Run:
    rng = np.random.default_rng(0)
    return Run.from_arrays(
        "s",
        np.arange(1, 21),
        {"reward": rng.uniform(size=20), "entropy": rng.uniform(size=20), "len": rng.uniform(10, 20, 20)},
    )


@pytest.mark.parametrize("fmt", ["lesson", "verl-console", "verl-jsonl", "jsonl", "csv"])
def test_writer_output_sniffs_as_its_format(fmt):
    assert fmt in WRITABLE
    buf = io.StringIO()
    write_run(_run(), fmt, buf)
    assert sniff_text(buf.getvalue()) == fmt
    assert read_text(buf.getvalue()).format == fmt


def test_every_writable_format_reads_its_own_output():
    """All formats, both helpers': a write then a read keeps reward's steps."""
    for fmt in WRITABLE:
        buf = io.StringIO()
        write_run(_run(), fmt, buf)
        back = read_text(buf.getvalue(), fmt)
        assert back.series["reward"].steps.size > 0, fmt


def test_short_aliases(tmp_path):
    p = tmp_path / "a.log"
    write_run(_run(), "verl", p)
    assert read(p, "verl").format == "verl-console"


def test_long_preamble_still_sniffed(tmp_path):
    p = tmp_path / "pre.log"
    buf = io.StringIO()
    write_run(_run(), "verl-console", buf)
    p.write_text("config line that goes on and on\n" * 4000 + buf.getvalue())
    assert read(p).format == "verl-console"


def test_tensorboard_directory_and_file(tmp_path):
    f = write_scalars(
        tmp_path / "tb",
        [("actor/entropy", s, 1.0 / (s + 1)) for s in range(10)]
        + [("critic/score/mean", s, 0.25 * s) for s in range(10)],
    )
    for target in (tmp_path / "tb", f):
        run = read(target)
        assert run.format == "tensorboard"
        assert run.series["reward"].values.tolist() == [0.25 * s for s in range(10)]
        assert run.series["entropy"].steps.tolist() == list(range(10))
    assert FORMATS["tensorboard"].sniff("[1] reward=0.5\n") == 0.0


def test_tensorboard_resumed_run_segments(tmp_path):
    d = tmp_path / "tb"
    write_scalars(d, [("loss", s, 1.0) for s in range(10)], filename="events.out.tfevents.1.a")
    write_scalars(d, [("loss", s, 2.0) for s in range(5, 12)], filename="events.out.tfevents.2.a")
    run = read(d)
    assert len(run.segments) == 2
    assert run.series["loss"].values.tolist() == [1.0] * 5 + [2.0] * 7
