"""torchtune GRPO `DiskLogger`/`StdoutLogger` txt lines: `Step N | key:value key:value `.

Values are 0-d tensors as printed, `rewards:tensor(0.4375, device='cuda:0')` (a space inside the
parentheses, so tokens are matched, not split on spaces).  Only rank 0 logs.  A new file per
launch means resumed runs are separate files; within one file a step going back is a new segment.
`num_stop_tokens` is a count, not a rate, and is kept as an extra.
"""

from __future__ import annotations

import re
from typing import TextIO

import numpy as np

from ..run import Run
from .base import Format, LineParser, clean_line
from .pydict import KeyMap, rows_for_writer
from .values import parse_value

__all__ = ["FORMAT", "TorchtuneParser", "write"]

# the step as printed, whatever it is: the builder checks it (a bad one is counted, not ignored)
_LINE = re.compile(r"^\s*Step (\S+) \| (.*)$")
# key:tensor(0.43, device='cuda:0') captures the number inside; key:0.43 the bare value
# (?<!…) lets a key start only after a blank or `|` (a long run without `:` is tried once, not once
# per byte) and the possessive `*+` never backtracks over a `tensor(` left open: the line is read in
# linear time (it was quadratic: a 72 KB line took seconds)
_PAIR = re.compile(r"(?<![^\s|])([^\s:|]+):\s*(?:tensor\(([^,)]*+)[^)]*+\)|(\S+))")
_SNIFF = re.compile(r"^\s*Step \d+ \| [^\s:|]+:\S", re.MULTILINE)


class TorchtuneParser(LineParser):
    format_name = "torchtune"

    def parse(self, line: str, lineno: int) -> None:
        if "Step" not in line:
            return
        m = _LINE.match(clean_line(line))
        if m is None:
            return
        rest = m.group(2)
        if " | " in rest:  # prime-rl's console, not ours
            return
        row: dict[str, float] = {}
        bad = 0
        for key, inner, bare in _PAIR.findall(rest):
            v = parse_value(inner or bare)
            if v is None:
                bad += 1
            else:
                row[key] = v
        self.builder.add_parsed(m.group(1), row, lineno, dropped=bad, empty_reason="step line without metrics")


STOP_COUNT = "num_stop_tokens"
WRITE_ANSWERS = 16  # answers per step on rank 0 in dev/3B_full_grpo.yaml (batch_size 1 x grpo_samples 16)


def _stopped(trunc: np.ndarray) -> np.ndarray:
    """num_stop_tokens: the answers on rank 0 that ended with a stop token (the others hit the cap)."""
    stopped: np.ndarray = np.round((1.0 - np.clip(np.asarray(trunc, dtype=float), 0.0, 1.0)) * WRITE_ANSWERS)
    return stopped


# What the GRPO recipe's log_metrics writes (recipes/dev/grpo_full_finetune_distributed.py): rewards,
# successes, num_stop_tokens, loss, policy_loss, kl_loss, clipfrac, ratios, approx_policy_kl,
# response_lengths, then `lr` and, with clip_grad_norm set (1.0 in the shipped configs), `grad_norm`.
# No entropy, no advantage spread, no eval; the truncation is a count without its batch size.
KEYS: KeyMap = {
    "reward": ("rewards", None),
    "acc": ("successes", None),
    "kl": ("kl_loss", None),
    "clip_frac": ("clipfrac", None),
    "ratio_mean": ("ratios", None),
    "len": ("response_lengths", None),
    "loss": ("policy_loss", None),
    "lr": ("lr", None),
    "gnorm": ("grad_norm", None),
    "trunc": (STOP_COUNT, _stopped),
}


def write(run: Run, out: TextIO) -> None:
    """The txt logger's lines, values as CUDA tensors (full precision, unlike torch's 4 decimals)."""
    for step, row in rows_for_writer(run, KEYS):
        pairs = "".join(f"{k}:tensor({v!r}, device='cuda:0') " for k, v in row.items())
        out.write(f"Step {step} | {pairs}\n")


def _sniff(text: str) -> float:
    hits = len(_SNIFF.findall(text))
    return 0.0 if hits == 0 else min(0.9, 0.6 + 0.05 * hits)


FORMAT = Format(
    "torchtune", "torchtune GRPO txt log: `Step N | key:value …`", _sniff, parser=TorchtuneParser, writer=write
)
