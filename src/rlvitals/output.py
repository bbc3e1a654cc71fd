"""Writing outputs without tracebacks: a path is checked before any work, and an OSError while
writing becomes one `OutputError` sentence.  Nothing here creates directories: a typo in
`-o /nonexistent_dir/x.png` must be an error, not a new folder at the root."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import OutputError

__all__ = ["check_output", "describe", "writing"]


def describe(e: OSError) -> str:
    """The OS's own words for an error ("No space left on device"), without the errno noise."""
    return e.strerror or str(e) or type(e).__name__


def check_output(path: str | os.PathLike[str]) -> Path:
    """`path` as a Path if a file can be created there; else an OutputError saying why."""
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"cannot write {p}: it is a directory; give a file name inside it")
    parent = p.parent
    if not parent.exists():
        raise OutputError(f"cannot write {p}: directory {parent} does not exist")
    if not parent.is_dir():
        raise OutputError(f"cannot write {p}: {parent} is not a directory")
    return p


@contextmanager
def writing(what: str | os.PathLike[str]) -> Iterator[None]:
    """Turn an OSError raised inside the block into 'cannot write WHAT: <reason>'."""
    try:
        yield
    except BrokenPipeError:
        raise  # the reader went away: the CLI stays quiet about it
    except OSError as e:
        raise OutputError(f"cannot write {what}: {describe(e)}") from None
