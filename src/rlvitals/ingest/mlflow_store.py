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
import sqlite3
from pathlib import Path

import numpy as np

from ..errors import InputError, NotAFile
from ..i18n import Msg
from ..run import Run
from .base import Format
from .builder import RunBuilder, link_runs
from .keyed import Keyed, keyed_builder
from .sqlite_store import is_sqlite
from .wandb_runs import context

__all__ = ["FORMAT", "is_mlflow_db", "mlflow_runs", "read_mlflow"]

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
        runs = [d for d in base.iterdir() if d.is_dir() and _is_run(d)]  # an experiment folder
        if not runs:
            runs = [
                d
                for e in base.iterdir()
                if e.is_dir() and e.name != ".trash"
                for d in e.iterdir()
                if d.is_dir() and _is_run(d)
            ]
        if runs:
            return sorted(runs, key=lambda d: (_start(d), str(d)))[-_MAX_RUNS:]
    return []


def _lines(f: Path, skipped: dict[str, int]) -> Keyed:
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
            skipped["malformed MLflow metric line"] = skipped.get("malformed MLflow metric line", 0) + 1
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
        out[f.relative_to(params).as_posix()] = _param(text)
    return out


def _context(b: RunBuilder, cfg: dict[str, object]) -> None:
    if cfg:
        b.meta["config"] = cfg
        ctx = context(cfg)
        if ctx:
            b.meta["context"] = ctx


def read_run(run_dir: Path, name: str) -> Run:
    """One run folder of the file store: every metric file a column, joined on the step."""
    metrics = run_dir / "metrics"
    cols: dict[str, Keyed] = {}
    skipped: dict[str, int] = {}
    for f in sorted(p for p in metrics.rglob("*") if p.is_file()):
        try:
            cols[f.relative_to(metrics).as_posix()] = _lines(f, skipped)
        except OSError as e:
            raise NotAFile(f"{f}: cannot be read ({e.strerror or e}).") from None
    b = keyed_builder(name, "mlflow", cols, skipped, first_line=1)
    _context(b, _config(run_dir))
    b.meta["mlflow"] = {"run_id": run_dir.name, "experiment": run_dir.parent.name, "metrics": len(cols)}
    return b.build()


# ---------------------------------------------------------------- mlflow.db (MLflow 3.x's default)


def is_mlflow_db(path: Path) -> bool:
    """An MLflow tracking database: SQLite with `runs` and `metrics (key, value, …, run_uuid, step)`."""
    if not (path.is_file() and is_sqlite(path)):
        return False
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            cols = {r[1] for r in con.execute("PRAGMA table_info(metrics)")}
            runs = con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'").fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return bool(runs) and {"key", "value", "run_uuid", "step"} <= cols


def _db_runs(path: Path) -> list[Run]:
    con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        found = con.execute(
            "SELECT run_uuid, name, experiment_id FROM runs WHERE lifecycle_stage IS NOT 'deleted' "
            "ORDER BY start_time, run_uuid"
        ).fetchall()[-_MAX_RUNS:]
        has_nan = any(r[1] == "is_nan" for r in con.execute("PRAGMA table_info(metrics)"))
        out = []
        for run_id, run_name, exp in found:
            rows = con.execute(
                f"SELECT key, timestamp, value, step{', is_nan' if has_nan else ''} FROM metrics WHERE run_uuid = ?",
                (run_id,),
            ).fetchall()
            by_key: dict[str, list[tuple[float | None, ...]]] = {}
            for r in rows:
                by_key.setdefault(r[0], []).append(r[1:])
            cols = {}
            for key, rs in by_key.items():
                t = np.array(
                    [[x[0] or 0, math.nan if x[1] is None or (has_nan and x[3]) else x[1], x[2]] for x in rs],
                    dtype=np.float64,
                )
                cols[key] = (t[:, 0], t[:, 1], t[:, 2])
            b = keyed_builder(run_name or run_id, "mlflow", cols, {}, first_line=1)
            _context(
                b,
                {
                    k: _param(v)
                    for k, v in con.execute("SELECT key, value FROM params WHERE run_uuid = ?", (run_id,)).fetchall()[
                        :500
                    ]
                },
            )
            b.meta["mlflow"] = {"run_id": run_id, "experiment": str(exp), "metrics": len(cols), "database": str(path)}
            out.append(b.build())
        return out
    except sqlite3.Error as e:
        raise InputError.of("ingest.err.sqlite_open", path=path, error=e) from None
    finally:
        con.close()


def _param(text: object) -> object:
    if not isinstance(text, str) or text.lower() in ("nan", "inf", "-inf"):
        return text
    try:
        return float(text)
    except ValueError:
        return text


def read_mlflow(path: Path, name: str) -> Run:
    """An MLflow run folder, experiment, `mlruns/`, or an `mlflow.db` (a folder holding one): the
    newest run started, the others in `file_runs`."""
    path = Path(path)
    db = path if path.is_file() else path / "mlflow.db"
    found = mlflow_runs(path)
    runs = _db_runs(db) if not found and is_mlflow_db(db) else []
    if not runs and not found:
        raise NotAFile.of("ingest.err.mlflow_none", path=path)
    for d in found:
        try:
            m = _NAME.search((d / "meta.yaml").read_text(encoding="utf-8", errors="replace"))
        except OSError:
            m = None
        runs.append(read_run(d, m.group(1).strip() if m else d.name))
    return link_runs(runs, Msg("ingest.note.mlflow_holds", n=len(runs)), lambda r: r.name)


FORMAT = Format(
    "mlflow",
    "MLflow runs: the file store (a run folder, an experiment or mlruns/) or the tracking "
    "database mlflow.db; --run K, e.g. `rlvitals diagnose mlruns/`",
    lambda text: 0.0,
    reader=read_mlflow,
)
