"""Follow a log file that a trainer is still writing, by polling (no inotify, works on NFS too).

`Follower.poll()` returns the complete lines written since the last poll and the events noticed on
the way.  It copes with everything a live log does:

- the file does not exist yet            → `waiting` once, then `appeared` when it does
- the file grows                         → the new complete lines
- the last line is half written          → kept in a buffer until its newline arrives
- the file shrinks (truncated)           → `truncated`: read from byte 0; the caller starts a new run
- the file is truncated and refilled past its old size between two polls (a trainer that reopens
  its log with "w" and writes fast)     → `rewritten`: noticed because the first bytes (a 64-byte
                                           fingerprint) or the last bytes read before our position
                                           changed; read from byte 0 as a new run, the half line
                                           of the old content is dropped, never glued to new text
- the file is replaced (rotated: the path names another inode) or moved away
                                         → the old file stays open and is drained, including lines
                                           written to it late, until it has been quiet for
                                           `rotate_grace` seconds; then `rotated` and the new file
                                           is read from its start
- the file disappears                    → `vanished` (the open handle is still drained), waiting
- the file cannot be read (permissions, a directory, an I/O error)
                                         → `unreadable` once per reason, retried on every poll,
                                           `readable` when it works again

Lines are split the way Python's text mode splits them (\\n, \\r\\n and a lone \\r, which tqdm uses
to redraw its bar), decoded as UTF-8 with undecodable bytes replaced (never an exception).
"""

from __future__ import annotations

import os
import stat as stat_mod
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .handle import CHUNK, FINGERPRINT, MAX_LINE, Handle, split_records

__all__ = ["FINGERPRINT", "MAX_LINE", "FollowEvent", "Follower", "split_records"]

_PACKED = (".gz", ".bz2", ".xz", ".zst", ".zip", ".tmp", ".lock")  # siblings that are no log text


@dataclass(frozen=True)
class FollowEvent:
    """Something that happened to the file: kind is one of waiting, appeared, truncated, rewritten,
    rotated, vanished, unreadable, readable, overlong; old/new are byte sizes where they matter;
    detail is the reason of `unreadable`; `unread`: a rotated file given up before its end (old:
    bytes read, new: its size)."""

    kind: str
    old: int = 0
    new: int = 0
    detail: str = ""


@dataclass
class Follower:
    """Poll-based reader of one growing file.  Not thread-safe; one per path.

    from_start=False starts at the current end of the file (`--tail`): only lines written from now
    on are returned.  A file that appears later, or a new file after rotation or truncation, is
    always read from its start: everything in it is new.
    rotate_grace: seconds a rotated file must stay quiet before the next one is read.

    Rotation however fast: a new file at the path is opened at once (so it can be read to its end
    even after it is rotated away in turn), and the files rotated away form a chain, read in order,
    oldest first, each to its end.  A file rotated in and out between two polls (never seen at the
    path) is found beside it (`train.log.1`, `train.log-2`, …: same directory, a name starting with
    the log's, written since) and put in the chain by modification time.  More than `MAX_CHAIN`
    files waiting: the oldest is given up and said (`unread`).
    """

    path: Path
    from_start: bool = True
    chunk: int = CHUNK
    rotate_grace: float = 2.0
    clock: Callable[[], float] = time.monotonic
    opener: Callable[[Path], Any] = field(default=lambda p: open(p, "rb"), repr=False)
    lines_read: int = 0
    bytes_read: int = 0
    more_pending: bool = False  # the last poll stopped at its byte budget: call again at once
    _cur: Handle | None = field(default=None, repr=False)
    _chain: list[Handle] = field(default_factory=list, repr=False)  # rotated away, oldest first
    _seen: dict[tuple[int, int], None] = field(default_factory=dict, repr=False)  # files opened (bounded)
    _announce: bool = False  # `_cur` came by rotation: say "rotated" when its reading begins
    _since: float = 0.0  # when the current file was opened (older siblings are history)
    _said: str = ""  # the last "where is the file" state reported: waiting/vanished/unreadable:<why>
    _ever_open: bool = False
    _polled: bool = False  # after the first poll, a file that appears is new: read from its start
    _first: bool = True

    MAX_CHAIN = 64

    def __post_init__(self) -> None:
        self.path = Path(self.path)

    # -- public -----------------------------------------------------------------------------
    def poll(self) -> tuple[list[str], list[FollowEvent]]:
        """New complete lines since the last call, and what happened to the file meanwhile."""
        events: list[FollowEvent] = []
        lines: list[str] = []
        self.more_pending = False
        self._first, self._polled = not self._polled, True
        now = self.clock()
        st, why = self._stat()
        ident = (st.st_dev, st.st_ino) if st is not None else None
        cur = self._cur
        if cur is not None and ident != cur.ident:
            # renamed away, removed or replaced: keep the handle and drain it (late lines too)
            cur.changed_at = now
            self._chain.append(cur)
            self._cur = None
            if st is None and why == "missing":
                self._say(events, "vanished", FollowEvent("vanished"))
        if self._cur is None and self._chain and ident == self._chain[-1].ident:
            self._cur = self._chain.pop()  # moved back: the same file, go on where we were
        if st is not None and self._cur is None and self._chain:
            # a new file while older ones drain: open it now (it may be rotated away in turn),
            # and pick up the files rotated in and out since the last poll
            before = self._since
            if self._open(st, events, rotated=True):
                self._announce = True
                self._find_siblings(now, before)
        for h in self._chain:
            h.watch_size(now)
        if len(self._chain) > self.MAX_CHAIN:
            for h in self._chain[: -self.MAX_CHAIN]:
                events.append(FollowEvent("unread", old=h.pos, new=h.size))
                h.close()
            del self._chain[: -self.MAX_CHAIN]
        while self._chain:
            old = self._chain[0]
            got = self._read(old, events)
            lines += got
            if got or self.more_pending:
                old.changed_at = now
                return lines, events
            last = len(self._chain) == 1
            if now - old.changed_at < self.rotate_grace or (last and self._cur is None):
                if last and self._cur is None and st is None and why != "missing":
                    self._say(events, "unreadable:" + why, FollowEvent("unreadable", detail=why))
                return lines, events
            lines += self._finish(old)  # the rotation ends its half-written last line
            old.close()
            self._chain.pop(0)
        if self._cur is not None and self._announce:
            self._announce = False
            events.append(FollowEvent("rotated"))
        if self._cur is None:
            if st is None:
                if why == "missing":
                    self._say(events, self._said or "waiting", FollowEvent("waiting"))
                else:
                    self._say(events, "unreadable:" + why, FollowEvent("unreadable", detail=why))
                return lines, events
            if not self._open(st, events):
                return lines, events
        else:
            cur = self._cur
            assert st is not None
            if st.st_size < cur.pos:
                events.append(FollowEvent("truncated", old=cur.pos, new=st.st_size))
                cur.restart()
            elif cur.rewritten():
                events.append(FollowEvent("rewritten", old=cur.pos, new=st.st_size))
                cur.restart()
        if self._cur is not None:
            lines += self._read(self._cur, events)
        return lines, events

    def flush(self) -> list[str]:
        """The unfinished last line, as a line (at the very end, e.g. `--once`)."""
        out: list[str] = []
        for h in (*self._chain, self._cur):
            if h is not None:
                out += self._finish(h)
        return out

    def close(self) -> None:
        for h in (*self._chain, self._cur):
            if h is not None:
                h.close()
        self._chain.clear()
        self._cur = None

    def __enter__(self) -> Follower:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a follower dropped without close() must not leak its handle
        self.close()

    @property
    def exists(self) -> bool:
        return self._cur is not None

    @property
    def position(self) -> int:
        return self._cur.pos if self._cur is not None else 0

    # -- internals --------------------------------------------------------------------------
    def _stat(self) -> tuple[os.stat_result | None, str]:
        """The path's stat, or None and why not: "missing" or a reason it cannot be read."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None, "missing"
        except OSError as e:
            return None, e.strerror or type(e).__name__
        if stat_mod.S_ISDIR(st.st_mode):
            return None, os.strerror(21)  # "Is a directory"
        return st, ""

    def _say(self, events: list[FollowEvent], state: str, ev: FollowEvent) -> None:
        if self._said != state:
            events.append(ev)
            self._said = state

    def _open(self, st: os.stat_result, events: list[FollowEvent], rotated: bool = False) -> bool:
        try:
            fh = self.opener(self.path)
        except OSError as e:
            why = e.strerror or type(e).__name__
            self._say(events, "unreadable:" + why, FollowEvent("unreadable", detail=why))
            return False
        h = Handle(fh)
        h.changed_at = self._since = self.clock()
        self._seen[h.ident] = None
        if len(self._seen) > 4 * self.MAX_CHAIN:
            del self._seen[next(iter(self._seen))]
        if self._first and not self.from_start and not rotated:
            h.seek_end()
        if not rotated:
            if self._said.startswith("unreadable"):
                events.append(FollowEvent("readable"))
            elif self._said or self._ever_open:
                events.append(FollowEvent("appeared"))
        self._said = ""
        self._ever_open = True
        self._cur = h
        return True

    def _read(self, h: Handle, events: list[FollowEvent]) -> list[str]:
        lines, n, full, err = h.read(self.chunk)
        self.more_pending = full
        self.bytes_read += n
        self.lines_read += len(lines)
        if err:
            self._say(events, "unreadable:" + err, FollowEvent("unreadable", detail=err))
        elif n and self._said.startswith("unreadable"):
            self._said = ""
            events.append(FollowEvent("readable"))
        if h.overlong:
            events.append(FollowEvent("overlong", new=MAX_LINE))
            h.overlong = False
        return lines

    def _find_siblings(self, now: float, since: float) -> None:
        """Files rotated in and out between two polls: beside the log, named like it, written since
        the file before them was opened, never seen; into the chain by modification time."""
        stem = self.path.name.split(".")[0]
        found: list[tuple[int, int, Path, os.stat_result]] = []
        try:
            entries = list(os.scandir(self.path.parent))
        except OSError:
            return
        for e in entries:
            if not e.name.startswith(stem) or e.name == self.path.name or e.name.endswith(_PACKED):
                continue
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            ident = (st.st_dev, st.st_ino)
            if not stat_mod.S_ISREG(st.st_mode) or ident in self._seen or any(h.ident == ident for h in self._chain):
                continue
            if self._cur is not None and ident == self._cur.ident:
                continue
            if st.st_mtime < self._wall(since) - 1.0:
                continue  # history from before we followed: not ours to read
            found.append((st.st_mtime_ns, st.st_ino, Path(e.path), st))
        for _, _, path, st in sorted(found):
            try:
                fh = self.opener(path)
            except OSError:
                continue
            h = Handle(fh)
            if h.ident != (st.st_dev, st.st_ino):
                h.close()
                continue
            h.changed_at = now
            self._seen[h.ident] = None
            self._chain.append(h)

    def _wall(self, t: float) -> float:
        """A time of `clock` as wall-clock seconds (file times are wall-clock)."""
        return time.time() - (self.clock() - t)

    def _finish(self, h: Handle) -> list[str]:
        rest = h.flush()
        self.lines_read += len(rest)
        return rest
