"""Opening any input as UTF-8 text the readers can stream, whatever it came wrapped in.

    with open_input("train.log.gz") as src:   # or "-" for stdin
        run = reader(src.path, src.name)
    src.annotate(run)                          # skipped lines, notes, meta["input"]

The readers only ever see a path to UTF-8 text.  This layer undoes, outermost first:

- **stdin** (`-`): copied once to a temporary file (the readers seek; a pipe cannot), run "stdin";
- **compression**, by magic bytes (never by suffix alone): gzip, bzip2, xz from the standard
  library; zstd when the `zstandard` package is installed; nested layers too (`.json.gz.xz`).  A
  stream cut short keeps what decompressed and says so;
- **encoding**: a UTF-8 BOM, UTF-16/32 with a BOM, UTF-16 without one (NUL bytes in every other
  position) are transcoded to UTF-8;
- **stray binary bytes**: a text log with a few NUL or control bytes (two NULs in an NCCL line) stays
  a text log: those lines are blanked (line numbers stay right) and counted in `Run.skipped`.  Only
  when a large share of the lines holds such bytes is the file refused as binary.

A plain UTF-8 file with nothing to undo is passed through as it is: one extra read of the file
(~0.08 s per 100 MB) to look for stray bytes, no copy.
"""

from __future__ import annotations

import codecs
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BinaryInput, EmptyInput, InputError, RlvitalsError
from ..i18n import Msg
from ..run import Run
from .unpack import UNPACK_RATIO, Inflater, sniff_compression, unpack_cap

__all__ = ["BAD_LINE", "BINARY_SHARE", "Opened", "open_input", "sniff_compression"]

CHUNK = 1 << 24
SCAN = 1 << 20  # the control-byte scan's block
HEAD = 64 * 1024
# bytes that have no business in a text log; \t \n \v \f \r, ESC (ANSI colours) and \b (some
# progress bars) are allowed
CONTROL = bytes(range(0x00, 0x08)) + bytes(range(0x0E, 0x1B)) + bytes(range(0x1C, 0x20))
BINARY_SHARE = 0.3  # a larger share of lines with control bytes: not a text log
BAD_LINE = "line with NUL or control bytes"
MAX_LAYERS = 3  # nested compression layers undone at most
MAX_LINE = 1 << 22  # a line is read in pieces of at most 4 MiB when blanking

_BOMS: tuple[tuple[bytes, str], ...] = (  # longest first: UTF-32-LE's BOM starts like UTF-16-LE's
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


@dataclass
class Opened:
    """An input made readable.  `path` is UTF-8 text (the original file when nothing was undone)."""

    path: Path
    name: str  # the run's default name ("stdin" for `-`)
    label: str  # how to name the input in messages
    layers: list[str] = field(default_factory=list)  # what was undone: "stdin", "gzip", "utf-16-le", …
    bad_lines: int = 0
    notes: list[str] = field(default_factory=list)

    def annotate(self, run: Run) -> Run:
        """Record on `run` what opening did: blanked lines in `skipped`, layers in notes and meta."""
        if self.bad_lines:
            run.skipped[BAD_LINE] = run.skipped.get(BAD_LINE, 0) + self.bad_lines
        if self.layers:
            run.meta["input"] = list(self.layers)
            shown = [l for l in self.layers if l != "stdin"]
            if shown:
                run.notes.append(Msg("ingest.note.decoded", layers=" → ".join(shown)))
        run.notes.extend(self.notes)
        return run


def _detect_encoding(head: bytes) -> str | None:
    """A non-UTF-8 text encoding announced by a BOM or by NUL bytes in every other position."""
    for bom, enc in _BOMS:
        if head.startswith(bom):
            return enc
    sample = head[:4096]
    sample = sample[: len(sample) & ~1]
    if len(sample) < 4 or b"\x00" not in sample:
        return None
    even, odd = sample[0::2], sample[1::2]
    n = len(odd)
    nul_even, nul_odd = even.count(0) / n, odd.count(0) / n
    if nul_odd > 0.3 and nul_even < 0.05:
        return "utf-16-le"  # ASCII text: "a\0b\0…"
    if nul_even > 0.3 and nul_odd < 0.05:
        return "utf-16-be"  # "\0a\0b…"
    return None


class _Work:
    """The temporary files of one opening, removed on close."""

    def __init__(self) -> None:
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self._n = 0

    def new(self, stem: str) -> Path:
        if self._dir is None:
            self._dir = tempfile.TemporaryDirectory(prefix="rlvitals-")
        self._n += 1
        return Path(self._dir.name) / f"{self._n}-{stem}"

    def close(self) -> None:
        if self._dir is not None:
            self._dir.cleanup()


def _head(path: Path, size: int = HEAD) -> bytes:
    with open(path, "rb") as f:
        return f.read(size)


def _decompress(path: Path, kind: str, work: _Work, label: str, notes: list[str], cap: int) -> Path:
    """`path` decompressed into a temp file, streamed, never more than `cap` bytes (a bomb is refused
    when it passes the cap, and at once when its first 64 KiB are binary); a full temp folder is an
    error, never a silently partial read; a stream cut short or damaged keeps every byte that came
    out before the cut, and says so."""
    out = work.new(f"un{kind}")
    written = 0
    head = b""
    inflater = Inflater(kind)
    with open(path, "rb") as raw, open(out, "wb") as dst:
        try:
            while block := raw.read(1 << 16):
                for piece in inflater.feed(block):
                    if written + len(piece) > cap:
                        raise InputError.of(
                            "ingest.err.bomb", path=label, kind=kind, cap=_size(cap), ratio=UNPACK_RATIO
                        )
                    if len(head) < HEAD:
                        head += piece[: HEAD - len(head)]
                        if len(head) == HEAD:
                            _refuse_binary_head(head, label)
                    try:
                        dst.write(piece)
                    except OSError as e:
                        raise _temp_full(label, kind, written, out, e) from None
                    written += len(piece)
        except InputError:
            raise
        except inflater.errors as e:
            if not written:
                raise InputError.of(
                    "ingest.err.compressed", path=label, kind=kind, error=f"{type(e).__name__}: {e}"
                ) from None
            notes.append(Msg("ingest.note.damaged", kind=kind, n=f"{written:,}"))
            return out
        try:
            dst.flush()
        except OSError as e:
            raise _temp_full(label, kind, written, out, e) from None
    if inflater.cut_short:  # cut short: keep what came out
        if not written:
            raise InputError.of("ingest.err.compressed", path=label, kind=kind, error="cut short") from None
        notes.append(Msg("ingest.note.cut_short", kind=kind, n=f"{written:,}"))
    return out


def _refuse_binary_head(head: bytes, label: str) -> None:
    """A decompressed stream whose first 64 KiB are binary is refused now, not after 10 GB."""
    if sniff_compression(head[:8]) is not None or _detect_encoding(head) is not None:
        return  # another layer, or UTF-16: judged later
    bad, total = _bad_share(head.split(b"\n"))
    if bad > BINARY_SHARE * total:
        raise BinaryInput.of("ingest.err.binary", path=label, bad=bad, total=total)


def _temp_full(label: str, kind: str, written: int, out: Path, e: OSError) -> RlvitalsError:
    """The one-line error when the unpacked copy cannot be written (the temporary folder is full)."""
    return InputError.of(
        "ingest.err.temp_full",
        path=label,
        kind=kind,
        n=_size(written),
        where=str(out.parent),
        error=e.strerror or type(e).__name__,
    )


def _size(n: int) -> str:
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k:
            return f"{n / k:.1f} {unit}"
    return f"{n} bytes"


def _transcode(path: Path, enc: str, work: _Work) -> Path:
    out = work.new("utf8")
    codec = "utf-8" if enc == "utf-8-sig" else enc
    dec = codecs.getincrementaldecoder(codec)(errors="replace")
    with open(path, "rb") as src, open(out, "w", encoding="utf-8", newline="") as dst:
        start = src.read(4)
        for bom, e in _BOMS:  # the BOM is not text
            if e == enc and start.startswith(bom):
                start = start[len(bom) :]
                break
        dst.write(dec.decode(start))
        while block := src.read(CHUNK):
            dst.write(dec.decode(block))
        dst.write(dec.decode(b"", final=True))
    return out


def _has_control(path: Path) -> bool:
    # 1 MiB at a time: a block and its translated copy stay in the cache (16 MiB blocks cost
    # ~50% more: fresh pages for each read and each copy)
    with open(path, "rb") as f:
        while block := f.read(SCAN):
            if len(block.translate(None, CONTROL)) != len(block):
                return True
    return False


def _bad_share(lines: list[bytes]) -> tuple[int, int]:
    """(lines holding control bytes, non-blank lines)."""
    full = [l for l in lines if l.strip()]
    return sum(len(l.translate(None, CONTROL)) != len(l) for l in full), len(full)


def _blank_bad_lines(path: Path, work: _Work, label: str) -> tuple[Path, int]:
    """Copy `path` with every line holding control bytes replaced by an empty line.  A binary file
    is refused from its first 64 KiB already (it may have no newline at all)."""
    bad, total = _bad_share(_head(path).split(b"\n"))
    if bad > BINARY_SHARE * total:
        raise BinaryInput.of("ingest.err.binary", path=label, bad=bad, total=total)
    out = work.new("clean")
    bad = total = 0
    with open(path, "rb") as src, open(out, "wb") as dst:
        for line in iter(lambda: src.readline(MAX_LINE), b""):  # bounded: a line may be huge
            if not line.strip():
                dst.write(line)
                continue
            total += 1
            if len(line.translate(None, CONTROL)) != len(line):
                bad += 1
                dst.write(b"\n" if line.endswith(b"\n") else b"")
            else:
                dst.write(line)
    if bad and bad > BINARY_SHARE * total:
        raise BinaryInput.of("ingest.err.binary", path=label, bad=bad, total=total)
    return out, bad


def _copy_stdin(work: _Work) -> Path:
    out = work.new("stdin")
    stream: Any = getattr(sys.stdin, "buffer", None)
    if stream is None or sys.stdin.isatty():  # nothing piped in: do not wait for the keyboard
        raise InputError.of("ingest.err.no_stdin")
    with open(out, "wb") as dst:
        shutil.copyfileobj(stream, dst, CHUNK)
    return out


def _check_utf8(head: bytes, label: str) -> None:
    """Refuse text that is mostly not UTF-8 (Latin-1, Shift-JIS…); a few bad bytes are replaced."""
    try:
        head.decode("utf-8")
        return
    except UnicodeDecodeError as e:
        if len(head) == HEAD and e.start >= len(head) - 4:
            return  # a character cut by the sniff window
        first = e.start
    lines = [l for l in head.decode("utf-8", errors="replace").splitlines() if l.strip()]
    if sum("\ufffd" in l for l in lines) > BINARY_SHARE * max(1, len(lines)):
        raise InputError.of("ingest.err.not_utf8", path=label, offset=first)


@contextmanager
def open_input(path: str | Path) -> Iterator[Opened]:
    """Undo stdin, compression, encoding and stray binary bytes; yield an `Opened` (see the module)."""
    work = _Work()
    try:
        yield _open(path, work)
    finally:
        work.close()


def _open(path: str | Path, work: _Work) -> Opened:
    layers: list[str] = []
    notes: list[str] = []
    if str(path) == "-":
        current, name, label = _copy_stdin(work), "stdin", "stdin"
        layers.append("stdin")
    else:
        current, label = Path(path), str(path)
        name = ""
    cap = 0
    for _ in range(MAX_LAYERS):
        kind = sniff_compression(_head(current, 8))
        if kind is None:
            break
        cap = cap or unpack_cap(current.stat().st_size)  # every layer within the outermost's cap
        current = _decompress(current, kind, work, label, notes, cap)
        layers.append(kind)
    head = _head(current)
    if not head.strip():
        raise EmptyInput.of("ingest.err.empty", path=label)
    enc = _detect_encoding(head)
    if enc is not None:
        current = _transcode(current, enc, work)
        layers.append("BOM" if enc == "utf-8-sig" else enc)
        head = _head(current)
        if not head.strip():
            raise EmptyInput.of("ingest.err.empty", path=label)
    bad = 0
    if _has_control(current):
        current, bad = _blank_bad_lines(current, work, label)
    else:
        _check_utf8(head, label)
    return Opened(current, name, label, layers, bad, notes)
