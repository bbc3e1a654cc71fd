"""Parquet step tables: rlprobe's run directory (`steps.parquet` beside `manifest.json`) or any
Parquet file with one row per step (a pandas / W&B export).  Needs pyarrow (`pip install
rlvitals[parquet]`); without it the file is refused with that hint, never misread.

The step column is the first of `step`, `_step`, `global_step`, … (as in CSV); without one the row
number is used and a note says so.  Numeric columns are metrics, a null cell is a gap (not logged
at that step); list, string and other columns are not metrics and are counted in `Run.skipped`.
rlprobe flattens its reward components to `reward_component.<name>` columns: they are kept as they
are and read as reward components.  An rlprobe run directory may hold `rank-*` sub-recordings of
other ranks: rank 0's table (the directory's own) is read, and a note says how many were left.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..i18n import Msg
from ..run import Run
from .base import Format
from .builder import RunBuilder
from .csvfile import STEP_COLUMNS

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["FORMAT", "MAGIC", "is_run_dir", "read_parquet"]

MAGIC = b"PAR1"
STEPS_FILE = "steps.parquet"
_MAX_STEP = 2**62


def is_run_dir(path: Path) -> bool:
    """An rlprobe run directory: its step table beside its manifest."""
    return (path / STEPS_FILE).is_file()


def _table(path: Path) -> pa.Table:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError.of("ingest.err.parquet_dep", path=path) from None
    try:
        return pq.read_table(path)
    except Exception as e:  # pyarrow raises its own error classes (ArrowInvalid, OSError, …)
        raise InputError.of("ingest.err.parquet", path=path, error=str(e).splitlines()[0][:200]) from None


def read_parquet(path: Path, name: str) -> Run:
    """A Parquet step table (a file, or an rlprobe run directory holding `steps.parquet`)."""
    path = Path(path)
    run_dir = path if path.is_dir() else None
    table = _table(path / STEPS_FILE if run_dir else path)
    b = RunBuilder(name, "parquet")
    cols: dict[str, np.ndarray] = {}
    present: dict[str, np.ndarray] = {}
    for field in table.schema:
        col = table.column(field.name)
        kind = str(field.type)
        if not kind.startswith(("int", "uint", "float", "double", "halffloat", "decimal")):
            b.drop("non-numeric values", int(len(col) - col.null_count))  # lists, strings, flags: not metrics
            continue
        mask = ~np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        values = np.asarray(col.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.float64)
        cols[field.name] = values
        present[field.name] = mask
    step_key = next((k for k in STEP_COLUMNS if k in cols), None)
    n = table.num_rows
    if step_key is None:
        steps = np.arange(n, dtype=np.int64)
        b.meta["step_inferred"] = True
        b.note(Msg("note.row_number"))
        keep = np.ones(n, dtype=bool)
    else:
        raw = cols.pop(step_key)
        ok = present.pop(step_key) & np.isfinite(raw) & (np.abs(raw) < _MAX_STEP)
        if int((~ok).sum()):
            b.skip("row without a step", int((~ok).sum()))
        keep = ok
        steps = np.where(ok, raw, 0).astype(np.int64)
    if not bool(keep.all()):
        steps = steps[keep]
        cols = {k: v[keep] for k, v in cols.items()}
        present = {k: m[keep] for k, m in present.items()}
    b.add_block(steps, cols, present=present)
    if run_dir is not None:
        b.meta["run_dir"] = str(run_dir)
        manifest = run_dir / "manifest.json"
        if manifest.is_file():
            try:
                doc = json.loads(manifest.read_text(encoding="utf-8"))
                if isinstance(doc, dict):
                    b.meta["manifest"] = {k: v for k, v in doc.items() if isinstance(v, (str, int, float))}
            except (ValueError, OSError, RecursionError):
                b.note(Msg("ingest.note.manifest_unread"))
        ranks = sorted(p.name for p in run_dir.glob("rank-*") if p.is_dir())
        if ranks:
            b.note(Msg("ingest.note.ranks_left", n=len(ranks), names=", ".join(ranks[:4])))
    return b.build()


FORMAT = Format(
    "parquet",
    "Parquet step table: rlprobe's run directory (steps.parquet) or a pandas/W&B export "
    "(needs pyarrow: rlvitals[parquet])",
    lambda text: 0.0,
    reader=read_parquet,
)
