"""rlvitals: read the training curves of RL fine-tuning of LLMs the way a practitioner does.

import rlvitals
run = rlvitals.read("train.log")          # any supported format, sniffed (the last run of the file)
runs = rlvitals.read_all("train.log")     # every run, when the step counter restarted at 1
run["reward"]                             # a Series (KeyError lists what the run has)
diag = rlvitals.diagnose_run(run)         # verdict, findings, shapes; print(diag) for a summary
rlvitals.plot(run, "curves.png")          # the lesson's figure (needs rlvitals[plot])
sim = rlvitals.simulate_run("entropy_collapse", seed=1)
mon = rlvitals.Monitor()                  # inside a training loop: mon.log(metrics, step)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = [
    "Diagnosis",
    "Finding",
    "Monitor",
    "Run",
    "Series",
    "__version__",
    "diagnose",
    "diagnose_run",
    "plot",
    "read",
    "read_all",
    "simulate",
    "simulate_run",
]

# Everything is imported on first use (PEP 562), so `import rlvitals` and `rlvitals --version`
# do not pay for numpy and every reader and rule.  `diagnose` and `simulate` are the subpackages;
# their functions are `diagnose_run` and `simulate_run` (one name, one object: importing
# rlvitals.diagnose.model binds `rlvitals.diagnose` to the subpackage).  Calling the subpackage,
# as 0.1 did, still works with a DeprecationWarning until 0.3 (rlvitals._deprecated).
_LAZY: dict[str, tuple[str, str | None]] = {
    "diagnose": (".diagnose", None),
    "diagnose_run": (".diagnose", "diagnose"),
    "simulate": (".simulate", None),
    "simulate_run": (".simulate", "simulate"),
    "Diagnosis": (".diagnose.model", "Diagnosis"),
    "Finding": (".diagnose.model", "Finding"),
    "read": (".ingest", "read"),
    "read_all": (".ingest", "read_all"),
    "Run": (".run", "Run"),
    "Series": (".run", "Series"),
    "Monitor": (".watch", "Monitor"),
}

if TYPE_CHECKING:
    from os import PathLike
    from pathlib import Path

    from . import diagnose, simulate
    from .diagnose import diagnose as diagnose_run
    from .diagnose.model import Diagnosis, Finding
    from .ingest import read, read_all
    from .run import Run, Series
    from .simulate import simulate as simulate_run
    from .watch import Monitor


def plot(
    run: Run,
    path: str | PathLike[str] = "curves.png",
    lang: str = "en",
    max_points: int = 2000,
    diagnosis: Diagnosis | None = None,
) -> Path:
    """Draw the lesson's figure of `run` to `path` (PNG/SVG/PDF; needs matplotlib: rlvitals[plot]).

    max_points: min/max-envelope decimation target per panel (0 = draw every point).
    diagnosis: rlvitals.diagnose_run(run) to mark each finding's onset on the panels it rests on."""
    from .render.plot import plot as _plot

    return _plot(run, path, lang=lang, max_points=max_points, diagnosis=diagnosis)


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'rlvitals' has no attribute {name!r}") from None
    obj = import_module(module, __name__)
    value = obj if attr is None else getattr(obj, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
