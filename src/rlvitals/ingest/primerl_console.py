"""prime-rl console: the trainer's and the orchestrator's pipe-separated step lines (loguru `SUCCESS`).

    Step 12 | Time: 41.20s | Loss: 0.0102 | Entropy: 0.4410 | Mismatch KL: 0.0003 | Grad. Norm: 0.1900 | LR: 1.00e-06 | MFU: 38.2%
    Step 12 | Time: 12.31s | Reward: 0.5100 | Seq. Length: 312.4 tokens/sample | Async Level: 1
    Step 12 |   41.2s | Loss 0.0102 | Entropy 0.4410 | Truncation 3.1%          (older spelling, no colons)

Each field is `Label[:] number[unit]`; the label becomes a snake_case key (`Grad. Norm` →
`grad_norm`), an unlabelled duration is `time`, percents become fractions (`3.1%` → 0.031), and
for `200/256 (78.1%)` the first number is kept.  Trainer and orchestrator lines share the step, so
they merge.  `Seq. Length` counts prompt + completion tokens, so it is kept as `seq_len` and does
not stand in for the completion length.  Fields without a number are counted, not guessed.

prime-rl prints `{:.4f}` (LR `{:.2e}`): a vital that lives near 1e-3 keeps one or two significant
digits on the console.  Where a vital's values are all on the 4-decimal grid and its median is below
0.01, the run says so and points at the full-precision `<output_dir>/metrics.jsonl` the file monitor
writes (on by default).  Older trainers printed `Importance Ratio` (π over the inference policy's π:
the ratio the alias table reads as ratio_mean).
"""

from __future__ import annotations

import re
from typing import TextIO

import numpy as np

from ..i18n import Listing, Msg
from ..run import Run
from .base import Format, LineParser, clean_line
from .pydict import KeyMap, rows_for_writer
from .values import OUT_OF_RANGE, parse_value

__all__ = ["FORMAT", "PrimeRLConsoleParser", "write"]

_LINE = re.compile(r"(?:^|\s)Step (\S+) \|(.*\|.*)$")  # step checked by the builder
_NUM = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|-inf")
_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9 .\-/]*")
_BLANKS = re.compile(r"\s+")
_DURATION = re.compile(r"^\s*[\d.]+s\s*$")
# label (snake_case) -> the key written, so the alias table maps it where it means a canonical metric
_KEYS = {
    "grad_norm": "grad_norm",
    "truncation": "truncated",
    "seq_length": "seq_len",
    "lr": "lr",
    "loss": "loss",
    "entropy": "entropy",
    "reward": "reward",
    "mismatch_kl": "mismatch_kl",
    "importance_ratio": "importance_ratio/mean",
}


def _snake(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def parse_fields(rest: str) -> tuple[dict[str, float], int]:
    """Fields of one step line (after `Step N |`) → ({key: value}, fields without a number)."""
    row: dict[str, float] = {}
    bad = 0
    for part in rest.split("|"):
        if not part.strip():
            continue
        field = _field(part)
        if field is None:
            bad += 1
            continue
        label, num, pct = field
        if label is None:
            if not _DURATION.match(part):
                bad += 1
                continue
            label = "time"
        key = _snake(label)
        value = parse_value(num)
        if value is None:
            bad += 1
            continue
        if pct and value is not OUT_OF_RANGE:
            value /= 100.0
        row[_KEYS.get(key, key)] = value
    return row, bad


def _field(part: str) -> tuple[str | None, str, bool] | None:
    """(label or None, the number's text, whether a `%` follows) of one field: `Label[:] number…`,
    the shortest label that a number follows.  Written as a scan over the blank runs (each tried
    once) rather than one regex with a lazy label, which backtracked cubically on long blank runs."""
    s = part.lstrip()
    m = _LABEL.match(s)
    end = m.end() if m else 0  # a label is a prefix of s[:end]
    if end:
        for blank in _BLANKS.finditer(s, 1):
            at = blank.start()
            if at > end + 1 or (at == end + 1 and s[end] != ":"):
                break
            num = _NUM.match(s, blank.end())
            if num is not None:
                label = s[: at - 1] if at == end + 1 else s[:at]
                return label, num.group(), s.startswith("%", num.end())
    num = _NUM.match(s)
    if num is None:
        return None
    return None, num.group(), s.startswith("%", num.end())


class PrimeRLConsoleParser(LineParser):
    format_name = "primerl-console"

    def parse(self, line: str, lineno: int) -> None:
        if "Step" not in line or "|" not in line:
            return
        m = _LINE.search(clean_line(line))
        if m is None:
            return
        row, bad = parse_fields(m.group(2))
        self.builder.add_parsed(
            m.group(1),
            row,
            lineno,
            dropped=bad,
            dropped_reason="fields without a number",
            empty_reason="step line without metrics",
        )

    def snapshot(self) -> Run:
        return precision_note(self.builder.build())

    def finish(self) -> Run:
        return precision_note(self.builder.build())


def precision_note(run: Run, decimals: int = 4) -> Run:
    """Say which vitals the console's fixed decimals left with at most two significant digits."""
    quantum = 10.0**-decimals
    coarse: list[Msg] = []
    for name, s in run.series.items():
        v = s.values[np.isfinite(s.values)]
        if v.size < 5 or name == "lr":
            continue
        med = float(np.median(np.abs(v)))
        if 0 < med < 100 * quantum and np.allclose(v / quantum, np.round(v / quantum), rtol=0, atol=1e-6):
            coarse.append(Msg("ingest.note.median", name=name, med=f"{med:.{decimals}f}"))
    if coarse:
        run.notes.append(Msg("ingest.note.coarse", decimals=decimals, names=Listing(tuple(coarse), "note.comma_sep")))
    return run


KEYS: KeyMap = {
    "reward": ("Reward", None),
    "entropy": ("Entropy", None),
    "gnorm": ("Grad. Norm", None),
    "lr": ("LR", None),
    "loss": ("Loss", None),
    "trunc": ("Truncation", None),
}
_LABELS = frozenset(label for label, _ in KEYS.values())
# (not on a Markdown table's row, which starts with `|`: `| Config | Step N | Step M |` is a report)
_SNIFF = re.compile(r"(?m)^(?![ \t]*\|)[^\n]*?(?:^|\s)Step \d+ \|[^\n]*\|")


def _field_text(label: str, v: float) -> str:
    """A value as prime-rl prints it: `{:.4f}`, LR `{:.2e}`, Truncation a percent with one decimal."""
    if label == "Truncation":
        return f"{label}: {v * 100:.1f}%"
    return f"{label}: {v:.2e}" if label == "LR" else f"{label}: {v:.4f}"


def write(run: Run, out: TextIO) -> None:
    """Trainer and orchestrator fields on one line per step, rounded as prime-rl prints them; the
    metrics prime-rl does not print (KL to the reference, clip fraction, length), and the extras,
    have no console field."""
    for step, row in rows_for_writer(run, KEYS):
        fields = [_field_text(label, v) for label, v in row.items() if label in _LABELS]
        if fields:
            out.write(f"Step {step} | Time: 1.00s | " + " | ".join(fields) + "\n")


def _sniff(text: str) -> float:
    hits = len(_SNIFF.findall(text))
    return 0.0 if hits == 0 else min(0.85, 0.5 + 0.05 * hits)


FORMAT = Format(
    "primerl-console",
    "prime-rl console: `Step N | Label: value | …` (percents → fractions)",
    _sniff,
    parser=PrimeRLConsoleParser,
    writer=write,
)
