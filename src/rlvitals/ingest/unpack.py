"""Undoing compression, streamed and bounded: gzip, bzip2 and xz from the standard library, zstd
when the `zstandard` package is installed (`pip install rlvitals[zst]`).

    sniff_compression(first_bytes) -> "gzip" | "bzip2" | "xz" | "zstd" | None   # by magic bytes
    Inflater(kind).feed(block) -> pieces of output, each at most 64 KiB (zstd: a few KB in)
    unpack_cap(compressed_size) -> how many decompressed bytes are allowed (a bomb is refused)

`source._decompress` drives these into a temporary file; what it does with a damaged or cut-short
stream is written there.
"""

from __future__ import annotations

import bz2
import lzma
import os
import zlib
from collections.abc import Iterator
from typing import Any

from ..errors import MissingExtra

__all__ = ["UNPACK_FLOOR", "UNPACK_RATIO", "Inflater", "sniff_compression", "unpack_cap"]

UNPACK_RATIO = 100  # decompressed output allowed per compressed byte (a bomb is refused) …
UNPACK_FLOOR = 1 << 30  # … and at least this much (RLVITALS_MAX_UNPACKED overrides both)

_MAGIC: tuple[tuple[bytes, str], ...] = (  # bzip2's "BZh" is followed by a block-size digit
    (b"\x1f\x8b\x08", "gzip"),
    *((b"BZh" + bytes([d]), "bzip2") for d in b"123456789"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)


def sniff_compression(head: bytes) -> str | None:
    """The compression the first bytes announce, or None."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    return None


def zstd_module() -> Any:
    try:
        import zstandard  # optional: not a dependency
    except ImportError:
        err = MissingExtra.of("ingest.err.zstd")
        err.package, err.extra = "zstandard", "zst"  # type: ignore[attr-defined]
        raise err from None
    return zstandard


class Inflater:
    """One compressed stream, decompressed piece by piece with the output of every call bounded
    (a bomb never sits in memory), member after member (`cat a.gz b.gz`), and told apart: the
    end of the stream, a stream cut short, or damaged data."""

    OUT = 1 << 16  # bytes of output per call at most
    ZSTD_IN = 512  # zstd's decompressobj has no output bound: feed it little at a time

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._zstd: Any = zstd_module() if kind == "zstd" else None
        self.errors: tuple[type[BaseException], ...] = (zlib.error, OSError, EOFError, lzma.LZMAError)
        if self._zstd is not None:
            self.errors += (self._zstd.ZstdError,)
        self._d = self._new()
        self.fed = False  # the current member has been given data

    def _new(self) -> Any:
        if self.kind == "gzip":
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        if self.kind == "bzip2":
            return bz2.BZ2Decompressor()
        if self.kind == "xz":
            return lzma.LZMADecompressor()
        return self._zstd.ZstdDecompressor().decompressobj()

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The output of `data`, in pieces of at most OUT bytes (zstd: a few MB)."""
        while data:
            d = self._d
            if self.kind == "zstd":
                piece, data = data[: self.ZSTD_IN], data[self.ZSTD_IN :]
                self.fed = True
                out = d.decompress(piece)
                if out:
                    yield out
            else:
                self.fed = True
                out = d.decompress(data, self.OUT)
                data = b""
                while True:
                    if out:
                        yield out
                    more = self._more(d)
                    if more is None:
                        break
                    out = d.decompress(more, self.OUT)
            if d.eof:  # a member ended: what follows is the next one
                rest = d.unused_data + (data if self.kind == "zstd" else b"")
                data = b"" if not rest.strip(b"\x00") else rest  # gzip's zero padding
                self._d, self.fed = self._new(), False

    def _more(self, d: Any) -> bytes | None:
        """What to give a bounded decompressor next for the output it still holds, or None when it has
        given all of it: gzip keeps the input it did not reach (`unconsumed_tail`), bzip2 and xz keep
        it inside and are asked again with no input until they need more."""
        if self.kind == "gzip":
            return d.unconsumed_tail if d.unconsumed_tail and not d.eof else None
        return None if d.eof or d.needs_input else b""

    @property
    def cut_short(self) -> bool:
        return self.fed and not self._d.eof


def unpack_cap(size: int) -> int:
    """Decompressed bytes allowed for an input of `size` compressed bytes: 100x it, at least
    1 GiB; RLVITALS_MAX_UNPACKED (bytes, or with K/M/G) overrides."""
    env = os.environ.get("RLVITALS_MAX_UNPACKED", "").strip().upper()
    if env:
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(env[-1:], 1)
        try:
            return max(1, int(float(env.rstrip("KMGTB") or "0") * mult))
        except (ValueError, OverflowError):
            pass
    return max(UNPACK_FLOOR, UNPACK_RATIO * size)
