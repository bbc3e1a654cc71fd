"""Progress of a long read on stderr: "reading train.log … 42% (840 MB of 2.0 GB)".

Shown only when stderr is a terminal (never in pipes, files or tests) and only for a read that is
long: a file of MIN_BYTES or more, or one still being read after MIN_SECONDS.  Readers call
`tick(bytes_done)` now and then (per block, per few thousand lines); it costs one global lookup
when no progress is shown.  No dependency: one line redrawn with a carriage return, erased at
the end.  RLVITALS_PROGRESS=0 turns it off, =1 shows it even when stderr is not a terminal.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["MIN_BYTES", "MIN_SECONDS", "reading", "tick"]

MIN_BYTES = 50 * 1024 * 1024  # a file this big gets a progress line from the start
MIN_SECONDS = 3.0  # any read still going after this long gets one too
REDRAW = 0.25  # seconds between redraws


class _Progress:
    def __init__(self, label: str, total: int) -> None:
        from ..safe_text import escape_controls

        self.label, self.total = escape_controls(label, keep_layout=False), total  # a file name may hold anything
        self.start = time.monotonic()
        self.next_draw = self.start + (0.0 if total >= MIN_BYTES else MIN_SECONDS)
        self.drawn = False

    def tick(self, done: int) -> None:
        now = time.monotonic()
        if now < self.next_draw:
            return
        self.next_draw = now + REDRAW
        pct = 100.0 * min(done, self.total) / self.total if self.total else 0.0
        line = f"rlvitals: reading {self.label} … {pct:3.0f}% ({_size(done)} of {_size(self.total)})"
        try:
            sys.stderr.write("\r" + line + "\x1b[K")
            sys.stderr.flush()
            self.drawn = True
        except (OSError, ValueError):  # stderr went away: stop drawing, never fail a read for it
            self.next_draw = float("inf")

    def close(self) -> None:
        if self.drawn:
            try:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()
            except (OSError, ValueError):
                pass


_current: _Progress | None = None


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit in ("B", "KB") or n >= 100 else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"  # pragma: no cover


def _wanted() -> bool:
    env = os.environ.get("RLVITALS_PROGRESS")
    if env in ("0", "1"):
        return env == "1"
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def reading(path: str | os.PathLike[str], label: object = "") -> Iterator[None]:
    """Show progress for the reads inside the block when it is wanted (see the module docstring)."""
    global _current
    if _current is not None or not _wanted():
        yield
        return
    try:
        total = Path(path).stat().st_size
    except OSError:
        yield
        return
    _current = _Progress(str(label or Path(path).name), total)
    try:
        yield
    finally:
        _current.close()
        _current = None


def tick(done: int) -> None:
    """`done` bytes of the current file have been read (a no-op when no progress is shown)."""
    if _current is not None:
        _current.tick(done)
