"""Read any supported training log into a Run. (skeleton, being built)"""

from __future__ import annotations

FORMATS: dict = {}


def read(path, format: str | None = None):
    raise NotImplementedError
