"""The registry: every reader module, in sniffing order of precedence (ties go to the earlier).

Each module listed defines `FORMAT = Format(...)` (see base.py).  Add a format: one module, one line here.
"""

from __future__ import annotations

from importlib import import_module

from .base import Format

MODULES: tuple[str, ...] = (
    # one line per reader module, e.g. "lesson", "verl_console", ...
    "lesson",
    "verl_console",
    "verl_jsonl",
    "jsonl",
    "csvfile",
    "tb_format",
    "trl_state",
    "openrlhf",
    "roll",
    "slime",
    "torchtune",
    "primerl_console",
    "trl",
)


def load() -> dict[str, Format]:
    formats: dict[str, Format] = {}
    for mod in MODULES:
        fmt = import_module(f"{__package__}.{mod}").FORMAT
        formats[fmt.name] = fmt
    return formats
