"""A TensorBoard folder keeps its healthy files: a flipped byte or a bare 12-byte file in one event
file leaves that file out, named in a note, and the others are read."""

from __future__ import annotations

import pytest

from rlvitals.cli import main
from rlvitals.errors import InputError
from rlvitals.ingest import read
from rlvitals.ingest.tensorboard import write_scalars


def _healthy(d, first, last, name):
    recs = []
    for s in range(first, last):
        recs += [("train/reward", s, 0.1 + s * 0.002), ("train/entropy", s, 1.0 - s * 0.001)]
    return write_scalars(d, recs, filename=name)


@pytest.mark.parametrize("damage", ["flip", "stub12", "garbage"])
def test_one_bad_file_does_not_spoil_the_folder(tmp_path, damage, capsys):
    d = tmp_path / "logs"
    _healthy(d / "train", 1, 60, "events.out.tfevents.1.host")
    bad = _healthy(d / "eval", 1, 30, "events.out.tfevents.2.host")
    data = bytearray(bad.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0xFF
    elif damage == "stub12":
        data = bytearray(b"\x01" * 12)
    else:
        data = bytearray(b"not an event file at all, just text\n" * 3)
    bad.write_bytes(bytes(data))
    run = read(d)
    assert run.format == "tensorboard" and run.n_steps == 59
    note = next(n for n in run.notes if "left out" in n)
    assert f"eval/{bad.name}: " in note
    assert run.skipped.get("unreadable TensorBoard event file") == 1
    assert main(["vitals", str(d)]) == 0
    assert f"eval/{bad.name}:" in "".join(capsys.readouterr().out.split())


def test_a_folder_of_only_bad_files_is_still_one_error(tmp_path):
    d = tmp_path / "logs"
    bad = _healthy(d, 1, 10, "events.out.tfevents.1.host")
    data = bytearray(bad.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    with pytest.raises(InputError, match="corrupted"):
        read(d)
