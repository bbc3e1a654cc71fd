"""Bounded resources when opening a log: a decompression bomb is refused within its cap, a full
temp folder is an error (never a silently partial read), a stream cut short keeps every byte that
decompressed, and SIGTERM/SIGHUP leave no temp file behind."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from rlvitals.errors import BinaryInput, InputError
from rlvitals.ingest import read

SRC = str(Path(__file__).resolve().parents[2] / "src")
MIB = 1 << 20


def lesson_text(n: int) -> bytes:
    return "".join(
        f"[{s:5d}] reward={0.1 + s * 1e-4:.4f} acc={20 + s * 1e-3:.3f}% entropy=0.9 kl=0.001\n" for s in range(1, n + 1)
    ).encode()


def members(kind: str, chunk: bytes, n: int) -> bytes:
    """n copies of `chunk` compressed as n concatenated members/frames: a valid stream of n x chunk."""
    if kind == "zstd":
        zstandard = pytest.importorskip("zstandard")
        one = zstandard.ZstdCompressor().compress(chunk)
    else:
        one = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[kind](chunk)
    return one * n


@pytest.fixture
def tmpdir_env(tmp_path, monkeypatch):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


@pytest.mark.parametrize("kind", ["gzip", "zstd", "xz"])
def test_a_bomb_of_zeros_is_refused_from_its_first_bytes(tmp_path, tmpdir_env, kind):
    bomb = tmp_path / "zeros.log.gz"
    bomb.write_bytes(members(kind, bytes(MIB), 10 * 1024))  # 10 GiB of zeros
    with pytest.raises(BinaryInput):
        read(bomb)
    assert list(tmpdir_env.iterdir()) == []  # nothing left on disk


@pytest.mark.parametrize("kind", ["gzip", "bzip2", "zstd"])
def test_a_text_bomb_is_refused_at_its_cap(tmp_path, tmpdir_env, monkeypatch, kind):
    monkeypatch.setenv("RLVITALS_MAX_UNPACKED", "8M")
    bomb = tmp_path / "text.log"
    bomb.write_bytes(members(kind, lesson_text(1) * 20000, 400))  # ~500 MiB of one line
    with pytest.raises(InputError, match="decompression bomb"):
        read(bomb)
    assert list(tmpdir_env.iterdir()) == []


def test_the_cap_scales_with_the_input_and_a_real_log_passes(tmp_path, tmpdir_env, monkeypatch):
    p = tmp_path / "run.log.gz"
    p.write_bytes(gzip.compress(lesson_text(3000)))
    assert read(p).n_steps == 3000  # default cap: 1 GiB or 100x


def test_a_full_temp_folder_is_an_error_not_a_partial_read(tmp_path):
    """A real file-size limit (RLIMIT_FSIZE) stands in for a full disk: the write fails with EFBIG."""
    p = tmp_path / "run.log.gz"
    p.write_bytes(gzip.compress(lesson_text(60000)))  # ~5 MiB decompressed
    code = (
        "import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20)); "
        "from rlvitals.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, "vitals", str(p)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
        timeout=120,
    )
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "nothing read" in lines[0] and r.stdout == ""


@pytest.mark.parametrize("kind", ["gzip", "bzip2", "xz", "zstd"])
@pytest.mark.parametrize("keep", [0.3, 0.9, 0.995])
def test_cut_short_keeps_every_byte_that_decompressed(tmp_path, kind, keep):
    text = lesson_text(800)  # ~60 KiB: under the old 64 KiB loss
    whole = members(kind, text, 1)
    cut = whole[: int(len(whole) * keep)]
    p = tmp_path / "cut.log"
    p.write_bytes(cut)
    # what the stream itself yields before the cut: every complete line of it must be read
    if kind == "gzip":
        got = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(cut)
    elif kind == "bzip2":
        got = bz2.BZ2Decompressor().decompress(cut)
    elif kind == "xz":
        got = lzma.LZMADecompressor().decompress(cut)
    else:
        import zstandard

        got = zstandard.ZstdDecompressor().decompressobj().decompress(cut)
    complete = got.count(b"\n")
    if complete < 1:
        with pytest.raises(InputError):
            read(p)
        return
    run = read(p)
    assert run.n_steps >= complete - 1  # the last line may be cut mid-number
    assert any("cut short" in n for n in run.notes)


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_signal_mid_decompression_leaves_no_temp_file(tmp_path, signame):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = tmp_path / "big.log.gz"
    p.write_bytes(members("gzip", lesson_text(20000), 300))  # ~450 MiB decompressed
    # under nohup the child would inherit SIGHUP ignored (and rightly keep running): it gets the default
    ignored = signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rlvitals.cli", "vitals", str(p)],
            env={**os.environ, "PYTHONPATH": SRC, "TMPDIR": str(tmp)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
    finally:
        if ignored:
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(f.stat().st_size > 4 * MIB for f in tmp.rglob("*") if f.is_file()):
        time.sleep(0.02)
    assert proc.poll() is None, "finished before the signal could land"
    proc.send_signal(getattr(signal, signame))
    proc.communicate(timeout=60)
    assert proc.returncode == 128 + getattr(signal, signame)
    assert list(tmp.iterdir()) == []
