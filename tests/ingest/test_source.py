"""The opening layer: compression by magic bytes, BOM and UTF-16/32, stray NUL bytes, stdin."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import sys

import numpy as np
import pytest
from realdata import REAL

from rlvitals import cli
from rlvitals.errors import BinaryInput, EmptyInput, InputError, MissingExtra
from rlvitals.ingest import read
from rlvitals.ingest.source import BAD_LINE, sniff_compression

VERL = REAL / "verl-data-Qwen2.5-0.5B-bsz256_2-prompt1024-resp512-0.567.log"
VERL_NEW = REAL / "verl-econ-qwen7b-lora-grpo-700.log"
TRL = REAL / "trl-qwen35-9b-gsm8k-zero-reward-truncated.log"
STATE = REAL / "trainerstate-gemma3-1b-gsm8k.trainer_state.json"


@pytest.fixture(scope="module")
def plain():
    return {p: read(p) for p in (VERL, TRL, STATE)}


def same(a, b) -> None:
    assert a.format == b.format and set(a.series) == set(b.series)
    for k in a.series:
        assert np.array_equal(a.series[k].steps, b.series[k].steps)
        assert np.array_equal(a.series[k].values, b.series[k].values, equal_nan=True)


@pytest.mark.parametrize("kind, pack", [("gzip", gzip.compress), ("bzip2", bz2.compress), ("xz", lzma.compress)])
def test_compressed_reads_like_plain(tmp_path, plain, kind, pack):
    p = tmp_path / "run.log"  # no telling suffix: the magic bytes decide
    p.write_bytes(pack(VERL.read_bytes()))
    run = read(p)
    same(run, plain[VERL])
    assert run.meta["input"] == [kind] and any(kind in n for n in run.notes)


def test_nested_layers_and_run_name(tmp_path, plain):
    p = tmp_path / "state.json.xz.gz"
    p.write_bytes(gzip.compress(lzma.compress(STATE.read_bytes())))
    run = read(p)
    same(run, plain[STATE])
    assert run.meta["input"] == ["gzip", "xz"] and run.name == "state"


def test_plain_file_with_compressed_suffix(tmp_path, plain):
    p = tmp_path / "run.log.gz"
    p.write_bytes(VERL.read_bytes())
    run = read(p)
    same(run, plain[VERL])
    assert "input" not in run.meta


def test_gzip_cut_short_keeps_what_decompressed(tmp_path, plain):
    data = gzip.compress(VERL.read_bytes())
    p = tmp_path / "cut.log.gz"
    p.write_bytes(data[: len(data) // 2])
    run = read(p)
    assert 50 < run.n_steps < plain[VERL].n_steps
    assert any("cut short" in n for n in run.notes)


def test_corrupt_compressed_stream_is_one_line(tmp_path, capsys):
    p = tmp_path / "bad.gz"
    p.write_bytes(b"\x1f\x8b\x08" + b"not gzip at all" * 10)
    with pytest.raises(InputError, match="gzip data cannot be decompressed"):
        read(p)
    assert cli.main(["diagnose", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_zstd_without_the_package_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import fails as if not installed
    p = tmp_path / "run.log.zst"
    p.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 20)
    with pytest.raises(MissingExtra, match="pip install zstandard") as e:
        read(p)
    assert "\n" not in str(e.value)


def test_zstd_with_the_package(tmp_path, plain):
    zstandard = pytest.importorskip("zstandard")
    p = tmp_path / "run.zst"
    p.write_bytes(zstandard.ZstdCompressor().compress(TRL.read_bytes()))
    same(read(p), plain[TRL])


def test_sniff_compression():
    assert sniff_compression(b"\x1f\x8b\x08") == "gzip" and sniff_compression(b"BZh9") == "bzip2"
    assert sniff_compression(b"\xfd7zXZ\x00\x00") == "xz" and sniff_compression(b"[ 1] reward=1") is None
    assert sniff_compression(b"BZh is how this log starts") is None


@pytest.mark.parametrize(
    "enc, bom, layer",
    [
        ("utf-8", b"\xef\xbb\xbf", "BOM"),
        ("utf-16-le", b"", "utf-16-le"),
        ("utf-16-be", b"", "utf-16-be"),
        ("utf-16-le", b"\xff\xfe", "utf-16-le"),
        ("utf-16-be", b"\xfe\xff", "utf-16-be"),
        ("utf-32-le", b"\xff\xfe\x00\x00", "utf-32-le"),
    ],
)
def test_encodings(tmp_path, plain, enc, bom, layer):
    for src in (TRL, STATE):
        p = tmp_path / f"x-{enc}-{len(bom)}{src.suffix}"
        p.write_bytes(bom + src.read_text(encoding="utf-8").encode(enc))
        run = read(p)
        same(run, plain[src])
        assert run.meta["input"] == [layer]


def test_nul_bytes_in_a_few_lines_are_skipped_and_counted(tmp_path):
    lines = VERL_NEW.read_bytes().split(b"\n")
    nccl = [i for i, l in enumerate(lines) if b"NCCL" in l][:2]
    assert len(nccl) == 2
    for i in nccl:
        lines[i] = lines[i][:12] + b"\x00" + lines[i][12:]
    p = tmp_path / "verl-nul.log"
    p.write_bytes(b"\n".join(lines))
    clean, run = read(VERL_NEW), read(p)
    same(run, clean)
    assert run.skipped[BAD_LINE] == 2
    assert run.skipped["not a metric line"] == clean.skipped["not a metric line"] - 2
    assert [s.first_line for s in run.segments] == [s.first_line for s in clean.segments]


def test_mostly_binary_is_refused(tmp_path):
    p = tmp_path / "weights.bin"
    p.write_bytes(bytes(range(256)) * 64)
    with pytest.raises(BinaryInput, match="binary"):
        read(p)


def test_empty_after_decompression(tmp_path):
    p = tmp_path / "empty.gz"
    p.write_bytes(gzip.compress(b"\n\n"))
    with pytest.raises(EmptyInput, match="is empty"):
        read(p)


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_stdin_through_the_api(monkeypatch, plain):
    _stdin(monkeypatch, gzip.compress(VERL.read_bytes()))
    run = read("-")
    same(run, plain[VERL])
    assert run.name == "stdin" and run.meta["input"] == ["stdin", "gzip"]


@pytest.mark.parametrize("command", ["diagnose", "vitals", "plot"])
def test_stdin_through_the_cli(monkeypatch, capsys, tmp_path, command):
    _stdin(monkeypatch, TRL.read_bytes())
    extra = ["-o", str(tmp_path / "c.png")] if command == "plot" else []
    if command == "plot":
        pytest.importorskip("matplotlib")
    assert cli.main([command, "-", *extra]) == 0
    out = capsys.readouterr().out
    assert ("stdin" in out) if command != "plot" else (tmp_path / "c.png").exists()


def test_empty_stdin(monkeypatch, capsys):
    _stdin(monkeypatch, b"")
    assert cli.main(["vitals", "-"]) == 2
    assert capsys.readouterr().err.strip() == "rlvitals: error: stdin is empty"


def test_errors_in_chinese(tmp_path, capsys):
    assert cli.main(["vitals", str(tmp_path / "nope.log"), "--lang", "zh"]) == 2
    assert capsys.readouterr().err.strip().endswith("nope.log 不存在")


def test_nul_padded_tail_after_a_crash_is_one_skipped_line(tmp_path, plain):
    p = tmp_path / "crashed.log"
    p.write_bytes(TRL.read_bytes() + b"\x00" * 1_000_000)
    run = read(p)
    same(run, plain[TRL])
    assert run.skipped[BAD_LINE] == 1


def test_big_binary_without_newlines_is_refused_from_its_head(tmp_path):
    p = tmp_path / "blob.bin"
    p.write_bytes(bytes(range(256)).replace(b"\n", b"") * 40_000)  # 10 MB, not one newline
    with pytest.raises(BinaryInput, match=r"1 of 1 lines"):
        read(p)


def test_stdin_from_a_terminal_is_refused(monkeypatch, capsys):
    class Tty(io.TextIOWrapper):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Tty(io.BytesIO(b"")))
    assert cli.main(["diagnose", "-"]) == 2
    assert "nothing is piped in" in capsys.readouterr().err


def test_csv_saved_by_excel_with_a_bom(tmp_path):
    src = REAL / "primerl-dakota-qwen3-0.6b-wandb-history.csv"
    p = tmp_path / "history.csv"
    p.write_bytes(b"\xef\xbb\xbf" + src.read_bytes())
    run, plain_run = read(p), read(src)
    same(run, plain_run)
    assert run.n_steps == 1000 and run.meta["input"] == ["BOM"]
