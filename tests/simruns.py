"""RL-loop runs shared by every test of one session, across pytest-xdist workers.

`simruns.simulate_rl(scenario, seed=, steps=, **knobs)` is rlvitals' `simulate_rl` made once a session: a run ten
tests read (the healthy loop at one seed, a blow-up several modules diagnose) costs a fraction of
a second to a second of CPU each time it is simulated.  The first worker to need a run simulates
it and leaves it, pickled, in the session's folder (tests/conftest.py makes it and removes it at
the end, so nothing outlives the session); the others load it.  Each caller gets its own deep
copy, so a test that edits its run changes no other test's.  Tests of the engine itself
(determinism, knobs) call `rlvitals.simulate.rlloop.simulate_rl`.
"""

from __future__ import annotations

import copy
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from rlvitals.run import Run

ENV = "RLVITALS_TEST_RUNS"  # the session's folder; set by tests/conftest.py, inherited by the workers
_MEMO: dict[str, Run] = {}


def _key(scenario: str, seed: int, steps: int, knobs: dict[str, Any]) -> str:
    parts = [scenario, f"seed={seed}", f"steps={steps}", *(f"{k}={knobs[k]!r}" for k in sorted(knobs))]
    return "_".join(parts).replace("/", "-")


def simulate_rl(scenario: str, *, seed: int = 0, steps: int = 300, **knobs: Any) -> Run:
    """`rlvitals.simulate.rlloop.simulate_rl`'s run, simulated once a session."""
    key = _key(scenario, seed, steps, knobs)
    run = _MEMO.get(key)
    if run is None:
        from rlvitals.simulate import rlloop

        run = _load_or_make(key, lambda: rlloop.simulate_rl(scenario, seed=seed, steps=steps, **knobs))
        _MEMO[key] = run
    return copy.deepcopy(run)


def _load_or_make(key: str, make: Any) -> Run:
    folder = os.environ.get(ENV)
    path = Path(folder) / f"{key}.pickle" if folder else None
    if path is not None and path.is_file():
        with path.open("rb") as f:
            run: Run = pickle.load(f)
        return run
    run = make()
    if path is not None and path.parent.is_dir():
        # written aside and renamed: a worker loading it meanwhile never sees half a file
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".part")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(run, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    return run
