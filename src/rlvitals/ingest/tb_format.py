"""TensorBoard event files as a format: a directory of `events.out.tfevents.*` files, or one file.

The decoding is `tensorboard.py`'s (dependency-free); this module turns its (tag, step, value)
records into a Run.  Every file under a directory is read in name order (a resumed run writes a new
file: its steps start a new segment and win where they overlap).  Non-scalar values (histograms,
images, text) and a record cut short at the end of a file are counted in `Run.skipped`.
"""

from __future__ import annotations

from pathlib import Path

from ..i18n import Listing, Msg
from ..run import Run
from .base import Format
from .builder import RunBuilder
from .tensorboard import event_files, is_event_file, iter_scalars

__all__ = ["FORMAT", "is_tensorboard", "read_tensorboard"]


def read_tensorboard(path: Path, name: str) -> Run:
    """All scalars of one event file or of every event file under a directory."""
    builder = RunBuilder(name, "tensorboard")
    builder.split_runs = False  # one event file after another (train/, eval/ ...): not new runs
    stats: dict[str, int] = {}
    bad: list[str] = []
    cur_step: int | None = None
    row: dict[str, float] = {}
    for tag, step, value in iter_scalars(path, stats=stats, bad=bad):
        # records of one step arrive together; a row is one step's scalars
        if step != cur_step or tag in row:
            if row and cur_step is not None:
                builder.add_row(cur_step, row)
            row, cur_step = {}, step
        row[tag] = value
    if row and cur_step is not None:
        builder.add_row(cur_step, row)
    for reason, n in stats.items():
        if reason != "files" and n:
            builder.skip(reason, n)
    builder.meta["event_files"] = stats.get("files", 0)
    if bad:  # the healthy files are read; each bad one is named
        builder.skip("unreadable TensorBoard event file", len(bad))
        more = [Msg("note.more", n=len(bad) - 5)] if len(bad) > 5 else []
        builder.note(Msg("note.tb_left_out", n=len(bad), files=Listing((*bad[:5], *more))))
    return builder.build()


def is_tensorboard(path: Path) -> bool:
    """A TensorBoard event file, or a directory holding some (read() asks with the path: a format
    told by its path, never by a log's text -- the text "/" is not the root of the filesystem)."""
    try:
        if path.is_dir():
            return bool(event_files(path))
        return path.is_file() and is_event_file(path)
    except (OSError, ValueError):
        return False


FORMAT = Format(
    "tensorboard",
    "TensorBoard event files (`events.out.tfevents.*`, a file or a log directory)",
    lambda text: 0.0,
    reader=read_tensorboard,
)
