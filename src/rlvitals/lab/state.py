"""A learner's progress through the level, and where it is saved between sessions.

Progress is plain JSON under `$XDG_DATA_HOME/rlvitals/lab-progress.json` (else
`~/.local/share/rlvitals/…`; `--state PATH` overrides).  One file keeps one level per seed, so
replaying with `--seed 7` never overwrites the default level's progress.

The file is the user's, and the path may be anything, so it is handled as a careful operator would:

- a symlink at the path is the user's choice and is followed (once, to its target); the temporary
  file is created fresh with a unique name (O_EXCL: never through a planted link) beside the target
  and moved over it atomically, so concurrent sessions never tear the file;
- a directory, a device, a FIFO or a socket is refused (`StateRefused`: one line, nothing touched);
  so is a regular file that is not a progress file at all (not JSON, or JSON without `levels`);
- a progress file that is damaged (truncated, a wrong type anywhere, nested too deep, too large)
  gives a one-line note and a fresh start; the old file is moved beside it, untouched
  (`<name>.bad`, or `.bad.2`, … — an earlier one is never overwritten).
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import RlvitalsError

__all__ = [
    "Progress",
    "StageResult",
    "StateRefused",
    "default_state_path",
    "load_progress",
    "save_progress",
    "seed_key",
]

VERSION = 1
MAX_BYTES = 8 * 1024 * 1024  # a progress file is a few kB; anything this large is not one
_DEPTH = 6  # file → levels → level → results → result: 4 deep, with room


class StateRefused(RlvitalsError):
    """The state path is a directory, a special file or a file that is not ours: nothing is touched."""


class _Damaged(ValueError):
    """A progress file that cannot be used (set aside, fresh start)."""


@dataclass
class StageResult:
    """How one stage went.  `given` is what the learner said (first answer counts)."""

    given: str
    correct: bool
    points: int
    hints: int = 0
    partial: bool = False  # a set judged right but its failure named wrong (or not at all)
    revealed: bool = False  # a pair whose answer was shown by `diff` before it was answered


@dataclass
class Progress:
    seed: int | None = None
    current: str | None = None
    results: dict[str, StageResult] = field(default_factory=dict)
    hints: dict[str, int] = field(default_factory=dict)  # hints taken per stage before answering
    diffed: list[str] = field(default_factory=list)  # pairs whose diff has been seen

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        return d

    @classmethod
    def from_json(cls, d: Any) -> Progress:
        """A level from its JSON; ValueError on any wrong type, missing or unknown field."""
        d = _obj(d, "level")
        results = {_text(k, "stage"): _result(v) for k, v in _obj(d.get("results", {}), "results").items()}
        hints = {_text(k, "stage"): _int(v, "hints") for k, v in _obj(d.get("hints", {}), "hints").items()}
        diffed = d.get("diffed", [])
        if not isinstance(diffed, list):
            raise ValueError("diffed is not a list")
        seed = d.get("seed")
        return cls(
            seed=None if seed is None else _int(seed, "seed"),
            current=None if d.get("current") is None else _text(d["current"], "current"),
            results=results,
            hints=hints,
            diffed=[_text(x, "diffed") for x in diffed],
        )


def _obj(v: Any, what: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ValueError(f"{what} is not an object")
    return v


def _text(v: Any, what: str) -> str:
    from ..safe_text import has_controls

    if not isinstance(v, str) or len(v) > 200 or has_controls(v):
        raise ValueError(f"{what} is not a short plain string")
    return v


def _int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or abs(v) > 10**9:
        raise ValueError(f"{what} is not an integer")
    return v


def _points(v: Any) -> int:
    n = _int(v, "points")
    if not 0 <= n <= 1000:
        raise ValueError("points out of range")
    return n


def _bool(v: Any, what: str) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"{what} is not true/false")
    return v


def _result(v: Any) -> StageResult:
    d = _obj(v, "result")
    unknown = set(d) - {"given", "correct", "points", "hints", "partial", "revealed"}
    if unknown or not {"given", "correct", "points"} <= set(d):
        raise ValueError("a result has missing or unknown fields")
    return StageResult(
        given=_text(d["given"], "given"),
        correct=_bool(d["correct"], "correct"),
        points=_points(d["points"]),
        hints=_int(d.get("hints", 0), "hints"),
        partial=_bool(d.get("partial", False), "partial"),
        revealed=_bool(d.get("revealed", False), "revealed"),
    )


def default_state_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "rlvitals" / "lab-progress.json"


def seed_key(seed: int | None) -> str:
    return "default" if seed is None else str(seed)


def _target(path: Path) -> Path:
    """Where the progress really lives: a symlink the user put at `path` is followed (to its final
    target); what is there must be a regular file or nothing, else StateRefused."""
    real = Path(os.path.realpath(path))
    try:
        st = os.stat(real)
    except OSError:  # missing, or a parent that is no directory: reading finds nothing,
        return real  # and saving says why once (the session plays on)
    if stat.S_ISDIR(st.st_mode):
        raise StateRefused.of("lab.state.is_dir", path=path)
    if not stat.S_ISREG(st.st_mode):
        raise StateRefused.of("lab.state.special", path=path)
    return real


def _read_bytes(real: Path) -> bytes | None:
    """The file's bytes (None when missing), read without blocking on a FIFO swapped in meanwhile."""
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StateRefused.of("lab.state.special", path=real)
        data = fh.read(MAX_BYTES + 1)
    return data


def _looks_ours(data: bytes) -> bool:
    """A progress file, perhaps damaged: empty, or a JSON object that names `levels` or `version`."""
    head = data.lstrip()
    return not head or (head[:1] == b"{" and (b'"levels"' in data or b'"version"' in data))


def _parse(data: bytes) -> dict[str, Any]:
    from ..ingest.safejson import DEEP, loads

    if len(data) > MAX_BYTES:
        raise _Damaged("larger than a progress file can be")
    try:
        value, deep = loads(data.decode("utf-8"), limit=_DEPTH)
    except (UnicodeDecodeError, ValueError) as e:
        raise _Damaged(type(e).__name__) from None
    if deep or value == DEEP:
        raise _Damaged("nested too deep")
    try:
        d = _obj(value, "the file")
        if not isinstance(d.get("levels"), dict):
            raise ValueError("no levels")
        for k, lvl in d["levels"].items():  # every level now, not halfway through a session
            _text(k, "level name")
            Progress.from_json(lvl)
    except ValueError as e:
        raise _Damaged(str(e)) from None
    return {"version": VERSION, "levels": dict(d["levels"])}


def _set_aside(real: Path) -> Path:
    """Move a damaged progress file to the first free `<name>.bad[.N]`, never over another file."""
    for n in range(1, 1000):
        bad = real.with_name(real.name + (".bad" if n == 1 else f".bad.{n}"))
        try:
            os.link(real, bad)  # fails if `bad` exists: nothing is overwritten
        except FileExistsError:
            continue
        except OSError:  # no hard links here: rename, still never over a file
            if os.path.lexists(bad):
                continue
            os.rename(real, bad)
            return bad
        os.unlink(real)
        return bad
    raise OSError("too many .bad files")


def _read_file(path: Path) -> tuple[dict[str, Any], str | None]:
    """The whole file as {"version", "levels"}; a note when it had to be set aside."""
    empty: dict[str, Any] = {"version": VERSION, "levels": {}}
    real = _target(path)
    try:
        data = _read_bytes(real)
    except OSError as e:  # unreadable (permissions): a fresh start, nothing touched
        return empty, f"{path}: {e.strerror or type(e).__name__}"
    if data is None or not data.strip():
        return empty, None
    if not _looks_ours(data):
        raise StateRefused.of("lab.state.not_ours", path=path)
    try:
        return _parse(data), None
    except _Damaged as e:
        try:
            kept = str(_set_aside(real))
        except OSError as err:
            raise StateRefused.of("lab.state.stuck", path=path, why=e, err=err.strerror or err) from None
        return empty, f"{path}: {e}; kept as {kept}"


def load_progress(path: Path, seed: int | None, reset: bool = False) -> tuple[Progress, str | None]:
    """The saved progress for `seed` (fresh when none or `reset`), and a note if the file was unusable.
    Raises StateRefused when the path is not a place for progress (a directory, a device, a FIFO,
    a file that is not ours)."""
    data, note = _read_file(path)
    lvl = data["levels"].get(seed_key(seed))
    if reset or lvl is None:
        return Progress(seed=seed), note
    prog = Progress.from_json(lvl)
    prog.seed = seed
    return prog, note


def save_progress(path: Path, progress: Progress) -> None:
    """Write atomically: a fresh temp file of a unique name beside the target (created exclusively,
    so never through a link planted there), flushed to disk, then moved over the target.  A crash
    mid-write never loses earlier progress; concurrent sessions never tear the file.  Raises
    StateRefused (see load_progress) or OSError."""
    real = _target(path)
    data, _ = _read_file(path)
    data["version"] = VERSION
    data["levels"][seed_key(progress.seed)] = progress.to_json()
    real.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    try:
        try:  # keep the file's permissions (mkstemp makes it 0600)
            os.fchmod(fd, stat.S_IMODE(os.stat(real).st_mode))
        except FileNotFoundError:
            os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(data, ensure_ascii=False, indent=1))
            fh.flush()
            os.fsync(fh.fileno())
        _target(path)  # still a file or nothing (not swapped for a directory)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
