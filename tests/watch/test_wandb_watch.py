"""`rlvitals watch` on a W&B run that is still being written: the real wandb file (the fixtures
wandb 0.17.9 and 0.31.0 wrote) appended to its path piece by piece, cut anywhere, as a trainer does."""

from __future__ import annotations

import gzip
import io
import sys

import numpy as np
import pytest
from trackers import SWANLAB, WANDB
from trackers import WANDB_VERSIONS as VERSIONS

from rlvitals.ingest import read
from rlvitals.ingest.wandb_store import WandbRowParser
from rlvitals.watch import watch_file
from rlvitals.watch.wandb_follow import WandbFollower


def fixture_bytes(version: str) -> tuple[str, bytes]:
    (gz,) = WANDB.glob(f"{version}/*/run-*.wandb.gz")
    return gz.parent.name, gzip.decompress(gz.read_bytes())


@pytest.mark.parametrize("version", VERSIONS)
def test_a_growing_wandb_file_is_followed_to_the_same_run(version, tmp_path):
    folder, data = fixture_bytes(version)
    run_dir = tmp_path / "wandb" / folder
    run_dir.mkdir(parents=True)
    target = run_dir / "run-live.wandb"
    fol = WandbFollower(tmp_path / "wandb")
    lines, events = fol.poll()
    assert not lines and [e.kind for e in events] == ["waiting"]
    parser = WandbRowParser("live")
    rng = np.random.default_rng(1)
    at, kinds = 0, []
    with open(target, "wb") as out:
        while at < len(data):
            n = int(rng.integers(1, 9000))  # cut anywhere: inside a header, a chunk, a record
            out.write(data[at : at + n])
            out.flush()
            at += n
            lines, events = fol.poll()
            kinds += [e.kind for e in events]
            for line in lines:
                parser.feed(line)
    fol.close()
    assert kinds == ["appeared"]
    live, whole = parser.finish(), read(run_dir)
    assert live.n_steps == whole.n_steps == 300
    for name, s in whole.series.items():
        assert np.array_equal(live.series[name].steps, s.steps)
        assert np.array_equal(live.series[name].values, s.values, equal_nan=True), name
    assert live.meta["context"] == whole.meta["context"]


def test_a_newer_run_in_the_folder_and_a_truncated_file_start_a_new_run(tmp_path):
    (old_name, old), (new_name, new) = (fixture_bytes(v) for v in VERSIONS[:2])
    first = tmp_path / "wandb" / "offline-run-20260101_000000-aaaa" / "run-aaaa.wandb"
    first.parent.mkdir(parents=True)
    first.write_bytes(old)
    fol = WandbFollower(tmp_path / "wandb")
    lines, events = fol.poll()
    assert lines and not events
    first.write_bytes(old[: len(old) // 2])  # the same file, shorter: restarted
    lines, events = fol.poll()
    assert [e.kind for e in events] == ["truncated"] and lines
    second = tmp_path / "wandb" / "offline-run-20260102_000000-bbbb" / "run-bbbb.wandb"
    second.parent.mkdir(parents=True)
    second.write_bytes(new)
    lines, events = fol.poll()
    assert [e.kind for e in events] == ["wandb_run"] and str(second) in events[0].detail
    assert lines[0].startswith('{"_config": ')
    fol.close()


@pytest.mark.parametrize("version", VERSIONS[-1:])
def test_watch_once_on_a_wandb_run_folder_reports_like_diagnose(version, tmp_path):
    folder, data = fixture_bytes(version)
    run_dir = tmp_path / "wandb" / folder
    run_dir.mkdir(parents=True)
    (run_dir / "run-x.wandb").write_bytes(data[: len(data) - 100])  # a live run: its last record unfinished
    out, err = io.StringIO(), io.StringIO()
    assert watch_file(tmp_path / "wandb", once=True, out=out, err=err) == 0
    text = out.getvalue()
    assert "300 steps" in text or "299 steps" in text, text[:400]
    assert "wandb" in err.getvalue()
    sys.stdout.flush()


def test_watch_f_wandb_waits_for_a_run_folder_that_does_not_exist_yet(tmp_path):
    import threading

    folder, data = fixture_bytes(VERSIONS[-1])
    stop = threading.Event()
    out, err = io.StringIO(), io.StringIO()
    codes = []
    t = threading.Thread(
        target=lambda: codes.append(
            watch_file(tmp_path / "wandb", fmt="wandb", interval=0.05, out=out, err=err, stop=stop)
        )
    )
    t.start()

    def until(text: str) -> None:
        for _ in range(400):
            if text in err.getvalue():
                return
            stop.wait(0.025)

    try:
        until("waiting for")  # nothing there yet: watch waits, no error
        run_dir = tmp_path / "wandb" / folder
        run_dir.mkdir(parents=True)
        (run_dir / "run-x.wandb").write_bytes(data)
        until("appeared")  # … then reads it from its start
    finally:
        stop.set()
        t.join(30)
    assert codes == [0]
    assert "waiting for" in err.getvalue() and "appeared" in err.getvalue()
    assert "300 steps" in out.getvalue()


def test_a_growing_swanlab_file_is_followed_to_the_same_run(tmp_path):
    from rlvitals.ingest.swanlab_store import SwanlabRowParser
    from rlvitals.watch.wandb_follow import SwanlabFollower, record_follower

    (gz,) = (SWANLAB / "swanlog").glob("*/run-*.swanlab.gz")
    data = gzip.decompress(gz.read_bytes())
    run_dir = tmp_path / "swanlog" / gz.parent.name
    run_dir.mkdir(parents=True)
    target = run_dir / gz.name[:-3]
    target.write_bytes(b"")
    assert record_follower(tmp_path / "swanlog", "swanlab") == ("swanlab", SwanlabFollower)
    fol, parser = SwanlabFollower(tmp_path / "swanlog"), SwanlabRowParser("live")
    rng = np.random.default_rng(2)
    at = 0
    with open(target, "wb") as out:
        while at < len(data):
            n = int(rng.integers(1, 6000))
            out.write(data[at : at + n])
            out.flush()
            at += n
            for line in fol.poll()[0]:
                parser.feed(line)
    fol.close()
    live, whole = parser.finish(), read(run_dir)
    assert live.format == "swanlab" and live.n_steps == whole.n_steps == 300
    for name, s in whole.series.items():
        assert np.array_equal(live.series[name].values, s.values, equal_nan=True), name
