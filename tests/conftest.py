"""Shared test fixtures: the real training logs (paths in realdata.py); the session's shared RL-loop
runs (simruns.py); the `slow` marker."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
import simruns
from realdata import REAL_LOGS, TESTS

# Modules whose tests take a second or more each (simulated RL-loop runs diagnosed at every prefix,
# hypothesis fuzzing of every reader): about 15% of the tests and 70% of the suite's time.  They are
# marked `slow`, so `pytest -m "not slow"` (or `bash scripts/test -m "not slow"`) is the quick
# loop; CI and a plain `bash scripts/test` run every test.  A module moves here when its tests
# average over a second on a loaded 2-core machine (`--durations` shows them).
SLOW_MODULES = frozenset(
    {
        "tests/ingest/test_fuzz.py",
        "tests/simulate/test_rlloop.py",
        "tests/diagnose/test_aftermath.py",
        "tests/diagnose/test_prefix_updates.py",
        "tests/diagnose/test_prefix_slow.py",
        "tests/diagnose/test_family_b.py",
        "tests/diagnose/test_first_right.py",
        "tests/diagnose/test_collapse_prefix.py",
        "tests/lab/test_distinct_runs.py",
    }
)


def pytest_configure(config: pytest.Config) -> None:
    """The session's folder of shared RL-loop runs (tests/simruns.py), made by the controller
    before the xdist workers start (they inherit its name) and removed when the session ends."""
    if hasattr(config, "workerinput") or os.environ.get(simruns.ENV):
        return
    folder = tempfile.mkdtemp(prefix="rlvitals-test-runs-")
    os.environ[simruns.ENV] = folder
    config.add_cleanup(lambda: (os.environ.pop(simruns.ENV, None), shutil.rmtree(folder, ignore_errors=True)))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    missing = sorted(m for m in SLOW_MODULES if not (TESTS.parent / m).is_file())
    if missing:
        raise pytest.UsageError(f"tests/conftest.py names missing test files: {', '.join(missing)}")
    for item in items:
        if item.nodeid.split("::", 1)[0] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def real_logs() -> dict[str, Path]:
    return REAL_LOGS
