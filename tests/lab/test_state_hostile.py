"""Lab state on a shared machine: nothing the user owns is renamed, replaced or written through;
malformed files give a note and a fresh start; special files are refused; concurrent sessions
never tear the file."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rlvitals.cli import main
from rlvitals.lab import run_lab
from rlvitals.lab.state import Progress, StageResult, StateRefused, load_progress, save_progress

SRC = str(Path(__file__).resolve().parents[2] / "src")
GOOD = Progress(current="A", results={"1": StageResult("dead", True, 8)})


def test_a_directory_is_refused_and_left_alone(tmp_path, capsys):
    d = tmp_path / "mine"
    d.mkdir()
    (d / "keep.txt").write_text("precious")
    with pytest.raises(StateRefused, match="is a directory"):
        load_progress(d, None)
    with pytest.raises(StateRefused):
        save_progress(d, GOOD)
    assert main(["lab", "--state", str(d), "--script", "-"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a directory" in err[0]
    assert (d / "keep.txt").read_text() == "precious" and not (tmp_path / "mine.bad").exists()


def test_a_file_that_is_not_ours_is_never_renamed_or_replaced(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my thesis, chapter 3\n")
    with pytest.raises(StateRefused, match="not a progress file"):
        load_progress(notes, None)
    with pytest.raises(StateRefused):
        save_progress(notes, GOOD)
    assert notes.read_text() == "my thesis, chapter 3\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_planted_temp_symlink_is_never_written_through(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("do not touch")
    path = tmp_path / "p.json"
    for name in ("p.json.tmp", ".p.json.tmp"):
        (tmp_path / name).symlink_to(victim)
    save_progress(path, GOOD)
    assert victim.read_text() == "do not touch"
    assert load_progress(path, None)[0] == GOOD


def test_a_symlink_at_the_state_path_is_the_users_choice(tmp_path):
    real = tmp_path / "dotfiles" / "progress.json"
    real.parent.mkdir()
    link = tmp_path / "p.json"
    link.symlink_to(real)
    save_progress(link, GOOD)
    assert link.is_symlink() and json.loads(real.read_text())["levels"]["default"]["current"] == "A"


@pytest.mark.parametrize(
    "text",
    [
        '{"levels": {"default": ' + "[" * 100_000 + "]" * 100_000 + "}}",
        '{"version": 1, "levels": {"default": {"results": {"1": {"given": "x", "correct": true, "points": "8"}}}}}',
        '{"version": 1, "levels": {"default": {"current": 3}}}',
        '{"version": 1, "levels": {"default": {"current": "\\u001b[2J"}}}',
        '{"version": 1, "levels": {"default": {"hints": {"A": true}}}}',
        '{"version": 1, "levels": {"default": {"results": {"1": {"given": "x", "correct": true, "points": 1e999}}}}}',
        '{"version": 1, "levels": "x"}',
        '{"version": 1, "levels": {"default": {"seed": [1]}}}',
        '{"version": 1, "levels": \xff}',
    ],
)
def test_malformed_state_a_note_a_fresh_start_the_old_file_kept(tmp_path, text):
    path = tmp_path / "p.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape") if "\xff" not in text else text.encode("latin-1"))
    before = path.read_bytes()
    prog, note = load_progress(path, None)
    assert prog == Progress() and note and "kept as" in note
    assert (tmp_path / "p.json.bad").read_bytes() == before
    save_progress(path, GOOD)
    assert load_progress(path, None) == (GOOD, None)


def test_an_earlier_bad_file_is_never_overwritten(tmp_path):
    path = tmp_path / "p.json"
    (tmp_path / "p.json.bad").write_text("first")
    path.write_text('{"levels": 3}')
    _, note = load_progress(path, None)
    assert (tmp_path / "p.json.bad").read_text() == "first"
    assert (tmp_path / "p.json.bad.2").read_text() == '{"levels": 3}' and "p.json.bad.2" in note


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/null", "fifo"])
def test_special_files_are_refused_without_reading(tmp_path, special):
    target = tmp_path / "fifo" if special == "fifo" else Path(special)
    if special == "fifo":
        os.mkfifo(target)
    link = tmp_path / "p.json"
    link.symlink_to(target)
    with pytest.raises(StateRefused, match="not a regular file"):
        load_progress(link, None)  # returns at once: no read of /dev/zero, no FIFO wait
    with pytest.raises(StateRefused):
        save_progress(link, GOOD)
    assert link.is_symlink()


def test_a_state_turned_into_a_directory_is_refused_next_time(fake_content, tmp_path):
    path = tmp_path / "p.json"
    out = io.StringIO()
    run_lab(
        "en",
        None,
        False,
        "-",
        str(path),
        True,
        stdin=io.StringIO("next\n"),
        stdout=out,
        figures=False,
        content=fake_content,
    )
    path.unlink()
    path.mkdir()
    out = io.StringIO()
    with pytest.raises(StateRefused):
        run_lab(
            "en",
            None,
            False,
            "-",
            str(path),
            True,
            stdin=io.StringIO("next\n"),
            stdout=out,
            figures=False,
            content=fake_content,
        )
    assert path.is_dir() and not list(path.iterdir())


_WRITER = """
import sys
from pathlib import Path
from rlvitals.lab.state import Progress, StageResult, save_progress, load_progress
path, seed = Path(sys.argv[1]), int(sys.argv[2])
for i in range(40):
    save_progress(path, Progress(seed=seed, current=str(i), results={"1": StageResult("d", True, i % 10)}))
    load_progress(path, seed)          # every read in between sees a whole file
"""


def test_concurrent_sessions_never_tear_the_file(tmp_path):
    path = tmp_path / "p.json"
    env = {**os.environ, "PYTHONPATH": SRC}
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(seed)], env=env, stderr=subprocess.PIPE)
        for seed in range(6)
    ]
    errs = [p.communicate(timeout=120)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errs
    data = json.loads(path.read_text())  # whole JSON, ours
    assert data["version"] == 1 and data["levels"]
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))
    assert not list(tmp_path.glob("*.bad*"))  # no reader ever saw a torn file
