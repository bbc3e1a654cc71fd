"""W&B offline runs, read from files the real `wandb` library wrote (tests/fixtures/wandb/, two
versions whose records differ; make.py there regenerates them) and, when wandb is installed, from
a run written during the test."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from trackers import CONTEXT, JSONL, WANDB, gunzip, load_maker, same_series
from trackers import WANDB_VERSIONS as VERSIONS

from rlvitals.errors import NotAFile
from rlvitals.ingest import read, read_all
from rlvitals.ingest.wandb_store import BLOCK, Decoder, read_one, read_slow, wandb_files


def unpack(version: str, dest: Path) -> Path:
    """The fixture run of one wandb version as wandb left it: dest/wandb/offline-run-…/run-….wandb."""
    (gz,) = WANDB.glob(f"{version}/*/run-*.wandb.gz")
    return gunzip(gz, dest / "wandb" / gz.parent.name / gz.name[:-3])


def test_two_wandb_versions_are_fixtures():
    assert len(VERSIONS) >= 2, VERSIONS


@pytest.mark.parametrize("version", VERSIONS)
def test_run_reads_back_from_folder_file_and_wandb_dir_like_its_metrics_jsonl(version, tmp_path):
    file = unpack(version, tmp_path)
    ref = read(JSONL)
    assert ref.n_steps == 300
    for path in (file, file.parent, tmp_path / "wandb", tmp_path):
        run = read(path)
        assert run.format == "wandb"
        assert run.n_steps == 300 and int(run.steps[0]) == 0 and int(run.steps[-1]) == 299
        same_series(ref, run)
    # what reading kept besides the curves: the config as context, the summary, the run's identity
    assert run.meta["context"] == CONTEXT
    assert run.meta["config"]["model_name"] == "Qwen/Qwen3-4B"
    assert run.meta["summary"]["best_correct"] == max(ref.components["correct"].values)
    assert run.meta["wandb"]["run_id"] in file.name and run.meta["wandb"]["wandb_version"] == version
    gap = run.series["ratio_mean"]  # (Tinker's sampler-learner gap, the ratio's stand-in)
    assert gap.source == "optim/kl_sample_train_v1" and np.isnan(gap.values[137])  # a logged NaN is kept
    assert run.dropped == {"non-numeric values": 1}  # the one string logged
    assert not run.skipped


@pytest.mark.parametrize("version", VERSIONS)
def test_a_cut_file_reads_up_to_its_last_whole_record(version, tmp_path):
    data = unpack(version, tmp_path / "src").read_bytes()
    whole = read(tmp_path / "src" / "wandb")
    steps = []
    for cut in (len(data) // 3, len(data) // 2 + 5, len(data) - 3):
        part = tmp_path / f"cut{cut}" / "run-x.wandb"
        part.parent.mkdir()
        part.write_bytes(data[:cut])
        run = read(part)  # no error
        assert run.skipped == {"unfinished W&B record at the end": 1}
        assert any("unfinished W&B record" in str(n) for n in run.notes)
        assert 0 < run.n_steps <= whole.n_steps
        k = run.n_steps
        assert np.array_equal(run["reward"].values, whole["reward"].values[:k])
        steps.append(k)
    assert steps == sorted(steps) and steps[0] < whole.n_steps


@pytest.mark.parametrize("version", VERSIONS)
def test_a_corrupt_chunk_is_skipped_and_counted(version, tmp_path):
    file = unpack(version, tmp_path)
    data = bytearray(file.read_bytes())
    at = BLOCK + 1000  # inside the second block
    data[at] ^= 0xFF
    file.write_bytes(bytes(data))
    whole = read(JSONL)
    run = read(file)
    assert run.skipped.get("corrupt W&B chunk (bad checksum)") == 1
    assert 100 < run.n_steps < 300  # the rest of that block is lost, not the run
    common = np.intersect1d(run["reward"].steps, whole["reward"].steps)
    assert common.size == run.n_steps
    assert np.array_equal(run["reward"].values, whole["reward"].values[common])


def test_a_wandb_folder_with_several_runs_lists_them_and_picks_with_run(tmp_path):
    for v in VERSIONS[:2]:
        unpack(v, tmp_path)
    files = wandb_files(tmp_path / "wandb")
    assert len(files) == 2 and files == sorted(files, key=lambda f: f.parent.name.split("-", 2)[-1])
    runs = read_all(tmp_path / "wandb")
    assert len(runs) == 2
    assert read(tmp_path / "wandb").meta["wandb"]["file"] == str(files[-1])
    assert read(tmp_path / "wandb", run=1).meta["wandb"]["file"] == str(files[0])
    assert "choose another with --run K" in read(tmp_path / "wandb").notes[-1]


def test_a_folder_with_no_runs_is_a_one_line_error(tmp_path):
    (tmp_path / "wandb" / "offline-run-20260101_000000-abc").mkdir(parents=True)
    with pytest.raises(NotAFile) as e:
        read(tmp_path / "wandb")
    assert "run-*.wandb" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(NotAFile) as e:
        read(tmp_path / "wandb", format="wandb")
    assert "no W&B run found" in str(e.value) and "offline-run-*" in str(e.value)


@pytest.mark.parametrize("version", VERSIONS)
def test_the_decoder_fed_in_pieces_finds_the_same_records(version, tmp_path):
    data = unpack(version, tmp_path).read_bytes()
    whole = Decoder().feed(data)
    dec, got = Decoder(), []
    rng = np.random.default_rng(0)
    at = 0
    while at < len(data):
        n = int(rng.integers(1, 5000))
        got += dec.feed(data[at : at + n])
        at += n
    assert got == whole and dec.pending == 0 and dec.corrupt == 0


@pytest.mark.skipif(importlib.util.find_spec("wandb") is None, reason="wandb is not installed (pip install wandb)")
def test_a_run_written_now_by_wandb_offline_reads_back(tmp_path, monkeypatch):
    monkeypatch.setenv("WANDB_MODE", "offline")
    make = load_maker("wandb")
    logged = make.rows(300)
    file = make.log_run(tmp_path, logged)
    run = read(file.parent)
    assert run.n_steps == 300
    reward = run.series["reward"]
    assert reward.source == "env/all/reward/total"
    assert np.array_equal(reward.steps, np.arange(300))
    assert np.array_equal(reward.values, [r["env/all/reward/total"] for r in logged])
    assert run.meta["context"]["group_size"] == 16.0


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("damage", ["none", "cut", "crc", "length"])
def test_the_bulk_and_the_incremental_decoders_agree(version, damage, tmp_path):
    file = unpack(version, tmp_path)
    data = bytearray(file.read_bytes())
    if damage == "cut":  # 10 bytes into a chunk near the end
        at = [a for a, _, _ in _chunk_kinds(bytes(data)) if a < len(data) - 700][-1]
        data = data[: at + 10]
    elif damage == "crc":
        data[BLOCK + 3000] ^= 0x55
    elif damage == "length":  # a chunk header whose length runs past its block
        at = 7
        while at < BLOCK - 100:  # walk to the tenth chunk of block 0
            at += 7 + int.from_bytes(data[at + 4 : at + 6], "little")
            if at > 3000:
                break
        data[at + 4 : at + 6] = (BLOCK).to_bytes(3, "little")[:2]
    file.write_bytes(bytes(data))
    fast, slow = read_one(file, "x"), read_slow(file, "x")
    same_series(fast, slow)
    assert fast.skipped == slow.skipped and fast.dropped == slow.dropped and fast.meta == slow.meta
    assert (damage == "none") == (not fast.skipped)


def test_vitals_says_what_was_read_from_a_wandb_run(tmp_path):
    from rlvitals.render.vitals import render_vitals, vitals_dict

    run = read(unpack(VERSIONS[-1], tmp_path))
    d = vitals_dict(run)
    assert d["format"] == "wandb" and d["wandb"]["history"] == 300 and d["context"]["group_size"] == 16
    text = render_vitals(run, fmt="text", lang="en")
    assert "W&B run" in text and "max_response_length=1024" in text
    assert "配置" in render_vitals(run, fmt="text", lang="zh")


def test_the_cli_lists_and_picks_the_runs_of_a_wandb_folder(tmp_path, capsys):
    from rlvitals.cli import main

    for v in VERSIONS[:2]:
        unpack(v, tmp_path)
    assert main(["vitals", str(tmp_path / "wandb")]) == 0
    out = capsys.readouterr().out
    assert "(2)" in out and "W&B run" in out and "max_response_length=1024" in out
    assert main(["diagnose", str(tmp_path / "wandb"), "--run", "1", "--format", "json"]) == 0
    first = capsys.readouterr().out
    assert main(["diagnose", str(tmp_path / "wandb"), "--format", "json"]) == 0
    assert '"format": "wandb"' in first and first != capsys.readouterr().out  # run 1 is not run 2
    assert main(["formats"]) == 0
    assert "wandb/latest-run" in capsys.readouterr().out
    (tmp_path / "empty").mkdir()
    assert main(["diagnose", str(tmp_path / "empty"), "-F", "wandb"]) == 2
    err = capsys.readouterr().err
    assert "no W&B run found" in err and err.count("\n") == 1


def test_records_longer_than_a_block_are_joined_by_both_decoders(tmp_path):
    # wandb wrote each of these two rows (1800 keys) as FIRST, MIDDLE, LAST chunks
    (gz,) = WANDB.glob("wide/*/run-*.wandb.gz")
    file = gunzip(gz, tmp_path / gz.name[:-3])
    kinds = {k for _, _, k in _chunk_kinds(file.read_bytes())}
    assert {2, 3, 4} <= kinds
    fast, slow = read_one(file, "x"), read_slow(file, "x")
    same_series(fast, slow)
    assert len(fast.extras) == 1800 and fast.n_steps == 2 and not fast.skipped
    assert fast.extras["layers/1799/grad_norm"].values.tolist() == [
        round(1 + 1799 / 1800, 6),
        round(2 + 1799 / 1800, 6),
    ]


def _chunk_kinds(data: bytes):
    """(offset, length, type) of each chunk, walking the blocks as the format lays them out."""
    at = 7
    while at + 7 <= len(data):
        if BLOCK - at % BLOCK < 7:
            at += BLOCK - at % BLOCK
            continue
        n, kind = int.from_bytes(data[at + 4 : at + 6], "little"), data[at + 6]
        yield at, n, kind
        at += 7 + n
