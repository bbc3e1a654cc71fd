"""verl's file logger (`trainer.logger=[file]`): JSON Lines `{"step": N, "data": {flat metrics}}`.

Written with orjson, which turns NaN and inf into `null`, so `null` here is read as NaN.  The file is
opened in truncate mode by verl, so a resumed run with the same name holds only the new history.
The reading is `jsonl.JsonlParser`'s; this module adds the name, the sniff and the writer.
"""

from __future__ import annotations

import json
import math
import re
from typing import TextIO

from ..run import Run
from .base import Format
from .jsonl import JsonlParser
from .pydict import rows_for_writer
from .verl_console import WRITES

__all__ = ["FORMAT", "VerlJsonlParser", "write_verl_jsonl"]


class VerlJsonlParser(JsonlParser):
    format_name = "verl-jsonl"
    null_is_nan = True


def write_verl_jsonl(run: Run, out: TextIO) -> None:
    """Rows as verl writes them, verl's keys, NaN/inf as null (orjson's behaviour)."""
    for step, row in rows_for_writer(run, WRITES):
        data = {k: (v if math.isfinite(v) else None) for k, v in row.items()}
        out.write(json.dumps({"step": step, "data": data}, separators=(",", ":")) + "\n")


_SHAPE = re.compile(r'^\s*\{\s*"step"\s*:\s*-?\d+\s*,\s*"data"\s*:\s*\{', re.M)


def _sniff(text: str) -> float:
    hits = len(_SHAPE.findall(text))
    return 0.0 if hits == 0 else min(0.95, 0.85 + 0.02 * hits)


FORMAT = Format(
    "verl-jsonl",
    'verl file logger: JSON Lines `{"step": N, "data": {…}}` (NaN written as null)',
    _sniff,
    parser=VerlJsonlParser,
    writer=write_verl_jsonl,
)
