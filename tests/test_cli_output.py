"""Output paths and standard output never give tracebacks: one line on stderr, exit status 2,
and no directory is ever created on the user's behalf."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rlvitals.cli import main

SRC = str(Path(__file__).resolve().parents[1] / "src")


def one_line_error(capsys, *argv: str) -> str:
    code = main(list(argv))
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("rlvitals: error: "), err
    return lines[0]


def test_plot_into_a_missing_directory_is_an_error_and_creates_nothing(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "no_such_dir" / "x.png"
    line = one_line_error(capsys, "plot", "-o", str(target))
    assert "does not exist" in line
    assert not target.parent.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["plot", "-o", "{dir}"],
        ["simulate", "healthy", "-o", "{dir}"],
        ["simulate", "healthy", "-o", "{file}", "--samples", "{dir}"],
    ],
)
def test_output_naming_a_directory(capsys, tmp_path, argv):
    argv = [a.format(dir=tmp_path, file=tmp_path / "x.log") for a in argv]
    assert "is a directory" in one_line_error(capsys, *argv)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc (a place no file can be made)")
@pytest.mark.parametrize("argv", [["plot", "-o", "/proc/x.png"], ["simulate", "healthy", "-o", "/proc/x.log"]])
def test_unwritable_place(capsys, argv):
    if argv[0] == "plot":
        pytest.importorskip("matplotlib")
    assert "cannot write /proc/x." in one_line_error(capsys, *argv)


def _cli(argv: list[str], stdout) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-m", "rlvitals", *argv],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    "argv", [["diagnose"], ["vitals"], ["simulate", "healthy", "--steps", "20"], ["formats"], ["simulate", "--list"]]
)
def test_full_disk_on_stdout(argv):
    with open("/dev/full", "w") as full:
        proc = _cli(argv, full)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert lines == ["rlvitals: error: cannot write standard output: No space left on device"], proc.stderr


def test_closed_pipe_is_quiet():
    """`rlvitals diagnose | head -1`: the reader left on purpose; no traceback, no error line."""
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rlvitals", "simulate", "healthy", "--steps", "3000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "error" not in err.lower().replace("→", ""), err
