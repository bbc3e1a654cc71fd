"""Diagnose a run: one module per finding, `verdict.py` combines them. (skeleton, being built)"""

from __future__ import annotations

from .model import Diagnosis, Finding


def diagnose(run, samples=None) -> Diagnosis:
    raise NotImplementedError
