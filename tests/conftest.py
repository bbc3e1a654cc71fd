"""Shared test fixtures: the real training logs (paths in realdata.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from realdata import REAL_LOGS


@pytest.fixture(scope="session")
def real_logs() -> dict[str, Path]:
    return REAL_LOGS
