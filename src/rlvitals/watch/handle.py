"""One open log file, read in bounded pieces by position (`os.pread`): what `Follower` keeps per file.

    split_records(text) -> (complete lines, unfinished tail)   # universal newlines, like text mode
    Handle(fh)                                                 # position, fingerprints, half line

The fingerprints (the first and the last FINGERPRINT bytes read) are how `Follower` notices a file
rewritten under it; `MAX_LINE` bounds a "line" that never ends.
"""

from __future__ import annotations

import os
from typing import IO

__all__ = ["CHUNK", "FINGERPRINT", "MAX_LINE", "Handle", "split_records"]

# Read at most this much per poll: a huge backlog is consumed over several polls so that the
# caller can interleave its own work, and memory stays bounded.
CHUNK = 1 << 20
# A "line" with no newline for this long is not a line of metrics; cut it so the buffer stays bounded.
MAX_LINE = 1 << 20
# Bytes compared to notice a file rewritten under us: its first bytes, and the last bytes read.
FINGERPRINT = 64


def split_records(text: str) -> tuple[list[str], str]:
    """Complete lines in `text` and the unfinished tail (universal newlines, like text mode).

    A trailing lone "\\r" is kept in the tail: the "\\n" of a "\\r\\n" may be in the next chunk.
    """
    if not text:
        return [], ""
    lines = text.splitlines(keepends=True)
    tail = ""
    last = lines[-1]
    if not last.endswith(("\n", "\r")) or (last.endswith("\r") and not last.endswith("\r\n")):
        tail = lines.pop()
    return [ln.rstrip("\r\n") for ln in lines], tail


class Handle:
    """One open file and where we are in it: position, unfinished line, fingerprints."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        st = os.fstat(fh.fileno())
        self.ident = (st.st_dev, st.st_ino)
        self.pos = 0
        self.tail = ""
        self.pending = b""  # an incomplete UTF-8 sequence at the end of the last read
        self.head = b""  # the file's first FINGERPRINT bytes (as far as read)
        self.mark = b""  # the last FINGERPRINT bytes read, ending at `pos`
        self.overlong = False
        self.size = st.st_size  # the size last seen (fstat), and when it last changed:
        self.changed_at = 0.0  # a rotated file is done once quiet for rotate_grace

    def watch_size(self, now: float) -> None:
        """Note whether the file grew since the last look (late writes to a rotated file)."""
        try:
            size = os.fstat(self.fh.fileno()).st_size
        except (OSError, ValueError):
            return
        if size != self.size:
            self.size, self.changed_at = size, now

    def seek_end(self) -> None:
        self.fh.seek(0, os.SEEK_END)
        self.pos = self.fh.tell()
        self.head = self._pread(0, min(FINGERPRINT, self.pos))
        self.mark = self._pread(self.pos - min(FINGERPRINT, self.pos), min(FINGERPRINT, self.pos))

    def restart(self) -> None:
        """Back to byte 0, dropping the unfinished line (it belonged to the old content)."""
        self.fh.seek(0)
        self.pos, self.tail, self.pending, self.head, self.mark = 0, "", b"", b"", b""

    def _pread(self, offset: int, n: int) -> bytes:
        try:
            return os.pread(self.fh.fileno(), n, offset) if n > 0 else b""
        except OSError:
            return b""

    def rewritten(self) -> bool:
        """True when the bytes we already read are no longer there (truncated and refilled)."""
        if self.pos == 0:
            return False
        if self.head and self._pread(0, len(self.head)) != self.head:
            return True
        return bool(self.mark) and self._pread(self.pos - len(self.mark), len(self.mark)) != self.mark

    def read(self, budget: int) -> tuple[list[str], int, bool, str]:
        """(complete lines, bytes read, budget exhausted, error text) from the current position."""
        out: list[str] = []
        got = 0
        while True:
            if got >= budget:
                return out, got, True, ""
            try:
                data = self.fh.read(min(budget - got, 1 << 16))
            except OSError as e:
                return out, got, False, e.strerror or str(e)
            if not data:
                return out, got, False, ""
            got += len(data)
            self.pos += len(data)
            if len(self.head) < FINGERPRINT:
                self.head += data[: FINGERPRINT - len(self.head)]
            self.mark = (self.mark + data)[-FINGERPRINT:]
            out += self._decode(data)

    def _decode(self, data: bytes) -> list[str]:
        data = self.pending + data
        # keep an incomplete UTF-8 sequence at the end for the next read
        cut = len(data)
        for back in range(1, min(4, len(data)) + 1):
            b = data[-back]
            if b & 0xC0 == 0x80:
                continue
            if b >= 0xC0:
                need = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
                if back < need:
                    cut = len(data) - back
            break
        self.pending = data[cut:]
        text = self.tail + data[:cut].decode("utf-8", errors="replace")
        lines, self.tail = split_records(text)
        if len(self.tail) > MAX_LINE:
            lines.append(self.tail)
            self.tail = ""
            self.overlong = True
        return lines

    def flush(self) -> list[str]:
        rest = (self.tail + self.pending.decode("utf-8", errors="replace")).rstrip("\r\n")
        self.tail, self.pending = "", b""
        return [rest] if rest else []

    def close(self) -> None:
        try:
            self.fh.close()
        except OSError:
            pass
