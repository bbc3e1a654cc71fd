"""MLflow's file store: `mlruns/<experiment>/<run>/metrics/<key>`, read with numpy.

Each metric is its own text file, one line per logged value: `timestamp value step` (milliseconds,
the number, the step; MLflow before 1.0 wrote `timestamp value` only, the line order is then the
step).  A key with `/` in it (`env/all/reward`) is a path of folders below `metrics/`.  The run's
parameters are one file each under `params/` (the value as text): they are its config, and the
context (lr, batch size, group size, length cap) is read from them as from a W&B config.
`meta.yaml` holds the run's name and start time.

A path may be a run folder (it holds `metrics/`), an experiment folder or `mlruns/` itself (or a
folder holding `mlruns/`): every run found is one of the "file's" runs, oldest first, the newest
read by default (`--run K`).  A line that is not three numbers is counted, never fatal.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from ..errors import NotAFile
from ..run import Run
from .base import Format
from .builder import RunBuilder
from .wandb_runs import context

__all__ = ["FORMAT", "mlflow_runs", "read_mlflow"]

_MAX_RUNS = 1000
_START = re.compile(r"^start_time:\s*(\d+)", re.M)
_NAME = re.compile(r"^run_name:\s*(.+)$", re.M)


def _is_run(d: Path) -> bool:
    return (d / "metrics").is_dir() and ((d / "meta.yaml").is_file() or (d / "params").is_dir())


def _start(d: Path) -> int:
    try:
        m = _START.search((d / "meta.yaml").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return 0
    return int(m.group(1)) if m else 0


def mlflow_runs(path: Path) -> list[Path]:
    """The MLflow run folders a path names (itself, an experiment's, every experiment's under
    `mlruns/`), the oldest started first; empty when there is none."""
    path = Path(path)
    if not path.is_dir():
        return []
    if _is_run(path):
        return [path]
    for base in (path, path / "mlruns"):
        if not base.is_dir():
            continue
        runs = [d for d in base.iterdir() if d.is_dir() and _is_run(d)]       # an experiment folder
        if not runs:
            runs = [d for e in base.iterdir() if e.is_dir() and e.name != ".trash"
                    for d in e.iterdir() if d.is_dir() and _is_run(d)]
        if runs:
            return sorted(runs, key=lambda d: (_start(d), str(d)))[-_MAX_RUNS:]
    return []


def _lines(f: Path, b: RunBuilder) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(timestamps, values, steps) of one metric file; lines that are not numbers counted."""
    text = f.read_text(encoding="utf-8", errors="replace")
    rows = text.split("\n")
    if rows and not rows[-1].strip():
        rows.pop()
    flat = text.split()
    if len(flat) == 3 * len(rows):
        try:
            table = np.array(flat, dtype=np.float64).reshape(-1, 3)
            return table[:, 0], table[:, 1], table[:, 2]
        except ValueError:
            pass
    ts, vals, steps = [], [], []
    for i, line in enumerate(rows):
        parts = line.split()
        try:
            nums = [float(p) for p in parts]
        except ValueError:
            nums = []
        if len(nums) == 3 or len(nums) == 2:
            ts.append(nums[0])
            vals.append(nums[1])
            steps.append(nums[2] if len(nums) == 3 else float(i))
        elif line.strip():
            b.skip("malformed MLflow metric line")
    return np.array(ts), np.array(vals), np.array(steps)


def _config(run_dir: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    params = run_dir / "params"
    if not params.is_dir():
        return out
    for f in sorted(p for p in params.rglob("*") if p.is_file())[:500]:
        try:
            text = f.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        try:
            value: object = float(text) if text.lower() not in ("nan", "inf", "-inf") else text
        except ValueError:
            value = text
        out[f.relative_to(params).as_posix()] = value
    return out


def read_run(run_dir: Path, name: str) -> Run:
    """One run folder: every metric file a column, joined on the step (the later write wins)."""
    b = RunBuilder(name, "mlflow")
    b.split_runs = False
    metrics = run_dir / "metrics"
    cols: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for f in sorted(p for p in metrics.rglob("*") if p.is_file()):
        try:
            ts, vals, steps = _lines(f, b)
        except OSError as e:
            raise NotAFile(f"{f}: cannot be read ({e.strerror or e}).") from None
        if not steps.size:
            continue
        ok = np.isfinite(steps) & (steps == np.floor(steps)) & (steps >= 0)
        if not ok.all():
            b.skip("step out of range", int((~ok).sum()))
            ts, vals, steps = ts[ok], vals[ok], steps[ok]
        order = np.lexsort((ts, steps))                  # by step, then time: the later write last
        steps, vals = steps[order].astype(np.int64), vals[order]
        last = np.ones(steps.size, dtype=bool)
        last[:-1] = steps[1:] != steps[:-1]
        cols[f.relative_to(metrics).as_posix()] = (steps[last], vals[last])
    if cols:
        union = np.unique(np.concatenate([s for s, _ in cols.values()]))
        columns, present = {}, {}
        for key, (steps, vals) in cols.items():
            at = np.searchsorted(union, steps)
            col = np.full(union.size, math.nan)
            col[at] = vals
            mask = np.zeros(union.size, dtype=bool)
            mask[at] = True
            columns[key], present[key] = col, mask
        b.add_block(union, columns, present=present, first_line=1)
    cfg = _config(run_dir)
    if cfg:
        b.meta["config"] = cfg
        ctx = context(cfg)
        if ctx:
            b.meta["context"] = ctx
    b.meta["mlflow"] = {"run_id": run_dir.name, "experiment": run_dir.parent.name, "metrics": len(cols)}
    return b.build()


def read_mlflow(path: Path, name: str) -> Run:
    """An MLflow run folder, experiment or `mlruns/`: the newest run, the others in `file_runs`."""
    found = mlflow_runs(path)
    if not found:
        raise NotAFile.of("ingest.err.mlflow_none", path=path)
    runs = []
    for d in found:
        try:
            m = _NAME.search((d / "meta.yaml").read_text(encoding="utf-8", errors="replace"))
        except OSError:
            m = None
        runs.append(read_run(d, m.group(1).strip() if m else d.name))
    if len(runs) > 1:
        listing = "; ".join(f"run {i + 1}: {r.name} ({r.n_steps} steps)" for i, r in enumerate(runs))
        for i, r in enumerate(runs):
            r.meta["run_index"], r.meta["run_count"] = i + 1, len(runs)
            r.file_runs = runs
            r.notes.append(f"the folder holds {len(runs)} MLflow runs: {listing}. This is run {i + 1}; "
                           "choose another with --run K")
    return runs[-1]


FORMAT = Format("mlflow", "MLflow file store: a run folder, an experiment or mlruns/ (metrics/<key> files of "
                "`timestamp value step` lines; --run K), e.g. `rlvitals diagnose mlruns/`", lambda text: 0.0,
                reader=read_mlflow)
