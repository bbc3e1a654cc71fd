"""Realistic simulated runs with known ground truth. (skeleton, being built)"""

from __future__ import annotations

SCENARIOS: dict = {}


def simulate(scenario: str, *, seed: int = 0, steps: int = 200):
    raise NotImplementedError
