"""prime-rl console: the trainer's and the orchestrator's pipe-separated step lines (loguru `SUCCESS`).

    Step 12 | Time: 41.20s | Loss: 0.0102 | Entropy: 0.4410 | Mismatch KL: 0.0003 | Grad. Norm: 0.1900 | LR: 1.00e-06 | MFU: 38.2%
    Step 12 | Time: 12.31s | Reward: 0.5100 | Seq. Length: 312.4 tokens/sample | Async Level: 1
    Step 12 |   41.2s | Loss 0.0102 | Entropy 0.4410 | Truncation 3.1%          (older spelling, no colons)

Each field is `Label[:] number[unit]`; the label becomes a snake_case key (`Grad. Norm` →
`grad_norm`), an unlabelled duration is `time`, percents become fractions (`3.1%` → 0.031), and
for `200/256 (78.1%)` the first number is kept.  Trainer and orchestrator lines share the step, so
they merge.  `Seq. Length` counts prompt + completion tokens, so it is kept as `seq_len` and does
not stand in for the completion length.  Fields without a number are counted, not guessed.
"""

from __future__ import annotations

import re
from typing import TextIO

from ..run import Run
from .base import Format, LineParser, clean_line
from .pydict import KeyMap, rows_for_writer
from .values import parse_value

__all__ = ["FORMAT", "PrimeRLConsoleParser", "write"]

_LINE = re.compile(r"(?:^|\s)Step (\d+) \|(.*\|.*)$")
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|-inf"
_FIELD = re.compile(rf"^\s*(?:(?P<label>[A-Za-z][A-Za-z0-9 .\-/]*?):?\s+)?(?P<num>{_NUM})(?P<pct>%)?"
                    r"(?P<rest>.*)$")
_DURATION = re.compile(r"^\s*[\d.]+s\s*$")
# label (snake_case) -> the key written, so the alias table maps it where it means a canonical metric
_KEYS = {"grad_norm": "grad_norm", "truncation": "truncated", "seq_length": "seq_len", "lr": "lr",
         "loss": "loss", "entropy": "entropy", "reward": "reward", "mismatch_kl": "mismatch_kl"}


def _snake(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def parse_fields(rest: str) -> tuple[dict[str, float], int]:
    """Fields of one step line (after `Step N |`) → ({key: value}, fields without a number)."""
    row: dict[str, float] = {}
    bad = 0
    for part in rest.split("|"):
        if not part.strip():
            continue
        m = _FIELD.match(part)
        if m is None:
            bad += 1
            continue
        label = m.group("label")
        if label is None:
            if not _DURATION.match(part):
                bad += 1
                continue
            label = "time"
        key = _snake(label)
        value = parse_value(m.group("num"))
        if value is None:
            bad += 1
            continue
        if m.group("pct"):
            value /= 100.0
        row[_KEYS.get(key, key)] = value
    return row, bad


class PrimeRLConsoleParser(LineParser):
    format_name = "primerl-console"

    def parse(self, line: str, lineno: int) -> None:
        if "Step" not in line or "|" not in line:
            return
        m = _LINE.search(clean_line(line))
        if m is None:
            return
        row, bad = parse_fields(m.group(2))
        self.builder.add_parsed(int(m.group(1)), row, lineno, dropped=bad, dropped_reason="fields without a number",
                                empty_reason="step line without metrics")


KEYS: KeyMap = {
    "reward": ("Reward", None),
    "entropy": ("Entropy", None),
    "gnorm": ("Grad. Norm", None),
    "lr": ("LR", None),
    "loss": ("Loss", None),
    "trunc": ("Truncation", None),
}
_LABELS = frozenset(label for label, _ in KEYS.values())
_SNIFF = re.compile(r"(?m)(?:^|\s)Step \d+ \|[^\n]*\|")


def write(run: Run, out: TextIO) -> None:
    """Trainer and orchestrator fields on one line per step, full precision (prime-rl rounds to 4
    decimals); the metrics prime-rl does not print, and the extras, have no console field."""
    for step, row in rows_for_writer(run, KEYS):
        fields = [f"{label}: {v * 100!r}%" if label == "Truncation" else f"{label}: {v!r}"
                  for label, v in row.items() if label in _LABELS]
        if fields:
            out.write(f"Step {step} | Time: 1.00s | " + " | ".join(fields) + "\n")


def _sniff(text: str) -> float:
    hits = len(_SNIFF.findall(text))
    return 0.0 if hits == 0 else min(0.85, 0.5 + 0.05 * hits)


FORMAT = Format("primerl-console", "prime-rl console: `Step N | Label: value | …` (percents → fractions)",
                _sniff, parser=PrimeRLConsoleParser, writer=write)
