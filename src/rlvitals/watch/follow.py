"""Follow a log file that a trainer is still writing, by polling (no inotify, works on NFS too).

`Follower.poll()` returns the complete lines written since the last poll and the events noticed on
the way.  It copes with everything a live log does:

- the file does not exist yet            → `waiting` once, then `appeared` when it does
- the file grows                         → the new complete lines
- the last line is half written          → kept in a buffer until its newline arrives
- the file shrinks (truncated, or a trainer that opens it with "w"/"wb" again)
                                         → `truncated`: read from byte 0; the caller starts a new run
- the file is replaced (rotated: the inode changes)
                                         → the rest of the old file is drained first, then `rotated`
                                           and the new file is read from its start
- the file disappears                    → `vanished`, then waiting again

Lines are split the way Python's text mode splits them (\\n, \\r\\n and a lone \\r, which tqdm uses
to redraw its bar), decoded as UTF-8 with undecodable bytes replaced (never an exception).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

__all__ = ["FollowEvent", "Follower", "split_records"]

# Read at most this much per poll: a huge backlog is consumed over several polls so that the
# caller can interleave its own work, and memory stays bounded.
CHUNK = 1 << 20
# A "line" with no newline for this long is not a line of metrics; cut it so the buffer stays bounded.
MAX_LINE = 1 << 20


@dataclass(frozen=True)
class FollowEvent:
    """Something that happened to the file: kind is one of waiting, appeared, truncated, rotated,
    vanished, overlong; old/new are byte sizes where they matter."""

    kind: str
    old: int = 0
    new: int = 0


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


@dataclass
class Follower:
    """Poll-based reader of one growing file.  Not thread-safe; one per path.

    from_start=False starts at the current end of the file (`--tail`): only lines written from now
    on are returned.  A file that appears later, or a new file after rotation or truncation, is
    always read from its start: everything in it is new.
    """

    path: Path
    from_start: bool = True
    chunk: int = CHUNK
    lines_read: int = 0
    bytes_read: int = 0
    _fh: BinaryIO | None = field(default=None, repr=False)
    _ident: tuple[int, int] | None = field(default=None, repr=False)
    _pos: int = 0
    _tail: str = ""
    _decoder_pending: bytes = b""
    _waiting_said: bool = False
    _first_open: bool = True
    _overlong: bool = False
    more_pending: bool = False  # the last poll stopped at its byte budget: call again at once

    def __post_init__(self) -> None:
        self.path = Path(self.path)

    # -- public -----------------------------------------------------------------------------
    def poll(self) -> tuple[list[str], list[FollowEvent]]:
        """New complete lines since the last call, and what happened to the file meanwhile."""
        events: list[FollowEvent] = []
        lines: list[str] = []
        self.more_pending = False
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        except OSError:
            st = None

        if st is None:
            if self._fh is not None:
                # Removed or renamed away: what was written before is still readable from the
                # open handle; drain it so no line is lost, then forget the file.
                lines += self._read_available()
                lines += self._flush_tail()
                self._close()
                events.append(FollowEvent("vanished"))
                self._waiting_said = True
            elif not self._waiting_said:
                events.append(FollowEvent("waiting"))
                self._waiting_said = True
            return lines, events

        ident = (st.st_dev, st.st_ino)
        if self._fh is None:
            was_waiting = self._waiting_said
            if not self._open(st):
                return lines, events
            if not self._first_open or was_waiting:
                events.append(FollowEvent("appeared"))
            self._first_open = False
        elif ident != self._ident:
            lines += self._read_available()
            lines += self._flush_tail()
            self._close()
            if not self._open(st, rotated=True):
                return lines, events
            events.append(FollowEvent("rotated"))
        elif st.st_size < self._pos:
            old = self._pos
            self._fh.seek(0)
            self._pos = 0
            self._tail = ""
            self._decoder_pending = b""
            events.append(FollowEvent("truncated", old=old, new=st.st_size))

        lines += self._read_available()
        if self._overlong:
            events.append(FollowEvent("overlong", new=MAX_LINE))
            self._overlong = False
        return lines, events

    def flush(self) -> list[str]:
        """The unfinished last line, as a line (at the very end, e.g. `--once`)."""
        return self._flush_tail()

    def close(self) -> None:
        self._close()

    def __enter__(self) -> Follower:
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()

    def __del__(self) -> None:  # a follower dropped without close() must not leak its handle
        self._close()

    @property
    def exists(self) -> bool:
        return self._fh is not None

    @property
    def position(self) -> int:
        return self._pos

    # -- internals --------------------------------------------------------------------------
    def _open(self, st: os.stat_result, rotated: bool = False) -> bool:
        try:
            fh = open(self.path, "rb")
        except OSError:
            return False
        # stat the handle itself: the path may have been swapped between stat() and open()
        fst = os.fstat(fh.fileno())
        self._fh, self._ident = fh, (fst.st_dev, fst.st_ino)
        self._pos, self._tail, self._decoder_pending = 0, "", b""
        if self._first_open and not self.from_start and not rotated:
            fh.seek(0, os.SEEK_END)
            self._pos = fh.tell()
        self._waiting_said = False
        return True

    def _close(self) -> None:
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:
                pass
        self._fh, self._ident = None, None

    def _read_available(self) -> list[str]:
        if self._fh is None:
            return []
        out: list[str] = []
        budget = self.chunk
        self.more_pending = False
        while True:
            if budget <= 0:
                self.more_pending = True
                break
            try:
                data = self._fh.read(min(budget, 1 << 16))
            except OSError:
                break
            if not data:
                break
            budget -= len(data)
            self._pos += len(data)
            self.bytes_read += len(data)
            out += self._decode(data)
        self.lines_read += len(out)
        return out

    def _decode(self, data: bytes) -> list[str]:
        data = self._decoder_pending + data
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
        self._decoder_pending = data[cut:]
        text = self._tail + data[:cut].decode("utf-8", errors="replace")
        lines, self._tail = split_records(text)
        if len(self._tail) > MAX_LINE:
            lines.append(self._tail)
            self._tail = ""
            self._overlong = True
        return lines

    def _flush_tail(self) -> list[str]:
        rest = self._tail + self._decoder_pending.decode("utf-8", errors="replace")
        self._tail, self._decoder_pending = "", b""
        rest = rest.rstrip("\r\n")
        if rest:
            self.lines_read += 1
            return [rest]
        return []
