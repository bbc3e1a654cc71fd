"""What every reader is: a `Format` (name, description, sniff, how to read) and, for line-based
formats, an incremental `LineParser` (the same object serves `read` and `watch`).

Shared line hygiene lives here too: ANSI colours, Ray `(Actor pid=…)` prefixes, tqdm `\\r` updates.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..run import Run
from .builder import RunBuilder

__all__ = ["ANSI", "LOOP_COUNTERS", "RAY_PREFIX", "Format", "LineParser", "clean_line", "normalise_column"]

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# "(TaskRunner pid=46086)", "(main_task pid=54569, ip=10.0.0.1)", possibly repeated after ANSI removal
RAY_PREFIX = re.compile(r"^\s*\([\w.\-]+ pid=\d+(?:, ip=[\d.]+)?\)\s?")
RAY_REPEATED = re.compile(r"\[repeated \d+x across cluster\]")  # fullmatch on the tail (see clean_line)


# a hand-rolled loop's own step counter, read by the table readers (CSV, JSONL) after the frameworks' names
LOOP_COUNTERS = ("global_steps", "train_step", "grpo_step", "ppo_step", "rl_step", "optimizer_step", "update", "iter")

_SPACED_SLASH = re.compile(r"(?<!\s)\s*/\s*")  # (?<!\s): one try per blank run (linear on any input)
_RENAMED = {"training loss": "loss", "validation loss": "eval_loss"}


def normalise_column(name: str) -> str:
    """A table's column name as a key (the Trainer's notebook table, or that table copied as text):
    `rewards / xmlcount_reward_func` → `rewards/xmlcount_reward_func`; `Training Loss` → `loss`."""
    name = _SPACED_SLASH.sub("/", " ".join(name.split()))
    return _RENAMED.get(name.lower(), name)


def clean_line(line: str) -> str:
    """Strip colours, Ray actor prefixes and Ray's dedup suffix; keep the rest verbatim."""
    if "\x1b" in line:
        line = ANSI.sub("", line)
    if line.startswith("(") or line.startswith(" ("):
        line = RAY_PREFIX.sub("", line, count=1)
    if line.endswith("cluster]"):
        # str.rfind, not `\s*\[…\]$` searched from every blank: that was quadratic on long blank runs
        k = line.rfind("[repeated ")
        if k >= 0 and RAY_REPEATED.fullmatch(line, k):
            line = line[:k].rstrip()
    return line


class LineParser:
    """Base for incremental line readers: `feed(line)` any number of times, `snapshot()` any time.

    Subclasses implement `parse(line, lineno)`, calling `self.builder.add_row(step, row, lineno)`
    for metric lines and `self.builder.skip(reason)` for lines they cannot use (the core readers
    count banners and warnings as "not a metric line", so nothing disappears unseen).  `feed`
    returns whether the line added a row; `feed_last` is for a final line without a newline.
    """

    format_name = "base"

    def __init__(self, name: str = "") -> None:
        self.builder = RunBuilder(name, self.format_name)
        self.lineno = 0

    def feed(self, line: str) -> bool:
        """Parse one line; True when it added a row (watch counts only those toward its cadence)."""
        self.lineno += 1
        before = self.builder.rows
        if "\r" in line:
            # tqdm rewrites a line with \r; only the text after the last \r was the final state,
            # but a metric dict may also sit before it: try each piece.
            for piece in line.split("\r"):
                if piece.strip():
                    self.parse(piece.rstrip("\n"), self.lineno)
        else:
            self.parse(line.rstrip("\n"), self.lineno)
        return self.builder.rows > before

    def feed_last(self, line: str) -> bool:
        """The file's last line when it has no newline: it may be cut short (see RunBuilder.partial)."""
        self.builder.partial = True
        try:
            return self.feed(line)
        finally:
            self.builder.partial = False

    def parse(self, line: str, lineno: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def snapshot(self) -> Run:
        return self.builder.build()

    def finish(self) -> Run:
        return self.builder.build()


@dataclass(frozen=True)
class Format:
    """A log format rlvitals reads.

    sniff:  text (the first ~64 KiB, decoded) -> confidence in [0, 1] that this is the format.
    parser: factory name -> LineParser, for line-based formats (also used by `watch`).
    reader: (path, name) -> Run, for formats read whole (JSON documents, binary, fast paths).
    writer: (run, stream) -> None, writes a run in this format (round-trip tests, the simulator).
    """

    name: str
    description: str
    sniff: Callable[[str], float]
    parser: Callable[[str], LineParser] | None = None
    reader: Callable[[Path, str], Run] | None = None
    writer: Callable[[Run, TextIO], None] | None = None
