"""TensorBoard's own downloads: one curve per file, the metric named by the file, not inside it.

The "download data" links under a TensorBoard chart save one run's one tag as
`run-<run>-tag-<tag>.csv` (a header `Wall time,Step,Value`, one row per point) or `.json` (a bare
array of `[wall_time, step, value]` triples); the same shape comes from the scripts that dump an
event file tag by tag (`wall_time,step,value`).  The run and the tag live only in the file's name,
where a `/` of the tag was written as `_`.

- One file is one metric: its key is the tag -- spelled back with a `/` where the alias table knows
  it that way (`actor_entropy` -> `actor/entropy`) -- or, for a file not named by TensorBoard, the
  file's own name (`reward.csv` -> `reward`).
- A folder of such files is read together: each run's tags joined on their steps, the runs in
  name order (`--run K`), the last by default.
- A row or triple that is not three numbers is counted in `Run.skipped`; the wall time orders two
  writes of one step (the later wins).
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..i18n import Msg
from ..run import Run
from . import aliases
from .assemble import link_runs
from .base import Format
from .keyed import Keyed, keyed_builder
from .values import OUT_OF_RANGE, as_float, parse_value

__all__ = ["FORMAT", "read_tb_export", "tb_exports"]

_TB_NAME = re.compile(r"run[-_](?P<run>.*?)[-_]tag[-_](?P<tag>.+)\.(?:csv|json)", re.IGNORECASE)
_HEADERS = (("wall time", "step", "value"), ("wall_time", "step", "value"))
_TRIPLE = re.compile(r"\A\s*\[\s*\[\s*-?[\d.eE+-]+\s*,\s*-?[\d.eE+-]+\s*,\s*[-\w.+\"]+\s*\]")
_MAX_FILES = 2000


def _header(line: str) -> bool:
    cells = tuple(c.strip().strip('"').lower() for c in line.split(","))
    return cells in _HEADERS


def tb_exports(path: Path) -> list[Path]:
    """The TensorBoard downloads in a folder (`run-<run>-tag-<tag>.csv|json`), by name."""
    try:
        found = sorted(p for p in Path(path).iterdir() if p.is_file() and _TB_NAME.fullmatch(p.name))
    except OSError:
        return []
    return found[:_MAX_FILES]


def _key(tag: str) -> str:
    """The tag as logged: TensorBoard wrote each `/` of it as `_`; of the spellings with a `/` back
    in, the first the alias table reads wins (all of them, then one at a time from the left)."""
    if aliases.lookup(tag) is not None or "_" not in tag:
        return tag
    parts = tag.split("_")
    tries = ["/".join(parts)] + ["_".join(parts[:i]) + "/" + "_".join(parts[i:]) for i in range(1, len(parts))]
    return next((t for t in tries if aliases.lookup(t) is not None), tag)


def _where(path: Path) -> tuple[str, str]:
    """(run, key) a file holds: from TensorBoard's file name, else ("", the file's own name)."""
    m = _TB_NAME.fullmatch(path.name)
    if m is not None:
        return m.group("run"), _key(m.group("tag"))
    return "", _key(path.name.rsplit(".", 1)[0])


def _points(path: Path, skipped: dict[str, int]) -> Keyed:
    text = path.read_text(encoding="utf-8", errors="replace")
    rows: list[list[object]]
    if text.lstrip().startswith("["):
        try:
            doc = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise InputError.of("ingest.err.json", path=path, error="not a JSON array of triples") from None
        rows = doc if isinstance(doc, list) else []
    else:
        lines = text.splitlines()
        if not lines or not _header(lines[0]):
            raise InputError.of("ingest.err.tb_export", path=path)
        rows = [list(r) for r in csv.reader(lines[1:])]
    out: list[tuple[float, float, float]] = []
    for row in rows:
        nums = [x for c in row if (x := _num(c)) is not None] if isinstance(row, list) and len(row) == 3 else []
        if len(nums) == 3 and nums[2] is not OUT_OF_RANGE:
            out.append((nums[0], nums[2], nums[1]))
        elif row:
            reason = "value out of range" if len(nums) == 3 else "point that is not three numbers"
            skipped[reason] = skipped.get(reason, 0) + 1
    table = np.array(out, dtype=np.float64).reshape(-1, 3)
    return table[:, 0], table[:, 1], table[:, 2]


def _num(cell: object) -> float | None:
    if isinstance(cell, bool):
        return None
    if isinstance(cell, int | float):
        return as_float(cell)  # an integer past float64's range: OUT_OF_RANGE, never an OverflowError
    return parse_value(cell) if isinstance(cell, str) else None


def _build(name: str, cols: dict[str, Keyed], skipped: dict[str, int], files: int) -> Run:
    b = keyed_builder(name, "tensorboard-export", cols, skipped)
    b.note(Msg("ingest.note.tb_export", files=files, keys=", ".join(cols)))
    return b.build()


def read_tb_export(path: Path, name: str) -> Run:
    """One downloaded curve, or a folder of them (each run's tags joined on their steps)."""
    path = Path(path)
    files = tb_exports(path) if path.is_dir() else [path]
    if not files:
        raise InputError.of("ingest.err.tb_export", path=path)
    by_run: dict[str, dict[str, Keyed]] = {}
    skipped: dict[str, dict[str, int]] = {}
    for f in files:
        run, key = _where(f)
        skip = skipped.setdefault(run, {})
        by_run.setdefault(run, {})[key] = _points(f, skip)
    runs = []
    for run, cols in by_run.items():
        label = f"{name}:{run}" if name and run and len(by_run) > 1 else (name or run)
        runs.append(_build(label, cols, skipped[run], len(cols)))
        runs[-1].meta["tb_export_run"] = run
    if len(runs) == 1:
        return runs[0]
    return link_runs(runs, Msg("ingest.note.tb_export_holds", n=len(runs)), lambda r: str(r.meta["tb_export_run"]))


def _sniff(text: str) -> float:
    """TensorBoard's CSV header, or a bare JSON array of number triples."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    if _header(first):
        return 0.95
    return 0.9 if _TRIPLE.match(text) else 0.0


FORMAT = Format(
    "tensorboard-export",
    "TensorBoard's downloaded curves: `run-<run>-tag-<tag>.csv` (`Wall time,Step,Value`) or `.json` "
    "(`[[wall_time, step, value], ...]`), one metric named by the file; a folder of them is read together",
    _sniff,
    reader=read_tb_export,
)
