"""A learner's progress through the level, and where it is saved between sessions.

Progress is plain JSON under `$XDG_DATA_HOME/rlvitals/lab-progress.json` (else
`~/.local/share/rlvitals/…`; `--state PATH` overrides).  One file keeps one level per seed, so
replaying with `--seed 7` never overwrites the default level's progress.  A damaged or foreign file
is set aside (renamed `.bad`) with a one-line note rather than crashing the session or being lost.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Progress", "StageResult", "default_state_path", "load_progress", "save_progress", "seed_key"]

VERSION = 1


@dataclass
class StageResult:
    """How one stage went.  `given` is what the learner said (first answer counts)."""

    given: str
    correct: bool
    points: int
    hints: int = 0
    partial: bool = False     # a set judged right but its failure named wrong (or not at all)
    revealed: bool = False    # a pair whose answer was shown by `diff` before it was answered


@dataclass
class Progress:
    seed: int | None = None
    current: str | None = None
    results: dict[str, StageResult] = field(default_factory=dict)
    hints: dict[str, int] = field(default_factory=dict)   # hints taken per stage before answering
    diffed: list[str] = field(default_factory=list)        # pairs whose diff has been seen

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Progress:
        results = {k: StageResult(**v) for k, v in dict(d.get("results", {})).items()}
        return cls(seed=d.get("seed"), current=d.get("current"), results=results,
                   hints={str(k): int(v) for k, v in dict(d.get("hints", {})).items()},
                   diffed=[str(x) for x in d.get("diffed", [])])


def default_state_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "rlvitals" / "lab-progress.json"


def seed_key(seed: int | None) -> str:
    return "default" if seed is None else str(seed)


def _read_file(path: Path) -> tuple[dict[str, Any], str | None]:
    """The whole file as {"version", "levels"}; a note when it had to be set aside."""
    empty: dict[str, Any] = {"version": VERSION, "levels": {}}
    if not path.exists():
        return empty, None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("levels"), dict):
            raise ValueError("not a progress file")
        for lvl in data["levels"].values():
            Progress.from_json(lvl)  # validate every level now, not halfway through a session
        return data, None
    except (OSError, ValueError, TypeError, AttributeError) as e:
        bad = path.with_suffix(path.suffix + ".bad")
        try:
            path.replace(bad)
        except OSError:
            bad = path
        return empty, f"{path}: {type(e).__name__}; kept as {bad}"


def load_progress(path: Path, seed: int | None, reset: bool = False) -> tuple[Progress, str | None]:
    """The saved progress for `seed` (fresh when none or `reset`), and a note if the file was unusable."""
    data, note = _read_file(path)
    lvl = data["levels"].get(seed_key(seed))
    if reset or lvl is None:
        return Progress(seed=seed), note
    prog = Progress.from_json(lvl)
    prog.seed = seed
    return prog, note


def save_progress(path: Path, progress: Progress) -> None:
    """Write atomically (temp file + rename) so a crash mid-write never loses earlier progress."""
    data, _ = _read_file(path)
    data["version"] = VERSION
    data["levels"][seed_key(progress.seed)] = progress.to_json()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    tmp.replace(path)
