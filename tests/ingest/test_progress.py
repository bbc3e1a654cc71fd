"""A long read shows its progress on a terminal's stderr, and never anywhere else."""

from __future__ import annotations

import io

import pytest

from rlvitals.ingest import progress, read, write_run
from rlvitals.simulate import simulate


class TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(params=["lesson", "verl-console", "csv"])
def log(request, tmp_path):
    path = tmp_path / f"run.{request.param}.log"
    write_run(simulate("healthy", seed=1, steps=3000), request.param, path)
    return path


def test_progress_on_a_terminal_for_a_big_file(monkeypatch, log):
    monkeypatch.delenv("RLVITALS_PROGRESS", raising=False)
    monkeypatch.setattr(progress, "MIN_BYTES", 1)  # "big": every file counts
    monkeypatch.setattr(progress, "REDRAW", 0.0)
    err = TTY()
    monkeypatch.setattr("sys.stderr", err)
    run = read(log)
    out = err.getvalue()
    assert run.n_steps == 3000
    assert f"rlvitals: reading {log}" in out and "%" in out and " of " in out
    assert out.endswith("\r\x1b[K")  # the line is erased at the end


def test_no_progress_in_a_pipe_or_a_file(monkeypatch, log):
    monkeypatch.delenv("RLVITALS_PROGRESS", raising=False)
    monkeypatch.setattr(progress, "MIN_BYTES", 1)
    err = io.StringIO()  # not a terminal
    monkeypatch.setattr("sys.stderr", err)
    read(log)
    assert err.getvalue() == ""


def test_no_progress_for_a_short_read_or_when_turned_off(monkeypatch, log):
    err = TTY()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.delenv("RLVITALS_PROGRESS", raising=False)
    read(log)  # small and fast: nothing to show
    monkeypatch.setattr(progress, "MIN_BYTES", 1)
    monkeypatch.setenv("RLVITALS_PROGRESS", "0")
    read(log)
    assert err.getvalue() == ""
