"""The experiment trackers' fixtures (tests/fixtures/wandb, mlflow, swanlab), shared by their tests:
where they are, how to lay one out as its library left it, how to load a fixture's make.py, and the
comparison they all make (a tracker's run reads like the same rows as metrics.jsonl.gz).

A plain module, not conftest (as realdata.py): several test folders have a conftest.py.
"""

from __future__ import annotations

import gzip
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

FIXTURES = Path(__file__).resolve().parent / "fixtures"
WANDB = FIXTURES / "wandb"
MLFLOW = FIXTURES / "mlflow"
SWANLAB = FIXTURES / "swanlab"
# the rows every tracker fixture logged (wandb/make.py's rows()), as Tinker cookbook's ml_log writes them
JSONL = WANDB / "metrics.jsonl.gz"
# the wandb versions whose offline runs are fixtures (their records differ)
WANDB_VERSIONS = sorted(p.parent.parent.name for p in WANDB.glob("*/offline-run-*/run-*.wandb.gz"))
# make.py's CONFIG as every tracker's reader gives it in run.meta["context"]
CONTEXT = {"lr": 4e-5, "batch_size": 128.0, "group_size": 16.0, "max_response_length": 1024.0}


def gunzip(gz: Path, out: Path) -> Path:
    """Unpack the fixture file `gz` to `out` (its folders made); return `out`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(gzip.decompress(gz.read_bytes()))
    return out


def same_series(a, b) -> None:
    """Every canonical series, extra, reward component and eval: same keys, source keys, steps and values."""
    for part in ("series", "extras", "components", "evals"):
        da, db = getattr(a, part), getattr(b, part)
        assert set(da) == set(db), (part, set(da) ^ set(db))
        for k in da:
            assert da[k].source == db[k].source, k
            assert np.array_equal(da[k].steps, db[k].steps), k
            assert np.array_equal(da[k].values, db[k].values, equal_nan=True), k


def load_maker(tracker: str) -> ModuleType:
    """tests/fixtures/<tracker>/make.py as a module named `<tracker>_make` (for the tests that write
    a fresh run with the tracker's real library).  mlflow's and swanlab's import the W&B maker's rows
    as `make`; sys.path and sys.modules are left as they were."""
    saved = sys.path[:]
    sys.path.insert(0, str(WANDB))
    try:
        spec = importlib.util.spec_from_file_location(f"{tracker}_make", FIXTURES / tracker / "make.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path[:] = saved
        sys.modules.pop("make", None)
