"""Saved progress: round trip, one level per seed, damaged files set aside, default location."""

from __future__ import annotations

import io
import json

from rlvitals.lab import run_lab
from rlvitals.lab.state import Progress, StageResult, default_state_path, load_progress, save_progress


def test_round_trip_and_levels_per_seed(tmp_path):
    path = tmp_path / "sub" / "p.json"
    p = Progress(
        seed=None,
        current="A",
        results={"1": StageResult("dead entropy_collapse", True, 8, 1)},
        hints={"A": 2},
        diffed=["A"],
    )
    save_progress(path, p)
    save_progress(path, Progress(seed=3, current="2"))
    back, note = load_progress(path, None)
    assert note is None and back == p
    assert load_progress(path, 3)[0].current == "2"
    assert load_progress(path, 4)[0] == Progress(seed=4)
    assert load_progress(path, None, reset=True)[0] == Progress()
    assert not list(tmp_path.glob("sub/*.tmp"))  # atomic write leaves no temp file behind


def test_damaged_file_is_set_aside_not_lost(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"version": 1, "levels": {"default": ')  # cut short
    prog, note = load_progress(path, None)
    assert prog == Progress() and "kept as" in note
    assert (tmp_path / "p.json.bad").read_text() == '{"version": 1, "levels": {"default": '
    path.write_text(json.dumps({"levels": {"default": {"results": {"1": {"nonsense": 1}}}}}))
    prog, note = load_progress(path, None)
    assert prog == Progress() and note


def test_damaged_file_is_reported_in_one_line(fake_content, tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"levels": []}')
    out = io.StringIO()
    run_lab(
        "en",
        None,
        False,
        "-",
        str(path),
        True,
        stdin=io.StringIO("score\n"),
        stdout=out,
        figures=False,
        content=fake_content,
    )
    first = out.getvalue().splitlines()[0]
    assert first.startswith("Saved progress could not be read (") and "starting fresh" in first
    assert json.loads(path.read_text())["levels"]["default"]["results"] == {}


def test_unwritable_state_says_so_once_and_plays_on(fake_content, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = io.StringIO()
    run_lab(
        "en",
        None,
        False,
        "-",
        str(blocker / "p.json"),
        True,
        stdin=io.StringIO("next\nanswer l\nscore\n"),
        stdout=out,
        figures=False,
        content=fake_content,
    )
    text = out.getvalue()
    assert text.count("Progress cannot be saved to") == 1
    assert "Score 10/130" in text


def test_default_path_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_state_path() == tmp_path / "rlvitals" / "lab-progress.json"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_state_path() == tmp_path / ".local" / "share" / "rlvitals" / "lab-progress.json"
