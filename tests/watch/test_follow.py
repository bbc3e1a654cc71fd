"""Following a file the way a trainer writes it: late, growing, half lines, truncated, rotated."""

from __future__ import annotations

import os

import pytest

from rlvitals.watch.follow import MAX_LINE, Follower, FollowEvent, split_records


def kinds(events):
    return [e.kind for e in events]


def append(path, text, mode="a"):
    with open(path, mode, encoding="utf-8", newline="") as f:
        f.write(text)


def test_split_records_universal_newlines():
    assert split_records("a\nb\r\nc\rd") == (["a", "b", "c"], "d")
    # a lone trailing \r may be half of \r\n: keep it for the next chunk
    assert split_records("a\r") == ([], "a\r")
    assert split_records("a\r\n") == (["a"], "")
    assert split_records("") == ([], "")


def test_missing_file_waits_then_reads_from_start(tmp_path):
    p = tmp_path / "train.log"
    f = Follower(p)
    lines, ev = f.poll()
    assert lines == [] and kinds(ev) == ["waiting"]
    assert f.poll() == ([], [])  # said once, not on every poll
    append(p, "one\ntwo\n")
    lines, ev = f.poll()
    assert lines == ["one", "two"] and kinds(ev) == ["appeared"]


def test_growth_and_partial_last_line(tmp_path):
    p = tmp_path / "train.log"
    append(p, "first\nsec")
    f = Follower(p)
    assert f.poll() == (["first"], [])
    append(p, "ond\nthi")
    assert f.poll()[0] == ["second"]
    assert f.poll()[0] == []
    append(p, "rd\n")
    assert f.poll()[0] == ["third"]
    assert f.lines_read == 3


def test_tqdm_carriage_returns_are_line_breaks(tmp_path):
    p = tmp_path / "train.log"
    append(p, "10%|#\r20%|##\r")
    f = Follower(p)
    assert f.poll()[0] == ["10%|#"]
    append(p, "\nstep=1 reward=0.5\n")
    assert f.poll()[0] == ["20%|##", "step=1 reward=0.5"]


def test_truncation_restarts_from_zero_and_says_so(tmp_path):
    p = tmp_path / "train.log"
    append(p, "a1\na2\na3\n")
    f = Follower(p)
    assert f.poll()[0] == ["a1", "a2", "a3"]
    append(p, "b1\n", mode="w")  # the trainer reopened the file with "w"
    lines, ev = f.poll()
    assert lines == ["b1"]
    assert kinds(ev) == ["truncated"] and ev[0].old == 9 and ev[0].new == 3


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_rotation_drains_late_lines_of_the_old_file_before_the_new(tmp_path):
    p, old = tmp_path / "train.log", tmp_path / "train.log.1"
    append(p, "old1\n")
    clock = Clock()
    f = Follower(p, rotate_grace=2.0, clock=clock)
    assert f.poll()[0] == ["old1"]
    append(p, "old2\nold-part")
    os.rename(p, old)  # logrotate: the trainer still holds the old file open
    append(p, "new1\n")
    assert f.poll() == (["old2"], [])
    append(old, "ial\nold3\n")  # written late to the old file, after the rotation
    clock.now = 1.0
    assert f.poll() == (["old-partial", "old3"], [])
    clock.now = 2.0
    assert f.poll() == ([], [])  # quiet since 2.0: not yet for rotate_grace seconds
    append(old, "old4\n")
    clock.now = 3.0
    assert f.poll() == (["old4"], [])
    clock.now = 3.5
    assert f.poll() == ([], [])
    clock.now = 6.0
    lines, ev = f.poll()
    assert lines == ["new1"] and kinds(ev) == ["rotated"]
    append(p, "new2\n")
    assert f.poll() == (["new2"], [])
    assert f.lines_read == 7  # every line, the old file's before the new file's


def test_rotation_ends_the_half_written_line_of_the_old_file(tmp_path):
    p = tmp_path / "train.log"
    append(p, "old1\n")
    f = Follower(p, rotate_grace=0)
    assert f.poll()[0] == ["old1"]
    append(p, "old2\nold-partial")
    os.rename(p, tmp_path / "train.log.1")
    append(p, "new1\n")
    got, ev = [], []
    for _ in range(3):
        lines, e = f.poll()
        got += lines
        ev += e
    assert got == ["old2", "old-partial", "new1"] and kinds(ev) == ["rotated"]


def test_vanished_then_back(tmp_path):
    p = tmp_path / "train.log"
    append(p, "x\n")
    f = Follower(p, rotate_grace=0)
    f.poll()
    append(p, "y\n")
    os.remove(p)
    lines, ev = f.poll()
    assert lines == ["y"] and kinds(ev) == ["vanished"]
    assert f.poll() == ([], [])  # said once
    append(p, "z\n")
    lines, ev = f.poll()
    assert lines == ["z"] and kinds(ev) == ["rotated"]


def test_moved_away_and_back_is_the_same_file(tmp_path):
    p, aside = tmp_path / "train.log", tmp_path / "aside.log"
    append(p, "a\n")
    f = Follower(p, rotate_grace=0)
    assert f.poll()[0] == ["a"]
    os.rename(p, aside)
    append(aside, "b\n")
    assert f.poll() == (["b"], [FollowEvent("vanished")])
    os.rename(aside, p)
    append(p, "c\n")
    assert f.poll() == (["c"], [])  # not re-read from its start


@pytest.mark.parametrize("same_header", [True, False])
def test_truncate_and_refill_past_the_old_size_is_a_new_file(tmp_path, same_header):
    p = tmp_path / "train.log"
    append(p, "config: lr=1e-6\n" + "".join(f"step={i} reward=0.{i}\n" for i in range(1, 4)) + "step=4 rew")
    f = Follower(p)
    assert f.poll()[0] == ["config: lr=1e-6", "step=1 reward=0.1", "step=2 reward=0.2", "step=3 reward=0.3"]
    size = p.stat().st_size
    head = "config: lr=1e-6\n" if same_header else "resumed: lr=2e-6 (a different banner)\n"
    refill = head + "".join(f"step={i} reward=0.{i}{i}\n" for i in range(1, 12))
    append(p, refill, mode="w")  # reopened with "w" and written fast, between two polls
    assert p.stat().st_size > size
    lines, ev = f.poll()
    assert kinds(ev) == ["rewritten"]
    # the whole new content, and no fragment of the old half line glued to it
    assert lines == refill.splitlines()
    append(p, "step=12 reward=0.5\n")
    assert f.poll() == (["step=12 reward=0.5"], [])


def test_unreadable_file_is_said_once_and_retried(tmp_path):
    p = tmp_path / "train.log"
    append(p, "one\n")
    denied = [True]

    def opener(path):
        if denied[0]:
            raise PermissionError(13, "Permission denied", str(path))
        return open(path, "rb")

    f = Follower(p, opener=opener)
    lines, ev = f.poll()
    assert lines == [] and kinds(ev) == ["unreadable"] and ev[0].detail == "Permission denied"
    assert f.poll() == ([], []) and f.poll() == ([], [])  # once, not on every poll
    denied[0] = False
    lines, ev = f.poll()
    assert lines == ["one"] and kinds(ev) == ["readable"]


def test_a_directory_in_place_of_the_file_is_said_once(tmp_path):
    p = tmp_path / "train.log"
    append(p, "one\n")
    f = Follower(p, rotate_grace=0)
    assert f.poll()[0] == ["one"]
    append(p, "two\n")
    os.rename(p, tmp_path / "old.log")
    p.mkdir()
    lines, ev = f.poll()
    assert lines == ["two"] and ev == []  # the old file drained first
    lines, ev = f.poll()
    assert lines == [] and kinds(ev) == ["unreadable"] and "directory" in ev[0].detail
    assert f.poll() == ([], [])
    p.rmdir()
    append(p, "three\n")
    lines, ev = f.poll()
    assert lines == ["three"] and kinds(ev) == ["rotated"]


def test_tail_mode_skips_existing_content_only(tmp_path):
    p = tmp_path / "train.log"
    append(p, "history\n")
    f = Follower(p, from_start=False)
    assert f.poll() == ([], [])
    append(p, "live\n")
    assert f.poll()[0] == ["live"]


def test_multibyte_character_split_across_reads(tmp_path):
    p = tmp_path / "train.log"
    data = "熵=0.5 步=1\n".encode()
    f = Follower(p, chunk=1)  # one byte per read budget: every character is cut
    with open(p, "wb") as fh:
        fh.write(data)
    got = []
    for _ in range(len(data) + 2):
        got += f.poll()[0]
    assert got == ["熵=0.5 步=1"]


def test_backlog_is_read_in_chunks_and_reported(tmp_path):
    p = tmp_path / "train.log"
    append(p, "".join(f"line {i}\n" for i in range(1000)))
    f = Follower(p, chunk=1000)
    lines, _ = f.poll()
    assert f.more_pending and 0 < len(lines) < 1000
    total = len(lines)
    while f.more_pending:
        total += len(f.poll()[0])
    assert total == 1000 and not f.more_pending


def test_overlong_line_is_cut_and_reported(tmp_path):
    p = tmp_path / "train.log"
    with open(p, "w") as fh:
        fh.write("x" * (MAX_LINE + 10))
    f = Follower(p)
    lines, ev = [], []
    for _ in range(4):
        got, e = f.poll()
        lines += got
        ev += e
    assert "overlong" in kinds(ev)
    assert len(lines) == 1 and len(lines[0]) > MAX_LINE


def test_invalid_utf8_is_replaced_not_raised(tmp_path):
    p = tmp_path / "train.log"
    with open(p, "wb") as fh:
        fh.write(b"ok \xff\xfe bytes\n")
    assert Follower(p).poll()[0] == ["ok \ufffd\ufffd bytes"]


def test_flush_returns_unfinished_line(tmp_path):
    p = tmp_path / "train.log"
    append(p, "done\nhalf")
    f = Follower(p)
    assert f.poll()[0] == ["done"]
    assert f.flush() == ["half"]
    assert f.flush() == []
